// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/nodedev_reader.h"

#include <charconv>
#include <cstdio>
#include <string>

#include "xml/xml_document.h"

namespace numaplace::xml {
namespace {

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// A non-negative whole number, decimal or 0x-prefixed hex (libvirt writes both).
std::optional<std::uint64_t> parse_number(std::string_view raw) {
  std::string_view text = trimmed(raw);
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string hex(std::uint64_t value, int digits) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%0*llx", digits, static_cast<unsigned long long>(value));
  return buffer;
}

std::string pci_address(std::uint64_t domain, std::uint64_t bus, std::uint64_t slot, std::uint64_t function) {
  return hex(domain, 4) + ":" + hex(bus, 2) + ":" + hex(slot, 2) + "." + hex(function, 1);
}

class DeviceReader {
 public:
  DeviceReader(const xmlNode* device, std::string where) : device_(device), where_(std::move(where)) {}

  Result<std::optional<PciDevice>> read() {
    const xmlNode* pci = nullptr;
    for (const xmlNode* cap : child_elements(device_, "capability")) {
      if (attribute(cap, "type") == std::optional<std::string>("pci")) pci = cap;
    }
    if (pci == nullptr) return std::optional<PciDevice>{};

    PciDevice dev;
    std::uint64_t parts[4] = {};
    const char* names[4] = {"domain", "bus", "slot", "function"};
    const std::uint64_t limits[4] = {0xffffffffULL, 0xff, 0x1f, 0x7};
    for (int i = 0; i < 4; ++i) {
      auto value = field(pci, names[i], limits[i]);
      if (!value) return value.error();
      parts[i] = *value;
    }
    dev.address = pci_address(parts[0], parts[1], parts[2], parts[3]);

    auto vendor = id_attribute(pci, "vendor", 0xffff, 4);
    if (!vendor) return vendor.error();
    dev.vendor_id = *vendor;
    auto product = id_attribute(pci, "product", 0xffff, 4);
    if (!product) return product.error();
    dev.product_id = *product;

    if (const xmlNode* cls = first_child(pci, "class")) {
      auto value = parse_number(text_of(cls));
      if (!value || *value > 0xffffff) return invalid("<class> is '" + text_of(cls) + "', not a 24-bit hex PCI class code");
      dev.class_id = hex(*value >> 8, 4);  // class and subclass; the programming interface is dropped
    }

    if (const xmlNode* numa = first_child(pci, "numa")) {
      auto node = attribute(numa, "node");
      if (!node) return invalid("<numa> has no node attribute");
      if (trimmed(*node) != "-1") {
        auto value = parse_number(*node);
        if (!value || *value > kMaxCpuId) {
          return invalid("<numa node='" + *node + "'> is not a NUMA node number (0-" + std::to_string(kMaxCpuId) + " or -1)");
        }
        dev.numa_node = static_cast<std::uint32_t>(*value);
      }
    }

    for (const xmlNode* cap : child_elements(pci, "capability")) {
      const std::string type = attribute(cap, "type").value_or("");
      if (type == "virt_functions") {
        dev.is_pf = true;
      } else if (type == "phys_function") {
        const xmlNode* address = first_child(cap, "address");
        if (address == nullptr) return invalid("its phys_function capability has no <address> of the physical function");
        auto pf = address_attributes(address, "phys_function address");
        if (!pf) return pf.error();
        dev.parent_pf = *pf;
      }
    }
    return std::optional<PciDevice>(std::move(dev));
  }

 private:
  Error invalid(const std::string& reason) const { return make_error("InvalidNodeDevice", where_ + ": " + reason); }

  Result<std::uint64_t> field(const xmlNode* pci, const char* name, std::uint64_t limit) const {
    const xmlNode* node = first_child(pci, name);
    if (node == nullptr) return invalid("the PCI capability has no <" + std::string(name) + ">");
    auto value = parse_number(text_of(node));
    if (!value) return invalid("<" + std::string(name) + "> is '" + text_of(node) + "', not a non-negative whole number");
    if (*value > limit) {
      return invalid("PCI " + std::string(name) + " " + std::to_string(*value) + " is out of range (0-" +
                     std::to_string(limit) + ")");
    }
    return *value;
  }

  Result<std::string> id_attribute(const xmlNode* pci, const char* element, std::uint64_t limit, int digits) const {
    const xmlNode* node = first_child(pci, element);
    auto id = node != nullptr ? attribute(node, "id") : std::nullopt;
    if (!id) return invalid("the PCI capability has no <" + std::string(element) + " id='0x....'>");
    auto value = parse_number(*id);
    if (!value || *value > limit) return invalid("<" + std::string(element) + " id='" + *id + "'> is not a 16-bit hex id");
    return hex(*value, digits);
  }

  Result<std::string> address_attributes(const xmlNode* address, const std::string& what) const {
    std::uint64_t parts[4] = {};
    const char* names[4] = {"domain", "bus", "slot", "function"};
    const std::uint64_t limits[4] = {0xffffffffULL, 0xff, 0x1f, 0x7};
    for (int i = 0; i < 4; ++i) {
      auto text = attribute(address, names[i]);
      auto value = text ? parse_number(*text) : std::nullopt;
      if (!value || *value > limits[i]) {
        return invalid(what + " has " + (text ? "an impossible " + std::string(names[i]) + " '" + *text + "'"
                                              : "no " + std::string(names[i])));
      }
      parts[i] = *value;
    }
    return pci_address(parts[0], parts[1], parts[2], parts[3]);
  }

  const xmlNode* device_;
  std::string where_;
};

std::string device_where(const xmlNode* device, std::string_view what) {
  const xmlNode* name = first_child(device, "name");
  const std::string device_name = name != nullptr ? text_of(name) : std::string();
  return device_name.empty() ? std::string(what) : "node device '" + device_name + "' in " + std::string(what);
}

Error not_node_device(const xmlNode* root, std::string_view what, const char* wanted) {
  return make_error("NotNodeDevice", std::string(what) + " has root <" + reinterpret_cast<const char*>(root->name) +
                                         ">, not " + wanted + "; give the output of 'virsh nodedev-dumpxml NAME'");
}

}  // namespace

Result<std::optional<PciDevice>> read_pci_node_device(std::string_view text, std::string_view what) {
  auto doc = parse_document(text, what);
  if (!doc) return doc.error();
  const xmlNode* root = xmlDocGetRootElement(doc->get());
  if (!is_named(root, "device")) return not_node_device(root, what, "<device>");
  return DeviceReader(root, device_where(root, what)).read();
}

Result<NodeDeviceScan> read_node_devices(std::string_view text, std::string_view what) {
  auto doc = parse_document(text, what);
  if (!doc) return doc.error();
  const xmlNode* root = xmlDocGetRootElement(doc->get());
  std::vector<xmlNode*> devices;
  if (is_named(root, "device")) {
    devices.push_back(const_cast<xmlNode*>(root));
  } else if (is_named(root, "node")) {
    devices = child_elements(root, "device");
  } else {
    return not_node_device(root, what, "<device> (or a test-driver <node>)");
  }
  NodeDeviceScan scan;
  for (const xmlNode* device : devices) {
    auto dev = DeviceReader(device, device_where(device, what)).read();
    if (!dev) {
      scan.refused.push_back(dev.error());
    } else if (!dev->has_value()) {
      ++scan.skipped;
    } else {
      scan.pci.push_back(std::move(**dev));
    }
  }
  return scan;
}

}  // namespace numaplace::xml
