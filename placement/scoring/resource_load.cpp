// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/scoring/resource_load.h"

#include <limits>

namespace numaplace::scoring {
namespace {

std::int64_t amount_or_zero(const std::map<std::string, std::int64_t>& amounts, const std::string& name) {
  auto found = amounts.find(name);
  return found == amounts.end() ? 0 : found->second;
}

// The pod's request for `name`, with kube-scheduler's non-zero defaults for cpu and memory.
std::int64_t pod_request_for(const PodRequest& pod, const std::string& name) {
  auto found = pod.find(name);
  if (found != pod.end()) return found->second;
  if (name == "cpu") return kDefaultMilliCpuRequest;
  if (name == "memory") return kDefaultMemoryRequestBytes;
  return 0;
}

}  // namespace

bool is_native_resource(const std::string& name) {
  return name == "cpu" || name == "memory" || name == "ephemeral-storage";
}

std::vector<ResourceLoad> resource_loads(const std::vector<WeightedResource>& resources, const NodeResources& node,
                                         const PodRequest& pod) {
  std::vector<ResourceLoad> loads;
  loads.reserve(resources.size());
  for (const WeightedResource& resource : resources) {
    const std::int64_t pod_request = pod_request_for(pod, resource.name);
    if (pod_request == 0 && !is_native_resource(resource.name)) continue;
    const std::int64_t allocatable = amount_or_zero(node.allocatable, resource.name);
    if (allocatable == 0) continue;
    std::int64_t requested = 0;
    if (__builtin_add_overflow(amount_or_zero(node.requested, resource.name), pod_request, &requested)) {
      requested = std::numeric_limits<std::int64_t>::max();
    }
    loads.push_back(ResourceLoad{resource.name, resource.weight, requested, allocatable});
  }
  return loads;
}

}  // namespace numaplace::scoring
