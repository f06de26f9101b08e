// SPDX-License-Identifier: LGPL-2.1-or-later
// Invariant: a flavor's resources:PCPU amounts are never skipped. Over random amounts split across
// resources:PCPU and resources1:PCPU, each written as Python's int() reads it (blanks, a sign,
// underscores between digits) or spoiled so that int() refuses it, the derivation is
// InvalidResourceAmount exactly when some amount is not an integer; otherwise the sum alone decides:
// 0 asks nothing, the guest's vCPU count makes it dedicated, any other sum is InvalidRequest. The
// expectation comes from the drawn numbers and spoilers, not from the parser.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "placement/request/guest_topology.h"
#include "support/topology_builders.h"

namespace numaplace {
namespace {

struct Amount {
  std::string text;
  long long value = 0;
  bool integer = true;
};

Amount draw_amount(std::mt19937& rng, long long value) {
  Amount out;
  out.value = value;
  std::string digits = std::to_string(value < 0 ? -value : value);
  if (digits.size() > 1 && rng() % 3 == 0) digits.insert(1 + rng() % (digits.size() - 1), "_");
  std::string sign = value < 0 ? "-" : (rng() % 4 == 0 ? "+" : "");
  out.text = std::string(rng() % 2, ' ') + sign + digits + std::string(rng() % 2, ' ');
  switch (rng() % 6) {  // a spoiler int() refuses, one time in two
    case 0: out.text += ".0"; break;
    case 1: out.text = "0x" + digits; break;
    case 2: out.text = digits + "_"; break;
    default: return out;
  }
  out.integer = false;
  return out;
}

TEST(ResourceAmountProperty, AmountsAreReadOrRefusedNeverSkipped) {
  std::mt19937 rng(20261204);
  int refused = 0, dedicated = 0, mismatched = 0, nothing = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::uint32_t vcpus = 1 + rng() % 8;
    const long long total = rng() % 2 == 0 ? vcpus : static_cast<long long>(rng() % 12) - 2;
    const long long first = static_cast<long long>(rng() % 7) - 2;
    const bool split = rng() % 2 == 0;
    const Amount a = draw_amount(rng, split ? first : total);
    SpecMap flavor{{"resources:PCPU", a.text}};
    bool integers = a.integer;
    if (split) {
      const Amount b = draw_amount(rng, total - first);
      flavor["resources1:PCPU"] = b.text;
      integers = integers && b.integer;
    }
    auto derived = derive_guest_topology(testing::request_of(vcpus, flavor, {}));
    const std::string context = "vcpus " + std::to_string(vcpus) + ", '" + a.text + "'" +
                                (split ? ", '" + flavor["resources1:PCPU"] + "'" : std::string());
    if (!integers) {
      ASSERT_FALSE(derived.ok()) << context;
      EXPECT_EQ(derived.error().name, "InvalidResourceAmount") << context;
      ++refused;
    } else if (total == 0) {
      ASSERT_TRUE(derived.ok()) << context << ": " << derived.error().message;
      EXPECT_FALSE(derived->has_value()) << context;
      ++nothing;
    } else if (total == static_cast<long long>(vcpus)) {
      ASSERT_TRUE(derived.ok()) << context << ": " << derived.error().message;
      ASSERT_TRUE(derived->has_value()) << context;
      EXPECT_EQ((**derived).cpu_policy, CpuPolicy::Dedicated) << context;
      ++dedicated;
    } else {
      ASSERT_FALSE(derived.ok()) << context;
      EXPECT_EQ(derived.error().name, "InvalidRequest") << context;
      ++mismatched;
    }
  }
  EXPECT_GT(refused, 300);
  EXPECT_GT(dedicated, 300);
  EXPECT_GT(mismatched, 100);
  EXPECT_GT(nothing, 20);
}

}  // namespace
}  // namespace numaplace
