// SPDX-License-Identifier: LGPL-2.1-or-later
// Nova's rule lets a shared guest cell overcommit its host cell's memory up to the RAM ratio, and
// place follows it; but the binding is strict, so a placement that takes a cell past the memory
// it has physically free is said (audit names the result CellMemoryOvercommitted), and a host
// configured with a RAM ratio of 1.0 refuses it.
#include <gtest/gtest.h>

#include <string>

#include "support/placed_domains.h"

namespace numaplace {
namespace {

int overcommit_warnings(const plugin::PlaceOutcome& outcome) {
  int said = 0;
  for (const auto& warning : outcome.warnings) said += warning.find("CellMemoryOvercommitted") != std::string::npos ? 1 : 0;
  return said;
}

TEST(MemoryOvercommit, AStrictBindingPastTheCellsFreeMemoryIsSaid) {
  HostTopology host = testing::sample_capabilities_host("caps-1cell.xml");
  ASSERT_EQ(host.cells.size(), 1u);
  const std::uint64_t cell_kib = host.cells[0].memory_kib;
  host.cells[0].usage.memory_kib = cell_kib / 2;  // half the cell held by a guest already
  const auto guest = [](std::uint64_t mib) {
    return "<domain type='kvm'><name>g</name><memory unit='MiB'>" + std::to_string(mib) +
           "</memory><vcpu>2</vcpu><os><type arch='x86_64'>hvm</type></os></domain>";
  };
  const std::uint64_t half_mib = cell_kib / 2 / 1024;
  auto within = testing::place_with_specs(host, guest(half_mib / 2), {{"hw:numa_nodes", "1"}});
  ASSERT_TRUE(within) << within.error().message;
  EXPECT_EQ(overcommit_warnings(*within), 0);
  auto past = testing::place_with_specs(host, guest(half_mib + half_mib / 2), {{"hw:numa_nodes", "1"}});
  ASSERT_TRUE(past) << past.error().message;  // within the ratio 1.5
  EXPECT_EQ(overcommit_warnings(*past), 1);
  host.ratio.ram = 1.0;
  auto refused = testing::place_with_specs(host, guest(half_mib + half_mib / 2), {{"hw:numa_nodes", "1"}});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().name, "NoFit");
}

}  // namespace
}  // namespace numaplace
