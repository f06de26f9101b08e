/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Counted nouns for messages: count_of(1, "vCPU") is "1 vCPU", count_of(2, "vCPU") is "2 vCPUs".
// The plural is the noun plus "s"; every noun numaplace counts in a message (vCPU, node, cell, pCPU,
// device) takes it. Pure: no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace numaplace {

inline std::string count_of(std::uint64_t count, std::string_view noun) {
  std::string text = std::to_string(count);
  text += ' ';
  text += noun;
  if (count != 1) text += 's';
  return text;
}

}  // namespace numaplace
