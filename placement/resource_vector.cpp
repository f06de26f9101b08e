#include "placement/resource_vector.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace numaplace {
namespace {

double default_amount(MissingDimension missing) {
  return missing == MissingDimension::Zero ? 0.0 : std::numeric_limits<double>::infinity();
}

// True when `holds(l, r)` is true for every dimension of the union.
template <typename Relation>
bool every_dimension(const ResourceVector& left, const ResourceVector& right, MissingDimension missing,
                     Relation holds) {
  for (const std::string& dimension : left.union_dimensions(right)) {
    if (!holds(left.amount_or(dimension, missing), right.amount_or(dimension, missing))) return false;
  }
  return true;
}

// True when `holds(l, r)` is true for some dimension of the union.
template <typename Relation>
bool some_dimension(const ResourceVector& left, const ResourceVector& right, MissingDimension missing,
                    Relation holds) {
  for (const std::string& dimension : left.union_dimensions(right)) {
    if (holds(left.amount_or(dimension, missing), right.amount_or(dimension, missing))) return true;
  }
  return false;
}

}  // namespace

double ResourceVector::amount_or(const std::string& dimension, MissingDimension missing) const {
  auto found = amounts_.find(dimension);
  return found == amounts_.end() ? default_amount(missing) : found->second;
}

std::vector<std::string> ResourceVector::union_dimensions(const ResourceVector& other) const {
  std::vector<std::string> names;
  names.reserve(amounts_.size() + other.amounts_.size());
  auto mine = amounts_.begin();
  auto theirs = other.amounts_.begin();
  while (mine != amounts_.end() || theirs != other.amounts_.end()) {
    if (theirs == other.amounts_.end() || (mine != amounts_.end() && mine->first < theirs->first)) {
      names.push_back((mine++)->first);
    } else if (mine == amounts_.end() || theirs->first < mine->first) {
      names.push_back((theirs++)->first);
    } else {
      names.push_back(mine->first);
      ++mine;
      ++theirs;
    }
  }
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
  for (const std::string& dimension : requested.union_dimensions(available)) {
    double wanted = requested.amount_or(dimension, missing);
    double have = available.amount_or(dimension, missing);
    if (!(wanted <= have)) found.push_back(Shortfall{dimension, wanted, have, wanted - have});
  }
  return found;
}

}  // namespace numaplace
