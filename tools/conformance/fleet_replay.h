/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Replays a fleet (tools/bench/make_fleet.py): many hosts and one stream of requests for all of
// them, each request placed on the current state of the hosts, twice:
//  * numaplace: rank_hosts with the options given (each host's cells by the cell strategy, the
//    hosts by their score), the best host taken;
//  * Nova's scheduler as this model of it: the hosts Nova's fit admits (fit_guest with Nova's
//    strategy, the spread order: NUMATopologyFilter), the one with the most free memory taken
//    (RAMWeigher, multiplier 1, its floor of 0: overcommitted hosts weigh the same; ties to the
//    earlier host, as Nova's stable sort keeps them).
// An admission is added to its host by Nova's accounting (placement/lifecycle/admission.h); a
// request no host takes is refused and the fleet goes on. When the file records what the real
// Nova did ("nova": {"trace": [host index | null]}, tools/conformance/nova_fleet.py), the model's
// choices are compared with it request by request.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "placement/lifecycle/host_ranking.h"
#include "placement/model/error.h"

namespace numaplace::conformance {

struct FleetRun {
  std::size_t admitted_before_first_refusal = 0;
  std::size_t admitted_total = 0;
  std::size_t hosts_used = 0;  // hosts holding at least one of the fleet's guests at the end
  std::vector<std::optional<std::size_t>> trace;  // per request: the host index chosen, nullopt: refused
};

struct FleetReplay {
  std::string id;
  std::size_t hosts = 0;
  std::size_t requests = 0;
  FleetRun ours;
  FleetRun nova_model;
  std::optional<FleetRun> nova_recorded;  // the file's record of the real Nova, when it has one
  // Where the model first differs from the record (empty: it agrees, or nothing was recorded).
  std::string first_nova_difference;
};

// Errors: InvalidFleet (a malformed file, a request without a NUMA topology, an admission the
// host cannot take) and the request's own (derive_guest_topology).
Result<FleetReplay> replay_fleet(const nlohmann::json& fleet, const RankOptions& ours);

}  // namespace numaplace::conformance
