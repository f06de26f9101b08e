// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/text_items.h"

namespace numaplace {

std::vector<std::string_view> split_items(std::string_view text, char separator) {
  std::vector<std::string_view> items;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(separator, begin);
    if (end == std::string_view::npos) {
      items.push_back(text.substr(begin));
      return items;
    }
    items.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
}

std::vector<std::string_view> split_items_allowing_trailing_separator(std::string_view text, char separator) {
  std::vector<std::string_view> items = split_items(text, separator);
  if (items.back().empty()) items.pop_back();
  return items;
}

}  // namespace numaplace
