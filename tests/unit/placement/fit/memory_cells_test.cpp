// SPDX-License-Identifier: LGPL-2.1-or-later
// Memory-only guest cells (hw:numa_cpus.N= empty) under the scored strategies: distance from the
// host cells the guest's CPU cells got decides first, the score only among equally close cells.
// A GB200-like host (2 CPU cells, memory-only cells at different distances) read as libvirt
// capabilities and as an hwloc export, and a property over random such hosts whose checker
// works out distances and room from the drawn host, not from numaplace.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "placement/fit/fit.h"
#include "placement/request/guest_topology.h"
#include "plugin/sources/hwloc_source.h"
#include "xml/capabilities_reader.h"

namespace numaplace {
namespace {

constexpr std::uint64_t kGiB = 1024 * 1024;  // KiB

struct DrawnHost {
  std::uint32_t cpu_cells = 2;
  std::uint32_t threads = 4;  // CPUs per CPU cell
  std::vector<std::uint64_t> memory_gib;  // per cell, CPU cells first
  std::vector<std::vector<std::uint32_t>> distance;
  std::size_t size() const { return memory_gib.size(); }
};

std::string capabilities_of(const DrawnHost& h) {
  std::string xml = "<capabilities><host><cpu><arch>x86_64</arch></cpu><topology><cells num='" +
                    std::to_string(h.size()) + "'>";
  for (std::uint32_t i = 0; i < h.size(); ++i) {
    xml += "<cell id='" + std::to_string(i) + "'><memory unit='KiB'>" + std::to_string(h.memory_gib[i] * kGiB) +
           "</memory><distances>";
    for (std::uint32_t j = 0; j < h.size(); ++j) {
      xml += "<sibling id='" + std::to_string(j) + "' value='" + std::to_string(h.distance[i][j]) + "'/>";
    }
    xml += "</distances>";
    if (i < h.cpu_cells) {
      xml += "<cpus num='" + std::to_string(h.threads) + "'>";
      for (std::uint32_t t = 0; t < h.threads; ++t) {
        const std::uint32_t cpu = i * h.threads + t;
        xml += "<cpu id='" + std::to_string(cpu) + "' socket_id='" + std::to_string(i) + "' core_id='" +
               std::to_string(t) + "' siblings='" + std::to_string(cpu) + "'/>";
      }
      xml += "</cpus>";
    } else {
      xml += "<cpus num='0'/>";
    }
    xml += "</cell>";
  }
  return xml + "</cells></topology></host></capabilities>";
}

std::string hex_mask(std::uint64_t bits) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%08llx", static_cast<unsigned long long>(bits));
  return text;
}

// The same host as an hwloc export: one Package per CPU cell holding its NUMANode and its cores,
// the memory-only NUMANodes under the Machine, and the distance matrix.
std::string hwloc_of(const DrawnHost& h) {
  const std::uint64_t all_cpus = (std::uint64_t{1} << (h.cpu_cells * h.threads)) - 1;
  const std::uint64_t all_nodes = (std::uint64_t{1} << h.size()) - 1;
  std::uint32_t gp = 1;
  auto sets = [](std::uint64_t cpus, std::uint64_t nodes) {
    return " cpuset=\"" + hex_mask(cpus) + "\" complete_cpuset=\"" + hex_mask(cpus) + "\" nodeset=\"" +
           hex_mask(nodes) + "\" complete_nodeset=\"" + hex_mask(nodes) + "\"";
  };
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
                    "<topology version=\"2.0\">\n<object type=\"Machine\" os_index=\"0\"" + sets(all_cpus, all_nodes) +
                    " gp_index=\"" + std::to_string(gp++) + "\">\n";
  for (std::uint32_t i = h.cpu_cells; i < h.size(); ++i) {
    xml += "<object type=\"NUMANode\" os_index=\"" + std::to_string(i) + "\"" + sets(0, std::uint64_t{1} << i) +
           " gp_index=\"" + std::to_string(gp++) + "\" local_memory=\"" + std::to_string(h.memory_gib[i] << 30) +
           "\"><page_type size=\"4096\" count=\"" + std::to_string(h.memory_gib[i] << 18) + "\"/></object>\n";
  }
  for (std::uint32_t i = 0; i < h.cpu_cells; ++i) {
    const std::uint64_t cpus = ((std::uint64_t{1} << h.threads) - 1) << (i * h.threads);
    const std::uint64_t node = std::uint64_t{1} << i;
    xml += "<object type=\"Package\" os_index=\"" + std::to_string(i) + "\"" + sets(cpus, node) + " gp_index=\"" +
           std::to_string(gp++) + "\">\n";
    xml += "<object type=\"NUMANode\" os_index=\"" + std::to_string(i) + "\"" + sets(cpus, node) + " gp_index=\"" +
           std::to_string(gp++) + "\" local_memory=\"" + std::to_string(h.memory_gib[i] << 30) +
           "\"><page_type size=\"4096\" count=\"" + std::to_string(h.memory_gib[i] << 18) + "\"/></object>\n";
    for (std::uint32_t t = 0; t < h.threads; ++t) {
      const std::uint32_t cpu = i * h.threads + t;
      const std::uint64_t bit = std::uint64_t{1} << cpu;
      const std::uint32_t core_gp = gp++, pu_gp = gp++;
      xml += "<object type=\"Core\" os_index=\"" + std::to_string(t) + "\"" + sets(bit, node) + " gp_index=\"" +
             std::to_string(core_gp) + "\"><object type=\"PU\" os_index=\"" + std::to_string(cpu) + "\"" +
             sets(bit, node) + " gp_index=\"" + std::to_string(pu_gp) + "\"/></object>\n";
    }
    xml += "</object>\n";
  }
  std::string indexes, values;
  for (std::uint32_t i = 0; i < h.size(); ++i) {
    indexes += std::to_string(i) + " ";
    for (std::uint32_t j = 0; j < h.size(); ++j) values += std::to_string(h.distance[i][j]) + " ";
  }
  return xml + "</object>\n<distances2 type=\"NUMANode\" nbobjs=\"" + std::to_string(h.size()) +
         "\" kind=\"5\" indexing=\"os\">\n<indexes length=\"" + std::to_string(indexes.size()) + "\">" + indexes +
         "</indexes>\n<u64values length=\"" + std::to_string(values.size()) + "\">" + values +
         "</u64values>\n</distances2>\n</topology>\n";
}

HostTopology from_capabilities(const DrawnHost& h) {
  auto host = xml::read_capabilities(capabilities_of(h));
  EXPECT_TRUE(host.ok()) << (host.ok() ? "" : host.error().message);
  return host.ok() ? *host : HostTopology{};
}

Result<HostTopology> from_hwloc(const DrawnHost& h) {
  const std::string path =
      std::filesystem::temp_directory_path() / ("numaplace-memory-cells-" + std::to_string(getpid()) + ".xml");
  std::ofstream(path) << hwloc_of(h);
  auto host = plugin::load_hwloc_xml(path);
  std::filesystem::remove(path);
  return host;
}

// A guest of two CPU cells (2 vCPUs, 1 GiB each) and memory-only cells of these sizes.
GuestTopology guest_with_memory_cells(const std::vector<std::uint64_t>& memory_gib) {
  const std::size_t n = 2 + memory_gib.size();
  SpecMap specs{{"hw:numa_nodes", std::to_string(n)}, {"hw:numa_cpus.0", "0-1"}, {"hw:numa_cpus.1", "2-3"},
                {"hw:numa_mem.0", "1024"}, {"hw:numa_mem.1", "1024"}};
  std::uint64_t total = 2;
  for (std::size_t i = 0; i < memory_gib.size(); ++i) {
    specs["hw:numa_cpus." + std::to_string(i + 2)] = "";
    specs["hw:numa_mem." + std::to_string(i + 2)] = std::to_string(memory_gib[i] * 1024);
    total += memory_gib[i];
  }
  GuestRequest request;
  request.vcpus = 4;
  request.memory_kib = total * kGiB;
  request.flavor_specs = specs;
  auto topology = derive_guest_topology(request);
  EXPECT_TRUE(topology.ok() && topology->has_value()) << (topology.ok() ? "" : topology.error().message);
  return topology.ok() && topology->has_value() ? **topology : GuestTopology{};
}

// GB200-like: CPU cells 0 and 1; memory-only cells 2-7. Cell 4 is the closest to both CPU cells
// but neither the emptiest (cell 2, which spread would take) nor the fullest fit (cell 7, pack's).
DrawnHost gb200_like() {
  DrawnHost h;
  h.memory_gib = {64, 64, 480, 200, 120, 96, 300, 40};
  const std::vector<std::uint32_t> from0 = {10, 40, 80, 80, 20, 60, 120, 120};
  const std::vector<std::uint32_t> from1 = {40, 10, 80, 90, 20, 60, 120, 120};
  h.distance.assign(h.size(), std::vector<std::uint32_t>(h.size(), 0));
  for (std::uint32_t i = 0; i < h.size(); ++i) {
    for (std::uint32_t j = 0; j < h.size(); ++j) {
      if (i == j) h.distance[i][j] = 10;
      else if (i == 0) h.distance[i][j] = from0[j];
      else if (i == 1) h.distance[i][j] = from1[j];
      else if (j == 0) h.distance[i][j] = from0[i];
      else if (j == 1) h.distance[i][j] = from1[i];
      else h.distance[i][j] = 100;
    }
  }
  return h;
}

std::uint32_t host_of(const Placement& placement, std::uint32_t guest_cell) {
  for (const auto& cell : placement.cells) {
    if (cell.guest_cell == guest_cell) return cell.host_cell;
  }
  return 9999;
}

void expect_closest_memory_cell(const HostTopology& host) {
  const GuestTopology guest = guest_with_memory_cells({32});
  for (Strategy strategy : {Strategy::Spread, Strategy::Pack, Strategy::Adaptive}) {
    FitOptions options;
    options.strategy = strategy;
    FitResult fit = fit_guest(host, guest, options);
    ASSERT_TRUE(fit.placement.has_value()) << fit.summary;
    EXPECT_EQ(host_of(*fit.placement, 2), 4u) << "strategy " << static_cast<int>(strategy);
  }
  // 190 GiB: too big for cells 4 (120 GiB, even at a RAM ratio of 1.5) and 5; of those that hold
  // it, cell 2 (at 80 + 80) is closer than cell 3 (80 + 90).
  FitOptions pack;
  pack.strategy = Strategy::Pack;
  FitResult big = fit_guest(host, guest_with_memory_cells({190}), pack);
  ASSERT_TRUE(big.placement.has_value()) << big.summary;
  EXPECT_EQ(host_of(*big.placement, 2), 2u);
}

TEST(MemoryOnlyCells, TheClosestMemoryNodeIsChosenOnACapabilitiesHost) {
  expect_closest_memory_cell(from_capabilities(gb200_like()));
}

TEST(MemoryOnlyCells, TheClosestMemoryNodeIsChosenOnAnHwlocHost) {
  auto host = from_hwloc(gb200_like());
  ASSERT_TRUE(host.ok()) << host.error().message;
  ASSERT_EQ(host->cells.size(), 8u);
  std::string cells;
  for (const auto& cell : host->cells) {
    cells += " " + std::to_string(cell.id) + ":" + to_cpu_list(cell.cpus) + "/" + std::to_string(cell.memory_kib / kGiB) + "G/";
    for (auto d : cell.distances) cells += std::to_string(d) + ",";
  }
  ASSERT_NE(host->find_cell(4), nullptr) << cells;
  EXPECT_TRUE(host->find_cell(4)->cpus.empty()) << cells;
  expect_closest_memory_cell(*host);
}

// Property: no memory-only guest cell lands on a host cell farther from the guest's CPU cells'
// host cells (sum of the drawn distances) than a host cell no guest cell took whose memory holds it.
TEST(MemoryOnlyCellsProperty, NoMemoryCellIsFartherThanAFreeCellThatHoldsIt) {
  std::mt19937 rng(2020);
  int checked = 0;
  for (int round = 0; round < 150; ++round) {
    DrawnHost h;
    h.threads = 2 + rng() % 4;
    const std::uint32_t memory_only = 2 + rng() % 9;
    h.memory_gib = {8 + rng() % 64, 8 + rng() % 64};
    for (std::uint32_t i = 0; i < memory_only; ++i) h.memory_gib.push_back(4 + rng() % 200);
    h.distance.assign(h.size(), std::vector<std::uint32_t>(h.size(), 10));
    for (std::uint32_t i = 0; i < h.size(); ++i) {
      for (std::uint32_t j = i + 1; j < h.size(); ++j) h.distance[i][j] = h.distance[j][i] = 11 + rng() % 190;
    }
    std::vector<std::uint64_t> cells;
    for (std::uint32_t i = 0, n = 1 + rng() % 3; i < n; ++i) cells.push_back(1 + rng() % 120);
    const GuestTopology guest = guest_with_memory_cells(cells);
    const bool hwloc = round % 3 == 0;
    HostTopology host;
    if (hwloc) {
      auto loaded = from_hwloc(h);
      ASSERT_TRUE(loaded.ok()) << loaded.error().message;
      host = *loaded;
    } else {
      host = from_capabilities(h);
    }
    FitOptions options;
    options.strategy = std::vector<Strategy>{Strategy::Spread, Strategy::Pack, Strategy::Adaptive}[rng() % 3];
    FitResult fit = fit_guest(host, guest, options);
    if (!fit.placement) continue;
    ++checked;
    std::set<std::uint32_t> used;
    for (const auto& cell : fit.placement->cells) used.insert(cell.host_cell);
    const std::uint32_t cpu_a = host_of(*fit.placement, 0), cpu_b = host_of(*fit.placement, 1);
    const auto distance = [&](std::uint32_t to) { return h.distance[cpu_a][to] + h.distance[cpu_b][to]; };
    for (std::uint32_t g = 2; g < 2 + cells.size(); ++g) {
      const std::uint32_t on = host_of(*fit.placement, g);
      for (std::uint32_t other = 0; other < h.size(); ++other) {
        if (used.count(other) || h.memory_gib[other] < cells[g - 2]) continue;
        EXPECT_GE(distance(other), distance(on))
            << "round " << round << (hwloc ? " (hwloc)" : " (capabilities)") << ": guest cell " << g << " ("
            << cells[g - 2] << " GiB) on host cell " << on << " at " << distance(on) << ", host cell " << other
            << " holds it at " << distance(other);
      }
    }
  }
  EXPECT_GT(checked, 75);
}

}  // namespace
}  // namespace numaplace
