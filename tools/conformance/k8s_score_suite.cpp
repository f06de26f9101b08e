// SPDX-License-Identifier: LGPL-2.1-or-later
// Suite k8s-score: kube-scheduler NodeResourcesFit scores (LeastAllocated,
// MostAllocated, RequestedToCapacityRatio) for each vector of k8s/score.jsonl.
#include <cstdint>
#include <map>
#include <string>

#include "conformance/suite.h"
#include "conformance/json_number.h"
#include "placement/scoring/scoring_strategy.h"

namespace numaplace::conformance {
namespace {

std::map<std::string, std::int64_t> amounts_from_json(const nlohmann::json& object) {
  std::map<std::string, std::int64_t> amounts;
  for (const auto& [name, amount] : object.items()) amounts[name] = whole<std::int64_t>(amount);
  return amounts;
}

}  // namespace

VectorOutcome check_k8s_score(const nlohmann::json& vector) {
  auto strategy = scoring::scoring_strategy_from_name(vector.at("strategy").get<std::string>());
  if (!strategy) return VectorOutcome::skip(strategy.error().message);
  scoring::ScoringConfig config;
  config.strategy = *strategy;
  for (const auto& resource : vector.at("resources")) {
    config.resources.push_back(
        scoring::WeightedResource{resource.at("name").get<std::string>(), whole<std::int64_t>(resource.at("weight"))});
  }
  if (vector.contains("shape")) {
    for (const auto& point : vector.at("shape")) {
      config.shape.push_back(scoring::UtilizationShapePoint{whole<std::int64_t>(point.at("utilization")),
                                                            whole<std::int64_t>(point.at("score"))});
    }
  }
  const nlohmann::json& node_json = vector.at("node");
  scoring::NodeResources node{amounts_from_json(node_json.value("allocatable", nlohmann::json::object())),
                              amounts_from_json(node_json.value("requested", nlohmann::json::object()))};
  const scoring::PodRequest pod = amounts_from_json(vector.at("pod"));

  const std::int64_t expected = whole<std::int64_t>(vector.at("expect").at("score"));
  auto score = scoring::score_node(config, node, pod);
  if (!score) return VectorOutcome::fail("score " + std::to_string(expected), score.error().message);
  if (*score != expected) return VectorOutcome::fail("score " + std::to_string(expected), "score " + std::to_string(*score));
  return VectorOutcome::pass();
}

}  // namespace numaplace::conformance
