/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Why fit_guest decided what it did, for `--explain`: every (guest cell, host cell)
// pair with either the reason it cannot fit (resource, asked, free, as cell_fit.h
// words it) or how full the host cell would be and the strategy's score; the chosen
// assignment and the runner-up (the best assignment that differs from it in some
// guest cell shape's host cell), each with its total score and the sum of distances
// between its host cells, and a sentence saying why the chosen one won. Nova's
// strategy does not compare assignments: its sentence says the order it tried.
// Computed only when FitOptions::explain asks for it (it costs one search per guest
// cell shape more for the runner-up), returned in FitResult::explanation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "placement/fit/strategy.h"

namespace numaplace {

// One (guest cell, host cell) pair as fit_guest judged it on its own.
struct PairAssessment {
  std::uint32_t guest_cell = 0;
  std::uint32_t host_cell = 0;
  bool fits = false;
  std::string reason;         // when it does not fit
  std::int64_t score = 0;     // when it fits (0 under nova)
  int cpu_percent = 0;        // host cell CPU and memory utilization with the guest cell added
  int memory_percent = 0;
};

// A whole assignment by cell ids, with the figures it was compared on.
struct AssignmentOutline {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> cells;  // guest cell id -> host cell id
  std::int64_t score = 0;
  std::int64_t distance = 0;
};

// The whole account of one fit_guest call (FitResult::explanation).
struct FitExplanation {
  bool filled = false;  // false: fit_guest was not called (no NUMA request, placement kept)
  Strategy strategy = Strategy::Nova;
  Strategy scoring = Strategy::Nova;      // the strategy that scored the pairs (adaptive's choice)
  std::vector<std::uint32_t> host_order;  // host cell ids in the order Nova tries them
  std::vector<PairAssessment> pairs;      // guest cell major, host cells by id
  std::optional<AssignmentOutline> chosen;
  std::optional<AssignmentOutline> runner_up;
  std::string verdict;   // why the chosen assignment won, or why nothing fits
  std::size_t nodes = 0;  // search nodes visited
  bool capped = false;    // the scored search stopped at its node cap
};

}  // namespace numaplace
