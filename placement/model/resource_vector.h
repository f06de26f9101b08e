/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A resource vector: named dimensions ("cpu", "memory", "hugepages-2048",
// "pci:10de:1eb8", any name) each holding an amount (a double).
// The nine comparisons of the Resource Comparison design take the union of both
// sides' dimensions and read a dimension missing on one side as the given default
// (zero or +infinity). Comparisons are exact (no epsilon). Over an empty union the
// "every" comparisons (less, less_equal, equal) hold and the "some" ones do not.
// shortfalls() says which dimensions of a request exceed what is available and by
// how much, so a failed "does it fit" can explain itself. The amounts are a small
// vector sorted by name and comparisons walk both sides in step: a comparison allocates
// nothing, and a vector of a few dimensions allocates once (every fit check is one).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace numaplace {

// How a dimension present on only one side of a comparison reads on the other.
enum class MissingDimension { Zero, Infinity };

class ResourceVector {
 public:
  using Amounts = std::vector<std::pair<std::string, double>>;  // sorted by name, distinct

  ResourceVector() = default;
  explicit ResourceVector(const std::map<std::string, double>& amounts);

  void set(std::string_view dimension, double amount);
  // Drops every dimension, keeping the storage (a vector reused per check allocates nothing).
  void clear() { amounts_.clear(); }
  bool has(const std::string& dimension) const;
  // The amount of `dimension`, or the default when this vector lacks it.
  double amount_or(const std::string& dimension, MissingDimension missing) const;
  const Amounts& amounts() const { return amounts_; }
  bool empty() const { return amounts_.empty(); }

  // The sorted union of this vector's and `other`'s dimension names.
  std::vector<std::string> union_dimensions(const ResourceVector& other) const;

  // Every dimension: this < other.
  bool less(const ResourceVector& other, MissingDimension missing) const;
  // Every dimension: this <= other.
  bool less_equal(const ResourceVector& other, MissingDimension missing) const;
  // Some dimension: this < other.
  bool less_partly(const ResourceVector& other, MissingDimension missing) const;
  // Some dimension: this <= other.
  bool less_equal_partly(const ResourceVector& other, MissingDimension missing) const;
  // Every dimension: this == other.
  bool equal(const ResourceVector& other, MissingDimension missing) const;
  // Not less_equal_partly: every dimension this > other.
  bool greater(const ResourceVector& other, MissingDimension missing) const;
  // Not less_partly: every dimension this >= other.
  bool greater_equal(const ResourceVector& other, MissingDimension missing) const;
  // Not less_equal: some dimension this > other.
  bool greater_partly(const ResourceVector& other, MissingDimension missing) const;
  // Not less: some dimension this >= other.
  bool greater_equal_partly(const ResourceVector& other, MissingDimension missing) const;

 private:
  Amounts amounts_;
};

// One dimension where a request asks for more than is available.
struct Shortfall {
  std::string dimension;
  double requested = 0;
  double available = 0;
  double missing = 0;  // requested - available
};

// The dimensions, in name order, where `requested` exceeds `available` (a missing
// dimension reads as `missing`); empty exactly when requested.less_equal(available).
std::vector<Shortfall> shortfalls(const ResourceVector& requested, const ResourceVector& available,
                                  MissingDimension missing);

}  // namespace numaplace
