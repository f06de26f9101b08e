// SPDX-License-Identifier: LGPL-2.1-or-later
// Invariant: reading an hwloc export never loses or resizes huge pages. For random <page_type>
// entries on the sample's two NUMA nodes, either every entry that holds pages comes out as a pool
// of its size in KiB and its count, or the export is refused (HwlocLoadFailed) because an entry
// holding pages has a size that is not a whole number of KiB. The expectation is computed here from
// the drawn entries alone.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "plugin/sources/hwloc_source.h"
#include "support/test_paths.h"
#include "xml/xml_document.h"

namespace numaplace::plugin {
namespace {

struct Entry {
  std::uint64_t bytes = 0;
  std::uint64_t count = 0;
};

TEST(HwlocPagesProperty, PagesAreKeptAtTheirSizeOrTheExportIsRefused) {
  auto sample = xml::read_text_file(testing::shared_path("samples/hwloc/synth-2pkg-2numa.xml"), "hwloc");
  ASSERT_TRUE(sample.ok());
  const std::string one_pool = "<page_type size=\"4096\" count=\"4194304\"/>";
  const std::vector<std::uint64_t> sizes{0, 1, 512, 1000, 3000, 4096, 6144, 65536, 2097152, 1073741824};
  const std::vector<std::uint64_t> counts{0, 1, 8, 4194304};
  const std::string path =
      std::filesystem::temp_directory_path() / ("numaplace-hwloc-pages-" + std::to_string(getpid()) + ".xml");
  std::mt19937 rng(20261204);
  int kept = 0, refused = 0;
  for (int round = 0; round < 400; ++round) {
    std::vector<std::vector<Entry>> nodes(2);
    std::string text = *sample;
    std::size_t at = 0;
    for (auto& entries : nodes) {
      std::vector<std::uint64_t> pool = sizes;
      std::shuffle(pool.begin(), pool.end(), rng);
      const std::size_t n = 1 + rng() % 3;  // distinct sizes: a size twice is refused for another reason
      std::string written;
      for (std::size_t i = 0; i < n; ++i) {
        entries.push_back({pool[i], counts[rng() % counts.size()]});
        written += "<page_type size=\"" + std::to_string(pool[i]) + "\" count=\"" + std::to_string(entries.back().count) + "\"/>";
      }
      at = text.find(one_pool, at);
      ASSERT_NE(at, std::string::npos);
      text.replace(at, one_pool.size(), written);
      at += written.size();
    }
    bool must_refuse = false;
    for (const auto& entries : nodes) {
      for (const Entry& e : entries) must_refuse = must_refuse || (e.count > 0 && (e.bytes < 1024 || e.bytes % 1024 != 0));
    }
    std::ofstream(path) << text;
    auto host = load_hwloc_xml(path);
    std::filesystem::remove(path);
    if (must_refuse) {
      ASSERT_FALSE(host.ok()) << text;
      EXPECT_EQ(host.error().name, "HwlocLoadFailed");
      EXPECT_NE(host.error().message.find("pages of"), std::string::npos) << host.error().message;
      ++refused;
      continue;
    }
    ASSERT_TRUE(host.ok()) << host.error().name << ": " << host.error().message << "\n" << text;
    ASSERT_EQ(host->cells.size(), 2u);
    for (std::size_t node = 0; node < 2; ++node) {
      std::set<std::pair<std::uint64_t, std::uint64_t>> drawn, read;  // (KiB, pages) of pools that hold pages
      for (const Entry& e : nodes[node]) {
        if (e.count > 0) drawn.insert({e.bytes / 1024, e.count});
      }
      for (const auto& pool : host->cells[node].pages) {
        if (pool.total > 0) read.insert({pool.size_kib, pool.total});
      }
      EXPECT_EQ(read, drawn) << "node " << node << "\n" << text;
    }
    ++kept;
  }
  EXPECT_GT(kept, 50);
  EXPECT_GT(refused, 50);
}

}  // namespace
}  // namespace numaplace::plugin
