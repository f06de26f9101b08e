// SPDX-License-Identifier: LGPL-2.1-or-later
// The host JSON reader (plugin/sources/host_json.h) on the nova-fit vectors' hosts with one member
// name misspelt at random (a letter dropped, doubled, changed or its case flipped) at the host's top
// level, in a cell, its usage or a page pool: the host is refused as InvalidHostJson naming the
// misspelt member, never read with that field silently missing. A misspelling that happens to be
// another field of the same level (memory_mib -> memory_kib) is not a misspelling and is skipped.
// The fields of each level are this file's own list, from the schema in host_json.h. And a member
// given twice in any object is refused naming it (the text written by this file's own writer).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "plugin/sources/host_json.h"
#include "support/test_paths.h"

namespace numaplace {
namespace {

const std::set<std::string> kHostFields = {"name", "cells", "pci", "allocation_ratio", "accounting",
                                           "unbound_memory_kib", "guests", "warnings"};
const std::set<std::string> kCellFields = {"id", "cpus", "shared_cpuset", "dedicated_cpuset", "siblings", "memory_mib",
                                           "memory_kib", "pages", "distances", "socket", "network_metadata", "usage",
                                           "free", "cache_domains"};
const std::set<std::string> kUsageFields = {"shared_cpus", "pinned_cpus", "memory_mib", "memory_kib"};
const std::set<std::string> kPageFields = {"size_kib", "total", "used", "reserved"};

std::vector<nlohmann::json> vector_hosts() {
  std::vector<nlohmann::json> hosts;
  std::ifstream in(numaplace::testing::source_path("tests/data/conformance/nova/edge.jsonl"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    auto vector = nlohmann::json::parse(line);
    if (vector.contains("host")) hosts.push_back(vector["host"]);
  }
  return hosts;
}

std::string misspelt(std::string name, std::mt19937& rng) {
  auto pick = [&](std::size_t lo, std::size_t hi) { return std::uniform_int_distribution<std::size_t>(lo, hi)(rng); };
  const std::size_t at = pick(0, name.size() - 1);
  switch (pick(0, 3)) {
    case 0: name.erase(at, 1); break;
    case 1: name.insert(at, 1, name[at]); break;
    case 2: name[at] = static_cast<char>('a' + pick(0, 25)); break;
    default: name[at] = static_cast<char>(name[at] ^ 0x20);  // '_' becomes DEL, a letter changes case
  }
  return name;
}

TEST(HostJsonSpellingProperty, AMisspeltMemberAtAnyLevelIsRefusedNamingIt) {
  const std::vector<nlohmann::json> hosts = vector_hosts();
  ASSERT_GT(hosts.size(), 20u);
  std::mt19937 rng(20261204);
  int refused = 0, skipped = 0;
  for (int round = 0; round < 3000; ++round) {
    nlohmann::json host = hosts[rng() % hosts.size()];
    // The object whose member is misspelt, and the fields of its level.
    nlohmann::json* object = &host;
    const std::set<std::string>* fields = &kHostFields;
    nlohmann::json& cell = host["cells"][rng() % host["cells"].size()];
    switch (rng() % 4) {
      case 0: break;
      case 1: object = &cell, fields = &kCellFields; break;
      case 2:
        if (cell.contains("usage")) object = &cell["usage"], fields = &kUsageFields;
        break;
      default:
        if (cell.contains("pages") && !cell["pages"].empty()) {
          object = &cell["pages"][rng() % cell["pages"].size()], fields = &kPageFields;
        }
    }
    std::vector<std::string> names;
    for (const auto& [key, value] : object->items()) names.push_back(key);
    ASSERT_FALSE(names.empty());
    const std::string name = names[rng() % names.size()];
    const std::string wrong = misspelt(name, rng);
    if (fields->count(wrong) != 0 || wrong == name || wrong.empty() || object->contains(wrong)) {
      ++skipped;
      continue;
    }
    nlohmann::json value = (*object)[name];
    object->erase(name);
    (*object)[wrong] = value;
    auto read = plugin::host_from_json(host);
    ASSERT_FALSE(read.ok()) << "'" << name << "' as '" << wrong << "' was read: " << host.dump();
    EXPECT_EQ(read.error().name, "InvalidHostJson");
    EXPECT_NE(read.error().message.find("." + wrong + ": is not a field"), std::string::npos) << read.error().message;
    ++refused;
  }
  EXPECT_GT(refused, 2500);
  EXPECT_LT(skipped, 400);
}

// The text of `value` (nlohmann's own dump for scalars and arrays of them), with the member
// `member` of the object numbered `target` (objects counted in document order) written twice,
// first with `first` as its value: nlohmann's parser would keep the second without a word.
std::string with_member_twice(const nlohmann::json& value, int& counter, int target, const std::string& member,
                              const nlohmann::json& first) {
  if (value.is_object()) {
    const bool here = counter++ == target;
    std::string out = "{";
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (out.size() > 1) out += ",";
      if (here && it.key() == member) out += nlohmann::json(it.key()).dump() + ":" + first.dump() + ",";
      out += nlohmann::json(it.key()).dump() + ":" + with_member_twice(it.value(), counter, target, member, first);
    }
    return out + "}";
  }
  if (value.is_array()) {
    std::string out = "[";
    for (const auto& item : value) out += (out.size() > 1 ? "," : "") + with_member_twice(item, counter, target, member, first);
    return out + "]";
  }
  return value.dump();
}

// Every object of `value` in document order, as the writer above counts them.
void objects_of(const nlohmann::json& value, std::vector<const nlohmann::json*>& out) {
  if (value.is_object()) out.push_back(&value);
  if (value.is_structured()) {
    for (const auto& item : value) objects_of(item, out);
  }
}

// A member given twice in any object of a host (a cell's "pinned_cpus" twice, the second naming
// fewer pCPUs) is refused naming it, where nlohmann alone would keep the second; the same text
// without the repeat reads.
TEST(HostJsonSpellingProperty, AMemberGivenTwiceInAnyObjectIsRefusedNamingIt) {
  const std::vector<nlohmann::json> hosts = vector_hosts();
  std::mt19937 rng(20261209);
  int refused = 0;
  for (int round = 0; round < 1500; ++round) {
    const nlohmann::json& host = hosts[rng() % hosts.size()];
    std::vector<const nlohmann::json*> objects;
    objects_of(host, objects);
    const int target = static_cast<int>(rng() % objects.size());
    const nlohmann::json& object = *objects[static_cast<std::size_t>(target)];
    if (object.empty()) continue;
    auto member = object.begin();
    std::advance(member, static_cast<long>(rng() % object.size()));
    int counter = 0;
    const std::string once = with_member_twice(host, counter, -1, "", nullptr);
    ASSERT_TRUE(plugin::host_from_json_text(once).ok()) << once;
    counter = 0;
    const std::string twice = with_member_twice(host, counter, target, member.key(), nlohmann::json("first"));
    auto read = plugin::host_from_json_text(twice);
    ASSERT_FALSE(read.ok()) << twice;
    EXPECT_EQ(read.error().name, "InvalidHostJson");
    EXPECT_NE(read.error().message.find("member \"" + member.key() + "\" is given twice"), std::string::npos)
        << read.error().message;
    ++refused;
  }
  EXPECT_GT(refused, 1000);
}

}  // namespace
}  // namespace numaplace
