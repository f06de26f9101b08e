// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/resource_vector.h"

#include <gtest/gtest.h>

#include <limits>

namespace numaplace {
namespace {

constexpr MissingDimension kZero = MissingDimension::Zero;
constexpr MissingDimension kInfinity = MissingDimension::Infinity;

ResourceVector vec(std::map<std::string, double> amounts) { return ResourceVector(std::move(amounts)); }

TEST(ResourceVector, UnionOfDimensionsIsSortedAndDistinct) {
  ResourceVector left = vec({{"memory", 1}, {"cpu", 2}});
  ResourceVector right = vec({{"pci:10de:1eb8", 1}, {"cpu", 4}});
  EXPECT_EQ(left.union_dimensions(right), (std::vector<std::string>{"cpu", "memory", "pci:10de:1eb8"}));
}

TEST(ResourceVector, MissingDimensionReadsAsTheDefault) {
  ResourceVector v = vec({{"cpu", 3}});
  EXPECT_EQ(v.amount_or("cpu", kInfinity), 3);
  EXPECT_EQ(v.amount_or("memory", kZero), 0);
  EXPECT_EQ(v.amount_or("memory", kInfinity), std::numeric_limits<double>::infinity());
}

// l = {cpu 1, mem 1}, r = {cpu 2, mem 2, gpu 2}. With zero, gpu reads l=0 < r=2, so
// every dimension is strictly less. With infinity, gpu reads l=inf > r=2: less fails,
// less_partly holds (cpu), and greater_partly holds (gpu).
TEST(ResourceVector, MissingGpuOnTheLeftDependsOnTheDefault) {
  ResourceVector l = vec({{"cpu", 1}, {"memory", 1}});
  ResourceVector r = vec({{"cpu", 2}, {"memory", 2}, {"gpu", 2}});
  EXPECT_TRUE(l.less(r, kZero));
  EXPECT_TRUE(l.less_equal(r, kZero));
  EXPECT_FALSE(l.greater_equal_partly(r, kZero));

  EXPECT_FALSE(l.less(r, kInfinity));
  EXPECT_FALSE(l.less_equal(r, kInfinity));
  EXPECT_TRUE(l.less_partly(r, kInfinity));
  EXPECT_TRUE(l.greater_partly(r, kInfinity));
  EXPECT_TRUE(l.greater_equal_partly(r, kInfinity));
  EXPECT_FALSE(l.greater(r, kInfinity));
}

TEST(ResourceVector, EqualDimensionsAreLessEqualButNotLess) {
  ResourceVector l = vec({{"cpu", 4}, {"memory", 8}});
  ResourceVector r = vec({{"cpu", 4}, {"memory", 8}});
  EXPECT_TRUE(l.equal(r, kZero));
  EXPECT_TRUE(l.less_equal(r, kZero));
  EXPECT_FALSE(l.less(r, kZero));
  EXPECT_FALSE(l.less_partly(r, kZero));
  EXPECT_TRUE(l.less_equal_partly(r, kZero));
  EXPECT_TRUE(l.greater_equal(r, kZero));
  EXPECT_FALSE(l.greater(r, kZero));
  EXPECT_FALSE(l.greater_partly(r, kZero));
  EXPECT_TRUE(l.greater_equal_partly(r, kZero));
}

TEST(ResourceVector, ComparisonsAreExact) {
  ResourceVector l = vec({{"cpu", 1.0}});
  ResourceVector r = vec({{"cpu", 1.05}});
  EXPECT_FALSE(l.equal(r, kZero));  // no epsilon, unlike Volcano's code
  EXPECT_TRUE(l.less(r, kZero));
}

TEST(ResourceVector, EmptyUnionMakesEveryTrueAndSomeFalse) {
  ResourceVector empty;
  EXPECT_TRUE(empty.less(empty, kZero));
  EXPECT_TRUE(empty.equal(empty, kInfinity));
  EXPECT_FALSE(empty.less_partly(empty, kZero));
  EXPECT_FALSE(empty.less_equal_partly(empty, kZero));
  EXPECT_TRUE(empty.greater(empty, kZero));  // not less_equal_partly
}

TEST(ResourceVector, MixedDimensionsAreNeitherLessEqualNorGreaterEqual) {
  ResourceVector l = vec({{"cpu", 1}, {"memory", 5}});
  ResourceVector r = vec({{"cpu", 2}, {"memory", 3}});
  EXPECT_FALSE(l.less_equal(r, kZero));
  EXPECT_FALSE(l.greater_equal(r, kZero));
  EXPECT_TRUE(l.less_partly(r, kZero));
  EXPECT_TRUE(l.greater_partly(r, kZero));
}

TEST(ResourceVector, ShortfallsNameEachShortDimensionAndTheAmount) {
  ResourceVector request = vec({{"cpu", 6}, {"memory", 3}, {"hugepages-2048", 4}});
  ResourceVector available = vec({{"cpu", 4}, {"memory", 8}});
  auto short_of = shortfalls(request, available, kZero);
  ASSERT_EQ(short_of.size(), 2u);
  EXPECT_EQ(short_of[0].dimension, "cpu");
  EXPECT_EQ(short_of[0].requested, 6);
  EXPECT_EQ(short_of[0].available, 4);
  EXPECT_EQ(short_of[0].missing, 2);
  EXPECT_EQ(short_of[1].dimension, "hugepages-2048");
  EXPECT_EQ(short_of[1].missing, 4);
  EXPECT_FALSE(request.less_equal(available, kZero));

  // With infinity, the missing huge pages on the host read as unlimited.
  auto with_infinity = shortfalls(request, available, kInfinity);
  ASSERT_EQ(with_infinity.size(), 1u);
  EXPECT_EQ(with_infinity[0].dimension, "cpu");
}

TEST(ResourceVector, NoShortfallExactlyWhenLessEqual) {
  ResourceVector request = vec({{"cpu", 4}});
  ResourceVector available = vec({{"cpu", 4}, {"memory", 1}});
  EXPECT_TRUE(shortfalls(request, available, kZero).empty());
  EXPECT_TRUE(request.less_equal(available, kZero));
}

}  // namespace
}  // namespace numaplace
