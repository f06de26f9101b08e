// SPDX-License-Identifier: LGPL-2.1-or-later
// The cases of tests/data/conformance/nova/perf.jsonl (Nova's own fit times in nova_seconds),
// one benchmark each: fit_guest on the vector's host and guest, prepared once. Counters:
// nova_s (Nova's recorded seconds), speedup (Nova's seconds over ours, measured here),
// candidates (partial assignments the ordered search extended) and allocs (heap
// allocations per fit_guest call, allocation_counter.h). allocs does not
// grow with candidates: the search itself allocates nothing per candidate; what it
// allocates is per call (the fit matrix, the order, the answer).
#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

#include "bench/allocation_counter.h"
#include "conformance/nova_vector.h"
#include "placement/fit/fit.h"
#include "placement/request/guest_topology.h"

namespace {

using namespace numaplace;

struct PerfCase {
  HostTopology host;
  GuestTopology guest;
  FitOptions options;
  double nova_seconds = 0;  // 0: Nova gave up
};

void BM_NovaPerfCase(benchmark::State& state, const PerfCase& perf) {
  std::size_t candidates = 0;
  const std::size_t before = numaplace::bench::allocations_so_far();
  for (auto _ : state) {
    FitResult result = fit_guest(perf.host, perf.guest, perf.options);
    candidates = result.assignments_tried;
    benchmark::DoNotOptimize(result);
  }
  const double calls = static_cast<double>(state.iterations());
  state.counters["allocs"] = static_cast<double>(numaplace::bench::allocations_so_far() - before) / calls;
  state.counters["candidates"] = static_cast<double>(candidates);
  state.counters["nova_s"] = perf.nova_seconds;
  // Nova's seconds per our seconds per call (kIsIterationInvariantRate: divided by our time per call).
  if (perf.nova_seconds > 0) {
    state.counters["speedup"] = benchmark::Counter(perf.nova_seconds, benchmark::Counter::kIsIterationInvariantRate);
  }
}

// Registers one benchmark per vector; a missing file registers nothing (and says so).
int register_perf_cases() {
  const std::string path = std::string(NUMAPLACE_TEST_DATA_DIR) + "/conformance/nova/perf.jsonl";
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "nova_perf_bench: %s not found; the perf.jsonl cases are not benchmarked\n", path.c_str());
    return 0;
  }
  std::string line;
  int registered = 0;
  while (std::getline(in, line)) {
    const auto vector = nlohmann::json::parse(line, nullptr, false);
    if (vector.is_discarded() || !vector.is_object()) continue;
    auto topology = derive_guest_topology(conformance::request_from_nova_json(vector.at("request")));
    if (!topology || !topology->has_value()) continue;
    const auto nova = vector.find("nova_seconds");
    PerfCase perf{conformance::host_from_nova_json(vector.at("host")), **topology,
                  conformance::options_from_nova_config(vector),
                  nova != vector.end() && nova->is_number() ? nova->get<double>() : 0.0};
    benchmark::RegisterBenchmark(("BM_NovaPerf/" + vector.value("id", "?")).c_str(),
                                 [perf](benchmark::State& state) { BM_NovaPerfCase(state, perf); })
        ->Unit(benchmark::kMicrosecond);
    ++registered;
  }
  return registered;
}

const int kRegistered = register_perf_cases();

}  // namespace
