// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/pci_tag_value.h"

#include <algorithm>
#include <cctype>

namespace numaplace {
bool equal_without_case(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool tag_matches(const PciTagValue& wanted, const PciTagValue* have) {
  switch (wanted.kind()) {
    case PciTagValue::Kind::None:
      return have == nullptr || have->kind() == PciTagValue::Kind::None;
    case PciTagValue::Kind::String:
      return have != nullptr && have->is_string() && equal_without_case(wanted.text(), have->text());
    case PciTagValue::Kind::Json:
      return have != nullptr && *have == wanted;
  }
  return false;
}

}  // namespace numaplace
