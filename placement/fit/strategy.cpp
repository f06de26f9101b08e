// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/fit/strategy.h"
#include "placement/model/text_items.h"

#include <charconv>

namespace numaplace {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool parse_int(std::string_view text, std::int64_t* out) {
  text = trim(text);
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::vector<scoring::UtilizationShapePoint> default_ratio_shape() { return {{0, 0}, {100, 10}}; }

Result<Strategy> strategy_from_name(std::string_view name) {
  if (name == "nova") return Strategy::Nova;
  if (name == "spread") return Strategy::Spread;
  if (name == "pack") return Strategy::Pack;
  if (name == "ratio") return Strategy::Ratio;
  if (name == "adaptive") return Strategy::Adaptive;
  return make_error("UnknownStrategy",
                    "unknown strategy '" + std::string(name) + "'; known: nova, spread, pack, ratio, adaptive");
}

Strategy cell_scoring_strategy(Strategy strategy, std::size_t host_cells) {
  if (strategy != Strategy::Adaptive) return strategy;
  return host_cells <= 2 ? Strategy::Spread : Strategy::Pack;
}

std::string to_string(Strategy strategy) {
  switch (strategy) {
    case Strategy::Nova: return "nova";
    case Strategy::Spread: return "spread";
    case Strategy::Pack: return "pack";
    case Strategy::Ratio: return "ratio";
    case Strategy::Adaptive: return "adaptive";
  }
  return "nova";
}

Result<std::vector<scoring::UtilizationShapePoint>> parse_ratio_shape(std::string_view text) {
  std::vector<scoring::UtilizationShapePoint> points;
  for (std::string_view item : split_items(text)) {
    const std::size_t colon = item.find(':');
    scoring::UtilizationShapePoint point;
    if (colon == std::string_view::npos || !parse_int(item.substr(0, colon), &point.utilization) ||
        !parse_int(item.substr(colon + 1), &point.score)) {
      return make_error("InvalidScoringShape", "ratio shape point '" + std::string(trim(item)) +
                                                   "' is not UTILIZATION:SCORE (e.g. 0:0,100:10)");
    }
    points.push_back(point);
  }
  auto shape = scoring::make_utilization_shape(points);
  if (!shape) return shape.error();
  return points;
}

Result<ResourceWeights> parse_resource_weights(std::string_view text) {
  ResourceWeights weights;
  bool cpu_given = false, memory_given = false;
  for (std::string_view item : split_items(text)) {
    const std::size_t eq = item.find('=');
    std::int64_t value = 0;
    const std::string_view name = eq == std::string_view::npos ? trim(item) : trim(item.substr(0, eq));
    if (eq == std::string_view::npos || !parse_int(item.substr(eq + 1), &value) || value < 0 || value > 1000) {
      return make_error("InvalidResourceWeights", "resource weight '" + std::string(trim(item)) +
                                                      "' is not NAME=WEIGHT with a weight within 0..1000 (e.g. cpu=1,memory=1)");
    }
    if (name == "cpu" || name == "memory") {
      bool& given = name == "cpu" ? cpu_given : memory_given;
      if (given) {
        return make_error("InvalidResourceWeights", "the " + std::string(name) + " weight is given twice in '" +
                                                        std::string(text) + "'; give it once");
      }
      given = true;
      (name == "cpu" ? weights.cpu : weights.memory) = value;
    } else {
      return make_error("InvalidResourceWeights",
                        "unknown resource '" + std::string(name) + "' in the weights; known: cpu, memory");
    }
  }
  if (weights.cpu == 0 && weights.memory == 0) {
    return make_error("InvalidResourceWeights", "the cpu and memory weights are both 0: nothing would be scored");
  }
  return weights;
}

}  // namespace numaplace
