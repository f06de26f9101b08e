// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/service/guest_narrowing.h"

#include <cstdlib>
#include <memory>
#include <set>

#include "plugin/sources/libvirt_api.h"
#include "xml/domain_writer.h"
#include "xml/xml_document.h"

namespace numaplace::plugin {
namespace {

struct DomainFree {
  void operator()(virDomain* domain) const { loaded_libvirt().virDomainFree(domain); }
};
using DomainHandle = std::unique_ptr<virDomain, DomainFree>;

// libvirt's CPU map: one bit per pCPU, little-endian within each byte.
std::vector<unsigned char> cpu_map(const CpuSet& cpus) {
  std::vector<unsigned char> map(cpus.empty() ? 1 : cpus.last() / 8 + 1, 0);
  for (std::uint32_t cpu : cpus) map[cpu / 8] |= static_cast<unsigned char>(1U << (cpu % 8));
  return map;
}

Error failed(const std::string& guest, const std::string& step) {
  return make_error("NarrowingFailed", "could not move guest '" + guest + "' off the new guest's pCPUs (" + step +
                                           "): " + last_libvirt_message() +
                                           "; it was left as narrow as libvirt allowed, never wider");
}

// One thread re-pinned live. Drivers without the live flag (libvirt's test driver) take the
// current state, which is the live one for a running guest.
bool pin_live(virDomain* domain, const Narrowing& narrowing) {
  const auto& api = loaded_libvirt();
  std::vector<unsigned char> map = cpu_map(narrowing.kept);
  const int length = static_cast<int>(map.size());
  for (unsigned int flags : {static_cast<unsigned int>(VIR_DOMAIN_AFFECT_LIVE), 0U}) {
    int rc = -1;
    switch (narrowing.thread.kind) {
      case ThreadAffinity::Kind::Vcpu:
        rc = api.virDomainPinVcpuFlags(domain, narrowing.thread.id, map.data(), length, flags);
        break;
      case ThreadAffinity::Kind::Emulator:
        rc = api.virDomainPinEmulator(domain, map.data(), length, flags);
        break;
      case ThreadAffinity::Kind::IoThread:
        rc = api.virDomainPinIOThread(domain, narrowing.thread.id, map.data(), length, flags);
        break;
    }
    if (rc == 0) return true;
  }
  return false;
}

}  // namespace

Status apply_narrowing(const LibvirtConnection& conn, const std::vector<Narrowing>& plan, const CpuSet& taken,
                       const CpuSet& host_cpus) {
  const auto& api = loaded_libvirt();
  std::set<std::string> guests;
  for (const auto& narrowing : plan) guests.insert(narrowing.uuid);
  for (const std::string& uuid : guests) {
    std::string name;
    for (const auto& narrowing : plan) name = narrowing.uuid == uuid ? narrowing.guest : name;
    DomainHandle domain(uuid.empty() ? api.virDomainLookupByName(conn.handle(), name.c_str())
                                     : api.virDomainLookupByUUIDString(conn.handle(), uuid.c_str()));
    if (!domain) return failed(name, "looking it up");
    const bool running = api.virDomainIsActive(domain.get()) == 1;
    if (running) {
      for (const auto& narrowing : plan) {
        if (narrowing.uuid == uuid && !pin_live(domain.get(), narrowing)) {
          return failed(name, "pinning " + describe(narrowing.thread) + " to " + to_cpu_list(narrowing.kept));
        }
      }
    }
    if (api.virDomainIsPersistent(domain.get()) != 1) continue;
    char* raw = api.virDomainGetXMLDesc(domain.get(), VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE);
    if (raw == nullptr) return failed(name, "reading its persistent definition");
    const std::string text(raw);
    std::free(raw);
    auto doc = xml::parse_document(text, "persistent definition of '" + name + "'");
    if (!doc) return doc.error();
    if (xml::narrow_threads(doc->get(), taken, host_cpus).empty()) continue;
    const std::string narrowed = xml::serialize(doc->get());
    DomainHandle defined(api.virDomainDefineXMLFlags(conn.handle(), narrowed.c_str(), VIR_DOMAIN_DEFINE_VALIDATE));
    if (!defined) return failed(name, "defining its narrowed definition");
  }
  return Done{};
}

}  // namespace numaplace::plugin
