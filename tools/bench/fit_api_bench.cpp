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

// np_host_from_cells as numaplace.nova's filter makes a host it has not seen: a 4-cell host of 8
// cores x 2 threads per cell in packed words, with (Pci) or without (NoPci) three PCI devices
// in the host schema's "pci" text, tagged as numaplace.nova writes a Nova pool's devices.
std::vector<long long> four_cell_words() {
  std::vector<long long> words{4};
  for (long long c = 0; c < 4; ++c) {
    words.insert(words.end(), {c, 65536, 2, 4096, c / 2, 8});
    for (long long k = 0; k < 8; ++k) words.push_back(c * 16 + k);
    words.push_back(8);
    for (long long k = 8; k < 16; ++k) words.push_back(c * 16 + k);
    words.insert(words.end(), {2, c * 16 + 8, c * 16 + 9});
    words.push_back(8);
    for (int k = 0; k < 8; ++k) words.push_back(2);
    for (long long k = 0; k < 8; ++k) words.insert(words.end(), {c * 16 + k, c * 16 + k + 8});
    words.insert(words.end(), {2, 4, 16777216, 1024, 0, 2048, 512, 16, 0});
  }
  return words;
}

const char* kThreeDevices =
    R"([{"address": "pool0-0", "numa_node": 0, "vendor_id": "8086", "product_id": "154d", "allocated": false,)"
    R"( "tags": {"dev_type": "type-PF", "physical_network": "physnet1"}},)"
    R"( {"address": "pool1-0", "numa_node": 1, "vendor_id": "8086", "product_id": "10ed", "allocated": false,)"
    R"( "tags": {"dev_type": "type-VF", "physical_network": "physnet1", "parent_ifname": null}},)"
    R"( {"address": "pool1-1", "numa_node": 1, "vendor_id": "8086", "product_id": "10ed", "allocated": false,)"
    R"( "tags": {"dev_type": "type-VF", "physical_network": "physnet1", "parent_ifname": null}}])";

void host_from_cells(benchmark::State& state, const char* pci_json) {
  const std::vector<long long> words = four_cell_words();
  for (auto _ : state) {
    np_host* host = nullptr;
    np_error* error = nullptr;
    if (np_host_from_cells(words.data(), words.size(), 16.0, 1.5, pci_json, nullptr, &host, &error) != NP_OK) {
      state.SkipWithError(np_error_message(error));
      np_error_free(error);
      break;
    }
    benchmark::DoNotOptimize(host);
    np_host_free(host);
  }
}

void BM_NpHostFromCellsNoPci(benchmark::State& state) { host_from_cells(state, nullptr); }
void BM_NpHostFromCellsPci(benchmark::State& state) { host_from_cells(state, kThreeDevices); }
BENCHMARK(BM_NpHostFromCellsNoPci);
BENCHMARK(BM_NpHostFromCellsPci);

}  // namespace
