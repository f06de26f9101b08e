// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/sources/host_claims.h"

#include "placement/lifecycle/claims.h"
#include "xml/domain_claims.h"
#include "xml/xml_document.h"

namespace numaplace::plugin {

HostClaims read_host_claims(const std::vector<DomainXml>& domains, const HostTopology& host,
                            const std::string& exclude_name, const std::string& exclude_uuid, xml::BeyondHost beyond) {
  HostClaims out;
  const auto excluded = [&](const std::string& name, const std::string& uuid) {
    return is_same_guest(exclude_name, exclude_uuid, name, uuid);
  };
  for (const auto& domain : domains) {
    if (excluded(domain.name, domain.uuid)) continue;
    const std::string what = "domain '" + domain.name + "'";
    const auto unread = [&](const Error& why) {
      out.warnings.push_back(why.message);
      if (domain.running) out.running_unread.push_back(why.message);
    };
    auto doc = xml::parse_document(domain.xml, what);
    if (!doc) {
      unread(doc.error());
      continue;
    }
    auto claim = xml::read_guest_claim(doc->get(), host, what, beyond, &out.notes);
    if (!claim) {
      unread(claim.error());
      continue;
    }
    // A domain from a file is known by its path until read: its own name and uuid decide too.
    if (excluded(claim->name, claim->uuid)) continue;
    claim->running = domain.running;
    if (claim->uuid.empty()) claim->uuid = domain.uuid;
    out.claims.push_back(std::move(*claim));
  }
  return out;
}

Status running_guests_known(const HostClaims& claims, const std::string& also) {
  if (claims.running_unread.empty()) return Done{};
  std::string more;
  if (claims.running_unread.size() > 1) more = " and " + std::to_string(claims.running_unread.size() - 1) + " more";
  // virsh edit changes the definition only; a running guest's record is changed live by virsh metadata.
  return make_error("RunningGuestsUnknown",
                    "what a running guest holds cannot be counted (" + claims.running_unread.front() + more +
                        "), so its pCPUs and memory are unknown and could be given out twice; stop that guest, or "
                        "repair what cannot be read: a status file this user may not read (libvirt's are root's), or "
                        "a damaged numaplace record (remove it from the running guest with 'virsh metadata GUEST "
                        "https://numaplace.dev/xmlns/domain/1 --live --remove', and from its definition with --config)" +
                        (also.empty() ? std::string() : "; " + also));
}

}  // namespace numaplace::plugin
