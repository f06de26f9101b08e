// SPDX-License-Identifier: LGPL-2.1-or-later
// np_host_add_claims and np_host_release (include/numaplace.h) on random sequences of guests:
// a guest is counted once however often it is given. The model below, written apart from the
// library, keeps the guests counted (by name and uuid) and what each holds per host cell (its
// memory, strict on one cell, and its vCPUs floating over that cell's CPUs), and says which calls
// must be refused; now and then a guest's memory is bound to a node the host lacks too, and the
// whole call is refused (InvalidClaim naming the node), never counted as memory bound nowhere.
// After every call the host's JSON must show exactly the model's sums, and a refused call must
// leave the JSON byte for byte as it was.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "numaplace.h"
#include "support/test_paths.h"

namespace {

using numaplace::testing::shared_path;

struct DrawnGuest {
  std::string name;
  std::string uuid;  // empty: the domain gives none
  std::uint64_t memory_mib = 0;
  std::uint32_t vcpus = 0;
  std::uint32_t cell = 0;  // caps-2cell.xml: cell 0 has CPUs 0-7 and 16-23, cell 1 CPUs 8-15 and 24-31
  std::string beyond;      // a node the host lacks, named too in the memory's nodeset (never counted)
};

std::string domain_xml(const DrawnGuest& g) {
  const std::string cpus = g.cell == 0 ? "0-7,16-23" : "8-15,24-31";
  return "<domain type='kvm'><name>" + g.name + "</name>" + (g.uuid.empty() ? "" : "<uuid>" + g.uuid + "</uuid>") +
         "<memory unit='MiB'>" + std::to_string(g.memory_mib) + "</memory><vcpu placement='static' cpuset='" + cpus +
         "'>" + std::to_string(g.vcpus) + "</vcpu><numatune><memory mode='strict' nodeset='" +
         std::to_string(g.cell) + (g.beyond.empty() ? "" : "," + g.beyond) + "'/></numatune><os><type arch='x86_64'>hvm</type></os></domain>";
}

bool same_guest(const DrawnGuest& a, const DrawnGuest& b) {
  return a.name == b.name || (!a.uuid.empty() && a.uuid == b.uuid);
}

std::string host_json(const np_host* host) {
  char* text = nullptr;
  EXPECT_EQ(np_host_to_json(host, &text, nullptr), NP_OK);
  std::string copy = text != nullptr ? text : "";
  np_string_free(text);
  return copy;
}

TEST(ClaimsOnceProperty, EachGuestIsCountedOnceHoweverOftenItIsGiven) {
  std::ifstream in(shared_path("samples/libvirt/caps-2cell.xml"));
  std::stringstream caps;
  caps << in.rdbuf();
  // A small pool, so that names and uuids meet often: six names, four uuids, some guests without.
  const std::vector<std::string> uuids{"", "0b8f1f5e-7b0c-4c5e-9d6e-000000000001", "0b8f1f5e-7b0c-4c5e-9d6e-000000000002",
                                       "0b8f1f5e-7b0c-4c5e-9d6e-000000000003", "0b8f1f5e-7b0c-4c5e-9d6e-000000000004"};
  std::size_t accepted = 0, refused = 0, released = 0, refused_beyond = 0;
  for (std::uint32_t seed = 1; seed <= 150; ++seed) {
    std::mt19937 rng(seed);
    auto draw = [&](std::uint32_t n) { return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng); };
    auto drawn_guest = [&] {
      DrawnGuest g;
      g.name = "g" + std::to_string(draw(6));
      g.uuid = uuids[draw(static_cast<std::uint32_t>(uuids.size()))];
      g.memory_mib = 256 * (1 + draw(8));
      g.vcpus = 1 + draw(4);
      g.cell = draw(2);
      if (draw(12) == 0) g.beyond = std::to_string(2 + draw(62));
      return g;
    };
    np_host* host = nullptr;
    ASSERT_EQ(np_host_from_capabilities_xml(caps.str().c_str(), &host, nullptr), NP_OK);
    std::vector<DrawnGuest> counted;  // the model
    for (int step = 0; step < 14; ++step) {
      const std::string before = host_json(host);
      bool ok = false;
      std::string what;
      if (draw(4) == 0) {
        const std::string name = "g" + std::to_string(draw(6));
        const bool held = std::any_of(counted.begin(), counted.end(), [&](const DrawnGuest& g) { return g.name == name; });
        np_error* error = nullptr;
        const np_status status = np_host_release(host, name.c_str(), &error);
        what = "release " + name;
        EXPECT_EQ(status == NP_OK, held) << "seed " << seed << ": " << what;
        if (status != NP_OK) {
          EXPECT_STREQ(np_error_name(error), "InvalidArgument");
        }
        np_error_free(error);
        ok = held;
        if (held) {
          std::erase_if(counted, [&](const DrawnGuest& g) { return g.name == name; });
          ++released;
        }
      } else {
        std::vector<DrawnGuest> batch(1 + draw(3));
        for (auto& g : batch) g = drawn_guest();
        bool acceptable = true;
        bool beyond = false;  // memory bound to a node the host lacks: refused, whatever else
        for (const auto& g : batch) beyond = beyond || !g.beyond.empty();
        for (std::size_t i = 0; i < batch.size(); ++i) {
          for (const auto& g : counted) acceptable = acceptable && !same_guest(batch[i], g);
          for (std::size_t j = 0; j < i; ++j) acceptable = acceptable && !same_guest(batch[i], batch[j]);
        }
        std::vector<std::string> xmls;
        for (const auto& g : batch) xmls.push_back(domain_xml(g));
        std::vector<const char*> pointers;
        for (const auto& x : xmls) pointers.push_back(x.c_str());
        np_error* error = nullptr;
        const np_status status = np_host_add_claims(host, pointers.data(), pointers.size(), &error);
        what = "add " + std::to_string(batch.size()) + " guests, first " + batch[0].name;
        EXPECT_EQ(status == NP_OK, acceptable && !beyond) << "seed " << seed << " step " << step << ": " << what << ": "
                                                          << (error != nullptr ? np_error_message(error) : "");
        if (status != NP_OK && beyond) {
          // A claim that cannot be read is InvalidClaim from the C ABI, naming the node.
          EXPECT_STREQ(np_error_name(error), "InvalidClaim");
          EXPECT_TRUE(std::string(np_error_message(error)).find("which this host does not have") != std::string::npos ||
                      !acceptable)
              << np_error_message(error);
          ++refused_beyond;
        } else if (status != NP_OK) {
          EXPECT_STREQ(np_error_name(error), "InvalidClaim");
          // The refusal names a guest the host counts, the one to release to count this one.
          const std::string message = np_error_message(error);
          const bool names_counted = std::any_of(counted.begin(), counted.end(), [&](const DrawnGuest& g) {
            return message.find("release '" + g.name + "' first") != std::string::npos;
          });
          EXPECT_TRUE(names_counted || message.find("given twice") != std::string::npos) << message;
        }
        np_error_free(error);
        ok = acceptable && !beyond;
        if (ok) counted.insert(counted.end(), batch.begin(), batch.end());
        (ok ? accepted : refused) += 1;
      }
      const std::string after = host_json(host);
      if (!ok) {
        EXPECT_EQ(after, before) << "seed " << seed << ": a refused " << what << " changed the host";
        continue;
      }
      const auto cells = nlohmann::json::parse(after)["cells"];
      ASSERT_EQ(cells.size(), 2u);
      for (std::uint32_t c = 0; c < 2; ++c) {
        std::uint64_t memory_kib = 0;
        double vcpus = 0;
        for (const auto& g : counted) {
          if (g.cell != c) continue;
          memory_kib += g.memory_mib * 1024;
          vcpus += g.vcpus;
        }
        EXPECT_EQ(cells[c]["usage"]["memory_kib"].get<std::uint64_t>(), memory_kib)
            << "seed " << seed << " step " << step << " cell " << c << " after " << what;
        EXPECT_DOUBLE_EQ(cells[c]["usage"]["shared_cpus"].get<double>(), vcpus)
            << "seed " << seed << " step " << step << " cell " << c << " after " << what;
      }
    }
    np_host_free(host);
  }
  // The draw reaches every case: guests counted, refused as counted or given twice, and released.
  EXPECT_GT(accepted, 200u);
  EXPECT_GT(refused, 200u);
  EXPECT_GT(released, 100u);
  EXPECT_GT(refused_beyond, 50u);
}

}  // namespace
