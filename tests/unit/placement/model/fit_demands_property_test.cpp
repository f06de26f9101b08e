// SPDX-License-Identifier: LGPL-2.1-or-later
// first_shortfall (fit_demands.h) compares demand by demand without reading names; the model
// here is the comparison it stands for, made with two ResourceVectors of named dimensions:
// less_equal over the union (missing read as infinity), and when that fails the first demand,
// in the caller's order, whose dimension shortfalls() lists.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "placement/model/fit_demands.h"
#include "placement/model/resource_vector.h"

namespace numaplace {
namespace {

const Demand* by_resource_vectors(const Demands& demands) {
  ResourceVector asked;
  ResourceVector offered;
  for (const Demand& d : demands) {
    asked.set(d.dimension, d.asked);
    offered.set(d.dimension, d.offered);
  }
  if (asked.less_equal(offered, MissingDimension::Infinity)) return nullptr;
  const std::vector<Shortfall> shorts = shortfalls(asked, offered, MissingDimension::Infinity);
  for (const Demand& d : demands) {
    for (const Shortfall& s : shorts) {
      if (s.dimension == d.dimension) return &d;
    }
  }
  ADD_FAILURE() << "less_equal failed and shortfalls named no demand";
  return nullptr;
}

// Amounts around the edges of a comparison: equal values, neighbours, zero, negatives (memory
// already overcommitted), infinity and NaN.
double random_amount(std::mt19937& rng, double near) {
  switch (rng() % 8) {
    case 0: return near;
    case 1: return std::nextafter(near, std::numeric_limits<double>::infinity());
    case 2: return std::nextafter(near, -std::numeric_limits<double>::infinity());
    case 3: return 0.0;
    case 4: return -static_cast<double>(rng() % 1000);
    case 5: return std::numeric_limits<double>::infinity();
    case 6: return rng() % 4 == 0 ? std::nan("") : static_cast<double>(rng() % 100);
    default: return static_cast<double>(rng() % 100) / 4.0;
  }
}

TEST(FitDemandsProperty, FirstShortfallIsTheResourceVectorComparison) {
  // The dimensions fit checks use, and others; names in any order, distinct within a check.
  const char* names[] = {"memory", "dedicated-cpus", "shared-vcpus", "pages", "pci", "a", "zz"};
  std::mt19937 rng(17);
  std::size_t fits = 0, short_first = 0, short_later = 0;
  for (int round = 0; round < 50000; ++round) {
    Demands demands;
    std::vector<const char*> pool(std::begin(names), std::end(names));
    std::shuffle(pool.begin(), pool.end(), rng);
    const std::size_t count = rng() % (Demands::kMax + 1);
    for (std::size_t i = 0; i < count; ++i) {
      const double offered = random_amount(rng, static_cast<double>(rng() % 64));
      demands.add(pool[i], random_amount(rng, offered), offered);
    }
    const Demand* expected = by_resource_vectors(demands);
    const Demand* got = first_shortfall(demands);
    ASSERT_EQ(got, expected) << "round " << round;
    if (got == nullptr) {
      ++fits;
    } else {
      (got == demands.begin() ? short_first : short_later) += 1;
    }
    if (count == 1) {
      const Demand& only = *demands.begin();
      EXPECT_EQ(fits_within(only.dimension, only.asked, only.offered), got == nullptr);
    }
  }
  EXPECT_GT(fits, 5000u);
  EXPECT_GT(short_first, 5000u);
  EXPECT_GT(short_later, 2000u);
}

}  // namespace
}  // namespace numaplace
