// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/pci_tag_value.h"

namespace numaplace {

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
