/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Replays a Nova admission stream (tests/data/conformance/nova/STREAMS.md): one host,
// its requests in order, each fitted on the current host state with the chosen
// strategy and, when admitted, folded into the host by Nova's accounting
// (placement/lifecycle/admission.h). A refusal leaves the host unchanged and the stream goes on.
// Figures per stream: admitted before the first refusal, admitted in total, and the
// mean distance between the host cells of admitted multi-cell guests. The upper
// bound says what a perfect packer could reach by CPU and memory totals alone.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "placement/model/error.h"
#include "placement/fit/fit.h"

namespace numaplace::conformance {

struct StreamFigures {
  std::size_t admitted_before_first_refusal = 0;
  std::size_t admitted_total = 0;
  std::optional<double> mean_intercell_distance;  // nullopt: no multi-cell guest admitted
  std::size_t multi_cell_admitted = 0;
};

// Nova's placement of one guest cell, as the stream's trace records it.
struct TracedCell {
  std::uint32_t host_cell = 0;
  std::int64_t pagesize_kib = 0;  // 0: no page size asked
  std::vector<std::uint32_t> pinned;  // sorted; empty for shared cells
};

struct StreamBound {
  std::size_t admitted_before_first_refusal = 0;  // longest prefix within the host's totals
  std::size_t admitted_total = 0;                 // most requests any subset could hold within them
  std::uint32_t least_intercell_distance = 0;     // smallest distance between two distinct cells
};

struct StreamReplay {
  std::string id;
  std::string shape;
  StreamFigures ours;
  StreamFigures nova_spread;
  StreamFigures nova_pack;
  StreamBound bound;
  // Our first refusal: the request's index and the fit's reason (nullopt: nothing refused).
  std::optional<std::size_t> first_refusal;
  std::string first_refusal_why;
  // Where our admissions first differ from the recorded trace of `compared_with`
  // (empty when they agree or no trace was compared).
  std::string first_trace_difference;
};

// What the replay is compared with: Nova's spread or pack run, or nothing.
enum class NovaRun { None, Spread, Pack };

// `fit` chooses among fits (strategy, pack order); `compare_trace` names the recorded
// run whose per-admission host cells, page sizes and pinned pCPUs are checked.
Result<StreamReplay> replay_stream(const nlohmann::json& stream, const FitOptions& fit, NovaRun compare_trace);

}  // namespace numaplace::conformance
