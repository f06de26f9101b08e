// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/sources/free_memory.h"

#include <algorithm>

namespace numaplace::plugin {

void apply_free_memory(HostTopology& host, const std::vector<CellFreeMemory>& free) {
  for (const auto& report : free) {
    for (auto& cell : host.cells) {
      if (cell.id != report.cell) continue;
      const std::uint64_t in_use = cell.memory_kib > report.free_kib ? cell.memory_kib - report.free_kib : 0;
      cell.usage.memory_kib = std::max(cell.usage.memory_kib, in_use);
    }
  }
}

}  // namespace numaplace::plugin
