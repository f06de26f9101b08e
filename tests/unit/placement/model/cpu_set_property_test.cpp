// SPDX-License-Identifier: LGPL-2.1-or-later
// CpuSet (a bitset of words with ids above kMaxCpuId kept apart) against std::set<std::uint32_t>
// over random sequences of every operation: the model is the standard library's ordered set
// and its algorithms, written without any of CpuSet's code.
#include "placement/model/cpu_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace numaplace {
namespace {

using Model = std::set<std::uint32_t>;

// Ids drawn where the representation has edges: word boundaries, the inline words' end (256),
// the heap, kMaxCpuId itself and the ids above it.
std::uint32_t random_id(std::mt19937& rng) {
  switch (rng() % 8) {
    case 0: return static_cast<std::uint32_t>(rng() % 64);
    case 1: return 63 + static_cast<std::uint32_t>(rng() % 3);           // 63, 64, 65
    case 2: return 254 + static_cast<std::uint32_t>(rng() % 4);          // 254..257
    case 3: return static_cast<std::uint32_t>(rng() % 600);
    case 4: return kMaxCpuId - 2 + static_cast<std::uint32_t>(rng() % 5);  // across kMaxCpuId
    case 5: return static_cast<std::uint32_t>(rng() % (kMaxCpuId + 1));
    case 6: return 4294967295u - static_cast<std::uint32_t>(rng() % 3);
    default: return static_cast<std::uint32_t>(rng() % 130);
  }
}

std::vector<std::uint32_t> listed(const Model& m) { return {m.begin(), m.end()}; }
std::vector<std::uint32_t> listed(const CpuSet& s) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t id : s) out.push_back(id);
  return out;
}

// The cpulist text of a model, written here from the sorted ids.
std::string model_text(const Model& m) {
  std::string out;
  std::vector<std::uint32_t> ids = listed(m);
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(ids[i]);
    if (j > i) out += "-" + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

void expect_same(const CpuSet& s, const Model& m, const std::string& where) {
  ASSERT_EQ(listed(s), listed(m)) << where;
  ASSERT_EQ(s.ids(), listed(m)) << where;
  ASSERT_EQ(s.size(), m.size()) << where;
  ASSERT_EQ(s.empty(), m.empty()) << where;
  if (!m.empty()) {
    ASSERT_EQ(s.first(), *m.begin()) << where;
    ASSERT_EQ(s.last(), *m.rbegin()) << where;
  }
  ASSERT_EQ(static_cast<std::size_t>(std::distance(s.begin(), s.end())), m.size()) << where;
  ASSERT_EQ(to_cpu_list(s), model_text(m)) << where;
}

CpuSet build(const Model& m, std::mt19937& rng) {
  CpuSet s;
  std::vector<std::uint32_t> ids = listed(m);
  std::shuffle(ids.begin(), ids.end(), rng);  // insertion order must not matter
  for (std::uint32_t id : ids) s.insert(id);
  return s;
}

Model random_model(std::mt19937& rng) {
  Model m;
  const std::size_t n = rng() % 40;
  for (std::size_t i = 0; i < n; ++i) m.insert(random_id(rng));
  if (rng() % 4 == 0) {  // a run, as hosts have
    const std::uint32_t from = static_cast<std::uint32_t>(rng() % 400);
    const std::uint32_t len = static_cast<std::uint32_t>(rng() % 200);
    for (std::uint32_t id = from; id <= from + len; ++id) m.insert(id);
  }
  return m;
}

TEST(CpuSetProperty, EveryOperationAgreesWithAnOrderedSetModel) {
  std::mt19937 rng(20261201);
  for (int round = 0; round < 600; ++round) {
    Model ma = random_model(rng);
    Model mb = rng() % 5 == 0 ? ma : random_model(rng);
    CpuSet a = build(ma, rng);
    CpuSet b = build(mb, rng);
    const std::string where = "round " + std::to_string(round) + ": a=" + model_text(ma) + " b=" + model_text(mb);
    expect_same(a, ma, where);
    expect_same(b, mb, where);

    Model u, i, d;
    std::set_union(ma.begin(), ma.end(), mb.begin(), mb.end(), std::inserter(u, u.end()));
    std::set_intersection(ma.begin(), ma.end(), mb.begin(), mb.end(), std::inserter(i, i.end()));
    std::set_difference(ma.begin(), ma.end(), mb.begin(), mb.end(), std::inserter(d, d.end()));
    expect_same(a.united(b), u, where + " united");
    expect_same(a.intersected(b), i, where + " intersected");
    expect_same(a.minus(b), d, where + " minus");
    ASSERT_EQ(a.count_common(b), i.size()) << where;
    ASSERT_EQ(a.count_minus(b), d.size()) << where;
    ASSERT_EQ(a.intersects(b), !i.empty()) << where;
    ASSERT_EQ(a.is_subset_of(b), std::includes(mb.begin(), mb.end(), ma.begin(), ma.end())) << where;
    ASSERT_EQ(a == b, ma == mb) << where;
    // Sets reached by different routes compare equal when they hold the same ids.
    ASSERT_TRUE(a.united(b).minus(b) == build(d, rng)) << where;
    ASSERT_TRUE(a.minus(b).united(a.intersected(b)) == a) << where;

    CpuSet in_place = a;
    in_place.unite_with(b);
    expect_same(in_place, u, where + " unite_with");
    in_place = a;
    in_place.subtract(b);
    expect_same(in_place, d, where + " subtract");

    // Single-id operations, one after another, on a copy of a.
    CpuSet s = a;
    Model m = ma;
    for (int step = 0; step < 30; ++step) {
      const std::uint32_t id = rng() % 3 == 0 && !m.empty() ? *std::next(m.begin(), rng() % m.size()) : random_id(rng);
      switch (rng() % 3) {
        case 0:
          s.insert(id);
          m.insert(id);
          break;
        case 1:
          s.erase(id);
          m.erase(id);
          break;
        default:
          ASSERT_EQ(s.contains(id), m.count(id) == 1) << where << " id " << id;
      }
    }
    expect_same(s, m, where + " after inserts and erases");
    ASSERT_EQ(s == build(m, rng), true) << where;

    // Text round trip for what the parser accepts (ids up to kMaxCpuId).
    Model bounded;
    for (std::uint32_t id : m) {
      if (id <= kMaxCpuId) bounded.insert(id);
    }
    if (!bounded.empty()) {
      auto parsed = parse_cpu_list(model_text(bounded));
      ASSERT_TRUE(parsed.ok()) << where;
      expect_same(*parsed, bounded, where + " parsed");
    }
  }
}

TEST(CpuSetProperty, RangesAgreeWithTheModel) {
  std::mt19937 rng(7);
  for (int round = 0; round < 500; ++round) {
    std::uint32_t first = random_id(rng);
    std::uint32_t last = rng() % 2 == 0 ? first + static_cast<std::uint32_t>(rng() % 300) : random_id(rng);
    if (last < first && rng() % 2 == 0) std::swap(first, last);
    if (last - first > 100000 && last >= first) last = first + 1000;  // keep the model small
    Model m;
    for (std::uint64_t id = first; id <= last; ++id) m.insert(static_cast<std::uint32_t>(id));
    expect_same(CpuSet::range(first, last), m,
                "range " + std::to_string(first) + "-" + std::to_string(last));
  }
}

// Exclusions among random inclusions, parsed, against the model's own reading of the list: the
// items in order, as libvirt applies them (an exclusion is one id, and a later item may list it
// again). libvirt_numbers_property_test.cpp holds the parser to libvirt itself on small lists.
TEST(CpuSetProperty, ParsedListsAgreeWithTheModel) {
  std::mt19937 rng(11);
  for (int round = 0; round < 500; ++round) {
    std::string text;
    Model want;
    const int items = 1 + static_cast<int>(rng() % 6);
    for (int k = 0; k < items; ++k) {
      const bool exclude = rng() % 3 == 0;
      const std::uint32_t a = static_cast<std::uint32_t>(rng() % (rng() % 2 ? 300 : kMaxCpuId + 1));
      const std::uint32_t b = exclude ? a : std::min<std::uint32_t>(kMaxCpuId, a + static_cast<std::uint32_t>(rng() % 130));
      if (!text.empty()) text += ",";
      text += (exclude ? "^" : "") + std::to_string(a) + (b > a ? "-" + std::to_string(b) : "");
      for (std::uint32_t id = a; id <= b; ++id) {
        if (exclude) {
          want.erase(id);
        } else {
          want.insert(id);
        }
      }
    }
    auto parsed = parse_cpu_list(text);
    ASSERT_TRUE(parsed.ok()) << text;
    expect_same(*parsed, want, text);
  }
}

}  // namespace
}  // namespace numaplace
