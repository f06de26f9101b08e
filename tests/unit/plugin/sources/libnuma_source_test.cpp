// SPDX-License-Identifier: LGPL-2.1-or-later
// libnuma on the machine running the tests: at least one node with memory, free
// memory no larger than total, a local distance of 10. Where libnuma is unusable
// (numa_available() < 0) the named error is checked instead.
#include "plugin/sources/libnuma_source.h"

#include <gtest/gtest.h>

#include "plugin/sources/hwloc_source.h"

namespace numaplace::plugin {
namespace {

TEST(LibnumaSource, ReadsFreeMemoryAndDistancesOfThisMachine) {
  auto report = read_libnuma();
  if (!report.ok()) {
    EXPECT_EQ(report.error().name, "NumaUnavailable");
    GTEST_SKIP() << report.error().message;
  }
  ASSERT_FALSE(report->nodes.empty());
  ASSERT_EQ(report->distances.size(), report->nodes.size());
  for (std::size_t i = 0; i < report->nodes.size(); ++i) {
    const auto& node = report->nodes[i];
    EXPECT_GT(node.total_kib, 0u);
    EXPECT_LE(node.free_kib, node.total_kib);
    if (!report->distances[i].empty()) {
      ASSERT_EQ(report->distances[i].size(), report->nodes.size());
      EXPECT_EQ(report->distances[i][i], 10u);
    }
  }
  const auto free = free_memory_of(*report);
  ASSERT_EQ(free.size(), report->nodes.size());
  EXPECT_EQ(free[0].cell, report->nodes[0].node);
  EXPECT_EQ(free[0].free_kib, report->nodes[0].free_kib);
}

TEST(LibnumaSource, AppliesLiveFreeMemoryToTheLiveHwlocHost) {
  auto host = load_hwloc_live();
  ASSERT_TRUE(host.ok()) << host.error().message;
  auto applied = apply_live_free_memory(*host);
  if (!applied.ok()) {
    EXPECT_EQ(applied.error().name, "NumaUnavailable");
    GTEST_SKIP() << applied.error().message;
  }
  for (const auto& cell : host->cells) {
    EXPECT_GT(cell.usage.memory_kib, 0u) << "a running machine uses some memory on node " << cell.id;
    EXPECT_LE(cell.usage.memory_kib, cell.memory_kib);
  }
}

}  // namespace
}  // namespace numaplace::plugin
