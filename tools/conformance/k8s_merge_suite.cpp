// SPDX-License-Identifier: LGPL-2.1-or-later
// Suite k8s-merge: TopologyManager hint merging and admission under each policy,
// with prefer-closest-numa-nodes and max-allowable-numa-nodes, for each vector of
// k8s/merge.jsonl.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "conformance/json_number.h"
#include "conformance/suite.h"
#include "placement/hints/merge_hints.h"

namespace numaplace::conformance {
namespace {

std::optional<NumaNodeMask> mask_from_json(const nlohmann::json& nodes, std::string* error) {
  if (nodes.is_null()) return std::nullopt;
  auto mask = NumaNodeMask::from_nodes(whole_list<std::uint32_t>(nodes));
  if (!mask) {
    *error = mask.error().message;
    return std::nullopt;
  }
  return *mask;
}

std::vector<std::vector<std::uint64_t>> distance_matrix(const nlohmann::json& rows) {
  std::vector<std::vector<std::uint64_t>> matrix;
  for (const auto& row : rows) matrix.push_back(whole_list<std::uint64_t>(row));
  return matrix;
}

std::string describe(const std::optional<NumaNodeMask>& mask, bool preferred, bool admit) {
  return std::string("mask ") + (mask ? "[" + mask->to_nodeset() + "]" : "null") +
         ", preferred=" + (preferred ? "true" : "false") + ", admit=" + (admit ? "true" : "false");
}

}  // namespace

VectorOutcome check_k8s_merge(const nlohmann::json& vector) {
  auto policy = topology_policy_from_name(vector.at("policy").get<std::string>());
  if (!policy) return VectorOutcome::skip(policy.error().message);

  std::vector<std::vector<std::uint64_t>> distances;
  if (vector.contains("distances") && !vector.at("distances").is_null()) {
    distances = distance_matrix(vector.at("distances"));
  }
  auto numa = make_numa_info(whole_list<std::uint32_t>(vector.at("numa_nodes")), distances);
  if (!numa) return VectorOutcome::skip(numa.error().message);

  MergeOptions options;
  const nlohmann::json options_json = vector.value("options", nlohmann::json::object());
  options.prefer_closest_numa_nodes = options_json.value("prefer_closest_numa_nodes", false);
  options.max_allowable_numa_nodes = whole_or<int>(options_json, "max_allowable_numa_nodes", 8);

  std::vector<ProviderHints> providers;
  std::string error;
  for (const auto& provider_json : vector.at("providers")) {
    ProviderHints provider;
    if (!provider_json.is_null()) {
      for (const auto& [resource, hints_json] : provider_json.items()) {
        if (hints_json.is_null()) {
          provider[resource] = std::nullopt;
          continue;
        }
        HintList hints;
        for (const auto& hint_json : hints_json) {
          hints.push_back(TopologyHint{mask_from_json(hint_json.at("mask"), &error), hint_json.at("preferred").get<bool>()});
        }
        provider[resource] = std::move(hints);
      }
    }
    providers.push_back(std::move(provider));
  }
  if (!error.empty()) return VectorOutcome::skip(error);

  const nlohmann::json& expect = vector.at("expect");
  const std::optional<NumaNodeMask> expected_mask = mask_from_json(expect.at("mask"), &error);
  const std::string wanted =
      describe(expected_mask, expect.at("preferred").get<bool>(), expect.at("admit").get<bool>());

  auto merged = merge_hints(hint_lists_from_providers(providers), *policy, options, *numa);
  if (!merged) return VectorOutcome::fail(wanted, merged.error().name + ": " + merged.error().message);
  const std::string got = describe(merged->hint.affinity, merged->hint.preferred, merged->admit);
  if (got != wanted) return VectorOutcome::fail(wanted, got + " (" + merged->reason + ")");
  return VectorOutcome::pass();
}

}  // namespace numaplace::conformance
