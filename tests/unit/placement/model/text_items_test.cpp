// SPDX-License-Identifier: LGPL-2.1-or-later
#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "placement/model/text_items.h"

namespace numaplace {
namespace {

using Items = std::vector<std::string_view>;

TEST(TextItems, NSeparatorsGiveNPlusOneItemsEmptyOnesIncluded) {
  EXPECT_EQ(split_items("0-3,^2,8"), (Items{"0-3", "^2", "8"}));
  EXPECT_EQ(split_items(""), (Items{""}));
  EXPECT_EQ(split_items(","), (Items{"", ""}));
  EXPECT_EQ(split_items("a,,b,"), (Items{"a", "", "b", ""}));
  EXPECT_EQ(split_items(" a , b "), (Items{" a ", " b "})) << "nothing is trimmed";
  EXPECT_EQ(split_items("0:0;100:10", ';'), (Items{"0:0", "100:10"}));
}

TEST(TextItems, ATrailingSeparatorMayBeAllowed) {
  EXPECT_EQ(split_items_allowing_trailing_separator("0:1,1:2,"), (Items{"0:1", "1:2"}));
  EXPECT_EQ(split_items_allowing_trailing_separator("0:1,1:2"), (Items{"0:1", "1:2"}));
  EXPECT_EQ(split_items_allowing_trailing_separator(""), Items{});
  EXPECT_EQ(split_items_allowing_trailing_separator("a,,b"), (Items{"a", "", "b"})) << "only the last empty item goes";
}

}  // namespace
}  // namespace numaplace
