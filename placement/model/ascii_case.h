/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Letter case of ASCII text, the one place it is folded: PCI ids and tags, memory units and spec
// keys compare or normalise their ASCII letters only, whatever the process's locale; other bytes
// are kept as they are.
#pragma once

#include <string>
#include <string_view>

namespace numaplace {

// `c` with A-Z as a-z.
inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// `text` with A-Z as a-z.
std::string ascii_lowercase(std::string_view text);

// Whether `a` and `b` are the same text but for the case of ASCII letters.
bool equal_without_case(std::string_view a, std::string_view b);

}  // namespace numaplace
