// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/xml_text.h"

#include "placement/model/utf8_text.h"

namespace numaplace::xml {

std::optional<std::string> xml_text_problem(std::string_view text) {
  if (auto problem = utf8_problem(text)) return problem;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') {
      return "holds the control character " + hex_byte(byte) + at_byte(i);
    }
    // U+FFFE and U+FFFF (EF BF BE, EF BF BF) are UTF-8 but not XML characters.
    if (byte == 0xef && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xbf &&
        (static_cast<unsigned char>(text[i + 2]) & 0xfeu) == 0xbe) {
      return "holds U+" + std::string(text[i + 2] == '\xbe' ? "FFFE" : "FFFF") + at_byte(i) + ", which XML cannot hold";
    }
  }
  return std::nullopt;
}

}  // namespace numaplace::xml
