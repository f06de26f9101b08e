// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/hints/numa_node_mask.h"

namespace numaplace {

Result<NumaNodeMask> NumaNodeMask::from_nodes(const std::vector<std::uint32_t>& nodes) {
  std::uint64_t bits = 0;
  for (std::uint32_t node : nodes) {
    if (node >= kMaxNumaNodes) {
      return make_error("NumaNodeOutOfRange", "NUMA node " + std::to_string(node) + " is out of range; node ids go up to " +
                                                  std::to_string(kMaxNumaNodes - 1));
    }
    bits |= std::uint64_t{1} << node;
  }
  return NumaNodeMask(bits);
}

std::vector<std::uint32_t> NumaNodeMask::nodes() const {
  std::vector<std::uint32_t> ids;
  for (std::uint64_t rest = bits_; rest != 0; rest &= rest - 1) {
    ids.push_back(static_cast<std::uint32_t>(std::countr_zero(rest)));
  }
  return ids;
}

std::string NumaNodeMask::to_nodeset() const {
  std::string text;
  const std::vector<std::uint32_t> ids = nodes();
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t end = i;
    while (end + 1 < ids.size() && ids[end + 1] == ids[end] + 1) ++end;
    if (!text.empty()) text += ',';
    text += std::to_string(ids[i]);
    if (end > i) text += (end == i + 1 ? "," : "-") + std::to_string(ids[end]);
    i = end + 1;
  }
  return text;
}

}  // namespace numaplace
