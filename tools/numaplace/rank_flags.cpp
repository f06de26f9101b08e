// SPDX-License-Identifier: LGPL-2.1-or-later
#include "numaplace/rank_flags.h"

#include <utility>

#include "placement/fit/strategy.h"

namespace numaplace::cli {
namespace {

bool is_host_scoring_name(const std::string& name) {
  return name == "LeastAllocated" || name == "MostAllocated" || name == "RequestedToCapacityRatio";
}

// How hosts are compared: --host-strategy, or a host-scoring name given to --strategy (rank's flag
// before it chose cells too), else the host counterpart of the cell strategy: pack packs hosts
// (MostAllocated), ratio scores them by the same shape, every other strategy spreads them
// (LeastAllocated, as Nova's RAM weigher does by default). --ratio-weights weigh both.
Result<scoring::ScoringConfig> scoring_config(const RankStrategyFlags& o, Strategy cell_strategy) {
  if (!o.host_strategy.empty() && is_host_scoring_name(o.cells.strategy) && o.cells.strategy != o.host_strategy) {
    return make_error("UsageError", "--strategy " + o.cells.strategy + " and --host-strategy " + o.host_strategy +
                                             " name two host scorings; give one (--host-strategy)");
  }
  std::string name = !o.host_strategy.empty() ? o.host_strategy
                     : is_host_scoring_name(o.cells.strategy) ? o.cells.strategy
                     : cell_strategy == Strategy::Pack        ? "MostAllocated"
                     : cell_strategy == Strategy::Ratio       ? "RequestedToCapacityRatio"
                                                              : "LeastAllocated";
  auto strategy = scoring::scoring_strategy_from_name(name);
  if (!strategy) return strategy.error();
  scoring::ScoringConfig config;
  config.strategy = *strategy;
  if (!o.cells.ratio_weights.empty()) {
    auto weights = parse_resource_weights(o.cells.ratio_weights);
    if (!weights) return weights.error();
    // score_node leaves a resource out by not listing it (a weight of 0 in --ratio-weights).
    if (weights->cpu > 0) config.resources.push_back({"cpu", weights->cpu});
    if (weights->memory > 0) config.resources.push_back({"memory", weights->memory});
  }
  if (config.strategy == scoring::ScoringStrategy::RequestedToCapacityRatio) {
    auto shape = parse_ratio_shape(o.cells.ratio_shape.empty() ? "0:0,100:10" : o.cells.ratio_shape);
    if (!shape) return shape.error();
    config.shape = std::move(*shape);
  } else if (!o.cells.ratio_shape.empty() && cell_strategy != Strategy::Ratio) {
    return make_error("UsageError", "--ratio-shape goes with --strategy ratio or --host-strategy "
                                         "RequestedToCapacityRatio");
  }
  return config;
}

// The cell strategy, as place reads its flags; a host-scoring name given to --strategy leaves the
// default, and a --ratio-shape meant only for the hosts is not the cells'.
Result<FitOptions> cell_options(const RankStrategyFlags& o) {
  StrategyCliOptions cells = o.cells;
  if (is_host_scoring_name(cells.strategy)) cells.strategy.clear();
  if (cells.strategy != "ratio") cells.ratio_shape.clear();
  FitOptions fit;
  if (auto applied = apply_strategy_options(cells, fit); !applied) return applied.error();
  return fit;
}

}  // namespace

Result<RankOptions> rank_options_from_flags(const RankStrategyFlags& flags) {
  auto fit = cell_options(flags);
  if (!fit) return fit.error();
  auto config = scoring_config(flags, fit->strategy);
  if (!config) return config.error();
  RankOptions options;
  options.fit = std::move(*fit);
  options.scoring = std::move(*config);
  return options;
}

}  // namespace numaplace::cli
