// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/fit/fit.h"

#include <algorithm>
#include <numeric>

#include "placement/fit/assignment_bounds.h"
#include "placement/fit/best_assignment.h"
#include "placement/fit/cell_fit.h"
#include "placement/fit/cell_score.h"
#include "placement/fit/fit_matrix.h"
#include "placement/fit/network_demands.h"
#include "placement/fit/pci_pools.h"
#include "placement/fit/stable_insertion_sort.h"

namespace numaplace {

std::optional<std::string> cell_misfit(const HostTopology& host, const HostCell& cell, const GuestTopology& guest,
                                       const GuestCell& guest_cell) {
  CellFit fit = fit_cell_decision(host, cell, guest, guest_cell, reserves_emulator_cpu(guest, guest_cell));
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

CpuSet emulator_cpus(const Placement& placement, const CpuSet& realtime_vcpus) {
  CpuSet emulator;
  CpuSet pinned;
  const bool reserved = std::any_of(placement.cells.begin(), placement.cells.end(),
                                    [](const CellPlacement& cell) { return !cell.cpuset_reserved.empty(); });
  // An isolated emulator runs on its reserved pCPU alone, as Nova pins it, mixed guests' too.
  if (reserved) {
    for (const auto& cell : placement.cells) emulator = emulator.united(cell.cpuset_reserved);
    return emulator;
  }
  if (!realtime_vcpus.empty()) {
    for (const auto& cell : placement.cells) {
      CpuSet pinned_vcpus;
      for (const auto& [vcpu, pcpu] : cell.pinning) {
        pinned_vcpus.insert(vcpu);
        if (!realtime_vcpus.contains(vcpu)) emulator.insert(pcpu);
      }
      if (!cell.guest_cpus.minus(pinned_vcpus).minus(realtime_vcpus).empty()) emulator = emulator.united(cell.host_cpus);
    }
    return emulator;
  }
  for (const auto& cell : placement.cells) {
    if (cell.guest_cpus.size() > cell.pinning.size()) emulator = emulator.united(cell.host_cpus);
    for (const auto& [vcpu, pcpu] : cell.pinning) pinned.insert(pcpu);
  }
  return emulator.empty() ? pinned : emulator;
}

CpuSet emulator_cpus(const HostTopology& host, const Placement& placement, const CpuSet& realtime_vcpus) {
  CpuSet emulator = emulator_cpus(placement, realtime_vcpus);
  if (!emulator.empty()) return emulator;
  for (const auto& placed : placement.cells) {
    if (const HostCell* cell = host.find_cell(placed.host_cell)) emulator = emulator.united(floating_cpus_of(host, *cell));
  }
  return emulator.minus(placement.held_cpus());
}

CellPlacement cell_placement(const HostTopology& host, const HostCell& cell, const GuestCell& guest_cell,
                             const CellFit& fit) {
  CellFit copy = fit;
  return cell_placement(host, cell, guest_cell, std::move(copy));
}

CellPlacement cell_placement(const HostTopology& host, const HostCell& cell, const GuestCell& guest_cell,
                             CellFit&& fit) {
  CellPlacement cp;
  cp.guest_cell = guest_cell.id;
  cp.host_cell = cell.id;
  cp.guest_cpus = guest_cell.cpus;
  cp.memory_kib = guest_cell.memory_kib;
  cp.pagesize_kib = guest_cell.pagesize != kPageSizeNone ? static_cast<std::int64_t>(fit.pagesize_kib) : 0;
  cp.pinning = std::move(fit.pinning.pinning);
  cp.cpuset_reserved = std::move(fit.pinning.reserved);
  cp.isolated_cpus = std::move(fit.pinning.isolated);
  if (guest_cell.shared_cpus().empty() && !cp.pinning.empty()) {
    for (const auto& [vcpu, pcpu] : cp.pinning) cp.host_cpus.insert(pcpu);
  } else {
    // A mixed cell's shared vCPUs never float over its own dedicated pCPUs.
    cp.host_cpus = host.accounting == Accounting::Nova ? cell.shared_cpus
                                                       : floating_cpus_of(host, cell).minus(cp.held_cpus());
  }
  return cp;
}

namespace {

// nova_host_cell_order into `order`, with `key` and `devices` as its working space.
void fill_nova_host_cell_order(const HostTopology& host, const GuestTopology& guest, const FitOptions& options,
                               std::vector<std::size_t>& order, std::vector<double>& key,
                               std::vector<std::uint32_t>& devices) {
  order.resize(host.cells.size());
  std::iota(order.begin(), order.end(), 0);
  if (host.cells.size() <= guest.cells.size()) return;  // Nova keeps host order then

  const bool pack = options.pack_host_cells;
  key.resize(host.cells.size());
  auto sort_by_key = [&] {
    stable_insertion_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return pack ? key[a] < key[b] : key[a] > key[b]; });
  };
  for (std::size_t i = 0; i < host.cells.size(); ++i) {
    key[i] = static_cast<double>(host.cells[i].memory_kib) - static_cast<double>(host.cells[i].usage.memory_kib);
  }
  sort_by_key();
  const bool pinned = guest.cpu_policy == CpuPolicy::Dedicated || guest.cpu_policy == CpuPolicy::Mixed;
  for (std::size_t i = 0; i < host.cells.size(); ++i) {
    const HostCell& cell = host.cells[i];
    key[i] = pinned ? static_cast<double>(cell.dedicated_cpus.count_minus(cell.usage.pinned_cpus)) : -cell.usage.shared_cpus;
  }
  sort_by_key();
  // Free PCI devices per cell: most first when the guest asks for devices, fewest first otherwise.
  if (host.pci.empty()) return;  // every cell has none: the stable sort would keep the order
  devices.resize(host.cells.size());
  for (std::size_t i = 0; i < host.cells.size(); ++i) devices[i] = free_pci_devices_on(host, host.cells[i].id);
  const bool wants_pci = !guest.pci_requests.empty();
  stable_insertion_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return wants_pci ? devices[a] > devices[b] : devices[a] < devices[b];
  });
}

}  // namespace

std::vector<std::size_t> nova_host_cell_order(const HostTopology& host, const GuestTopology& guest,
                                              const FitOptions& options) {
  std::vector<std::size_t> order;
  std::vector<double> key;
  std::vector<std::uint32_t> devices;
  fill_nova_host_cell_order(host, guest, options, order, key, devices);
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

// Why no assignment fits: the PCI request or the network demand the search last fell short on, if any.
std::string no_assignment_text(const HostTopology& host, const PciDemand* pci, const NetworkDemand* network) {
  if (pci != nullptr) return pci_shortfall_text(host, *pci);
  if (network != nullptr) return network_shortfall_text(host, *network);
  return "no assignment of guest cells to distinct host cells fits";
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

// `pair_scoring`: the strategy that scored the pairs (adaptive's choice for this host); `twins`:
// some guest cells are of one shape, and assignments that only swap them are not told apart.
std::string verdict_for(const FitOptions& options, Strategy pair_scoring, const AssignmentOutline& chosen,
                        const std::optional<AssignmentOutline>& runner_up, const std::vector<std::uint32_t>& host_order,
                        bool twins) {
  const std::string name = to_string(pair_scoring);
  if (options.strategy == Strategy::Nova) {
    std::string ids;
    for (auto id : host_order) ids += (ids.empty() ? "" : ", ") + std::to_string(id);
    return "strategy nova takes the first assignment that fits, trying host cells in Nova's order (" + ids +
           ")" + (options.pack_host_cells ? ", fullest first" : "") +
           "; it does not compare assignments (--strategy adaptive, pack, spread or ratio score them)";
  }
  const std::string mine = "score " + std::to_string(chosen.score) + ", distance sum " + std::to_string(chosen.distance);
  if (!runner_up) {
    return std::string(twins ? "the only assignment that fits, but for swapping guest cells of one shape (which "
                               "changes nothing)"
                             : "the only assignment that fits") + " (" + mine + ")";
  }
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
  // Nova's order of host cells and its working space (fill_nova_host_cell_order).
  std::vector<std::size_t> order;
  std::vector<double> order_key;
  std::vector<std::uint32_t> order_devices;

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


// One call of fit_guest: its inputs, and what the steps below have decided so far.
struct FitRun {
  const HostTopology& host;
  const GuestTopology& guest;
  const FitOptions& options;
  const Strategy pair_scoring;  // the strategy that scores the pairs (adaptive's choice for this host)
  const bool scored;            // any strategy but nova: the best assignment, not the first
  FitExplanation* explain;      // into result.explanation; null: no explanation asked
  FitMatrices& matrices;
  std::optional<scoring::UtilizationShape> shape;  // Strategy::Ratio only
  std::vector<std::size_t>& order;                 // host cell indexes by position (Nova's order), in matrices
  std::vector<PciDemand> demands;
  std::vector<NetworkDemand> networks;             // network affinity: host cells the chosen set must reach
  std::vector<std::size_t> chosen;                 // host position by guest cell index, once found
  FitResult result;
  std::optional<std::uint32_t> socket;             // the socket the choice was kept within, if any
  FitMatrix socket_fits;                           // matrices.fits less the other sockets' cells

  AssignmentProblem problem() const {
    return {host,    order, socket ? socket_fits : matrices.fits, matrices.scores, matrices.shape_group, demands,
            networks};
  }
};

// Starts the explanation, when one is asked: the strategy and the one that scores the pairs.
void begin_explanation(FitRun& run) {
  if (!run.options.explain) return;
  run.explain = &run.result.explanation.emplace();
  run.explain->filled = true;
  run.explain->strategy = run.options.strategy;
  run.explain->scoring = run.pair_scoring;
}

// Refuses what no assignment can cure: no guest cells, more guest cells than host cells, an
// invalid ratio shape (a valid one is made into run.shape).
std::optional<std::string> refuse_request(FitRun& run) {
  const std::size_t guests = run.guest.cells.size();
  const std::size_t hosts = run.host.cells.size();
  if (guests == 0) return "the guest has no NUMA cells to place";
  if (guests > hosts) {
    return "the guest asks for " + std::to_string(guests) + " NUMA cells but the host has only " +
           std::to_string(hosts) + "; each guest cell needs a host cell of its own";
  }
  if (run.options.strategy == Strategy::Ratio) {
    auto made = scoring::make_utilization_shape(run.options.ratio_shape);
    if (!made) return "invalid ratio shape: " + made.error().message;
    run.shape = std::move(*made);
  }
  return std::nullopt;
}

// The operator's first limit that leaves `host_cell` out of guest cell `cell`'s host cells, or null.
const HostCellLimit* limit_against(const FitOptions& options, const GuestCell& cell, std::uint32_t host_cell) {
  for (const auto& limit : options.host_cell_limits) {
    if ((!limit.guest_cell || *limit.guest_cell == cell.id) && !limit.host_cells.contains(host_cell)) return &limit;
  }
  return nullptr;
}

// Whether the operator's limits treat two guest cells alike.
bool same_limits(const FitOptions& options, const GuestCell& x, const GuestCell& y) {
  for (const auto& limit : options.host_cell_limits) {
    if (limit.guest_cell && (*limit.guest_cell == x.id) != (*limit.guest_cell == y.id)) return false;
  }
  return true;
}

// Whether guest cells a and b fit the same host cells alike: all that a pair's fit depends on.
bool same_shape(const FitRun& run, std::size_t a, std::size_t b) {
  const GuestCell& x = run.guest.cells[a];
  const GuestCell& y = run.guest.cells[b];
  return x.cpus.size() == y.cpus.size() && x.dedicated_cpus.size() == y.dedicated_cpus.size() &&
         x.memory_kib == y.memory_kib && x.pagesize == y.pagesize && x.vcpu_bounds.empty() && y.vcpu_bounds.empty() &&
         reserves_emulator_cpu(run.guest, x) == reserves_emulator_cpu(run.guest, y) &&
         same_limits(run.options, x, y);
}

// Decides every (guest cell, position) pair on its own: whether it fits or why not and, under a
// scored strategy or an explanation, the host cell's load and score; each misfit is a rejection.
// A guest cell shaped like an earlier one shares that one's row (and its scores).
void assess_pairs(FitRun& run) {
  const std::size_t guests = run.guest.cells.size();
  const std::size_t hosts = run.host.cells.size();
  const bool want_loads = run.scored || run.explain != nullptr;
  // The pair matrices live on between calls on a thread (a ranking fits thousands of hosts);
  // every cell is set again below before it is read.
  run.matrices.reset(guests, hosts, want_loads);
  auto& fits = run.matrices.fits;
  auto& reasons = run.matrices.reasons;
  auto& scores = run.matrices.scores;
  auto& loads = run.matrices.loads;
  auto& shape_group = run.matrices.shape_group;
  for (std::size_t g = 0; g < guests; ++g) {
    const GuestCell& guest_cell = run.guest.cells[g];
    std::size_t twin = g;
    for (std::size_t e = 0; e < g && twin == g; ++e) twin = same_shape(run, e, g) ? e : g;
    shape_group[g] = twin;
    const bool reserve = reserves_emulator_cpu(run.guest, guest_cell);
    for (std::size_t p = 0; p < hosts; ++p) {
      const HostCell& cell = run.host.cells[run.order[p]];
      if (twin != g) {
        fits.set(g, p, fits.at(twin, p));
        reasons[g][p] = reasons[twin][p];
        scores[g][p] = scores[twin][p];
        if (want_loads) loads[g][p] = loads[twin][p];
      } else if (const HostCellLimit* limit = limit_against(run.options, guest_cell, cell.id)) {
        fits.set(g, p, false);
        if (run.options.reasons) {
          reasons[g][p] = limit->source + " does not include host cell " + std::to_string(cell.id);
        } else {
          reasons[g][p].clear();  // the matrices live on between calls: no earlier call's reason stays
        }
      } else {
        // The decision only: the pinning is built for the chosen pairs (placement_of).
        CellFit fit = fit_cell_decision(run.host, cell, run.guest, guest_cell, reserve, run.options.reasons);
        fits.set(g, p, fit.fits);
        reasons[g][p] = std::move(fit.reason);
        if (fit.fits && want_loads) {
          loads[g][p] = cell_load_after(run.host, cell, run.guest, guest_cell, fit.pagesize_kib, reserve);
          scores[g][p] = score_cell_load(loads[g][p], run.pair_scoring, run.shape ? &*run.shape : nullptr,
                                         run.options.weights);
        }
      }
      if (!fits.at(g, p) && run.options.reasons) run.result.rejections.push_back({guest_cell.id, cell.id, reasons[g][p]});
    }
  }
}

// Puts Nova's order and every pair's assessment into the explanation, guest cell major, host cells by id.
void explain_pairs(const FitRun& run, FitExplanation& explain) {
  const std::size_t hosts = run.host.cells.size();
  const FitMatrices& m = run.matrices;
  std::vector<std::size_t> position_of(hosts);
  for (std::size_t p = 0; p < hosts; ++p) position_of[run.order[p]] = p;
  for (std::size_t p = 0; p < hosts; ++p) explain.host_order.push_back(run.host.cells[run.order[p]].id);
  for (std::size_t g = 0; g < run.guest.cells.size(); ++g) {
    for (std::size_t i = 0; i < hosts; ++i) {
      const std::size_t p = position_of[i];
      PairAssessment pair{run.guest.cells[g].id, run.host.cells[i].id, m.fits.at(g, p), m.reasons[g][p],
                          m.scores[g][p], 0, 0};
      if (pair.fits) {
        pair.cpu_percent = m.loads[g][p].cpu_percent();
        pair.memory_percent = m.loads[g][p].memory_percent();
      }
      explain.pairs.push_back(std::move(pair));
    }
  }
}

// Refuses a guest whose PCI requests (those for one device counted together, pci_pools.h) ask
// for more devices than the host has free, whatever the assignment.
std::optional<std::string> refuse_pci_totals(const FitRun& run) {
  for (const auto& d : run.demands) {
    if (d.total < d.asked_so_far) {
      return "the guest asks for " + d.describe() +
             (d.asked_so_far > d.request.count ? " (" + std::to_string(d.asked_so_far) + " in all its requests)" : "") +
             " but the host has " + std::to_string(d.total) + " such free devices";
    }
  }
  return std::nullopt;
}

// Nova: the first assignment over Nova's order (Nova's first permutation) into run.chosen, or why none fits.
std::optional<std::string> choose_first_fit(FitRun& run) {
  AssignmentBounds search(run.host, run.order, run.matrices.fits, run.demands, run.networks);
  const bool found = search.feasible(0) && search.run(0);
  run.result.assignments_tried = search.tried();
  if (run.explain != nullptr) run.explain->nodes = search.tried();
  if (!found) return no_assignment_text(run.host, search.last_pci_shortfall(), search.last_network_shortfall());
  run.chosen = search.chosen();
  return std::nullopt;
}

// The sockets of the host's cells, ascending, when every cell names one and there are several.
std::vector<std::uint32_t> sockets_of(const HostTopology& host) {
  std::vector<std::uint32_t> sockets;
  for (const HostCell& cell : host.cells) {
    if (!cell.socket) return {};
    if (std::find(sockets.begin(), sockets.end(), *cell.socket) == sockets.end()) sockets.push_back(*cell.socket);
  }
  std::sort(sockets.begin(), sockets.end());
  return sockets.size() > 1 ? sockets : std::vector<std::uint32_t>{};
}

// Sub-NUMA clustering (SNC, NPS2/4) splits a socket into small cells: a guest of several cells
// that the cells of one socket can hold gets one socket's cells, so that none of its memory is a
// socket away. Each socket's cells are searched alone (the same objective, best_assignment.h) and
// the best of them taken (score, then distance, then the socket whose cells come first in Nova's
// order); only when no socket can hold the guest is the whole host searched. A guest with PCI
// requests keeps the whole host: its devices' policy decides which cells count.
void keep_within_one_socket(FitRun& run, std::size_t* nodes, bool* capped) {
  if (run.guest.cells.size() < 2 || !run.demands.empty()) return;
  const std::vector<std::uint32_t> sockets = sockets_of(run.host);
  std::optional<ScoredAssignment> best;
  std::optional<std::uint32_t> best_socket;
  std::size_t best_first_position = 0;
  FitMatrix masked;
  for (std::uint32_t socket : sockets) {
    const auto cells_here = std::count_if(run.host.cells.begin(), run.host.cells.end(),
                                          [&](const HostCell& c) { return *c.socket == socket; });
    if (static_cast<std::size_t>(cells_here) < run.guest.cells.size()) continue;
    masked = run.matrices.fits;
    std::size_t first_position = run.order.size();
    for (std::size_t p = 0; p < run.order.size(); ++p) {
      if (*run.host.cells[run.order[p]].socket == socket) {
        first_position = std::min(first_position, p);
        continue;
      }
      for (std::size_t g = 0; g < masked.rows(); ++g) masked.set(g, p, false);
    }
    const AssignmentProblem problem{run.host,        run.order,   masked, run.matrices.scores, run.matrices.shape_group,
                                    run.demands, run.networks};
    BestAssignment found = find_best_assignment(problem);
    *nodes += found.nodes;
    *capped = *capped || found.capped;
    if (!found.best) continue;
    const ScoredAssignment& f = *found.best;
    const bool better = !best || f.score > best->score || (f.score == best->score && f.distance < best->distance) ||
                        (f.score == best->score && f.distance == best->distance && first_position < best_first_position);
    if (better) {
      best = f;
      best_socket = socket;
      best_first_position = first_position;
      run.socket_fits = masked;
    }
  }
  if (best) {
    run.socket = best_socket;
    run.chosen = std::move(best->positions);
  }
}

// A scored strategy: the best-scoring assignment (best_assignment.h) into run.chosen, or why none fits.
std::optional<std::string> choose_best_fit(FitRun& run) {
  std::size_t socket_nodes = 0;
  bool socket_capped = false;
  keep_within_one_socket(run, &socket_nodes, &socket_capped);
  if (run.socket) {
    run.result.assignments_tried = socket_nodes;
    if (run.explain != nullptr) {
      run.explain->nodes = socket_nodes;
      run.explain->capped = socket_capped;
    }
    return std::nullopt;
  }
  BestAssignment best = find_best_assignment(run.problem());
  run.result.assignments_tried = best.nodes;
  if (run.explain != nullptr) {
    run.explain->nodes = best.nodes;
    run.explain->capped = best.capped;
  }
  if (!best.best) return no_assignment_text(run.host, best.pci_shortfall, best.network_shortfall);
  run.chosen = std::move(best.best->positions);
  return std::nullopt;
}

// A memory-only guest cell (no vCPUs) is there for its memory to be near the guest's vCPUs, so
// under a scored strategy distance decides first: each goes to the host cell, free of the guest's
// other cells, that holds it closest to the host cells of the guest's CPU cells (sum of
// distances), then the best score, then the search's choice. Repeated until no cell moves (each
// move only brings a cell closer, or keeps its distance at a better score). A guest with PCI
// requests keeps the search's choice: its cells decide which devices count.
void bring_memory_cells_close(FitRun& run) {
  const auto& cells = run.guest.cells;
  std::vector<std::size_t> cpu_positions;
  for (std::size_t g = 0; g < cells.size(); ++g) {
    if (!cells[g].cpus.empty()) cpu_positions.push_back(run.chosen[g]);
  }
  if (cpu_positions.empty() || cpu_positions.size() == cells.size() || !run.guest.pci_requests.empty()) return;
  const auto distance = [&](std::size_t p) {
    std::int64_t sum = 0;
    for (std::size_t c : cpu_positions) sum += position_distance(run.host, run.order, c, p);
    return sum;
  };
  // A move must keep the network demands met (the chosen set changes by one cell).
  std::vector<bool> chosen_cells(run.host.cells.size(), false);
  for (std::size_t p : run.chosen) chosen_cells[run.order[p]] = true;
  const auto keeps_networks = [&](std::size_t from, std::size_t to) {
    if (run.networks.empty()) return true;
    std::vector<bool> moved_cells = chosen_cells;
    moved_cells[run.order[from]] = false;
    moved_cells[run.order[to]] = true;
    return network_demands_met(run.networks, moved_cells);
  };
  for (bool moved = true; moved;) {
    moved = false;
    for (std::size_t g = 0; g < cells.size(); ++g) {
      if (!cells[g].cpus.empty()) continue;
      std::size_t best = run.chosen[g];
      for (std::size_t p = 0; p < run.host.cells.size(); ++p) {
        const bool taken = std::find(run.chosen.begin(), run.chosen.end(), p) != run.chosen.end();
        if (taken || !run.matrices.fits.at(g, p) || !keeps_networks(run.chosen[g], p)) continue;
        const std::int64_t d = distance(p), nearest = distance(best);
        if (d < nearest || (d == nearest && run.matrices.scores[g][p] > run.matrices.scores[g][best])) best = p;
      }
      moved = moved || best != run.chosen[g];
      chosen_cells[run.order[run.chosen[g]]] = false;
      chosen_cells[run.order[best]] = true;
      run.chosen[g] = best;
    }
  }
}

// The best assignment that differs from the chosen one in some shape's host cell, forbidding
// each of the chosen pairs in turn; *capped becomes true when any of those searches was capped.
std::optional<ScoredAssignment> runner_up_of(const FitRun& run, bool* capped) {
  const AssignmentProblem problem = run.problem();
  std::optional<ScoredAssignment> second;
  for (std::size_t g = 0; g < run.guest.cells.size(); ++g) {
    BestAssignment other = find_best_assignment(problem, {{run.matrices.shape_group[g], run.chosen[g]}});
    *capped = *capped || other.capped;
    if (!other.best) continue;
    const ScoredAssignment& o = *other.best;
    if (!second || o.score > second->score || (o.score == second->score && o.distance < second->distance)) {
      second = o;
    }
  }
  return second;
}

// What the network affinity required of the chosen host cells, for the explanation.
std::string network_affinity_note(const FitRun& run) {
  std::string text = "network affinity: the host cells taken include one close to each of the guest's networks the "
                     "host places (";
  for (std::size_t r = 0; r < run.networks.size(); ++r) {
    const NetworkDemand& d = run.networks[r];
    text += (r ? "; " : "") + d.what + ": host cell";
    std::string ids;
    for (std::size_t i = 0; i < run.host.cells.size(); ++i) {
      if (d.per_cell[i]) ids += (ids.empty() ? " " : ", ") + std::to_string(run.host.cells[i].id);
    }
    text += ids;
  }
  return text + ")";
}

// Puts the chosen assignment, the runner-up (scored strategies) and the verdict into the explanation.
void explain_choice(const FitRun& run, FitExplanation& explain) {
  explain.chosen = outline(run.host, run.guest, run.order, run.chosen, run.matrices.scores);
  if (run.scored) {
    if (auto second = runner_up_of(run, &explain.capped)) {
      explain.runner_up = outline(run.host, run.guest, run.order, second->positions, run.matrices.scores);
    }
  }
  bool twins = false;
  for (std::size_t a = 0; a < run.guest.cells.size(); ++a) {
    for (std::size_t b = a + 1; b < run.guest.cells.size(); ++b) twins = twins || same_shape(run, a, b);
  }
  explain.verdict = verdict_for(run.options, explain.scoring, *explain.chosen, explain.runner_up, explain.host_order, twins);
  if (!run.networks.empty()) explain.verdict += "; " + network_affinity_note(run);
  if (run.socket) {
    explain.verdict = "kept within the cells of socket " + std::to_string(*run.socket) +
                      " (one socket's cells first, for sub-NUMA clustered hosts; the runner-up is that socket's "
                      "too): " + explain.verdict;
  }
}

// The placement of the chosen assignment: scored strategies pin compactly, nova in Nova's order.
Placement placement_of(const FitRun& run) {
  const PinningStyle style = run.scored ? PinningStyle::Compact : PinningStyle::NovaOrder;
  Placement placement;
  placement.cells.reserve(run.guest.cells.size());
  for (std::size_t g = 0; g < run.guest.cells.size(); ++g) {
    const GuestCell& guest_cell = run.guest.cells[g];
    const HostCell& cell = run.host.cells[run.order[run.chosen[g]]];
    placement.cells.push_back(cell_placement(
        run.host, cell, guest_cell,
        fit_cell(run.host, cell, run.guest, guest_cell, reserves_emulator_cpu(run.guest, guest_cell), style)));
  }
  return placement;
}

}  // namespace

FitResult fit_guest(const HostTopology& host, const GuestTopology& guest, const FitOptions& options) {
  thread_local FitMatrices matrices;
  const Strategy pair_scoring = cell_scoring_strategy(options.strategy, host.cells.size());
  const bool scored = options.strategy != Strategy::Nova;
  FitRun run{host, guest, options, pair_scoring, scored, nullptr, matrices, {}, matrices.order, {}, {}, {}, {}, {}, {}};
  begin_explanation(run);
  auto refuse = [&](std::string summary) {
    run.result.summary = std::move(summary);
    if (run.explain != nullptr) run.explain->verdict = "nothing fits: " + run.result.summary;
    return std::move(run.result);
  };
  if (auto why = refuse_request(run)) return refuse(std::move(*why));
  fill_nova_host_cell_order(host, guest, options, run.order, matrices.order_key, matrices.order_devices);
  assess_pairs(run);
  if (run.explain != nullptr) explain_pairs(run, *run.explain);
  run.demands = pci_demands(host, guest);
  run.networks = network_demands(host, guest.networks);
  if (auto why = refuse_pci_totals(run)) return refuse(std::move(*why));
  if (auto why = run.scored ? choose_best_fit(run) : choose_first_fit(run)) return refuse(std::move(*why));
  if (run.scored) bring_memory_cells_close(run);
  if (run.explain != nullptr) explain_choice(run, *run.explain);
  run.result.placement = placement_of(run);
  return std::move(run.result);
}

}  // namespace numaplace
