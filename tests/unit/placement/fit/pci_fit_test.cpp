// SPDX-License-Identifier: LGPL-2.1-or-later
// PCI requests in the fit: Nova's policies, the host-cell order by free devices, and
// the fast ordered search against a brute-force walk over every permutation.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "placement/fit/fit.h"
#include "placement/fit/pci_pools.h"
#include "support/topology_builders.h"

namespace numaplace {
namespace {

HostCell make_cell(std::uint32_t id, std::uint32_t cpus, std::uint64_t memory_mib, std::uint32_t socket) {
  HostCell cell = testing::flat_cell(id, CpuSet::range(id * 16, id * 16 + cpus - 1), memory_mib * testing::kMiBInKiB);
  cell.socket = socket;
  return cell;
}

PciDevice device(std::optional<std::uint32_t> node, const char* vendor, const char* product, bool allocated) {
  PciDevice d;
  d.address = "0000:00:00.0";
  d.numa_node = node;
  d.vendor_id = vendor;
  d.product_id = product;
  d.allocated = allocated;
  return d;
}

PciDevice nic(std::optional<std::uint32_t> node, bool allocated = false) {
  return device(node, "8086", "154d", allocated);
}

GuestTopology one_cell_guest(PciNumaPolicy policy, std::uint32_t count) {
  GuestTopology guest;
  GuestCell cell;
  cell.cpus = CpuSet{0, 1};
  cell.memory_kib = 1024 * 1024;
  guest.cells.push_back(cell);
  guest.pci_numa_policy = policy;
  guest.pci_requests.push_back({count, "8086", "154D", "", "", {}});  // ids compare without case
  return guest;
}

// Four cells on two sockets (0,1 | 2,3); the NIC is on cell 3; cell 3 is full.
HostTopology host_with_nic_on_a_full_cell() {
  HostTopology host;
  for (std::uint32_t i = 0; i < 4; ++i) host.cells.push_back(make_cell(i, 4, 4096, i / 2));
  host.cells[3].usage.memory_kib = 6144 * 1024;
  host.pci.push_back(nic(3));
  return host;
}

std::optional<std::uint32_t> placed_on(const FitResult& r) {
  if (!r.placement) return std::nullopt;
  return r.placement->cells[0].host_cell;
}

TEST(PciFit, PoliciesDecideWhichDevicesCount) {
  HostTopology host = host_with_nic_on_a_full_cell();
  FitResult required = fit_guest(host, one_cell_guest(PciNumaPolicy::Required, 1));
  EXPECT_FALSE(required.placement.has_value());
  EXPECT_NE(required.summary.find("1 x 8086:154D (policy required)"), std::string::npos) << required.summary;
  EXPECT_FALSE(fit_guest(host, one_cell_guest(PciNumaPolicy::Legacy, 1)).placement.has_value());
  EXPECT_FALSE(fit_guest(host, one_cell_guest(PciNumaPolicy::Unset, 1)).placement.has_value());
  // preferred: any device will do when no local one is left.
  EXPECT_TRUE(fit_guest(host, one_cell_guest(PciNumaPolicy::Preferred, 1)).placement.has_value());
  // socket: a cell of socket 1 (cell 2) reaches the NIC on cell 3.
  EXPECT_EQ(placed_on(fit_guest(host, one_cell_guest(PciNumaPolicy::Socket, 1))), 2u);
  // legacy also takes devices without a NUMA node.
  host.pci.push_back(nic(std::nullopt));
  EXPECT_TRUE(fit_guest(host, one_cell_guest(PciNumaPolicy::Legacy, 1)).placement.has_value());
  EXPECT_FALSE(fit_guest(host, one_cell_guest(PciNumaPolicy::Required, 1)).placement.has_value());
  // Allocated devices never count; more devices than the host has free fail at once.
  host.pci.push_back(nic(0, true));
  FitResult too_many = fit_guest(host, one_cell_guest(PciNumaPolicy::Preferred, 3));
  EXPECT_FALSE(too_many.placement.has_value());
  EXPECT_NE(too_many.summary.find("has 2 such free devices"), std::string::npos) << too_many.summary;
}

TEST(PciFit, SocketPolicyNeedsEverySocketKnown) {
  HostTopology host = host_with_nic_on_a_full_cell();
  host.cells[0].socket.reset();
  EXPECT_FALSE(fit_guest(host, one_cell_guest(PciNumaPolicy::Socket, 1)).placement.has_value());
}

TEST(PciFit, CellsWithDevicesComeFirstOnlyWhenTheGuestAsksForDevices) {
  HostTopology host;
  for (std::uint32_t i = 0; i < 3; ++i) host.cells.push_back(make_cell(i, 4, 4096, 0));
  host.pci = {nic(1), nic(1), nic(2)};
  host.pci.push_back(device(0u, "10de", "1db4", true));  // allocated: not counted
  GuestTopology with = one_cell_guest(PciNumaPolicy::Legacy, 1);
  GuestTopology without = with;
  without.pci_requests.clear();
  EXPECT_EQ(nova_host_cell_order(host, with, {}), (std::vector<std::size_t>{1, 2, 0}));
  EXPECT_EQ(nova_host_cell_order(host, without, {}), (std::vector<std::size_t>{0, 2, 1}));
}

TEST(PciFit, TheSearchSkipsAssignmentsThatMissTheDevices) {
  // Two guest cells over four host cells; only cell 3 has the device and a guest cell fits it
  // only as guest cell 1 (cell 3 is small). Nova's first permutation with the device: (x, 3).
  HostTopology host;
  for (std::uint32_t i = 0; i < 4; ++i) host.cells.push_back(make_cell(i, 4, i == 3 ? 1024 : 4096, 0));
  host.pci.push_back(nic(3));
  GuestTopology guest;
  for (std::uint32_t i = 0; i < 2; ++i) {
    GuestCell cell;
    cell.id = i;
    cell.cpus = CpuSet{2 * i, 2 * i + 1};
    cell.memory_kib = (i == 0 ? 3072 : 1024) * 1024;
    guest.cells.push_back(cell);
  }
  guest.pci_numa_policy = PciNumaPolicy::Required;
  guest.pci_requests.push_back({1, "8086", "154d", "", "", {}});
  FitResult r = fit_guest(host, guest);
  ASSERT_TRUE(r.placement.has_value()) << r.summary;
  EXPECT_EQ(r.placement->cells[1].host_cell, 3u);
  EXPECT_EQ(r.placement->cells[0].host_cell, 0u);
}

// ---- The fast search against brute force -------------------------------------------------

// The PCI rule written again, plainly, from the policy definitions: the requests in order, each
// taking its devices from what the earlier ones left, pool by pool (a pool: the free devices of one
// NUMA node, in the order the host lists them).
bool brute_pci_ok(const HostTopology& host, const GuestTopology& guest, const std::vector<std::uint32_t>& cells) {
  struct Pool {
    std::optional<std::uint32_t> node;
    std::uint32_t count;
  };
  std::vector<Pool> pools;  // every request in these tests asks for the same NIC
  for (const auto& d : host.pci) {
    if (d.allocated || d.vendor_id != "8086" || d.product_id != "154d") continue;
    auto p = std::find_if(pools.begin(), pools.end(), [&](const Pool& q) { return q.node == d.numa_node; });
    if (p == pools.end()) pools.push_back({d.numa_node, 1});
    else ++p->count;
  }
  auto chosen = [&](std::optional<std::uint32_t> node) {
    return node && std::find(cells.begin(), cells.end(), *node) != cells.end();
  };
  const PciNumaPolicy policy =
      guest.pci_numa_policy == PciNumaPolicy::Unset ? PciNumaPolicy::Legacy : guest.pci_numa_policy;
  for (const auto& req : guest.pci_requests) {
    auto sum = [](const std::vector<Pool*>& ps) {
      std::uint32_t n = 0;
      for (auto* p : ps) n += p->count;
      return n;
    };
    std::vector<Pool*> all, local, local_or_floating, near;
    const bool sockets_known =
        std::all_of(host.cells.begin(), host.cells.end(), [](const HostCell& c) { return c.socket.has_value(); });
    for (auto& p : pools) {
      all.push_back(&p);
      if (chosen(p.node)) local.push_back(&p);
      if (chosen(p.node) || !p.node) local_or_floating.push_back(&p);
      const HostCell* home = p.node ? host.find_cell(*p.node) : nullptr;
      bool is_near = false;
      for (auto id : cells) is_near = is_near || (sockets_known && home != nullptr && host.find_cell(id)->socket == home->socket);
      if (is_near) near.push_back(&p);
    }
    if (sum(all) < req.count) return false;
    std::vector<Pool*> usable;
    if (policy == PciNumaPolicy::Required || sum(local) >= req.count) {
      usable = local;
    } else if (policy == PciNumaPolicy::Socket) {
      usable = near;
    } else if (policy == PciNumaPolicy::Legacy || sum(local_or_floating) >= req.count) {
      usable = local_or_floating;
    } else {
      usable = local_or_floating;  // preferred: the closer pools first, then the rest
      for (auto* p : all) {
        if (std::find(usable.begin(), usable.end(), p) == usable.end()) usable.push_back(p);
      }
    }
    if (sum(usable) < req.count) return false;
    std::uint32_t wanted = req.count;
    for (auto* p : usable) {
      const std::uint32_t taken = std::min(wanted, p->count);
      p->count -= taken;
      wanted -= taken;
    }
  }
  return true;
}

TEST(PciFit, RequestsForTheSameDeviceShareItsPools) {
  // One NIC on cell 0 and one without a NUMA node; a one-cell guest asking for the NIC in two
  // requests gets both devices; a third request finds none left (Nova: no fit), though each
  // request alone would be served.
  HostTopology host;
  for (std::uint32_t i = 0; i < 2; ++i) host.cells.push_back(make_cell(i, 4, 4096, 0));
  host.pci.push_back(nic(0));
  host.pci.push_back(nic(std::nullopt));
  GuestTopology guest = one_cell_guest(PciNumaPolicy::Legacy, 1);
  guest.pci_requests.push_back({1, "8086", "154d", "", "", {}});
  FitResult two = fit_guest(host, guest);
  ASSERT_TRUE(two.placement.has_value()) << two.summary;
  EXPECT_EQ(two.placement->cells[0].host_cell, 0u);

  guest.pci_requests.push_back({1, "8086", "154d", "", "", {}});
  FitResult three = fit_guest(host, guest);
  EXPECT_FALSE(three.placement.has_value());
  EXPECT_NE(three.summary.find("(3 in all its requests) but the host has 2 such free devices"), std::string::npos)
      << three.summary;

  // Required: only cell 0's NIC counts, so even two requests are one too many.
  GuestTopology required = one_cell_guest(PciNumaPolicy::Required, 1);
  required.pci_requests.push_back({1, "8086", "154d", "", "", {}});
  EXPECT_FALSE(fit_guest(host, required).placement.has_value());
}

PciDevice tagged(std::optional<std::uint32_t> node, const char* product, const char* dev_type,
                 const char* physnet = nullptr) {
  PciDevice d = device(node, "8086", product, false);
  d.tags["dev_type"] = dev_type;
  if (physnet != nullptr) d.tags["physical_network"] = physnet;
  return d;
}

GuestTopology guest_asking(PciNumaPolicy policy, std::uint32_t count, std::vector<PciSpec> specs) {
  GuestTopology guest = one_cell_guest(policy, count);
  guest.pci_requests[0] = PciRequest{count, "", "", "", "", std::move(specs)};
  return guest;
}

TEST(PciFit, ASpecListMatchesAnyOfItsSpecsByIdsAndTags) {
  HostTopology host;
  for (std::uint32_t i = 0; i < 2; ++i) host.cells.push_back(make_cell(i, 4, 4096, 0));
  host.pci.push_back(tagged(0u, "154d", "type-VF", "physnet1"));
  host.pci.push_back(tagged(1u, "1572", "type-VF", "physnet2"));
  // physnet2 is only on cell 1; required puts the guest there.
  EXPECT_EQ(placed_on(fit_guest(host, guest_asking(PciNumaPolicy::Required, 1, {{{"physical_network", "PHYSNET2"}}}))), 1u);
  // Either alternative: the two devices together.
  GuestTopology both = guest_asking(PciNumaPolicy::Preferred, 2,
                                    {{{"product_id", "154d"}, {"physical_network", "physnet1"}}, {{"product_id", "1572"}}});
  EXPECT_TRUE(fit_guest(host, both).placement.has_value());
  // A key the device does not have never matches; an empty spec matches any device.
  EXPECT_FALSE(fit_guest(host, guest_asking(PciNumaPolicy::Preferred, 1, {{{"trusted", "true"}}})).placement.has_value());
  EXPECT_TRUE(fit_guest(host, guest_asking(PciNumaPolicy::Preferred, 2, {PciSpec{}})).placement.has_value());
  FitResult refused = fit_guest(host, guest_asking(PciNumaPolicy::Legacy, 3, {{{"vendor_id", "8086"}}, {{"dev_type", "type-VF"}}}));
  EXPECT_NE(refused.summary.find("3 x (vendor_id=8086 or dev_type=type-VF) (policy legacy) but the host has 2"),
            std::string::npos) << refused.summary;
}

TEST(PciFit, PfsVdpaAndRemoteManagedDevicesOnlyWhenASpecAsksForThem) {
  HostTopology host;
  for (std::uint32_t i = 0; i < 2; ++i) host.cells.push_back(make_cell(i, 4, 4096, 0));
  host.pci.push_back(tagged(0u, "154d", "type-PF"));
  host.pci.push_back(tagged(0u, "154d", "vdpa"));
  PciDevice managed = tagged(0u, "154d", "type-VF");
  managed.tags["remote_managed"] = "True";
  host.pci.push_back(managed);
  const PciSpec ids{{"vendor_id", "8086"}, {"product_id", "154d"}};
  EXPECT_FALSE(fit_guest(host, guest_asking(PciNumaPolicy::Preferred, 1, {ids})).placement.has_value());
  PciSpec pf = ids;
  pf["dev_type"] = "type-PF";
  EXPECT_TRUE(fit_guest(host, guest_asking(PciNumaPolicy::Preferred, 1, {pf})).placement.has_value());
  PciSpec vdpa = ids;
  vdpa["dev_type"] = "vdpa";
  EXPECT_TRUE(fit_guest(host, guest_asking(PciNumaPolicy::Preferred, 1, {vdpa})).placement.has_value());
  PciSpec remote = ids;
  remote["remote_managed"] = "TRUE";  // matched as a string, without case, as Nova does
  EXPECT_TRUE(fit_guest(host, guest_asking(PciNumaPolicy::Preferred, 1, {remote})).placement.has_value());
  // Asking for a PF lets the PF in, not the VDPA device nor the remote-managed VF: one device only.
  EXPECT_FALSE(fit_guest(host, guest_asking(PciNumaPolicy::Preferred, 2, {pf})).placement.has_value());
  // The same vendor and product without tags (a device read from libvirt): nothing is excluded.
  host.pci.push_back(device(1u, "8086", "154d", false));
  EXPECT_EQ(placed_on(fit_guest(host, guest_asking(PciNumaPolicy::Required, 1, {ids}))), 1u);
}

TEST(PciFit, NoneAsksForAMissingTagAndOtherValuesMatchOnlyThemselves) {
  // Nova reads a missing tag as None: a port on a tunneled network asks for
  // "physical_network": None, which a VF on a physnet does not serve and a VF without one (or
  // with a None one) does. A value that is not a string (a compute node's device spec may say
  // "trusted": true) is never equal to a string.
  HostTopology host;
  for (std::uint32_t i = 0; i < 2; ++i) host.cells.push_back(make_cell(i, 4, 4096, 0));
  host.pci.push_back(tagged(0u, "154d", "type-VF", "physnet1"));
  host.pci.push_back(tagged(1u, "154d", "type-VF"));
  host.pci.push_back(tagged(1u, "154d", "type-VF"));
  host.pci.back().tags["physical_network"] = PciTagValue::none();
  const PciSpec tunneled{{"dev_type", "type-VF"}, {"physical_network", PciTagValue::none()}};
  EXPECT_EQ(placed_on(fit_guest(host, guest_asking(PciNumaPolicy::Required, 1, {tunneled}))), 1u);
  EXPECT_TRUE(fit_guest(host, guest_asking(PciNumaPolicy::Required, 2, {tunneled})).placement.has_value());
  EXPECT_FALSE(fit_guest(host, guest_asking(PciNumaPolicy::Legacy, 3, {tunneled})).placement.has_value());
  // A string never matches None, nor a missing tag.
  EXPECT_FALSE(fit_guest(host, guest_asking(PciNumaPolicy::Legacy, 1, {{{"physical_network", "None"}}})).placement.has_value());

  host.pci[0].tags["trusted"] = PciTagValue::json("true");
  EXPECT_FALSE(fit_guest(host, guest_asking(PciNumaPolicy::Legacy, 1, {{{"trusted", "true"}}})).placement.has_value());
  EXPECT_EQ(placed_on(fit_guest(host, guest_asking(PciNumaPolicy::Legacy, 1, {{{"trusted", PciTagValue::json("true")}}}))), 0u);
  EXPECT_FALSE(fit_guest(host, guest_asking(PciNumaPolicy::Legacy, 1, {{{"trusted", PciTagValue::json("1")}}})).placement.has_value());
}

TEST(PciFit, ARemoteManagedTagReadsAsNovaReadsABoolean) {
  // oslo's bool_from_string: a JSON true is true, a None tag false; a device whose tag is true is
  // left out unless a spec asks for remote-managed devices.
  HostTopology host;
  host.cells.push_back(make_cell(0, 4, 4096, 0));
  host.pci.push_back(tagged(0u, "154d", "type-VF"));
  host.pci.back().tags["remote_managed"] = PciTagValue::json("true");
  const PciSpec ids{{"vendor_id", "8086"}, {"product_id", "154d"}};
  EXPECT_FALSE(fit_guest(host, guest_asking(PciNumaPolicy::Legacy, 1, {ids})).placement.has_value());
  PciSpec remote = ids;
  remote["remote_managed"] = PciTagValue::json("true");
  EXPECT_TRUE(fit_guest(host, guest_asking(PciNumaPolicy::Legacy, 1, {remote})).placement.has_value());
  host.pci.back().tags["remote_managed"] = PciTagValue::none();
  EXPECT_TRUE(fit_guest(host, guest_asking(PciNumaPolicy::Legacy, 1, {ids})).placement.has_value());
}

TEST(PciFit, ARequestServedAfterOthersReachesTheWiderStepTheyLeaveIt) {
  // Preferred, for "any device": the node-less PF makes the first step (the guest's cell and
  // node-less devices) "enough", and a PF is not given to a request that does not ask for one, so
  // alone this request finds nothing. The request before it takes that PF, so Nova's step is
  // then not enough and every device counts: the VF on a node without a host cell serves it.
  HostTopology host;
  for (std::uint32_t i = 0; i < 2; ++i) host.cells.push_back(make_cell(i, 4, 4096, 0));
  host.pci.push_back(tagged(std::nullopt, "1572", "type-PF"));
  host.pci.push_back(tagged(5u, "1572", "type-VF"));
  GuestTopology guest = guest_asking(PciNumaPolicy::Preferred, 1, {{{"product_id", "1572"}, {"dev_type", "type-PF"}}});
  guest.pci_requests.push_back(PciRequest{1, "", "", "", "", {PciSpec{}}});
  EXPECT_TRUE(fit_guest(host, guest).placement.has_value()) << fit_guest(host, guest).summary;
  // Without the first request the PF stays, the first step is "enough", and nothing is given.
  guest.pci_requests.erase(guest.pci_requests.begin());
  EXPECT_FALSE(fit_guest(host, guest).placement.has_value());
}

TEST(PciFit, ThePolicyStepCountsTheKindsNotAskedForAsNovaDoes) {
  // Legacy on cell 0: a PF on cell 0 makes "enough local devices" true before Nova drops the PF,
  // so the VF without a NUMA node is not reached and the guest does not fit on cell 0; on cell 1
  // (nothing local) the node-less VF serves it.
  HostTopology host;
  for (std::uint32_t i = 0; i < 2; ++i) host.cells.push_back(make_cell(i, 4, 4096, 0));
  host.pci.push_back(tagged(0u, "154d", "type-PF"));
  host.pci.push_back(tagged(std::nullopt, "154d", "type-VF"));
  const PciSpec ids{{"vendor_id", "8086"}, {"product_id", "154d"}};
  GuestTopology guest = guest_asking(PciNumaPolicy::Legacy, 1, {ids});
  std::vector<PciDemand> demands = pci_demands(host, guest);
  ASSERT_EQ(demands.size(), 1u);
  EXPECT_FALSE(demands[0].satisfied(host, {true, false}));
  EXPECT_TRUE(demands[0].satisfied(host, {false, true}));
  EXPECT_EQ(demands[0].total, 1u);
  EXPECT_EQ(placed_on(fit_guest(host, guest)), 1u);
}

TEST(PciFit, RequestsWhoseSpecsOverlapTakeDevicesOneAfterAnother) {
  // Two VFs on cell 0: the host lists first one on physnet2 with a further tag, then one on
  // physnet1. Nova orders its pools by how many keys they have (fewer first), so the first
  // request (any VF) takes physnet1's, and the second (physnet1 only) finds none.
  HostTopology host;
  host.cells.push_back(make_cell(0, 4, 4096, 0));
  host.pci.push_back(tagged(0u, "154d", "type-VF", "physnet2"));
  host.pci.back().tags["remote_managed"] = "false";
  host.pci.push_back(tagged(0u, "154d", "type-VF", "physnet1"));
  GuestTopology guest = guest_asking(PciNumaPolicy::Legacy, 1, {{{"dev_type", "type-VF"}}});
  guest.pci_requests.push_back(PciRequest{1, "", "", "", "", {{{"physical_network", "physnet1"}}}});
  std::vector<PciDemand> demands = pci_demands(host, guest);
  EXPECT_TRUE(demands[0].shares_devices && demands[1].shares_devices);
  EXPECT_FALSE(fit_guest(host, guest).placement.has_value());
  // In the other order both are served.
  std::swap(guest.pci_requests[0], guest.pci_requests[1]);
  EXPECT_TRUE(fit_guest(host, guest).placement.has_value());
}

TEST(PciFit, FastSearchMatchesTheFirstFittingPermutationOnRandomHosts) {
  std::mt19937 rng(20240611);
  int fits = 0, misses = 0;
  for (int round = 0; round < 1500; ++round) {
    HostTopology host;
    const std::uint32_t host_cells = 1 + rng() % 6;
    for (std::uint32_t i = 0; i < host_cells; ++i) {
      HostCell cell = make_cell(i, 2 + rng() % 5, 1024 * (1 + rng() % 6), rng() % 3);
      if (rng() % 3 == 0) {  // SMT: pair CPU k with k + half
        cell.siblings.clear();
        const std::uint32_t n = static_cast<std::uint32_t>(cell.cpus.size());
        for (std::uint32_t k = 0; k < n / 2; ++k) cell.siblings.push_back(CpuSet{cell.cpus.ids()[k], cell.cpus.ids()[k + n / 2]});
        if (n % 2) cell.siblings.push_back(CpuSet{cell.cpus.last()});
      }
      for (auto c : cell.cpus) {
        if (rng() % 4 == 0) cell.usage.pinned_cpus.insert(c);
      }
      cell.usage.memory_kib = 1024 * 256 * (rng() % 8);
      cell.usage.shared_cpus = rng() % 40;
      if (rng() % 10 == 0) cell.socket.reset();
      host.cells.push_back(cell);
    }
    const std::uint32_t devices = rng() % 5;
    for (std::uint32_t d = 0; d < devices; ++d) {
      std::optional<std::uint32_t> node;
      if (rng() % 5 != 0) node = rng() % host_cells;
      host.pci.push_back(nic(node, rng() % 5 == 0));
    }

    GuestTopology guest;
    const std::uint32_t guest_cells = 1 + rng() % host_cells;
    const std::uint32_t policy = rng() % 3;
    guest.cpu_policy = policy == 0 ? CpuPolicy::Shared : policy == 1 ? CpuPolicy::Dedicated : CpuPolicy::Mixed;
    const ThreadPolicy threads[] = {ThreadPolicy::Unset, ThreadPolicy::Prefer, ThreadPolicy::Isolate, ThreadPolicy::Require};
    if (guest.cpu_policy != CpuPolicy::Shared) {
      guest.thread_policy = threads[rng() % 4];
      if (rng() % 3 == 0) guest.emulator_threads_policy = EmulatorThreadsPolicy::Isolate;
    }
    std::uint32_t next = 0;
    for (std::uint32_t i = 0; i < guest_cells; ++i) {
      GuestCell cell;
      cell.id = i;
      const std::uint32_t n = 1 + rng() % 3;
      cell.cpus = CpuSet::range(next, next + n - 1);
      next += n;
      if (guest.cpu_policy == CpuPolicy::Dedicated) cell.dedicated_cpus = cell.cpus;
      if (guest.cpu_policy == CpuPolicy::Mixed) cell.dedicated_cpus = CpuSet{cell.cpus.first()};
      cell.memory_kib = 512 * 1024 * (1 + rng() % 6);
      guest.cells.push_back(cell);
    }
    if (rng() % 3 != 0) {
      const PciNumaPolicy policies[] = {PciNumaPolicy::Unset, PciNumaPolicy::Required, PciNumaPolicy::Legacy,
                                        PciNumaPolicy::Preferred, PciNumaPolicy::Socket};
      guest.pci_numa_policy = policies[rng() % 5];
      guest.pci_requests.push_back({static_cast<std::uint32_t>(1 + rng() % 2), "8086", "154d", "", "", {}});
      if (rng() % 3 == 0) guest.pci_requests.push_back({1, "8086", "154d", "", "", {}});  // a second request, same device
    }
    FitOptions options;
    options.pack_host_cells = rng() % 2 == 0;

    // Brute force over permutations of Nova's order.
    std::vector<std::size_t> order = nova_host_cell_order(host, guest, options);
    std::vector<std::size_t> positions(host_cells);
    std::iota(positions.begin(), positions.end(), 0);
    std::optional<std::vector<std::uint32_t>> expected;
    std::vector<std::vector<std::size_t>> seen;
    do {
      std::vector<std::size_t> prefix(positions.begin(), positions.begin() + guest_cells);
      if (std::find(seen.begin(), seen.end(), prefix) != seen.end()) continue;
      seen.push_back(prefix);
      bool ok = true;
      std::vector<std::uint32_t> cells;
      for (std::uint32_t gi = 0; gi < guest_cells && ok; ++gi) {
        ok = !cell_misfit(host, host.cells[order[prefix[gi]]], guest, guest.cells[gi]).has_value();
        cells.push_back(host.cells[order[prefix[gi]]].id);
      }
      if (ok && brute_pci_ok(host, guest, cells)) {
        expected = cells;
        break;
      }
    } while (std::next_permutation(positions.begin(), positions.end()));

    FitResult result = fit_guest(host, guest, options);
    ASSERT_EQ(result.placement.has_value(), expected.has_value()) << "round " << round << ": " << result.summary;
    if (expected) {
      ++fits;
      std::vector<std::uint32_t> got;
      for (const auto& c : result.placement->cells) got.push_back(c.host_cell);
      EXPECT_EQ(got, *expected) << "round " << round;
      // Every dedicated vCPU is pinned, onto distinct free pCPUs of its cell's dedicated set.
      for (std::size_t gi = 0; gi < guest_cells; ++gi) {
        const CellPlacement& placed = result.placement->cells[gi];
        const HostCell* cell = host.find_cell(placed.host_cell);
        CpuSet pcpus;
        for (const auto& [v, p] : placed.pinning) {
          EXPECT_TRUE(guest.cells[gi].dedicated_cpus.contains(v));
          EXPECT_TRUE(cell->dedicated_cpus.contains(p) && !cell->usage.pinned_cpus.contains(p) && !pcpus.contains(p));
          pcpus.insert(p);
        }
        EXPECT_EQ(placed.pinning.size(), guest.cells[gi].dedicated_cpus.size());
        const bool reserved = gi == 0 && guest.emulator_threads_policy == EmulatorThreadsPolicy::Isolate;
        EXPECT_EQ(placed.cpuset_reserved.size(), reserved ? 1u : 0u);
      }
    } else {
      ++misses;
    }
  }
  // The generator covers both outcomes well.
  EXPECT_GT(fits, 200);
  EXPECT_GT(misses, 200);
}

}  // namespace
}  // namespace numaplace
