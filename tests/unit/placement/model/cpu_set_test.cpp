// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/cpu_set.h"

#include <gtest/gtest.h>

namespace numaplace {
namespace {

TEST(CpuSet, ParsesRangesSinglesAndExclusions) {
  auto set = parse_cpu_list("0-3,^2,8");
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(set->ids(), (std::vector<std::uint32_t>{0, 1, 3, 8}));
}

// As libvirt's virBitmapParse: items apply in order, so an id excluded and listed again is held;
// an exclusion is one id; a comma may end the list; a range's end may carry a '+'.
TEST(CpuSet, ItemsApplyInListOrderAsLibvirtDoes) {
  for (auto [text, want] : std::initializer_list<std::pair<const char*, const char*>>{
           {"^1,0-2", "0-2"}, {"0-2,^1", "0,2"}, {"0-2,^1,1", "0-2"}, {"0-3,^1,^2,2", "0,2-3"}, {"^1", ""},
           {"0-2,", "0-2"}, {"0-2 , ", "0-2"}, {"0-+2", "0-2"}, {"0- +2", "0-2"}}) {
    auto set = parse_cpu_list(text);
    ASSERT_TRUE(set.ok()) << text << ": " << set.error().message;
    EXPECT_EQ(to_cpu_list(*set), want) << text;
  }
  for (const char* text : {"^1-2", "0-3,^1-2", "^ 1", "+1", "0-+ 2", "0,,1", ",0", "0,^", "0-2,,"}) {
    auto set = parse_cpu_list(text);
    EXPECT_FALSE(set.ok()) << text << " read as " << to_cpu_list(*set);
    if (!set.ok()) {
      EXPECT_EQ(set.error().name, "InvalidCpuList") << text;
    }
  }
  EXPECT_NE(parse_cpu_list("^1-2").error().message.find("excludes a range"), std::string::npos);
}

TEST(CpuSet, AcceptsBlanksAroundItems) {
  auto set = parse_cpu_list(" 4 , 5-6 ");
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(to_cpu_list(*set), "4-6");
}

TEST(CpuSet, PrintsCanonicalShortestForm) {
  EXPECT_EQ(to_cpu_list(CpuSet{0, 1, 2, 4, 6, 7}), "0-2,4,6-7");
  EXPECT_EQ(to_cpu_list(CpuSet{}), "");
  EXPECT_EQ(to_cpu_list(CpuSet{5}), "5");
}

TEST(CpuSet, RoundTripsThroughText) {
  for (const char* text : {"0", "0-15", "1,3,5-9,100", "65535"}) {
    auto set = parse_cpu_list(text);
    ASSERT_TRUE(set.ok()) << text;
    EXPECT_EQ(to_cpu_list(*set), text);
  }
}

TEST(CpuSet, RefusesAbsurdRangeWithoutAllocating) {
  auto set = parse_cpu_list("0-4294967295");
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().name, "InvalidCpuList");
  EXPECT_NE(set.error().message.find("above the supported maximum"), std::string::npos);
}

TEST(CpuSet, RefusesIdsThatOverflowSixtyFourBits) {
  auto set = parse_cpu_list("99999999999999999999999");
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().name, "InvalidCpuList");
}

TEST(CpuSet, RefusesJunkReversedAndEmpty) {
  for (const char* text : {"a", "1-", "-1", "3-1", "", "1,,2", "1-2-3", "0x1", "^", "1 2"}) {
    auto set = parse_cpu_list(text);
    EXPECT_FALSE(set.ok()) << "accepted '" << text << "'";
    if (!set.ok()) {
      EXPECT_EQ(set.error().name, "InvalidCpuList");
    }
  }
}

TEST(CpuSet, SetAlgebra) {
  CpuSet a{0, 1, 2, 3};
  CpuSet b{2, 3, 4};
  EXPECT_EQ(to_cpu_list(a.united(b)), "0-4");
  EXPECT_EQ(to_cpu_list(a.intersected(b)), "2-3");
  EXPECT_EQ(to_cpu_list(a.minus(b)), "0-1");
  EXPECT_TRUE(CpuSet({2, 3}).is_subset_of(a));
  EXPECT_FALSE(b.is_subset_of(a));
  EXPECT_TRUE(a.intersects(b));
  EXPECT_FALSE(a.intersects(CpuSet{9}));
}

}  // namespace
}  // namespace numaplace
