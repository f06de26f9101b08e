// SPDX-License-Identifier: LGPL-2.1-or-later
// printable_text on random bytes (ASCII, control characters, escape sequences, well-formed and
// broken UTF-8): the output is UTF-8 by iconv's reading, holds no control character, and text that
// is UTF-8 without control characters comes out as it went in.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "placement/model/utf8_text.h"
#include "support/iconv_utf8.h"

namespace numaplace {
namespace {

using testing::iconv_reads_utf8;

bool has_control(const std::string& text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

TEST(PrintableTextProperty, OutputIsUtf8WithoutControlsAndCleanTextIsUnchanged) {
  std::mt19937 rng(20261208);
  const std::vector<std::string> pieces = {"a", "Z", " ", "\t", "\n", "\x1b[31m", "\x7f", "\xc3\xa9", "\xe2\x82\xac",
                                           "\xf0\x9f\x98\x80", "\xff", "\x80", "\xc3", "\xed\xa0\x80", "\xc0\xaf", "\\"};
  int clean = 0, escaped = 0;
  for (int round = 0; round < 5000; ++round) {
    std::string text;
    for (int i = std::uniform_int_distribution<int>(0, 6)(rng); i > 0; --i) text += pieces[rng() % pieces.size()];
    const std::string out = printable_text(text);
    EXPECT_TRUE(iconv_reads_utf8(out)) << ::testing::PrintToString(text);
    EXPECT_FALSE(has_control(out)) << ::testing::PrintToString(text);
    if (iconv_reads_utf8(text) && !has_control(text)) {
      EXPECT_EQ(out, text);
      ++clean;
    } else {
      EXPECT_NE(out, text);
      ++escaped;
    }
  }
  EXPECT_GT(clean, 300);
  EXPECT_GT(escaped, 2000);
  EXPECT_EQ(printable_text("web\x1b[2J"), "web\\x1b[2J");
}

}  // namespace
}  // namespace numaplace
