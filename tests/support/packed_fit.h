/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Packed hosts through the C ABI for the tests that fit them: owning handles, a host made from
// packed words (np_host_from_cells), its verdict for a request (np_fit_hosts_cells) and its JSON.
// GoogleTest's EXPECTs report a call that fails.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "numaplace.h"
#include "support/described_host.h"

namespace numaplace::testing {

struct HostFree {
  void operator()(np_host* host) const { np_host_free(host); }
};
struct RequestFree {
  void operator()(np_request* request) const { np_request_free(request); }
};
struct ErrorFree {
  void operator()(np_error* error) const { np_error_free(error); }
};
using HostHandle = std::unique_ptr<np_host, HostFree>;
using RequestHandle = std::unique_ptr<np_request, RequestFree>;
using ErrorHandle = std::unique_ptr<np_error, ErrorFree>;

// A request of `vcpus`, `memory_mib` and flavor extra specs `specs` (np_request_from_specs); null
// where Nova's derivation refuses them. `said` is set to the request in words, for failures.
inline RequestHandle request_of_specs(unsigned vcpus, unsigned long long memory_mib,
                                      const std::vector<std::pair<std::string, std::string>>& specs,
                                      std::string& said) {
  std::vector<np_pair> pairs;
  said = std::to_string(vcpus) + " vCPUs, " + std::to_string(memory_mib) + " MiB";
  for (const auto& [key, value] : specs) {
    pairs.push_back({key.c_str(), value.c_str()});
    said += ", " + key + "=" + value;
  }
  np_request* request = nullptr;
  np_error* error = nullptr;
  if (np_request_from_specs(vcpus, memory_mib, pairs.data(), pairs.size(), nullptr, 0, &request, &error) != NP_OK) {
    np_error_free(error);
    return nullptr;
  }
  return RequestHandle(request);
}

// The verdict np_fit_hosts_cells gives a host (with `options`, `option_count` of them).
inline int verdict_of(const np_host* host, const np_request* request, const np_pair* options = nullptr,
                      size_t option_count = 0) {
  const np_host* hosts[] = {host};
  unsigned char fits = 9;
  np_error* error = nullptr;
  EXPECT_EQ(np_fit_hosts_cells(hosts, 1, request, options, option_count, &fits, nullptr, 0, &error), NP_OK)
      << np_error_message(error);
  np_error_free(error);
  return fits;
}

// A host as np_host_from_cells makes it from words and ratios; null where the words are refused.
inline HostHandle host_of_words(const Words& words, double cpu, double ram) {
  np_host* made = nullptr;
  np_error* error = nullptr;
  if (np_host_from_cells(reinterpret_cast<const long long*>(words.data()), words.size(), cpu, ram, nullptr, nullptr,
                         &made, &error) != NP_OK) {
    np_error_free(error);
    return nullptr;
  }
  return HostHandle(made);
}

inline std::string json_of_host(const np_host* host) {
  char* text = nullptr;
  np_error* error = nullptr;
  EXPECT_EQ(np_host_to_json(host, &text, &error), NP_OK);
  np_error_free(error);
  std::string json = text == nullptr ? "" : text;
  np_string_free(text);
  return json;
}

}  // namespace numaplace::testing
