// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/ascii_case.h"

#include <algorithm>

namespace numaplace {

std::string ascii_lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), ascii_lower);
  return out;
}

bool equal_without_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return ascii_lower(x) == ascii_lower(y); });
}

}  // namespace numaplace
