#include "xml/domain_reader.h"

#include <charconv>

#include "placement/memory_size.h"
#include "xml/xml_document.h"

namespace numaplace::xml {

Result<DomainSummary> read_domain_summary(const xmlDoc* doc, const std::string& what) {
  const xmlNode* root = xmlDocGetRootElement(const_cast<xmlDoc*>(doc));
  if (!is_named(root, "domain")) {
    return make_error("NotDomain", what + " has root <" + std::string(reinterpret_cast<const char*>(root->name)) +
                                       ">, not <domain>; give a libvirt domain XML");
  }
  DomainSummary summary;
  summary.name = text_of(first_child(root, "name"));
  summary.uuid = text_of(first_child(root, "uuid"));
  summary.type = attribute(root, "type").value_or("");

  const xmlNode* vcpu = first_child(root, "vcpu");
  if (vcpu == nullptr) {
    return make_error("InvalidDomain", what + " has no <vcpu> element; say how many vCPUs the guest has");
  }
  std::string count_text = text_of(vcpu);
  while (!count_text.empty() && (count_text.back() == ' ' || count_text.back() == '\n')) count_text.pop_back();
  while (!count_text.empty() && (count_text.front() == ' ' || count_text.front() == '\n')) count_text.erase(0, 1);
  std::uint64_t count = 0;
  auto [ptr, ec] = std::from_chars(count_text.data(), count_text.data() + count_text.size(), count);
  if (count_text.empty() || ec != std::errc() || ptr != count_text.data() + count_text.size() || count == 0 ||
      count > kMaxGuestVcpus) {
    return make_error("InvalidDomain", what + ": <vcpu> is '" + count_text + "'; give a whole number from 1 to " +
                                           std::to_string(kMaxGuestVcpus));
  }
  summary.vcpus = static_cast<std::uint32_t>(count);

  const xmlNode* memory = first_child(root, "memory");
  if (memory == nullptr) {
    return make_error("InvalidDomain", what + " has no <memory> element; say how much memory the guest has");
  }
  auto kib = memory_to_kib(text_of(memory), attribute(memory, "unit").value_or("KiB"), what + " <memory>");
  if (!kib) return kib.error();
  if (*kib == 0) return make_error("InvalidDomain", what + ": <memory> is 0; a guest needs memory");
  summary.memory_kib = *kib;
  return summary;
}

}  // namespace numaplace::xml
