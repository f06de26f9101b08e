// SPDX-License-Identifier: LGPL-2.1-or-later
// Invariant: the capabilities reader and the host JSON reader hold a host to one rule. For random
// hosts (cell ids with gaps, SMT siblings, CPU ids in any order, page pools, distances), written
// here as `virsh capabilities` XML and as host JSON, both readers give back the host that was
// drawn; with one contradiction put in (a cell id twice, a CPU in two cells or two cores, a
// distance of 0, a cell farther from itself than from another, memory or a page pool beyond what
// any machine has), both refuse it by the same name. The expected name is the contradiction's,
// from the table below; the comparison of what was read is written here, not the readers'.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "plugin/sources/host_json.h"
#include "xml/capabilities_reader.h"

namespace numaplace {
namespace {

struct DrawnPool {
  std::uint64_t size_kib = 0;
  std::uint64_t total = 0;
};

struct DrawnCell {
  std::uint32_t id = 0;
  std::vector<std::vector<std::uint32_t>> cores;  // thread siblings, each core's CPU ids
  std::uint64_t memory_kib = 0;
  std::vector<DrawnPool> pages;
  std::vector<std::uint32_t> distances;  // by cell position
};

using DrawnHost = std::vector<DrawnCell>;

enum class Contradiction { None, CellIdTwice, CpuInTwoCells, CpuInTwoCores, ZeroDistance, FartherFromItself, HugeMemory, HugePool };

// The name every reader must give each contradiction. Two exceptions, each the reader's documented
// rule (docs/errors.md): host JSON refuses a value beyond its fields' ranges as InvalidHostJson,
// naming the field; capabilities merge a CPU in two cores into one core (the kernel's sibling lists
// cannot overlap, so disagreeing ones are read as one core), checked against merged_cores below.
const std::map<Contradiction, std::string> kExpectedName = {
    {Contradiction::CellIdTwice, "DuplicateNumaNode"},     {Contradiction::CpuInTwoCells, "InconsistentHost"},
    {Contradiction::CpuInTwoCores, "InconsistentHost"},    {Contradiction::ZeroDistance, "InvalidNumaDistances"},
    {Contradiction::FartherFromItself, "InvalidNumaDistances"}, {Contradiction::HugeMemory, "InconsistentHost"},
    {Contradiction::HugePool, "InconsistentHost"},
};

std::string expected_json_name(Contradiction c) {
  if (c == Contradiction::HugeMemory || c == Contradiction::HugePool) return "InvalidHostJson";
  return kExpectedName.at(c);
}

// `host` with every two cores that share a CPU made one, until none do.
DrawnHost merged_cores(DrawnHost host) {
  for (auto& cell : host) {
    std::vector<std::set<std::uint32_t>> cores;
    for (const auto& core : cell.cores) cores.emplace_back(core.begin(), core.end());
    for (bool merged = true; merged;) {
      merged = false;
      for (std::size_t a = 0; a < cores.size() && !merged; ++a) {
        for (std::size_t b = a + 1; b < cores.size() && !merged; ++b) {
          if (std::none_of(cores[b].begin(), cores[b].end(), [&](std::uint32_t cpu) { return cores[a].count(cpu) > 0; })) {
            continue;
          }
          cores[a].insert(cores[b].begin(), cores[b].end());
          cores.erase(cores.begin() + static_cast<std::ptrdiff_t>(b));
          merged = true;
        }
      }
    }
    cell.cores.clear();
    for (const auto& core : cores) cell.cores.emplace_back(core.begin(), core.end());
  }
  return host;
}

const char* name_of(Contradiction c) {
  switch (c) {
    case Contradiction::None: return "none";
    case Contradiction::CellIdTwice: return "a cell id twice";
    case Contradiction::CpuInTwoCells: return "a CPU in two cells";
    case Contradiction::CpuInTwoCores: return "a CPU in two cores of one cell";
    case Contradiction::ZeroDistance: return "a distance of 0";
    case Contradiction::FartherFromItself: return "a cell farther from itself";
    case Contradiction::HugeMemory: return "memory beyond 2^50 KiB";
    case Contradiction::HugePool: return "a pool beyond 2^40 pages";
  }
  return "?";
}

DrawnHost draw_host(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int cells = pick(1, 6);
  const int cores = pick(1, 4);
  const int threads = pick(1, 2);
  // Cell ids ascending with gaps; CPU ids a shuffled sample of a range twice as wide as needed.
  std::vector<std::uint32_t> ids;
  for (std::uint32_t id = 0; static_cast<int>(ids.size()) < cells; ++id) {
    if (pick(0, 3) > 0) ids.push_back(id);
  }
  std::vector<std::uint32_t> cpu_pool(static_cast<std::size_t>(cells * cores * threads * 2));
  for (std::size_t i = 0; i < cpu_pool.size(); ++i) cpu_pool[i] = static_cast<std::uint32_t>(i);
  std::shuffle(cpu_pool.begin(), cpu_pool.end(), rng);
  std::size_t next_cpu = 0;
  DrawnHost host;
  for (int c = 0; c < cells; ++c) {
    DrawnCell cell;
    cell.id = ids[static_cast<std::size_t>(c)];
    for (int k = 0; k < cores; ++k) {
      std::vector<std::uint32_t> core;
      for (int t = 0; t < threads; ++t) core.push_back(cpu_pool[next_cpu++]);
      std::sort(core.begin(), core.end());
      cell.cores.push_back(core);
    }
    cell.memory_kib = std::uint64_t{1024} * 1024 * static_cast<std::uint64_t>(pick(1, 64));
    std::uint64_t huge_kib = 0;
    if (pick(0, 1) == 1) {
      const std::uint64_t count = static_cast<std::uint64_t>(pick(0, 256));
      cell.pages.push_back({2048, count});
      huge_kib += 2048 * count;
    }
    if (pick(0, 2) == 2 && cell.memory_kib - huge_kib >= 1048576) {
      cell.pages.push_back({1048576, 1});
      huge_kib += 1048576;
    }
    cell.pages.insert(cell.pages.begin(), DrawnPool{4, (cell.memory_kib - huge_kib) / 4});
    host.push_back(cell);
  }
  for (int i = 0; i < cells; ++i) {
    for (int j = 0; j < cells; ++j) host[static_cast<std::size_t>(i)].distances.push_back(i == j ? 10 : 0);
  }
  for (int i = 0; i < cells; ++i) {
    for (int j = i + 1; j < cells; ++j) {
      const auto d = static_cast<std::uint32_t>(pick(11, 40));
      host[static_cast<std::size_t>(i)].distances[static_cast<std::size_t>(j)] = d;
      host[static_cast<std::size_t>(j)].distances[static_cast<std::size_t>(i)] = d;
    }
  }
  return host;
}

// Puts `c` into `host`; false when the host is too small for it (one cell, one CPU a core).
bool contradict(DrawnHost& host, Contradiction c, std::mt19937& rng) {
  auto index = [&](std::size_t size) { return std::uniform_int_distribution<std::size_t>(0, size - 1)(rng); };
  const std::size_t n = host.size();
  switch (c) {
    case Contradiction::None: return true;
    case Contradiction::CellIdTwice: {
      if (n < 2) return false;
      const std::size_t a = index(n - 1) + 1;
      host[a].id = host[index(a)].id;
      return true;
    }
    case Contradiction::CpuInTwoCells: {
      if (n < 2) return false;
      const std::size_t a = index(n), b = (a + 1 + index(n - 1)) % n;
      host[b].cores.push_back({host[a].cores[index(host[a].cores.size())].front()});
      return true;
    }
    case Contradiction::CpuInTwoCores: {
      DrawnCell& cell = host[index(n)];
      if (cell.cores.size() < 2) return false;
      const std::size_t a = index(cell.cores.size()), b = (a + 1 + index(cell.cores.size() - 1)) % cell.cores.size();
      cell.cores[b].push_back(cell.cores[a].front());  // cell.cpus stays the same set: only the cores overlap
      std::sort(cell.cores[b].begin(), cell.cores[b].end());
      return true;
    }
    case Contradiction::ZeroDistance: {
      if (n < 2) return false;
      const std::size_t a = index(n), b = (a + 1 + index(n - 1)) % n;
      host[a].distances[b] = 0;
      return true;
    }
    case Contradiction::FartherFromItself: {
      if (n < 2) return false;
      const std::size_t a = index(n), b = (a + 1 + index(n - 1)) % n;
      host[a].distances[a] = host[a].distances[b] + 1;
      return true;
    }
    case Contradiction::HugeMemory: host[index(n)].memory_kib = (std::uint64_t{1} << 50) + 1; return true;
    case Contradiction::HugePool: {
      DrawnCell& cell = host[index(n)];
      cell.pages.back().total = (std::uint64_t{1} << 40) + 1;
      return true;
    }
  }
  return false;
}

std::string capabilities_xml(const DrawnHost& host) {
  std::string xml = "<capabilities><host><uuid>00000000-0000-0000-0000-0000000000aa</uuid><cpu><arch>x86_64</arch>"
                    "</cpu><topology><cells num='" + std::to_string(host.size()) + "'>";
  for (const auto& cell : host) {
    xml += "<cell id='" + std::to_string(cell.id) + "'><memory unit='KiB'>" + std::to_string(cell.memory_kib) + "</memory>";
    for (const auto& pool : cell.pages) {
      xml += "<pages unit='KiB' size='" + std::to_string(pool.size_kib) + "'>" + std::to_string(pool.total) + "</pages>";
    }
    xml += "<distances>";
    for (std::size_t j = 0; j < cell.distances.size(); ++j) {
      xml += "<sibling id='" + std::to_string(host[j].id) + "' value='" + std::to_string(cell.distances[j]) + "'/>";
    }
    xml += "</distances><cpus num='0'>";
    // Each CPU once, with the siblings of the first core that has it: a CPU in two cores shows as
    // two cores' siblings attributes that overlap, as libvirt would print it.
    std::set<std::uint32_t> written;
    for (std::size_t k = 0; k < cell.cores.size(); ++k) {
      std::string siblings;
      for (auto cpu : cell.cores[k]) siblings += (siblings.empty() ? "" : ",") + std::to_string(cpu);
      for (auto cpu : cell.cores[k]) {
        if (!written.insert(cpu).second) continue;
        xml += "<cpu id='" + std::to_string(cpu) + "' socket_id='0' die_id='0' core_id='" + std::to_string(k) +
               "' siblings='" + siblings + "'/>";
      }
    }
    xml += "</cpus></cell>";
  }
  return xml + "</cells></topology></host></capabilities>";
}

std::string host_json(const DrawnHost& host) {
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& cell : host) {
    std::set<std::uint32_t> cpus;
    nlohmann::json siblings = nlohmann::json::array();
    for (const auto& core : cell.cores) {
      cpus.insert(core.begin(), core.end());
      siblings.push_back(core);
    }
    nlohmann::json pages = nlohmann::json::array();
    for (const auto& pool : cell.pages) pages.push_back({{"size_kib", pool.size_kib}, {"total", pool.total}, {"used", 0}});
    cells.push_back({{"id", cell.id}, {"cpus", cpus}, {"siblings", siblings}, {"memory_kib", cell.memory_kib},
                     {"pages", pages}, {"distances", cell.distances}});
  }
  return nlohmann::json{{"cells", cells}, {"pci", nlohmann::json::array()}, {"allocation_ratio", nullptr}}.dump();
}

// How `read` differs from `drawn` ("" when it is the drawn host): ids, CPUs, cores, memory, pools, distances.
std::string difference(const HostTopology& read, const DrawnHost& drawn) {
  if (read.cells.size() != drawn.size()) return std::to_string(read.cells.size()) + " cells read";
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    const HostCell& got = read.cells[i];
    const DrawnCell& want = drawn[i];
    const std::string at = "cell " + std::to_string(i) + ": ";
    if (got.id != want.id) return at + "id " + std::to_string(got.id);
    std::set<std::uint32_t> want_cpus;
    std::set<std::vector<std::uint32_t>> want_cores(want.cores.begin(), want.cores.end()), got_cores;
    for (const auto& core : want.cores) want_cpus.insert(core.begin(), core.end());
    if (std::set<std::uint32_t>(got.cpus.begin(), got.cpus.end()) != want_cpus) return at + "CPUs differ";
    for (const auto& group : got.siblings) got_cores.insert(std::vector<std::uint32_t>(group.begin(), group.end()));
    if (got_cores != want_cores) return at + "sibling groups differ";
    if (got.memory_kib != want.memory_kib) return at + "memory " + std::to_string(got.memory_kib);
    if (got.pages.size() != want.pages.size()) return at + std::to_string(got.pages.size()) + " page pools";
    for (std::size_t p = 0; p < want.pages.size(); ++p) {
      if (got.pages[p].size_kib != want.pages[p].size_kib || got.pages[p].total != want.pages[p].total) {
        return at + "pool " + std::to_string(p) + " differs";
      }
    }
    if (got.distances != want.distances) return at + "distances differ";
  }
  return "";
}

TEST(HostReadersProperty, BothReadersTakeTheHostDrawnOrRefuseItsContradictionByOneName) {
  std::mt19937 rng(20261207);
  const std::vector<Contradiction> kinds = {Contradiction::None,          Contradiction::None,
                                            Contradiction::CellIdTwice,   Contradiction::CpuInTwoCells,
                                            Contradiction::CpuInTwoCores, Contradiction::ZeroDistance,
                                            Contradiction::FartherFromItself, Contradiction::HugeMemory,
                                            Contradiction::HugePool};
  std::map<Contradiction, int> tried;
  for (int round = 0; round < 1500; ++round) {
    DrawnHost host = draw_host(rng);
    const Contradiction kind = kinds[std::uniform_int_distribution<std::size_t>(0, kinds.size() - 1)(rng)];
    if (!contradict(host, kind, rng)) continue;
    ++tried[kind];
    const std::string caps = capabilities_xml(host);
    const std::string json = host_json(host);
    const auto from_caps = xml::read_capabilities(caps);
    const auto from_json = plugin::host_from_json_text(json);
    if (kind == Contradiction::None) {
      ASSERT_TRUE(from_caps.ok()) << from_caps.error().name << ": " << from_caps.error().message << "\n" << caps;
      ASSERT_TRUE(from_json.ok()) << from_json.error().name << ": " << from_json.error().message << "\n" << json;
      EXPECT_EQ(difference(*from_caps, host), "") << caps;
      EXPECT_EQ(difference(*from_json, host), "") << json;
      continue;
    }
    ASSERT_FALSE(from_json.ok()) << name_of(kind) << " taken from host JSON:\n" << json;
    EXPECT_EQ(from_json.error().name, expected_json_name(kind)) << name_of(kind) << ": " << from_json.error().message;
    if (kind == Contradiction::CpuInTwoCores) {
      ASSERT_TRUE(from_caps.ok()) << from_caps.error().name << ": " << from_caps.error().message << "\n" << caps;
      EXPECT_EQ(difference(*from_caps, merged_cores(host)), "") << caps;
      continue;
    }
    ASSERT_FALSE(from_caps.ok()) << name_of(kind) << " taken from capabilities:\n" << caps;
    EXPECT_EQ(from_caps.error().name, kExpectedName.at(kind)) << name_of(kind) << ": " << from_caps.error().message;
  }
  for (const auto kind : kinds) EXPECT_GE(tried[kind], 60) << name_of(kind) << " drawn too rarely";
}

}  // namespace
}  // namespace numaplace
