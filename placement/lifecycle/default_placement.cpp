// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/lifecycle/default_placement.h"

#include <algorithm>
#include <functional>
#include <map>

#include "placement/hints/merge_hints.h"
#include "placement/hints/numa_info.h"
#include "placement/model/count_words.h"
#include "placement/model/resource_vector.h"

namespace numaplace {
namespace {

// What a set of cells can still give, per dimension: "cpu" (CPUs for shared vCPUs: a guest never
// has more vCPUs than CPUs), "cpu-load" (vCPU room under the CPU ratio), "memory" (KiB a strict
// binding may take: what is physically free in small pages, never more than the RAM ratio leaves;
// memory of guests that bind none is not known to be on any cell and is not counted, as in Nova)
// and "hugepages-SIZE" (KiB in
// free pages of that size). CPUs held by dedicated guests are not offered (floating_cpus_of).
constexpr double kNoLimit = 1e18;  // finite, so that sums stay exact comparisons

// What one cell can give, worked out once per placement (a mask's room is the sum over its cells).
struct CellRoom {
  double cpus = 0, load = 0, memory = 0;
  std::map<std::uint64_t, double> pages;  // page size KiB -> KiB free in such pages
};

// KiB of small pages a guest without NUMA keys may be confined to on `cell`: what a strict binding
// may take (strict_memory_room_kib); in Nova's model, which has no physical pages, what the RAM
// ratio leaves, as Nova's RamFilter counts (without ratios the cell's memory, which then only
// weighs how the guest is split: rooms_of does not limit it).
std::uint64_t floating_memory_room_kib(const HostTopology& host, const HostCell& cell) {
  if (host.accounting != Accounting::Nova) return strict_memory_room_kib(host, cell);
  if (!host.ratio.enforced) return cell.memory_kib;
  const double ratio_room = static_cast<double>(cell.memory_kib) * host.ratio.ram - static_cast<double>(cell.usage.memory_kib);
  return ratio_room <= 0 ? 0 : static_cast<std::uint64_t>(ratio_room);
}

std::vector<CellRoom> rooms_of(const HostTopology& host) {
  std::vector<CellRoom> rooms;
  rooms.reserve(host.cells.size());
  for (const auto& c : host.cells) {
    CellRoom room;
    room.cpus = static_cast<double>(floating_cpus_of(host, c).size());
    // A host without limits (AllocationRatio::enforced) caps neither: any room is enough.
    // A cell loaded beyond its ratio has no room, not less than none: summed over a mask, a
    // negative room would take away what the other cells have.
    room.load = host.ratio.enforced ? std::max(0.0, room.cpus * host.ratio.cpu - c.usage.shared_cpus) : kNoLimit;
    room.memory = host.accounting == Accounting::Nova && !host.ratio.enforced ? kNoLimit
                                                                               : static_cast<double>(floating_memory_room_kib(host, c));
    for (const auto& pool : c.pages) room.pages[pool.size_kib] += static_cast<double>(pool.free() * pool.size_kib);
    rooms.push_back(std::move(room));
  }
  return rooms;
}

ResourceVector available_in(const std::vector<CellRoom>& rooms, std::uint64_t mask) {
  ResourceVector available;
  double cpus = 0, load_room = 0, memory_room = 0;
  std::map<std::uint64_t, double> pages;
  for (std::size_t i = 0; i < rooms.size(); ++i) {
    if (((mask >> i) & 1U) == 0) continue;
    cpus += rooms[i].cpus;
    load_room += rooms[i].load;
    memory_room += rooms[i].memory;
    for (const auto& [size, kib] : rooms[i].pages) pages[size] += kib;
  }
  available.set("cpu", cpus);
  available.set("cpu-load", load_room);
  available.set("memory", memory_room);
  for (const auto& [size, kib] : pages) available.set("hugepages-" + std::to_string(size), kib);
  return available;
}

// The host cell ids of a mask over cell positions.
NumaNodeMask cell_ids_of(const HostTopology& host, std::uint64_t positions) {
  NumaNodeMask ids;
  for (std::size_t i = 0; i < host.cells.size(); ++i) {
    if ((positions >> i) & 1U) ids = ids | NumaNodeMask::single(host.cells[i].id);
  }
  return ids;
}

// Whether `ids` holds one of `cells` (the host cells an operator's pin reaches).
bool reaches_one_of(const NumaNodeMask& ids, const CpuSet& cells) {
  for (std::uint32_t cell : cells) {
    if (ids.contains(cell)) return true;
  }
  return false;
}

// Hints for one resource: every mask whose cells can give `request` (a LessEqual over the request's
// dimensions, missing ones reading as zero), preferred at the minimal width.
HintList capacity_hints(const HostTopology& host, const std::vector<CellRoom>& rooms,
                        const std::vector<std::uint64_t>& masks, const ResourceVector& request) {
  HintList hints;
  int narrowest = -1;
  for (std::uint64_t m : masks) {
    if (!request.less_equal(available_in(rooms, m), MissingDimension::Zero)) continue;
    const NumaNodeMask ids = cell_ids_of(host, m);
    if (narrowest < 0) narrowest = ids.count();
    hints.push_back({ids, ids.count() == narrowest});
  }
  return hints;
}

// Candidate masks in ascending width, over cell positions: only cells with CPUs (a memory-only
// node, CXL or GPU memory, is never chosen for a guest without NUMA keys). Up to
// kMaxEnumeratedCells such cells every subset; above, for each cell the cells closest to it added
// one at a time (by distance, then position; by position when the host reports no distances),
// so that the narrowest masks of close cells are there at any size, and the whole set. A seed's
// growth stops at the first mask that `holds_all` (wider ones from it would never be chosen).
std::vector<std::uint64_t> candidate_masks(const HostTopology& host,
                                           const std::function<bool(std::uint64_t)>& holds_all) {
  std::vector<std::size_t> positions;
  for (std::size_t i = 0; i < host.cells.size(); ++i) {
    if (!host.cells[i].cpus.empty()) positions.push_back(i);
  }
  std::vector<std::uint64_t> masks;
  if (positions.size() <= kMaxEnumeratedCells) {
    for (std::uint64_t subset = 1; subset < (std::uint64_t{1} << positions.size()); ++subset) {
      std::uint64_t m = 0;
      for (std::size_t k = 0; k < positions.size(); ++k) {
        if ((subset >> k) & 1U) m |= std::uint64_t{1} << positions[k];
      }
      masks.push_back(m);
    }
  } else {
    std::uint64_t all = 0;
    for (std::size_t seed : positions) {
      const auto& distances = host.cells[seed].distances;
      const bool known = distances.size() == host.cells.size();
      std::vector<std::size_t> order = positions;
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (a == seed || b == seed) return a == seed && b != seed;
        if (known && distances[a] != distances[b]) return distances[a] < distances[b];
        const auto from_seed = [&](std::size_t p) { return p > seed ? p - seed : seed - p + host.cells.size(); };
        return from_seed(a) < from_seed(b);
      });
      std::uint64_t m = 0;
      for (std::size_t p : order) {
        m |= std::uint64_t{1} << p;
        masks.push_back(m);
        if (holds_all(m)) break;
      }
      for (std::size_t p : positions) all |= std::uint64_t{1} << p;
    }
    masks.push_back(all);
    std::sort(masks.begin(), masks.end());
    masks.erase(std::unique(masks.begin(), masks.end()), masks.end());
  }
  std::stable_sort(masks.begin(), masks.end(), [](std::uint64_t a, std::uint64_t b) { return count_bits(a) < count_bits(b); });
  return masks;
}

// The cells' memory given to the guest, in whole pages, in proportion to what each can take
// and never more than that, so that no cell is counted for more than it holds.
std::uint64_t page_room_kib(const HostTopology& host, const HostCell& cell, std::uint64_t page_kib) {
  if (page_kib <= 4) return floating_memory_room_kib(host, cell);
  std::uint64_t room = 0;
  for (const auto& pool : cell.pages) room += pool.size_kib == page_kib ? pool.free() * pool.size_kib : 0;
  return room;
}

std::vector<std::pair<std::uint32_t, std::uint64_t>> split_memory(const HostTopology& host, const NumaNodeMask& mask,
                                                                 std::uint64_t memory_kib, std::uint64_t page_kib) {
  const std::uint64_t unit = page_kib > 4 ? page_kib : 4;
  const std::uint64_t need = (memory_kib + unit - 1) / unit;
  std::vector<std::uint32_t> ids;
  std::vector<std::uint64_t> room, parts;
  std::uint64_t total = 0;
  for (const auto& cell : host.cells) {
    if (!mask.contains(cell.id)) continue;
    ids.push_back(cell.id);
    room.push_back(page_room_kib(host, cell, page_kib) / unit);
    total += room.back();
  }
  parts.assign(ids.size(), 0);
  std::uint64_t given = 0;
  for (std::size_t i = 0; i < ids.size() && total > 0; ++i) {
    parts[i] = std::min(room[i], static_cast<std::uint64_t>(static_cast<long double>(need) * room[i] / total));
    given += parts[i];
  }
  // What the rounding left goes to cells with room to spare, then (when nothing has room, which
  // the hints rule out) to the first cell.
  for (bool placed = true; given < need && placed;) {
    placed = false;
    for (std::size_t i = 0; i < ids.size() && given < need; ++i) {
      if (parts[i] < room[i]) {
        ++parts[i];
        ++given;
        placed = true;
      }
    }
  }
  if (given < need && !parts.empty()) parts[0] += need - given;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> split;
  std::uint64_t excess = need * unit - memory_kib;  // the last page is not all the guest's
  for (std::size_t i = ids.size(); i-- > 0;) {
    std::uint64_t kib = parts[i] * unit;
    const std::uint64_t cut = std::min(excess, kib);
    kib -= cut;
    excess -= cut;
    split.insert(split.begin(), {ids[i], kib});
  }
  return split;
}

std::string memory_shortfall(const HostTopology& host, std::uint64_t memory_kib, std::uint64_t page_kib) {
  std::string text = "memory: " + std::to_string(memory_kib / 1024) + " MiB" +
                     (page_kib > 4 ? " in " + std::to_string(page_kib) + " KiB pages" : std::string()) +
                     " cannot be bound to any set of host cells: ";
  for (std::size_t i = 0; i < host.cells.size(); ++i) {
    const HostCell& cell = host.cells[i];
    const std::uint64_t room = page_room_kib(host, cell, page_kib);
    text += (i ? ", " : "") + std::string("cell ") + std::to_string(cell.id) + " has " + std::to_string(room / 1024) +
            " MiB free";
  }
  return text + (page_kib > 4 ? std::string(" (free pages of that size)")
                               : std::string(" (memory physically free, never more than the RAM ratio allows)"));
}

std::string cpu_shortfall(const HostTopology& host, const std::vector<CellRoom>& rooms, std::uint32_t vcpus) {
  const auto count = [](double n, const char* what) { return count_of(static_cast<std::uint64_t>(n), what); };
  std::string text = "vCPUs: its " + count_of(vcpus, "floating vCPU") +
                     " are more than the CPU ratio leaves room for on all host cells together: ";
  for (std::size_t i = 0; i < host.cells.size(); ++i) {
    text += (i ? ", " : "") + std::string("cell ") + std::to_string(host.cells[i].id) + " has room for " +
            count(rooms[i].load, "more vCPU") + " (" + count(rooms[i].cpus, "floating pCPU") + ")";
  }
  return text + " (room: floating pCPUs x the CPU ratio, less the floating load of the guests there; pCPUs "
                "dedicated guests hold are not counted)";
}

}  // namespace

std::uint64_t strict_memory_room_kib(const HostTopology& host, const HostCell& cell) {
  // The small pages' memory, less what guests (and the host) hold there.
  const std::uint64_t small = small_page_kib(cell);
  std::uint64_t room = small > cell.usage.memory_kib ? small - cell.usage.memory_kib : 0;
  if (host.ratio.enforced) {
    const double ratio_room = static_cast<double>(cell.memory_kib) * host.ratio.ram -
                              static_cast<double>(cell.usage.memory_kib);
    room = ratio_room <= 0 ? 0 : std::min(room, static_cast<std::uint64_t>(ratio_room));
  }
  return room;
}

namespace {

// Every cell position with CPUs: the widest mask candidate_masks yields.
std::uint64_t positions_with_cpus(const HostTopology& host) {
  std::uint64_t all = 0;
  for (std::size_t i = 0; i < host.cells.size() && i < 64; ++i) {
    if (!host.cells[i].cpus.empty()) all |= std::uint64_t{1} << i;
  }
  return all;
}

ResourceVector memory_request_of(const FloatingGuest& guest) {
  const auto memory = static_cast<double>(guest.memory_kib);
  return guest.hugepage_kib > 4 ? ResourceVector({{"hugepages-" + std::to_string(guest.hugepage_kib), memory}})
                                : ResourceVector({{"memory", memory}});
}

std::optional<std::string> shortfall_in(const HostTopology& host, const std::vector<CellRoom>& rooms,
                                        const FloatingGuest& guest) {
  const ResourceVector room = available_in(rooms, positions_with_cpus(host));
  if (!memory_request_of(guest).less_equal(room, MissingDimension::Zero)) {
    return memory_shortfall(host, guest.memory_kib, guest.hugepage_kib);
  }
  if (!ResourceVector({{"cpu-load", static_cast<double>(guest.vcpus)}}).less_equal(room, MissingDimension::Zero)) {
    return cpu_shortfall(host, rooms, guest.vcpus);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> floating_shortfall(const HostTopology& host, const FloatingGuest& guest) {
  return shortfall_in(host, rooms_of(host), guest);
}

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

  const std::vector<CellRoom> rooms = rooms_of(host);
  // The guest is confined to the cells chosen: when no set of cells holds its memory (a strict
  // binding elsewhere would fail) or its vCPUs (they would overload the cells beyond the CPU
  // ratio), it does not fit, whatever the policy (best-effort would otherwise bind it by its other
  // resources' hints). A pCPU per vCPU is only preferred (the cpu hints), as an operator may bound
  // a guest's vCPUs to fewer pCPUs (<vcpu cpuset>).
  if (auto shortfall = shortfall_in(host, rooms, guest)) return make_error("NoFit", *shortfall);
  const double vcpus = guest.vcpus;
  const std::string pages = "hugepages-" + std::to_string(guest.hugepage_kib);
  const ResourceVector cpu_request({{"cpu", vcpus}, {"cpu-load", vcpus}});
  const ResourceVector memory_request = memory_request_of(guest);
  const std::vector<std::uint64_t> masks = candidate_masks(host, [&](std::uint64_t m) {
    const ResourceVector room = available_in(rooms, m);
    return cpu_request.less_equal(room, MissingDimension::Zero) && memory_request.less_equal(room, MissingDimension::Zero);
  });
  DefaultPlacement out;
  out.resources.push_back({"cpu", capacity_hints(host, rooms, masks, cpu_request)});
  out.resources.push_back({guest.hugepage_kib > 4 ? pages : "memory", capacity_hints(host, rooms, masks, memory_request)});
  for (std::size_t d = 0; d < guest.pci_device_nodes.size(); ++d) {
    const std::string name = d < pci_names.size() ? "pci:" + pci_names[d] : "pci:" + std::to_string(d);
    const auto& node = guest.pci_device_nodes[d];
    if (!node || host.find_cell(*node) == nullptr) {
      out.resources.push_back({name, std::nullopt});
      continue;
    }
    HintList hints;  // every mask holding the device's node, preferred alone
    for (std::uint64_t m : masks) {
      const NumaNodeMask ids = cell_ids_of(host, m);
      if (ids.contains(*node)) hints.push_back({ids, ids.count() == 1});
    }
    out.resources.push_back({name, hints});
  }

  const ResourceVector load_request({{"cpu-load", vcpus}});
  for (const auto& [name, cells] : guest.pinned_vcpu_cells) {
    HintList hints;  // every mask reaching the pin's cells, preferred when it is one of them alone
    for (std::uint64_t m : masks) {
      const NumaNodeMask ids = cell_ids_of(host, m);
      if (reaches_one_of(ids, cells)) hints.push_back({ids, ids.count() == 1});
    }
    out.resources.push_back({name, hints});
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
  // The merge intersects every resource's choice, so the mask may be narrower than any that holds
  // the vCPUs and the memory together: confined there, the guest would overload its pCPUs, or its
  // strict binding would fail. best-effort widens it to the narrowest mask that holds both and
  // contains it (else the narrowest that holds both: the union of a mask holding the vCPUs and
  // one holding the memory holds both, and the whole host is a candidate); the strict policies refuse.
  // A pCPU for each vCPU when some mask has them, else within the ratio alone.
  std::vector<NumaNodeMask> holding_both;
  for (const ResourceVector* vcpu_need : {&cpu_request, &load_request}) {
    for (std::uint64_t m : masks) {
      const ResourceVector room = available_in(rooms, m);
      if (!vcpu_need->less_equal(room, MissingDimension::Zero) || !memory_request.less_equal(room, MissingDimension::Zero)) {
        continue;
      }
      const NumaNodeMask ids = cell_ids_of(host, m);
      // Each vCPU the operator pinned must keep a cell its pin reaches, or confining would refuse it.
      const bool reaches_pins = std::all_of(guest.pinned_vcpu_cells.begin(), guest.pinned_vcpu_cells.end(),
                                            [&](const auto& pin) { return reaches_one_of(ids, pin.second); });
      if (reaches_pins) holding_both.push_back(ids);
    }
    if (!holding_both.empty()) break;
  }
  const auto holds_both = [&](const NumaNodeMask& mask) {
    return std::find(holding_both.begin(), holding_both.end(), mask) != holding_both.end();
  };
  if (out.cells && !holds_both(*out.cells)) {
    if (options.policy != TopologyPolicy::BestEffort) {
      return make_error("PolicyRefused", "the " + std::string(topology_policy_name(options.policy)) +
                                             " policy's mask, NUMA nodes " + out.cells->to_nodeset() +
                                             ", cannot hold the guest's vCPUs and its memory (" +
                                             out.resources[1].resource + ") together");
    }
    std::optional<NumaNodeMask> wider;
    for (bool containing : {true, false}) {
      for (const auto& mask : holding_both) {
        if (containing && !out.cells->is_subset_of(mask)) continue;
        if (!wider || mask.is_narrower_than(*wider)) wider = mask;
      }
      if (wider) break;
    }
    if (!wider) return make_error("NoFit", cpu_shortfall(host, rooms, guest.vcpus));
    out.reason += "; widened to NUMA nodes " + wider->to_nodeset() + ", the narrowest that holds the guest's vCPUs and memory and reaches every pinned vCPU's cells";
    out.cells = wider;
    out.preferred = false;
  }
  if (out.cells) {
    for (const auto& cell : host.cells) {
      if (out.cells->contains(cell.id)) out.cpus = out.cpus.united(floating_cpus_of(host, cell));
    }
    out.memory_split = split_memory(host, *out.cells, guest.memory_kib, guest.hugepage_kib);
  }
  return out;
}

}  // namespace numaplace
