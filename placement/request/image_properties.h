/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Image properties as Nova reads them when the image is loaded (ImageMeta.from_dict),
// before any flavor key is looked at, each coerced by its type in the order Nova's
// ImageMetaProps declares them (so with several bad ones the same one is named):
// hw_cpu_cores, _sockets, _max_cores, _max_sockets, _max_threads (integers, only
// checked), hw_cpu_policy, hw_cpu_thread_policy (enums), hw_cpu_realtime_mask (string),
// hw_cpu_threads (integer, only checked), hw_locked_memory (a flexible boolean),
// hw_mem_page_size (string), hw_numa_nodes (integer), hw_numa_cpus.N (CPU specs,
// "Invalid" on a bad one), hw_numa_mem.N (integers), hw_pci_numa_affinity_policy (enum).
// A bad integer or enum value is "ValueError". hw_emulator_threads_policy is not an image
// property in Nova 26 and is ignored. A property that is absent stays std::nullopt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "placement/model/cpu_set.h"
#include "placement/model/error.h"
#include "placement/model/guest_request.h"

namespace numaplace {

struct ImageProperties {
  std::vector<CpuSet> numa_cpus;        // hw_numa_cpus.0, .1, ... up to the first gap
  std::vector<std::int64_t> numa_mem;   // hw_numa_mem.0, .1, ... (MiB)
  std::optional<std::int64_t> numa_nodes;
  std::optional<std::string> cpu_policy;
  std::optional<std::string> cpu_thread_policy;
  std::optional<std::string> pci_numa_affinity_policy;
  std::optional<std::string> mem_page_size;
  std::optional<std::string> cpu_realtime_mask;
  std::optional<bool> locked_memory;
  bool requires_hyperthreading = false;  // traits_required holds HW_CPU_HYPERTHREADING
};

Result<ImageProperties> read_image_properties(const SpecMap& properties);

}  // namespace numaplace
