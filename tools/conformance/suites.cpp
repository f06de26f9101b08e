// SPDX-License-Identifier: LGPL-2.1-or-later
#include "conformance/suite.h"

namespace numaplace::conformance {

VectorOutcome check_nova_fit(const nlohmann::json& vector);
std::optional<std::vector<double>> time_nova_fit(const nlohmann::json& vector, std::size_t repeat);
VectorOutcome check_resource_compare(const nlohmann::json& vector);
VectorOutcome check_k8s_score(const nlohmann::json& vector);
VectorOutcome check_k8s_merge(const nlohmann::json& vector);

const std::vector<Suite>& all_suites() {
  static const std::vector<Suite> suites{
      {"nova-fit", "guest NUMA request parsing and fitting, against OpenStack Nova (nova/edge.jsonl, nova/fit.jsonl)",
       check_nova_fit, time_nova_fit},
      {"resource-compare", "the nine resource vector comparisons with zero/infinity defaults (volcano/compare-design.jsonl)",
       check_resource_compare},
      {"k8s-merge", "TopologyManager hint merging and admission per policy (k8s/merge.jsonl)", check_k8s_merge},
      {"k8s-score", "kube-scheduler NodeResourcesFit scoring strategies (k8s/score.jsonl)", check_k8s_score},
  };
  return suites;
}

}  // namespace numaplace::conformance
