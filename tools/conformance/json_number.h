/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Whole numbers read from reference vectors and admission streams. nlohmann's get<integer>()
// converts a JSON float with a plain cast, which is undefined behaviour when the value does not
// fit the type (the json fuzz harness found a cpu id of 5.1e+87). whole<T> accepts an integer,
// or a float with no fractional part, only when it fits T, and otherwise throws nlohmann's own
// type_error (302), which every reader of vectors already turns into a refusal.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace numaplace::conformance {

template <typename T>
T whole(const nlohmann::json& value) {
  static_assert(std::is_integral_v<T>);
  if (value.is_number_unsigned()) {
    const auto v = value.get<std::uint64_t>();
    if (std::in_range<T>(v)) return static_cast<T>(v);
  } else if (value.is_number_integer()) {
    const auto v = value.get<std::int64_t>();
    if (std::in_range<T>(v)) return static_cast<T>(v);
  } else if (value.is_number_float()) {
    const double d = value.get<double>();
    const double above = std::ldexp(1.0, std::numeric_limits<T>::digits);  // 2^digits: one past the largest
    const double lowest = std::is_signed_v<T> ? -above : 0.0;
    if (std::isfinite(d) && d == std::floor(d) && d >= lowest && d < above) return static_cast<T>(d);
  }
  throw nlohmann::json::type_error::create(302, "expected a whole number that fits, got " + value.dump(), &value);
}

// An array of whole numbers (whole<T> each); a non-array is nlohmann's type_error.
template <typename T>
std::vector<T> whole_list(const nlohmann::json& list) {
  if (!list.is_array()) throw nlohmann::json::type_error::create(302, "expected an array, got " + list.dump(), &list);
  std::vector<T> out;
  out.reserve(list.size());
  for (const auto& item : list) out.push_back(whole<T>(item));
  return out;
}

// object[key] as whole<T>, or `fallback` when the key is absent.
template <typename T>
T whole_or(const nlohmann::json& object, const char* key, T fallback) {
  const auto found = object.find(key);
  return found == object.end() ? fallback : whole<T>(*found);
}

}  // namespace numaplace::conformance
