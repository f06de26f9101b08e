/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A set of NUMA node ids (0..63) as a 64-bit mask: the affinity of a topology hint.
// Narrower means fewer nodes; between equal counts, the lower mask value (the one
// whose highest differing node is absent), as the kubelet's bitmask orders them.
// to_nodeset() writes the libvirt nodeset syntax ("0-2,5"); an empty mask is "".
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "placement/model/error.h"

namespace numaplace {

inline constexpr std::uint32_t kMaxNumaNodes = 64;

// The number of set bits, inline on every target (std::popcount becomes a library
// call where the CPU's popcnt instruction is not enabled at build time).
constexpr int count_bits(std::uint64_t bits) {
  bits = bits - ((bits >> 1) & 0x5555555555555555ULL);
  bits = (bits & 0x3333333333333333ULL) + ((bits >> 2) & 0x3333333333333333ULL);
  bits = (bits + (bits >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<int>((bits * 0x0101010101010101ULL) >> 56);
}

class NumaNodeMask {
 public:
  constexpr NumaNodeMask() = default;
  static constexpr NumaNodeMask from_bits(std::uint64_t bits) { return NumaNodeMask(bits); }
  // The mask of `nodes`; an Error for a node id of 64 or more.
  static Result<NumaNodeMask> from_nodes(const std::vector<std::uint32_t>& nodes);
  // The mask of `node`, which must be below kMaxNumaNodes.
  static constexpr NumaNodeMask single(std::uint32_t node) { return NumaNodeMask(std::uint64_t{1} << node); }

  constexpr std::uint64_t bits() const { return bits_; }
  constexpr int count() const { return count_bits(bits_); }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr bool contains(std::uint32_t node) const { return node < kMaxNumaNodes && ((bits_ >> node) & 1U); }
  constexpr bool is_subset_of(NumaNodeMask other) const { return (bits_ & ~other.bits_) == 0; }
  // Fewer nodes, or as many and a lower mask value.
  constexpr bool is_narrower_than(NumaNodeMask other) const {
    return count() == other.count() ? bits_ < other.bits_ : count() < other.count();
  }
  std::vector<std::uint32_t> nodes() const;
  std::string to_nodeset() const;

  friend constexpr NumaNodeMask operator&(NumaNodeMask a, NumaNodeMask b) { return NumaNodeMask(a.bits_ & b.bits_); }
  friend constexpr NumaNodeMask operator|(NumaNodeMask a, NumaNodeMask b) { return NumaNodeMask(a.bits_ | b.bits_); }
  friend constexpr bool operator==(NumaNodeMask a, NumaNodeMask b) = default;

 private:
  constexpr explicit NumaNodeMask(std::uint64_t bits) : bits_(bits) {}
  std::uint64_t bits_ = 0;
};

}  // namespace numaplace
