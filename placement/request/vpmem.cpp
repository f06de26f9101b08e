// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/request/vpmem.h"

namespace numaplace {
namespace {

// Python's str.strip() without arguments: ASCII whitespace at both ends.
std::string stripped(const std::string& text) {
  constexpr const char* kBlanks = " \t\n\r\v\f";
  const auto first = text.find_first_not_of(kBlanks);
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(kBlanks) - first + 1);
}

}  // namespace

std::vector<std::string> vpmem_labels(const SpecMap& flavor) {
  std::vector<std::string> labels;
  const auto it = flavor.find("hw:pmem");
  if (it == flavor.end()) return labels;
  const std::string& text = it->second;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string label = stripped(text.substr(start, comma - start));
    if (!label.empty()) labels.push_back(std::move(label));
    start = comma + 1;
  }
  return labels;
}

}  // namespace numaplace
