// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/request/guest_topology.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <string_view>

#include "placement/model/count_words.h"
#include "placement/model/utf8_text.h"
#include "placement/request/cpu_policy_constraints.h"
#include "placement/request/image_properties.h"
#include "placement/request/page_size.h"
#include "placement/request/spec_keys.h"
#include "placement/request/spec_values.h"
#include "placement/request/vpmem.h"

namespace numaplace {
namespace {

const std::string* find(const SpecMap& map, const std::string& key) {
  auto it = map.find(key);
  return it == map.end() ? nullptr : &it->second;
}

Error value_error(std::string_view text) {
  return make_error("ValueError", "invalid literal for int() with base 10: '" + std::string(text) +
                                      "'; give a whole number of MiB (for example 2048)");
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
  // int() reads a number of any size: one too large for 64 bits is a size, not a typo, and
  // Nova finds it when it adds up the nodes' memory, after the CPU map's checks: kept till then
  // as a value out of range.
  auto value = parse_python_int_saturating(text);
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

// Nova's get_pci_numa_policy_constraint: runs after the NUMA constraints.
Result<PciNumaPolicy> pci_numa_policy(const SpecMap& flavor, const ImageProperties& image) {
  const std::string* flavor_policy = find(flavor, "hw:pci_numa_affinity_policy");
  const bool flavor_set = flavor_policy != nullptr && !flavor_policy->empty();
  const bool image_set = image.pci_numa_affinity_policy && !image.pci_numa_affinity_policy->empty();
  if (flavor_set && image_set && *flavor_policy != *image.pci_numa_affinity_policy) {
    return make_error("ImagePCINUMAPolicyForbidden", "Image property hw_pci_numa_affinity_policy=" +
                                                         *image.pci_numa_affinity_policy +
                                                         " may not override the flavor's hw:pci_numa_affinity_policy=" +
                                                         *flavor_policy);
  }
  const std::string policy = flavor_set ? *flavor_policy : image_set ? *image.pci_numa_affinity_policy : "";
  if (policy.empty()) return PciNumaPolicy::Unset;
  if (policy == "required") return PciNumaPolicy::Required;
  if (policy == "legacy") return PciNumaPolicy::Legacy;
  if (policy == "preferred") return PciNumaPolicy::Preferred;
  if (policy == "socket") return PciNumaPolicy::Socket;
  return make_error("InvalidPCINUMAAffinity", "Invalid PCI NUMA affinity policy '" + policy +
                                                  "'; valid policies are required, legacy, preferred, socket");
}

// Nova's locked memory rule (Zed): locking needs an explicit page size.
Status locked_memory(const SpecMap& flavor, const ImageProperties& image, bool page_size_given, bool* locked) {
  std::optional<bool> value = image.locked_memory;
  if (const std::string* text = find(flavor, "hw:locked_memory")) {
    const bool flavor_value = bool_from_string(*text);
    if (image.locked_memory && *image.locked_memory != flavor_value) {
      return make_error("FlavorImageLockedMemoryConflict",
                        "hw:locked_memory on the flavor and hw_locked_memory on the image disagree");
    }
    value = flavor_value;
  }
  *locked = value.value_or(false);
  if (*locked && !page_size_given) {
    return make_error("LockMemoryForbidden", "Memory locking (hw:locked_memory) needs an explicit page size "
                                             "(hw:mem_page_size) so the guest memory can be backed by it");
  }
  return Done{};
}

}  // namespace

std::vector<std::string> unread_numa_keys(const GuestRequest& request, std::size_t cells) {
  std::vector<std::string> unread;
  for (const auto* map : {&request.flavor_specs, &request.image_props}) {
    const bool flavor = map == &request.flavor_specs;
    const std::string_view own_form = flavor ? "hw:" : "hw_";
    const std::string_view other_form = flavor ? "hw_" : "hw:";
    for (const char* name : {"numa_cpus", "numa_mem"}) {
      const std::string prefix = std::string(own_form) + name;
      const bool read_at_all = find(*map, prefix + ".0") != nullptr;
      for (const auto& [key, value] : *map) {
        if (!is_indexed_key(key, prefix)) continue;
        const std::string_view index = std::string_view(key).substr(prefix.size() + 1);
        const bool within = index.size() <= 5 && std::stoul(std::string(index)) < cells;
        if (cells == 0) {
          unread.push_back(key + " is not read: the guest has no NUMA topology (give hw:numa_nodes); Nova ignores it too");
        } else if (!within) {
          unread.push_back(key + " is not read: the guest has " + count_of(cells, "NUMA node") +
                           ", numbered from 0; Nova ignores it too");
        } else if (!read_at_all) {
          unread.push_back(key + " is not read: without " + prefix + ".0 Nova reads no " + prefix + " map");
        }
      }
    }
    // A key in the other map's form (hw_numa_nodes as a flavor extra spec, hw:numa_nodes as an image
    // property) is known, so no typo error, but Nova reads neither where it was given.
    for (const auto& [key, value] : *map) {
      if (key.compare(0, other_form.size(), other_form) != 0 || !is_known_key(key)) continue;
      unread.push_back(key + " is not read: " + (flavor ? "a flavor extra spec" : "an image property") +
                       " is written " + std::string(own_form) + key.substr(other_form.size()) + "; Nova ignores it too");
    }
  }
  // Nova's API registers the CPU limits as hw:max_cpu_*, but its fit reads hw:cpu_max_*.
  for (const char* limit : {"sockets", "cores", "threads"}) {
    const std::string api_name = std::string("hw:max_cpu_") + limit;
    if (const std::string* text = find(request.flavor_specs, api_name); text != nullptr && !text->empty()) {
      unread.push_back(api_name + " is not read: Nova's API takes it, but Nova reads the limit from hw:cpu_max_" +
                       limit + "; Nova ignores it too");
    }
  }
  // A page size of 0 is no request to Nova: no huge pages, and no topology from it.
  for (const auto& [key, map] : {std::pair{"hw:mem_page_size", &request.flavor_specs},
                                 std::pair{"hw_mem_page_size", &request.image_props}}) {
    const std::string* text = find(*map, key);
    if (text == nullptr || text->empty()) continue;
    if (const auto size = parse_page_size(*text); size && !size->requested) {
      unread.push_back(std::string(key) + "=" + printable_text(text->substr(0, 32)) +
                       " is not read: a page size of 0 is no request to Nova (no huge pages, no NUMA topology from "
                       "it); give small, large, any or a size such as 2048, or drop the key");
    }
  }
  // Realtime masks are read only with hw:cpu_realtime on the flavor (Nova's is_realtime_enabled).
  const std::string* realtime = find(request.flavor_specs, "hw:cpu_realtime");
  if (realtime == nullptr || !bool_from_string(*realtime)) {
    for (const auto& [key, map] : {std::pair{"hw:cpu_realtime_mask", &request.flavor_specs},
                                   std::pair{"hw_cpu_realtime_mask", &request.image_props}}) {
      const std::string* text = find(*map, key);
      if (text == nullptr || text->empty()) continue;
      unread.push_back(std::string(key) + " is not read: without hw:cpu_realtime=yes on the flavor Nova reads no "
                       "realtime mask (and the image cannot turn realtime on)");
    }
  }
  return unread;
}

Result<std::optional<GuestTopology>> derive_guest_topology(const GuestRequest& request) {
  const SpecMap& flavor = request.flavor_specs;

  // 1. The image is read first, when it is loaded.
  auto image = read_image_properties(request.image_props);
  if (!image) return image.error();
  for (const auto* map : {&flavor, &request.image_props}) {
    if (auto status = check_keys(*map); !status) return status.error();
  }

  // 2. CPU policy, thread policy, realtime and dedicated masks, emulator threads, resources and traits.
  auto cpu = derive_cpu_constraints(request, *image);
  if (!cpu) return cpu.error();

  // 3. Node count.
  const std::string* flavor_nodes_text = find(flavor, "hw:numa_nodes");
  bool flavor_nodes_set = flavor_nodes_text != nullptr && !flavor_nodes_text->empty();
  bool image_nodes_set = image->numa_nodes.has_value() && *image->numa_nodes != 0;
  if (flavor_nodes_set && image_nodes_set) return forbidden("hw_numa_nodes");
  std::optional<std::int64_t> nodes;
  if (flavor_nodes_set) {
    // A count too large for 64 bits is still a count (Python's int() reads it): refused below as
    // more cells than any host has, not as no number at all.
    nodes = parse_python_int_saturating(*flavor_nodes_text);
    if (!nodes || !is_canonical_int(*flavor_nodes_text) || *nodes < 1) {
      return make_error("InvalidNUMANodesNumber", "The property 'numa_nodes' cannot be '" +
                                                      printable_text(flavor_nodes_text->substr(0, 40)) +
                                                      "'. It must be a number greater than 0");
    }
  } else if (image->numa_nodes) {
    // Nova takes `flavor or image`: an image 0 is a count of 0, and refused.
    nodes = image->numa_nodes;
    if (*nodes < 1) {
      return make_error("InvalidNUMANodesNumber", "The property 'numa_nodes' cannot be '" + std::to_string(*nodes) +
                                                      "'. It must be a number greater than 0");
    }
  }

  // 4. Page size, then locked memory.
  auto page = page_size_constraint(flavor, *image);
  if (!page) return page.error();
  const std::string* flavor_page = find(flavor, "hw:mem_page_size");
  const bool page_given = (flavor_page != nullptr && !flavor_page->empty()) ||
                          (image->mem_page_size && !image->mem_page_size->empty());
  // A guest cell's own page size (numaplace:mem_page_size.N, N a guest cell), validated as
  // hw:mem_page_size is; an empty value is none given, as for hw:mem_page_size.
  std::map<std::uint32_t, PageSizeValue> cell_pages;
  for (const auto& [key, value] : flavor) {
    if (!is_indexed_key(key, kCellPageSizeKey) || value.empty()) continue;
    const auto index = parse_python_int(std::string_view(key).substr(kCellPageSizeKey.size() + 1));
    if (!index || *index > static_cast<std::int64_t>(kMaxCpuId)) {
      return make_error("InvalidRequest", key + " names guest cell " + key.substr(kCellPageSizeKey.size() + 1) +
                                              ", above the supported maximum " + std::to_string(kMaxCpuId));
    }
    auto cell_page = page_size_constraint(value, key, *image);
    if (!cell_page) return cell_page.error();
    if (!cell_page->requested) continue;  // "0", as for hw:mem_page_size: no request; the guest's holds
    cell_pages[static_cast<std::uint32_t>(*index)] = *cell_page;
  }
  bool locked = false;
  if (auto status = locked_memory(flavor, *image, page_given || !cell_pages.empty(), &locked); !status) {
    return status.error();
  }
  const bool cell_page_requested =
      std::any_of(cell_pages.begin(), cell_pages.end(), [](const auto& entry) { return entry.second.requested; });

  // 5. No count, no page size, no pinning, no vPMEM (hw:pmem): the guest floats (the PCI policy
  // is still checked).
  const bool pinned = cpu->cpu_policy == CpuPolicy::Dedicated || cpu->cpu_policy == CpuPolicy::Mixed;
  const bool vpmem = !vpmem_labels(flavor).empty();
  if (!nodes && !page->requested && !cell_page_requested && !pinned && !vpmem) {
    auto pci = pci_numa_policy(flavor, *image);
    if (!pci) return pci.error();
    return std::optional<GuestTopology>{};
  }
  if (!nodes) nodes = 1;
  if (*nodes > static_cast<std::int64_t>(kMaxCpuId) + 1) {
    return make_error("InvalidNUMANodesNumber", "The property 'numa_nodes' cannot be " +
                                                    (flavor_nodes_set ? printable_text(trim_blanks(*flavor_nodes_text).substr(0, 40))
                                                                      : std::to_string(*nodes)) +
                                                    "; no host has that many NUMA cells");
  }
  const auto count = static_cast<std::size_t>(*nodes);
  if (!cell_pages.empty() && cell_pages.rbegin()->first >= count) {
    return make_error("InvalidRequest", std::string(kCellPageSizeKey) + "." + std::to_string(cell_pages.rbegin()->first) +
                                            " names guest cell " + std::to_string(cell_pages.rbegin()->first) +
                                            ", but the guest has " + count_of(count, "NUMA cell") + " (0 to " +
                                            std::to_string(count - 1) + "); check hw:numa_nodes");
  }
  if (locked && !page_given) {
    for (std::uint32_t i = 0; i < count; ++i) {
      if (cell_pages.count(i) == 0) {
        return make_error("LockMemoryForbidden", "Memory locking (hw:locked_memory) needs an explicit page size: "
                                                 "guest cell " + std::to_string(i) + " has none; give hw:mem_page_size "
                                                 "or " + std::string(kCellPageSizeKey) + "." + std::to_string(i));
      }
    }
  }

  // 6. Explicit maps: the CPU map is settled before the memory map.
  auto flavor_cpus = read_indexed<CpuSet>(flavor, "hw:numa_cpus", cpu_spec);
  if (!flavor_cpus) return flavor_cpus.error();
  if (!flavor_cpus->empty() && !image->numa_cpus.empty()) return forbidden("hw_numa_cpus");
  const std::vector<CpuSet>& cpu_map = flavor_cpus->empty() ? image->numa_cpus : *flavor_cpus;

  auto flavor_mem = read_indexed<std::int64_t>(flavor, "hw:numa_mem", mem_spec);
  if (!flavor_mem) return flavor_mem.error();
  if (!flavor_mem->empty() && !image->numa_mem.empty()) return forbidden("hw_numa_mem");
  const std::vector<std::int64_t>& mem_map = flavor_mem->empty() ? image->numa_mem : *flavor_mem;

  GuestTopology topology;
  topology.cpu_policy = cpu->cpu_policy;
  topology.thread_policy = cpu->thread_policy;
  topology.emulator_threads_policy = cpu->emulator_threads_policy;
  topology.realtime_cpus = cpu->realtime_vcpus;
  topology.locked_memory = locked;
  topology.pci_requests = request.pci;
  topology.networks = request.networks;
  const std::uint64_t vcpus = request.vcpus;
  const std::uint64_t memory_kib = request.memory_kib;
  auto finish = [&](GuestCell cell) {
    cell.dedicated_cpus = cell.cpus.intersected(cpu->dedicated_vcpus);
    const auto own = cell_pages.find(cell.id);
    cell.pagesize = own != cell_pages.end() ? own->second.kib : page->kib;
    topology.cells.push_back(std::move(cell));
  };

  if (cpu_map.empty() && mem_map.empty()) {
    // 7. Even split. Nova divides MiB; a size that is not whole MiB is divided in KiB.
    const std::uint64_t memory_unit = memory_kib % kMiB == 0 ? kMiB : 1;
    if (vcpus != 0 && vcpus < count) {  // no explicit assignment can help: every node needs a vCPU of its own
      return make_error("ImageNUMATopologyAsymmetric",
                        "Instance CPUs cannot be distributed across instance NUMA nodes: " + count_of(vcpus, "vCPU") +
                            " cannot be split over " + count_of(count, "node") +
                            ", each node needs at least one; ask for at most " + count_of(vcpus, "node") +
                            " (hw:numa_nodes) or give the guest more vCPUs");
    }
    if (vcpus % count != 0 || (memory_kib / memory_unit) % count != 0) {
      return make_error("ImageNUMATopologyAsymmetric",
                        "Instance CPUs and/or memory cannot be evenly distributed across instance NUMA nodes: " +
                            count_of(vcpus, "vCPU") + " and " + std::to_string(memory_kib / 1024) + " MiB over " +
                            count_of(count, "node") + ". Explicit assignment (hw:numa_cpus.N, hw:numa_mem.N) is required");
    }
    for (std::size_t i = 0; i < count; ++i) {
      GuestCell cell;
      cell.id = static_cast<std::uint32_t>(i);
      std::uint64_t first = i * vcpus / count;
      std::uint64_t end = (i + 1) * vcpus / count;
      if (end > first) cell.cpus = CpuSet::range(static_cast<std::uint32_t>(first), static_cast<std::uint32_t>(end - 1));
      cell.memory_kib = memory_kib / memory_unit / count * memory_unit;
      finish(std::move(cell));
    }
  } else {
    // 8. Both maps, each covering every node.
    if (cpu_map.empty() || mem_map.empty() || cpu_map.size() != count || mem_map.size() != count) {
      // Name each map in the form it was given in (an absent one in the other's form), and what it covers.
      const bool cpus_flavor = !flavor_cpus->empty() || (cpu_map.empty() && !flavor_mem->empty());
      const bool mem_flavor = !flavor_mem->empty() || (mem_map.empty() && !flavor_cpus->empty());
      const auto given = [](bool from_flavor, const char* name, std::size_t nodes) {
        const std::string key = std::string(from_flavor ? "hw:" : "hw_") + name + ".N";
        if (nodes == 0) return "no " + key;
        return key + " for " + (nodes == 1 ? std::string("node 0") : "nodes 0-" + std::to_string(nodes - 1));
      };
      const bool past = cpu_map.size() > count || mem_map.size() > count;
      return make_error("ImageNUMATopologyIncomplete",
                        "CPU and memory allocation must be provided for all NUMA nodes: the request gives " +
                            given(cpus_flavor, "numa_cpus", cpu_map.size()) + " and " +
                            given(mem_flavor, "numa_mem", mem_map.size()) + ", and the guest has " +
                            count_of(count, "node") + "; give both maps for every N from 0 to " +
                            std::to_string(count - 1) + (past ? " and no N past it" : ""));
    }

    // 9. Consistency of the explicit maps.
    CpuSet seen;
    std::int64_t total_mib = 0;
    for (std::size_t i = 0; i < count; ++i) {
      for (std::uint32_t c : cpu_map[i]) {
        if (c >= vcpus) {
          return make_error("ImageNUMATopologyCPUOutOfRange",
                            "CPU number " + std::to_string(c) + " is larger than max " +
                                std::to_string(vcpus == 0 ? 0 : vcpus - 1) + " (the guest has " + count_of(vcpus, "vCPU") +
                                ", numbered from 0)");
        }
        if (seen.contains(c)) {
          return make_error("ImageNUMATopologyCPUDuplicates",
                            "CPU number " + std::to_string(c) + " is assigned to two nodes; give each vCPU to one node");
        }
        seen.insert(c);
      }
    }
    CpuSet all = vcpus == 0 ? CpuSet{} : CpuSet::range(0, static_cast<std::uint32_t>(vcpus - 1));
    if (CpuSet missing = all.minus(seen); !missing.empty()) {
      return make_error("ImageNUMATopologyCPUsUnassigned",
                        "CPU number {" + to_cpu_list(missing) + "} is not assigned to any node; add it to a hw:numa_cpus.N");
    }
    for (std::size_t i = 0; i < count; ++i) {
      if (mem_map[i] < 0 || mem_map[i] > kMaxNodeMemoryMib) {
        const std::string key = (flavor_mem->empty() ? "hw_numa_mem." : "hw:numa_mem.") + std::to_string(i);
        const std::string* text = find(flavor_mem->empty() ? request.image_props : flavor, key);
        return node_memory_out_of_range(key, text != nullptr ? *text : std::to_string(mem_map[i]));
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
      finish(std::move(cell));
    }
  }

  // Nova stores the thread policy on every guest cell it built; an empty one is no policy it knows.
  if (cpu->thread_policy_empty) {
    return make_error("ValueError", "hw:cpu_thread_policy is empty: give prefer, isolate or require, or leave the "
                                    "key out");
  }

  // 10. The PCI NUMA affinity policy, after every NUMA constraint.
  auto pci = pci_numa_policy(flavor, *image);
  if (!pci) return pci.error();
  topology.pci_numa_policy = *pci;
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
