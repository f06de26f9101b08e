// SPDX-License-Identifier: LGPL-2.1-or-later
// The fast fit API of the C ABI (np_fit, np_fit_hosts; numaplace.h) on a 2-cell host (8 cores x 2
// threads, 64 GiB per cell, as tools/bench/fit_api.py times it from Python): the host and the
// request built once, then one call per iteration, answer JSON included. Shared 2-cell guest
// (4+4 vCPUs, 8 GiB), dedicated 2-cell guest, and np_fit_hosts over 100 such hosts (per host).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "numaplace.h"

namespace {

std::string two_cell_host() {
  std::string cells;
  for (int c = 0; c < 2; ++c) {
    std::string cpus, siblings;
    for (int k = 0; k < 8; ++k) {
      const int a = c * 16 + 2 * k, b = a + 1;
      cpus += (k ? "," : "") + std::to_string(a) + "," + std::to_string(b);
      siblings += std::string(k ? "," : "") + "[" + std::to_string(a) + "," + std::to_string(b) + "]";
    }
    cells += std::string(c ? "," : "") + R"({"id": )" + std::to_string(c) + R"(, "cpus": [)" + cpus +
             R"(], "siblings": [)" + siblings +
             R"(], "memory_mib": 65536, "pages": [{"size_kib": 4, "total": 16777216, "used": 0}],
                 "usage": {"shared_cpus": 0, "pinned_cpus": [], "memory_mib": 0}})";
  }
  return R"({"cells": [)" + cells + R"(], "allocation_ratio": {"cpu": 16.0, "ram": 1.5}})";
}

const char* kShared = R"({"flavor": {"vcpus": 8, "memory_mib": 8192, "extra_specs": {"hw:numa_nodes": "2"}}})";
const char* kDedicated =
    R"({"flavor": {"vcpus": 8, "memory_mib": 8192, "extra_specs": {"hw:numa_nodes": "2", "hw:cpu_policy": "dedicated"}}})";

void fit_on_two_cells(benchmark::State& state, const char* request_json) {
  np_host* host = nullptr;
  np_request* request = nullptr;
  np_error* error = nullptr;
  if (np_host_from_json(two_cell_host().c_str(), &host, &error) != NP_OK ||
      np_request_from_json(request_json, &request, &error) != NP_OK) {
    state.SkipWithError(np_error_message(error));
    np_error_free(error);
    return;
  }
  for (auto _ : state) {
    char* answer = nullptr;
    if (np_fit(host, request, nullptr, 0, &answer, &error) != NP_OK) {
      state.SkipWithError(np_error_message(error));
      break;
    }
    benchmark::DoNotOptimize(answer);
    np_string_free(answer);
  }
  np_error_free(error);
  np_request_free(request);
  np_host_free(host);
}

void BM_NpFitShared2Cell(benchmark::State& state) { fit_on_two_cells(state, kShared); }
void BM_NpFitDedicated2Cell(benchmark::State& state) { fit_on_two_cells(state, kDedicated); }
BENCHMARK(BM_NpFitShared2Cell);
BENCHMARK(BM_NpFitDedicated2Cell);

void BM_NpFitHosts100(benchmark::State& state) {
  std::vector<np_host*> hosts(100, nullptr);
  np_request* request = nullptr;
  np_error* error = nullptr;
  const std::string host_json = two_cell_host();
  for (auto& host : hosts) np_host_from_json(host_json.c_str(), &host, &error);
  np_request_from_json(kDedicated, &request, &error);
  for (auto _ : state) {
    char* answers = nullptr;
    np_fit_hosts(hosts.data(), hosts.size(), request, nullptr, 0, &answers, &error);
    benchmark::DoNotOptimize(answers);
    np_string_free(answers);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 100);
  np_request_free(request);
  for (auto* host : hosts) np_host_free(host);
}
BENCHMARK(BM_NpFitHosts100);

}  // namespace
