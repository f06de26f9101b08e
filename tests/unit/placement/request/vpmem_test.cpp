// SPDX-License-Identifier: LGPL-2.1-or-later
// vPMEM (hw:pmem, placement/request/vpmem.h): the labels as Nova's get_vpmems reads them, and a
// flavor with labels getting a NUMA topology (one cell without hw:numa_nodes). Nova's own answers
// on random flavors with hw:pmem are the conformance vectors (conformance.nova-pmem).
#include <gtest/gtest.h>

#include "placement/request/guest_topology.h"
#include "placement/request/vpmem.h"
#include "support/topology_builders.h"

namespace numaplace {
namespace {

TEST(Vpmem, LabelsAreSplitOnCommasStrippedAndEmptyOnesDropped) {
  EXPECT_EQ(vpmem_labels({{"hw:pmem", "SMALL"}}), (std::vector<std::string>{"SMALL"}));
  EXPECT_EQ(vpmem_labels({{"hw:pmem", " LARGE , SMALL,,"}}), (std::vector<std::string>{"LARGE", "SMALL"}));
  EXPECT_EQ(vpmem_labels({{"hw:pmem", "4GB,4GB"}}), (std::vector<std::string>{"4GB", "4GB"}));
  EXPECT_TRUE(vpmem_labels({{"hw:pmem", ""}}).empty());
  EXPECT_TRUE(vpmem_labels({{"hw:pmem", " , \t,"}}).empty());
  EXPECT_TRUE(vpmem_labels({{"hw:numa_nodes", "1"}}).empty());
}

TEST(Vpmem, ALabelGivesTheGuestOneCellUnlessTheNodeCountSaysMore) {
  auto one = derive_guest_topology(testing::request_of(4, {{"hw:pmem", "SMALL"}}));
  ASSERT_TRUE(one) << one.error().message;
  ASSERT_TRUE(one->has_value());
  ASSERT_EQ((*one)->cells.size(), 1u);
  EXPECT_EQ((*one)->cells[0].cpus, CpuSet::range(0, 3));
  EXPECT_EQ((*one)->cells[0].memory_kib, 4 * testing::kGiBInKiB);
  EXPECT_EQ((*one)->cpu_policy, CpuPolicy::Unset);

  auto two = derive_guest_topology(testing::request_of(4, {{"hw:pmem", "SMALL,LARGE"}, {"hw:numa_nodes", "2"}}));
  ASSERT_TRUE(two) << two.error().message;
  ASSERT_TRUE(two->has_value());
  EXPECT_EQ((*two)->cells.size(), 2u);

  // Only blanks and commas: no label, no topology; the image cannot ask for vPMEM.
  auto blank = derive_guest_topology(testing::request_of(4, {{"hw:pmem", " , "}}));
  ASSERT_TRUE(blank);
  EXPECT_FALSE(blank->has_value());
  auto image = derive_guest_topology(testing::request_of(4, {}, {{"hw_pmem", "SMALL"}}));
  ASSERT_TRUE(image) << image.error().message;
  EXPECT_FALSE(image->has_value());
}

}  // namespace
}  // namespace numaplace
