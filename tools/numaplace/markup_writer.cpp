// SPDX-License-Identifier: LGPL-2.1-or-later
#include "numaplace/markup_writer.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace numaplace::cli {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the valid UTF-8 sequence at `text[i]`, or 0 when it is not one (overlong forms,
// surrogates and code points above U+10FFFF are not).
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if ((b0 & 0xE0) == 0xC0) {
    n = 2;
    cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    n = 3;
    cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    n = 4;
    cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  static constexpr std::array<std::uint32_t, 5> kMinimum{0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinimum[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  if (cp == 0xFFFE || cp == 0xFFFF) return 0;  // not XML characters either
  return n;
}

bool is_void_html_element(std::string_view name) {
  for (std::string_view v : {"meta", "br", "hr", "img", "link", "input", "col", "wbr"}) {
    if (name == v) return true;
  }
  return false;
}

}  // namespace

std::string escape_markup(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    switch (c) {
      case '&': out += "&amp;"; ++i; continue;
      case '<': out += "&lt;"; ++i; continue;
      case '>': out += "&gt;"; ++i; continue;
      case '"': out += "&quot;"; ++i; continue;
      case '\'': out += "&#39;"; ++i; continue;
      default: break;
    }
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      out += kReplacement;
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

std::string shorten(std::string_view text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t n = utf8_length(text, i);
    if (n == 0) n = 1;  // a stray byte counts as one character (escape_markup replaces it)
    if (chars == max_chars) return std::string(text.substr(0, i)) + "\xE2\x80\xA6";  // …
    ++chars;
    i += n;
  }
  return std::string(text);
}

std::string format_number(double value) {
  if (!std::isfinite(value)) return "0";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  std::string s = buffer;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

void MarkupWriter::end_start_tag() {
  if (in_start_tag_) {
    out_ += '>';
    in_start_tag_ = false;
  }
}

MarkupWriter& MarkupWriter::open(std::string_view name) {
  end_start_tag();
  out_ += '<';
  out_ += name;
  open_.emplace_back(name);
  in_start_tag_ = true;
  return *this;
}

MarkupWriter& MarkupWriter::attr(std::string_view name, std::string_view value) {
  if (!in_start_tag_) return *this;  // no element to take it: a caller's bug, never broken markup
  out_ += ' ';
  out_ += name;
  out_ += "=\"";
  out_ += escape_markup(value);
  out_ += '"';
  return *this;
}

MarkupWriter& MarkupWriter::attr(std::string_view name, double value) { return attr(name, format_number(value)); }

MarkupWriter& MarkupWriter::attr(std::string_view name, std::uint64_t value) {
  return attr(name, std::to_string(value));
}

MarkupWriter& MarkupWriter::attr(std::string_view name, int value) { return attr(name, std::to_string(value)); }

MarkupWriter& MarkupWriter::text(std::string_view text) {
  end_start_tag();
  out_ += escape_markup(text);
  return *this;
}

MarkupWriter& MarkupWriter::raw(std::string_view markup) {
  end_start_tag();
  out_ += markup;
  return *this;
}

MarkupWriter& MarkupWriter::close() {
  if (open_.empty()) return *this;
  const std::string name = std::move(open_.back());
  open_.pop_back();
  if (in_start_tag_) {
    in_start_tag_ = false;
    if (!html_) {
      out_ += "/>";
      return *this;
    }
    out_ += '>';
    if (is_void_html_element(name)) return *this;
  }
  out_ += "</";
  out_ += name;
  out_ += '>';
  return *this;
}

std::string MarkupWriter::finish() {
  while (!open_.empty()) close();
  std::string done = std::move(out_);
  out_.clear();
  return done;
}

}  // namespace numaplace::cli
