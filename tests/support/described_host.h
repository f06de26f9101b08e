/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Random hosts as a scheduler holds them (Described), written as np_host_from_cells' packed words
// and as the JSON host schema by this file's own writers: what the packed-cells tests share.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace numaplace::testing {

using Words = std::vector<std::int64_t>;

// A host as a scheduler holds it: what both encodings below are written from.
struct Described {
  struct Cell {
    std::int64_t id = 0, memory_mib = 0, shared_used = 0, memory_used_mib = 0;
    std::optional<std::int64_t> socket;
    std::vector<std::int64_t> shared, dedicated, pinned;
    std::vector<std::vector<std::int64_t>> siblings;
    std::vector<std::array<std::int64_t, 4>> pages;  // size KiB, total, used, reserved
    nlohmann::json network;                           // null, or the schema's network_metadata
  };
  std::vector<Cell> cells;
  std::optional<std::pair<double, double>> ratios;
  nlohmann::json pci = nlohmann::json::array();
};

inline Words words_of(const Described& host) {
  Words w{static_cast<std::int64_t>(host.cells.size())};
  auto list = [&](const std::vector<std::int64_t>& ids) {
    w.push_back(static_cast<std::int64_t>(ids.size()));
    w.insert(w.end(), ids.begin(), ids.end());
  };
  for (const auto& c : host.cells) {
    w.insert(w.end(), {c.id, c.memory_mib, c.shared_used, c.memory_used_mib, c.socket.value_or(-1)});
    list(c.shared);
    list(c.dedicated);
    list(c.pinned);
    w.push_back(static_cast<std::int64_t>(c.siblings.size()));
    for (const auto& group : c.siblings) w.push_back(static_cast<std::int64_t>(group.size()));
    for (const auto& group : c.siblings) w.insert(w.end(), group.begin(), group.end());
    w.push_back(static_cast<std::int64_t>(c.pages.size()));
    for (const auto& p : c.pages) w.insert(w.end(), p.begin(), p.end());
  }
  return w;
}

inline nlohmann::json json_of(const Described& host) {
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& c : host.cells) {
    std::vector<std::int64_t> all(c.shared);
    all.insert(all.end(), c.dedicated.begin(), c.dedicated.end());
    nlohmann::json cell = {{"id", c.id}, {"cpus", all}, {"shared_cpuset", c.shared}, {"dedicated_cpuset", c.dedicated},
                           {"siblings", c.siblings}, {"memory_mib", c.memory_mib},
                           {"usage", {{"shared_cpus", c.shared_used}, {"pinned_cpus", c.pinned},
                                      {"memory_mib", c.memory_used_mib}}}};
    if (c.socket) cell["socket"] = *c.socket;
    if (!c.network.is_null()) cell["network_metadata"] = c.network;
    nlohmann::json pages = nlohmann::json::array();
    for (const auto& p : c.pages) pages.push_back({{"size_kib", p[0]}, {"total", p[1]}, {"used", p[2]}, {"reserved", p[3]}});
    cell["pages"] = pages;
    cells.push_back(cell);
  }
  nlohmann::json out;
  out["cells"] = cells;
  out["pci"] = host.pci;
  out["allocation_ratio"] = host.ratios ? nlohmann::json{{"cpu", host.ratios->first}, {"ram", host.ratios->second}}
                                        : nlohmann::json(nullptr);
  return out;
}

inline Described random_host(std::mt19937& rng) {
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  Described host;
  const auto cells = pick(1, 8);
  std::vector<std::int64_t> ids;
  for (std::int64_t i = 0; i < cells; ++i) ids.push_back(i * 3 + pick(0, 2));  // unique, not in order
  std::shuffle(ids.begin(), ids.end(), rng);
  std::int64_t next_cpu = pick(0, 2) == 0 ? pick(60, 200) : 0;  // ids above one 64-bit word too
  for (std::int64_t id : ids) {
    Described::Cell c;
    c.id = id;
    c.memory_mib = pick(0, 1 << 20);
    c.memory_used_mib = pick(0, c.memory_mib + 1024);  // over the cell's memory is the host's report
    c.shared_used = pick(0, 64);
    if (pick(0, 1)) c.socket = pick(0, 7);
    const auto threads = pick(1, 2), cores = pick(0, 8);
    for (std::int64_t core = 0; core < cores; ++core) {
      std::vector<std::int64_t> group;
      for (std::int64_t t = 0; t < threads; ++t) {
        const std::int64_t cpu = next_cpu++;
        group.push_back(cpu);
        switch (pick(0, 2)) {  // shared, dedicated, or both (Nova's CPU sets without a split)
          case 0: c.shared.push_back(cpu); break;
          case 1: c.dedicated.push_back(cpu); break;
          default: c.shared.push_back(cpu); c.dedicated.push_back(cpu);
        }
        if (pick(0, 3) == 0) c.pinned.push_back(cpu);
      }
      if (pick(0, 5) != 0) c.siblings.push_back(group);  // a host may list no siblings for a core
    }
    std::shuffle(c.shared.begin(), c.shared.end(), rng);  // the words' order is free, as a set's
    const auto pools = pick(0, 3);
    for (std::int64_t p = 0; p < pools; ++p) {
      const std::int64_t size = std::array<std::int64_t, 3>{4, 2048, 1048576}[static_cast<std::size_t>(p)];
      const std::int64_t total = pick(0, 1 << 20);
      c.pages.push_back({size, total, pick(0, total), pick(0, 16)});
    }
    std::shuffle(c.pages.begin(), c.pages.end(), rng);
    if (pick(0, 2) == 0) {
      nlohmann::json physnets = nlohmann::json::array();
      for (const char* name : {"physnet2", "physnet0", "physnet1"}) {
        if (pick(0, 1)) physnets.push_back(name);
      }
      c.network = {{"physnets", physnets}, {"tunneled", pick(0, 1) == 1}};
    }
    host.cells.push_back(std::move(c));
  }
  if (pick(0, 3) != 0) host.ratios = std::make_pair(static_cast<double>(pick(1, 32)) / 2, static_cast<double>(pick(2, 6)) / 4);
  for (std::int64_t d = pick(0, 2) == 0 ? pick(1, 4) : 0; d > 0; --d) {
    host.pci.push_back({{"address", "pool0-" + std::to_string(d)}, {"numa_node", ids[0]}, {"vendor_id", "8086"},
                        {"product_id", "1572"}, {"allocated", false}, {"tags", {{"physical_network", "physnet1"}}}});
  }
  return host;
}

}  // namespace numaplace::testing
