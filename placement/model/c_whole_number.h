/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Numbers as libvirt's parsers read them from a domain's XML. A whole number: C's strtoull in
// base 10 over the whole text. Blanks before the digits and a '+' are taken; nothing may follow
// them, not even a blank. A '-' is refused (libvirt refuses what it wraps it to). Nothing when the
// text is not such a number or 64 bits cannot hold it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace numaplace {

// `text` without what strtoull skips before the digits: blanks, then one '+'.
std::string_view without_c_number_lead(std::string_view text);

std::optional<std::uint64_t> c_whole_number(std::string_view text);

// An int as libvirt's parser reads one (C's strtol over the whole text into an int): blanks, then
// one '+' or '-', then digits, nothing after them. Nothing when it is not one or an int cannot
// hold it.
std::optional<std::int32_t> c_int(std::string_view text);

}  // namespace numaplace
