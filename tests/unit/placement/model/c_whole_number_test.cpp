// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/c_whole_number.h"

#include <gtest/gtest.h>

namespace numaplace {
namespace {

// What C's strtoull takes over a whole text in base 10, and what libvirt refuses after it.
TEST(CWholeNumber, TakesWhatStrtoullTakesOverTheWholeText) {
  EXPECT_EQ(c_whole_number("7"), 7u);
  EXPECT_EQ(c_whole_number("007"), 7u);
  EXPECT_EQ(c_whole_number("+7"), 7u);
  EXPECT_EQ(c_whole_number(" \t\n\v\f\r7"), 7u);
  EXPECT_EQ(c_whole_number(" +7"), 7u);
  EXPECT_EQ(c_whole_number("18446744073709551615"), 18446744073709551615ull);
  for (const char* text : {"", " ", "+", "-7", " -7", "7 ", "7\n", "+ 7", "++7", "0x7", "7.0", "1e1", "seven",
                           "18446744073709551616"}) {
    EXPECT_EQ(c_whole_number(text), std::nullopt) << "'" << text << "'";
  }
  EXPECT_EQ(without_c_number_lead("  +12 "), "12 ");
  EXPECT_EQ(without_c_number_lead(" \t"), "");
}

// What C's strtol takes into an int over a whole text (libvirt's <vcpusched priority>).
TEST(CWholeNumber, TakesAnIntAsStrtolDoes) {
  EXPECT_EQ(c_int("7"), 7);
  EXPECT_EQ(c_int("-7"), -7);
  EXPECT_EQ(c_int(" +7"), 7);
  EXPECT_EQ(c_int("\t-2147483648"), -2147483647 - 1);
  EXPECT_EQ(c_int("2147483647"), 2147483647);
  for (const char* text : {"", "-", "- 7", "-+7", "+-7", "7 ", "2147483648", "-2147483649", "x"}) {
    EXPECT_EQ(c_int(text), std::nullopt) << "'" << text << "'";
  }
}

}  // namespace
}  // namespace numaplace
