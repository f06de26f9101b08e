/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A whole number as libvirt's parsers read one from a domain's XML: C's strtoull in base 10 over
// the whole text. Blanks before the digits and a '+' are taken; nothing may follow them, not even
// a blank. A '-' is refused (libvirt refuses what it wraps it to). Nothing when the text is not
// such a number or 64 bits cannot hold it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace numaplace {

// `text` without what strtoull skips before the digits: blanks, then one '+'.
std::string_view without_c_number_lead(std::string_view text);

std::optional<std::uint64_t> c_whole_number(std::string_view text);

}  // namespace numaplace
