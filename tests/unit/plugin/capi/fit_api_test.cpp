// SPDX-License-Identifier: LGPL-2.1-or-later
// The fast fit API of numaplace.h (np_derive, np_request_*, np_fit, np_fit_hosts, np_fit_hosts_cells,
// np_fit_claim) as a C caller uses it: Nova's error classes, both request forms, bad input named, NULLs, and a
// property test on random hosts: np_fit's answer agrees with the C++ fit (fit_guest) on whether
// and where the guest fits, and every answer is checked against the host JSON by a checker of
// its own (every pinned vCPU on a free dedicated pCPU of its cell, no pCPU twice, the cell's
// vCPUs and memory as the topology says, memory and pages within the cell), then claims made
// with np_fit_claim until nothing fits never overlap nor exceed a cell. And Nova's own answers:
// every nova-fit reference vector (3,065) through the C ABI alone.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "numaplace.h"
#include "numaplace.hpp"
#include "placement/fit/fit.h"
#include "plugin/service/fit_json.h"
#include "plugin/sources/host_json.h"
#include "support/iconv_utf8.h"
#include "support/test_paths.h"

namespace numaplace {
namespace {

using nlohmann::json;

std::string take(char* text) {
  std::string out = text != nullptr ? text : "";
  np_string_free(text);
  return out;
}

const char* kTwoCellHost = R"({"cells": [
  {"id": 0, "cpus": [0,1,2,3], "siblings": [[0,1],[2,3]], "memory_mib": 4096,
   "pages": [{"size_kib": 4, "total": 1048576, "used": 0}, {"size_kib": 2048, "total": 512, "used": 0}]},
  {"id": 1, "cpus": [4,5,6,7], "siblings": [[4,5],[6,7]], "memory_mib": 4096,
   "pages": [{"size_kib": 4, "total": 1048576, "used": 0}, {"size_kib": 2048, "total": 512, "used": 0}]}],
  "allocation_ratio": {"cpu": 16.0, "ram": 1.0}})";

struct FitApi : ::testing::Test {
  void SetUp() override { ASSERT_EQ(np_host_from_json(kTwoCellHost, &host, &error), NP_OK); }
  void TearDown() override {
    np_request_free(request);
    np_error_free(error);
    np_host_free(host);
  }
  json fit(const char* request_json, const np_pair* options = nullptr, size_t count = 0) {
    np_request_free(request);
    request = nullptr;
    EXPECT_EQ(np_request_from_json(request_json, &request, &error), NP_OK) << (error ? np_error_message(error) : "");
    char* answer = nullptr;
    EXPECT_EQ(np_fit(host, request, options, count, &answer, &error), NP_OK);
    return json::parse(take(answer));
  }
  np_host* host = nullptr;
  np_request* request = nullptr;
  np_error* error = nullptr;
};

TEST_F(FitApi, DeriveGivesNovasTopologyAndNovasErrors) {
  const np_pair two[] = {{"hw:numa_nodes", "2"}};
  char* text = nullptr;
  ASSERT_EQ(np_derive(4, 2048, two, 1, nullptr, 0, &text, &error), NP_OK);
  json topology = json::parse(take(text));
  ASSERT_EQ(topology["cells"].size(), 2u);
  EXPECT_EQ(topology["cells"][0]["cpus"], json({0, 1}));
  EXPECT_EQ(topology["cells"][1]["memory_mib"], 1024);
  EXPECT_TRUE(topology["cpu_policy"].is_null());

  const np_pair none[] = {{"hw:cpu_policy", "shared"}};
  ASSERT_EQ(np_derive(4, 2048, none, 1, nullptr, 0, &text, &error), NP_OK);
  EXPECT_EQ(take(text), "null");

  const np_pair asymmetric[] = {{"hw:numa_nodes", "2"}, {"hw:numa_cpus.0", "0"}, {"hw:numa_cpus.1", "1-3"}};
  EXPECT_EQ(np_derive(4, 2048, asymmetric, 3, nullptr, 0, &text, &error), NP_ERR_INVALID_INPUT);
  EXPECT_EQ(text, nullptr);
  EXPECT_STREQ(np_error_name(error), "ImageNUMATopologyIncomplete");
  np_error_free(error);
  error = nullptr;
  const np_pair image[] = {{"hw_cpu_policy", "dedicated"}};
  const np_pair shared[] = {{"hw:cpu_policy", "shared"}};
  EXPECT_EQ(np_derive(4, 2048, shared, 1, image, 1, &text, &error), NP_ERR_INVALID_INPUT);
  EXPECT_STREQ(np_error_name(error), "ImageCPUPinningForbidden");
}

TEST_F(FitApi, FitsAFlavorRequestWithPinningAndPages) {
  json answer = fit(R"({"flavor": {"vcpus": 4, "memory_mib": 2048,
      "extra_specs": {"hw:numa_nodes": "2", "hw:cpu_policy": "dedicated", "hw:mem_page_size": "2048"}}})");
  ASSERT_EQ(answer["kind"], "fit") << answer.dump();
  ASSERT_EQ(answer["cells"].size(), 2u);
  EXPECT_EQ(answer["cells"][0]["host_cell"], 0);
  EXPECT_EQ(answer["cells"][1]["host_cell"], 1);
  EXPECT_EQ(answer["cells"][0]["pagesize_kib"], 2048);
  EXPECT_EQ(answer["cells"][1]["pinning"].size(), 2u);
  for (const auto& [vcpu, pcpu] : answer["cells"][1]["pinning"].items()) {
    EXPECT_GE(pcpu.get<int>(), 4) << vcpu;
  }
}

TEST_F(FitApi, AnInstanceTopologyIsTakenAsGiven) {
  json answer = fit(R"({"topology": {"cells": [{"id": 0, "cpus": [0,1,2], "pcpus": [1,2], "memory_mib": 1024,
      "pagesize": null}], "cpu_policy": "mixed"}})");
  ASSERT_EQ(answer["kind"], "fit") << answer.dump();
  EXPECT_EQ(answer["cells"][0]["pinning"].size(), 2u);
  EXPECT_TRUE(answer["cells"][0]["pinning"].contains("1"));
  EXPECT_EQ(json::parse(np_request_topology_json(request))["cells"][0]["pcpus"], json({1, 2}));
  EXPECT_EQ(fit(R"({"topology": null})")["kind"], "no_topology");
}

TEST_F(FitApi, NotFittingIsAnAnswerWithTheReasonPerCell) {
  json answer = fit(R"({"flavor": {"vcpus": 6, "memory_mib": 1024, "extra_specs": {"hw:cpu_policy": "dedicated"}}})");
  ASSERT_EQ(answer["kind"], "no_fit");
  ASSERT_EQ(answer["rejections"].size(), 2u);
  EXPECT_NE(answer["rejections"][0]["reason"].get<std::string>().find("6"), std::string::npos) << answer.dump();
  EXPECT_FALSE(answer["summary"].get<std::string>().empty());
}

TEST_F(FitApi, NetworkMetadataInTheRequestKeepsTheGuestNearItsNetwork) {
  np_host_free(host);
  host = nullptr;
  json doc = json::parse(kTwoCellHost);
  doc["cells"][1]["network_metadata"] = {{"physnets", {"physnet1"}}, {"tunneled", false}};
  ASSERT_EQ(np_host_from_json(doc.dump().c_str(), &host, &error), NP_OK);
  const char* flavor = R"({"flavor": {"vcpus": 2, "memory_mib": 512, "extra_specs": {"hw:numa_nodes": "1"}}})";
  EXPECT_EQ(fit(flavor)["cells"][0]["host_cell"], 0);
  const std::string near = std::string(flavor).insert(std::string(flavor).size() - 1,
                                                       R"(, "network_metadata": {"physnets": ["physnet1"]})");
  for (const char* strategy : {"nova", "spread", "pack", "adaptive"}) {
    const np_pair options[] = {{"strategy", strategy}};
    EXPECT_EQ(fit(near.c_str(), options, 1)["cells"][0]["host_cell"], 1) << strategy;
  }
  EXPECT_EQ(json::parse(np_request_topology_json(request))["network_metadata"],
            json::parse(R"({"physnets": ["physnet1"], "tunneled": false})"));
  // The topology form carries it too; with a null topology it is read and changes nothing.
  EXPECT_EQ(fit(R"({"topology": {"cells": [{"cpus": [0], "memory_mib": 256}]},
                    "network_metadata": {"physnets": ["physnet1"]}})")["cells"][0]["host_cell"], 1);
  EXPECT_EQ(fit(R"({"topology": null, "network_metadata": {"tunneled": true}})")["kind"], "no_topology");
  // A topology as np_derive writes it, given back, keeps its networks (the fuzz harness fitrequest
  // found them dropped), and the same networks may be said beside it too, not different ones.
  fit(near.c_str());
  const json derived = json::parse(np_request_topology_json(request));
  ASSERT_EQ(derived["network_metadata"]["physnets"], json::array({"physnet1"}));
  EXPECT_EQ(fit(json{{"topology", derived}}.dump().c_str())["cells"][0]["host_cell"], 1);
  EXPECT_EQ(json::parse(np_request_topology_json(request))["network_metadata"], derived["network_metadata"]);
  EXPECT_EQ(fit(json{{"topology", derived}, {"network_metadata", derived["network_metadata"]}}.dump().c_str())
                ["cells"][0]["host_cell"],
            1);
  np_request* twice = nullptr;
  const std::string differently =
      json{{"topology", derived}, {"network_metadata", {{"physnets", json::array()}, {"tunneled", true}}}}.dump();
  EXPECT_EQ(np_request_from_json(differently.c_str(), &twice, &error), NP_ERR_INVALID_INPUT);
  EXPECT_EQ(twice, nullptr);
  EXPECT_STREQ(np_error_name(error), "InvalidRequestJson");
  np_error_free(error);
  error = nullptr;
}

TEST_F(FitApi, BadRequestsAndOptionsAreNamed) {
  for (const char* bad : {"not json", "[]", "{}", R"({"flavor": {"vcpus": 0, "memory_mib": 1}})",
                          R"({"flavor": {"vcpus": 2}})", R"({"flavor": {"vcpus": 2, "memory_mib": 1}, "topology": null})",
                          R"({"topology": {"cells": []}})", R"({"topology": {"cells": [{"cpus": [0], "memory_mib": -1}]}})",
                          R"({"topology": {"cells": [{"cpus": [0], "pcpus": [1], "memory_mib": 1}], "cpu_policy": "dedicated"}})",
                          R"({"topology": {"cells": [{"cpus": [0], "memory_mib": 1}], "cpu_policy": "sometimes"}})",
                          R"({"topology": {"cells": [{"cpus": [0], "memory_mib": 1, "pagesize": -7}]}})",
                          R"({"flavor": {"vcpus": 2, "memory_mib": 1, "extra_specs": {"hw:numa_nodes": [2]}}})",
                          R"({"flavor": {"vcpus": 2, "memory_mib": 1}, "network_metadata": ["p1"]})",
                          R"({"flavor": {"vcpus": 2, "memory_mib": 1}, "network_metadata": {"physnets": [""]}})",
                          R"({"flavor": {"vcpus": 2, "memory_mib": 1}, "network_metadata": {"tunneled": 1}})",
                          R"({"topology": null, "network_metadata": {"physnets": [7]}})"}) {
    np_request* r = nullptr;
    EXPECT_EQ(np_request_from_json(bad, &r, &error), NP_ERR_INVALID_INPUT) << bad;
    EXPECT_EQ(r, nullptr);
    EXPECT_STREQ(np_error_name(error), "InvalidRequestJson") << bad;
    np_error_free(error);
    error = nullptr;
  }
  fit(R"({"flavor": {"vcpus": 2, "memory_mib": 512, "extra_specs": {"hw:numa_nodes": "1"}}})");
  const np_pair unknown[] = {{"policy", "restricted"}};
  char* answer = nullptr;
  EXPECT_EQ(np_fit(host, request, unknown, 1, &answer, &error), NP_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(answer, nullptr);
  np_error_free(error);
  error = nullptr;
  EXPECT_EQ(np_fit(nullptr, request, nullptr, 0, &answer, &error), NP_ERR_INVALID_ARGUMENT);
  np_error_free(error);
  error = nullptr;
  EXPECT_EQ(np_fit(host, nullptr, nullptr, 0, &answer, &error), NP_ERR_INVALID_ARGUMENT);
  np_error_free(error);
  error = nullptr;
  EXPECT_EQ(np_fit_claim(host, request, "", nullptr, 0, &answer, &error), NP_ERR_INVALID_ARGUMENT);
  np_error_free(error);
  error = nullptr;
  const np_pair pack[] = {{"cell_order", "pack"}};
  EXPECT_EQ(np_fit(host, request, pack, 1, &answer, &error), NP_OK);
  np_string_free(answer);
}

TEST_F(FitApi, FitHostsAnswersPerHostAndClaimsUpdateTheHostInPlace) {
  fit(R"({"flavor": {"vcpus": 4, "memory_mib": 1024, "extra_specs": {"hw:cpu_policy": "dedicated"}}})");
  np_host* second = nullptr;
  ASSERT_EQ(np_host_from_json(kTwoCellHost, &second, &error), NP_OK);
  char* answer = nullptr;
  // Two claims take both cells' pCPUs of the first host; the third finds none.
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(np_fit_claim(host, request, ("guest-" + std::to_string(i)).c_str(), nullptr, 0, &answer, &error), NP_OK);
    EXPECT_EQ(json::parse(take(answer))["kind"], "fit");
  }
  const np_host* hosts[] = {host, second};
  ASSERT_EQ(np_fit_hosts(hosts, 2, request, nullptr, 0, &answer, &error), NP_OK);
  json answers = json::parse(take(answer));
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0]["kind"], "no_fit");
  EXPECT_EQ(answers[1]["kind"], "fit");
  ASSERT_EQ(np_host_to_json(host, &answer, &error), NP_OK);
  json held = json::parse(take(answer));
  EXPECT_EQ(held["cells"][0]["usage"]["pinned_cpus"].size() + held["cells"][1]["usage"]["pinned_cpus"].size(), 8u);
  np_host_free(second);

  // Releasing one guest gives its pCPUs back: the request fits again, on what guest-0 held.
  ASSERT_EQ(np_host_release(host, "guest-0", &error), NP_OK);
  ASSERT_EQ(np_fit(host, request, nullptr, 0, &answer, &error), NP_OK);
  EXPECT_EQ(json::parse(take(answer))["kind"], "fit");
  EXPECT_EQ(np_host_release(host, "guest-0", &error), NP_ERR_INVALID_ARGUMENT);  // held nothing any more
  EXPECT_STREQ(np_error_name(error), "InvalidArgument");
  np_error_free(error);
  error = nullptr;
  ASSERT_EQ(np_host_release(host, "guest-1", &error), NP_OK);
  ASSERT_EQ(np_host_to_json(host, &answer, &error), NP_OK);
  held = json::parse(take(answer));
  EXPECT_TRUE(held["cells"][0]["usage"]["pinned_cpus"].empty());
  EXPECT_TRUE(held["cells"][1]["usage"]["pinned_cpus"].empty());
}

// np_fit_claim holds the PCI devices it gives: on random hosts with devices of two kinds on random
// nodes (or none), guests asking for 1-2 devices of a kind are claimed until nothing fits. Checked
// by counting, apart from the library: no device is held by two guests, each guest holds as many
// devices of its kind as it asked for, the claims that fit never ask for more devices of a kind
// than the host has, and releasing a guest frees exactly its devices.
TEST(FitApiPciClaims, ClaimedDevicesAreHeldOnceAndReleasedWithTheirGuest) {
  std::mt19937 rng(20261204);
  const char* kinds[2][2] = {{"8086", "154d"}, {"15b3", "1018"}};
  int claimed_devices = 0;
  for (int round = 0; round < 300; ++round) {
    const int cells = 1 + static_cast<int>(rng() % 4);
    json host = {{"cells", json::array()}, {"pci", json::array()}};
    for (int c = 0; c < cells; ++c) {
      host["cells"].push_back({{"id", c}, {"cpus", {4 * c, 4 * c + 1, 4 * c + 2, 4 * c + 3}}, {"memory_mib", 65536}});
    }
    int of_kind[2] = {0, 0};
    for (int d = 0, n = static_cast<int>(rng() % 7); d < n; ++d) {
      const int kind = static_cast<int>(rng() % 2);
      ++of_kind[kind];
      const int node = static_cast<int>(rng() % (cells + 1));  // `cells`: no NUMA node
      host["pci"].push_back({{"address", "0000:3b:00." + std::to_string(d)}, {"vendor_id", kinds[kind][0]},
                             {"product_id", kinds[kind][1]}, {"numa_node", node == cells ? json() : json(node)}});
    }
    np_host* handle = nullptr;
    np_error* error = nullptr;
    ASSERT_EQ(np_host_from_json(host.dump().c_str(), &handle, &error), NP_OK) << np_error_message(error);
    std::map<std::string, std::pair<int, int>> asked;  // guest: (kind, count)
    int asked_of_kind[2] = {0, 0};
    for (int g = 0; g < 8; ++g) {
      const int kind = static_cast<int>(rng() % 2), count = 1 + static_cast<int>(rng() % 2);
      const char* policy = rng() % 2 ? "legacy" : "preferred";
      const json document = {{"flavor", {{"vcpus", 1}, {"memory_mib", 512},
                                         {"extra_specs", {{"hw:numa_nodes", "1"}, {"hw:pci_numa_affinity_policy", policy}}}}},
                             {"pci", {{{"count", count}, {"vendor_id", kinds[kind][0]}, {"product_id", kinds[kind][1]}}}}};
      np_request* request = nullptr;
      ASSERT_EQ(np_request_from_json(document.dump().c_str(), &request, &error), NP_OK) << np_error_message(error);
      char* answer = nullptr;
      const std::string name = "g" + std::to_string(g);
      ASSERT_EQ(np_fit_claim(handle, request, name.c_str(), nullptr, 0, &answer, &error), NP_OK);
      if (json::parse(take(answer))["kind"] == "fit") {
        asked[name] = {kind, count};
        asked_of_kind[kind] += count;
      }
      np_request_free(request);
    }
    for (int kind : {0, 1}) EXPECT_LE(asked_of_kind[kind], of_kind[kind]) << "round " << round << ": " << host.dump();
    char* text = nullptr;
    ASSERT_EQ(np_host_to_json(handle, &text, &error), NP_OK);
    const json after = json::parse(take(text));
    std::map<std::string, std::pair<int, int>> held;  // guest: (kind, devices)
    for (const auto& device : after["pci"]) {
      if (!device["allocated"].get<bool>()) {
        EXPECT_TRUE(device["held_by"].is_null());
        continue;
      }
      const std::string by = device["held_by"].get<std::string>();
      const int kind = device["vendor_id"] == kinds[0][0] ? 0 : 1;
      auto& [held_kind, devices] = held.try_emplace(by, kind, 0).first->second;
      EXPECT_EQ(held_kind, kind) << by;
      ++devices;
      ++claimed_devices;
    }
    ASSERT_EQ(held.size(), asked.size()) << "round " << round << ": " << after.dump();
    for (const auto& [name, kind_count] : asked) {
      ASSERT_TRUE(held.count(name)) << name << " holds no device: " << after.dump();
      EXPECT_EQ(held[name].first, kind_count.first) << name;
      EXPECT_EQ(held[name].second, kind_count.second) << name;
    }
    if (!asked.empty()) {  // one guest released: exactly its devices are free again
      const auto& [name, kind_count] = *asked.begin();
      ASSERT_EQ(np_host_release(handle, name.c_str(), &error), NP_OK);
      ASSERT_EQ(np_host_to_json(handle, &text, &error), NP_OK);
      int still = 0;
      const json released = json::parse(take(text));
      for (const auto& device : released["pci"]) still += device["allocated"].get<bool>() ? 1 : 0;
      int total = 0;
      for (const auto& [other, devices] : held) total += devices.second;
      EXPECT_EQ(still, total - kind_count.second) << name << " round " << round << ": " << after.dump();
    }
    np_host_free(handle);
  }
  EXPECT_GT(claimed_devices, 200);
}

// np_fit_claim from many threads on one host: every claim that fits holds pCPUs no other holds,
// and exactly as many fit as the host has room for (8 pCPUs, 1 per guest).
TEST_F(FitApi, ConcurrentClaimsNeverShareAPcpu) {
  fit(R"({"flavor": {"vcpus": 1, "memory_mib": 128, "extra_specs": {"hw:cpu_policy": "dedicated"}}})");
  std::vector<std::vector<int>> held(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 5; ++k) {
        char* text = nullptr;
        np_error* mine = nullptr;
        if (np_fit_claim(host, request, ("t" + std::to_string(t) + "-" + std::to_string(k)).c_str(), nullptr, 0, &text,
                         &mine) != NP_OK) {
          np_error_free(mine);
          continue;
        }
        const json answer = json::parse(take(text));
        if (answer["kind"] == "fit") held[t].push_back(answer["cells"][0]["pinning"]["0"].get<int>());
        const np_host* hosts[] = {host};  // readers at the same time
        if (np_fit_hosts(hosts, 1, request, nullptr, 0, &text, &mine) == NP_OK) np_string_free(text);
        np_error_free(mine);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  std::set<int> all;
  std::size_t count = 0;
  for (const auto& pins : held) {
    for (int p : pins) {
      ++count;
      EXPECT_TRUE(all.insert(p).second) << "pCPU " << p << " claimed twice";
    }
  }
  EXPECT_EQ(count, 8u);
  EXPECT_EQ(all, std::set<int>({0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(FitApiCpp, TheHeaderOnlyApiWrapsTheFitCalls) {
  auto host = api::Host::from_json(kTwoCellHost);
  auto request = api::FitRequest::from_specs(2, 1024, {{"hw:cpu_policy", "dedicated"}});
  EXPECT_EQ(json::parse(request.topology_json())["cells"][0]["pcpus"], json({0, 1}));
  EXPECT_EQ(json::parse(host.fit(request))["kind"], "fit");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(json::parse(host.fit_claim(request, "g" + std::to_string(i)))["kind"], "fit");
  EXPECT_EQ(json::parse(host.fit(request))["kind"], "no_fit");
  host.release("g0");
  EXPECT_EQ(json::parse(host.fit(request))["kind"], "fit");
  try {
    api::FitRequest::from_json(R"({"topology": {"cells": []}})");
    ADD_FAILURE() << "a request with no cells was accepted";
  } catch (const api::Error& e) {
    EXPECT_EQ(e.name(), "InvalidRequestJson");
  }
}

// ---- property test: random hosts and requests ----

struct RandomCase {
  json host;
  json request;
};

RandomCase random_case(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  json cells = json::array();
  const int n_cells = pick(1, 4);
  const int threads = pick(1, 2);
  const int cores = pick(1, 4);
  const bool split = pick(0, 4) == 0;  // cpu_shared_set / cpu_dedicated_set style
  int next = 0;
  for (int c = 0; c < n_cells; ++c) {
    json cpus = json::array(), siblings = json::array(), shared = json::array(), dedicated = json::array();
    for (int k = 0; k < cores; ++k) {
      json group = json::array();
      for (int t = 0; t < threads; ++t) {
        cpus.push_back(next);
        group.push_back(next);
        (k % 2 == 0 ? dedicated : shared).push_back(next);
        ++next;
      }
      siblings.push_back(group);
    }
    const int memory_mib = 1024 * pick(1, 4);
    const int huge_total = pick(0, 1) ? pick(0, 2048) : 0;
    json pinned = json::array();
    for (const auto& cpu : (split ? dedicated : cpus)) {
      if (pick(0, 3) == 0) pinned.push_back(cpu);
    }
    json cell = {{"id", c},
                 {"cpus", cpus},
                 {"siblings", siblings},
                 {"memory_mib", memory_mib},
                 {"pages", {{{"size_kib", 4}, {"total", memory_mib * 256}, {"used", 0}},
                            {{"size_kib", 2048}, {"total", huge_total}, {"used", pick(0, huge_total)}}}},
                 {"usage", {{"shared_cpus", pick(0, 4)}, {"pinned_cpus", pinned}, {"memory_mib", 256 * pick(0, 4)}}}};
    if (split) {
      cell["shared_cpuset"] = shared;
      cell["dedicated_cpuset"] = dedicated;
    }
    cells.push_back(cell);
  }
  json host = {{"cells", cells}, {"allocation_ratio", {{"cpu", 4.0}, {"ram", 1.0}}}};
  json specs = json::object();
  const int vcpus = pick(1, 6);
  if (pick(0, 2) > 0) specs["hw:numa_nodes"] = std::to_string(pick(1, 2));
  const char* policies[] = {"shared", "dedicated", "mixed"};
  const std::string policy = policies[pick(0, 2)];
  specs["hw:cpu_policy"] = policy;
  if (policy == "mixed") {
    if (vcpus < 2) specs["hw:cpu_policy"] = "dedicated";
    else specs["hw:cpu_dedicated_mask"] = "^0";
  }
  if (policy != "shared" && pick(0, 2) == 0) {
    const char* threads_policy[] = {"prefer", "isolate", "require"};
    specs["hw:cpu_thread_policy"] = threads_policy[pick(0, 2)];
  }
  if (pick(0, 3) == 0) specs["hw:mem_page_size"] = pick(0, 1) ? "2048" : "small";
  if (policy == "dedicated" && pick(0, 4) == 0) specs["hw:emulator_threads_policy"] = "isolate";
  json request = {{"flavor", {{"vcpus", vcpus}, {"memory_mib", 256 * pick(1, 8)}, {"extra_specs", specs}}}};
  return {host, request};
}

std::set<int> int_set(const json& list) {
  std::set<int> out;
  for (const auto& v : list) out.insert(v.get<int>());
  return out;
}

// The checker: the answer against the host JSON and the topology JSON, nothing of the engine's.
// Returns what is wrong, or "".
std::string answer_problem(const json& host, const json& topology, const json& answer) {
  if (answer["kind"] != "fit") return "";
  const json& cells = answer["cells"];
  if (cells.size() != topology["cells"].size()) return "not one answer per guest cell";
  std::set<int> host_cells_taken;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const json& placed = cells[i];
    const json& guest = topology["cells"][i];
    const std::string at = "guest cell " + std::to_string(i) + ": ";
    if (placed["guest_cell"] != static_cast<int>(i)) return at + "guest_cell out of order";
    const int hc = placed["host_cell"];
    if (!host_cells_taken.insert(hc).second) return at + "host cell " + std::to_string(hc) + " taken twice";
    const json* cell = nullptr;
    for (const auto& c : host["cells"]) {
      if (c["id"] == hc) cell = &c;
    }
    if (cell == nullptr) return at + "unknown host cell";
    if (placed["guest_cpus"] != guest["cpus"]) return at + "guest_cpus differ from the topology's";
    if (placed["memory_kib"] != guest["memory_kib"]) return at + "memory differs from the topology's";
    const std::set<int> dedicated = int_set(cell->contains("dedicated_cpuset") ? (*cell)["dedicated_cpuset"] : (*cell)["cpus"]);
    const std::set<int> used = int_set((*cell)["usage"]["pinned_cpus"]);
    std::set<int> pinned_vcpus, pcpus;
    if (!placed["pinning"].is_null()) {
      for (const auto& [vcpu, pcpu] : placed["pinning"].items()) {
        pinned_vcpus.insert(std::stoi(vcpu));
        const int p = pcpu.get<int>();
        if (!dedicated.count(p)) return at + "pCPU " + std::to_string(p) + " not a dedicated pCPU of its cell";
        if (used.count(p)) return at + "pCPU " + std::to_string(p) + " already pinned";
        if (!pcpus.insert(p).second) return at + "pCPU " + std::to_string(p) + " twice";
      }
    }
    if (pinned_vcpus != int_set(guest["pcpus"])) return at + "pinned vCPUs are not the dedicated ones";
    if (!placed["cpuset_reserved"].is_null()) {
      for (int r : int_set(placed["cpuset_reserved"])) {
        if (!dedicated.count(r) || used.count(r) || pcpus.count(r)) return at + "emulator pCPU not free";
      }
    }
    const std::uint64_t mem_kib = placed["memory_kib"];
    const std::uint64_t cell_kib = (*cell)["memory_mib"].get<std::uint64_t>() * 1024;
    if (placed["pagesize_kib"].is_null() || placed["pagesize_kib"] == 4) {
      const std::uint64_t usage_kib = (*cell)["usage"]["memory_mib"].get<std::uint64_t>() * 1024;
      if (mem_kib > cell_kib) return at + "memory above the cell's";
      if (!pcpus.empty() && mem_kib + usage_kib > cell_kib) return at + "pinned guest's memory above what is free";
    } else {
      const std::uint64_t size = placed["pagesize_kib"];
      bool found = false;
      for (const auto& pool : (*cell)["pages"]) {
        if (pool["size_kib"] != size) continue;
        found = true;
        const std::uint64_t free_pages = pool["total"].get<std::uint64_t>() - pool["used"].get<std::uint64_t>();
        if (mem_kib % size != 0 || mem_kib / size > free_pages) return at + "not enough free pages";
      }
      if (!found) return at + "no pool of the chosen page size";
    }
  }
  return "";
}

TEST(FitApiProperty, AgreesWithTheEngineAndEveryAnswerHolds) {
  std::mt19937 rng(20261201);
  int fits = 0, no_fits = 0, invalid = 0;
  for (int round = 0; round < 1500; ++round) {
    RandomCase c = random_case(rng);
    const std::string host_text = c.host.dump(), request_text = c.request.dump();
    np_host* host = nullptr;
    np_request* request = nullptr;
    np_error* error = nullptr;
    ASSERT_EQ(np_host_from_json(host_text.c_str(), &host, &error), NP_OK) << host_text;
    if (np_request_from_json(request_text.c_str(), &request, &error) != NP_OK) {
      ++invalid;  // a request Nova refuses (e.g. isolate with mixed): the same name as derive gives
      auto direct = plugin::fit_request_from_json_text(request_text);
      ASSERT_FALSE(direct);
      EXPECT_EQ(direct.error().name, np_error_name(error));
      np_error_free(error);
      np_host_free(host);
      continue;
    }
    char* text = nullptr;
    ASSERT_EQ(np_fit(host, request, nullptr, 0, &text, &error), NP_OK);
    const json answer = json::parse(take(text));
    const json topology = json::parse(np_request_topology_json(request));

    // The C++ engine on the same host and request.
    auto core_host = plugin::host_from_json_text(host_text);
    ASSERT_TRUE(core_host);
    auto core_request = plugin::fit_request_from_json_text(request_text);
    ASSERT_TRUE(core_request);
    if (!core_request->has_value()) {
      EXPECT_EQ(answer["kind"], "no_topology");
    } else {
      FitOptions the_default;  // np_fit without options: every surface's default strategy
      the_default.strategy = kDefaultStrategy;
      FitResult core = fit_guest(*core_host, **core_request, the_default);
      ASSERT_EQ(answer["kind"] == "fit", core.placement.has_value()) << host_text << "\n" << request_text;
      if (core.placement) {
        ++fits;
        for (std::size_t i = 0; i < core.placement->cells.size(); ++i) {
          EXPECT_EQ(answer["cells"][i]["host_cell"], core.placement->cells[i].host_cell);
        }
      } else {
        ++no_fits;
        EXPECT_EQ(answer["rejections"].size(), core.rejections.size());
      }
    }
    const std::string problem = answer_problem(c.host, topology, answer);
    EXPECT_EQ(problem, "") << host_text << "\n" << request_text << "\n" << answer.dump();

    // Claims made in place until nothing fits: no pCPU held twice, no cell beyond its memory.
    std::map<int, std::set<int>> held;
    std::map<int, std::uint64_t> bound_kib;
    for (const auto& cell : c.host["cells"]) {
      held[cell["id"]] = int_set(cell["usage"]["pinned_cpus"]);
      bound_kib[cell["id"]] = cell["usage"]["memory_mib"].get<std::uint64_t>() * 1024;
    }
    for (int k = 0; k < 12; ++k) {
      ASSERT_EQ(np_fit_claim(host, request, ("g" + std::to_string(k)).c_str(), nullptr, 0, &text, &error), NP_OK);
      const json claimed = json::parse(take(text));
      if (claimed["kind"] != "fit") break;
      for (const auto& cell : claimed["cells"]) {
        std::set<int>& h = held[cell["host_cell"]];
        if (!cell["pinning"].is_null()) {
          for (const auto& [vcpu, pcpu] : cell["pinning"].items()) {
            EXPECT_TRUE(h.insert(pcpu.get<int>()).second) << "pCPU " << pcpu << " claimed twice\n" << host_text << "\n"
                                                          << request_text;
          }
        }
        bound_kib[cell["host_cell"]] += cell["memory_kib"].get<std::uint64_t>();
        if (!cell["cpuset_reserved"].is_null()) {
          for (int r : int_set(cell["cpuset_reserved"])) EXPECT_TRUE(h.insert(r).second) << "emulator pCPU claimed twice";
        }
      }
    }
    // The RAM ratio is 1.0: what the cell had in use plus what was claimed never exceeds it (guests
    // with a page size are held in pages, checked per answer above).
    if (!c.request["flavor"]["extra_specs"].contains("hw:mem_page_size")) {
      for (const auto& cell : c.host["cells"]) {
        EXPECT_LE(bound_kib[cell["id"]], cell["memory_mib"].get<std::uint64_t>() * 1024)
            << "cell " << cell["id"] << " holds more memory than it has\n" << host_text << "\n" << request_text;
      }
    }
    np_request_free(request);
    np_host_free(host);
  }
  // The random draw must exercise every outcome, or the test proves little.
  EXPECT_GT(fits, 100);
  EXPECT_GT(no_fits, 100);
  RecordProperty("fits", fits);
  RecordProperty("no_fits", no_fits);
  RecordProperty("invalid", invalid);
}

// Claims and releases in random order on random hosts: a host with claims fits every request as
// the host its own JSON describes does (a fresh host, no claims); the pCPUs each live claim was
// pinned to are pinned in that JSON, no two live claims share one; and once every claim is released
// the host's JSON is what it was before the first.
TEST(FitApiProperty, ClaimsAndReleasesKeepTheHostWhatItsJsonSays) {
  std::mt19937 rng(20261203);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto host_json = [](const np_host* host) {
    char* text = nullptr;
    np_error* error = nullptr;
    EXPECT_EQ(np_host_to_json(host, &text, &error), NP_OK);
    return json::parse(take(text));
  };
  auto fit_text = [](const np_host* host, const np_request* request) {
    char* text = nullptr;
    np_error* error = nullptr;
    EXPECT_EQ(np_fit(host, request, nullptr, 0, &text, &error), NP_OK);
    return take(text);
  };
  int claimed = 0, released = 0, compared = 0;
  for (int round = 0; round < 400; ++round) {
    RandomCase c = random_case(rng);
    np_host* host = nullptr;
    np_request* request = nullptr;
    np_error* error = nullptr;
    ASSERT_EQ(np_host_from_json(c.host.dump().c_str(), &host, &error), NP_OK);
    if (np_request_from_json(c.request.dump().c_str(), &request, &error) != NP_OK) {
      np_error_free(error);
      np_host_free(host);
      continue;
    }
    const json before = host_json(host);
    std::map<std::string, std::set<int>> live;  // guest -> the pCPUs its answer pinned
    for (int step = 0; step < 8; ++step) {
      if (live.empty() || pick(0, 2) > 0) {
        const std::string guest = "g" + std::to_string(step);
        char* text = nullptr;
        ASSERT_EQ(np_fit_claim(host, request, guest.c_str(), nullptr, 0, &text, &error), NP_OK);
        const json answer = json::parse(take(text));
        if (answer["kind"] == "fit") {
          std::set<int>& pins = live[guest];
          for (const auto& cell : answer["cells"]) {
            if (cell["pinning"].is_null()) continue;
            for (const auto& [vcpu, pcpu] : cell["pinning"].items()) pins.insert(pcpu.get<int>());
          }
          ++claimed;
        }
      } else {
        auto it = std::next(live.begin(), pick(0, static_cast<int>(live.size()) - 1));
        ASSERT_EQ(np_host_release(host, it->first.c_str(), &error), NP_OK);
        live.erase(it);
        ++released;
      }
      const json now = host_json(host);
      std::set<int> pinned_now, seen;
      for (const auto& cell : now["cells"]) {
        for (const auto& cpu : cell["usage"]["pinned_cpus"]) pinned_now.insert(cpu.get<int>());
      }
      for (const auto& [guest, pins] : live) {
        for (int p : pins) {
          EXPECT_TRUE(pinned_now.count(p)) << guest << " was pinned to pCPU " << p << " but the host does not say so";
          EXPECT_TRUE(seen.insert(p).second) << "pCPU " << p << " pinned by two live claims";
        }
      }
      np_host* fresh = nullptr;
      json statement = now;
      statement.erase("warnings");
      ASSERT_EQ(np_host_from_json(statement.dump().c_str(), &fresh, &error), NP_OK) << statement.dump();
      EXPECT_EQ(fit_text(host, request), fit_text(fresh, request)) << statement.dump();
      np_host_free(fresh);
      ++compared;
    }
    for (const auto& [guest, pins] : live) ASSERT_EQ(np_host_release(host, guest.c_str(), &error), NP_OK);
    EXPECT_EQ(host_json(host), before) << c.host.dump();
    np_request_free(request);
    np_host_free(host);
  }
  RecordProperty("claimed", claimed);
  RecordProperty("released", released);
  EXPECT_GT(claimed, 400);
  EXPECT_GT(released, 100);
  EXPECT_GT(compared, 2000);
}

// np_fit_hosts_cells against np_fit_hosts' JSON answers, read apart: on batches of random hosts
// and requests, under Nova's strategy and the default, each host's verdict and every guest cell's
// host cell are the JSON's, and a host the guest does not fit has -1 for each guest cell.
TEST(FitApiProperty, FitHostsCellsAgreesWithTheJsonAnswers) {
  std::mt19937 rng(20261202);
  int fits = 0, no_fits = 0, batches = 0;
  const np_pair nova[] = {{"strategy", "nova"}};
  for (int round = 0; round < 300; ++round) {
    RandomCase first = random_case(rng);
    np_request* request = nullptr;
    np_error* error = nullptr;
    if (np_request_from_json(first.request.dump().c_str(), &request, &error) != NP_OK) {
      np_error_free(error);
      continue;
    }
    std::vector<np_host*> owned;
    const int n_hosts = std::uniform_int_distribution<int>(1, 12)(rng);
    for (int h = 0; h < n_hosts; ++h) {
      np_host* host = nullptr;
      ASSERT_EQ(np_host_from_json((h == 0 ? first : random_case(rng)).host.dump().c_str(), &host, &error), NP_OK);
      owned.push_back(host);
    }
    std::vector<const np_host*> hosts(owned.begin(), owned.end());
    const std::size_t cells = np_request_cell_count(request);
    const json topology = json::parse(np_request_topology_json(request));
    ASSERT_EQ(cells, topology.is_null() ? 0u : topology["cells"].size());
    ++batches;
    for (bool use_nova : {true, false}) {
      const np_pair* options = use_nova ? nova : nullptr;
      const std::size_t n_options = use_nova ? 1 : 0;
      char* text = nullptr;
      ASSERT_EQ(np_fit_hosts(hosts.data(), hosts.size(), request, options, n_options, &text, &error), NP_OK);
      const json answers = json::parse(take(text));
      std::vector<unsigned char> verdicts(hosts.size(), 7);
      std::vector<long long> chosen(hosts.size() * cells, 99);
      ASSERT_EQ(np_fit_hosts_cells(hosts.data(), hosts.size(), request, options, n_options, verdicts.data(),
                                   chosen.data(), chosen.size(), &error),
                NP_OK);
      std::vector<unsigned char> verdicts_only(hosts.size(), 7);
      ASSERT_EQ(np_fit_hosts_cells(hosts.data(), hosts.size(), request, options, n_options, verdicts_only.data(),
                                   nullptr, 0, &error),
                NP_OK);
      EXPECT_EQ(verdicts_only, verdicts);
      for (std::size_t i = 0; i < hosts.size(); ++i) {
        const json& answer = answers[i];
        const bool fit = answer["kind"] == "fit" || answer["kind"] == "no_topology";
        ASSERT_EQ(verdicts[i], fit ? 1 : 0) << answer.dump();
        (answer["kind"] == "fit" ? fits : no_fits) += use_nova ? 1 : 0;
        for (std::size_t g = 0; g < cells; ++g) {
          const long long expected = answer["kind"] == "fit" ? answer["cells"][g]["host_cell"].get<long long>() : -1;
          EXPECT_EQ(chosen[i * cells + g], expected) << answer.dump();
        }
      }
    }
    for (np_host* host : owned) np_host_free(host);
    np_request_free(request);
  }
  EXPECT_GT(fits, 200);
  EXPECT_GT(no_fits, 200);
  RecordProperty("batches", batches);
}

// Bad arguments to np_fit_hosts_cells are named and write nothing; a request without a topology
// fits every host and has no cells.
TEST_F(FitApi, FitHostsCellsRefusesBadArgumentsAndWritesNothing) {
  fit(R"({"flavor": {"vcpus": 2, "memory_mib": 1024, "extra_specs": {"hw:numa_nodes": "2"}}})");
  ASSERT_EQ(np_request_cell_count(request), 2u);
  const np_host* hosts[] = {host, host};
  unsigned char verdicts[2] = {7, 7};
  long long chosen[4] = {99, 99, 99, 99};
  auto untouched = [&] {
    EXPECT_EQ(verdicts[0], 7);
    EXPECT_EQ(verdicts[1], 7);
    for (long long c : chosen) EXPECT_EQ(c, 99);
  };
  auto refused = [&](np_status status, const char* name) {
    EXPECT_EQ(status, NP_ERR_INVALID_ARGUMENT);
    ASSERT_NE(error, nullptr);
    EXPECT_STREQ(np_error_name(error), name);
    EXPECT_GT(std::string(np_error_message(error)).size(), 10u);
    np_error_free(error);
    error = nullptr;
    untouched();
  };
  refused(np_fit_hosts_cells(hosts, 2, request, nullptr, 0, verdicts, chosen, 3, &error), "InvalidArgument");
  refused(np_fit_hosts_cells(hosts, 2, request, nullptr, 0, nullptr, chosen, 4, &error), "InvalidArgument");
  refused(np_fit_hosts_cells(hosts, 2, nullptr, nullptr, 0, verdicts, chosen, 4, &error), "InvalidArgument");
  refused(np_fit_hosts_cells(nullptr, 2, request, nullptr, 0, verdicts, chosen, 4, &error), "InvalidArgument");
  const np_host* with_null[] = {host, nullptr};
  refused(np_fit_hosts_cells(with_null, 2, request, nullptr, 0, verdicts, chosen, 4, &error), "InvalidArgument");
  const np_pair unknown[] = {{"strategy", "no-such-strategy"}};
  EXPECT_NE(np_fit_hosts_cells(hosts, 2, request, unknown, 1, verdicts, chosen, 4, &error), NP_OK);
  np_error_free(error);
  error = nullptr;
  untouched();

  ASSERT_EQ(np_fit_hosts_cells(hosts, 2, request, nullptr, 0, verdicts, chosen, 4, &error), NP_OK);
  EXPECT_EQ(verdicts[0], 1);
  EXPECT_EQ(std::set<long long>({chosen[0], chosen[1]}), std::set<long long>({0, 1}));

  fit(R"({"flavor": {"vcpus": 2, "memory_mib": 1024, "extra_specs": {}}})");  // no topology
  EXPECT_EQ(np_request_cell_count(request), 0u);
  EXPECT_EQ(np_request_cell_count(nullptr), 0u);
  verdicts[0] = verdicts[1] = 7;
  ASSERT_EQ(np_fit_hosts_cells(hosts, 2, request, nullptr, 0, verdicts, nullptr, 0, &error), NP_OK);
  EXPECT_EQ(verdicts[0], 1);
  EXPECT_EQ(verdicts[1], 1);
}

using testing::iconv_reads_utf8;

TEST(FitApiProperty, TextThatIsNotUtf8IsRefusedNamedAndNeverEchoed) {
  // Random texts of ASCII, lone high bytes, cut and well-formed sequences, encoded surrogates and
  // overlong forms, as spec keys, spec values and claim names: each call takes exactly the texts
  // iconv reads as UTF-8, and a refusal's message is itself UTF-8.
  std::mt19937 rng(20261204);
  const std::vector<std::string> pieces = {"a", "7", " ", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xff", "\x80",
                                           "\xc3", "\xe2\x82", "\xed\xa0\x80", "\xc0\xaf", "\xe0\x80\xaf", "\xf4\x90\x80\x80",
                                           "\xf8\x88\x80\x80\x80", "\xef\xbf\xbf"};
  np_host* host = nullptr;
  np_error* error = nullptr;
  ASSERT_EQ(np_host_from_json(kTwoCellHost, &host, &error), NP_OK);
  np_request* request = nullptr;
  ASSERT_EQ(np_request_from_json(R"({"flavor": {"vcpus": 1, "memory_mib": 256, "extra_specs": {"hw:numa_nodes": "1"}}})",
                                 &request, &error), NP_OK);
  int taken = 0, refused = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    for (int i = std::uniform_int_distribution<int>(1, 5)(rng); i > 0; --i) text += pieces[rng() % pieces.size()];
    const bool utf8 = iconv_reads_utf8(text);
    np_status status = NP_OK;
    char* out = nullptr;
    const int where = round % 4;
    const std::string key = "aggregate_instance_extra_specs:" + text;
    if (where == 0) {
      const np_pair specs[] = {{"aggregate_instance_extra_specs:colour", text.c_str()}};
      status = np_derive(2, 1024, specs, 1, nullptr, 0, &out, &error);
    } else if (where == 1) {
      const np_pair specs[] = {{key.c_str(), "x"}};
      np_request* made = nullptr;
      status = np_request_from_specs(2, 1024, specs, 1, nullptr, 0, &made, &error);
      np_request_free(made);
    } else if (where == 2) {
      const np_pair options[] = {{"strategy", text.c_str()}};
      status = np_fit(host, request, options, 1, &out, &error);
      if (utf8) {  // no strategy has such a name: refused, but by its name, not its bytes
        EXPECT_NE(status, NP_OK);
        EXPECT_TRUE(iconv_reads_utf8(np_error_message(error))) << np_error_message(error);
        np_error_free(error);
        error = nullptr;
        continue;
      }
    } else {
      status = np_fit_claim(host, request, text.c_str(), nullptr, 0, &out, &error);
      if (status == NP_OK) {
        np_error* released = nullptr;
        EXPECT_EQ(np_host_release(host, text.c_str(), &released), NP_OK);
        np_error_free(released);
      }
    }
    np_string_free(out);
    if (utf8) {
      EXPECT_EQ(status, NP_OK) << "call " << where << " refused UTF-8 text: " << (error ? np_error_message(error) : "");
      ++taken;
    } else {
      EXPECT_NE(status, NP_OK) << "call " << where << " took text that is not UTF-8";
      if (error != nullptr) {
        EXPECT_TRUE(iconv_reads_utf8(np_error_message(error))) << np_error_message(error);
        const std::string name = np_error_name(error);
        EXPECT_TRUE(name == (where < 2 ? "InvalidSpecText" : "InvalidArgument")) << where << " " << name;
      } else {
        ADD_FAILURE() << "no error for a refusal";
      }
      ++refused;
    }
    np_error_free(error);
    error = nullptr;
  }
  EXPECT_GT(taken, 300);
  EXPECT_GT(refused, 300);
  np_request_free(request);
  np_host_free(host);
}

// Nova's own answers (the nova-fit vectors, made by running Nova 26.2.2) through the C ABI alone:
// the request in its flavor form, the host as np_host_from_json reads it, the packing option as
// cell_order. The kind, Nova's error class, and for a fit each guest cell's host cell and page size
// must be Nova's (expect_fixed where Nova's answer is inconsistent).
TEST(FitApiNova, AnswersAsNovaOnEveryReferenceVector) {
  int checked = 0;
  for (const char* file : {"conformance/nova/edge.jsonl", "conformance/nova/fit.jsonl", "conformance/nova/perf.jsonl"}) {
    std::ifstream in(testing::shared_path(file));
    ASSERT_TRUE(in) << file;
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      const json vector = json::parse(line);
      const json& outer = vector.at("expect");
      const json& expect = outer.contains("expect_fixed") ? outer.at("expect_fixed") : outer;
      const std::string kind = expect.at("kind");
      const std::string id = vector.value("id", "?");
      json request = vector.at("request");
      np_host* host = nullptr;
      np_request* req = nullptr;
      np_error* error = nullptr;
      ASSERT_EQ(np_host_from_json(vector.at("host").dump().c_str(), &host, &error), NP_OK)
          << id << ": " << np_error_message(error);
      const np_status read = np_request_from_json(request.dump().c_str(), &req, &error);
      if (kind == "invalid") {
        EXPECT_EQ(read, NP_ERR_INVALID_INPUT) << id;
        if (read != NP_OK) {
          EXPECT_STREQ(np_error_name(error), expect.value("error", "").c_str()) << id;
        }
      } else {
        ASSERT_EQ(read, NP_OK) << id << ": " << np_error_name(error) << " " << np_error_message(error);
        const bool pack = vector.contains("config") &&
                          vector["config"].value("compute.packing_host_numa_cells_allocation_strategy", false);
        // Nova's own answer: its first fit, in its spread or packing order.
        const np_pair nova[] = {{"strategy", "nova"}, {"cell_order", "pack"}};
        char* text = nullptr;
        ASSERT_EQ(np_fit(host, req, nova, pack ? 2 : 1, &text, &error), NP_OK) << id;
        const json answer = json::parse(take(text));
        EXPECT_EQ(answer["kind"], kind) << id << ": " << answer.dump();
        if (kind == "fit" && answer["kind"] == "fit") {
          ASSERT_EQ(answer["cells"].size(), expect["cells"].size()) << id;
          for (std::size_t i = 0; i < expect["cells"].size(); ++i) {
            EXPECT_EQ(answer["cells"][i]["host_cell"], expect["cells"][i]["host_cell"]) << id << " guest cell " << i;
            EXPECT_EQ(answer["cells"][i]["pagesize_kib"], expect["cells"][i].value("pagesize_kib", json()))
                << id << " guest cell " << i;
            EXPECT_EQ(answer["cells"][i]["pinning"].is_null(), expect["cells"][i].value("pinning", json()).is_null())
                << id << " guest cell " << i;
          }
        }
      }
      ++checked;
      np_error_free(error);
      np_request_free(req);
      np_host_free(host);
    }
  }
  EXPECT_EQ(checked, 55 + 3000 + 10);
}

}  // namespace
}  // namespace numaplace
