/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What kube-scheduler's NodeResourcesFit scores: for each configured resource, the
// amount that would be requested after placing the pod (already requested + the
// pod's request) against what is allocatable, with the resource's weight.
// resource_loads() applies kube-scheduler's rules: a resource whose allocatable is 0
// or absent is left out; so is a scalar resource (anything but cpu, memory and
// ephemeral-storage) the pod requests none of. A pod that names no cpu request asks
// for 100 millicores, none for memory 200 MiB (an explicit 0 stays 0).
// Units: cpu in millicores, memory and ephemeral-storage in bytes, others in counts.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace numaplace::scoring {

struct WeightedResource {
  std::string name;
  std::int64_t weight = 1;
};

// Allocatable and already-requested amounts of one scoring target (a host or a cell).
struct NodeResources {
  std::map<std::string, std::int64_t> allocatable;
  std::map<std::string, std::int64_t> requested;
};

// What the new workload asks for; a resource it does not name is absent here.
using PodRequest = std::map<std::string, std::int64_t>;

struct ResourceLoad {
  std::string name;
  std::int64_t weight = 1;
  std::int64_t requested = 0;    // already requested + the pod's request
  std::int64_t allocatable = 0;  // > 0
};

// Scores are computed in 128 bits: kube-scheduler's products (amount x 100, score x weight) of
// int64 amounts wrap in Go and are undefined behaviour in C++; in 128 bits they are exact for
// every int64 input, and equal to Go's wherever Go's did not wrap.
using WideScore = __int128;

inline constexpr std::int64_t kMaxNodeScore = 100;
inline constexpr std::int64_t kDefaultMilliCpuRequest = 100;
inline constexpr std::int64_t kDefaultMemoryRequestBytes = 200LL * 1024 * 1024;

// True for cpu, memory and ephemeral-storage; everything else is a scalar resource.
bool is_native_resource(const std::string& name);

// The loads that take part in scoring, in the order of `resources`. Amounts are taken as >= 0
// (score_node refuses others); an already-requested + pod sum beyond int64 is held at its maximum,
// which scores as any amount above allocatable does.
std::vector<ResourceLoad> resource_loads(const std::vector<WeightedResource>& resources, const NodeResources& node,
                                         const PodRequest& pod);

}  // namespace numaplace::scoring
