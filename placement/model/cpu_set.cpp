// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/cpu_set.h"
#include "placement/model/text_items.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <utility>

namespace numaplace {

CpuSet::CpuSet(std::initializer_list<std::uint32_t> ids) {
  for (auto id : ids) insert(id);
}

CpuSet CpuSet::range(std::uint32_t first, std::uint32_t last) {
  CpuSet set;
  if (first > last) return set;
  set.ids_.reserve(last - first + 1);
  for (std::uint64_t id = first; id <= last; ++id) set.ids_.push_back(static_cast<std::uint32_t>(id));
  return set;
}

void CpuSet::insert(std::uint32_t id) {
  auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
  if (it == ids_.end() || *it != id) ids_.insert(it, id);
}

void CpuSet::erase(std::uint32_t id) {
  auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
  if (it != ids_.end() && *it == id) ids_.erase(it);
}

bool CpuSet::contains(std::uint32_t id) const { return std::binary_search(ids_.begin(), ids_.end(), id); }

// The results reserve their largest possible size first: these run inside every fit, where
// growing a vector one doubling at a time was a fifth of a host ranking's time.
CpuSet CpuSet::united(const CpuSet& other) const {
  CpuSet out;
  out.ids_.reserve(ids_.size() + other.ids_.size());
  std::set_union(ids_.begin(), ids_.end(), other.ids_.begin(), other.ids_.end(), std::back_inserter(out.ids_));
  return out;
}

CpuSet CpuSet::intersected(const CpuSet& other) const {
  CpuSet out;
  out.ids_.reserve(std::min(ids_.size(), other.ids_.size()));
  std::set_intersection(ids_.begin(), ids_.end(), other.ids_.begin(), other.ids_.end(),
                        std::back_inserter(out.ids_));
  return out;
}

CpuSet CpuSet::minus(const CpuSet& other) const {
  CpuSet out;
  out.ids_.reserve(ids_.size());
  std::set_difference(ids_.begin(), ids_.end(), other.ids_.begin(), other.ids_.end(), std::back_inserter(out.ids_));
  return out;
}

bool CpuSet::is_subset_of(const CpuSet& other) const {
  return std::includes(other.ids_.begin(), other.ids_.end(), ids_.begin(), ids_.end());
}

bool CpuSet::intersects(const CpuSet& other) const {
  auto a = ids_.begin();
  auto b = other.ids_.begin();
  while (a != ids_.end() && b != other.ids_.end()) {
    if (*a == *b) return true;
    if (*a < *b) ++a; else ++b;
  }
  return false;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Input echoed in an error message, cut short: a multi-megabyte list makes no readable error.
std::string shortened(std::string_view text) {
  constexpr std::size_t kShown = 64;
  return text.size() <= kShown ? std::string(text) : std::string(text.substr(0, kShown)) + "...";
}

Result<std::uint32_t> parse_cpu_id(std::string_view text, std::string_view item, std::string_view what) {
  text = trim(text);
  std::uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec == std::errc::invalid_argument || ptr != text.data() + text.size()) {
    return make_error("InvalidCpuList", std::string(what) + ": '" + shortened(item) +
                                            "' is not a CPU id or range; write ids and ranges like 0-3,^2,8");
  }
  if (ec == std::errc::result_out_of_range || value > kMaxCpuId) {
    return make_error("InvalidCpuList", std::string(what) + ": CPU id '" + shortened(text) +
                                            "' is above the supported maximum " + std::to_string(kMaxCpuId));
  }
  return static_cast<std::uint32_t>(value);
}

// Sorts ranges and merges overlapping or adjacent ones.
void merge_ranges(std::vector<std::pair<std::uint32_t, std::uint32_t>>& ranges) {
  std::sort(ranges.begin(), ranges.end());
  std::size_t kept = 0;
  for (const auto& range : ranges) {
    if (kept > 0 && range.first <= static_cast<std::uint64_t>(ranges[kept - 1].second) + 1) {
      ranges[kept - 1].second = std::max(ranges[kept - 1].second, range.second);
    } else {
      ranges[kept++] = range;
    }
  }
  ranges.resize(kept);
}

}  // namespace

Result<CpuSet> parse_cpu_list(std::string_view text, std::string_view what) {
  if (trim(text).empty()) {
    return make_error("InvalidCpuList", std::string(what) + " is empty; give at least one CPU id");
  }
  // Ranges are collected first and merged once (sort, then one pass), so a list of a million
  // items costs n log n, not a set union per item.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> included;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> excluded;
  for (std::string_view raw : split_items(text)) {
    std::string_view item = trim(raw);
    if (item.empty()) {
      return make_error("InvalidCpuList", std::string(what) + ": empty item in '" + shortened(text) +
                                              "'; write ids and ranges like 0-3,^2,8");
    }
    bool exclude = item.front() == '^';
    if (exclude) item.remove_prefix(1);
    std::size_t dash = item.find('-');
    std::uint32_t first = 0;
    std::uint32_t last = 0;
    if (dash == std::string_view::npos) {
      auto id = parse_cpu_id(item, item, what);
      if (!id) return id.error();
      first = last = *id;
    } else {
      auto lo = parse_cpu_id(item.substr(0, dash), item, what);
      if (!lo) return lo.error();
      auto hi = parse_cpu_id(item.substr(dash + 1), item, what);
      if (!hi) return hi.error();
      if (*lo > *hi) {
        return make_error("InvalidCpuList", std::string(what) + ": range '" + shortened(item) +
                                                "' runs backwards; write the lower id first");
      }
      first = *lo;
      last = *hi;
    }
    (exclude ? excluded : included).emplace_back(first, last);
  }
  merge_ranges(included);
  merge_ranges(excluded);
  CpuSet out;
  auto cut = excluded.begin();
  for (const auto& [first, last] : included) {
    for (std::uint32_t id = first;; ++id) {
      while (cut != excluded.end() && cut->second < id) ++cut;
      if (cut == excluded.end() || id < cut->first) out.insert(id);  // ascending: appends
      if (id == last) break;
    }
  }
  return out;
}

std::string to_cpu_list(const CpuSet& set) {
  std::string out;
  const auto& ids = set.ids();
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ids[i]);
    if (j > i) {
      out += '-';
      out += std::to_string(ids[j]);
    }
    i = j + 1;
  }
  return out;
}

}  // namespace numaplace
