// SPDX-License-Identifier: LGPL-2.1-or-later
// xml_text_problem says a text cannot be XML exactly when libxml2 refuses a document holding it
// as an attribute value (the way numaplace writes a spec into a domain's metadata): random byte
// strings of ASCII, control characters, well-formed and broken UTF-8 (overlong forms, surrogates,
// code points above U+10FFFF, cut sequences, U+FFFE and U+FFFF), checked against the parser.
#include <gtest/gtest.h>
#include <libxml/parser.h>

#include <random>
#include <string>

#include "xml/xml_text.h"

namespace numaplace::xml {
namespace {

// Whether libxml2 reads <a v="TEXT"/> with TEXT's markup characters escaped.
bool libxml2_reads(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '<') escaped += "&lt;";
    else if (c == '&') escaped += "&amp;";
    else if (c == '"') escaped += "&quot;";
    else escaped += c;
  }
  const std::string document = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><a v=\"" + escaped + "\"/>";
  xmlDocPtr doc = xmlReadMemory(document.data(), static_cast<int>(document.size()), "t.xml", "UTF-8",
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  const bool ok = doc != nullptr;
  xmlFreeDoc(doc);
  return ok;
}

std::string utf8(std::uint32_t code) {
  std::string out;
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xc0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xe0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  }
  return out;
}

std::string random_piece(std::mt19937& rng) {
  std::uniform_int_distribution<int> kind(0, 9);
  switch (kind(rng)) {
    case 0: return std::string(1, static_cast<char>(std::uniform_int_distribution<int>(0, 0x1f)(rng)));
    case 1: return std::string(1, static_cast<char>(std::uniform_int_distribution<int>(0x80, 0xff)(rng)));
    case 2: return utf8(std::uniform_int_distribution<std::uint32_t>(0x80, 0x7ff)(rng));
    case 3: return utf8(std::uniform_int_distribution<std::uint32_t>(0x800, 0xffff)(rng));
    case 4: return utf8(std::uniform_int_distribution<std::uint32_t>(0x10000, 0x10ffff)(rng));
    case 5: return utf8(std::uniform_int_distribution<std::uint32_t>(0xd800, 0xdfff)(rng));  // surrogates
    case 6: {  // an overlong form of an ASCII character, or a cut sequence
      const std::string full = utf8(std::uniform_int_distribution<std::uint32_t>(0x800, 0x10ffff)(rng));
      return std::uniform_int_distribution<int>(0, 1)(rng) ? std::string{'\xc0', '\xaf'} : full.substr(0, 1 + rng() % (full.size() - 1));
    }
    case 7: return utf8(std::uniform_int_distribution<int>(0, 1)(rng) ? 0xfffe : 0xffff);
    case 8: return std::string{"\t\n\r\x7f"}.substr(rng() % 4, 1);
    default: return std::string(1, static_cast<char>(std::uniform_int_distribution<int>(0x20, 0x7e)(rng)));
  }
}

TEST(XmlTextProperty, AProblemIsNamedExactlyWhenLibxml2RefusesTheText) {
  std::mt19937 rng(2026);
  int refused = 0, accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const int pieces = std::uniform_int_distribution<int>(0, 6)(rng);
    for (int i = 0; i < pieces; ++i) {
      // mostly printable ASCII, so that texts that can be XML are common
      text += rng() % 3 == 0 ? random_piece(rng) : std::string(1, static_cast<char>('a' + rng() % 26));
    }
    const bool ours = !xml_text_problem(text).has_value();
    ASSERT_EQ(ours, libxml2_reads(text)) << "text bytes: " << ::testing::PrintToString(text)
                                         << (ours ? "" : " problem: " + *xml_text_problem(text));
    (ours ? accepted : refused) += 1;
  }
  EXPECT_GT(accepted, 3000);
  EXPECT_GT(refused, 3000);
}

// The message names the earliest problem, of whichever kind.
TEST(XmlText, TheEarliestProblemIsTheOneNamed) {
  EXPECT_EQ(xml_text_problem("a\x01" "b\xff"), "holds the control character 0x01 at byte 2");
  EXPECT_EQ(xml_text_problem("a\xff" "b\x01"), "holds the byte 0xff at byte 2, which is not UTF-8");
  EXPECT_EQ(xml_text_problem("\xef\xbf\xbe\xff"), "holds U+FFFE at byte 1, which XML cannot hold");
  EXPECT_EQ(xml_text_problem("\xc3\x01"), "ends inside a UTF-8 sequence at byte 1");
  EXPECT_EQ(xml_text_problem("caf\xc3\xa9\t\n"), std::nullopt);
}

}  // namespace
}  // namespace numaplace::xml
