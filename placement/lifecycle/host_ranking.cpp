// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/lifecycle/host_ranking.h"

#include <algorithm>
#include <cmath>

#include "placement/lifecycle/default_placement.h"
#include "placement/request/guest_tuning.h"

namespace numaplace {
namespace {

constexpr std::int64_t kMilli = 1000;

std::int64_t milli_cpus(double cpus) { return static_cast<std::int64_t>(std::llround(cpus * kMilli)); }

// A guest without a NUMA topology is confined by place to cells that hold it (default_placement.h):
// a host is refused when no set of its cells can, for the reason place would give.
std::optional<std::string> floating_misfit(const HostTopology& host, const GuestRequest& request, std::uint64_t page_kib) {
  FloatingGuest guest;
  guest.vcpus = request.vcpus;
  guest.memory_kib = request.memory_kib;
  guest.hugepage_kib = page_kib;
  return floating_shortfall(host, guest);
}

// Writes the host's totals into `node`, reusing its entries: a ranking does this for every fitting
// host, and a map assigned its same keys again allocates nothing.
void fill_host_resources(const HostTopology& host, scoring::NodeResources& node) {
  std::int64_t cpus = 0;
  double cpu_requested = 0;
  std::int64_t memory = 0;
  std::int64_t memory_requested = 0;
  const double ratio = host.ratio.cpu > 0 ? host.ratio.cpu : 1.0;
  for (const auto& cell : host.cells) {
    cpus += static_cast<std::int64_t>(cell.cpus.size());
    cpu_requested += static_cast<double>(cell.usage.pinned_cpus.size()) + cell.usage.shared_cpus / ratio;
    memory += static_cast<std::int64_t>(cell.memory_kib) * 1024;
    memory_requested += static_cast<std::int64_t>(cell.usage.memory_kib) * 1024;
  }
  node.allocatable["cpu"] = cpus * kMilli;
  node.allocatable["memory"] = memory;
  node.requested["cpu"] = milli_cpus(cpu_requested);
  node.requested["memory"] = memory_requested;
}

// Asks the processor to start loading what fitting a host reads, a host or two ahead: 10,000
// hosts' cells are tens of MiB, far beyond the caches, and the fit of one host is short enough
// that waiting for its cells' memory was a large part of it (a profile put most of the pinning
// check's own time on the first load of each sibling group; the prefetch's own gain was within the
// noise of the loaded machine it was measured on). Two stages, because the blocks a cell
// points to (its sibling groups, its distances) can only be asked for once the cell itself has
// arrived: the cells of host i + 2, then what the cells of host i + 1 point to. A hint only:
// nothing is read through it, so it changes no answer.
void prefetch_cells(const HostTopology& host) {
  const auto* bytes = reinterpret_cast<const char*>(host.cells.data());
  const std::size_t size = host.cells.size() * sizeof(HostCell);
  for (std::size_t offset = 0; offset < size; offset += 64) __builtin_prefetch(bytes + offset);
}

void prefetch_cell_blocks(const HostTopology& host) {
  for (const HostCell& cell : host.cells) {
    const auto* groups = reinterpret_cast<const char*>(cell.siblings.data());
    const std::size_t size = cell.siblings.size() * sizeof(CpuSet);
    for (std::size_t offset = 0; offset < size; offset += 64) __builtin_prefetch(groups + offset);
    if (!cell.distances.empty()) __builtin_prefetch(cell.distances.data());
  }
}

}  // namespace

scoring::NodeResources host_resources(const HostTopology& host) {
  scoring::NodeResources node;
  fill_host_resources(host, node);
  return node;
}

scoring::PodRequest guest_resources(const GuestRequest& request, const GuestTopology* topology, double cpu_ratio) {
  const double ratio = cpu_ratio > 0 ? cpu_ratio : 1.0;
  double cpus = static_cast<double>(request.vcpus) / ratio;
  std::uint64_t memory_kib = request.memory_kib;
  if (topology != nullptr) {
    cpus = 0;
    memory_kib = 0;
    for (const auto& cell : topology->cells) {
      const auto dedicated = static_cast<double>(cell.dedicated_cpus.size());
      cpus += dedicated + (static_cast<double>(cell.cpus.size()) - dedicated) / ratio;
      memory_kib += cell.memory_kib;
    }
  }
  return {{"cpu", milli_cpus(cpus)}, {"memory", static_cast<std::int64_t>(memory_kib) * 1024}};
}

Result<std::vector<RankedHost>> rank_hosts(std::span<const HostTopology> hosts, const GuestRequest& request,
                                           const RankOptions& options) {
  auto derived = derive_guest_topology(request);
  if (!derived) return derived.error();
  // A request no domain could carry (a CPU topology that cannot be written) fits no host.
  if (auto tuning = derive_guest_tuning(request, *derived); !tuning) return tuning.error();
  const GuestTopology* topology = derived->has_value() ? &**derived : nullptr;

  std::vector<RankedHost> fitting;
  fitting.reserve(hosts.size());  // the answer holds every host: one allocation, no moves as it grows
  std::vector<RankedHost> refused;
  scoring::NodeResources node;  // reused host to host
  // What the guest adds depends on the host only through its CPU ratio: kept for the last one.
  std::optional<double> pod_ratio;
  scoring::PodRequest pod;
  if (!hosts.empty()) prefetch_cells(hosts[0]);
  if (hosts.size() > 1) prefetch_cells(hosts[1]);
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const HostTopology& host = hosts[i];
    if (i + 2 < hosts.size()) prefetch_cells(hosts[i + 2]);
    if (i + 1 < hosts.size()) prefetch_cell_blocks(hosts[i + 1]);
    RankedHost ranked;
    ranked.index = i;
    if (topology != nullptr) {
      FitResult fit = fit_guest(host, *topology, options.fit);
      if (!fit.placement) {
        ranked.reason = fit.summary.empty() ? "the guest does not fit" : std::move(fit.summary);
        if (options.explain) ranked.rejections = std::move(fit.rejections);
        refused.push_back(std::move(ranked));
        continue;
      }
      if (options.keep_placements) ranked.placement = std::move(fit.placement);
    } else if (auto misfit = floating_misfit(host, request, options.floating_page_kib)) {
      ranked.reason = std::move(*misfit);
      refused.push_back(std::move(ranked));
      continue;
    }
    fill_host_resources(host, node);
    if (pod_ratio != host.ratio.cpu) {
      pod = guest_resources(request, topology, host.ratio.cpu);
      pod_ratio = host.ratio.cpu;
    }
    auto score = scoring::score_node(options.scoring, node, pod);
    if (!score) return score.error();
    ranked.fits = true;
    ranked.score = *score;
    fitting.push_back(std::move(ranked));
  }
  std::stable_sort(fitting.begin(), fitting.end(),
                   [](const RankedHost& a, const RankedHost& b) { return a.score > b.score; });
  for (auto& r : refused) fitting.push_back(std::move(r));
  return fitting;
}

}  // namespace numaplace
