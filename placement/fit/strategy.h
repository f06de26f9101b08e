/* SPDX-License-Identifier: LGPL-2.1-or-later */
// How fit_guest chooses among the assignments that fit (fit.h):
//   nova:   the first assignment in Nova's order of host cells (Nova's answer);
//   spread: the assignment whose cells stay emptiest (kube-scheduler LeastAllocated);
//   pack:   the assignment whose cells end fullest (MostAllocated);
//   ratio:  RequestedToCapacityRatio over a shape of (utilization %, score 0..10) points;
//   adaptive: pack on a host of three or more cells, spread on a host of one or two, where
//           every multi-cell guest spans the whole host and keeping the cells even is what
//           keeps such guests admissible (the CLI's default; docs/admission-streams.md).
// The scored strategies score each (guest cell, host cell) pair on the host cell's CPU
// and memory utilization after the guest cell is added (cell_score.h), weighted per
// resource, and maximise the sum over the whole assignment; among equal sums the host
// cells closest to one another win (best_assignment.h).
// Parsing of the names, the shape ("0:0,100:10") and the weights ("cpu=1,memory=2")
// lives here so every front end reads them alike; bad text is a named error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "placement/model/error.h"
#include "placement/scoring/requested_to_capacity_ratio.h"

namespace numaplace {

// The strategies described above.
enum class Strategy { Nova, Spread, Pack, Ratio, Adaptive };

// The default of every surface that places a guest (numaplace place/define/start/hook/rank, the C
// ABI's np_place, the Python binding): stated here once. FitOptions{} itself keeps Nova, the
// reference answer the conformance suites compare with Nova's; surfaces set this one.
inline constexpr Strategy kDefaultStrategy = Strategy::Adaptive;

// How much each resource counts in a scored strategy's weighted mean (0: left out).
struct ResourceWeights {
  std::int64_t cpu = 1;
  std::int64_t memory = 1;
};

// The shape kube-scheduler documents for bin packing: score rises with utilization.
std::vector<scoring::UtilizationShapePoint> default_ratio_shape();

// The strategy whose score a host cell gets on a host of `host_cells` cells: adaptive's choice,
// any other strategy itself.
Strategy cell_scoring_strategy(Strategy strategy, std::size_t host_cells);

// "nova", "spread", "pack", "ratio", "adaptive" (UnknownStrategy otherwise).
Result<Strategy> strategy_from_name(std::string_view name);
std::string to_string(Strategy strategy);  // the name strategy_from_name reads

// "0:0,100:10": comma-separated UTILIZATION:SCORE points, validated as a ratio shape
// (InvalidScoringShape otherwise).
Result<std::vector<scoring::UtilizationShapePoint>> parse_ratio_shape(std::string_view text);
// "cpu=1,memory=2": non-negative integer weights, not both zero (InvalidResourceWeights).
Result<ResourceWeights> parse_resource_weights(std::string_view text);

}  // namespace numaplace
