// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/xml_text.h"

#include <cstdint>
#include <cstdio>

namespace numaplace::xml {
namespace {

std::string hex_byte(unsigned char byte) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", byte);
  return text;
}

std::string at(std::size_t position) { return " at byte " + std::to_string(position + 1); }

}  // namespace

std::optional<std::string> xml_text_problem(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      if (lead < 0x20 && lead != '\t' && lead != '\n' && lead != '\r') {
        return "holds the control character " + hex_byte(lead) + at(i);
      }
      ++i;
      continue;
    }
    // A UTF-8 sequence: its length from the lead byte, then continuation bytes, shortest form
    // only, no surrogates, at most U+10FFFF.
    std::size_t length = 0;
    std::uint32_t code = 0;
    if (lead >= 0xc2 && lead <= 0xdf) {
      length = 2;
      code = lead & 0x1fu;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      code = lead & 0x0fu;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      code = lead & 0x07u;
    } else {
      return "holds the byte " + hex_byte(lead) + at(i) + ", which is not UTF-8";
    }
    if (i + length > text.size()) return "ends inside a UTF-8 sequence" + at(i);
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xc0u) != 0x80u) return "holds the byte " + hex_byte(next) + at(i + k) + ", which is not UTF-8";
      code = (code << 6) | (next & 0x3fu);
    }
    const bool overlong = (length == 3 && code < 0x800) || (length == 4 && code < 0x10000);
    if (overlong || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) {
      return "holds a byte sequence" + at(i) + " that is not UTF-8";
    }
    if (code == 0xfffe || code == 0xffff) return "holds U+" + std::string(code == 0xfffe ? "FFFE" : "FFFF") + at(i) + ", which XML cannot hold";
    i += length;
  }
  return std::nullopt;
}

}  // namespace numaplace::xml
