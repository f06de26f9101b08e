#include "plugin/host_claims.h"

#include "xml/domain_claims.h"
#include "xml/xml_document.h"

namespace numaplace::plugin {

HostClaims read_host_claims(const std::vector<DomainXml>& domains, const HostTopology& host,
                            const std::string& exclude_name, const std::string& exclude_uuid) {
  HostClaims out;
  for (const auto& domain : domains) {
    if ((!exclude_name.empty() && domain.name == exclude_name) ||
        (!exclude_uuid.empty() && domain.uuid == exclude_uuid)) {
      continue;
    }
    const std::string what = "domain '" + domain.name + "'";
    auto doc = xml::parse_document(domain.xml, what);
    if (!doc) {
      out.warnings.push_back(doc.error().message);
      continue;
    }
    auto claim = xml::read_guest_claim(doc->get(), host, what);
    if (!claim) {
      out.warnings.push_back(claim.error().message);
      continue;
    }
    claim->running = domain.running;
    if (claim->uuid.empty()) claim->uuid = domain.uuid;
    out.claims.push_back(std::move(*claim));
  }
  return out;
}

}  // namespace numaplace::plugin
