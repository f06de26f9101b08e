#include "placement/guest_topology.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>

namespace numaplace {
namespace {

std::string_view trim(std::string_view s) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

// Python's int(): optional blanks and sign around decimal digits.
std::optional<std::int64_t> parse_python_int(std::string_view text) {
  text = trim(text);
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return negative ? -value : value;
}

Error value_error(std::string_view text) {
  return make_error("ValueError", "invalid literal for int() with base 10: '" + std::string(text) +
                                      "'; give a whole number of MiB (for example 2048)");
}

// Nova's CPU spec: comma-separated rules, empty rules skipped, "a-b", "^a", "^a-b".
Result<CpuSet> parse_nova_cpu_spec(std::string_view text, const std::string& key) {
  CpuSet included;
  CpuSet excluded;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = std::min(text.find(',', start), text.size());
    std::string_view rule = trim(text.substr(start, comma - start));
    start = comma + 1;
    if (!rule.empty()) {
      bool exclude = rule.front() == '^';
      std::string_view body = exclude ? rule.substr(1) : rule;
      std::size_t dash = body.find('-');
      std::optional<std::int64_t> lo;
      std::optional<std::int64_t> hi;
      if (dash == std::string_view::npos) {
        lo = hi = parse_python_int(body);
      } else {
        lo = parse_python_int(body.substr(0, dash));
        hi = parse_python_int(body.substr(dash + 1));
      }
      const char* what = dash != std::string_view::npos ? "range" : exclude ? "exclusion" : "inclusion";
      if (!lo || !hi || *lo < 0 || *hi < 0) {
        return make_error("Invalid", key + ": invalid " + std::string(what) + " expression '" + std::string(rule) +
                                         "'; write vCPU ids and ranges like 0-3,^2,5");
      }
      if (*lo > *hi) {
        return make_error("Invalid", key + ": invalid range expression '" + std::string(rule) +
                                         "': the range runs backwards");
      }
      if (*hi > kMaxCpuId) {
        return make_error("Invalid", key + ": vCPU id " + std::to_string(*hi) + " in '" + std::string(rule) +
                                         "' is above the supported maximum " + std::to_string(kMaxCpuId));
      }
      CpuSet& target = exclude ? excluded : included;
      target = target.united(CpuSet::range(static_cast<std::uint32_t>(*lo), static_cast<std::uint32_t>(*hi)));
    }
    if (comma == text.size()) break;
  }
  return included.minus(excluded);
}

const std::string* find(const SpecMap& map, const std::string& key) {
  auto it = map.find(key);
  return it == map.end() ? nullptr : &it->second;
}

// hw:numa_cpus.0, .1, ... read in index order up to the first missing index.
template <typename T, typename Parse>
Result<std::vector<T>> read_indexed(const SpecMap& map, const std::string& prefix, Parse parse) {
  std::vector<T> out;
  for (std::size_t i = 0;; ++i) {
    std::string key = prefix + "." + std::to_string(i);
    const std::string* value = find(map, key);
    if (value == nullptr) break;
    auto parsed = parse(*value, key);
    if (!parsed) return parsed.error();
    out.push_back(std::move(*parsed));
  }
  return out;
}

Result<CpuSet> cpu_spec(const std::string& text, const std::string& key) { return parse_nova_cpu_spec(text, key); }

Result<std::int64_t> mem_spec(const std::string& text, const std::string&) {
  auto value = parse_python_int(text);
  if (!value) return value_error(text);
  return *value;
}

Error forbidden(const std::string& property) {
  return make_error("ImageNUMATopologyForbidden",
                    "Image property '" + property +
                        "' is not permitted to override NUMA configuration set against the flavor; "
                        "remove it from the image or from the flavor");
}

constexpr std::uint64_t kMiB = 1024;

// NUMA-related keys Nova knows that this version does not implement yet.
constexpr std::array kRecognisedNotImplemented{
    "hw:cpu_policy", "hw:cpu_thread_policy", "hw:cpu_dedicated_mask", "hw:mem_page_size",
    "hw:emulator_threads_policy", "hw:pci_numa_affinity_policy", "hw:cpu_realtime", "hw:cpu_realtime_mask",
    "hw:locked_memory", "hw_cpu_policy", "hw_cpu_thread_policy", "hw_mem_page_size",
    "hw_pci_numa_affinity_policy", "hw_cpu_realtime_mask", "hw_locked_memory", "hw_emulator_threads_policy",
    "resources:PCPU", "resources:VCPU", "trait:HW_CPU_HYPERTHREADING"};

// Keys of the hw: namespace that are about something other than NUMA placement.
constexpr std::array kOtherHardwareKeys{
    "hw:cpu_sockets", "hw:cpu_cores", "hw:cpu_threads", "hw:cpu_max_sockets", "hw:cpu_max_cores",
    "hw:cpu_max_threads", "hw:mem_encryption", "hw_cpu_sockets", "hw_cpu_cores",
    "hw_cpu_threads", "hw_cpu_max_sockets", "hw_cpu_max_cores", "hw_cpu_max_threads", "hw_mem_encryption"};

bool is_indexed_key(std::string_view key, std::string_view prefix) {
  if (key.substr(0, prefix.size()) != prefix || key.size() == prefix.size() || key[prefix.size()] != '.') return false;
  std::string_view index = key.substr(prefix.size() + 1);
  return !index.empty() && std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_numa_key(std::string_view key) {
  return key == "hw:numa_nodes" || key == "hw_numa_nodes" || is_indexed_key(key, "hw:numa_cpus") ||
         is_indexed_key(key, "hw:numa_mem") || is_indexed_key(key, "hw_numa_cpus") ||
         is_indexed_key(key, "hw_numa_mem");
}

bool in(std::string_view key, const auto& list) {
  return std::any_of(list.begin(), list.end(), [&](const char* k) { return key == k; });
}

bool looks_like_numa_vocabulary(std::string_view key) {
  for (std::string_view prefix : {"hw:numa_", "hw:cpu_", "hw:mem_", "hw:emulator_", "hw:pci_", "hw_numa_", "hw_cpu_",
                                  "hw_mem_", "hw_emulator_", "hw_pci_"}) {
    if (key.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

// Unknown keys inside the NUMA vocabulary are typos until proven otherwise.
Status check_keys(const SpecMap& map) {
  for (const auto& [key, value] : map) {
    if (is_numa_key(key) || in(key, kOtherHardwareKeys)) continue;
    if (in(key, kRecognisedNotImplemented)) {
      return make_error("UnsupportedSpec", "'" + key + "' is a NUMA key this version of numaplace does not implement yet; "
                                           "remove it or place this guest with a newer numaplace");
    }
    if (looks_like_numa_vocabulary(key)) {
      return make_error("UnknownSpecKey", "'" + key + "' is not a known NUMA key; check its spelling "
                                          "(known: hw:numa_nodes, hw:numa_cpus.N, hw:numa_mem.N and their hw_ image twins)");
    }
  }
  return Done{};
}

}  // namespace

bool uses_only_supported_keys(const GuestRequest& request) {
  for (const auto* map : {&request.flavor_specs, &request.image_props}) {
    for (const auto& [key, value] : *map) {
      if (!is_numa_key(key)) return false;
    }
  }
  return request.pci.empty();
}

Result<std::optional<GuestTopology>> derive_guest_topology(const GuestRequest& request) {
  const SpecMap& flavor = request.flavor_specs;
  const SpecMap& image = request.image_props;

  // 1. The image is read first, when it is loaded.
  std::optional<std::int64_t> image_nodes;
  if (const std::string* v = find(image, "hw_numa_nodes")) {
    image_nodes = parse_python_int(*v);
    if (!image_nodes) return value_error(*v);
  }
  auto image_cpus = read_indexed<CpuSet>(image, "hw_numa_cpus", cpu_spec);
  if (!image_cpus) return image_cpus.error();
  auto image_mem = read_indexed<std::int64_t>(image, "hw_numa_mem", mem_spec);
  if (!image_mem) return image_mem.error();

  for (const auto* map : {&flavor, &image}) {
    if (auto status = check_keys(*map); !status) return status.error();
  }

  // 3. Node count.
  const std::string* flavor_nodes_text = find(flavor, "hw:numa_nodes");
  bool flavor_nodes_set = flavor_nodes_text != nullptr && !flavor_nodes_text->empty();
  bool image_nodes_set = image_nodes.has_value() && *image_nodes != 0;
  if (flavor_nodes_set && image_nodes_set) return forbidden("hw_numa_nodes");
  std::optional<std::int64_t> nodes;
  if (flavor_nodes_set) {
    nodes = parse_python_int(*flavor_nodes_text);
    if (!nodes || *nodes < 1) {
      return make_error("InvalidNUMANodesNumber", "The property 'numa_nodes' cannot be '" + *flavor_nodes_text +
                                                      "'. It must be a number greater than 0");
    }
  } else if (image_nodes_set) {
    nodes = image_nodes;
    if (*nodes < 1) {
      return make_error("InvalidNUMANodesNumber", "The property 'numa_nodes' cannot be '" + std::to_string(*nodes) +
                                                      "'. It must be a number greater than 0");
    }
  }

  // 4. No count (and no other key that needs a topology): the guest floats.
  if (!nodes) return std::optional<GuestTopology>{};
  if (*nodes > static_cast<std::int64_t>(kMaxCpuId) + 1) {
    return make_error("InvalidNUMANodesNumber", "The property 'numa_nodes' cannot be " + std::to_string(*nodes) +
                                                    "; no host has that many NUMA cells");
  }
  const auto count = static_cast<std::size_t>(*nodes);

  // 5. Explicit maps: the CPU map is settled before the memory map.
  auto flavor_cpus = read_indexed<CpuSet>(flavor, "hw:numa_cpus", cpu_spec);
  if (!flavor_cpus) return flavor_cpus.error();
  if (!flavor_cpus->empty() && !image_cpus->empty()) return forbidden("hw_numa_cpus");
  const std::vector<CpuSet>& cpu_map = flavor_cpus->empty() ? *image_cpus : *flavor_cpus;

  auto flavor_mem = read_indexed<std::int64_t>(flavor, "hw:numa_mem", mem_spec);
  if (!flavor_mem) return flavor_mem.error();
  if (!flavor_mem->empty() && !image_mem->empty()) return forbidden("hw_numa_mem");
  const std::vector<std::int64_t>& mem_map = flavor_mem->empty() ? *image_mem : *flavor_mem;

  GuestTopology topology;
  const std::uint64_t vcpus = request.vcpus;
  const std::uint64_t memory_kib = request.memory_kib;

  if (cpu_map.empty() && mem_map.empty()) {
    // 6. Even split. Nova divides MiB; a size that is not whole MiB is divided in KiB.
    const std::uint64_t memory_unit = memory_kib % kMiB == 0 ? kMiB : 1;
    if (vcpus % count != 0 || (memory_kib / memory_unit) % count != 0) {
      return make_error("ImageNUMATopologyAsymmetric",
                        "Instance CPUs and/or memory cannot be evenly distributed across instance NUMA nodes: " +
                            std::to_string(vcpus) + " vCPUs and " + std::to_string(memory_kib / 1024) + " MiB over " +
                            std::to_string(count) + " nodes. Explicit assignment (hw:numa_cpus.N, hw:numa_mem.N) is required");
    }
    for (std::size_t i = 0; i < count; ++i) {
      GuestCell cell;
      cell.id = static_cast<std::uint32_t>(i);
      std::uint64_t first = i * vcpus / count;
      std::uint64_t end = (i + 1) * vcpus / count;
      if (end > first) cell.cpus = CpuSet::range(static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(end - 1));
      cell.memory_kib = memory_kib / memory_unit / count * memory_unit;
      topology.cells.push_back(std::move(cell));
    }
    return std::optional<GuestTopology>{std::move(topology)};
  }

  // 7. Both maps, each covering every node.
  if (cpu_map.empty() || mem_map.empty() || cpu_map.size() != count || mem_map.size() != count) {
    return make_error("ImageNUMATopologyIncomplete",
                      "CPU and memory allocation must be provided for all NUMA nodes: give hw:numa_cpus.N and "
                      "hw:numa_mem.N for every N from 0 to " + std::to_string(count - 1));
  }

  // 8. Consistency of the explicit maps.
  CpuSet seen;
  std::int64_t total_mib = 0;
  for (std::size_t i = 0; i < count; ++i) {
    for (std::uint32_t cpu : cpu_map[i]) {
      if (cpu >= vcpus) {
        return make_error("ImageNUMATopologyCPUOutOfRange",
                          "CPU number " + std::to_string(cpu) + " is larger than max " +
                              std::to_string(vcpus == 0 ? 0 : vcpus - 1) + " (the guest has " + std::to_string(vcpus) +
                              " vCPUs, numbered from 0)");
      }
      if (seen.contains(cpu)) {
        return make_error("ImageNUMATopologyCPUDuplicates",
                          "CPU number " + std::to_string(cpu) + " is assigned to two nodes; give each vCPU to one node");
      }
      seen.insert(cpu);
    }
  }
  CpuSet all = vcpus == 0 ? CpuSet{} : CpuSet::range(0, static_cast<std::uint32_t>(vcpus - 1));
  if (CpuSet missing = all.minus(seen); !missing.empty()) {
    return make_error("ImageNUMATopologyCPUsUnassigned",
                      "CPU number {" + to_cpu_list(missing) + "} is not assigned to any node; add it to a hw:numa_cpus.N");
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (mem_map[i] < 0 || mem_map[i] > (std::int64_t{1} << 40)) {
      return make_error("ImageNUMATopologyMemoryOutOfRange",
                        "hw:numa_mem." + std::to_string(i) + " = " + std::to_string(mem_map[i]) +
                            " MiB is not a usable size; give a positive number of MiB");
    }
    total_mib += mem_map[i];
  }
  if (static_cast<std::uint64_t>(total_mib) * kMiB != memory_kib) {
    return make_error("ImageNUMATopologyMemoryOutOfRange",
                      std::to_string(total_mib) + " MB of memory assigned, but expected " +
                          std::to_string(memory_kib / 1024) + " MB; make hw:numa_mem.N add up to the guest's memory");
  }
  for (std::size_t i = 0; i < count; ++i) {
    GuestCell cell;
    cell.id = static_cast<std::uint32_t>(i);
    cell.cpus = cpu_map[i];
    cell.memory_kib = static_cast<std::uint64_t>(mem_map[i]) * kMiB;
    topology.cells.push_back(std::move(cell));
  }
  return std::optional<GuestTopology>{std::move(topology)};
}

std::string to_string(CpuPolicy policy) {
  switch (policy) {
    case CpuPolicy::Shared: return "shared";
    case CpuPolicy::Dedicated: return "dedicated";
    case CpuPolicy::Mixed: return "mixed";
    case CpuPolicy::Unset: break;
  }
  return "unset";
}

std::string to_string(ThreadPolicy policy) {
  switch (policy) {
    case ThreadPolicy::Prefer: return "prefer";
    case ThreadPolicy::Isolate: return "isolate";
    case ThreadPolicy::Require: return "require";
    case ThreadPolicy::Unset: break;
  }
  return "unset";
}

std::string to_string(EmulatorThreadsPolicy policy) {
  switch (policy) {
    case EmulatorThreadsPolicy::Share: return "share";
    case EmulatorThreadsPolicy::Isolate: return "isolate";
    case EmulatorThreadsPolicy::Unset: break;
  }
  return "unset";
}

std::string to_string(PciNumaPolicy policy) {
  switch (policy) {
    case PciNumaPolicy::Required: return "required";
    case PciNumaPolicy::Preferred: return "preferred";
    case PciNumaPolicy::Legacy: return "legacy";
    case PciNumaPolicy::Socket: return "socket";
    case PciNumaPolicy::Unset: break;
  }
  return "unset";
}

}  // namespace numaplace
