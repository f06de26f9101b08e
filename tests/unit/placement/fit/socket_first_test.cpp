// SPDX-License-Identifier: LGPL-2.1-or-later
// Sub-NUMA clustered hosts (SNC, NPS): under the scored strategies a guest of several cells that
// one socket's cells can hold gets one socket's cells, even where a cross-socket pair would score
// higher; Nova's strategy keeps Nova's order. The property's checker asks, per socket, whether a
// host made of that socket's cells alone can take the guest (with Nova's strategy, whose fit the
// conformance suites check against Nova) and reads sockets from the drawn host.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <set>
#include <string>

#include "placement/fit/fit.h"
#include "plugin/sources/hwloc_source.h"
#include "support/test_paths.h"
#include "support/topology_builders.h"
#include "xml/capabilities_reader.h"

namespace numaplace {
namespace {

using testing::flat_cell;
using testing::guest_of;
using testing::kGiBInKiB;

// `sockets` x `per_socket` cells of 4 CPUs and 16 GiB; distance 10 to itself, 11 within a socket,
// 21 across.
HostTopology snc_host(std::uint32_t sockets, std::uint32_t per_socket) {
  HostTopology host;
  const std::uint32_t cells = sockets * per_socket;
  for (std::uint32_t id = 0; id < cells; ++id) {
    HostCell cell = flat_cell(id, CpuSet::range(id * 4, id * 4 + 3), 16 * kGiBInKiB);
    cell.socket = id / per_socket;
    for (std::uint32_t other = 0; other < cells; ++other) {
      cell.distances.push_back(other == id ? 10 : other / per_socket == id / per_socket ? 11 : 21);
    }
    host.cells.push_back(std::move(cell));
  }
  return host;
}

std::set<std::uint32_t> sockets_used(const HostTopology& host, const Placement& placement) {
  std::set<std::uint32_t> used;
  for (const auto& cell : placement.cells) used.insert(*host.find_cell(cell.host_cell)->socket);
  return used;
}

TEST(SocketFirst, ATwoCellGuestGetsOneSocketsCellsWherePackWouldCrossSockets) {
  HostTopology host = snc_host(2, 2);
  // Cells 0 and 2 (one in each socket) are the fullest: pack's score alone would take them.
  host.cells[0].usage.memory_kib = 10 * kGiBInKiB;
  host.cells[2].usage.memory_kib = 10 * kGiBInKiB;
  const GuestTopology guest = guest_of({{2, 4}, {2, 4}}, kGiBInKiB);
  for (const Strategy strategy : {Strategy::Pack, Strategy::Adaptive, Strategy::Spread}) {
    FitOptions options;
    options.strategy = strategy;
    options.explain = true;
    const FitResult fit = fit_guest(host, guest, options);
    ASSERT_TRUE(fit.placement) << to_string(strategy) << ": " << fit.summary;
    EXPECT_EQ(sockets_used(host, *fit.placement).size(), 1u) << to_string(strategy);
    ASSERT_TRUE(fit.explanation);
    EXPECT_NE(fit.explanation->verdict.find("kept within the cells of socket"), std::string::npos)
        << fit.explanation->verdict;
  }
  // Nova's own answer is Nova's order, across sockets or not.
  FitOptions nova;
  nova.strategy = Strategy::Nova;
  ASSERT_TRUE(fit_guest(host, guest, nova).placement);
  // A guest no socket can hold alone still gets the whole host.
  const GuestTopology wide = guest_of({{2, 4}, {2, 4}, {2, 4}}, kGiBInKiB);
  FitOptions pack;
  pack.strategy = Strategy::Pack;
  const FitResult spread_over = fit_guest(host, wide, pack);
  ASSERT_TRUE(spread_over.placement) << spread_over.summary;
  EXPECT_EQ(sockets_used(host, *spread_over.placement).size(), 2u);
}

// Capabilities with 2 sockets of 2 cells (socket_id on every <cpu>), and the hwloc export of 2
// packages of 2 NUMA nodes: each cell knows its socket, and a 2-cell guest whose fullest cells are
// in different sockets still gets one socket's cells.
std::string snc_capabilities(bool one_cell_mixed) {
  std::string xml = "<capabilities><host><cpu><arch>x86_64</arch></cpu><topology><cells num='4'>";
  for (std::uint32_t i = 0; i < 4; ++i) {
    xml += "<cell id='" + std::to_string(i) + "'><memory unit='KiB'>16777216</memory><distances>";
    for (std::uint32_t j = 0; j < 4; ++j) {
      xml += "<sibling id='" + std::to_string(j) + "' value='" + (i == j ? "10" : i / 2 == j / 2 ? "11" : "21") + "'/>";
    }
    xml += "</distances><cpus num='4'>";
    for (std::uint32_t t = 0; t < 4; ++t) {
      const std::uint32_t cpu = i * 4 + t;
      const std::uint32_t socket = one_cell_mixed && i == 3 && t == 3 ? 0 : i / 2;
      xml += "<cpu id='" + std::to_string(cpu) + "' socket_id='" + std::to_string(socket) + "' core_id='" +
             std::to_string(t) + "' siblings='" + std::to_string(cpu) + "'/>";
    }
    xml += "</cpus></cell>";
  }
  return xml + "</cells></topology></host></capabilities>";
}

void expect_one_socket_for_a_two_cell_guest(HostTopology host, const std::string& what) {
  // The first cell of each socket is the fullest.
  std::set<std::uint32_t> seen;
  for (auto& cell : host.cells) {
    if (seen.insert(*cell.socket).second) cell.usage.memory_kib = cell.memory_kib / 2;
  }
  FitOptions pack;
  pack.strategy = Strategy::Pack;
  const FitResult fit = fit_guest(host, guest_of({{1, 1}, {1, 1}}, kGiBInKiB), pack);
  ASSERT_TRUE(fit.placement) << what << ": " << fit.summary;
  EXPECT_EQ(sockets_used(host, *fit.placement).size(), 1u) << what;
}

TEST(SocketFirst, CapabilitiesAndHwlocHostsKnowTheirSockets) {
  auto caps = xml::read_capabilities(snc_capabilities(false), "snc capabilities");
  ASSERT_TRUE(caps) << caps.error().message;
  for (const auto& cell : caps->cells) {
    ASSERT_TRUE(cell.socket) << "cell " << cell.id;
    EXPECT_EQ(*cell.socket, cell.id / 2);
  }
  expect_one_socket_for_a_two_cell_guest(*caps, "capabilities");
  // A cell whose CPUs name different sockets belongs to none.
  auto mixed = xml::read_capabilities(snc_capabilities(true), "mixed capabilities");
  ASSERT_TRUE(mixed);
  EXPECT_FALSE(mixed->cells[3].socket);
  EXPECT_TRUE(mixed->cells[2].socket);

  auto hwloc = plugin::load_hwloc_xml(testing::shared_path("samples/hwloc/synth-2pkg-4numa-l3.xml"));
  ASSERT_TRUE(hwloc) << hwloc.error().message;
  ASSERT_EQ(hwloc->cells.size(), 4u);
  std::set<std::uint32_t> sockets;
  for (const auto& cell : hwloc->cells) {
    ASSERT_TRUE(cell.socket);
    sockets.insert(*cell.socket);
  }
  EXPECT_EQ(sockets.size(), 2u);
  expect_one_socket_for_a_two_cell_guest(*hwloc, "hwloc");
}

// The cells of one socket alone, as a host (distances dropped: whether a guest fits does not
// depend on them).
HostTopology socket_alone(const HostTopology& host, std::uint32_t socket) {
  HostTopology only = host;
  only.cells.clear();
  for (HostCell cell : host.cells) {
    if (*cell.socket != socket) continue;
    cell.distances.clear();
    only.cells.push_back(std::move(cell));
  }
  return only;
}

TEST(SocketFirstProperty, NoGuestSpansSocketsWhileOneSocketCouldHoldIt) {
  std::mt19937 rng(20261201);
  int kept_within = 0;
  int spanning = 0;
  for (int iteration = 0; iteration < 600; ++iteration) {
    const std::uint32_t sockets = 2 + rng() % 2;
    const std::uint32_t per_socket = 2 + rng() % 3;
    HostTopology host = snc_host(sockets, per_socket);
    for (auto& cell : host.cells) {
      cell.usage.memory_kib = (rng() % 15) * kGiBInKiB;
      const std::uint32_t pinned = rng() % 4;
      for (std::uint32_t p = 0; p < pinned; ++p) cell.usage.pinned_cpus.insert(cell.cpus.first() + p);
    }
    const std::size_t guest_cells = 2 + rng() % 2;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> shape;
    for (std::size_t g = 0; g < guest_cells; ++g) shape.push_back({1 + rng() % 3, 1 + rng() % 8});
    GuestTopology guest = guest_of(shape, kGiBInKiB);
    if (rng() % 2) {
      guest.cpu_policy = CpuPolicy::Dedicated;
      for (auto& cell : guest.cells) cell.dedicated_cpus = cell.cpus;
    }
    FitOptions options;
    options.strategy = std::array{Strategy::Pack, Strategy::Spread, Strategy::Adaptive}[rng() % 3];
    SCOPED_TRACE("iteration " + std::to_string(iteration) + ", strategy " + to_string(options.strategy));
    const FitResult fit = fit_guest(host, guest, options);
    FitOptions nova;
    nova.strategy = Strategy::Nova;
    // Whether a guest fits never depends on the strategy.
    ASSERT_EQ(fit.placement.has_value(), fit_guest(host, guest, nova).placement.has_value());
    if (!fit.placement) continue;
    bool one_socket_could = false;
    for (std::uint32_t s = 0; s < sockets; ++s) {
      one_socket_could = one_socket_could || fit_guest(socket_alone(host, s), guest, nova).placement.has_value();
    }
    const std::size_t used = sockets_used(host, *fit.placement).size();
    if (one_socket_could) {
      EXPECT_EQ(used, 1u) << "the guest spans sockets though one socket's cells could hold it";
      ++kept_within;
    } else {
      EXPECT_GT(used, 1u);
      ++spanning;
    }
  }
  EXPECT_GT(kept_within, 150);
  EXPECT_GT(spanning, 20);
}

}  // namespace
}  // namespace numaplace
