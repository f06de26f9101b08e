/* SPDX-License-Identifier: LGPL-2.1-or-later */
// One fit check as the Resource Comparison design decides it: what is asked of a few named
// resources against what is offered, ResourceVector::less_equal (resource_vector.h) over the
// demands' dimensions, the first one short in the caller's order (Nova's order of checks) naming
// the reason. Both sides of a check carry the same dimensions, one demand each (the names must be
// distinct), so the union the vectors would walk is the demands themselves and no dimension is
// ever missing on one side: the comparison is made demand by demand, in place, with no name read
// or compared (the name only labels the demand that falls short). That is the vectors' answer
// exactly, NaN included (never <=); FitDemandsProperty.* holds it to a comparison of two
// ResourceVectors on random demands. Used by every fit decision: a guest cell against a host cell
// (cell_fit.cpp), a huge page pool (page_size.cpp), the PCI devices of an assignment
// (pci_pools.cpp). Nothing is allocated, and it is inline: the fit calls it for every pair.
#pragma once

#include <array>
#include <cstddef>

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
  for (const Demand& d : demands) {
    if (!(d.asked <= d.offered)) return &d;
  }
  return nullptr;
}

// A single demand: asked <= offered, the comparison of one dimension.
inline bool fits_within(const char* dimension, double asked, double offered) {
  Demands one;
  one.add(dimension, asked, offered);
  return first_shortfall(one) == nullptr;
}

}  // namespace numaplace
