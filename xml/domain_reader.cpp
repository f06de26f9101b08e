// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/domain_reader.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <limits>

#include "placement/model/c_whole_number.h"
#include "placement/model/memory_size.h"
#include "xml/xml_document.h"

namespace numaplace::xml {

namespace {

// Adds `kib` to `total`, refusing a sum that 64 bits cannot hold; `summed` names what is summed.
Status add_kib(std::uint64_t& total, std::uint64_t kib, const std::string& summed) {
  if (kib > std::numeric_limits<std::uint64_t>::max() - total) {
    return make_error("InvalidDomain", summed + " add up to more KiB than 64 bits hold");
  }
  total += kib;
  return Done{};
}

// The sum of the <cpu><numa> `cells`' memory, which libvirt boots the guest with; nullopt without cells.
Result<std::optional<std::uint64_t>> cells_memory(const std::vector<xmlNode*>& cells, const std::string& what) {
  if (cells.empty()) return std::optional<std::uint64_t>{};
  std::uint64_t total = 0;
  for (const xmlNode* cell : cells) {
    auto kib = domain_memory_to_kib(attribute(cell, "memory").value_or(""), attribute(cell, "unit").value_or("KiB"),
                                    what + " <cpu><numa><cell memory>");
    if (!kib) return kib.error();
    if (auto added = add_kib(total, *kib, what + ": the <cpu><numa> cells"); !added) return added.error();
  }
  return std::optional<std::uint64_t>{total};
}

// <maxMemory>, the ceiling of memory hotplug, as libvirt checks it: a size and a slot count, both
// set, and no less than <memory> nor than the cells and the memory devices.
Status check_max_memory(const xmlNode* root, const DomainSummary& summary, const std::string& what) {
  const xmlNode* max = first_child(root, "maxMemory");
  if (max == nullptr) return Done{};
  auto kib = domain_memory_to_kib(text_of(max), attribute(max, "unit").value_or("KiB"), what + " <maxMemory>");
  if (!kib) return kib.error();
  std::uint64_t slots = 0;
  if (const auto slots_text = attribute(max, "slots")) {
    const auto read = c_whole_number(*slots_text);
    if (!read || *read > std::numeric_limits<std::uint32_t>::max()) {
      return make_error("InvalidDomain", what + ": <maxMemory slots='" + *slots_text + "'> is not a slot count");
    }
    slots = *read;
  }
  if (*kib == 0 || slots == 0) {
    return make_error("InvalidDomain", what + ": <maxMemory> needs both a size and slots, which libvirt refuses one "
                                              "without the other; give both, or leave <maxMemory> out");
  }
  // libvirt's test driver compares it with <memory> as written, QEMU's (which has libvirt update
  // <memory> to the cells plus the devices) with that sum: it must hold both.
  std::uint64_t total = summary.memory_kib;
  if (summary.cells_memory_kib) {
    std::uint64_t cells_and_devices = *summary.cells_memory_kib;
    if (auto added = add_kib(cells_and_devices, summary.memory_device_kib,
                             what + ": the <cpu><numa> cells and memory devices");
        !added) {
      return added.error();
    }
    total = std::max(total, cells_and_devices);
  }
  if (*kib < total) {
    return make_error("InvalidDomain", what + ": <maxMemory> (" + std::to_string(*kib) + " KiB) is less than the " +
                                           std::to_string(total) + " KiB the guest has; libvirt refuses it, so raise "
                                           "<maxMemory> or give the guest less");
  }
  return Done{};
}

// The elements numaplace reads that a domain may have once (libvirt's schema says so). libvirt's
// parser still takes most of them twice: of some it reads the children of all together (the pins
// of two <cputune>s, the devices of two <devices>, the cells of two <cpu>s), of others only the
// first. numaplace reads one, so a domain that has one twice is refused rather than read other
// than libvirt reads it.
Status check_single_elements(const xmlNode* root, const std::string& what) {
  const auto once = [&](const xmlNode* parent, const char* name, const std::string& path, bool merged) -> Status {
    const std::size_t count = child_elements(parent, name).size();
    if (count <= 1) return Done{};
    return make_error("InvalidDomain",
                      what + " has " + std::to_string(count) + " " + path + " elements, where libvirt's schema allows "
                          "one; " + (merged ? "libvirt's parser reads what is in all of them together, numaplace "
                                              "reads one: merge them into one"
                                            : "libvirt reads only the first (or refuses a second): keep one"));
  };
  struct Single {
    const char* name;
    bool merged;  // libvirt reads the children of every copy
  };
  for (const Single single : {Single{"vcpu", false}, Single{"memory", false}, Single{"currentMemory", false},
                              Single{"maxMemory", false}, Single{"iothreads", false}, Single{"iothreadids", true},
                              Single{"cputune", true}, Single{"numatune", true}, Single{"memoryBacking", true},
                              Single{"cpu", true}, Single{"devices", true}}) {
    if (auto checked = once(root, single.name, "<" + std::string(single.name) + ">", single.merged); !checked) {
      return checked.error();
    }
  }
  const xmlNode* backing = first_child(root, "memoryBacking");
  if (auto checked = once(backing, "hugepages", "<memoryBacking><hugepages>", true); !checked) return checked.error();
  if (auto checked = once(first_child(root, "cpu"), "numa", "<cpu><numa>", false); !checked) return checked.error();
  return once(first_child(root, "cputune"), "emulatorpin", "<cputune><emulatorpin>", false);
}

}  // namespace

Result<std::string> pci_source_address(const xmlNode* address, const std::string& what) {
  // libvirt reads each part as C's strtoul with base 0: blanks and a '+' skipped, then 0x... hex,
  // 0... octal, else decimal, and nothing after.
  auto field = [&](const char* name, unsigned long long limit, int digits) -> Result<std::string> {
    const std::string given = attribute(address, name).value_or("0");
    std::string text(without_c_number_lead(given));
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
      base = 16;
      text = text.substr(2);
    } else if (text.size() > 1 && text[0] == '0') {
      base = 8;
      text = text.substr(1);
    }
    unsigned long long value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value > limit) {
      return make_error("InvalidDomain", what + " address " + name + "='" + given +
                                             "' is not a PCI address part (hex with 0x, octal with 0, or decimal; "
                                             "at most " + std::to_string(limit) + ")");
    }
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%0*llx", digits, value);
    return std::string(buffer);
  };
  auto domain = field("domain", 0xffffffffULL, 4);
  auto bus = field("bus", 0xff, 2);
  auto slot = field("slot", 0x1f, 2);
  auto function = field("function", 7, 1);
  for (const auto* part : {&domain, &bus, &slot, &function}) {
    if (!*part) return part->error();
  }
  return *domain + ":" + *bus + ":" + *slot + "." + *function;
}

Result<DomainSummary> read_domain_summary(const xmlDoc* doc, const std::string& what) {
  const xmlNode* root = xmlDocGetRootElement(const_cast<xmlDoc*>(doc));
  if (!is_named(root, "domain")) {
    return make_error("NotDomain", what + " has root <" + std::string(reinterpret_cast<const char*>(root->name)) +
                                       ">, not <domain>; give a libvirt domain XML");
  }
  // libvirt's <domain> is in no namespace; one in another is some other vocabulary's element.
  if (root->ns != nullptr && root->ns->href != nullptr) {
    return make_error("NotDomain", what + " has root <domain> in namespace '" +
                                       std::string(reinterpret_cast<const char*>(root->ns->href)) +
                                       "', and libvirt's <domain> is in none; give a libvirt domain XML");
  }
  if (auto single = check_single_elements(root, what); !single) return single.error();
  DomainSummary summary;
  summary.name = text_of(first_child(root, "name"));
  if (summary.name.empty()) {
    return make_error("InvalidDomain", what + " has no <name> (or an empty one); libvirt refuses a domain without a "
                                              "name, so give it one");
  }
  summary.uuid = text_of(first_child(root, "uuid"));
  summary.type = attribute(root, "type").value_or("");

  const xmlNode* vcpu = first_child(root, "vcpu");
  if (vcpu == nullptr) {
    return make_error("InvalidDomain", what + " has no <vcpu> element; say how many vCPUs the guest has");
  }
  const std::string count_text = text_of(vcpu);
  const std::optional<std::uint64_t> count = c_whole_number(count_text);
  if (!count || *count == 0 || *count > kMaxGuestVcpus) {
    return make_error("InvalidDomain", what + ": <vcpu> is '" + count_text + "'; give a whole number from 1 to " +
                                           std::to_string(kMaxGuestVcpus) + " (libvirt takes nothing after it, "
                                           "not even a blank)");
  }
  summary.vcpus = static_cast<std::uint32_t>(*count);
  // libvirt refuses more vCPUs online than the guest has; a guest placed by the maximum must
  // not be defined with a current count libvirt will not take.
  if (const auto current_text = attribute(vcpu, "current")) {
    const std::optional<std::uint64_t> current = c_whole_number(*current_text);
    if (!current || *current > *count) {
      return make_error("InvalidDomain", what + ": <vcpu current='" + *current_text + "'> is not a whole number up "
                                                "to the guest's " + std::to_string(*count) + " vCPUs; libvirt refuses "
                                                "it, so give the number of vCPUs online at boot, at most <vcpu>'s");
    }
  }

  const std::vector<xmlNode*> cells = child_elements(first_child(first_child(root, "cpu"), "numa"), "cell");
  auto cells_kib = cells_memory(cells, what);
  if (!cells_kib) return cells_kib.error();
  summary.cells_memory_kib = *cells_kib;
  // <memory> as libvirt reads it: empty is not given (its unit unread), and 0 or not given leaves
  // the memory to the cells, whose sum libvirt then sets it to, with the devices.
  std::uint64_t written_kib = 0;
  const xmlNode* memory = first_child(root, "memory");
  const bool memory_written = memory != nullptr && !text_of(memory).empty();
  if (memory_written) {
    auto kib = domain_memory_to_kib(text_of(memory), attribute(memory, "unit").value_or("KiB"), what + " <memory>");
    if (!kib) return kib.error();
    written_kib = *kib;
  }
  for (const xmlNode* device : child_elements(first_child(root, "devices"), "memory")) {
    const std::string model = attribute(device, "model").value_or("");
    if (model != "dimm" && model != "nvdimm" && model != "virtio-pmem" && model != "virtio-mem" && model != "sgx-epc") {
      return make_error("InvalidDomain", what + ": <memory model='" + model + "'> is none of the memory devices libvirt "
                                                "knows (dimm, nvdimm, virtio-pmem, virtio-mem, sgx-epc)");
    }
    const std::string element = "<memory model='" + model + "'>";
    const xmlNode* target = first_child(device, "target");
    const xmlNode* size = first_child(target, "size");
    if (size == nullptr) {
      return make_error("InvalidDomain", what + ": " + element + " has no <target><size>, which libvirt requires; give "
                                                "the device's size");
    }
    auto kib = domain_memory_to_kib(text_of(size), attribute(size, "unit").value_or("KiB"), what + " " + element +
                                                                                              " <target><size>");
    if (!kib) return kib.error();
    // libvirt keeps an NVDIMM's label inside it: the device must be larger.
    if (model == "nvdimm") {
      std::uint64_t label_kib = 0;
      if (const xmlNode* label = first_child(first_child(target, "label"), "size")) {
        auto read = domain_memory_to_kib(text_of(label), attribute(label, "unit").value_or("KiB"),
                                         what + " " + element + " <target><label><size>");
        if (!read) return read.error();
        label_kib = *read;
        if (label_kib < 128) {
          return make_error("InvalidDomain", what + ": " + element + " has a label of " + std::to_string(label_kib) +
                                                    " KiB, which libvirt refuses below 128 KiB; give it at least that");
        }
      }
      if (*kib <= label_kib) {
        return make_error("InvalidDomain", what + ": " + element + " is " + std::to_string(*kib) + " KiB, no larger "
                                                  "than its label (" + std::to_string(label_kib) + " KiB), which "
                                                  "libvirt refuses; give the device its size");
      }
    }
    if (auto added = add_kib(summary.memory_device_kib, *kib, what + ": its memory devices"); !added) return added.error();
  }
  if (written_kib != 0) {
    summary.memory_kib = written_kib;
  } else if (summary.cells_memory_kib.value_or(0) != 0) {
    summary.memory_kib = *summary.cells_memory_kib;
    if (auto added = add_kib(summary.memory_kib, summary.memory_device_kib, what + ": its cells and memory devices");
        !added) {
      return added.error();
    }
  } else if (memory_written) {
    return make_error("InvalidDomain", what + ": <memory> is 0 and no <cpu><numa> cells give the guest memory; a "
                                              "guest needs memory");
  } else {
    return make_error("InvalidDomain", what + " has no <memory> (or an empty one) and no <cpu><numa> cells with "
                                              "memory; say how much memory the guest has");
  }
  if (auto ceiling = check_max_memory(root, summary, what); !ceiling) return ceiling.error();

  summary.guest_cells = static_cast<std::uint32_t>(cells.size());
  auto pages = read_guest_pages(root, summary.guest_cells, what);
  if (!pages) return pages.error();
  summary.pages = std::move(*pages);
  // PCI devices given to the guest: <hostdev type='pci'> and <interface type='hostdev'> (an SR-IOV
  // VF as a NIC), each by its source address.
  const xmlNode* devices = first_child(root, "devices");
  std::vector<std::pair<const xmlNode*, std::string>> sources;
  for (const xmlNode* hostdev : child_elements(devices, "hostdev")) {
    if (attribute(hostdev, "type").value_or("") != "pci") continue;
    sources.emplace_back(first_child(first_child(hostdev, "source"), "address"), "<hostdev>");
  }
  for (const xmlNode* interface : child_elements(devices, "interface")) {
    if (attribute(interface, "type").value_or("") != "hostdev") continue;
    sources.emplace_back(first_child(first_child(interface, "source"), "address"), "<interface type='hostdev'>");
  }
  for (const auto& [address, element] : sources) {
    if (address == nullptr) continue;
    auto pci = pci_source_address(address, what + ": " + element);
    if (!pci) return pci.error();
    if (std::find(summary.pci_hostdevs.begin(), summary.pci_hostdevs.end(), *pci) == summary.pci_hostdevs.end()) {
      summary.pci_hostdevs.push_back(*pci);
    }
  }
  return summary;
}

std::uint64_t boot_memory_kib(const DomainSummary& summary) {
  if (summary.cells_memory_kib) return *summary.cells_memory_kib;
  return summary.memory_kib - std::min(summary.memory_kib, summary.memory_device_kib);
}

}  // namespace numaplace::xml
