// SPDX-License-Identifier: LGPL-2.1-or-later
// json_text (plugin/service/json_text.h) on random byte strings, as a key and as a value: the text
// is always JSON that a strict reader parses (never an exception, whatever the bytes), the strings
// read back are UTF-8, and a string that was UTF-8 reads back unchanged. UTF-8 is judged by this
// file's own validator (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
#include "plugin/service/json_text.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace numaplace {
namespace {

bool is_utf8(const std::string& text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    std::size_t length = 0;
    std::uint32_t code = 0, least = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      length = 2, code = c & 0x1F, least = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      length = 3, code = c & 0x0F, least = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      length = 4, code = c & 0x07, least = 0x10000;
    } else {
      return false;
    }
    if (i + length > n) return false;
    for (std::size_t k = 1; k < length; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      code = (code << 6) | (s[i + k] & 0x3F);
    }
    if (code < least || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    i += length;
  }
  return true;
}

// Mostly text with some UTF-8 in it, sometimes any bytes at all.
std::string random_bytes(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  static const char* const pieces[] = {"cell", " ", "é", "€", "𝄞", "\"", "\\", "\n", "\x01", "\xff", "\xc3",
                                       "\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf", "\x80"};
  std::string text;
  for (int n = pick(0, 12); n > 0; --n) {
    if (pick(0, 3) == 0) {
      text += static_cast<char>(pick(0, 255));
    } else {
      text += pieces[pick(0, static_cast<int>(std::size(pieces)) - 1)];
    }
  }
  return text;
}

TEST(JsonTextProperty, AnyBytesGiveJsonAndUtf8StringsReadBackUnchanged) {
  std::mt19937 rng(20261204);
  int valid = 0, invalid = 0;
  for (int round = 0; round < 20000; ++round) {
    const std::string key = random_bytes(rng), value = random_bytes(rng);
    const nlohmann::json doc = {{"error", {{"name", "X"}, {"message", value}}}, {key, {value, 1}}};
    std::string text;
    ASSERT_NO_THROW(text = plugin::json_text(doc, round % 2 == 0 ? -1 : 2));
    ASSERT_TRUE(is_utf8(text)) << "round " << round;
    const nlohmann::json back = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(back.is_discarded()) << "round " << round << ": " << text;
    const std::string message = back["error"]["message"].get<std::string>();
    EXPECT_TRUE(is_utf8(message));
    if (is_utf8(value)) {
      ++valid;
      EXPECT_EQ(message, value) << "round " << round;
    } else {
      ++invalid;
      EXPECT_NE(message.find("\xef\xbf\xbd"), std::string::npos) << "round " << round << ": no U+FFFD in " << text;
    }
    if (is_utf8(key)) {
      EXPECT_TRUE(back.contains(key)) << "round " << round;
    }
  }
  EXPECT_GT(valid, 2000);
  EXPECT_GT(invalid, 2000);
}

}  // namespace
}  // namespace numaplace
