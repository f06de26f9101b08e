#include "placement/default_placement.h"

#include <algorithm>

#include "placement/hints/merge_hints.h"
#include "placement/hints/numa_info.h"

namespace numaplace {
namespace {

// Candidate masks in ascending width, over cell positions.
std::vector<std::uint64_t> candidate_masks(std::size_t cells) {
  std::vector<std::uint64_t> masks;
  if (cells <= kMaxEnumeratedCells) {
    for (std::uint64_t m = 1; m < (std::uint64_t{1} << cells); ++m) masks.push_back(m);
  } else {
    for (std::size_t i = 0; i < cells; ++i) masks.push_back(std::uint64_t{1} << i);
    masks.push_back(cells == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << cells) - 1);
  }
  std::stable_sort(masks.begin(), masks.end(), [](std::uint64_t a, std::uint64_t b) { return count_bits(a) < count_bits(b); });
  return masks;
}

// Hints for one resource given a per-cell capacity and a demand: every mask whose summed
// capacity covers the demand, preferred at the minimal width.
template <typename Capacity>
HintList capacity_hints(const HostTopology& host, const std::vector<std::uint64_t>& masks, Capacity fits) {
  HintList hints;
  int narrowest = -1;
  for (std::uint64_t m : masks) {
    std::vector<const HostCell*> cells;
    NumaNodeMask ids;
    for (std::size_t i = 0; i < host.cells.size(); ++i) {
      if ((m >> i) & 1U) {
        cells.push_back(&host.cells[i]);
        ids = ids | NumaNodeMask::single(host.cells[i].id);
      }
    }
    if (!fits(cells)) continue;
    if (narrowest < 0) narrowest = ids.count();
    hints.push_back({ids, ids.count() == narrowest});
  }
  return hints;
}

}  // namespace

Result<DefaultPlacement> place_floating_guest(const HostTopology& host, const FloatingGuest& guest,
                                              const DefaultPlacementOptions& options,
                                              const std::vector<std::string>& pci_names) {
  std::vector<std::uint32_t> ids;
  std::vector<std::vector<std::uint64_t>> distances;
  bool all_distances = options.prefer_closest_numa_nodes;
  for (const auto& cell : host.cells) {
    if (cell.id >= kMaxNumaNodes) {
      return make_error("TooManyNumaNodes", "host cell " + std::to_string(cell.id) +
                                                " is beyond the 64 NUMA nodes default placement supports");
    }
    ids.push_back(cell.id);
    if (cell.distances.size() != host.cells.size()) all_distances = false;
  }
  if (all_distances) {
    for (const auto& cell : host.cells) distances.emplace_back(cell.distances.begin(), cell.distances.end());
  }
  auto numa = make_numa_info(ids, distances);
  if (!numa) return numa.error();

  const std::vector<std::uint64_t> masks = candidate_masks(host.cells.size());
  DefaultPlacement out;
  const double vcpus = guest.vcpus;
  out.resources.push_back({"cpu", capacity_hints(host, masks, [&](const std::vector<const HostCell*>& cells) {
                             double cpus = 0;
                             double room = 0;
                             for (const HostCell* c : cells) {
                               cpus += static_cast<double>(c->shared_cpus.size());
                               room += static_cast<double>(c->shared_cpus.size()) * host.ratio.cpu - c->usage.shared_cpus;
                             }
                             return vcpus <= cpus && vcpus <= room;
                           })});
  if (guest.hugepage_kib > 4) {
    out.resources.push_back({"hugepages-" + std::to_string(guest.hugepage_kib),
                             capacity_hints(host, masks, [&](const std::vector<const HostCell*>& cells) {
                               std::uint64_t free_kib = 0;
                               for (const HostCell* c : cells) {
                                 for (const auto& pool : c->pages) {
                                   if (pool.size_kib == guest.hugepage_kib) free_kib += pool.free() * pool.size_kib;
                                 }
                               }
                               return free_kib >= guest.memory_kib;
                             })});
  } else {
    out.resources.push_back({"memory", capacity_hints(host, masks, [&](const std::vector<const HostCell*>& cells) {
                               double room = 0;
                               for (const HostCell* c : cells) {
                                 room += static_cast<double>(c->memory_kib) * host.ratio.ram -
                                         static_cast<double>(c->usage.memory_kib);
                               }
                               return static_cast<double>(guest.memory_kib) <= room;
                             })});
  }
  for (std::size_t d = 0; d < guest.pci_device_nodes.size(); ++d) {
    const std::string name = d < pci_names.size() ? "pci:" + pci_names[d] : "pci:" + std::to_string(d);
    const auto& node = guest.pci_device_nodes[d];
    if (!node || host.find_cell(*node) == nullptr) {
      out.resources.push_back({name, std::nullopt});
      continue;
    }
    out.resources.push_back({name, capacity_hints(host, masks, [&](const std::vector<const HostCell*>& cells) {
                               return std::any_of(cells.begin(), cells.end(),
                                                  [&](const HostCell* c) { return c->id == *node; });
                             })});
  }

  std::vector<ProviderHints> providers(1);
  for (const auto& resource : out.resources) providers[0][resource.resource] = resource.hints;
  MergeOptions merge_options;
  merge_options.prefer_closest_numa_nodes = all_distances;
  auto merged = merge_hints(hint_lists_from_providers(providers), options.policy, merge_options, *numa);
  if (!merged) return merged.error();
  out.reason = merged->reason;
  out.preferred = merged->hint.preferred;
  if (!merged->admit) {
    return make_error("PolicyRefused", "the " + std::string(topology_policy_name(options.policy)) +
                                           " policy cannot admit this guest: " + merged->reason);
  }
  out.cells = merged->hint.affinity;
  if (out.cells) {
    for (const auto& cell : host.cells) {
      if (out.cells->contains(cell.id)) out.cpus = out.cpus.united(cell.shared_cpus);
    }
  }
  return out;
}

}  // namespace numaplace
