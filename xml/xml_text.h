/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What an XML document can hold as text: UTF-8 of XML 1.0's characters (no control character but
// tab, line feed and carriage return; no U+FFFE or U+FFFF). A value numaplace will write into a
// domain (a flavor spec in its metadata) is checked with this first, so that a byte libxml2 would
// copy as it is never makes a document that does not parse.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace numaplace::xml {

// Why `text` cannot be XML text ("holds the byte 0xff at byte 3, which is not UTF-8", "holds the
// control character 0x01 at byte 1"), or nullopt when it can.
std::optional<std::string> xml_text_problem(std::string_view text);

}  // namespace numaplace::xml
