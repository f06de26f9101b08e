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

std::string trim_spaces(std::string text) {
  while (!text.empty() && text.front() == ' ') text.erase(text.begin());
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
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
  // The error says what each map covers, in the form it was given in.
  auto past = derive_guest_topology(request(4, 2048, {{"hw:numa_nodes", "2"}, {"hw:numa_cpus.0", "0-1"},
                                                      {"hw:numa_cpus.1", "2-3"}, {"hw:numa_mem.0", "1024"},
                                                      {"hw:numa_mem.1", "1024"}, {"hw:numa_mem.2", "0"}}));
  ASSERT_FALSE(past);
  EXPECT_EQ(past.error().name, "ImageNUMATopologyIncomplete");
  EXPECT_NE(past.error().message.find("gives hw:numa_cpus.N for nodes 0-1 and hw:numa_mem.N for nodes 0-2, and the "
                                      "guest has 2 nodes; give both maps for every N from 0 to 1 and no N past it"),
            std::string::npos) << past.error().message;
  auto no_mem = derive_guest_topology(
      request(4, 2048, {}, {{"hw_numa_nodes", "2"}, {"hw_numa_cpus.0", "0-1"}, {"hw_numa_cpus.1", "2-3"}}));
  ASSERT_FALSE(no_mem);
  EXPECT_NE(no_mem.error().message.find("gives hw_numa_cpus.N for nodes 0-1 and no hw_numa_mem.N"), std::string::npos)
      << no_mem.error().message;
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

// int() reads a number of any size, so a node's memory too large for 64 bits is a size no host has,
// refused where Nova refuses it (adding up the nodes' memory, after the CPU map's checks), in flavor
// and image alike; Python's digit underscores read as the number.
TEST(GuestTopology, ANodesMemoryTooLargeFor64BitsIsOutOfRangeInNovasOrder) {
  const SpecMap cpus{{"hw:numa_nodes", "2"}, {"hw:numa_cpus.0", "0"}, {"hw:numa_cpus.1", "1"}};
  for (const char* huge : {"99999999999999999999", " -99999999999999999999 ", "1099511627777"}) {
    SpecMap flavor = cpus;
    flavor["hw:numa_mem.0"] = huge;
    flavor["hw:numa_mem.1"] = "1024";
    auto topology = derive_guest_topology(request(2, 2048, flavor));
    ASSERT_FALSE(topology.ok()) << huge;
    EXPECT_EQ(topology.error().name, "ImageNUMATopologyMemoryOutOfRange") << huge;
    EXPECT_NE(topology.error().message.find(std::string("hw:numa_mem.0 = ") + trim_spaces(huge)), std::string::npos)
        << topology.error().message;
    flavor["hw:numa_cpus.1"] = "2";  // now the CPU map is wrong too: Nova finds that first
    EXPECT_EQ(error_name(request(2, 2048, flavor)), "ImageNUMATopologyCPUOutOfRange") << huge;
  }
  auto from_image = derive_guest_topology(request(2, 2048, {}, {{"hw_numa_nodes", "2"}, {"hw_numa_cpus.0", "0"},
      {"hw_numa_cpus.1", "1"}, {"hw_numa_mem.0", "99999999999999999999"}, {"hw_numa_mem.1", "1024"}}));
  ASSERT_FALSE(from_image.ok());
  EXPECT_EQ(from_image.error().name, "ImageNUMATopologyMemoryOutOfRange");
  EXPECT_NE(from_image.error().message.find("hw_numa_mem.0 = 99999999999999999999"), std::string::npos);
  SpecMap underscores = cpus;
  underscores["hw:numa_mem.0"] = "1_024";
  underscores["hw:numa_mem.1"] = "1_0_24";
  auto read = derive_guest_topology(request(2, 2048, underscores));
  ASSERT_TRUE(read.ok() && read->has_value()) << (read.ok() ? "" : read.error().message);
  EXPECT_EQ((**read).cells[0].memory_kib, 1024u * 1024);
  for (const char* junk : {"1__024", "_1024", "1024_", "1,024"}) {
    underscores["hw:numa_mem.0"] = junk;
    EXPECT_EQ(error_name(request(2, 2048, underscores)), "ValueError") << junk;
  }
}

// Nova reads hw:numa_cpus.N / hw:numa_mem.N only below the node count and only from N = 0; the rest
// it ignores without a word, and numaplace names each such key.
TEST(GuestTopology, CellMapKeysNovaDoesNotReadAreNamed) {
  GuestRequest r = request(2, 2048, {{"hw:numa_nodes", "1"}, {"hw:numa_cpus.0", "0-1"}, {"hw:numa_mem.0", "2048"},
                                     {"hw:numa_cpus.3", "0"}, {"hw:numa_mem.1", "5"}, {"hw:numa_memory.0", "1"}},
                           {{"hw_numa_cpus.1", "0"}});
  auto unread = unread_numa_keys(r, 1);
  ASSERT_EQ(unread.size(), 3u);
  EXPECT_EQ(unread[0].rfind("hw:numa_cpus.3 is not read: the guest has 1 NUMA node", 0), 0u) << unread[0];
  EXPECT_EQ(unread[1].rfind("hw:numa_mem.1 is not read", 0), 0u) << unread[1];
  EXPECT_EQ(unread[2].rfind("hw_numa_cpus.1 is not read: the guest has 1 NUMA node", 0), 0u) << unread[2];
  const SpecMap two{{"hw:numa_nodes", "2"}, {"hw:numa_cpus.0", "0"}, {"hw:numa_cpus.1", "1"}};
  EXPECT_TRUE(unread_numa_keys(request(2, 2048, two), 2).empty());
  auto gap = unread_numa_keys(request(2, 2048, two, {{"hw_numa_mem.1", "1024"}}), 2);
  ASSERT_EQ(gap.size(), 1u);
  EXPECT_EQ(gap[0], "hw_numa_mem.1 is not read: without hw_numa_mem.0 Nova reads no hw_numa_mem map");
  auto none = unread_numa_keys(request(2, 2048, {{"hw:numa_cpus.0", "0-1"}}), 0);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_NE(none[0].find("no NUMA topology"), std::string::npos);
  EXPECT_EQ(unread_numa_keys(request(2, 2048, {{"hw:numa_cpus.99999999999999999999", "0"}}), 2).size(), 1u);
}

// A node count written plainly is a count however many digits it has (Python's int has no bound):
// one beyond 64 bits is more cells than any host has, not "no number greater than 0"; a count not
// written plainly is Nova's InvalidNUMANodesNumber either way.
TEST(GuestTopology, ANodeCountBeyond64BitsIsTooManyCellsNotNoNumber) {
  for (const char* count : {"99999999999999999999", "4294967298"}) {
    auto r = derive_guest_topology(request(8, 4096, {{"hw:numa_nodes", count}}));
    ASSERT_FALSE(r.ok()) << count;
    EXPECT_EQ(r.error().name, "InvalidNUMANodesNumber");
    EXPECT_NE(r.error().message.find(std::string(count) + "; no host has that many NUMA cells"), std::string::npos)
        << r.error().message;
  }
  for (const char* count : {"099999999999999999999", "-99999999999999999999", "0", "-0", "02", "+2", " 2", "2_0"}) {
    auto r = derive_guest_topology(request(8, 4096, {{"hw:numa_nodes", count}}));
    ASSERT_FALSE(r.ok()) << count;
    EXPECT_NE(r.error().message.find("It must be a number greater than 0"), std::string::npos)
        << count << ": " << r.error().message;
  }
}

// Nova's API takes the CPU limits as hw:max_cpu_*, but Nova's fit reads hw:cpu_max_*: the first is
// named as not read, the second is read and not named.
TEST(GuestTopology, TheCpuLimitsAsNovasApiSpellsThemAreNamedAsNotRead) {
  auto unread = unread_numa_keys(request(4, 4096, {{"hw:max_cpu_sockets", "2"}, {"hw:cpu_max_cores", "2"}}), 0);
  ASSERT_EQ(unread.size(), 1u);
  EXPECT_EQ(unread[0], "hw:max_cpu_sockets is not read: Nova's API takes it, but Nova reads the limit from "
                       "hw:cpu_max_sockets; Nova ignores it too");
}

// A known key written in the other map's form is read by neither Nova nor numaplace: hw_numa_nodes
// among a flavor's extra specs, hw:numa_nodes among an image's properties. Each is named with the
// form its map takes; the same keys in their own maps are read and not named.
TEST(GuestTopology, KeysInTheOtherMapsFormAreNamed) {
  const GuestRequest crossed = request(4, 4096, {{"hw_numa_nodes", "2"}, {"hw:cpu_policy", "dedicated"}},
                                       {{"hw:numa_nodes", "2"}, {"hw:cpu_thread_policy", "isolate"}, {"hw_cpu_policy", "dedicated"}});
  auto derived = derive_guest_topology(crossed);
  ASSERT_TRUE(derived.ok()) << derived.error().message;
  ASSERT_TRUE(derived->has_value());
  EXPECT_EQ((**derived).cells.size(), 1u) << "neither crossed hw_numa_nodes nor hw:numa_nodes is read";
  auto unread = unread_numa_keys(crossed, 1);
  ASSERT_EQ(unread.size(), 3u);
  EXPECT_EQ(unread[0], "hw_numa_nodes is not read: a flavor extra spec is written hw:numa_nodes; Nova ignores it too");
  EXPECT_EQ(unread[1].rfind("hw:cpu_thread_policy is not read: an image property is written hw_cpu_thread_policy", 0), 0u)
      << unread[1];
  EXPECT_EQ(unread[2].rfind("hw:numa_nodes is not read: an image property is written hw_numa_nodes", 0), 0u) << unread[2];
  EXPECT_TRUE(unread_numa_keys(request(4, 4096, {{"hw:numa_nodes", "2"}}, {{"hw_cpu_policy", "dedicated"}}), 2).empty());
}

// Values Nova reads as nothing: a page size of 0 (derived as no request: no topology from it) and a
// realtime mask without hw:cpu_realtime on the flavor. Each is named; a page size Nova reads, or a
// mask with realtime on, is not.
TEST(GuestTopology, ValuesNovaReadsAsNothingAreNamed) {
  for (const char* zero : {"0", "00", "0KB", "0MB"}) {
    const GuestRequest r = request(2, 2048, {{"hw:mem_page_size", zero}});
    auto derived = derive_guest_topology(r);
    ASSERT_TRUE(derived.ok()) << zero;
    EXPECT_FALSE(derived->has_value()) << zero << ": Nova derives no topology from a page size of 0";
    auto unread = unread_numa_keys(r, 0);
    ASSERT_EQ(unread.size(), 1u) << zero;
    EXPECT_EQ(unread[0].rfind(std::string("hw:mem_page_size=") + zero + " is not read: a page size of 0", 0), 0u)
        << unread[0];
  }
  for (const char* size : {"small", "2048", "1GB", "any"}) {
    EXPECT_TRUE(unread_numa_keys(request(2, 2048, {{"hw:mem_page_size", size}}, {{"hw_mem_page_size", size}}), 1).empty())
        << size;
  }
  auto image_zero = unread_numa_keys(request(2, 2048, {{"hw:mem_page_size", "any"}}, {{"hw_mem_page_size", "0"}}), 1);
  ASSERT_EQ(image_zero.size(), 1u);
  EXPECT_EQ(image_zero[0].rfind("hw_mem_page_size=0 is not read", 0), 0u) << image_zero[0];

  for (const SpecMap& flavor : {SpecMap{{"hw:cpu_realtime_mask", "^0"}},
                                SpecMap{{"hw:cpu_realtime", "no"}, {"hw:cpu_realtime_mask", "^0"}}}) {
    auto unread = unread_numa_keys(request(2, 2048, flavor), 0);
    ASSERT_EQ(unread.size(), 1u);
    EXPECT_EQ(unread[0].rfind("hw:cpu_realtime_mask is not read: without hw:cpu_realtime=yes", 0), 0u) << unread[0];
  }
  auto image_mask = unread_numa_keys(request(2, 2048, {}, {{"hw_cpu_realtime_mask", "^0"}}), 0);
  ASSERT_EQ(image_mask.size(), 1u);
  EXPECT_EQ(image_mask[0].rfind("hw_cpu_realtime_mask is not read", 0), 0u) << image_mask[0];
  EXPECT_TRUE(unread_numa_keys(request(2, 2048, {{"hw:cpu_realtime", "yes"}, {"hw:cpu_realtime_mask", "^0"}},
                                       {{"hw_cpu_realtime_mask", "^1"}}),
                               1)
                  .empty());
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
