/* SPDX-License-Identifier: LGPL-2.1-or-later */
// JSON documents written as text for people and programs. A string in them may hold bytes that
// are not UTF-8 (a Latin-1 file name in an error, a byte a caller passed in a spec value): such a
// byte is written as U+FFFD, never thrown, so that no output and no C ABI call aborts on it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace numaplace::plugin {

// `document` as text: compact with indent -1, else pretty-printed with `indent` spaces.
std::string json_text(const nlohmann::json& document, int indent = -1);

}  // namespace numaplace::plugin
