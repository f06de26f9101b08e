// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/cpu_set.h"
#include "placement/model/text_items.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <queue>
#include <utility>

namespace numaplace {

namespace {

constexpr std::uint32_t kWordBits = 64;

// The bits first..last (inclusive, within one word's 0..63).
constexpr std::uint64_t bit_span(std::uint32_t first, std::uint32_t last) {
  const std::uint64_t upto = last == kWordBits - 1 ? ~std::uint64_t{0} : (std::uint64_t{1} << (last + 1)) - 1;
  return upto & ~((std::uint64_t{1} << first) - 1);
}

inline std::uint32_t bits_in(std::uint64_t w) { return bits_in_word(w); }

const std::vector<std::uint32_t> kNoIds;

}  // namespace

CpuSet::CpuSet(std::initializer_list<std::uint32_t> ids) {
  for (auto id : ids) insert(id);
}

CpuSet::CpuSet(const CpuSet& other)
    : nwords_(other.nwords_),
      count_(other.count_),
      spill_(other.spill_ ? std::make_unique<Spill>(*other.spill_) : nullptr),
      inline_(other.inline_) {}

CpuSet::CpuSet(CpuSet&& other) noexcept
    : nwords_(other.nwords_), count_(other.count_), spill_(std::move(other.spill_)), inline_(other.inline_) {
  other.nwords_ = 0;
  other.count_ = 0;
  other.inline_.fill(0);
}

CpuSet& CpuSet::operator=(const CpuSet& other) {
  if (this == &other) return *this;
  nwords_ = other.nwords_;
  count_ = other.count_;
  inline_ = other.inline_;
  if (!other.spill_) {
    spill_.reset();
  } else if (spill_) {
    *spill_ = *other.spill_;  // keeps this set's storage
  } else {
    spill_ = std::make_unique<Spill>(*other.spill_);
  }
  return *this;
}

CpuSet& CpuSet::operator=(CpuSet&& other) noexcept {
  if (this == &other) return *this;
  nwords_ = other.nwords_;
  count_ = other.count_;
  inline_ = other.inline_;
  spill_ = std::move(other.spill_);
  other.nwords_ = 0;
  other.count_ = 0;
  other.inline_.fill(0);
  return *this;
}

const std::vector<std::uint32_t>& CpuSet::above() const { return spill_ ? spill_->above : kNoIds; }

std::vector<std::uint32_t>& CpuSet::above_mut() {
  if (!spill_) spill_ = std::make_unique<Spill>();
  return spill_->above;
}

void CpuSet::add_words(std::uint32_t n) {
  if (n > kInlineWords) {
    if (!spill_) spill_ = std::make_unique<Spill>();
    if (nwords_ <= kInlineWords) {
      spill_->words.assign(n, 0);
      std::copy(inline_.begin(), inline_.begin() + nwords_, spill_->words.begin());
      inline_.fill(0);
    } else {
      spill_->words.resize(n, 0);
    }
  }
  nwords_ = n;
}

void CpuSet::trim_words() {
  const bool was_spilled = nwords_ > kInlineWords;
  const std::uint64_t* w = words();
  std::uint32_t n = nwords_;
  while (n > 0 && w[n - 1] == 0) --n;
  if (was_spilled && n <= kInlineWords) {
    std::copy(spill_->words.begin(), spill_->words.begin() + n, inline_.begin());
    spill_->words.clear();
  } else if (was_spilled) {
    spill_->words.resize(n);
  }
  nwords_ = n;
  if (spill_ && spill_->words.empty() && spill_->above.empty()) spill_.reset();
}

void CpuSet::recount() {
  const std::uint64_t* w = words();
  std::uint32_t count = 0;
  for (std::uint32_t i = 0; i < nwords_; ++i) count += bits_in(w[i]);
  count_ = count;
}

bool CpuSet::contains_above(std::uint32_t id) const {
  const auto& ids = above();
  return std::binary_search(ids.begin(), ids.end(), id);
}

CpuSet CpuSet::range(std::uint32_t first, std::uint32_t last) {
  CpuSet set;
  if (first > last) return set;
  if (first <= kMaxCpuId) {
    const std::uint32_t top = std::min(last, kMaxCpuId);
    set.grow_words(top / kWordBits + 1);
    std::uint64_t* w = set.words();
    for (std::uint32_t i = first / kWordBits; i <= top / kWordBits; ++i) {
      const std::uint32_t lo = i == first / kWordBits ? first % kWordBits : 0;
      const std::uint32_t hi = i == top / kWordBits ? top % kWordBits : kWordBits - 1;
      w[i] = bit_span(lo, hi);
    }
    set.count_ = top - first + 1;
  }
  if (last > kMaxCpuId) {
    const std::uint32_t from = std::max(first, kMaxCpuId + 1);
    auto& ids = set.above_mut();
    ids.reserve(static_cast<std::size_t>(last) - from + 1);
    for (std::uint64_t id = from; id <= last; ++id) ids.push_back(static_cast<std::uint32_t>(id));
  }
  return set;
}

void CpuSet::insert_growing(std::uint32_t id) {
  if (id > kMaxCpuId) {
    auto& ids = above_mut();
    auto it = std::lower_bound(ids.begin(), ids.end(), id);
    if (it == ids.end() || *it != id) ids.insert(it, id);
    return;
  }
  grow_words(id / kWordBits + 1);
  std::uint64_t& w = words()[id / kWordBits];
  const std::uint64_t bit = std::uint64_t{1} << (id % kWordBits);
  if ((w & bit) == 0) {
    w |= bit;
    ++count_;
  }
}

void CpuSet::erase(std::uint32_t id) {
  if (id > kMaxCpuId) {
    if (!spill_) return;
    auto& ids = spill_->above;
    auto it = std::lower_bound(ids.begin(), ids.end(), id);
    if (it != ids.end() && *it == id) ids.erase(it);
    trim_words();
    return;
  }
  if (!contains(id)) return;
  words()[id / kWordBits] &= ~(std::uint64_t{1} << (id % kWordBits));
  --count_;
  trim_words();
}

std::uint32_t CpuSet::first() const {
  const std::uint64_t* w = words();
  for (std::uint32_t i = 0; i < nwords_; ++i) {
    if (w[i] != 0) return i * kWordBits + static_cast<std::uint32_t>(__builtin_ctzll(w[i]));
  }
  return above().front();
}

std::uint32_t CpuSet::last() const {
  if (above_size() > 0) return above().back();
  const std::uint32_t top = nwords_ - 1;  // the top word is never zero
  return top * kWordBits + (kWordBits - 1) - static_cast<std::uint32_t>(__builtin_clzll(words()[top]));
}

CpuSet CpuSet::united(const CpuSet& other) const {
  CpuSet out = *this;
  out.unite_with(other);
  return out;
}

CpuSet CpuSet::intersected(const CpuSet& other) const {
  CpuSet out;
  const std::uint32_t n = std::min(nwords_, other.nwords_);
  out.grow_words(n);
  std::uint64_t* w = out.words();
  const std::uint64_t* a = words();
  const std::uint64_t* b = other.words();
  for (std::uint32_t i = 0; i < n; ++i) w[i] = a[i] & b[i];
  if (above_size() > 0 && other.above_size() > 0) {
    std::vector<std::uint32_t> common;
    std::set_intersection(above().begin(), above().end(), other.above().begin(), other.above().end(),
                          std::back_inserter(common));
    if (!common.empty()) out.above_mut() = std::move(common);
  }
  out.trim_words();
  out.recount();
  return out;
}

CpuSet CpuSet::minus(const CpuSet& other) const {
  CpuSet out = *this;
  out.subtract(other);
  return out;
}

CpuSet& CpuSet::unite_with(const CpuSet& other) {
  grow_words(other.nwords_);
  std::uint64_t* w = words();
  const std::uint64_t* b = other.words();
  for (std::uint32_t i = 0; i < other.nwords_; ++i) {
    count_ += bits_in(b[i] & ~w[i]);  // the ids this word gains
    w[i] |= b[i];
  }
  if (other.above_size() > 0) {
    std::vector<std::uint32_t> merged;
    merged.reserve(above_size() + other.above_size());
    std::set_union(above().begin(), above().end(), other.above().begin(), other.above().end(),
                   std::back_inserter(merged));
    above_mut() = std::move(merged);
  }
  return *this;
}

CpuSet& CpuSet::subtract(const CpuSet& other) {
  const std::uint32_t n = std::min(nwords_, other.nwords_);
  std::uint64_t* w = words();
  const std::uint64_t* b = other.words();
  for (std::uint32_t i = 0; i < n; ++i) w[i] &= ~b[i];
  if (above_size() > 0 && other.above_size() > 0) {
    std::vector<std::uint32_t> left;
    left.reserve(above_size());
    std::set_difference(above().begin(), above().end(), other.above().begin(), other.above().end(),
                        std::back_inserter(left));
    spill_->above = std::move(left);
  }
  trim_words();
  recount();
  return *this;
}

std::size_t CpuSet::count_common(const CpuSet& other) const {
  const std::uint32_t n = std::min(nwords_, other.nwords_);
  const std::uint64_t* a = words();
  const std::uint64_t* b = other.words();
  std::size_t count = 0;
  for (std::uint32_t i = 0; i < n; ++i) count += bits_in(a[i] & b[i]);
  if (above_size() > 0 && other.above_size() > 0) {
    auto x = above().begin();
    auto y = other.above().begin();
    while (x != above().end() && y != other.above().end()) {
      if (*x == *y) {
        ++count;
        ++x;
        ++y;
      } else if (*x < *y) {
        ++x;
      } else {
        ++y;
      }
    }
  }
  return count;
}

bool CpuSet::is_subset_of(const CpuSet& other) const {
  if (nwords_ > other.nwords_ || size() > other.size()) return false;
  const std::uint64_t* a = words();
  const std::uint64_t* b = other.words();
  for (std::uint32_t i = 0; i < nwords_; ++i) {
    if ((a[i] & ~b[i]) != 0) return false;
  }
  return std::includes(other.above().begin(), other.above().end(), above().begin(), above().end());
}

bool CpuSet::intersects(const CpuSet& other) const {
  const std::uint32_t n = std::min(nwords_, other.nwords_);
  const std::uint64_t* a = words();
  const std::uint64_t* b = other.words();
  for (std::uint32_t i = 0; i < n; ++i) {
    if ((a[i] & b[i]) != 0) return true;
  }
  if (above_size() == 0 || other.above_size() == 0) return false;
  auto x = above().begin();
  auto y = other.above().begin();
  while (x != above().end() && y != other.above().end()) {
    if (*x == *y) return true;
    if (*x < *y) ++x; else ++y;
  }
  return false;
}

bool operator==(const CpuSet& a, const CpuSet& b) {
  return a.nwords_ == b.nwords_ && a.count_ == b.count_ && std::equal(a.words(), a.words() + a.nwords_, b.words()) &&
         a.above() == b.above();
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

// An item of a cpulist and its place in the list.
struct ListedRange {
  std::uint32_t first = 0;
  std::uint32_t last = 0;
  std::size_t order = 0;
};
struct ListedId {
  std::uint32_t id = 0;
  std::size_t order = 0;
};

// The excluded ids that stay out: libvirt applies a list's items in order, so "^3,0-7" holds 3
// (a later item includes it again) and "0-7,^3" does not. One sweep over the ids, keeping the
// ranges that cover the current one by their place in the list; sorts both lists.
std::vector<std::uint32_t> excluded_for_good(std::vector<ListedRange>& included, std::vector<ListedId>& excluded) {
  std::vector<std::uint32_t> removed;
  if (excluded.empty()) return removed;
  std::sort(included.begin(), included.end(), [](const ListedRange& a, const ListedRange& b) { return a.first < b.first; });
  std::sort(excluded.begin(), excluded.end(), [](const ListedId& a, const ListedId& b) { return a.id < b.id; });
  std::priority_queue<std::pair<std::size_t, std::uint32_t>> covering;  // (place in the list, last id) of ranges begun
  std::size_t next = 0;
  for (const auto& [id, order] : excluded) {
    for (; next < included.size() && included[next].first <= id; ++next) {
      covering.emplace(included[next].order, included[next].last);
    }
    // The latest range still covering `id` is on top once those ended before it are gone; an
    // ended range below the top never matters, since the top outranks it.
    while (!covering.empty() && covering.top().second < id) covering.pop();
    if (covering.empty() || covering.top().first < order) removed.push_back(id);
  }
  return removed;
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
  // items costs n log n, not a set union per item. Exclusions keep their place in the list.
  std::vector<ListedRange> included;
  std::vector<ListedId> excluded;
  const std::vector<std::string_view> items = split_items(text);
  for (std::size_t at = 0; at < items.size(); ++at) {
    std::string_view item = trim(items[at]);
    if (item.empty()) {
      if (at > 0 && at + 1 == items.size()) break;  // libvirt takes a comma after the last item: "0-3,"
      return make_error("InvalidCpuList", std::string(what) + ": empty item in '" + shortened(text) +
                                              "'; write ids and ranges like 0-3,^2,8");
    }
    bool exclude = item.front() == '^';
    if (exclude) item.remove_prefix(1);
    std::size_t dash = item.find('-');
    std::uint32_t first = 0;
    std::uint32_t last = 0;
    if (exclude && (item.empty() || item.front() < '0' || item.front() > '9')) {
      return make_error("InvalidCpuList", std::string(what) + ": '" + shortened(items[at]) +
                                              "' is not an exclusion; write '^' right before one CPU id, like ^2");
    }
    if (exclude && dash != std::string_view::npos) {
      return make_error("InvalidCpuList", std::string(what) + ": '" + shortened(trim(items[at])) +
                                              "' excludes a range, which libvirt refuses; exclude one id at a time, "
                                              "like ^2,^3");
    }
    if (dash == std::string_view::npos) {
      auto id = parse_cpu_id(item, item, what);
      if (!id) return id.error();
      first = last = *id;
    } else {
      auto lo = parse_cpu_id(item.substr(0, dash), item, what);
      if (!lo) return lo.error();
      // libvirt reads the range's end as C's strtol: a '+' may come before it.
      std::string_view end = trim(item.substr(dash + 1));
      if (end.size() > 1 && end.front() == '+' && end[1] >= '0' && end[1] <= '9') end.remove_prefix(1);
      auto hi = parse_cpu_id(end, item, what);
      if (!hi) return hi.error();
      if (*lo > *hi) {
        return make_error("InvalidCpuList", std::string(what) + ": range '" + shortened(item) +
                                                "' runs backwards; write the lower id first");
      }
      first = *lo;
      last = *hi;
    }
    if (exclude) {
      excluded.push_back({first, at});
    } else {
      included.push_back({first, last, at});
    }
  }
  const std::vector<std::uint32_t> removed = excluded_for_good(included, excluded);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;
  ranges.reserve(included.size());
  for (const auto& range : included) ranges.emplace_back(range.first, range.last);
  merge_ranges(ranges);
  // Every id is at most kMaxCpuId here, so the set is at most 1,024 words.
  CpuSet out;
  for (const auto& [first, last] : ranges) out.unite_with(CpuSet::range(first, last));
  for (std::uint32_t id : removed) out.erase(id);
  return out;
}

std::string to_cpu_list(const CpuSet& set) {
  std::string out;
  auto append_run = [&out](std::uint32_t first, std::uint32_t last) {
    if (!out.empty()) out += ',';
    out += std::to_string(first);
    if (last > first) {
      out += '-';
      out += std::to_string(last);
    }
  };
  bool open = false;
  std::uint32_t first = 0;
  std::uint32_t last = 0;
  for (std::uint32_t id : set) {
    if (open && id == last + 1) {
      last = id;
      continue;
    }
    if (open) append_run(first, last);
    first = last = id;
    open = true;
  }
  if (open) append_run(first, last);
  return out;
}

}  // namespace numaplace
