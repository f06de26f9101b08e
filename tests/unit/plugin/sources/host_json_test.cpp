// SPDX-License-Identifier: LGPL-2.1-or-later
// The JSON host schema (plugin/sources/host_json.h): the nova-fit fields, cpulist strings,
// round trip from capabilities, and a named error pointing at each bad field.
#include <gtest/gtest.h>

#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>

#include "plugin/sources/host_json.h"
#include "support/test_paths.h"
#include "xml/capabilities_reader.h"

namespace numaplace {
namespace {

TEST(HostJson, ReadsTheNovaSchemaWithUsage) {
  auto host = plugin::host_from_json_text(R"({"cells": [
      {"id": 0, "cpus": [0,1,2,3], "siblings": [[0,2],[1,3]], "memory_mib": 1024,
       "pages": [{"size_kib": 2048, "total": 8, "used": 2}, {"size_kib": 4, "total": 100}],
       "usage": {"shared_cpus": 1.5, "pinned_cpus": "2-3", "memory_mib": 512}, "distances": [10, 20]},
      {"id": 1, "cpus": "4-7", "memory_kib": 2048, "socket": 1, "dedicated_cpuset": [6,7], "shared_cpuset": [4,5]}],
    "pci": [{"address": "0000:3b:00.0", "numa_node": 1, "vendor_id": "8086", "product_id": "1572"}],
    "allocation_ratio": {"cpu": 4.0, "ram": 1.0}})");
  ASSERT_TRUE(host) << host.error().message;
  ASSERT_EQ(host->cells.size(), 2u);
  EXPECT_EQ(host->cells[0].memory_kib, 1024u * 1024);
  EXPECT_EQ(host->cells[0].pages.front().size_kib, 4u);  // sorted ascending
  EXPECT_EQ(to_cpu_list(host->cells[0].usage.pinned_cpus), "2-3");
  EXPECT_EQ(host->cells[0].usage.memory_kib, 512u * 1024);
  EXPECT_EQ(to_cpu_list(host->cells[1].cpus), "4-7");
  EXPECT_EQ(to_cpu_list(host->cells[1].dedicated_cpus), "6-7");
  EXPECT_EQ(host->cells[1].socket, 1u);
  EXPECT_EQ(host->pci.at(0).numa_node, 1u);
  EXPECT_EQ(host->ratio.cpu, 4.0);
}

// A misspelt field of a cell, its usage or a page pool is refused by name: dropped, it would make a
// busy cell read as idle (a new-user audit ranked such a host first). What host_to_json writes for
// people ("free") reads back.
TEST(HostJson, AMisspeltFieldIsRefusedNotDropped) {
  const std::string cell_start = R"({"cells": [{"id": 0, "cpus": "0-3", "memory_mib": 4096, )";
  for (const auto& [member, named] : std::initializer_list<std::pair<const char*, const char*>>{
           {R"("usage": {"pinnned_cpus": "0-3"})", "cells[0].usage.pinnned_cpus"},
           {R"("usage": {"memory": 1024})", "cells[0].usage.memory"},
           {R"("memroy_mib": 1)", "cells[0].memroy_mib"},
           {R"("pages": [{"size_kib": 4, "total": 1048576, "usde": 10}])", "cells[0].pages[0].usde"}}) {
    auto host = plugin::host_from_json_text(cell_start + member + "}]}");
    ASSERT_FALSE(host) << member;
    EXPECT_EQ(host.error().name, "InvalidHostJson");
    EXPECT_NE(host.error().message.find(named), std::string::npos) << host.error().message;
    EXPECT_NE(host.error().message.find("check its spelling"), std::string::npos);
  }
  auto made = plugin::host_from_json_text(cell_start + R"("usage": {"pinned_cpus": "0-1"}}]})");
  ASSERT_TRUE(made) << made.error().message;
  auto again = plugin::host_from_json(plugin::host_to_json(*made));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(to_cpu_list(again->cells[0].usage.pinned_cpus), "0-1");
}

TEST(HostJson, AMisspeltTopLevelFieldIsRefusedWhatWritersAddReadsBack) {
  const std::string cells = R"("cells": [{"id": 0, "cpus": "0-3", "memory_mib": 4096}])";
  for (const char* member : {R"("allocation_ratios": {"cpu": 1.0, "ram": 1.0})", R"("pci_devices": [])", R"("Name": "h1")"}) {
    auto host = plugin::host_from_json_text("{" + cells + ", " + member + "}", "h");
    ASSERT_FALSE(host) << member;
    EXPECT_EQ(host.error().name, "InvalidHostJson");
    EXPECT_NE(host.error().message.find("check its spelling"), std::string::npos) << host.error().message;
  }
  auto made = plugin::host_from_json_text("{" + cells + R"(, "name": "h1"})");
  ASSERT_TRUE(made) << made.error().message;
  nlohmann::json written = plugin::host_to_json(*made);
  written["guests"] = nlohmann::json::array();  // what `topology --json` and np_host_to_json add
  written["warnings"] = nlohmann::json::array({"a warning"});
  auto again = plugin::host_from_json(written);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(plugin::host_to_json(*again), plugin::host_to_json(*made));
}

// A device listed twice (the same address, in any of its spellings) would be given as two.
TEST(HostJson, APciDeviceListedTwiceIsRefused) {
  const std::string cells = R"("cells": [{"id": 0, "cpus": "0-3", "memory_mib": 4096}])";
  auto twice = plugin::host_from_json_text("{" + cells + R"(, "pci": [{"address": "0000:3b:00.0", "numa_node": 0},
      {"address": "3B:00.0", "numa_node": 0}]})");
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().name, "InvalidHostJson");
  EXPECT_NE(twice.error().message.find("pci[1].address: repeats device 0000:3b:00.0"), std::string::npos)
      << twice.error().message;
  EXPECT_TRUE(plugin::host_from_json_text("{" + cells + R"(, "pci": [{"address": "0000:3b:00.0"}, {"address": "0000:3b:00.1"}]})"));
}

TEST(HostJson, NullAllocationRatioMeansNoLimitsAndSurvivesTheRoundTrip) {
  auto host = plugin::host_from_json_text(R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1024,
       "usage": {"shared_cpus": 0, "memory_mib": 1000}}], "allocation_ratio": null})");
  ASSERT_TRUE(host) << host.error().message;
  EXPECT_FALSE(host->ratio.enforced);
  EXPECT_TRUE(plugin::host_to_json(*host)["allocation_ratio"].is_null());
  auto back = plugin::host_from_json(plugin::host_to_json(*host));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_FALSE(back->ratio.enforced);

  auto limited = plugin::host_from_json_text(R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1024}]})");
  ASSERT_TRUE(limited) << limited.error().message;
  EXPECT_TRUE(limited->ratio.enforced);  // absent: Nova's default ratios, checked
}

TEST(HostJson, RoundTripsACapabilitiesHost) {
  std::ifstream in(testing::shared_path("samples/libvirt/caps-4cell.xml"));
  std::stringstream text;
  text << in.rdbuf();
  auto caps = xml::read_capabilities(text.str());
  ASSERT_TRUE(caps);
  auto back = plugin::host_from_json(plugin::host_to_json(*caps));
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->cells.size(), caps->cells.size());
  for (std::size_t i = 0; i < caps->cells.size(); ++i) {
    EXPECT_EQ(back->cells[i].cpus, caps->cells[i].cpus);
    EXPECT_EQ(back->cells[i].siblings, caps->cells[i].siblings);
    EXPECT_EQ(back->cells[i].memory_kib, caps->cells[i].memory_kib);
    EXPECT_EQ(back->cells[i].distances, caps->cells[i].distances);
    EXPECT_EQ(back->cells[i].pages.size(), caps->cells[i].pages.size());
  }
}

TEST(HostJson, ReadsNetworkAffinityAndWritesItBack) {
  auto host = plugin::host_from_json_text(R"({"cells": [
      {"id": 0, "cpus": [0], "memory_mib": 1024, "network_metadata": {"physnets": ["p2", "p1", "p2"], "tunneled": true}},
      {"id": 1, "cpus": [1], "memory_mib": 1024, "network_metadata": {}},
      {"id": 2, "cpus": [2], "memory_mib": 1024}]})");
  ASSERT_TRUE(host) << host.error().message;
  EXPECT_EQ(host->cells[0].network.physnets, (std::vector<std::string>{"p1", "p2"}));  // a set, as Nova's
  EXPECT_TRUE(host->cells[0].network.tunneled);
  EXPECT_TRUE(host->cells[1].network.empty());
  EXPECT_TRUE(host->cells[2].network.empty());
  const nlohmann::json written = plugin::host_to_json(*host);
  EXPECT_EQ(written["cells"][0]["network_metadata"], nlohmann::json::parse(R"({"physnets": ["p1", "p2"], "tunneled": true})"));
  EXPECT_FALSE(written["cells"][1].contains("network_metadata"));
  auto again = plugin::host_from_json(written);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->cells[0].network.physnets, host->cells[0].network.physnets);
  EXPECT_EQ(again->cells[0].network.tunneled, true);
}

TEST(HostJson, ReadsPciTagsAndWritesThemBack) {
  auto host = plugin::host_from_json_text(R"({"cells": [{"id": 0, "cpus": [0, 1], "memory_mib": 1024}],
    "pci": [{"address": "0000:3b:00.1", "numa_node": 0, "vendor_id": "8086", "product_id": "154c",
             "tags": {"dev_type": "type-VF", "physical_network": "physnet1", "parent_ifname": null,
                      "trusted": true, "capabilities_network": ["rx", "tso"]}},
            {"address": "0000:3b:00.2", "numa_node": 0, "vendor_id": "8086", "product_id": "154c"}]})");
  ASSERT_TRUE(host) << host.error().message;
  EXPECT_EQ(host->pci.at(0).tags, (std::map<std::string, PciTagValue>{{"dev_type", "type-VF"},
                                                                      {"physical_network", "physnet1"},
                                                                      {"parent_ifname", PciTagValue::none()},
                                                                      {"trusted", PciTagValue::json("true")},
                                                                      {"capabilities_network", PciTagValue::json(R"(["rx","tso"])")}}));
  EXPECT_TRUE(host->pci.at(1).tags.empty());
  auto again = plugin::host_from_json_text(plugin::host_to_json(*host).dump());
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->pci.at(0).tags, host->pci.at(0).tags);
  EXPECT_TRUE(again->pci.at(1).tags.empty());
}

TEST(HostJson, NamesEachBadField) {
  const std::pair<const char*, const char*> cases[] = {
      {"not json", "not valid JSON"},
      {"[]", "must be a JSON object"},
      {R"({"cells": []})", "non-empty"},
      {R"({"cells": [{"cpus": [0], "memory_mib": 1}]})", "has no id"},
      {R"({"cells": [{"id": 0, "cpus": [-1], "memory_mib": 1}]})", "cells[0].cpus[0]: is negative"},
      {R"({"cells": [{"id": 0, "cpus": [70000], "memory_mib": 1}]})", "above the limit"},
      {R"({"cells": [{"id": 0, "cpus": "0-4294967295", "memory_mib": 1}]})", "cells[0].cpus"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 18446744073709551615}]})", "memory_mib"},
      {R"({"cells": [{"id": 0, "cpus": [0]}]})", "neither memory_mib nor memory_kib"},
      {R"({"name": "", "cells": [{"id": 0, "cpus": [0], "memory_mib": 1}]})", ".name: must not be empty"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 4096, "memory_kib": 1024}]})", "gives memory_mib and memory_kib that differ"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1, "distances": [10, 20, 20]}, {"id": 1, "cpus": [1], "memory_mib": 1}]})",
       "cells[0].distances: lists 3 distances for 2 cells"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1, "dedicated_cpuset": [5]}]})", "within cpus"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1, "usage": {"shared_cpus": -1}}]})", "usage.shared_cpus"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1}], "allocation_ratio": {"cpu": 0}})", "allocation_ratio.cpu"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1, "pages": [{"size_kib": 0, "total": 1}]}]})", "size_kib"},
      {R"({"cells": [{"id": "zero", "cpus": [0], "memory_mib": 1}]})", "cells[0].id"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1, "network_metadata": []}]})", "cells[0].network_metadata"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1, "network_metadata": {"physnets": "p1"}}]})",
       "network_metadata.physnets: must be a list"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1, "network_metadata": {"physnets": [1]}}]})",
       "network_metadata.physnets[0]: must be a string"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1, "network_metadata": {"physnets": [""]}}]})",
       "physnets[0]: must not be empty"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1, "network_metadata": {"physnets": ["a\nb"]}}]})",
       "control character"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1, "network_metadata": {"tunneled": "yes"}}]})",
       "network_metadata.tunneled: must be true or false"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1, "network_metadata": {"physnet": ["a"]}}]})",
       "network_metadata.physnet: is not a field"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1}], "pci": [{"tags": ["type-VF"]}]})", "pci[0].tags: must be an object"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1}], "pci": [{"tags": {"dev_type": ""}}]})",
       "pci[0].tags.dev_type: must not be empty"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1}], "pci": [{"tags": {"caps": [)"
       R"("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",)"
       R"("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",)"
       R"("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]}}]})",
       "pci[0].tags.caps: is longer than 255 bytes as JSON"},
      {R"({"cells": [{"id": 0, "cpus": [0], "memory_mib": 1, "pages": [{"size_kib": 2048, "total": 4},
           {"size_kib": 4, "total": 9}, {"size_kib": 2048, "total": 1}]}]})",
       "pages: lists page size 2048 KiB more than once"},
      // A cpulist's own message names the place once, not twice.
      {R"({"cells": [{"id": 0, "cpus": "5-3", "memory_mib": 1}]})", "cells[0].cpus: range '5-3' runs backwards"},
  };
  for (const auto& [text, expected] : cases) {
    auto host = plugin::host_from_json_text(text);
    ASSERT_FALSE(host) << text;
    EXPECT_EQ(host.error().name, "InvalidHostJson") << text;
    EXPECT_NE(host.error().message.find(expected), std::string::npos) << text << " -> " << host.error().message;
  }
}

}  // namespace
}  // namespace numaplace
