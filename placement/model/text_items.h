/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The one splitter of separated lists ("0-3,^2,8", "node:0,size:1G,count:2", "0:0,100:10"):
// n separators give n + 1 items, empty ones included ("" is one empty item), nothing trimmed.
// Callers decide what an empty item or blank around an item means for their syntax.
#pragma once

#include <string_view>
#include <vector>

namespace numaplace {

// The items of `text` between `separator`s, as views into `text`.
std::vector<std::string_view> split_items(std::string_view text, char separator = ',');

// split_items without a final empty item: "a,b," and "a,b" give the same two items, "" none.
std::vector<std::string_view> split_items_allowing_trailing_separator(std::string_view text, char separator = ',');

}  // namespace numaplace
