/* SPDX-License-Identifier: LGPL-2.1-or-later */
// An escaping writer of XML (SVG) and HTML markup, built in memory: every attribute value and
// every text goes through escape_markup, so a guest named `a<b & "c"` can never open an element,
// end an attribute or break the document. Text that is not valid UTF-8, and the control
// characters XML 1.0 forbids, become U+FFFD: the output is always a well-formed document as long
// as the elements opened are closed (finish() closes whatever is still open).
//   MarkupWriter w;
//   w.open("svg").attr("xmlns", "http://www.w3.org/2000/svg");
//   w.open("text").attr("x", 4).text(name);
//   w.close();           // </text>
//   std::string svg = w.finish();
// Element and attribute names are the caller's constants, never outside text; they are not
// escaped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace numaplace::cli {

// `text` with & < > " ' as character references, invalid UTF-8 and forbidden control
// characters (all below U+0020 but tab, newline and carriage return) as U+FFFD.
std::string escape_markup(std::string_view text);

// The first `max_chars` characters (code points) of `text`, with "…" when it was longer; never
// cuts a UTF-8 sequence in two.
std::string shorten(std::string_view text, std::size_t max_chars);

class MarkupWriter {
 public:
  // Opens <name ...>; its attributes follow until the first child, text or close().
  MarkupWriter& open(std::string_view name);
  MarkupWriter& attr(std::string_view name, std::string_view value);
  MarkupWriter& attr(std::string_view name, const char* value) { return attr(name, std::string_view(value)); }
  MarkupWriter& attr(std::string_view name, const std::string& value) { return attr(name, std::string_view(value)); }
  MarkupWriter& attr(std::string_view name, double value);
  MarkupWriter& attr(std::string_view name, std::uint64_t value);
  MarkupWriter& attr(std::string_view name, std::uint32_t value) { return attr(name, std::uint64_t{value}); }
  MarkupWriter& attr(std::string_view name, int value);
  MarkupWriter& text(std::string_view text);
  // Markup the caller built with another MarkupWriter (or a constant): inserted as it is.
  MarkupWriter& raw(std::string_view markup);
  // Closes the innermost open element (<x/> when it has no content).
  MarkupWriter& close();
  // Convenience: <name>text</name>.
  MarkupWriter& element(std::string_view name, std::string_view text) { return open(name).text(text).close(); }
  // Closes every open element and hands the document over; the writer is empty afterwards.
  std::string finish();

  // With `html` set, HTML's void elements (meta, br, hr, img, link, input, col, wbr) close as <x>
  // and every other empty element as <x></x>, as an HTML parser reads them; else an empty
  // element is <x/>.
  explicit MarkupWriter(bool html = false) : html_(html) {}

 private:
  void end_start_tag();

  std::string out_;
  std::vector<std::string> open_;
  bool in_start_tag_ = false;
  bool html_ = false;
};

// A number for an attribute: at most two decimals, no trailing zeros ("12", "12.5").
std::string format_number(double value);

}  // namespace numaplace::cli
