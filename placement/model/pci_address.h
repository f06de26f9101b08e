// SPDX-License-Identifier: LGPL-2.1-or-later
// PCI addresses as people and libvirt write them ("3b:00.0", "0000:3B:00.0", a 32-bit domain
// such as "10000:e1:00.0"), in the one canonical form every source and claim compares:
// lower-case hex, a domain of at least four digits. Text that is no address is nullopt, or
// InvalidPciAddress with how to write one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "placement/model/error.h"

namespace numaplace {

// "0000:3b:00.0" as the host's devices are named (lower-case hex, a domain of 4 digits or
// more, up to 32 bits), from
// domain:bus:slot.function or bus:slot.function in either case; nullopt when the text is not
// one (bus above ff, slot above 1f, function above 7, anything else).
std::optional<std::string> canonical_pci_address(std::string_view text);
// The same, or InvalidPciAddress saying how to write one.
Result<std::string> pci_address(std::string_view text);

}  // namespace numaplace
