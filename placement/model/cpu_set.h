/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A set of CPU ids (host pCPUs or guest vCPUs) and libvirt's cpulist syntax.
// parse_cpu_list reads a list as libvirt does: "0-3,^2,8" (ranges, single ids, ^exclusions of
// single ids, items applied in order so that "^2,0-3" holds 2, blanks around items, a comma
// after the last item, a '+' before a range's end). It refuses junk, excluded ranges, reversed ranges and ids above
// kMaxCpuId with a named error, so "0-4294967295" never allocates.
// to_cpu_list prints the canonical, shortest form ("0-1,4").
// A CpuSet holds any uint32 id and iterates in ascending order. Ids up to kMaxCpuId are bits
// (64 per word; the first 256 ids without a heap allocation); an id above it, which no reader
// accepts but code may still insert, goes to a sorted list beside the bits, so no id ever
// costs more than its own entry. size() and first()/last() are O(1) or O(words); the set
// operations are word-wise. Two sets are equal when they hold the same ids. A set is 48 bytes;
// a pinning check walks thousands of hosts' sets, so their size is cache lines.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "placement/model/error.h"

namespace numaplace {

// libvirt caps CPU bitmaps far below this; anything above is a typo or an attack.
inline constexpr std::uint32_t kMaxCpuId = 65535;

class CpuSet {
 public:
  // Ascending ids; a forward iterator over the set's bits, then the ids above kMaxCpuId.
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::uint32_t;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::uint32_t;

    iterator() = default;
    std::uint32_t operator*() const {
      return word_ < set_->nwords_ ? word_ * 64 + static_cast<std::uint32_t>(__builtin_ctzll(bits_))
                                   : set_->spill_->above[over_];
    }
    iterator& operator++() {
      if (word_ < set_->nwords_) {
        bits_ &= bits_ - 1;
        if (bits_ == 0) seek_word(word_ + 1);
      } else {
        ++over_;
      }
      return *this;
    }
    iterator operator++(int) {
      iterator before = *this;
      ++*this;
      return before;
    }
    friend bool operator==(const iterator& a, const iterator& b) {
      return a.word_ == b.word_ && a.bits_ == b.bits_ && a.over_ == b.over_;
    }

   private:
    friend class CpuSet;
    iterator(const CpuSet* set, std::uint32_t word, std::size_t over) : set_(set), over_(over) { seek_word(word); }
    void seek_word(std::uint32_t word) {
      const std::uint64_t* w = set_->words();
      while (word < set_->nwords_ && w[word] == 0) ++word;
      word_ = word;
      bits_ = word < set_->nwords_ ? w[word] : 0;
    }
    const CpuSet* set_ = nullptr;
    std::uint32_t word_ = 0;  // the word being walked; nwords_ once in the ids above kMaxCpuId
    std::uint64_t bits_ = 0;  // its bits not yet visited
    std::size_t over_ = 0;    // position in the ids above kMaxCpuId
  };
  using const_iterator = iterator;

  CpuSet() = default;
  CpuSet(std::initializer_list<std::uint32_t> ids);
  CpuSet(const CpuSet& other);
  CpuSet(CpuSet&& other) noexcept;
  CpuSet& operator=(const CpuSet& other);
  CpuSet& operator=(CpuSet&& other) noexcept;
  ~CpuSet() = default;
  static CpuSet range(std::uint32_t first, std::uint32_t last);  // inclusive

  void insert(std::uint32_t id) {
    // Inline where the id's word is already held: a host read from its cells inserts every CPU id
    // in ascending order, so all but one insert per word land here.
    if (id <= kMaxCpuId && id / 64 < nwords_) {
      std::uint64_t& w = words()[id / 64];
      const std::uint64_t bit = std::uint64_t{1} << (id % 64);
      count_ += (w & bit) == 0 ? 1u : 0u;
      w |= bit;
      return;
    }
    insert_growing(id);
  }
  void erase(std::uint32_t id);
  bool contains(std::uint32_t id) const {
    if (id <= kMaxCpuId) return id / 64 < nwords_ && ((words()[id / 64] >> (id % 64)) & 1u) != 0;
    return contains_above(id);
  }
  std::size_t size() const { return count_ + (spill_ ? spill_->above.size() : 0); }
  bool empty() const { return size() == 0; }
  std::uint32_t first() const;  // the set must not be empty
  std::uint32_t last() const;   // the set must not be empty

  CpuSet united(const CpuSet& other) const;
  CpuSet intersected(const CpuSet& other) const;
  CpuSet minus(const CpuSet& other) const;
  bool is_subset_of(const CpuSet& other) const;
  bool intersects(const CpuSet& other) const;
  // In place: the same sets as united / minus, without a new set.
  CpuSet& unite_with(const CpuSet& other);
  CpuSet& subtract(const CpuSet& other);
  // intersected(other).size() and minus(other).size(), without building either set.
  std::size_t count_common(const CpuSet& other) const;
  std::size_t count_minus(const CpuSet& other) const { return size() - count_common(other); }

  // Word-wise reading, for a caller that combines several sets word by word without building
  // any (the fit matrix's pinning check, pinning_check.cpp): word i holds ids 64i..64i+63 as
  // bits, 0 beyond the set's words. Ids above kMaxCpuId are in no word (has_ids_above_max).
  std::uint32_t word_count() const { return nwords_; }
  std::uint64_t word(std::uint32_t i) const { return i < nwords_ ? words()[i] : 0; }
  bool has_ids_above_max() const { return above_size() > 0; }

  // Ascending ids, as a new vector.
  std::vector<std::uint32_t> ids() const { return {begin(), end()}; }
  iterator begin() const { return iterator(this, 0, 0); }
  iterator end() const { return iterator(this, nwords_, above_size()); }

  friend bool operator==(const CpuSet& a, const CpuSet& b);

 private:
  static constexpr std::uint32_t kInlineWords = 4;  // ids 0-255 without a heap allocation
  // What a set needs only beyond 256 ids: the words when there are more than kInlineWords, the
  // ids above kMaxCpuId. Null for the sets of every ordinary host, so a set is 48 bytes.
  struct Spill {
    std::vector<std::uint64_t> words;
    std::vector<std::uint32_t> above;  // ids above kMaxCpuId, sorted, unique
  };

  // Words 0..nwords_-1 (the last one non-zero): inline_ while nwords_ <= kInlineWords (the
  // rest of inline_ zero, spill_->words empty), else spill_->words (exactly nwords_ words,
  // inline_ all zero).
  const std::uint64_t* words() const { return nwords_ <= kInlineWords ? inline_.data() : spill_->words.data(); }
  std::uint64_t* words() { return nwords_ <= kInlineWords ? inline_.data() : spill_->words.data(); }
  const std::vector<std::uint32_t>& above() const;
  std::vector<std::uint32_t>& above_mut();
  std::size_t above_size() const { return spill_ ? spill_->above.size() : 0; }
  void grow_words(std::uint32_t n) {  // at least n words, the new ones zero
    if (n > nwords_) add_words(n);
  }
  void add_words(std::uint32_t n);  // grow_words where n is more than the set holds
  void insert_growing(std::uint32_t id);  // insert() where the id's word is not held yet
  void trim_words();                 // drops zero words on top, moves back inline when they fit
  void recount();
  bool contains_above(std::uint32_t id) const;

  std::uint32_t nwords_ = 0;
  std::uint32_t count_ = 0;  // bits set (ids up to kMaxCpuId)
  std::unique_ptr<Spill> spill_;
  std::array<std::uint64_t, kInlineWords> inline_{};
};

// The number of bits set in a word, without libgcc's table call (the build targets plain x86-64,
// no popcnt instruction).
inline std::uint32_t bits_in_word(std::uint64_t w) {
  w = w - ((w >> 1) & 0x5555555555555555ULL);
  w = (w & 0x3333333333333333ULL) + ((w >> 2) & 0x3333333333333333ULL);
  w = (w + (w >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<std::uint32_t>((w * 0x0101010101010101ULL) >> 56);
}

// libvirt cpulist syntax. `what` names the field in error messages ("vcpu cpuset").
Result<CpuSet> parse_cpu_list(std::string_view text, std::string_view what = "cpulist");
std::string to_cpu_list(const CpuSet& set);

}  // namespace numaplace
