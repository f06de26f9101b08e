// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/pci_address.h"

#include <charconv>
#include <cstdio>
#include <vector>

namespace numaplace {

std::optional<std::string> canonical_pci_address(std::string_view text) {
  // Fields from the right: function after '.', then slot, bus and an optional domain after ':'.
  const auto dot = text.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::vector<std::string_view> fields;
  std::string_view head = text.substr(0, dot);
  for (std::size_t colon; (colon = head.rfind(':')) != std::string_view::npos; head = head.substr(0, colon)) {
    fields.insert(fields.begin(), head.substr(colon + 1));
  }
  fields.insert(fields.begin(), head);
  if (fields.size() == 2) fields.insert(fields.begin(), "0000");
  fields.push_back(text.substr(dot + 1));
  if (fields.size() != 4) return std::nullopt;
  // A PCI domain is 16 bits on most hosts and up to 32 (Intel VMD, hwloc and libvirt alike);
  // it is written with at least four digits, as the host's devices are named.
  const std::size_t widths[4] = {8, 2, 2, 1};
  const int padding[4] = {4, 2, 2, 1};
  const unsigned long long limits[4] = {0xffffffffULL, 0xff, 0x1f, 7};
  std::string out;
  for (std::size_t i = 0; i < 4; ++i) {
    const auto field = fields[i];
    unsigned long long value = 0;
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value, 16);
    if (field.empty() || field.size() > widths[i] || error != std::errc() || end != field.data() + field.size() ||
        value > limits[i]) {
      return std::nullopt;
    }
    char part[16];
    std::snprintf(part, sizeof part, "%0*llx", padding[i], value);
    out += (i == 0 ? "" : i == 3 ? "." : ":") + std::string(part);
  }
  return out;
}

Result<std::string> pci_address(std::string_view text) {
  if (auto address = canonical_pci_address(text)) return *address;
  return make_error("InvalidPciAddress", "'" + std::string(text) +
                                             "' is not a PCI address; write domain:bus:slot.function in hex, "
                                             "e.g. 0000:3b:00.0 (or bus:slot.function, 3b:00.0)");
}

}  // namespace numaplace
