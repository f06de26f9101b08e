// SPDX-License-Identifier: LGPL-2.1-or-later
// The fit API's request JSON (plugin/service/fit_json.h) for PCI requests: Nova's spec lists
// read into the request as given, and each malformed spec named.
#include <gtest/gtest.h>

#include <string>

#include "plugin/service/fit_json.h"

namespace numaplace {
namespace {

constexpr const char* kTopology = R"("topology": {"cells": [{"id": 0, "cpus": [0, 1], "memory_mib": 512}]})";

std::string request_with(const std::string& pci) { return std::string("{") + kTopology + ", \"pci\": " + pci + "}"; }

TEST(FitJson, ReadsPciSpecListsAsGiven) {
  auto request = plugin::fit_request_from_json_text(request_with(
      R"([{"count": 2, "specs": [{"vendor_id": "8086", "dev_type": "type-VF"}, {"physical_network": "physnet1"}, {},
                             {"physical_network": null, "trusted": true}]},
          {"vendor_id": "10de", "product_id": "1eb8", "alias_numa_policy": "socket"}])"));
  ASSERT_TRUE(request) << request.error().message;
  ASSERT_TRUE(request->has_value());
  const auto& pci = (*request)->pci_requests;
  ASSERT_EQ(pci.size(), 2u);
  EXPECT_EQ(pci[0].count, 2u);
  ASSERT_EQ(pci[0].specs.size(), 4u);
  EXPECT_EQ(pci[0].specs[0], (PciSpec{{"vendor_id", "8086"}, {"dev_type", "type-VF"}}));
  EXPECT_EQ(pci[0].specs[1], (PciSpec{{"physical_network", "physnet1"}}));
  EXPECT_TRUE(pci[0].specs[2].empty());  // matches any device, as in Nova
  // Nova's None (a port on a tunneled network) and a value that is not a string, as themselves.
  EXPECT_EQ(pci[0].specs[3], (PciSpec{{"physical_network", PciTagValue::none()}, {"trusted", PciTagValue::json("true")}}));
  EXPECT_TRUE(pci[1].specs.empty());
  EXPECT_EQ(pci[1].vendor_id, "10de");
  EXPECT_EQ(pci[1].alias_numa_policy, "socket");
}

TEST(FitJson, NamesEachBadPciSpec) {
  const std::pair<const char*, const char*> cases[] = {
      {R"([{"vendor_id": "8086", "specs": [{"product_id": "154d"}]}])", "pci[0]: gives both specs and vendor_id"},
      {R"([{"specs": []}])", "pci[0].specs: must be a non-empty list"},
      {R"([{"specs": {"vendor_id": "8086"}}])", "pci[0].specs: must be a non-empty list"},
      {R"([{"specs": ["8086"]}])", "pci[0].specs[0]: must be an object"},
      {R"([{"specs": [{"vendor_id": ""}]}])", "pci[0].specs[0].vendor_id: must not be empty"},
      {R"([{"count": 1}, {"specs": [{"dev_type": "type-VF\n"}]}])", "pci[1].specs[0].dev_type: holds a control character"},
      {R"([{"count": 0, "specs": [{}]}])", "pci[0].count: must be at least 1"},
  };
  for (const auto& [pci, expected] : cases) {
    auto request = plugin::fit_request_from_json_text(request_with(pci));
    ASSERT_FALSE(request) << pci;
    EXPECT_EQ(request.error().name, "InvalidRequestJson") << pci;
    EXPECT_NE(request.error().message.find(expected), std::string::npos) << pci << " -> " << request.error().message;
  }
}

// A member the request's schema does not have, at any level, is named: a misspelt extra_specs
// would otherwise be a request without a topology, which every host fits. What np_derive's answer
// holds reads back.
TEST(FitJson, NamesEveryMemberItDoesNotKnow) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"flavor": {"vcpus": 4, "memory_mib": 1024, "extra_spec": {"hw:numa_nodes": "2"}}})", "request.flavor.extra_spec"},
      {R"({"flavor": {"vcpus": 4, "memory_mib": 1024}, "images": {"properties": {}}})", "request.images"},
      {R"({"flavor": {"vcpus": 4, "memory_mib": 1024}, "image": {"property": {}}})", "request.image.property"},
      {R"({"flavor": {"vcpus": 4, "memory_mib": 1024}, "pci": [{"count": 1, "vendorid": "8086"}]})", "request.pci[0].vendorid"},
      {R"({"topology": {"cells": [{"cpus": [0], "memory_mib": 512, "page_size": -1}]}})", "request.topology.cells[0].page_size"},
      {R"({"topology": {"cells": [{"cpus": [0], "memory_mib": 512}], "cpu-policy": "dedicated"}})", "request.topology.cpu-policy"},
  };
  for (const auto& [text, named] : cases) {
    auto request = plugin::fit_request_from_json_text(text);
    ASSERT_FALSE(request) << text;
    EXPECT_EQ(request.error().name, "InvalidRequestJson") << text;
    EXPECT_NE(request.error().message.find(std::string(named) + ": is not a field ("), std::string::npos)
        << text << " -> " << request.error().message;
  }
  auto derived = plugin::fit_request_from_json_text(
      R"({"flavor": {"vcpus": 4, "memory_mib": 1024, "extra_specs": {"hw:numa_nodes": "2", "hw:cpu_policy": "dedicated"}}})");
  ASSERT_TRUE(derived) << derived.error().message;
  ASSERT_TRUE(derived->has_value());
  const std::string again = "{\"topology\": " + plugin::guest_topology_json(*derived).dump() + "}";
  auto read_back = plugin::fit_request_from_json_text(again);
  ASSERT_TRUE(read_back) << again << " -> " << read_back.error().message;
  ASSERT_TRUE(read_back->has_value());
  EXPECT_EQ((**read_back).cells.size(), 2u);
}

}  // namespace
}  // namespace numaplace
