/* SPDX-License-Identifier: LGPL-2.1-or-later */
// --explain for place, define and start: the fit's explanation (placement/fit/fit_explanation.h)
// as text for people and as JSON for programs, with the guests holding each host cell
// (from the claims folded into the host, when the caller has them), and the options
// that choose the strategy (--strategy, --ratio-shape, --ratio-weights, --pack).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "placement/lifecycle/claims.h"
#include "placement/lifecycle/default_placement.h"
#include "placement/model/error.h"
#include "placement/fit/fit.h"
#include "placement/fit/fit_explanation.h"

namespace numaplace::cli {

struct StrategyCliOptions {
  std::string strategy;           // empty: the CLI's default, adaptive (docs/strategies.md)
  std::string ratio_shape;        // "0:0,100:10"
  std::string ratio_weights;      // "cpu=1,memory=1"
  bool nova_pack = false;         // --pack: Nova's packing order
};

// The strategy flags of place, define, start and rank alike. `also_accepted` are further values
// --strategy takes on this command (rank's host-scoring names), told in `more_help`.
void add_strategy_options(CLI::App* cmd, StrategyCliOptions& options, const std::vector<std::string>& also_accepted = {},
                          const std::string& more_help = {});
// Fills the strategy fields of `fit` (not the explanation pointer); named errors for bad text.
Status apply_strategy_options(const StrategyCliOptions& options, FitOptions& fit);

// Lines for a person: every pair (fits with score and utilization, or why not and who
// holds the host cell), the chosen assignment, the runner-up and why the chosen won.
std::string explain_text(const FitExplanation& explanation, const std::vector<GuestClaim>& claims);
// For a guest without a NUMA topology: every resource's hints (masks, preferred or not) and the
// merged mask under `policy` with why it won.
std::string explain_confinement_text(const DefaultPlacement& confinement, const std::string& policy);
nlohmann::json explain_json(const FitExplanation& explanation, const std::vector<GuestClaim>& claims);

// Which L3 cache domains each placed guest cell's pinned vCPUs got, on host cells that report
// several ("guest cell 0: L3 domain 1 of 4 (cpus 8-15)"); empty when no cell reports them.
std::string cache_domains_text(const HostTopology& host, const Placement& placement);
nlohmann::json cache_domains_json(const HostTopology& host, const Placement& placement);

}  // namespace numaplace::cli
