// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/c_whole_number.h"

#include <charconv>

namespace numaplace {

std::string_view without_c_number_lead(std::string_view text) {
  const std::size_t digits = text.find_first_not_of(" \t\n\v\f\r");  // C's isspace in the "C" locale
  if (digits == std::string_view::npos) return {};
  text.remove_prefix(digits);
  if (text.front() == '+') text.remove_prefix(1);
  return text;
}

std::optional<std::uint64_t> c_whole_number(std::string_view text) {
  const std::string_view digits = without_c_number_lead(text);
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

std::optional<std::int32_t> c_int(std::string_view text) {
  const std::size_t sign = text.find_first_not_of(" \t\n\v\f\r");
  const bool negative = sign != std::string_view::npos && text[sign] == '-';
  const std::string_view rest = negative ? text.substr(sign + 1) : text;
  if (negative && (rest.empty() || rest.front() < '0' || rest.front() > '9')) return std::nullopt;
  const std::optional<std::uint64_t> magnitude = c_whole_number(rest);
  if (!magnitude) return std::nullopt;
  const std::uint64_t limit = negative ? 2147483648ULL : 2147483647ULL;
  if (*magnitude > limit) return std::nullopt;
  return static_cast<std::int32_t>(negative ? -static_cast<std::int64_t>(*magnitude) : static_cast<std::int64_t>(*magnitude));
}

}  // namespace numaplace
