/* SPDX-License-Identifier: LGPL-2.1-or-later */
// One fit check as the Resource Comparison design decides it: what is asked of a few named
// resources against what is offered, compared in one ResourceVector call (resource_vector.h),
// missing dimensions read as infinity. The demands keep the caller's order (Nova's order of
// checks), so the first one short names the reason. Used by every fit decision: a guest cell
// against a host cell (cell_fit.cpp), a huge page pool (page_size.cpp), the PCI devices of an
// assignment (pci_pools.cpp). Nothing is allocated: the demands sit in a fixed array and the
// comparison reuses one pair of vectors per thread. Defined here, inline: the fit calls it for
// every pair and the call must not cost more than the comparison.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "placement/model/resource_vector.h"

namespace numaplace {

struct Demand {
  const char* dimension = "";
  double asked = 0;
  double offered = 0;
};

struct Demands {
  static constexpr std::size_t kMax = 3;
  std::array<Demand, kMax> items;
  std::size_t count = 0;

  void add(const char* dimension, double asked, double offered) { items[count++] = Demand{dimension, asked, offered}; }
  const Demand* begin() const { return items.data(); }
  const Demand* end() const { return items.data() + count; }
};

// The first demand that cannot be met, or nullptr when every one can.
inline const Demand* first_shortfall(const Demands& demands) {
  // Reused per thread: every (guest cell, host cell) pair of every search comes here, and a
  // cleared vector keeps its storage, so the check allocates nothing after the first.
  thread_local ResourceVector asked;
  thread_local ResourceVector offered;
  asked.clear();
  offered.clear();
  for (const auto& d : demands) {
    asked.set(d.dimension, d.asked);
    offered.set(d.dimension, d.offered);
  }
  if (asked.less_equal(offered, MissingDimension::Infinity)) return nullptr;
  if (demands.count == 1) return demands.begin();  // the only one is short: no need to list shortfalls
  const std::vector<Shortfall> shorts = shortfalls(asked, offered, MissingDimension::Infinity);
  for (const auto& d : demands) {
    for (const auto& s : shorts) {
      if (s.dimension == d.dimension) return &d;
    }
  }
  return nullptr;
}

// A single demand: asked <= offered, as a ResourceVector comparison of one dimension.
inline bool fits_within(const char* dimension, double asked, double offered) {
  Demands one;
  one.add(dimension, asked, offered);
  return first_shortfall(one) == nullptr;
}

}  // namespace numaplace
