// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/sources/libvirt_domains.h"

#include "plugin/sources/libvirt_api.h"

#include <cstdlib>
#include <memory>

namespace numaplace::plugin {
namespace {

struct DomainFree {
  void operator()(virDomain* domain) const { loaded_libvirt().virDomainFree(domain); }
};
using DomainHandle = std::unique_ptr<virDomain, DomainFree>;

}  // namespace

Result<std::vector<DomainXml>> list_domains(const LibvirtConnection& conn, bool include_inactive) {
  virDomainPtr* raw = nullptr;
  const unsigned int flags = include_inactive ? 0 : VIR_CONNECT_LIST_DOMAINS_ACTIVE;
  int count = loaded_libvirt().virConnectListAllDomains(conn.handle(), &raw, flags);
  if (count < 0) {
    return make_error("HostUnavailable", "cannot list the domains of '" + conn.uri() + "': " + last_libvirt_message());
  }
  std::vector<DomainHandle> domains;
  for (int i = 0; i < count; ++i) domains.emplace_back(raw[i]);
  std::free(raw);

  std::vector<DomainXml> out;
  for (const auto& domain : domains) {
    DomainXml item;
    const char* name = loaded_libvirt().virDomainGetName(domain.get());
    item.name = name != nullptr ? name : "";
    char uuid[VIR_UUID_STRING_BUFLEN] = {};
    if (loaded_libvirt().virDomainGetUUIDString(domain.get(), uuid) == 0) item.uuid = uuid;
    item.running = loaded_libvirt().virDomainIsActive(domain.get()) == 1;
    char* xml = loaded_libvirt().virDomainGetXMLDesc(domain.get(), item.running ? 0 : VIR_DOMAIN_XML_INACTIVE);
    if (xml == nullptr) {
      // A domain that vanished between the listing and now holds nothing any more.
      if (loaded_libvirt().virDomainIsActive(domain.get()) < 0) continue;
      return make_error("HostUnavailable", "cannot read the XML of domain '" + item.name + "': " + last_libvirt_message());
    }
    item.xml = xml;
    std::free(xml);
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace numaplace::plugin
