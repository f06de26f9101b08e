// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/memory_size.h"

#include <array>
#include <charconv>
#include <string>
#include <utility>

namespace numaplace {
namespace {

struct Unit {
  std::string_view name;
  std::uint64_t bytes_per_unit;
};

constexpr std::uint64_t kKi = 1024;
constexpr std::array kUnits{
    Unit{"b", 1},           Unit{"bytes", 1},
    Unit{"KB", 1000},       Unit{"k", kKi},          Unit{"K", kKi},          Unit{"KiB", kKi},
    Unit{"MB", 1000000},    Unit{"M", kKi * kKi},    Unit{"MiB", kKi * kKi},
    Unit{"GB", 1000000000}, Unit{"G", kKi * kKi * kKi}, Unit{"GiB", kKi * kKi * kKi},
    Unit{"TB", 1000000000000ULL}, Unit{"T", kKi * kKi * kKi * kKi}, Unit{"TiB", kKi * kKi * kKi * kKi},
    Unit{"PB", 1000000000000000ULL}, Unit{"P", kKi * kKi * kKi * kKi * kKi}, Unit{"PiB", kKi * kKi * kKi * kKi * kKi},
    Unit{"EB", 1000000000000000000ULL}, Unit{"E", kKi * kKi * kKi * kKi * kKi * kKi},
    Unit{"EiB", kKi * kKi * kKi * kKi * kKi * kKi},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<std::uint64_t> memory_to_kib(std::string_view value, std::string_view unit, std::string_view what) {
  const std::string field(what);
  value = trim(value);
  unit = trim(unit);
  if (unit.empty()) unit = "KiB";
  const Unit* found = nullptr;
  for (const auto& u : kUnits) {
    if (u.name == unit) found = &u;
  }
  if (found == nullptr) {
    return make_error("InvalidMemorySize", field + ": unknown unit '" + std::string(unit) +
                                               "'; use b, KiB, MiB, GiB, TiB (or KB, MB, GB, TB for powers of 1000)");
  }
  if (!value.empty() && value.front() == '-') {
    return make_error("InvalidMemorySize", field + ": '" + std::string(value) + "' is negative; a size must be 0 or more");
  }
  std::uint64_t number = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (value.empty() || ec == std::errc::invalid_argument || ptr != value.data() + value.size()) {
    return make_error("InvalidMemorySize", field + ": '" + std::string(value) + "' is not a whole number");
  }
  if (ec == std::errc::result_out_of_range) {
    return make_error("InvalidMemorySize", field + ": '" + std::string(value) + "' does not fit in 64 bits");
  }
  unsigned __int128 bytes = static_cast<unsigned __int128>(number) * found->bytes_per_unit;
  if (bytes % kKi != 0) {
    return make_error("InvalidMemorySize", field + ": " + std::string(value) + " " + std::string(unit) +
                                               " is not a whole number of KiB");
  }
  unsigned __int128 kib = bytes / kKi;
  if (kib > static_cast<unsigned __int128>(UINT64_MAX / kKi)) {
    return make_error("InvalidMemorySize", field + ": " + std::string(value) + " " + std::string(unit) +
                                               " is too large to be a memory size");
  }
  return static_cast<std::uint64_t>(kib);
}

}  // namespace numaplace
