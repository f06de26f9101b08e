/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A test's own reading and writing of plain cpulists ("0-3,8,10-11": ids and ranges, no '^'), as
// numaplace writes them and libvirt writes them back, apart from numaplace's parser, so that a
// parser's mistake cannot hide in a check.
#pragma once

#include <set>
#include <string>

namespace numaplace::testing {

using CpuIds = std::set<int>;

inline CpuIds ids_in_list(const std::string& text) {
  CpuIds out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(',', at);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(at, end - at);
    const std::size_t dash = item.find('-');
    const int first = std::stoi(item.substr(0, dash));
    const int last = dash == std::string::npos ? first : std::stoi(item.substr(dash + 1));
    for (int id = first; id <= last; ++id) out.insert(id);
    at = end + 1;
  }
  return out;
}

// The ids one by one, "0,1,5".
inline std::string list_of_ids(const CpuIds& ids) {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

}  // namespace numaplace::testing
