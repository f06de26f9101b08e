// SPDX-License-Identifier: LGPL-2.1-or-later
#include "conformance/fleet_replay.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>

#include "conformance/nova_vector.h"
#include "placement/lifecycle/admission.h"

namespace numaplace::conformance {
namespace {

// RAMWeigher's weight of a host, in KiB: HostState.free_ram_mb (memory less what guests hold; the
// host's reserve, the same on every host, left out), raised to the weigher's floor of 0, so that
// hosts whose memory is overcommitted (a RAM ratio above 1) all weigh the same.
std::int64_t ram_weight_kib(const HostTopology& host) {
  std::int64_t free = 0;
  for (const auto& cell : host.cells) {
    free += static_cast<std::int64_t>(cell.memory_kib) - static_cast<std::int64_t>(cell.usage.memory_kib);
  }
  return std::max<std::int64_t>(free, 0);
}

struct Choice {
  std::size_t host = 0;
  Placement placement;
};

std::optional<Choice> nova_choice(const std::vector<HostTopology>& hosts, const GuestTopology& guest) {
  const FitOptions nova;  // Nova's strategy in the spread order: the core's default
  std::optional<Choice> best;
  std::int64_t best_free = 0;
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    FitResult fit = fit_guest(hosts[i], guest, nova);
    if (!fit.placement) continue;
    const std::int64_t free = ram_weight_kib(hosts[i]);
    if (!best || free > best_free) {
      best = Choice{i, std::move(*fit.placement)};
      best_free = free;
    }
  }
  return best;
}

Result<std::optional<Choice>> our_choice(const std::vector<HostTopology>& hosts, const GuestRequest& request,
                                         const RankOptions& options) {
  auto ranked = rank_hosts(std::span<const HostTopology>(hosts), request, options);
  if (!ranked) return ranked.error();
  if (ranked->empty() || !ranked->front().fits || !ranked->front().placement) return std::optional<Choice>{};
  return std::optional<Choice>{Choice{ranked->front().index, std::move(*ranked->front().placement)}};
}

Status record(FleetRun& run, std::vector<HostTopology>& hosts, const GuestTopology& guest,
              std::optional<Choice> choice, std::size_t request) {
  if (!choice) {
    run.trace.push_back(std::nullopt);
    return Done{};
  }
  if (auto admitted = admit_placement(hosts[choice->host], guest, choice->placement); !admitted) {
    return make_error("InvalidFleet", "request " + std::to_string(request) + " on host " +
                                          std::to_string(choice->host) + ": " + admitted.error().name + ": " +
                                          admitted.error().message);
  }
  const bool refused_before = run.trace.size() != run.admitted_before_first_refusal;
  run.trace.push_back(choice->host);
  ++run.admitted_total;
  if (!refused_before) ++run.admitted_before_first_refusal;
  return Done{};
}

std::size_t hosts_used(const std::vector<std::optional<std::size_t>>& trace, std::size_t hosts) {
  std::vector<bool> used(hosts, false);
  std::size_t count = 0;
  for (const auto& host : trace) {
    if (host && *host < hosts && !used[*host]) {
      used[*host] = true;
      ++count;
    }
  }
  return count;
}

std::string host_text(const std::optional<std::size_t>& host) {
  return host ? "host " + std::to_string(*host) : "refused";
}

Result<FleetRun> recorded_run(const nlohmann::json& nova, std::size_t requests, std::size_t hosts) {
  FleetRun run;
  const auto& trace = nova.at("trace");
  if (!trace.is_array() || trace.size() != requests) {
    return make_error("InvalidFleet", "\"nova\".\"trace\" must hold one entry per request (" +
                                          std::to_string(requests) + ")");
  }
  for (const auto& entry : trace) {
    if (entry.is_null()) {
      run.trace.push_back(std::nullopt);
    } else if (entry.is_number_unsigned() && entry.get<std::size_t>() < hosts) {
      run.trace.push_back(entry.get<std::size_t>());
    } else {
      return make_error("InvalidFleet", "\"nova\".\"trace\" entries are host indices below " + std::to_string(hosts) +
                                            " or null");
    }
  }
  run.admitted_before_first_refusal = nova.at("admitted_before_first_refusal").get<std::size_t>();
  run.admitted_total = nova.at("admitted_total").get<std::size_t>();
  run.hosts_used = hosts_used(run.trace, hosts);
  return run;
}

Result<FleetReplay> replay(const nlohmann::json& fleet, const RankOptions& options) {
  FleetReplay out;
  out.id = fleet.value("id", "");
  std::vector<HostTopology> ours_hosts;
  for (const auto& entry : fleet.at("hosts")) ours_hosts.push_back(host_from_nova_json(entry.at("host")));
  if (ours_hosts.empty()) return make_error("InvalidFleet", "the fleet has no hosts");
  std::vector<HostTopology> nova_hosts = ours_hosts;
  out.hosts = ours_hosts.size();

  const auto& requests = fleet.at("requests");
  out.requests = requests.size();
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const GuestRequest request = request_from_nova_json(requests[i]);
    auto derived = derive_guest_topology(request);
    if (!derived) return make_error(derived.error().name, "request " + std::to_string(i) + ": " + derived.error().message);
    if (!derived->has_value()) {
      return make_error("InvalidFleet", "request " + std::to_string(i) +
                                            " asks for no NUMA topology; every fleet request must have one");
    }
    const GuestTopology& guest = **derived;
    auto ours = our_choice(ours_hosts, request, options);
    if (!ours) return make_error(ours.error().name, "request " + std::to_string(i) + ": " + ours.error().message);
    if (auto done = record(out.ours, ours_hosts, guest, std::move(*ours), i); !done) return done.error();
    if (auto done = record(out.nova_model, nova_hosts, guest, nova_choice(nova_hosts, guest), i); !done) {
      return done.error();
    }
  }
  out.ours.hosts_used = hosts_used(out.ours.trace, out.hosts);
  out.nova_model.hosts_used = hosts_used(out.nova_model.trace, out.hosts);

  if (const auto nova = fleet.find("nova"); nova != fleet.end()) {
    auto recorded = recorded_run(*nova, out.requests, out.hosts);
    if (!recorded) return recorded.error();
    for (std::size_t i = 0; i < out.requests && out.first_nova_difference.empty(); ++i) {
      if (recorded->trace[i] != out.nova_model.trace[i]) {
        out.first_nova_difference = "request " + std::to_string(i) + ": Nova " + host_text(recorded->trace[i]) +
                                    ", the model " + host_text(out.nova_model.trace[i]);
      }
    }
    out.nova_recorded = std::move(*recorded);
  }
  return out;
}

}  // namespace

Result<FleetReplay> replay_fleet(const nlohmann::json& fleet, const RankOptions& ours) {
  try {
    return replay(fleet, ours);
  } catch (const nlohmann::json::exception& e) {
    // nlohmann's text less its "[json.exception.out_of_range.403] " tag, which says nothing to a reader.
    std::string problem = e.what();
    if (const auto tag = problem.find("] "); problem.starts_with("[json.exception") && tag != std::string::npos) {
      problem.erase(0, tag + 2);
    }
    return make_error("InvalidFleet", "malformed fleet: " + problem + " (a fleet is the JSON object "
                                      "tools/bench/make_fleet.py writes: its hosts and requests)");
  }
}

}  // namespace numaplace::conformance
