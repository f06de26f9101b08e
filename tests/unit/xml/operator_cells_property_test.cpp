// SPDX-License-Identifier: LGPL-2.1-or-later
// The operator's own <cpu><numa> cells and their <interconnects>, placed with a request that keeps,
// resizes or drops cells, as a property: random domains of 1 to 3 guest cells (random vCPUs and
// memory each) with random latency and bandwidth entries between them, which libvirt's test driver
// accepts, placed on that driver's host with no request, hw:numa_nodes=1 or 2. Every placement
// libvirt must define with validation on; every entry between cells the guest keeps stays and every
// other is dropped, each drop said; a cell the guest keeps with other vCPUs or memory is said as
// resized, one kept as written is not. Checked from the output with libxml2 and counted here.
#include <gtest/gtest.h>
#include <libvirt/libvirt.h>
#include <libxml/tree.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support/cpu_list_text.h"
#include "support/libvirt_test_driver.h"
#include "support/placed_domains.h"
#include "support/xml_walk.h"

namespace numaplace {
namespace {

using testing::attr;
using testing::child;
using testing::children;

struct DrawnCell {
  std::string cpus;
  long long memory_mib = 0;
};

struct Link {
  std::string kind;  // latency or bandwidth
  int initiator = 0, target = 0;
};

// Guest cell id -> (vCPU list as written, memory KiB), from a domain's <cpu><numa>.
std::map<int, std::pair<testing::CpuIds, long long>> cells_of(xmlNode* root) {
  std::map<int, std::pair<testing::CpuIds, long long>> cells;
  for (xmlNode* cell : children(testing::path(root, {"cpu", "numa"}), "cell")) {
    long long kib = std::stoll(attr(cell, "memory").value_or("0"));
    if (attr(cell, "unit") == std::optional<std::string>("MiB")) kib *= 1024;
    cells[std::stoi(attr(cell, "id").value_or("-1"))] = {testing::ids_in_list(attr(cell, "cpus").value_or("")), kib};
  }
  return cells;
}

TEST(OperatorCellsProperty, KeptResizedAndDroppedCellsAreWrittenAsLibvirtTakesThemAndSaid) {
  const testing::TestDriver conn = testing::open_test_driver();
  ASSERT_NE(conn, nullptr);
  const auto host = testing::test_driver_host(conn.get());
  ASSERT_TRUE(host.ok()) << host.error().message;
  std::mt19937 rng(20261207);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int placed = 0, links_kept = 0, links_dropped = 0, resized = 0, unchanged = 0, input_refused = 0;
  std::map<std::string, int> refusals;
  for (int round = 0; round < 400; ++round) {
    const int count = pick(1, 3);
    const int vcpus = count * pick(1, 3);
    std::vector<DrawnCell> cells(static_cast<std::size_t>(count));
    int next = 0;
    for (int c = 0; c < count; ++c) {
      const int take = c + 1 == count ? vcpus - next : pick(1, vcpus - next - (count - c - 1));
      cells[static_cast<std::size_t>(c)].cpus = next == next + take - 1 ? std::to_string(next)
                                                                          : std::to_string(next) + "-" + std::to_string(next + take - 1);
      next += take;
      cells[static_cast<std::size_t>(c)].memory_mib = 256LL * pick(1, 3);
    }
    long long memory_mib = 0;
    std::string numa = "<cpu><numa>";
    for (int c = 0; c < count; ++c) {
      memory_mib += cells[static_cast<std::size_t>(c)].memory_mib;
      numa += "<cell id='" + std::to_string(c) + "' cpus='" + cells[static_cast<std::size_t>(c)].cpus + "' memory='" +
              std::to_string(cells[static_cast<std::size_t>(c)].memory_mib) + "' unit='MiB'/>";
    }
    std::vector<Link> links;
    std::set<std::string> seen;
    for (int l = pick(0, 4); l > 0; --l) {
      Link link{pick(0, 1) == 0 ? "latency" : "bandwidth", pick(0, count - 1), pick(0, count - 1)};
      if (!seen.insert(link.kind + std::to_string(link.initiator) + std::to_string(link.target)).second) continue;
      links.push_back(link);
    }
    if (!links.empty()) {
      numa += "<interconnects>";
      for (const auto& link : links) {
        numa += "<" + link.kind + " initiator='" + std::to_string(link.initiator) + "' target='" + std::to_string(link.target) +
                "' type='access' value='" + std::to_string(pick(1, 200)) + "'" + (link.kind == "bandwidth" ? " unit='KiB'" : "") +
                "/>";
      }
      numa += "</interconnects>";
    }
    numa += "</numa></cpu>";
    const std::string name = "cells-" + std::to_string(round);
    const std::string xml = "<domain type='test'><name>" + name + "</name><memory unit='MiB'>" + std::to_string(memory_mib) +
                            "</memory><vcpu>" + std::to_string(vcpus) + "</vcpu><os><type>hvm</type></os>" + numa + "</domain>";
    if (!testing::define_for_a_look(conn.get(), xml, VIR_DOMAIN_DEFINE_VALIDATE)) {
      ++input_refused;  // libvirt's own rules for <interconnects> (e.g. an initiator cell it refuses)
      continue;
    }
    SpecMap specs;
    if (const int nodes = pick(0, 2); nodes > 0) specs["hw:numa_nodes"] = std::to_string(nodes);
    auto out = testing::place_with_specs(*host, xml, specs);
    if (!out) {
      ++refusals[out.error().name];
      continue;
    }
    ++placed;
    const std::string context = testing::placement_context(xml, specs, *out);
    {
      const testing::DefinedDomain defined = testing::define_for_a_look(conn.get(), out->domain_xml, VIR_DOMAIN_DEFINE_VALIDATE);
      EXPECT_NE(defined, nullptr) << (virGetLastErrorMessage() != nullptr ? virGetLastErrorMessage() : "") << "\n" << context;
    }
    testing::XmlDoc in_doc = testing::parse_xml(xml);
    testing::XmlDoc out_doc = testing::parse_xml(out->domain_xml);
    ASSERT_TRUE(out_doc) << context;
    const auto before = cells_of(xmlDocGetRootElement(in_doc.get()));
    const auto after = cells_of(xmlDocGetRootElement(out_doc.get()));
    int said_resized = 0, said_dropped_links = 0;
    for (const auto& warning : out->warnings) {
      said_resized += warning.find("as the request gives the guest's cells") != std::string::npos ? 1 : 0;
      said_dropped_links += warning.find("<interconnects><") != std::string::npos ? 1 : 0;
    }
    int expect_resized = 0;
    for (const auto& [id, cell] : before) {
      const auto kept = after.find(id);
      if (kept == after.end()) continue;
      if (kept->second != cell) {
        ++expect_resized;
      } else {
        ++unchanged;
      }
    }
    EXPECT_EQ(said_resized, expect_resized) << context;
    resized += expect_resized;
    std::multiset<std::string> written;
    if (xmlNode* interconnects = testing::path(xmlDocGetRootElement(out_doc.get()), {"cpu", "numa", "interconnects"})) {
      for (xmlNode* link = interconnects->children; link != nullptr; link = link->next) {
        if (link->type != XML_ELEMENT_NODE) continue;
        written.insert(testing::name_of(link) + attr(link, "initiator").value_or("?") + attr(link, "target").value_or("?"));
      }
    }
    int dropped = 0;
    for (const auto& link : links) {
      const bool keeps = after.count(link.initiator) != 0 && after.count(link.target) != 0;
      const std::string key = link.kind + std::to_string(link.initiator) + std::to_string(link.target);
      EXPECT_EQ(written.count(key), keeps ? 1U : 0U) << key << "\n" << context;
      (keeps ? links_kept : links_dropped) += 1;
      dropped += keeps ? 0 : 1;
    }
    EXPECT_EQ(written.size(), links.size() - static_cast<std::size_t>(dropped)) << context;
    EXPECT_EQ(said_dropped_links, dropped) << context;
    if (::testing::Test::HasFailure()) break;
  }
  std::string why;
  for (const auto& [error, n] : refusals) why += " " + error + " " + std::to_string(n);
  EXPECT_GT(placed, 200) << why << " input refused " << input_refused;
  EXPECT_GT(links_kept, 100) << why;
  EXPECT_GT(links_dropped, 30) << why;
  EXPECT_GT(resized, 50) << why;
  EXPECT_GT(unchanged, 50) << why;
}

}  // namespace
}  // namespace numaplace
