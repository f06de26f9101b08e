// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/request/guest_topology.h"

#include <gtest/gtest.h>

namespace numaplace {
namespace {

GuestRequest request(std::uint32_t vcpus, std::uint64_t memory_mib, SpecMap flavor, SpecMap image = {}) {
  GuestRequest r;
  r.vcpus = vcpus;
  r.memory_kib = memory_mib * 1024;
  r.flavor_specs = std::move(flavor);
  r.image_props = std::move(image);
  return r;
}

std::string error_name(const GuestRequest& r) {
  auto topology = derive_guest_topology(r);
  return topology.ok() ? "ok" : topology.error().name;
}

TEST(GuestTopology, NoNumaKeysMeansNoTopology) {
  auto topology = derive_guest_topology(request(4, 4096, {}));
  ASSERT_TRUE(topology.ok());
  EXPECT_FALSE(topology->has_value());
}

TEST(GuestTopology, CellMapsWithoutNodeCountAreIgnored) {
  auto topology = derive_guest_topology(request(2, 2048, {{"hw:numa_cpus.0", "0-1"}, {"hw:numa_mem.0", "2048"}}));
  ASSERT_TRUE(topology.ok());
  EXPECT_FALSE(topology->has_value());
}

TEST(GuestTopology, NodeCountAloneSplitsEvenly) {
  auto topology = derive_guest_topology(request(8, 4096, {{"hw:numa_nodes", "2"}}));
  ASSERT_TRUE(topology.ok()) << topology.error().message;
  const auto& cells = (*topology)->cells;
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(to_cpu_list(cells[0].cpus), "0-3");
  EXPECT_EQ(to_cpu_list(cells[1].cpus), "4-7");
  EXPECT_EQ(cells[0].memory_kib, 2048u * 1024);
  EXPECT_EQ(cells[1].memory_kib, 2048u * 1024);
}

TEST(GuestTopology, UnevenSplitIsAsymmetric) {
  EXPECT_EQ(error_name(request(9, 4096, {{"hw:numa_nodes", "2"}})), "ImageNUMATopologyAsymmetric");
  EXPECT_EQ(error_name(request(8, 4097, {{"hw:numa_nodes", "2"}})), "ImageNUMATopologyAsymmetric");
}

TEST(GuestTopology, FewerVcpusThanNodesSaysNoAssignmentCanSplitThem) {
  auto topology = derive_guest_topology(request(1, 2048, {{"hw:numa_nodes", "2"}}));
  ASSERT_FALSE(topology.ok());
  EXPECT_EQ(topology.error().name, "ImageNUMATopologyAsymmetric");
  const std::string& message = topology.error().message;
  EXPECT_NE(message.find("1 vCPU cannot be split over 2 nodes"), std::string::npos) << message;
  EXPECT_NE(message.find("at most 1 node "), std::string::npos) << message;
  EXPECT_EQ(message.find("Explicit assignment"), std::string::npos) << message;

  auto uneven = derive_guest_topology(request(3, 3072, {{"hw:numa_nodes", "2"}}));
  ASSERT_FALSE(uneven.ok());
  EXPECT_NE(uneven.error().message.find("3 vCPUs and 3072 MiB over 2 nodes. Explicit assignment"), std::string::npos)
      << uneven.error().message;
}

TEST(GuestTopology, ExplicitAsymmetricCells) {
  auto topology = derive_guest_topology(request(8, 4096,
                                                {{"hw:numa_nodes", "2"},
                                                 {"hw:numa_cpus.0", "0,1,2,3,4,5"},
                                                 {"hw:numa_cpus.1", "6,7"},
                                                 {"hw:numa_mem.0", "3072"},
                                                 {"hw:numa_mem.1", "1024"}}));
  ASSERT_TRUE(topology.ok()) << topology.error().message;
  const auto& cells = (*topology)->cells;
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(to_cpu_list(cells[0].cpus), "0-5");
  EXPECT_EQ(to_cpu_list(cells[1].cpus), "6-7");
  EXPECT_EQ(cells[0].memory_kib, 3072u * 1024);
  EXPECT_EQ(cells[1].memory_kib, 1024u * 1024);
}

TEST(GuestTopology, ImageFillsWhatTheFlavorLeftUnset) {
  auto topology = derive_guest_topology(request(4, 2048, {}, {{"hw_numa_nodes", "2"}}));
  ASSERT_TRUE(topology.ok());
  ASSERT_TRUE(topology->has_value());
  EXPECT_EQ((*topology)->cells.size(), 2u);
}

TEST(GuestTopology, ImageMayNotOverrideTheFlavor) {
  EXPECT_EQ(error_name(request(4, 2048, {{"hw:numa_nodes", "2"}}, {{"hw_numa_nodes", "2"}})),
            "ImageNUMATopologyForbidden");
  EXPECT_EQ(error_name(request(2, 2048,
                               {{"hw:numa_nodes", "2"}, {"hw:numa_cpus.0", "0"}, {"hw:numa_cpus.1", "1"},
                                {"hw:numa_mem.0", "1024"}, {"hw:numa_mem.1", "1024"}},
                               {{"hw_numa_cpus.0", "0"}})),
            "ImageNUMATopologyForbidden");
}

TEST(GuestTopology, EachInconsistencyHasItsOwnName) {
  SpecMap base{{"hw:numa_nodes", "2"}, {"hw:numa_mem.0", "1024"}, {"hw:numa_mem.1", "1024"}};
  auto with = [&](SpecMap extra) {
    SpecMap m = base;
    for (auto& [k, v] : extra) m[k] = v;
    return m;
  };
  EXPECT_EQ(error_name(request(4, 2048, with({{"hw:numa_cpus.0", "0-1"}, {"hw:numa_cpus.1", "2-4"}}))),
            "ImageNUMATopologyCPUOutOfRange");
  EXPECT_EQ(error_name(request(4, 2048, with({{"hw:numa_cpus.0", "0-2"}, {"hw:numa_cpus.1", "2-3"}}))),
            "ImageNUMATopologyCPUDuplicates");
  EXPECT_EQ(error_name(request(4, 2048, with({{"hw:numa_cpus.0", "0"}, {"hw:numa_cpus.1", "1-2"}}))),
            "ImageNUMATopologyCPUsUnassigned");
  EXPECT_EQ(error_name(request(4, 4096, with({{"hw:numa_cpus.0", "0-1"}, {"hw:numa_cpus.1", "2-3"}}))),
            "ImageNUMATopologyMemoryOutOfRange");
  EXPECT_EQ(error_name(request(4, 2048, with({{"hw:numa_cpus.0", "0-3"}}))), "ImageNUMATopologyIncomplete");
  EXPECT_EQ(error_name(request(4, 2048, {{"hw:numa_nodes", "2"}, {"hw:numa_cpus.0", "0-1"}, {"hw:numa_cpus.1", "2-3"}})),
            "ImageNUMATopologyIncomplete");
  EXPECT_EQ(error_name(request(4, 2048, with({{"hw:numa_cpus.0", "0-"}, {"hw:numa_cpus.1", "2-3"}}))), "Invalid");
  EXPECT_EQ(error_name(request(4, 2048, {{"hw:numa_nodes", "2"}, {"hw:numa_cpus.0", "0-1"}, {"hw:numa_cpus.1", "2-3"},
                                         {"hw:numa_mem.0", "1G"}, {"hw:numa_mem.1", "1024"}})),
            "ValueError");
}

TEST(GuestTopology, NodeCountMustBeAPositiveInteger) {
  for (const char* bad : {"two", "1.5", "-1", "0"}) {
    EXPECT_EQ(error_name(request(4, 2048, {{"hw:numa_nodes", bad}})), "InvalidNUMANodesNumber") << bad;
  }
  EXPECT_EQ(error_name(request(4, 2048, {{"hw:numa_nodes", "99999999999"}})), "InvalidNUMANodesNumber");
  EXPECT_EQ(error_name(request(4, 2048, {}, {{"hw_numa_nodes", "x"}})), "ValueError");
}

TEST(GuestTopology, NegativeCellMemoryIsRefusedEvenWhenTheSumAddsUp) {
  EXPECT_EQ(error_name(request(2, 2048,
                               {{"hw:numa_nodes", "2"}, {"hw:numa_cpus.0", "0"}, {"hw:numa_cpus.1", "1"},
                                {"hw:numa_mem.0", "-1024"}, {"hw:numa_mem.1", "3072"}})),
            "ImageNUMATopologyMemoryOutOfRange");
}

TEST(GuestTopology, TyposInTheNumaVocabularyAreNamed) {
  auto topology = derive_guest_topology(request(4, 2048, {{"hw:numa_node", "2"}}));
  ASSERT_FALSE(topology.ok());
  EXPECT_EQ(topology.error().name, "UnknownSpecKey");
  EXPECT_NE(topology.error().message.find("hw:numa_node"), std::string::npos);
}

TEST(GuestTopology, KeysOfOtherServicesAreLeftAlone) {
  auto topology = derive_guest_topology(request(4, 2048, {{"hw:numa_nodes", "1"}, {"quota:cpu_shares", "100"}}));
  ASSERT_TRUE(topology.ok());
  EXPECT_TRUE(topology->has_value());
}

}  // namespace
}  // namespace numaplace

namespace numaplace {
namespace {

// Cases where numaplace disagreed with Nova 26 in a differential run (tools/conformance/nova_differential.py).
TEST(GuestTopologyLikeNova, BadImagePropertiesAreNamedInNovasFieldOrder) {
  // hw_numa_nodes comes before hw_numa_cpus.N in ImageMetaProps: its ValueError wins over Invalid.
  EXPECT_EQ(error_name(request(1, 1024, {}, {{"hw_numa_nodes", "x"}, {"hw_numa_cpus.0", "x"}})), "ValueError");
  EXPECT_EQ(error_name(request(1, 1024, {}, {{"hw_numa_cpus.0", "x"}})), "Invalid");
  // hw_cpu_policy comes before hw_numa_nodes; the CPU topology integers before both.
  auto policy = derive_guest_topology(request(1, 1024, {}, {{"hw_numa_nodes", "x"}, {"hw_cpu_policy", "bogus"}}));
  ASSERT_FALSE(policy.ok());
  EXPECT_NE(policy.error().message.find("hw_cpu_policy"), std::string::npos) << policy.error().message;
  auto cores = derive_guest_topology(request(1, 1024, {}, {{"hw_cpu_policy", "bogus"}, {"hw_cpu_cores", "two"}}));
  ASSERT_FALSE(cores.ok());
  EXPECT_EQ(cores.error().name, "ValueError");
  EXPECT_NE(cores.error().message.find("hw_cpu_cores"), std::string::npos) << cores.error().message;
  EXPECT_EQ(error_name(request(1, 1024, {{"hw:numa_nodes", "1"}}, {{"hw_cpu_cores", "2"}})), "ok");
}

TEST(GuestTopologyLikeNova, ImageEmulatorThreadsPolicyIsNoImagePropertyAndIsIgnored) {
  auto topology = derive_guest_topology(request(1, 1024, {{"hw:numa_nodes", "1"}}, {{"hw_emulator_threads_policy", "bogus"}}));
  ASSERT_TRUE(topology.ok()) << topology.error().message;
  auto isolate = derive_guest_topology(
      request(2, 1024, {{"hw:cpu_policy", "dedicated"}}, {{"hw_emulator_threads_policy", "isolate"}}));
  ASSERT_TRUE(isolate.ok()) << isolate.error().message;
  ASSERT_TRUE(isolate->has_value());
  EXPECT_EQ((*isolate)->emulator_threads_policy, EmulatorThreadsPolicy::Unset);
}

TEST(GuestTopologyLikeNova, AnEmptyThreadPolicyIsRefusedOnlyWhenTheGuestGetsATopology) {
  EXPECT_EQ(error_name(request(1, 1024, {{"hw:cpu_policy", "dedicated"}, {"hw:cpu_thread_policy", ""}})), "ValueError");
  EXPECT_EQ(error_name(request(2, 2048, {{"hw:numa_nodes", "2"}, {"hw:cpu_thread_policy", ""}})), "ValueError");
  // No topology, no error: Nova never stores the policy.
  auto floating = derive_guest_topology(request(1, 1024, {{"hw:cpu_thread_policy", ""}}));
  ASSERT_TRUE(floating.ok()) << floating.error().message;
  EXPECT_FALSE(floating->has_value());
  // The topology's own errors come first; a hyperthreading trait replaces the empty policy.
  EXPECT_EQ(error_name(request(3, 2048, {{"hw:numa_nodes", "2"}, {"hw:cpu_thread_policy", ""}})),
            "ImageNUMATopologyAsymmetric");
  EXPECT_EQ(error_name(request(2, 2048, {{"hw:cpu_policy", "dedicated"}, {"hw:cpu_thread_policy", ""},
                                         {"trait:HW_CPU_HYPERTHREADING", "required"}})),
            "ok");
}

}  // namespace
}  // namespace numaplace
