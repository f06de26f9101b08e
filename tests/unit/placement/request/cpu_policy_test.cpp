// SPDX-License-Identifier: LGPL-2.1-or-later
// Nova's CPU policy keys and their companions, as derive_guest_topology applies them.
#include <gtest/gtest.h>

#include "support/topology_builders.h"

#include "placement/request/guest_topology.h"

namespace numaplace {
namespace {

GuestRequest request(std::uint32_t vcpus, SpecMap flavor, SpecMap image = {}) {
  return testing::request_of(vcpus, std::move(flavor), std::move(image));
}

std::string error_name(const GuestRequest& r) {
  auto topology = derive_guest_topology(r);
  return topology.ok() ? "ok" : topology.error().name;
}

GuestTopology topology(const GuestRequest& r) {
  auto t = derive_guest_topology(r);
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  EXPECT_TRUE(t.ok() && t->has_value());
  return t.ok() && t->has_value() ? **t : GuestTopology{};
}

TEST(CpuPolicy, DedicatedAloneMakesAOneCellPinnedTopology) {
  GuestTopology t = topology(request(4, {{"hw:cpu_policy", "dedicated"}}, {{"hw_cpu_policy", "shared"}}));
  ASSERT_EQ(t.cells.size(), 1u);
  EXPECT_EQ(t.cpu_policy, CpuPolicy::Dedicated);  // the flavor's dedicated wins over the image
  EXPECT_EQ(t.cells[0].dedicated_cpus, CpuSet::range(0, 3));
}

TEST(CpuPolicy, TheImageMayNotAskForMorePinningThanTheFlavor) {
  EXPECT_EQ(error_name(request(4, {{"hw:cpu_policy", "shared"}}, {{"hw_cpu_policy", "dedicated"}})),
            "ImageCPUPinningForbidden");
  EXPECT_EQ(error_name(request(4, {{"hw:cpu_policy", "mixed"}, {"hw:cpu_dedicated_mask", "0"}},
                               {{"hw_cpu_policy", "dedicated"}})),
            "ImageCPUPinningForbidden");
  EXPECT_EQ(error_name(request(4, {{"hw:cpu_policy", "DEDICATED"}})), "InvalidCPUAllocationPolicy");
  // An image enum that is not one is refused when the image is read, before any flavor check.
  EXPECT_EQ(error_name(request(4, {{"hw:cpu_policy", "bogus"}}, {{"hw_cpu_policy", "bogus"}})), "ValueError");
}

TEST(CpuPolicy, MixedSplitsEachCellByTheDedicatedMask) {
  GuestTopology t = topology(request(4, {{"hw:cpu_policy", "mixed"}, {"hw:cpu_dedicated_mask", "^0"},
                                         {"hw:numa_nodes", "2"}}));
  ASSERT_EQ(t.cells.size(), 2u);
  EXPECT_EQ(t.cells[0].dedicated_cpus, (CpuSet{1}));
  EXPECT_EQ(t.cells[0].shared_cpus(), (CpuSet{0}));
  EXPECT_EQ(t.cells[1].dedicated_cpus, (CpuSet{2, 3}));
  EXPECT_EQ(error_name(request(4, {{"hw:cpu_policy", "mixed"}})), "RequiredMixedOrRealtimeCPUMask");
  EXPECT_EQ(error_name(request(4, {{"hw:cpu_policy", "mixed"}, {"hw:cpu_dedicated_mask", "0-3"}})),
            "InvalidMixedInstanceDedicatedMask");
  EXPECT_EQ(error_name(request(4, {{"hw:cpu_policy", "mixed"}, {"hw:cpu_dedicated_mask", "0,7"}})),
            "InvalidMixedInstanceDedicatedMask");
  EXPECT_EQ(error_name(request(4, {{"hw:cpu_dedicated_mask", "0"}})), "RequiredMixedInstancePolicy");
}

TEST(CpuPolicy, RealtimeMaskIsTheDedicatedSetOfAMixedGuest) {
  GuestTopology t = topology(request(4, {{"hw:cpu_policy", "mixed"}, {"hw:cpu_realtime", "yes"},
                                         {"hw:cpu_realtime_mask", "^0-1"}}));
  EXPECT_EQ(t.cells[0].dedicated_cpus, (CpuSet{2, 3}));
  EXPECT_EQ(t.realtime_cpus, (CpuSet{2, 3}));
  EXPECT_EQ(error_name(request(4, {{"hw:cpu_realtime", "true"}})), "RealtimeMaskNotFoundOrInvalid");
  EXPECT_EQ(error_name(request(4, {{"hw:cpu_realtime", "true"}, {"hw:cpu_realtime_mask", "^0"}})),
            "RealtimeConfigurationInvalid");
  EXPECT_EQ(error_name(request(4, {{"hw:cpu_policy", "dedicated"}, {"hw:cpu_realtime", "true"},
                                   {"hw:cpu_realtime_mask", "^0"}})),
            "ok");
}

TEST(CpuPolicy, ThreadAndEmulatorPoliciesNeedPinning) {
  EXPECT_EQ(error_name(request(4, {{"hw:cpu_thread_policy", "isolate"}})), "CPUThreadPolicyConfigurationInvalid");
  EXPECT_EQ(error_name(request(4, {{"hw:emulator_threads_policy", "isolate"}})), "BadRequirementEmulatorThreadsPolicy");
  EXPECT_EQ(error_name(request(4, {{"hw:emulator_threads_policy", "spread"}})), "InvalidEmulatorThreadsPolicy");
  EXPECT_EQ(error_name(request(4, {{"hw:cpu_policy", "dedicated"}, {"hw:cpu_thread_policy", "isolate"}},
                               {{"hw_cpu_thread_policy", "require"}})),
            "ImageCPUThreadPolicyForbidden");
  GuestTopology t = topology(request(4, {{"hw:cpu_policy", "dedicated"}, {"hw:emulator_threads_policy", "isolate"}},
                                     {{"hw_cpu_thread_policy", "require"}}));
  EXPECT_EQ(t.thread_policy, ThreadPolicy::Require);
  EXPECT_EQ(t.emulator_threads_policy, EmulatorThreadsPolicy::Isolate);
}

TEST(CpuPolicy, PlacementResourcesAndTheHyperthreadingTrait) {
  GuestTopology t = topology(request(4, {{"resources:PCPU", "4"}, {"trait:HW_CPU_HYPERTHREADING", "forbidden"}}));
  EXPECT_EQ(t.cpu_policy, CpuPolicy::Dedicated);
  EXPECT_EQ(t.thread_policy, ThreadPolicy::Isolate);
  EXPECT_EQ(error_name(request(4, {{"resources:PCPU", "3"}})), "InvalidRequest");
  EXPECT_EQ(error_name(request(4, {{"resources:PCPU", "5"}, {"hw:emulator_threads_policy", "isolate"}})), "ok");
  EXPECT_EQ(error_name(request(4, {{"resources:VCPU", "4"}, {"resources:PCPU", "4"}})), "InvalidRequest");
  EXPECT_EQ(error_name(request(4, {{"hw:cpu_policy", "dedicated"}, {"resources:PCPU", "4"}})), "InvalidRequest");
  EXPECT_EQ(error_name(request(4, {{"hw:cpu_policy", "dedicated"}, {"hw:cpu_thread_policy", "prefer"},
                                   {"trait:HW_CPU_HYPERTHREADING", "required"}})),
            "InvalidRequest");
  // An amount that is not a whole number is refused by name (Nova's API refuses it; its fit would
  // skip the key and drop the dedicated policy the operator meant); Python's spellings of an int read.
  for (const char* amount : {"abc", "4.0", "", "0x4", "99999999999999999999"}) {
    const auto refused = derive_guest_topology(request(4, {{"resources:PCPU", amount}}));
    ASSERT_FALSE(refused.ok()) << amount;
    EXPECT_EQ(refused.error().name, "InvalidResourceAmount") << amount;
    EXPECT_NE(refused.error().message.find("resources:PCPU = '"), std::string::npos) << refused.error().message;
  }
  EXPECT_EQ(error_name(request(4, {{"resources1:VCPU", "four"}})), "InvalidResourceAmount");
  EXPECT_EQ(error_name(request(4, {{"resources:PCPU", " +4 "}})), "ok");
  EXPECT_EQ(error_name(request(4, {{"resources:PCPU", "2"}, {"resources1:PCPU", "2"}})), "ok");
  EXPECT_EQ(error_name(request(4, {{"resources:PCPU", "4611686018427387904"}, {"resources1:PCPU", "4611686018427387904"}})),
            "InvalidResourceAmount");
  // resources:VCPU makes the guest shared: no topology without other keys.
  auto shared = derive_guest_topology(request(4, {{"resources:VCPU", "4"}}));
  ASSERT_TRUE(shared.ok());
  EXPECT_FALSE(shared->has_value());
}

TEST(CpuPolicy, PageSizeLockedMemoryAndPciPolicy) {
  GuestTopology t = topology(request(4, {{"hw:mem_page_size", "2MB"}}));
  EXPECT_EQ(t.cells[0].pagesize, 2048);
  EXPECT_EQ(error_name(request(4, {{"hw:locked_memory", "true"}})), "LockMemoryForbidden");
  EXPECT_EQ(error_name(request(4, {{"hw:locked_memory", "true"}, {"hw:mem_page_size", "large"}})), "ok");
  EXPECT_EQ(error_name(request(4, {{"hw:numa_nodes", "1"}, {"hw:pci_numa_affinity_policy", "strict"}})),
            "InvalidPCINUMAAffinity");
  // The PCI policy is checked even when the guest needs no topology.
  EXPECT_EQ(error_name(request(4, {{"hw:pci_numa_affinity_policy", "required"}},
                               {{"hw_pci_numa_affinity_policy", "socket"}})),
            "ImagePCINUMAPolicyForbidden");
  // ... but after every NUMA constraint.
  EXPECT_EQ(error_name(request(4, {{"hw:numa_nodes", "3"}, {"hw:pci_numa_affinity_policy", "strict"}})),
            "ImageNUMATopologyAsymmetric");
  GuestRequest with_devices = request(4, {{"hw:numa_nodes", "1"}, {"hw:pci_numa_affinity_policy", "socket"}});
  with_devices.pci.push_back({2, "8086", "154d", "", "", {}});
  GuestTopology d = topology(with_devices);
  EXPECT_EQ(d.pci_numa_policy, PciNumaPolicy::Socket);
  ASSERT_EQ(d.pci_requests.size(), 1u);
  EXPECT_EQ(d.pci_requests[0].count, 2u);
}

TEST(CpuPolicy, EveryKeyNovaAcceptsIsKnownAndTyposAreNot) {
  for (const char* key : {"hw:cpu_policy", "hw:cpu_thread_policy", "hw:cpu_dedicated_mask", "hw:cpu_realtime",
                          "hw:cpu_realtime_mask", "hw:mem_page_size", "hw:emulator_threads_policy",
                          "hw:pci_numa_affinity_policy", "hw:locked_memory", "hw:cpu_sockets", "hw:mem_encryption"}) {
    auto r = derive_guest_topology(request(4, {{key, ""}}));
    ASSERT_TRUE(r.ok() || r.error().name != "UnknownSpecKey") << key;
  }
  EXPECT_EQ(error_name(request(4, {{"hw:cpu_polcy", "dedicated"}})), "UnknownSpecKey");
  EXPECT_EQ(error_name(request(4, {}, {{"hw_mem_pagesize", "2MB"}})), "UnknownSpecKey");
}

// A key of Nova's hw: namespace that Nova does not know (its API refuses it), or a known key with
// hyphens, would be dropped unread: UnknownSpecKey, naming the key meant when one is a slip away.
// hw: keys about other things than NUMA, and other namespaces, are taken.
TEST(CpuPolicy, AnUnknownHardwareKeyIsRefusedWithTheKeyMeant) {
  const std::vector<std::pair<std::string, std::string>> meant = {
      {"hw:cpu-policy", "'hw:cpu_policy'"},           {"hw:numa-cpus.1", "'hw:numa_cpus.1'"},
      {"hw:numanodes", "did you mean 'hw:numa_nodes'?"}, {"hw:cpupolicy", "did you mean 'hw:cpu_policy'?"},
      {"hw:watchdog-action", "'hw:watchdog_action'"}, {"hw:numa_cpu.0", "did you mean 'hw:numa_cpus.0'?"},
      {"hw:hugepages", "check its spelling"},         {"hw:pci_numa_affinity", "did you mean 'hw:pci_numa_affinity_policy'?"},         {"numaplace:mem_pagesize.2", "'numaplace:mem_page_size.2'"}};
  for (const auto& [key, message] : meant) {
    auto r = derive_guest_topology(request(4, {{key, "1"}}));
    ASSERT_FALSE(r.ok()) << key;
    EXPECT_EQ(r.error().name, "UnknownSpecKey") << key;
    EXPECT_NE(r.error().message.find(message), std::string::npos) << key << ": " << r.error().message;
  }
  EXPECT_EQ(error_name(request(4, {}, {{"hw_cpu-policy", "dedicated"}})), "UnknownSpecKey");
  for (const char* key : {"hw:watchdog_action", "hw:vif_multiqueue_enabled", "hw:pmu", "hw:max_cpu_sockets",
                          "hw_rng:allowed", "hw_video:ram_max_mb", "hw_disk_bus", "os:secure_boot"}) {
    auto r = derive_guest_topology(request(4, {{key, "1"}}));
    EXPECT_TRUE(r.ok() || r.error().name != "UnknownSpecKey") << key << ": " << r.error().message;
  }
}

// Nova reads its keys as written: capitals or blanks make another key, which Nova ignores, so the
// guest would lose what the operator asked for. Keys of other namespaces keep their capitals.
TEST(CpuPolicy, AKnownKeyWithCapitalsOrBlanksIsATypo) {
  for (const char* key : {"HW:numa_nodes", "hw:NUMA_NODES", " hw:numa_nodes", "hw:numa_nodes\t", "Hw:cpu_policy",
                          "hw:Numa_cpus.0", "hw:CPU_POLCY"}) {
    EXPECT_EQ(error_name(request(4, {{key, "1"}})), "UnknownSpecKey") << key;
  }
  EXPECT_EQ(error_name(request(4, {}, {{"HW_NUMA_NODES", "1"}})), "UnknownSpecKey");
  for (const char* key : {"resources:PCPU", "trait:HW_CPU_HYPERTHREADING", "quota:CPU_shares", "HW:video_ram"}) {
    auto r = derive_guest_topology(request(4, {{key, "4"}}));
    EXPECT_TRUE(r.ok() || r.error().name != "UnknownSpecKey") << key << ": " << r.error().message;
  }
}

}  // namespace
}  // namespace numaplace
