/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Whether text is UTF-8 by glibc's iconv, a decoder written apart from numaplace's: the oracle of
// the property tests on UTF-8 checks.
#pragma once

#include <iconv.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace numaplace::testing {

inline bool iconv_reads_utf8(const std::string& text) {
  iconv_t to_utf32 = iconv_open("UTF-32LE", "UTF-8");
  if (to_utf32 == reinterpret_cast<iconv_t>(-1)) throw std::runtime_error("iconv_open failed");
  std::string in = text;
  std::vector<char> out(4 * text.size() + 4);
  char* in_at = in.data();
  char* out_at = out.data();
  std::size_t in_left = in.size(), out_left = out.size();
  const bool read = iconv(to_utf32, &in_at, &in_left, &out_at, &out_left) != static_cast<std::size_t>(-1) && in_left == 0;
  iconv_close(to_utf32);
  return read;
}

}  // namespace numaplace::testing
