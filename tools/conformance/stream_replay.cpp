// SPDX-License-Identifier: LGPL-2.1-or-later
#include "conformance/stream_replay.h"
#include "conformance/json_number.h"

#include <algorithm>
#include <limits>

#include "conformance/nova_vector.h"
#include "placement/lifecycle/admission.h"
#include "placement/fit/cpu_pinning.h"
#include "placement/request/guest_topology.h"
#include "plugin/service/place_domain.h"

namespace numaplace::conformance {
namespace {

StreamFigures figures_from_json(const nlohmann::json& result) {
  StreamFigures figures;
  figures.admitted_before_first_refusal = whole<std::size_t>(result.at("admitted_before_first_refusal"));
  figures.admitted_total = whole<std::size_t>(result.at("admitted_total"));
  if (result.contains("mean_intercell_distance") && !result["mean_intercell_distance"].is_null()) {
    figures.mean_intercell_distance = result["mean_intercell_distance"].get<double>();
  }
  figures.multi_cell_admitted = whole_or<std::size_t>(result, "multi_cell_admitted", 0);
  return figures;
}

// Mean over the unordered pairs of the placement's host cells of their distance.
double mean_pair_distance(const HostTopology& host, const Placement& placement) {
  double sum = 0;
  std::size_t pairs = 0;
  for (std::size_t a = 0; a < placement.cells.size(); ++a) {
    for (std::size_t b = a + 1; b < placement.cells.size(); ++b) {
      sum += host.distance(placement.cells[a].host_cell, placement.cells[b].host_cell).value_or(0);
      ++pairs;
    }
  }
  return pairs == 0 ? 0 : sum / static_cast<double>(pairs);
}

std::vector<std::uint32_t> pinned_of(const CellPlacement& cell) {
  std::vector<std::uint32_t> pinned;
  for (const auto& [vcpu, pcpu] : cell.pinning) pinned.push_back(pcpu);
  std::sort(pinned.begin(), pinned.end());
  return pinned;
}

std::string cells_text(const std::vector<std::uint32_t>& cells) {
  std::string text;
  for (auto id : cells) text += (text.empty() ? "" : ",") + std::to_string(id);
  return text;
}

// The first way our answer to request `index` differs from Nova's recorded one, or "".
std::string trace_difference(std::size_t index, const std::optional<Placement>& ours, const nlohmann::json& recorded) {
  const std::string where = "request " + std::to_string(index) + ": ";
  if (recorded.is_null() != !ours.has_value()) {
    return where + (ours ? "Nova refused it, numaplace admitted it" : "Nova admitted it, numaplace refused it");
  }
  if (!ours) return "";
  if (recorded.size() != ours->cells.size()) return where + "a different number of guest cells";
  std::vector<std::uint32_t> nova_cells, our_cells;
  for (std::size_t g = 0; g < ours->cells.size(); ++g) {
    nova_cells.push_back(whole<std::uint32_t>(recorded[g].at("host_cell")));
    our_cells.push_back(ours->cells[g].host_cell);
  }
  if (nova_cells != our_cells) {
    return where + "Nova chose host cells " + cells_text(nova_cells) + ", numaplace " + cells_text(our_cells);
  }
  for (std::size_t g = 0; g < ours->cells.size(); ++g) {
    const auto& cell = recorded[g];
    const std::int64_t nova_page = cell.contains("pagesize_kib") && !cell["pagesize_kib"].is_null()
                                       ? whole<std::int64_t>(cell["pagesize_kib"])
                                       : 0;
    if (nova_page != ours->cells[g].pagesize_kib) {
      return where + "guest cell " + std::to_string(g) + " page size: Nova " + std::to_string(nova_page) +
             " KiB, numaplace " + std::to_string(ours->cells[g].pagesize_kib) + " KiB";
    }
    std::vector<std::uint32_t> nova_pinned;
    if (cell.contains("pinned") && !cell["pinned"].is_null()) nova_pinned = whole_list<std::uint32_t>(cell["pinned"]);
    if (nova_pinned != pinned_of(ours->cells[g])) {
      return where + "guest cell " + std::to_string(g) + " pinned pCPUs: Nova " + cells_text(nova_pinned) +
             ", numaplace " + cells_text(pinned_of(ours->cells[g]));
    }
  }
  return "";
}

// What one admitted request consumes of the host's totals.
struct Demand {
  double pinned_pcpus = 0;
  double shared_vcpus = 0;
  double memory_kib = 0;
  double huge_page_kib = 0;
};

Demand demand_of(const GuestTopology& guest, std::size_t threads_per_core) {
  Demand demand;
  for (const auto& cell : guest.cells) {
    const double dedicated = static_cast<double>(cell.dedicated_cpus.size());
    demand.pinned_pcpus +=
        guest.thread_policy == ThreadPolicy::Isolate ? dedicated * static_cast<double>(threads_per_core) : dedicated;
    demand.shared_vcpus += static_cast<double>(cell.cpus.size()) - dedicated;
    demand.memory_kib += static_cast<double>(cell.memory_kib);
    if (cell.pagesize != kPageSizeNone && cell.pagesize != kPageSizeSmall) {
      demand.huge_page_kib += static_cast<double>(cell.memory_kib);
    }
  }
  return demand;
}

StreamBound upper_bound(const HostTopology& host, const std::vector<GuestTopology>& guests) {
  Demand capacity;
  std::size_t threads_per_core = 1;
  StreamBound bound;
  bound.least_intercell_distance = std::numeric_limits<std::uint32_t>::max();
  for (const auto& cell : host.cells) {
    for (const auto& core : sibling_groups(cell)) threads_per_core = std::max(threads_per_core, core.size());
    capacity.pinned_pcpus += static_cast<double>(cell.dedicated_cpus.size());
    capacity.shared_vcpus += host.ratio.cpu * static_cast<double>(cell.shared_cpus.size());
    // Every memory check is against the cell's memory times the RAM ratio or stricter.
    capacity.memory_kib += std::max(1.0, host.ratio.ram) * static_cast<double>(cell.memory_kib);
    for (const auto& pool : cell.pages) {
      if (pool.size_kib > cell.pages.front().size_kib) {
        capacity.huge_page_kib += static_cast<double>(pool.size_kib) * static_cast<double>(pool.total);
      }
    }
    for (std::size_t j = 0; j < cell.distances.size(); ++j) {
      if (j < host.cells.size() && host.cells[j].id != cell.id) {
        bound.least_intercell_distance = std::min(bound.least_intercell_distance, cell.distances[j]);
      }
    }
  }
  if (bound.least_intercell_distance == std::numeric_limits<std::uint32_t>::max()) bound.least_intercell_distance = 0;
  std::vector<Demand> demands;
  for (const auto& guest : guests) demands.push_back(demand_of(guest, threads_per_core));

  Demand used;
  bound.admitted_before_first_refusal = demands.size();
  for (std::size_t i = 0; i < demands.size(); ++i) {
    used.pinned_pcpus += demands[i].pinned_pcpus;
    used.shared_vcpus += demands[i].shared_vcpus;
    used.memory_kib += demands[i].memory_kib;
    used.huge_page_kib += demands[i].huge_page_kib;
    if (used.pinned_pcpus > capacity.pinned_pcpus || used.shared_vcpus > capacity.shared_vcpus ||
        used.memory_kib > capacity.memory_kib || used.huge_page_kib > capacity.huge_page_kib) {
      bound.admitted_before_first_refusal = i;
      break;
    }
  }
  // Any k admitted requests hold at least the k smallest demands of every dimension.
  auto most_within = [&](double Demand::*field, double limit) {
    std::vector<double> values;
    for (const auto& demand : demands) values.push_back(demand.*field);
    std::sort(values.begin(), values.end());
    double sum = 0;
    std::size_t count = 0;
    for (double value : values) {
      if (sum + value > limit) break;
      sum += value;
      ++count;
    }
    return count;
  };
  bound.admitted_total = std::min({most_within(&Demand::pinned_pcpus, capacity.pinned_pcpus),
                                   most_within(&Demand::shared_vcpus, capacity.shared_vcpus),
                                   most_within(&Demand::memory_kib, capacity.memory_kib),
                                   most_within(&Demand::huge_page_kib, capacity.huge_page_kib)});
  return bound;
}

// "2-cell dedicated (isolate), 12 vCPUs, 48 GiB": enough to recognise a request in a report.
std::string describe(const GuestTopology& guest) {
  std::size_t vcpus = 0;
  std::uint64_t memory_kib = 0;
  bool pinned = false, huge = false;
  for (const auto& cell : guest.cells) {
    vcpus += cell.cpus.size();
    memory_kib += cell.memory_kib;
    pinned = pinned || !cell.dedicated_cpus.empty();
    huge = huge || (cell.pagesize != kPageSizeNone && cell.pagesize != kPageSizeSmall);
  }
  std::string kind = pinned ? "dedicated" : huge ? "shared, huge pages" : "shared";
  if (pinned && guest.thread_policy == ThreadPolicy::Isolate) kind += " (isolate)";
  if (pinned && guest.thread_policy == ThreadPolicy::Require) kind += " (require)";
  return std::to_string(guest.cells.size()) + "-cell " + kind + ", " + std::to_string(vcpus) + " vCPUs, " +
         std::to_string(memory_kib / 1024) + " MiB";
}

Result<StreamReplay> replay(const nlohmann::json& stream, const FitOptions& fit, NovaRun compare_trace) {
  StreamReplay out;
  out.id = stream.value("id", "");
  out.shape = stream.value("shape", "");
  HostTopology host = host_from_nova_json(stream.at("host"));
  const HostTopology empty_host = host;
  const auto& nova = stream.at("nova");
  out.nova_spread = figures_from_json(nova.at("spread"));
  out.nova_pack = figures_from_json(nova.at("pack"));
  const nlohmann::json* trace = nullptr;
  if (compare_trace == NovaRun::Spread) trace = &nova.at("spread").at("trace");
  if (compare_trace == NovaRun::Pack) trace = &nova.at("pack").at("trace");

  std::vector<GuestTopology> guests;
  const auto& requests = stream.at("requests");
  for (std::size_t i = 0; i < requests.size(); ++i) {
    auto derived = derive_guest_topology(request_from_nova_json(requests[i]));
    if (!derived) {
      return make_error("InvalidStream", "stream " + out.id + " request " + std::to_string(i) + ": " +
                                             derived.error().name + ": " + derived.error().message);
    }
    if (!derived->has_value()) {
      return make_error("InvalidStream", "stream " + out.id + " request " + std::to_string(i) +
                                             " asks for no NUMA topology; every stream request must have one");
    }
    guests.push_back(std::move(**derived));
  }

  bool refused = false;
  double distance_sum = 0;
  for (std::size_t i = 0; i < guests.size(); ++i) {
    FitResult result = fit_guest(host, guests[i], fit);
    if (trace != nullptr && out.first_trace_difference.empty() && i < trace->size()) {
      out.first_trace_difference = trace_difference(i, result.placement, (*trace)[i]);
    }
    if (!result.placement) {
      if (!refused) {
        out.first_refusal = i;
        out.first_refusal_why = describe(guests[i]) + ": " + plugin::explain_no_fit(result, "; ");
      }
      refused = true;
      continue;
    }
    if (auto admitted = admit_placement(host, guests[i], *result.placement); !admitted) {
      return make_error("InvalidStream", "stream " + out.id + " request " + std::to_string(i) + ": " +
                                             admitted.error().name + ": " + admitted.error().message);
    }
    ++out.ours.admitted_total;
    if (!refused) ++out.ours.admitted_before_first_refusal;
    if (result.placement->cells.size() > 1) {
      ++out.ours.multi_cell_admitted;
      distance_sum += mean_pair_distance(host, *result.placement);
    }
  }
  if (out.ours.multi_cell_admitted > 0) {
    out.ours.mean_intercell_distance = distance_sum / static_cast<double>(out.ours.multi_cell_admitted);
  }
  out.bound = upper_bound(empty_host, guests);
  return out;
}

}  // namespace

Result<StreamReplay> replay_stream(const nlohmann::json& stream, const FitOptions& fit, NovaRun compare_trace) {
  try {
    return replay(stream, fit, compare_trace);
  } catch (const nlohmann::json::exception& e) {
    return make_error("InvalidStream", std::string("malformed stream line: ") + e.what());
  }
}

}  // namespace numaplace::conformance
