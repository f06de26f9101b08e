// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/utf8_text.h"

#include <cstdint>
#include <cstdio>

namespace numaplace {

std::string hex_byte(unsigned char byte) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", byte);
  return text;
}

std::string at_byte(std::size_t position) { return " at byte " + std::to_string(position + 1); }

namespace {

// The length of the well-formed UTF-8 sequence at `at`, 0 when there is none.
std::size_t sequence_length(std::string_view text, std::size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  const std::size_t length = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  if (length == 0 || at + length > text.size()) return 0;
  return utf8_problem(text.substr(at, length)) ? 0 : length;
}

}  // namespace

std::string printable_text(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f) {
      out += text[i++];
      continue;
    }
    if (const std::size_t length = byte >= 0x80 ? sequence_length(text, i) : 0; length > 0) {
      out.append(text.substr(i, length));
      i += length;
      continue;
    }
    out += "\\x" + hex_byte(byte).substr(2);
    ++i;
  }
  return out;
}

std::optional<std::string> utf8_problem(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    // The sequence's length from its lead byte, then its continuation bytes.
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
      return "holds the byte " + hex_byte(lead) + at_byte(i) + ", which is not UTF-8";
    }
    if (i + length > text.size()) return "ends inside a UTF-8 sequence" + at_byte(i);
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xc0u) != 0x80u) return "holds the byte " + hex_byte(next) + at_byte(i + k) + ", which is not UTF-8";
      code = (code << 6) | (next & 0x3fu);
    }
    const bool overlong = (length == 3 && code < 0x800) || (length == 4 && code < 0x10000);
    if (overlong || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) {
      return "holds a byte sequence" + at_byte(i) + " that is not UTF-8";
    }
    i += length;
  }
  return std::nullopt;
}

}  // namespace numaplace
