// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/request/image_properties.h"

#include <array>

#include "placement/request/spec_values.h"

namespace numaplace {
namespace {

const std::string* find(const SpecMap& map, const std::string& key) {
  auto it = map.find(key);
  return it == map.end() ? nullptr : &it->second;
}

Error value_error(const std::string& key, const std::string& value, const std::string& expected) {
  return make_error("ValueError", "image property " + key + " = '" + value + "' is invalid: " + expected);
}

template <std::size_t N>
Result<std::optional<std::string>> read_enum(const SpecMap& properties, const std::string& key,
                                             const std::array<const char*, N>& allowed) {
  const std::string* value = find(properties, key);
  if (value == nullptr) return std::optional<std::string>{};
  std::string valid;
  for (const char* a : allowed) {
    if (*value == a) return std::optional<std::string>{*value};
    valid += std::string(valid.empty() ? "" : ", ") + a;
  }
  return value_error(key, *value, "valid values are " + valid);
}

}  // namespace

// Nova coerces the properties in the order ImageMetaProps declares its fields, so with several bad
// properties the first in that order names the error.
Result<ImageProperties> read_image_properties(const SpecMap& properties) {
  ImageProperties image;
  auto check_integer = [&](const std::string& key, const std::string& expected) -> std::optional<Error> {
    const std::string* value = find(properties, key);
    if (value != nullptr && !parse_python_int(*value)) return value_error(key, *value, expected);
    return std::nullopt;
  };
  // The guest CPU topology's integers come before the CPU policies; numaplace does not use them.
  for (const char* key : {"hw_cpu_cores", "hw_cpu_sockets", "hw_cpu_max_cores", "hw_cpu_max_sockets",
                          "hw_cpu_max_threads"}) {
    if (auto bad = check_integer(key, "give a whole number")) return *bad;
  }
  static constexpr std::array kCpuPolicies{"dedicated", "shared", "mixed"};
  static constexpr std::array kThreadPolicies{"prefer", "isolate", "require"};
  static constexpr std::array kPciPolicies{"required", "legacy", "preferred", "socket"};
  auto policy = read_enum(properties, "hw_cpu_policy", kCpuPolicies);
  if (!policy) return policy.error();
  image.cpu_policy = *policy;
  auto threads = read_enum(properties, "hw_cpu_thread_policy", kThreadPolicies);
  if (!threads) return threads.error();
  image.cpu_thread_policy = *threads;
  if (const std::string* value = find(properties, "hw_cpu_realtime_mask")) image.cpu_realtime_mask = *value;
  if (auto bad = check_integer("hw_cpu_threads", "give a whole number")) return *bad;
  if (const std::string* value = find(properties, "hw_locked_memory")) image.locked_memory = bool_from_string(*value);
  if (const std::string* value = find(properties, "hw_mem_page_size")) image.mem_page_size = *value;
  if (const std::string* value = find(properties, "hw_numa_nodes")) {
    image.numa_nodes = parse_python_int(*value);
    if (!image.numa_nodes) return value_error("hw_numa_nodes", *value, "give a whole number of NUMA nodes");
  }
  for (std::size_t i = 0;; ++i) {
    std::string key = "hw_numa_cpus." + std::to_string(i);
    const std::string* value = find(properties, key);
    if (value == nullptr) break;
    auto cpus = parse_nova_cpu_spec(*value, key);
    if (!cpus) return cpus.error();
    image.numa_cpus.push_back(std::move(*cpus));
  }
  for (std::size_t i = 0;; ++i) {
    std::string key = "hw_numa_mem." + std::to_string(i);
    const std::string* value = find(properties, key);
    if (value == nullptr) break;
    auto mib = parse_python_int_saturating(*value);  // a size too large for 64 bits: refused with the nodes' memory
    if (!mib) return value_error(key, *value, "give a whole number of MiB (for example 2048)");
    image.numa_mem.push_back(*mib);
  }
  auto pci = read_enum(properties, "hw_pci_numa_affinity_policy", kPciPolicies);
  if (!pci) return pci.error();
  image.pci_numa_affinity_policy = *pci;
  // hw_emulator_threads_policy is no image property of Nova 26 (the flavor alone decides): ignored.
  // Traits: "trait:HW_CPU_HYPERTHREADING=required" on an image lands in traits_required.
  if (const std::string* value = find(properties, "trait:HW_CPU_HYPERTHREADING")) {
    image.requires_hyperthreading = *value == "required";
  }
  if (const std::string* value = find(properties, "traits_required")) {
    image.requires_hyperthreading = image.requires_hyperthreading || value->find("HW_CPU_HYPERTHREADING") != std::string::npos;
  }
  return image;
}

}  // namespace numaplace
