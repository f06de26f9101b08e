// SPDX-License-Identifier: LGPL-2.1-or-later
// derive_guest_topology on keys Nova reads, written with random capitals or blanks around them:
// Nova reads none of them (its keys are lowercase, compared exactly), so each is UnknownSpecKey
// naming the key as Nova spells it, never a request that silently lost its topology. The same
// keys as Nova spells them are never UnknownSpecKey, and neither are keys of other namespaces
// (resources:, trait:, quota:), whose capitals are theirs, in any spelling.
#include "placement/request/guest_topology.h"

#include <gtest/gtest.h>

#include <cctype>
#include <random>
#include <string>
#include <vector>

namespace numaplace {
namespace {

// Keys Nova 26 reads (flavor and image), each with a value it takes.
const std::vector<std::pair<std::string, std::string>> kNovaKeys = {
    {"hw:numa_nodes", "1"},          {"hw:numa_cpus.0", "0-1"},         {"hw:numa_mem.0", "2048"},
    {"hw:cpu_policy", "dedicated"},  {"hw:cpu_thread_policy", "prefer"}, {"hw:mem_page_size", "small"},
    {"hw:emulator_threads_policy", "share"}, {"hw:pci_numa_affinity_policy", "legacy"},
    {"hw:cpu_realtime", "no"},       {"hw:cpu_sockets", "1"},           {"hw:cpu_max_threads", "2"},
    {"hw_numa_nodes", "1"},          {"hw_cpu_policy", "dedicated"},    {"hw_mem_page_size", "small"},
    {"hw_cpu_thread_policy", "prefer"}, {"hw_numa_cpus.0", "0-1"}};

const std::vector<std::pair<std::string, std::string>> kOtherNamespaces = {
    {"resources:VCPU", "2"}, {"trait:HW_CPU_X86_AVX2", "required"}, {"quota:cpu_shares", "1024"},
    {"aggregate_instance_extra_specs:ssd", "true"}};

bool is_image_key(const std::string& key) { return key.rfind("hw_", 0) == 0; }

GuestRequest request_with(const std::string& key, const std::string& value, bool image) {
  GuestRequest r;
  r.vcpus = 2;
  r.memory_kib = 2048 * 1024;
  (image ? r.image_props : r.flavor_specs)[key] = value;
  return r;
}

TEST(SpecKeySpellingProperty, AKeyNovaReadsMisspeltByCaseOrBlanksIsNamedNeverDropped) {
  std::mt19937 rng(20261204);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int refused = 0;
  for (int round = 0; round < 4000; ++round) {
    const auto& [key, value] = kNovaKeys[static_cast<std::size_t>(pick(0, static_cast<int>(kNovaKeys.size()) - 1))];
    std::string spelled = key;
    const int how = pick(0, 2);
    if (how != 1) {  // capitals: at least one letter raised
      std::vector<std::size_t> letters;
      for (std::size_t i = 0; i < spelled.size(); ++i) {
        if (std::isalpha(static_cast<unsigned char>(spelled[i]))) letters.push_back(i);
      }
      spelled[letters[static_cast<std::size_t>(pick(0, static_cast<int>(letters.size()) - 1))]] ^= 0x20;
      for (std::size_t i : letters) {
        if (pick(0, 3) == 0) spelled[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(spelled[i])));
      }
    }
    if (how != 0) {  // blanks before, after or both
      const std::string blank = pick(0, 1) ? " " : "\t";
      const int side = pick(0, 2);
      if (side != 1) spelled = blank + spelled;
      if (side != 0) spelled += blank;
    }
    ASSERT_NE(spelled, key);
    auto topology = derive_guest_topology(request_with(spelled, value, is_image_key(key)));
    ASSERT_FALSE(topology.ok()) << "'" << spelled << "'";
    EXPECT_EQ(topology.error().name, "UnknownSpecKey") << "'" << spelled << "': " << topology.error().message;
    EXPECT_NE(topology.error().message.find("'" + key + "'"), std::string::npos) << topology.error().message;
    ++refused;

    auto as_nova_spells = derive_guest_topology(request_with(key, value, is_image_key(key)));
    if (!as_nova_spells.ok()) {
      EXPECT_NE(as_nova_spells.error().name, "UnknownSpecKey") << key;
    }
  }
  EXPECT_EQ(refused, 4000);
}

TEST(SpecKeySpellingProperty, KeysOfOtherNamespacesAreNeverUnknownInAnySpelling) {
  std::mt19937 rng(20261205);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int round = 0; round < 2000; ++round) {
    const auto& [key, value] = kOtherNamespaces[static_cast<std::size_t>(pick(0, static_cast<int>(kOtherNamespaces.size()) - 1))];
    std::string spelled = key;
    for (char& c : spelled) {
      if (std::isalpha(static_cast<unsigned char>(c)) && pick(0, 2) == 0) c ^= 0x20;
    }
    auto topology = derive_guest_topology(request_with(spelled, value, false));
    if (!topology.ok()) {
      EXPECT_NE(topology.error().name, "UnknownSpecKey") << spelled << ": " << topology.error().message;
    }
  }
}

}  // namespace
}  // namespace numaplace
