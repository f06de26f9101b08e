// SPDX-License-Identifier: LGPL-2.1-or-later
// Packed host cells (plugin/sources/host_cells.h, np_host_from_cells): on random hosts the packed
// words and the JSON host schema, each written here from the same description, read as the same
// host (the JSON reader is the oracle, a separate reader); every kind of bad word is a named error
// that says which word; a CPU two cells name (as a CPU, a sibling or a pin) is refused by both
// readers; the C entry point checks its arguments.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "numaplace.h"
#include "plugin/sources/host_cells.h"
#include "plugin/sources/host_json.h"
#include "support/described_host.h"

namespace numaplace {
namespace {

using testing::Described;
using testing::json_of;
using testing::random_host;
using testing::Words;
using testing::words_of;

TEST(HostCellsProperty, PackedWordsReadAsTheSameHostAsItsJson) {
  std::mt19937 rng(20261203);
  for (int round = 0; round < 3000; ++round) {
    const Described described = random_host(rng);
    const Words words = words_of(described);
    const nlohmann::json json = json_of(described);
    const double cpu = described.ratios ? described.ratios->first : std::nan("");
    const double ram = described.ratios ? described.ratios->second : std::nan("");
    const std::string pci = described.pci.empty() ? std::string() : described.pci.dump();
    nlohmann::json networks = nlohmann::json::array();
    bool any_network = false;
    for (const auto& cell : described.cells) {
      networks.push_back(cell.network);
      any_network = any_network || !cell.network.is_null();
    }
    auto packed = plugin::host_from_cells(words, cpu, ram, pci, any_network || round % 2 ? networks.dump() : "");
    auto from_json = plugin::host_from_json_text(json.dump());
    ASSERT_TRUE(from_json) << from_json.error().message << "\n" << json.dump();
    ASSERT_TRUE(packed) << packed.error().message << "\n" << json.dump();
    EXPECT_EQ(plugin::host_to_json(*packed), plugin::host_to_json(*from_json)) << "round " << round << ": " << json.dump();
    EXPECT_EQ(packed->accounting, from_json->accounting);
    EXPECT_EQ(packed->ratio.enforced, described.ratios.has_value());
  }
}

// A random host where a cell names one more CPU: in its CPUs, a sibling group or its pins. When
// the CPU is another cell's, both readers refuse the host, naming the later of the two cells; when no
// cell has it (a thread the host keeps out of the cell's sets, as Nova's cells leave the host's
// reserved CPUs out) both read it.
TEST(HostCellsProperty, ACpuTwoCellsNameIsRefusedByBothReaders) {
  std::mt19937 rng(20261204);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  std::map<std::pair<bool, int>, int> drawn;  // (another cell's CPU, where it was added): rounds
  for (int round = 0; round < 3000; ++round) {
    Described described = random_host(rng);
    std::map<std::int64_t, std::size_t> owner;  // each CPU a cell names, and the index of that cell
    std::int64_t highest = -1;
    for (std::size_t i = 0; i < described.cells.size(); ++i) {
      const auto& c = described.cells[i];
      for (const auto* list : {&c.shared, &c.dedicated, &c.pinned}) {
        for (std::int64_t cpu : *list) owner[cpu] = i;
      }
      for (const auto& group : c.siblings) {
        for (std::int64_t cpu : group) owner[cpu] = i;
      }
    }
    if (!owner.empty()) highest = owner.rbegin()->first;
    const std::size_t at = static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(described.cells.size()) - 1));
    std::vector<std::int64_t> others;
    for (const auto& [cpu, index] : owner) {
      if (index != at) others.push_back(cpu);
    }
    const bool take_another = !others.empty() && pick(0, 3) != 0;
    const std::int64_t extra = take_another ? others[static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(others.size()) - 1))]
                                            : highest + 1 + pick(0, 3);
    const int where = static_cast<int>(pick(0, 2));
    Described::Cell& cell = described.cells[at];
    if (where == 0) {
      (pick(0, 1) ? cell.shared : cell.dedicated).push_back(extra);
    } else if (where == 1) {
      cell.siblings.push_back({extra});
    } else {
      cell.pinned.push_back(extra);
    }
    ++drawn[{take_another, where}];
    const double cpu = described.ratios ? described.ratios->first : std::nan("");
    const double ram = described.ratios ? described.ratios->second : std::nan("");
    const std::string pci = described.pci.empty() ? std::string() : described.pci.dump();
    auto packed = plugin::host_from_cells(words_of(described), cpu, ram, pci, "");
    auto from_json = plugin::host_from_json_text(json_of(described).dump());
    const std::string context = "round " + std::to_string(round) + ": cpu " + std::to_string(extra) + " added to cell " +
                                std::to_string(described.cells[at].id) + " (" + std::to_string(where) + "): " +
                                json_of(described).dump();
    if (!take_another) {
      ASSERT_TRUE(packed) << packed.error().message << "\n" << context;
      ASSERT_TRUE(from_json) << from_json.error().message << "\n" << context;
      continue;
    }
    ASSERT_FALSE(packed) << context;
    ASSERT_FALSE(from_json) << context;
    EXPECT_EQ(packed.error().name, "InvalidHostCells");
    EXPECT_EQ(from_json.error().name, "InconsistentHost");  // what the host says, as every reader names it
    const std::size_t later = std::max(at, owner[extra]);
    const std::string named = "cell " + std::to_string(described.cells[later].id) + ": cpu " + std::to_string(extra) + " ";
    EXPECT_NE(packed.error().message.find(named), std::string::npos) << packed.error().message << "\n" << context;
    EXPECT_NE(from_json.error().message.find(named), std::string::npos) << from_json.error().message << "\n" << context;
  }
  for (const auto& [kind, rounds] : drawn) EXPECT_GT(rounds, 100) << kind.first << " " << kind.second;
  EXPECT_EQ(drawn.size(), 6u);
}

TEST(HostCellsProperty, ACpuInTwoSiblingGroupsOfACellIsRefusedByBothReaders) {
  // A random host whose cell gets one more sibling group: a new CPU with, half the time, a CPU
  // of one of the cell's own groups. Both readers take the host exactly when no CPU is in two of
  // the cell's groups (this test's own count), and a refusal names the cell and the CPU.
  std::mt19937 rng(20261205);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  int refused = 0, taken = 0;
  for (int round = 0; round < 2000; ++round) {
    Described described = random_host(rng);
    const std::size_t at = static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(described.cells.size()) - 1));
    Described::Cell& cell = described.cells[at];
    std::int64_t highest = -1;
    for (const auto& c : described.cells) {
      for (const auto* list : {&c.shared, &c.dedicated, &c.pinned}) {
        for (std::int64_t cpu : *list) highest = std::max(highest, cpu);
      }
      for (const auto& group : c.siblings) {
        for (std::int64_t cpu : group) highest = std::max(highest, cpu);
      }
    }
    std::vector<std::int64_t> added{highest + 1};
    std::vector<std::int64_t> grouped;
    for (const auto& group : cell.siblings) grouped.insert(grouped.end(), group.begin(), group.end());
    if (!grouped.empty() && pick(0, 1) == 1) {
      added.push_back(grouped[static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(grouped.size()) - 1))]);
    }
    std::map<std::int64_t, int> groups_holding;
    for (std::int64_t cpu : grouped) ++groups_holding[cpu];
    for (std::int64_t cpu : added) ++groups_holding[cpu];
    std::optional<std::int64_t> twice;
    for (const auto& [cpu, count] : groups_holding) {
      if (count > 1) twice = cpu;
    }
    cell.siblings.push_back(added);
    const double cpu_ratio = described.ratios ? described.ratios->first : std::nan("");
    const double ram_ratio = described.ratios ? described.ratios->second : std::nan("");
    const std::string pci = described.pci.empty() ? std::string() : described.pci.dump();
    auto packed = plugin::host_from_cells(words_of(described), cpu_ratio, ram_ratio, pci, "");
    auto from_json = plugin::host_from_json_text(json_of(described).dump());
    const std::string context = json_of(described).dump();
    if (!twice) {
      ASSERT_TRUE(packed) << packed.error().message << "\n" << context;
      ASSERT_TRUE(from_json) << from_json.error().message << "\n" << context;
      ++taken;
      continue;
    }
    ASSERT_FALSE(packed) << context;
    ASSERT_FALSE(from_json) << context;
    const std::string named = "cell " + std::to_string(cell.id) + ": cpu " + std::to_string(*twice) + " is in two sibling groups";
    EXPECT_NE(packed.error().message.find(named), std::string::npos) << packed.error().message << "\n" << context;
    EXPECT_NE(from_json.error().message.find(named), std::string::npos) << from_json.error().message << "\n" << context;
    ++refused;
  }
  EXPECT_GT(refused, 300);
  EXPECT_GT(taken, 300);
}

// One cell: id 0, 1024 MiB, nothing used, no socket, CPUs 0-1 shared and dedicated, no pins,
// one sibling group {0, 1}, one 4 KiB pool.
Words one_cell() { return {1, 0, 1024, 0, 0, -1, 2, 0, 1, 2, 0, 1, 0, 1, 2, 0, 1, 1, 4, 262144, 0, 0}; }

std::string error_of(const Words& words, double cpu = 2.0, double ram = 1.0, const std::string& pci = "") {
  auto host = plugin::host_from_cells(words, cpu, ram, pci);
  if (host) return "read";
  return host.error().name + ": " + host.error().message;
}

TEST(HostCells, ReadsOneCell) {
  auto host = plugin::host_from_cells(one_cell(), 2.0, 1.0, "");
  ASSERT_TRUE(host) << host.error().message;
  ASSERT_EQ(host->cells.size(), 1u);
  EXPECT_EQ(to_cpu_list(host->cells[0].cpus), "0-1");
  EXPECT_EQ(host->cells[0].memory_kib, 1024u * 1024);
  EXPECT_FALSE(host->cells[0].socket.has_value());
  ASSERT_EQ(host->cells[0].siblings.size(), 1u);
  EXPECT_EQ(host->ratio.cpu, 2.0);
  EXPECT_TRUE(host->ratio.enforced);
}

TEST(HostCells, NamesTheBadWord) {
  Words truncated = one_cell();
  truncated.pop_back();
  EXPECT_EQ(error_of(truncated), "InvalidHostCells: packed host cells: the words end at word 21, where cell 0 pages reserved was to come");
  Words trailing = one_cell();
  trailing.push_back(7);
  EXPECT_EQ(error_of(trailing), "InvalidHostCells: packed host cells: 1 words are left after the last cell (word 22 on)");
  Words cpu = one_cell();
  cpu[7] = 65536;
  EXPECT_EQ(error_of(cpu), "InvalidHostCells: packed host cells: word 7 (cell 0 shared CPU id) is 65536, not within 0..65535");
  Words negative = one_cell();
  negative[6] = -1;
  EXPECT_EQ(error_of(negative).rfind("InvalidHostCells: packed host cells: word 6 (cell 0 number of shared CPUs) is -1", 0), 0u)
      << error_of(negative);
  Words memory = one_cell();
  memory[2] = std::int64_t{1} << 41;  // MiB whose KiB would pass 1 EiB
  EXPECT_NE(error_of(memory).find("word 2 (cell 0 memory MiB)"), std::string::npos) << error_of(memory);
  Words page = one_cell();
  page[18] = 0;
  EXPECT_NE(error_of(page).find("word 18 (cell 0 page size KiB) is 0"), std::string::npos) << error_of(page);
  Words groups = one_cell();
  groups[13] = 5;  // a sibling group larger than what is left
  EXPECT_NE(error_of(groups).find("(cell 0 size of a sibling group)"), std::string::npos) << error_of(groups);
  Words none = {0};
  EXPECT_NE(error_of(none).find("word 0 (the number of cells) is 0"), std::string::npos) << error_of(none);
  EXPECT_NE(error_of({}).find("the words end at word 0"), std::string::npos);
  Words twice = one_cell();
  twice[0] = 2;
  Words second = one_cell();
  twice.insert(twice.end(), second.begin() + 1, second.end());
  EXPECT_EQ(error_of(twice), "InvalidHostCells: packed host cells: cell 1 repeats cell id 0");
}

TEST(HostCells, RatiosAreBothNanOrBothValid) {
  EXPECT_EQ(error_of(one_cell(), std::nan(""), std::nan("")), "read");
  EXPECT_NE(error_of(one_cell(), std::nan(""), 1.0).find("the CPU allocation ratio must be"), std::string::npos);
  EXPECT_NE(error_of(one_cell(), 2.0, -1.0).find("the RAM allocation ratio must be"), std::string::npos);
  EXPECT_NE(error_of(one_cell(), 2.0, INFINITY).find("the RAM allocation ratio must be"), std::string::npos);
  EXPECT_FALSE(plugin::host_from_cells(one_cell(), std::nan(""), std::nan(""), "")->ratio.enforced);
}

TEST(HostCells, PciIsTheJsonSchemasList) {
  auto host = plugin::host_from_cells(one_cell(), 2.0, 1.0, R"([{"address": "0000:3b:00.1", "numa_node": 0,
      "vendor_id": "8086", "product_id": "1572", "tags": {"physical_network": "physnet1"}}])");
  ASSERT_TRUE(host) << host.error().message;
  ASSERT_EQ(host->pci.size(), 1u);
  EXPECT_EQ(host->pci[0].tags.at("physical_network"), "physnet1");
  EXPECT_EQ(error_of(one_cell(), 2.0, 1.0, "{"), "InvalidHostJson: pci is not valid JSON");
  EXPECT_EQ(error_of(one_cell(), 2.0, 1.0, R"([{"allocated": 1}])"), "InvalidHostJson: pci[0].allocated: must be true or false");
}

TEST(HostCells, NetworksAreAListWithAnEntryPerCell) {
  auto host = plugin::host_from_cells(one_cell(), 2.0, 1.0, "", R"([{"physnets": ["physnet1"], "tunneled": true}])");
  ASSERT_TRUE(host) << host.error().message;
  EXPECT_EQ(host->cells[0].network.physnets, std::vector<std::string>{"physnet1"});
  EXPECT_TRUE(host->cells[0].network.tunneled);
  auto none = plugin::host_from_cells(one_cell(), 2.0, 1.0, "", "[null]");
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->cells[0].network.physnets.empty());
  auto wrong = plugin::host_from_cells(one_cell(), 2.0, 1.0, "", "[null, null]");
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().name, "InvalidHostJson");
  EXPECT_NE(wrong.error().message.find("must be a list of 1 entries, one per cell"), std::string::npos) << wrong.error().message;
  auto bad = plugin::host_from_cells(one_cell(), 2.0, 1.0, "", R"([{"physnets": "physnet1"}])");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("networks[0]"), std::string::npos) << bad.error().message;
}

TEST(HostCellsCApi, ChecksItsArgumentsAndGivesAHost) {
  const Words words = one_cell();
  const auto* data = reinterpret_cast<const long long*>(words.data());
  np_host* host = nullptr;
  np_error* error = nullptr;
  EXPECT_EQ(np_host_from_cells(nullptr, 3, 2.0, 1.0, nullptr, nullptr, &host, &error), NP_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(np_error_name(error), "InvalidArgument");
  EXPECT_EQ(host, nullptr);
  np_error_free(error);
  EXPECT_EQ(np_host_from_cells(data, words.size() - 1, 2.0, 1.0, nullptr, nullptr, &host, &error), NP_ERR_INVALID_INPUT);
  EXPECT_STREQ(np_error_name(error), "InvalidHostCells");
  EXPECT_EQ(host, nullptr);
  np_error_free(error);
  ASSERT_EQ(np_host_from_cells(data, words.size(), 2.0, 1.0, "", nullptr, &host, &error), NP_OK) << np_error_message(error);
  char* json = nullptr;
  ASSERT_EQ(np_host_to_json(host, &json, &error), NP_OK);
  auto back = nlohmann::json::parse(json);
  EXPECT_EQ(back["cells"][0]["memory_kib"], 1024 * 1024);
  np_string_free(json);
  np_host_free(host);
}

}  // namespace
}  // namespace numaplace
