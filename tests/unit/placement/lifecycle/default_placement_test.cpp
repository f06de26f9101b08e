// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/lifecycle/default_placement.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "plugin/service/place_domain.h"
#include "support/test_paths.h"
#include "support/topology_builders.h"
#include "xml/capabilities_reader.h"
#include "xml/xml_document.h"

namespace numaplace {
namespace {

using numaplace::testing::shared_path;

// caps-2cell: two cells of 16 CPUs and 32 GiB each; ratios 16 (CPU) and 1.5 (RAM).
HostTopology two_cells_with_a_nic_on_cell_1() {
  auto text = xml::read_text_file(shared_path("samples/libvirt/caps-2cell.xml"), "caps");
  HostTopology host = *xml::read_capabilities(*text);
  PciDevice nic;
  nic.address = "0000:3b:00.0";
  nic.numa_node = 1;
  nic.vendor_id = "8086";
  nic.product_id = "154d";
  host.pci.push_back(nic);
  return host;
}

FloatingGuest guest(std::uint32_t vcpus, std::uint64_t memory_gib, bool with_nic) {
  FloatingGuest g;
  g.vcpus = vcpus;
  g.memory_kib = memory_gib * 1024 * 1024;
  if (with_nic) g.pci_device_nodes.push_back(1);
  return g;
}

TEST(DefaultPlacement, AGuestWithoutDevicesGetsTheNarrowestMaskThatHoldsIt) {
  auto placed = place_floating_guest(two_cells_with_a_nic_on_cell_1(), guest(4, 8, false), {});
  ASSERT_TRUE(placed.ok()) << placed.error().message;
  ASSERT_TRUE(placed->cells.has_value());
  // Both single cells hold it; the merge takes the lower mask.
  EXPECT_EQ(placed->cells->to_nodeset(), "0");
  EXPECT_EQ(to_cpu_list(placed->cpus), "0-7,16-23");
  EXPECT_TRUE(placed->preferred);
}

TEST(DefaultPlacement, APciDeviceOnCellOnePullsTheGuestThere) {
  auto placed = place_floating_guest(two_cells_with_a_nic_on_cell_1(), guest(4, 8, true), {}, {"0000:3b:00.0"});
  ASSERT_TRUE(placed.ok()) << placed.error().message;
  EXPECT_EQ(placed->cells->to_nodeset(), "1");
  EXPECT_EQ(to_cpu_list(placed->cpus), "8-15,24-31");
  ASSERT_EQ(placed->resources.size(), 3u);
  EXPECT_EQ(placed->resources[2].resource, "pci:0000:3b:00.0");
}

// 40 GiB is more than one cell's 26 GiB of small pages (its 32 GiB less its huge pages; the RAM
// ratio never makes a cell larger for a strict binding): memory prefers no single cell.
TEST(DefaultPlacement, WhenTheDeviceCellCannotHoldItBestEffortSpansAndTheStrictPoliciesRefuse) {
  HostTopology host = two_cells_with_a_nic_on_cell_1();
  auto best_effort = place_floating_guest(host, guest(4, 40, true), {});
  ASSERT_TRUE(best_effort.ok()) << best_effort.error().message;
  EXPECT_EQ(best_effort->cells->nodes(), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_FALSE(best_effort->preferred);

  // Memory alone needs both cells, which is its narrowest (so preferred) mask; the device prefers cell 1.
  // The merged mask 0-1 is not preferred by the device: restricted refuses.
  for (auto policy : {TopologyPolicy::Restricted, TopologyPolicy::SingleNumaNode}) {
    DefaultPlacementOptions options;
    options.policy = policy;
    auto refused = place_floating_guest(host, guest(4, 40, true), options);
    ASSERT_FALSE(refused.ok()) << topology_policy_name(policy);
    EXPECT_EQ(refused.error().name, "PolicyRefused");
    EXPECT_NE(refused.error().message.find(std::string(topology_policy_name(policy))), std::string::npos);
  }
}

TEST(DefaultPlacement, UsageOnACellCountsAgainstIt) {
  HostTopology host = two_cells_with_a_nic_on_cell_1();
  host.cells[0].usage.memory_kib = 40ull * 1024 * 1024;  // 8 GiB left under the ratio
  auto placed = place_floating_guest(host, guest(2, 16, false), {});
  ASSERT_TRUE(placed.ok());
  EXPECT_EQ(placed->cells->to_nodeset(), "1");
}

TEST(DefaultPlacement, PolicyNoneLeavesTheGuestUnconfined) {
  HostTopology host = two_cells_with_a_nic_on_cell_1();
  auto text = xml::read_text_file(numaplace::testing::source_path("examples/guest-8vcpu-4g.xml"), "guest");
  plugin::PlaceRequest request;
  request.domain_xml = *text;
  request.floating.policy = TopologyPolicy::None;
  auto outcome = plugin::place_domain(host, request);
  ASSERT_TRUE(outcome.ok());
  EXPECT_FALSE(outcome->confinement.has_value());
  auto doc = xml::parse_document(outcome->domain_xml, "output");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(xml::first_child(xmlDocGetRootElement(doc->get()), "numatune"), nullptr);
}

TEST(DefaultPlacement, HostdevOfTheDomainIsLocatedOnTheHost) {
  HostTopology host = two_cells_with_a_nic_on_cell_1();
  plugin::PlaceRequest request;
  request.domain_xml =
      "<domain type='kvm'><name>nic</name><memory unit='GiB'>4</memory><vcpu>2</vcpu><devices>"
      "<hostdev mode='subsystem' type='pci' managed='yes'><source>"
      "<address domain='0x0000' bus='0x3b' slot='0x00' function='0x0'/></source></hostdev>"
      "<hostdev mode='subsystem' type='pci' managed='yes'><source>"
      "<address domain='0x0000' bus='0x99' slot='0x00' function='0x0'/></source></hostdev>"
      "</devices></domain>";
  auto outcome = plugin::place_domain(host, request);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_TRUE(outcome->confinement && outcome->confinement->cells);
  EXPECT_EQ(outcome->confinement->cells->to_nodeset(), "1");
  EXPECT_NE(outcome->domain_xml.find("<memory mode=\"strict\" nodeset=\"1\"/>"), std::string::npos);
  EXPECT_NE(outcome->domain_xml.find("cpuset=\"8-15,24-31\""), std::string::npos);
  // The device the host does not have is reported, not silently dropped.
  ASSERT_EQ(outcome->warnings.size(), 1u);
  EXPECT_NE(outcome->warnings[0].find("0000:99:00.0"), std::string::npos);

  // With a NUMA topology and the required policy, the guest cell must sit with its device.
  request.flavor_specs = {{"hw:numa_nodes", "1"}, {"hw:pci_numa_affinity_policy", "required"}};
  auto numa = plugin::place_domain(host, request);
  ASSERT_TRUE(numa.ok()) << numa.error().message;
  ASSERT_TRUE(numa->placement.has_value());
  EXPECT_EQ(numa->placement->cells[0].host_cell, 1u);
}


// `cpu_cells` cells of `threads` CPUs and `memory_only` cells without CPUs, `memory_gib` each;
// cells of one group of `group` at distance 12, others 32 (memory-only cells form their own group).
HostTopology host_with_memory_nodes(std::uint32_t cpu_cells, std::uint32_t threads, std::uint32_t memory_only,
                                    std::uint64_t memory_gib, std::uint32_t group = 8) {
  HostTopology host;
  const std::uint32_t n = cpu_cells + memory_only;
  for (std::uint32_t i = 0; i < n; ++i) {
    const CpuSet cpus = i < cpu_cells ? CpuSet::range(i * threads, (i + 1) * threads - 1) : CpuSet{};
    HostCell cell = testing::flat_cell(i, cpus, memory_gib * testing::kGiBInKiB);
    for (std::uint32_t j = 0; j < n; ++j) {
      const bool near = (i < cpu_cells && j < cpu_cells && i / group == j / group) || (i >= cpu_cells && j >= cpu_cells);
      cell.distances.push_back(i == j ? 10 : near ? 12 : 32);
    }
    host.cells.push_back(cell);
  }
  return host;
}

// A GB200-like host: 2 cells of 72 CPUs and 32 memory-only cells (GPU and CXL memory). A guest of
// 96 vCPUs without NUMA keys is confined to the two CPU cells, never to memory-only nodes.
TEST(DefaultPlacement, MemoryOnlyNodesAreNeverChosenForAGuestWithoutNumaKeys) {
  const HostTopology host = host_with_memory_nodes(2, 72, 32, 480);
  auto placed = place_floating_guest(host, guest(96, 64, false), {});
  ASSERT_TRUE(placed.ok()) << placed.error().message;
  ASSERT_TRUE(placed->cells.has_value());
  EXPECT_EQ(placed->cells->to_nodeset(), "0,1");
}

// Property: on random hosts with memory-only nodes (up to 56 cells), a guest without NUMA keys is
// never bound to one, and its mask holds its vCPUs' CPUs and its memory.
TEST(DefaultPlacementProperty, NoGuestWithoutNumaKeysLandsOnAMemoryOnlyNode) {
  std::mt19937 rng(4242);
  int placed_count = 0;
  for (int round = 0; round < 300; ++round) {
    // Up to 8 CPU cells every subset is a mask, above that masks grow from the closest cells.
    const std::uint32_t cpu_cells = 1 + rng() % 40;
    const std::uint32_t memory_only = rng() % 16, threads = 2 + rng() % 8;
    const HostTopology host = host_with_memory_nodes(cpu_cells, threads, memory_only, 1 + rng() % 64, 1 + rng() % 8);
    const FloatingGuest g = guest(1 + rng() % (cpu_cells * threads), 1 + rng() % 32, false);
    auto placed = place_floating_guest(host, g, {});
    if (!placed.ok() || !placed->cells) continue;
    ++placed_count;
    std::uint64_t cpus = 0, memory = 0;
    for (std::uint32_t id = 0; id < cpu_cells + memory_only; ++id) {
      if (!placed->cells->contains(id)) continue;
      ASSERT_LT(id, cpu_cells) << "round " << round << ": bound to memory-only node " << id << " of "
                               << placed->cells->to_nodeset();
      cpus += threads;
      memory += host.cells[id].memory_kib;
    }
    ASSERT_GE(cpus, g.vcpus) << "round " << round;
    ASSERT_GE(memory, g.memory_kib) << "round " << round;
  }
  EXPECT_GT(placed_count, 200);
}

// Above 8 cells the masks still grow cell by cell from the closest: on 64 cells of 16 CPUs a
// 96-vCPU guest gets 6 cells, all within one group at distance 12, not the whole host.
TEST(DefaultPlacement, OnSixtyFourCellsTheNarrowestMaskOfCloseCellsWins) {
  const HostTopology host = host_with_memory_nodes(64, 16, 0, 64);
  auto placed = place_floating_guest(host, guest(96, 16, false), {});
  ASSERT_TRUE(placed.ok()) << placed.error().message;
  ASSERT_TRUE(placed->cells.has_value());
  EXPECT_EQ(placed->cells->count(), 6);
  for (std::uint32_t a = 0; a < 64; ++a) {
    for (std::uint32_t b = 0; b < 64; ++b) {
      if (placed->cells->contains(a) && placed->cells->contains(b)) {
        EXPECT_LE(host.cells[a].distances[b], 12u);
      }
    }
  }
}


// Sub-NUMA clustering: 2 sockets of 2 small cells (distance 12 within a socket, 32 across). A guest
// that fits no single cell, with cell 0's memory nearly all taken, gets the cells of one socket
// (2,3), not the lowest-numbered pair (1,2) across sockets the kubelet's order would take.
TEST(DefaultPlacement, AGuestTooBigForOneSmallNodeGetsTheCellsOfOneSocket) {
  HostTopology host = host_with_memory_nodes(4, 8, 0, 16, 2);
  host.cells[0].usage.memory_kib = 14 * testing::kGiBInKiB;
  auto placed = place_floating_guest(host, guest(12, 20, false), {});
  ASSERT_TRUE(placed.ok()) << placed.error().message;
  ASSERT_TRUE(placed->cells.has_value());
  EXPECT_EQ(placed->cells->to_nodeset(), "2,3") << placed->reason;
  EXPECT_NE(placed->reason.find("closest"), std::string::npos) << placed->reason;
  DefaultPlacementOptions kubelet;
  kubelet.prefer_closest_numa_nodes = false;
  auto lowest = place_floating_guest(host, guest(12, 20, false), kubelet);
  ASSERT_TRUE(lowest.ok() && lowest->cells.has_value());
  EXPECT_EQ(lowest->cells->to_nodeset(), "1,2");
}

}  // namespace
}  // namespace numaplace

namespace numaplace {
namespace {

// Property: on random used hosts of 1 to 6 cells (pCPUs pinned by dedicated guests, floating load
// up to beyond the CPU ratio, memory in use) a guest without NUMA keys is placed, under any policy,
// only on cells that hold it whole: its vCPUs within what the CPU ratio leaves on them (and no
// more vCPUs than their floating pCPUs when the host has that many), its memory within their free
// memory. best-effort refuses it only when the whole host cannot hold it (room adds up over
// cells, so then no set of cells can), and then says which: vCPUs or memory. The room is worked
// out here from the drawn host alone.
TEST(DefaultPlacementProperty, AConfinedGuestsCellsHoldItsVcpusAndMemory) {
  std::mt19937 rng(9071);
  std::map<std::string, int> outcomes;
  for (int round = 0; round < 3000; ++round) {
    HostTopology host;
    const std::uint32_t cells = 1 + rng() % 6, threads = 1 + rng() % 6;
    struct Room { double pcpus = 0, load = 0, memory_kib = 0; };
    std::vector<Room> room(cells);
    for (std::uint32_t i = 0; i < cells; ++i) {
      HostCell cell = testing::flat_cell(i, CpuSet::range(i * threads, (i + 1) * threads - 1), (1 + rng() % 8) * testing::kGiBInKiB);
      std::uint32_t pinned = 0;
      for (std::uint32_t c = i * threads; c < (i + 1) * threads; ++c) {
        if (rng() % 3 == 0) {
          cell.usage.pinned_cpus.insert(c);
          ++pinned;
        }
      }
      cell.usage.shared_cpus = static_cast<double>(rng() % (threads * 20 + 1));
      cell.usage.memory_kib = rng() % (cell.memory_kib + 1);
      room[i].pcpus = threads - pinned;
      room[i].load = std::max(0.0, room[i].pcpus * 16.0 - cell.usage.shared_cpus);
      room[i].memory_kib = static_cast<double>(std::min(cell.memory_kib - cell.usage.memory_kib,
                                                        static_cast<std::uint64_t>(1.5 * cell.memory_kib) - cell.usage.memory_kib));
      host.cells.push_back(cell);
    }
    FloatingGuest g;
    g.vcpus = 1 + rng() % (cells * threads + 2);
    g.memory_kib = (1 + rng() % 16) * 512 * 1024;
    const TopologyPolicy policies[] = {TopologyPolicy::BestEffort, TopologyPolicy::Restricted, TopologyPolicy::SingleNumaNode};
    DefaultPlacementOptions options;
    options.policy = policies[rng() % 3];
    Room whole;
    for (const auto& r : room) {
      whole.pcpus += r.pcpus;
      whole.load += r.load;
      whole.memory_kib += r.memory_kib;
    }
    const bool cpus_fit = whole.load >= g.vcpus;
    const bool memory_fits = whole.memory_kib >= static_cast<double>(g.memory_kib);
    auto placed = place_floating_guest(host, g, options);
    const std::string context = "round " + std::to_string(round) + " policy " + std::string(topology_policy_name(options.policy));
    if (!placed.ok()) {
      ++outcomes[placed.error().name];
      if (placed.error().name == "PolicyRefused") {
        EXPECT_NE(options.policy, TopologyPolicy::BestEffort) << context;
        continue;
      }
      ASSERT_EQ(placed.error().name, "NoFit") << context << ": " << placed.error().message;
      EXPECT_FALSE(cpus_fit && memory_fits) << context << ": refused what the whole host holds: " << placed.error().message;
      const std::string said = placed.error().message.substr(0, 7);
      EXPECT_TRUE(memory_fits ? said == "vCPUs: " : said == "memory:") << context << ": " << placed.error().message;
      continue;
    }
    ++outcomes["placed"];
    EXPECT_TRUE(cpus_fit && memory_fits) << context;
    // Not confined (a host of one cell under single-numa-node): the guest has the whole host.
    const std::string where = " cells " + (placed->cells ? placed->cells->to_nodeset() : std::string("all"));
    Room chosen;
    for (std::uint32_t i = 0; i < cells; ++i) {
      if (placed->cells && !placed->cells->contains(i)) continue;
      chosen.pcpus += room[i].pcpus;
      chosen.load += room[i].load;
      chosen.memory_kib += room[i].memory_kib;
    }
    if (whole.pcpus >= g.vcpus) {
      EXPECT_GE(chosen.pcpus, g.vcpus) << context << where;
    }
    EXPECT_GE(chosen.load, g.vcpus) << context << where;
    EXPECT_GE(chosen.memory_kib, static_cast<double>(g.memory_kib)) << context << where;
  }
  // Every outcome is reached often.
  EXPECT_GT(outcomes["placed"], 400) << outcomes["placed"];
  EXPECT_GT(outcomes["NoFit"], 300) << outcomes["NoFit"];
  EXPECT_GT(outcomes["PolicyRefused"], 100) << outcomes["PolicyRefused"];
}

}  // namespace
}  // namespace numaplace

namespace numaplace {
namespace {

// best-effort confines a guest to cells its operator's pins reach, each: vCPU 0 pinned within cell
// 0 and vCPU 1 within cell 1 get both cells, though cell 0 alone holds the vCPUs and memory (the
// merged mask {0} would leave vCPU 1's pin outside, and the placement refuse it).
TEST(DefaultPlacement, BestEffortKeepsACellForEveryPinnedVcpu) {
  HostTopology host;
  host.cells.push_back(testing::flat_cell(0, CpuSet::range(0, 7), 8 * testing::kGiBInKiB));
  host.cells.push_back(testing::flat_cell(1, CpuSet::range(8, 15), 8 * testing::kGiBInKiB));
  FloatingGuest g;
  g.vcpus = 2;
  g.memory_kib = testing::kGiBInKiB;
  g.pinned_vcpu_cells = {{"<vcpupin vcpu='0'>", CpuSet{0}}, {"<vcpupin vcpu='1'>", CpuSet{1}}};
  auto placed = place_floating_guest(host, g, {});
  ASSERT_TRUE(placed.ok()) << placed.error().message;
  ASSERT_TRUE(placed->cells.has_value());
  EXPECT_EQ(placed->cells->to_nodeset(), "0,1") << placed->reason;
}

}  // namespace
}  // namespace numaplace
