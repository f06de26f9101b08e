// SPDX-License-Identifier: LGPL-2.1-or-later
// memory_to_kib on random sizes and units, against this file's own table of libvirt's units
// (virScaleInteger's spellings, read without case): a known unit in any letter case gives the
// size in KiB, a size that is not whole KiB or does not fit 64 bits of bytes is refused, and so is
// every other unit.
#include "placement/model/memory_size.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <random>
#include <string>
#include <utility>

namespace numaplace {
namespace {

// Each spelling libvirt takes, and its bytes.
const std::array<std::pair<const char*, unsigned __int128>, 21> kUnits = [] {
  std::array<std::pair<const char*, unsigned __int128>, 21> units{};
  const char* spellings[7][3] = {{"b", "byte", "bytes"}, {"k", "KiB", "KB"}, {"M", "MiB", "MB"}, {"G", "GiB", "GB"},
                                 {"T", "TiB", "TB"},     {"P", "PiB", "PB"}, {"E", "EiB", "EB"}};
  unsigned __int128 binary = 1, decimal = 1;
  for (std::size_t power = 0; power < 7; ++power) {
    if (power == 0) {
      for (std::size_t i = 0; i < 3; ++i) units[i] = {spellings[0][i], 1};
      continue;
    }
    binary *= 1024;
    decimal *= 1000;
    units[power * 3] = {spellings[power][0], binary};
    units[power * 3 + 1] = {spellings[power][1], binary};
    units[power * 3 + 2] = {spellings[power][2], decimal};
  }
  return units;
}();

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// The bytes of `unit` when libvirt knows it, else 0.
unsigned __int128 bytes_of(const std::string& unit) {
  for (const auto& [name, bytes] : kUnits) {
    if (lower(name) == lower(unit)) return bytes;
  }
  return 0;
}

TEST(MemorySizeProperty, KnownUnitsInAnyCaseGiveKibUnknownOnesAndOverflowsAreRefused) {
  std::mt19937_64 rng(20261204);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng); };
  int read = 0, not_whole = 0, too_large = 0, unknown = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string unit;
    if (pick(0, 4) != 0) {
      unit = kUnits[pick(0, kUnits.size() - 1)].first;
      for (char& c : unit) c = pick(0, 1) ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                                          : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      const std::string letters = "bkmgtpeiyxzBKMGTPEIY";
      for (std::uint64_t n = pick(1, 4); n > 0; --n) unit += letters[pick(0, letters.size() - 1)];
    }
    // Small sizes, sizes near where each unit overflows, and any 64-bit number.
    std::uint64_t value = 0;
    switch (pick(0, 2)) {
      case 0: value = pick(0, 1 << 20); break;
      case 1: {
        const unsigned __int128 bytes = std::max<unsigned __int128>(bytes_of(unit), 1);
        const unsigned __int128 edge = (static_cast<unsigned __int128>(1) << 64) / bytes;
        const std::uint64_t centre = edge > UINT64_MAX ? UINT64_MAX : static_cast<std::uint64_t>(edge);
        value = centre - std::min<std::uint64_t>(centre, pick(0, 3)) + pick(0, 3);
        break;
      }
      default: value = pick(0, UINT64_MAX);
    }
    const std::string text = std::to_string(value);
    auto kib = memory_to_kib(text, unit, "memory");
    const unsigned __int128 unit_bytes = bytes_of(unit);
    const std::string context = text + " " + unit;
    if (unit_bytes == 0) {
      ++unknown;
      ASSERT_FALSE(kib.ok()) << context;
      EXPECT_EQ(kib.error().name, "InvalidMemorySize");
      EXPECT_NE(kib.error().message.find("unknown unit"), std::string::npos) << kib.error().message;
      continue;
    }
    const unsigned __int128 bytes = static_cast<unsigned __int128>(value) * unit_bytes;
    if (bytes % 1024 != 0) {
      ++not_whole;
      ASSERT_FALSE(kib.ok()) << context;
      EXPECT_NE(kib.error().message.find("not a whole number of KiB"), std::string::npos) << kib.error().message;
    } else if (bytes > UINT64_MAX) {
      ++too_large;
      ASSERT_FALSE(kib.ok()) << context;
      EXPECT_NE(kib.error().message.find("too large"), std::string::npos) << kib.error().message;
    } else {
      ++read;
      ASSERT_TRUE(kib.ok()) << context << ": " << kib.error().message;
      EXPECT_EQ(static_cast<unsigned __int128>(*kib), bytes / 1024) << context;
    }
  }
  EXPECT_GT(read, 2000);
  EXPECT_GT(not_whole, 200);
  EXPECT_GT(too_large, 2000);
  EXPECT_GT(unknown, 2000);
}

}  // namespace
}  // namespace numaplace
