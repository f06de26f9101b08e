/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A stable sort that allocates nothing: std::stable_sort takes a temporary buffer from the heap
// on every call, and the fit sorts host cells (Nova's order, each position's nearest cells) and
// cores on every call, thousands of times in a ranking. Insertion sort up to kInsertionSortMax
// items (a host's cells, a cell's cores: it costs their number plus the pairs out of order),
// std::stable_sort above, where quadratic work would cost more than the buffer. Same result as
// std::stable_sort for any strict weak order `before`.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>

namespace numaplace {

inline constexpr std::ptrdiff_t kInsertionSortMax = 24;

template <typename Iterator, typename Before>
void stable_insertion_sort(Iterator first, Iterator last, Before before) {
  if (std::distance(first, last) > kInsertionSortMax) {
    std::stable_sort(first, last, before);
    return;
  }
  if (first == last) return;
  for (Iterator i = std::next(first); i != last; ++i) {
    auto item = std::move(*i);
    Iterator j = i;
    for (; j != first && before(item, *std::prev(j)); --j) *j = std::move(*std::prev(j));
    *j = std::move(item);
  }
}

}  // namespace numaplace
