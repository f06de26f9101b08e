/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Whether text is UTF-8, as the C ABI promises all its text is: shortest forms only, no
// surrogates, nothing past U+10FFFF. The problem is a phrase that names the offending byte by its
// position and hex value, never the text itself, so a message can quote it safely.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace numaplace {

// Why `text` is not UTF-8 ("holds the byte 0xff at byte 3, which is not UTF-8", "ends inside a
// UTF-8 sequence at byte 7"), or nullopt when it is.
std::optional<std::string> utf8_problem(std::string_view text);

// `text` safe to print in a message or a table: control characters (tab included) and bytes that
// are not UTF-8 as "\xNN", the rest as it is ("a\x1b[31m" for an escape sequence).
std::string printable_text(std::string_view text);

// " at byte N", N counted from 1: the position phrase of utf8_problem's answers.
std::string at_byte(std::size_t position);

// "0xNN".
std::string hex_byte(unsigned char byte);

}  // namespace numaplace
