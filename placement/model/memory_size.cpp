// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/memory_size.h"

#include "placement/model/ascii_case.h"

#include <charconv>
#include <limits>
#include <string>

#include "placement/model/c_whole_number.h"

namespace numaplace {
namespace {

constexpr std::uint64_t kKi = 1024;

// Bytes per unit, read as libvirt reads a unit (virScaleInteger): without case; b, byte and bytes;
// a prefix letter k, m, g, t, p or e alone or with "iB" for powers of 1024, with "B" for powers of
// 1000. 0 for anything else.
std::uint64_t bytes_per_unit(std::string_view unit) {
  if (equal_without_case(unit, "b") || equal_without_case(unit, "byte") || equal_without_case(unit, "bytes")) return 1;
  if (unit.empty()) return 0;
  const std::string_view rest = unit.substr(1);
  std::uint64_t base = 0;
  if (rest.empty() || equal_without_case(rest, "ib")) {
    base = kKi;
  } else if (equal_without_case(rest, "b")) {
    base = 1000;
  } else {
    return 0;
  }
  constexpr std::string_view kPrefixes = "kmgtpe";
  const auto power = kPrefixes.find(ascii_lower(unit.front()));
  if (power == std::string_view::npos) return 0;
  std::uint64_t scale = 1;
  for (std::size_t i = 0; i <= power; ++i) scale *= base;
  return scale;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// How a size's number is read and its KiB rounded: a host source's way or a domain's.
enum class SizeReading { HostSource, Domain };

Result<std::uint64_t> size_to_kib(std::string_view value, std::string_view unit, std::string_view what,
                                  SizeReading reading) {
  const std::string field(what);
  const bool domain = reading == SizeReading::Domain;
  if (!domain) {
    value = trim(value);
    unit = trim(unit);
  }
  if (unit.empty()) unit = "KiB";
  const std::uint64_t unit_bytes = bytes_per_unit(unit);
  if (unit_bytes == 0) {
    return make_error("InvalidMemorySize", field + ": unknown unit '" + std::string(unit) +
                                               "'; use b, KiB, MiB, GiB, TiB (or KB, MB, GB, TB for powers of 1000)");
  }
  const std::string_view digits = domain ? without_c_number_lead(value) : value;
  if (!digits.empty() && digits.front() == '-') {
    return make_error("InvalidMemorySize", field + ": '" + std::string(value) + "' is negative; a size must be 0 or more");
  }
  std::uint64_t number = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (digits.empty() || ec == std::errc::invalid_argument || ptr != digits.data() + digits.size()) {
    return make_error("InvalidMemorySize", field + ": '" + std::string(value) + "' is not a whole number" +
                                               (domain ? " (libvirt takes nothing after the digits, not even a blank)" : ""));
  }
  if (ec == std::errc::result_out_of_range) {
    return make_error("InvalidMemorySize", field + ": '" + std::string(value) + "' does not fit in 64 bits");
  }
  const unsigned __int128 bytes = static_cast<unsigned __int128>(number) * unit_bytes;
  const std::string shown = std::string(value) + " " + std::string(unit);
  if (domain) {
    // libvirt takes a domain's size up to 2^63 - 1 bytes and rounds it up to whole KiB.
    if (bytes > static_cast<unsigned __int128>(std::numeric_limits<std::int64_t>::max())) {
      return make_error("InvalidMemorySize", field + ": " + shown + " is too large to be a memory size (libvirt takes "
                                                 "at most 2^63 - 1 bytes)");
    }
    return static_cast<std::uint64_t>((bytes + kKi - 1) / kKi);
  }
  if (bytes % kKi != 0) {
    return make_error("InvalidMemorySize", field + ": " + shown + " is not a whole number of KiB");
  }
  const unsigned __int128 kib = bytes / kKi;
  if (kib > static_cast<unsigned __int128>(UINT64_MAX / kKi)) {
    return make_error("InvalidMemorySize", field + ": " + shown + " is too large to be a memory size");
  }
  return static_cast<std::uint64_t>(kib);
}

}  // namespace

Result<std::uint64_t> memory_to_kib(std::string_view value, std::string_view unit, std::string_view what) {
  return size_to_kib(value, unit, what, SizeReading::HostSource);
}

Result<std::uint64_t> domain_memory_to_kib(std::string_view value, std::string_view unit, std::string_view what) {
  return size_to_kib(value, unit, what, SizeReading::Domain);
}

}  // namespace numaplace
