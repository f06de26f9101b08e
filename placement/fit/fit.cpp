// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/fit/fit.h"

#include <algorithm>
#include <numeric>

#include "placement/fit/assignment_bounds.h"
#include "placement/fit/best_assignment.h"
#include "placement/fit/cell_fit.h"
#include "placement/fit/cell_score.h"
#include "placement/fit/fit_matrix.h"
#include "placement/fit/pci_pools.h"

namespace numaplace {

std::optional<std::string> cell_misfit(const HostTopology& host, const HostCell& cell, const GuestTopology& guest,
                                       const GuestCell& guest_cell) {
  CellFit fit = fit_cell(host, cell, guest, guest_cell, reserves_emulator_cpu(guest, guest_cell));
  if (fit.fits) return std::nullopt;
  return fit.reason;
}

CpuSet CellPlacement::held_cpus() const {
  CpuSet held = cpuset_reserved.united(isolated_cpus);
  for (const auto& [vcpu, pcpu] : pinning) held.insert(pcpu);
  return held;
}

CpuSet Placement::held_cpus() const {
  CpuSet held;
  for (const auto& cell : cells) held = held.united(cell.held_cpus());
  return held;
}

CpuSet emulator_cpus(const Placement& placement) {
  CpuSet emulator;
  CpuSet pinned;
  for (const auto& cell : placement.cells) {
    if (cell.guest_cpus.size() > cell.pinning.size()) emulator = emulator.united(cell.host_cpus);
    emulator = emulator.united(cell.cpuset_reserved);
    for (const auto& [vcpu, pcpu] : cell.pinning) pinned.insert(pcpu);
  }
  return emulator.empty() ? pinned : emulator;
}

CellPlacement cell_placement(const HostTopology& host, const HostCell& cell, const GuestCell& guest_cell,
                             const CellFit& fit) {
  CellPlacement cp;
  cp.guest_cell = guest_cell.id;
  cp.host_cell = cell.id;
  cp.guest_cpus = guest_cell.cpus;
  cp.memory_kib = guest_cell.memory_kib;
  cp.pagesize_kib = guest_cell.pagesize != kPageSizeNone ? static_cast<std::int64_t>(fit.pagesize_kib) : 0;
  cp.pinning = fit.pinning.pinning;
  cp.cpuset_reserved = fit.pinning.reserved;
  cp.isolated_cpus = fit.pinning.isolated;
  if (guest_cell.shared_cpus().empty() && !cp.pinning.empty()) {
    for (const auto& [vcpu, pcpu] : cp.pinning) cp.host_cpus.insert(pcpu);
  } else {
    // A mixed cell's shared vCPUs never float over its own dedicated pCPUs.
    cp.host_cpus = host.accounting == Accounting::Nova ? cell.shared_cpus
                                                       : floating_cpus_of(host, cell).minus(cp.held_cpus());
  }
  return cp;
}

std::vector<std::size_t> nova_host_cell_order(const HostTopology& host, const GuestTopology& guest,
                                              const FitOptions& options) {
  std::vector<std::size_t> order(host.cells.size());
  std::iota(order.begin(), order.end(), 0);
  if (host.cells.size() <= guest.cells.size()) return order;  // Nova keeps host order then

  const bool pack = options.pack_host_cells;
  std::vector<double> key(host.cells.size());
  auto sort_by_key = [&] {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return pack ? key[a] < key[b] : key[a] > key[b]; });
  };
  for (std::size_t i = 0; i < host.cells.size(); ++i) {
    key[i] = static_cast<double>(host.cells[i].memory_kib) - static_cast<double>(host.cells[i].usage.memory_kib);
  }
  sort_by_key();
  const bool pinned = guest.cpu_policy == CpuPolicy::Dedicated || guest.cpu_policy == CpuPolicy::Mixed;
  for (std::size_t i = 0; i < host.cells.size(); ++i) {
    key[i] = pinned ? static_cast<double>(host.cells[i].free_dedicated_cpus().size()) : -host.cells[i].usage.shared_cpus;
  }
  sort_by_key();
  // Free PCI devices per cell: most first when the guest asks for devices, fewest first otherwise.
  std::vector<std::uint32_t> devices(host.cells.size());
  for (std::size_t i = 0; i < host.cells.size(); ++i) devices[i] = free_pci_devices_on(host, host.cells[i].id);
  const bool wants_pci = !guest.pci_requests.empty();
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return wants_pci ? devices[a] > devices[b] : devices[a] < devices[b];
  });
  return order;
}

namespace {

std::string pci_shortfall_text(const HostTopology& host, const PciDemand& d) {
  std::string text = "no assignment of guest cells to distinct host cells reaches the PCI devices: the guest asks for " +
                     d.describe() + "; free ones by host cell:";
  for (std::size_t i = 0; i < host.cells.size(); ++i) {
    text += (i ? ", " : " ") + std::to_string(host.cells[i].id) + ": " + std::to_string(d.per_cell[i]);
  }
  return text + ", without NUMA node: " + std::to_string(d.without_node);
}

AssignmentOutline outline(const HostTopology& host, const GuestTopology& guest, const std::vector<std::size_t>& order,
                          const std::vector<std::size_t>& positions, const std::vector<std::vector<std::int64_t>>& scores) {
  AssignmentOutline out;
  for (std::size_t g = 0; g < positions.size(); ++g) {
    out.cells.emplace_back(guest.cells[g].id, host.cells[order[positions[g]]].id);
    out.score += scores[g][positions[g]];
    for (std::size_t e = 0; e < g; ++e) out.distance += position_distance(host, order, positions[e], positions[g]);
  }
  return out;
}

// `pair_scoring`: the strategy that scored the pairs (adaptive's choice for this host).
std::string verdict_for(const FitOptions& options, Strategy pair_scoring, const AssignmentOutline& chosen,
                        const std::optional<AssignmentOutline>& runner_up, const std::vector<std::uint32_t>& host_order) {
  const std::string name = to_string(pair_scoring);
  if (options.strategy == Strategy::Nova) {
    std::string ids;
    for (auto id : host_order) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
    return "strategy nova takes the first assignment that fits, trying host cells in Nova's order (" + ids +
           ")" + (options.pack_host_cells ? ", fullest first" : "") +
           "; it does not compare assignments (--strategy adaptive, pack, spread or ratio score them)";
  }
  const std::string mine = "score " + std::to_string(chosen.score) + ", distance sum " + std::to_string(chosen.distance);
  if (!runner_up) return "the only assignment that fits (" + mine + ")";
  const std::string theirs =
      "score " + std::to_string(runner_up->score) + ", distance sum " + std::to_string(runner_up->distance);
  if (chosen.score > runner_up->score) {
    return "it scores higher under " + name + " (" + mine + ") than the runner-up (" + theirs + ")";
  }
  if (chosen.distance < runner_up->distance) {
    return "it ties with the runner-up on the " + name + " score (" + std::to_string(chosen.score) +
           ") and its host cells are closer to one another (distance sum " + std::to_string(chosen.distance) +
           " against " + std::to_string(runner_up->distance) + ")";
  }
  return "it ties with the runner-up on score and distance (" + mine + "); Nova's order of host cells decides";
}

// [guest cell][position] matrices of one fit.
struct FitMatrices {
  FitMatrix fits;
  std::vector<std::vector<std::string>> reasons;
  std::vector<std::vector<std::int64_t>> scores;
  std::vector<std::vector<CellLoad>> loads;
  std::vector<std::size_t> shape_group;

  void reset(std::size_t guests, std::size_t hosts, bool want_loads) {
    reasons.resize(guests);
    scores.resize(guests);
    loads.resize(want_loads ? guests : 0);
    fits.reset(guests, hosts);
    for (auto& row : reasons) row.assign(hosts, std::string());
    for (auto& row : scores) row.assign(hosts, 0);
    for (auto& row : loads) row.assign(hosts, CellLoad{});
    shape_group.assign(guests, 0);
  }
};

}  // namespace

FitResult fit_guest(const HostTopology& host, const GuestTopology& guest, const FitOptions& options) {
  FitResult result;
  const Strategy pair_scoring = cell_scoring_strategy(options.strategy, host.cells.size());
  FitExplanation* explain = options.explanation;
  if (explain != nullptr) {
    *explain = FitExplanation{};
    explain->filled = true;
    explain->strategy = options.strategy;
    explain->scoring = pair_scoring;
  }
  auto refuse = [&](std::string summary) {
    result.summary = std::move(summary);
    if (explain != nullptr) explain->verdict = "nothing fits: " + result.summary;
    return result;
  };
  const std::size_t guests = guest.cells.size();
  const std::size_t hosts = host.cells.size();
  if (guests == 0) return refuse("the guest has no NUMA cells to place");
  if (guests > hosts) {
    return refuse("the guest asks for " + std::to_string(guests) + " NUMA cells but the host has only " +
                  std::to_string(hosts) + "; each guest cell needs a host cell of its own");
  }
  const bool scored = options.strategy != Strategy::Nova;
  std::optional<scoring::UtilizationShape> shape;
  if (options.strategy == Strategy::Ratio) {
    auto made = scoring::make_utilization_shape(options.ratio_shape);
    if (!made) return refuse("invalid ratio shape: " + made.error().message);
    shape = std::move(*made);
  }

  const std::vector<std::size_t> order = nova_host_cell_order(host, guest, options);
  // fits.at(g, p): guest cell g fits the host cell at position p of `order`. Whether it fits depends
  // only on the cell's shape (vCPU counts, memory, page size, emulator pCPU), so a guest cell
  // shaped like an earlier one shares its row (and its scores).
  // The operator's limits on each guest cell's host cells: the first one that leaves a host cell out.
  auto limit_against = [&](const GuestCell& cell, std::uint32_t host_cell) -> const HostCellLimit* {
    for (const auto& limit : options.host_cell_limits) {
      if ((!limit.guest_cell || *limit.guest_cell == cell.id) && !limit.host_cells.contains(host_cell)) return &limit;
    }
    return nullptr;
  };
  auto same_limits = [&](const GuestCell& x, const GuestCell& y) {
    for (const auto& limit : options.host_cell_limits) {
      if (limit.guest_cell && (*limit.guest_cell == x.id) != (*limit.guest_cell == y.id)) return false;
    }
    return true;
  };
  auto same_shape = [&](std::size_t a, std::size_t b) {
    const GuestCell& x = guest.cells[a];
    const GuestCell& y = guest.cells[b];
    return x.cpus.size() == y.cpus.size() && x.dedicated_cpus.size() == y.dedicated_cpus.size() &&
           x.memory_kib == y.memory_kib && x.pagesize == y.pagesize &&
           reserves_emulator_cpu(guest, x) == reserves_emulator_cpu(guest, y) && same_limits(x, y);
  };
  const bool want_loads = scored || explain != nullptr;
  // The pair matrices live on between calls on a thread (a ranking fits thousands of hosts);
  // every cell is set again below before it is read.
  thread_local FitMatrices matrices;
  matrices.reset(guests, hosts, want_loads);
  auto& fits = matrices.fits;
  auto& reasons = matrices.reasons;
  auto& scores = matrices.scores;
  auto& loads = matrices.loads;
  auto& shape_group = matrices.shape_group;
  for (std::size_t g = 0; g < guests; ++g) {
    std::size_t twin = g;
    for (std::size_t e = 0; e < g && twin == g; ++e) twin = same_shape(e, g) ? e : g;
    shape_group[g] = twin;
    const bool reserve = reserves_emulator_cpu(guest, guest.cells[g]);
    for (std::size_t p = 0; p < hosts; ++p) {
      const HostCell& cell = host.cells[order[p]];
      if (twin != g) {
        fits.set(g, p, fits.at(twin, p));
        reasons[g][p] = reasons[twin][p];
        scores[g][p] = scores[twin][p];
        if (want_loads) loads[g][p] = loads[twin][p];
      } else if (const HostCellLimit* limit = limit_against(guest.cells[g], cell.id)) {
        fits.set(g, p, false);
        reasons[g][p] = limit->source + " does not include host cell " + std::to_string(cell.id);
      } else {
        CellFit fit = fit_cell(host, cell, guest, guest.cells[g], reserve);
        fits.set(g, p, fit.fits);
        reasons[g][p] = std::move(fit.reason);
        if (fit.fits && want_loads) {
          loads[g][p] = cell_load_after(host, cell, guest, guest.cells[g], fit.pagesize_kib, reserve);
          scores[g][p] = score_cell_load(loads[g][p], pair_scoring, shape ? &*shape : nullptr, options.weights);
        }
      }
      if (!fits.at(g, p)) result.rejections.push_back({guest.cells[g].id, cell.id, reasons[g][p]});
    }
  }
  if (explain != nullptr) {
    std::vector<std::size_t> position_of(hosts);
    for (std::size_t p = 0; p < hosts; ++p) position_of[order[p]] = p;
    for (std::size_t p = 0; p < hosts; ++p) explain->host_order.push_back(host.cells[order[p]].id);
    for (std::size_t g = 0; g < guests; ++g) {
      for (std::size_t i = 0; i < hosts; ++i) {
        const std::size_t p = position_of[i];
        PairAssessment pair{guest.cells[g].id, host.cells[i].id, fits.at(g, p), reasons[g][p], scores[g][p], 0, 0};
        if (pair.fits) {
          pair.cpu_percent = loads[g][p].cpu_percent();
          pair.memory_percent = loads[g][p].memory_percent();
        }
        explain->pairs.push_back(std::move(pair));
      }
    }
  }

  const std::vector<PciDemand> demands = pci_demands(host, guest);
  for (const auto& d : demands) {
    // Requests for the same device draw on the same devices (pci_pools.h): counted together.
    if (d.total < d.asked_so_far) {
      return refuse("the guest asks for " + d.describe() +
                    (d.asked_so_far > d.request.count ? " (" + std::to_string(d.asked_so_far) + " in all its requests)"
                                                      : "") +
                    " but the host has " + std::to_string(d.total) + " such free devices");
    }
  }

  std::vector<std::size_t> chosen;
  const AssignmentProblem problem{host, order, fits, scores, shape_group, demands};
  if (!scored) {
    // The lexicographically first assignment over `order` is Nova's first permutation.
    AssignmentBounds search(host, order, fits, demands);
    const bool found = search.feasible(0) && search.run(0);
    result.assignments_tried = search.tried();
    if (explain != nullptr) explain->nodes = search.tried();
    if (!found) {
      const PciDemand* d = search.last_pci_shortfall();
      return refuse(d ? pci_shortfall_text(host, *d) : "no assignment of guest cells to distinct host cells fits");
    }
    chosen = search.chosen();
  } else {
    BestAssignment best = find_best_assignment(problem);
    result.assignments_tried = best.nodes;
    if (explain != nullptr) {
      explain->nodes = best.nodes;
      explain->capped = best.capped;
    }
    if (!best.best) {
      return refuse(best.pci_shortfall ? pci_shortfall_text(host, *best.pci_shortfall)
                                       : "no assignment of guest cells to distinct host cells fits");
    }
    chosen = best.best->positions;
  }

  if (explain != nullptr) {
    explain->chosen = outline(host, guest, order, chosen, scores);
    if (scored) {
      // The runner-up differs from the winner in some shape's host cell: forbid each in turn.
      std::optional<ScoredAssignment> second;
      for (std::size_t g = 0; g < guests; ++g) {
        BestAssignment other = find_best_assignment(problem, {{shape_group[g], chosen[g]}});
        explain->capped = explain->capped || other.capped;
        if (!other.best) continue;
        const ScoredAssignment& o = *other.best;
        if (!second || o.score > second->score || (o.score == second->score && o.distance < second->distance)) {
          second = o;
        }
      }
      if (second) explain->runner_up = outline(host, guest, order, second->positions, scores);
    }
    explain->verdict = verdict_for(options, explain->scoring, *explain->chosen, explain->runner_up, explain->host_order);
  }

  const PinningStyle style = scored ? PinningStyle::Compact : PinningStyle::NovaOrder;
  Placement placement;
  for (std::size_t g = 0; g < guests; ++g) {
    const std::size_t p = chosen[g];
    const HostCell& cell = host.cells[order[p]];
    const CellFit fit =
        fit_cell(host, cell, guest, guest.cells[g], reserves_emulator_cpu(guest, guest.cells[g]), style);
    placement.cells.push_back(cell_placement(host, cell, guest.cells[g], fit));
  }
  result.placement = std::move(placement);
  return result;
}

}  // namespace numaplace
