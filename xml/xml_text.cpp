// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/xml_text.h"

#include "placement/model/utf8_text.h"

namespace numaplace::xml {

std::optional<std::string> xml_text_problem(std::string_view text) {
  // The earliest problem of either kind: a UTF-8 one before the first character XML cannot hold
  // (a control byte or U+FFFE, U+FFFF, none of which is part of another sequence), else that one.
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    std::optional<std::string> problem;
    if (byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') {
      problem = "holds the control character " + hex_byte(byte) + at_byte(i);
    } else if (byte == 0xef && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xbf &&
               (static_cast<unsigned char>(text[i + 2]) & 0xfeu) == 0xbe) {  // EF BF BE, EF BF BF
      problem = "holds U+" + std::string(text[i + 2] == '\xbe' ? "FFFE" : "FFFF") + at_byte(i) + ", which XML cannot hold";
    }
    if (problem) {
      if (auto earlier = utf8_problem(text.substr(0, i))) return earlier;
      return problem;
    }
  }
  return utf8_problem(text);
}

}  // namespace numaplace::xml
