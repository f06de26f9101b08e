// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/model/resource_vector.h"

#include <algorithm>
#include <limits>

namespace numaplace {
namespace {

double default_amount(MissingDimension missing) {
  return missing == MissingDimension::Zero ? 0.0 : std::numeric_limits<double>::infinity();
}

// Walks the union of both sides' dimensions in name order, reading a missing one as the
// default, and calls visit(name, left, right) until it returns true; says whether it did.
template <typename Visit>
bool any_dimension(const ResourceVector::Amounts& left, const ResourceVector::Amounts& right, MissingDimension missing,
                   Visit visit) {
  const double fallback = default_amount(missing);
  auto mine = left.begin();
  auto theirs = right.begin();
  while (mine != left.end() || theirs != right.end()) {
    bool stop = false;
    if (theirs == right.end() || (mine != left.end() && mine->first < theirs->first)) {
      stop = visit(mine->first, mine->second, fallback);
      ++mine;
    } else if (mine == left.end() || theirs->first < mine->first) {
      stop = visit(theirs->first, fallback, theirs->second);
      ++theirs;
    } else {
      stop = visit(mine->first, mine->second, theirs->second);
      ++mine;
      ++theirs;
    }
    if (stop) return true;
  }
  return false;
}

// True when `holds(l, r)` is true for every dimension of the union.
template <typename Relation>
bool every_dimension(const ResourceVector& left, const ResourceVector& right, MissingDimension missing,
                     Relation holds) {
  return !any_dimension(left.amounts(), right.amounts(), missing,
                        [&](const std::string&, double l, double r) { return !holds(l, r); });
}

// True when `holds(l, r)` is true for some dimension of the union.
template <typename Relation>
bool some_dimension(const ResourceVector& left, const ResourceVector& right, MissingDimension missing,
                    Relation holds) {
  return any_dimension(left.amounts(), right.amounts(), missing,
                       [&](const std::string&, double l, double r) { return holds(l, r); });
}

bool by_name(const std::pair<std::string, double>& entry, const std::string& name) { return entry.first < name; }

}  // namespace

ResourceVector::ResourceVector(const std::map<std::string, double>& amounts) : amounts_(amounts.begin(), amounts.end()) {}

void ResourceVector::set(std::string_view dimension, double amount) {
  // Callers mostly add dimensions in name order: append without a search then.
  if (amounts_.empty() || amounts_.back().first < dimension) {
    if (amounts_.empty()) amounts_.reserve(4);  // one allocation for the usual few dimensions
    amounts_.emplace_back(std::string(dimension), amount);
    return;
  }
  auto at = std::lower_bound(amounts_.begin(), amounts_.end(), dimension,
                             [](const std::pair<std::string, double>& entry, std::string_view name) {
                               return std::string_view(entry.first) < name;
                             });
  if (at != amounts_.end() && at->first == dimension) {
    at->second = amount;
    return;
  }
  amounts_.emplace(at, std::string(dimension), amount);
}

bool ResourceVector::has(const std::string& dimension) const {
  auto at = std::lower_bound(amounts_.begin(), amounts_.end(), dimension, by_name);
  return at != amounts_.end() && at->first == dimension;
}

double ResourceVector::amount_or(const std::string& dimension, MissingDimension missing) const {
  auto at = std::lower_bound(amounts_.begin(), amounts_.end(), dimension, by_name);
  return at != amounts_.end() && at->first == dimension ? at->second : default_amount(missing);
}

std::vector<std::string> ResourceVector::union_dimensions(const ResourceVector& other) const {
  std::vector<std::string> names;
  names.reserve(amounts_.size() + other.amounts_.size());
  any_dimension(amounts_, other.amounts_, MissingDimension::Zero, [&](const std::string& name, double, double) {
    names.push_back(name);
    return false;
  });
  return names;
}

bool ResourceVector::less(const ResourceVector& other, MissingDimension missing) const {
  return every_dimension(*this, other, missing, [](double l, double r) { return l < r; });
}

bool ResourceVector::less_equal(const ResourceVector& other, MissingDimension missing) const {
  return every_dimension(*this, other, missing, [](double l, double r) { return l <= r; });
}

bool ResourceVector::less_partly(const ResourceVector& other, MissingDimension missing) const {
  return some_dimension(*this, other, missing, [](double l, double r) { return l < r; });
}

bool ResourceVector::less_equal_partly(const ResourceVector& other, MissingDimension missing) const {
  return some_dimension(*this, other, missing, [](double l, double r) { return l <= r; });
}

bool ResourceVector::equal(const ResourceVector& other, MissingDimension missing) const {
  return every_dimension(*this, other, missing, [](double l, double r) { return l == r; });
}

bool ResourceVector::greater(const ResourceVector& other, MissingDimension missing) const {
  return !less_equal_partly(other, missing);
}

bool ResourceVector::greater_equal(const ResourceVector& other, MissingDimension missing) const {
  return !less_partly(other, missing);
}

bool ResourceVector::greater_partly(const ResourceVector& other, MissingDimension missing) const {
  return !less_equal(other, missing);
}

bool ResourceVector::greater_equal_partly(const ResourceVector& other, MissingDimension missing) const {
  return !less(other, missing);
}

std::vector<Shortfall> shortfalls(const ResourceVector& requested, const ResourceVector& available,
                                  MissingDimension missing) {
  std::vector<Shortfall> found;
  any_dimension(requested.amounts(), available.amounts(), missing,
                [&](const std::string& dimension, double wanted, double have) {
                  if (!(wanted <= have)) found.push_back(Shortfall{dimension, wanted, have, wanted - have});
                  return false;
                });
  return found;
}

}  // namespace numaplace
