/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A set of CPU ids (host pCPUs or guest vCPUs) and libvirt's cpulist syntax.
// parse_cpu_list accepts "0-3,^2,8" (ranges, single ids, ^exclusions applied after
// all inclusions, blanks around items) and refuses junk, reversed ranges and ids
// above kMaxCpuId with a named error, so "0-4294967295" never allocates.
// to_cpu_list prints the canonical, shortest form ("0-1,4").
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "placement/model/error.h"

namespace numaplace {

// libvirt caps CPU bitmaps far below this; anything above is a typo or an attack.
inline constexpr std::uint32_t kMaxCpuId = 65535;

class CpuSet {
 public:
  CpuSet() = default;
  CpuSet(std::initializer_list<std::uint32_t> ids);
  static CpuSet range(std::uint32_t first, std::uint32_t last);  // inclusive

  void insert(std::uint32_t id);
  void erase(std::uint32_t id);
  bool contains(std::uint32_t id) const;
  std::size_t size() const { return ids_.size(); }
  bool empty() const { return ids_.empty(); }
  std::uint32_t first() const { return ids_.front(); }
  std::uint32_t last() const { return ids_.back(); }

  CpuSet united(const CpuSet& other) const;
  CpuSet intersected(const CpuSet& other) const;
  CpuSet minus(const CpuSet& other) const;
  bool is_subset_of(const CpuSet& other) const;
  bool intersects(const CpuSet& other) const;

  // Ascending ids.
  const std::vector<std::uint32_t>& ids() const { return ids_; }
  auto begin() const { return ids_.begin(); }
  auto end() const { return ids_.end(); }

  friend bool operator==(const CpuSet&, const CpuSet&) = default;

 private:
  std::vector<std::uint32_t> ids_;  // sorted, unique
};

// libvirt cpulist syntax. `what` names the field in error messages ("vcpu cpuset").
Result<CpuSet> parse_cpu_list(std::string_view text, std::string_view what = "cpulist");
std::string to_cpu_list(const CpuSet& set);

}  // namespace numaplace
