// SPDX-License-Identifier: LGPL-2.1-or-later
// np_fit_packed_hosts (numaplace.h): on random hosts and requests, the verdict it gives each host
// of a batch is the one np_fit_hosts_cells gives that host made by np_host_from_cells from the same
// words and ratios, whatever the batch's size and the words' alignment, and the hosts it hands back
// are those hosts (the same verdict again, the same JSON); a host whose words the library refuses
// is 2 and no host, alone, and its neighbours are still answered; bad arrays are InvalidArgument
// and write nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "numaplace.h"
#include "support/described_host.h"
#include "support/packed_fit.h"

namespace numaplace {
namespace {

using testing::Described;
using testing::ErrorHandle;
using testing::host_of_words;
using testing::HostHandle;
using testing::json_of_host;
using testing::random_host;
using testing::request_of_specs;
using testing::RequestHandle;
using testing::verdict_of;
using testing::Words;
using testing::words_of;

// A random flavor (vCPUs, memory, NUMA and CPU policy specs) as a request; null where Nova's
// derivation refuses the combination drawn.
RequestHandle random_request(std::mt19937& rng, std::string& said) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<std::pair<std::string, std::string>> specs;
  if (pick(0, 2) != 0) specs.emplace_back("hw:numa_nodes", std::to_string(pick(1, 2)));
  if (pick(0, 1) == 0) {
    specs.emplace_back("hw:cpu_policy", "dedicated");
    const char* policies[] = {"prefer", "isolate", "require"};
    if (pick(0, 1) == 0) specs.emplace_back("hw:cpu_thread_policy", policies[pick(0, 2)]);
  }
  if (pick(0, 4) == 0) specs.emplace_back("hw:mem_page_size", pick(0, 1) ? "large" : "2048");
  const unsigned vcpus = static_cast<unsigned>(pick(1, 8) * 2);
  const unsigned long long memory_mib = static_cast<unsigned long long>(pick(1, 64)) * 1024;
  return request_of_specs(vcpus, memory_mib, specs, said);
}

TEST(FitPackedHostsProperty, EachVerdictIsTheMadeHostsWhateverTheBatchAndAlignment) {
  std::mt19937 rng(20261205);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int fitted = 0, refused_words = 0, not_fitted = 0;
  for (int round = 0; round < 400; ++round) {
    std::string said;
    RequestHandle request = random_request(rng, said);
    if (!request) continue;
    const int count = pick(1, 12);
    std::vector<Words> hosts;
    std::vector<double> ratios;
    for (int i = 0; i < count; ++i) {
      const Described described = random_host(rng);
      Words words = words_of(described);
      if (pick(0, 9) == 0) words.pop_back();  // one word short: refused, this host alone
      hosts.push_back(std::move(words));
      ratios.push_back(described.ratios ? described.ratios->first : std::nan(""));
      ratios.push_back(described.ratios ? described.ratios->second : std::nan(""));
    }
    // Each host's words at an offset of 0 to 7 bytes within a buffer of its own: unaligned too.
    std::vector<std::vector<char>> buffers;
    std::vector<const void*> pointers;
    std::vector<size_t> counts;
    for (const Words& words : hosts) {
      const auto offset = static_cast<std::size_t>(pick(0, 7));
      buffers.emplace_back(offset + words.size() * sizeof(std::int64_t) + 1);
      std::memcpy(buffers.back().data() + offset, words.data(), words.size() * sizeof(std::int64_t));
      pointers.push_back(buffers.back().data() + offset);
      counts.push_back(words.size());
    }
    std::vector<unsigned char> fits(static_cast<std::size_t>(count), 9);
    const bool keep = round % 2 == 0;  // every other batch hands its hosts back
    np_host* const untouched = reinterpret_cast<np_host*>(&fits);  // never a host: only compared
    std::vector<np_host*> made(static_cast<std::size_t>(count), untouched);
    np_error* error = nullptr;
    ASSERT_EQ(np_fit_packed_hosts(pointers.data(), counts.data(), ratios.data(), static_cast<size_t>(count),
                                  request.get(), nullptr, 0, fits.data(), keep ? made.data() : nullptr, &error),
              NP_OK)
        << np_error_message(error);
    for (int i = 0; i < count; ++i) {
      const auto at = static_cast<std::size_t>(i);
      const std::string where = "round " + std::to_string(round) + ", host " + std::to_string(i) + " of " +
                                std::to_string(count) + ": " + said;
      if (keep) {
        EXPECT_NE(made[at], untouched) << where;  // written for every host, refused ones too
      }
      HostHandle handed(made[at] == untouched ? nullptr : made[at]);
      HostHandle expected = host_of_words(hosts[at], ratios[2 * at], ratios[2 * at + 1]);
      if (!expected) {
        EXPECT_EQ(fits[at], 2) << where;
        EXPECT_EQ(handed, nullptr) << where;
        ++refused_words;
        continue;
      }
      const int verdict = verdict_of(expected.get(), request.get());
      EXPECT_EQ(fits[at], verdict) << where;
      (verdict == 1 ? fitted : not_fitted) += 1;
      if (!keep) continue;
      ASSERT_NE(handed, nullptr) << where;
      EXPECT_EQ(verdict_of(handed.get(), request.get()), verdict) << where;
      EXPECT_EQ(json_of_host(handed.get()), json_of_host(expected.get())) << where;
    }
  }
  // The draws reach every kind of verdict, or the comparison above says little.
  EXPECT_GT(fitted, 100);
  EXPECT_GT(not_fitted, 100);
  EXPECT_GT(refused_words, 20);
}

TEST(FitPackedHosts, ChecksItsArraysAndWritesNothingOnAnError) {
  const Words words = {1, 0, 1024, 0, 0, -1, 2, 0, 1, 2, 0, 1, 0, 1, 2, 0, 1, 1, 4, 262144, 0, 0};
  const void* pointers[] = {words.data()};
  const size_t counts[] = {words.size()};
  const double ratios[] = {2.0, 1.0};
  np_request* asked = nullptr;
  np_error* error = nullptr;
  const np_pair one_cell[] = {{"hw:numa_nodes", "1"}};
  ASSERT_EQ(np_request_from_specs(2, 512, one_cell, 1, nullptr, 0, &asked, &error), NP_OK);
  RequestHandle request(asked);
  unsigned char fits[] = {9};
  auto expect_invalid = [&](np_status status) {
    ErrorHandle owned(error);
    error = nullptr;
    EXPECT_EQ(status, NP_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(np_error_name(owned.get()), "InvalidArgument");
    EXPECT_EQ(fits[0], 9);
  };
  expect_invalid(np_fit_packed_hosts(pointers, counts, ratios, 1, nullptr, nullptr, 0, fits, nullptr, &error));
  expect_invalid(np_fit_packed_hosts(nullptr, counts, ratios, 1, request.get(), nullptr, 0, fits, nullptr, &error));
  expect_invalid(np_fit_packed_hosts(pointers, nullptr, ratios, 1, request.get(), nullptr, 0, fits, nullptr, &error));
  expect_invalid(np_fit_packed_hosts(pointers, counts, nullptr, 1, request.get(), nullptr, 0, fits, nullptr, &error));
  expect_invalid(np_fit_packed_hosts(pointers, counts, ratios, 1, request.get(), nullptr, 0, nullptr, nullptr, &error));
  const void* missing[] = {nullptr};
  expect_invalid(np_fit_packed_hosts(missing, counts, ratios, 1, request.get(), nullptr, 0, fits, nullptr, &error));
  const np_pair unknown[] = {{"bogus", "1"}};
  np_host* untouched = reinterpret_cast<np_host*>(&fits);  // never a host: only compared
  np_host* made[] = {untouched};
  EXPECT_EQ(np_fit_packed_hosts(pointers, counts, ratios, 1, request.get(), unknown, 1, fits, made, &error),
            NP_ERR_INVALID_ARGUMENT);
  np_error_free(error);
  error = nullptr;
  EXPECT_EQ(fits[0], 9);
  EXPECT_EQ(made[0], untouched);
  // No host: nothing to check or write.
  EXPECT_EQ(np_fit_packed_hosts(nullptr, nullptr, nullptr, 0, request.get(), nullptr, 0, nullptr, nullptr, &error), NP_OK);
  ASSERT_EQ(np_fit_packed_hosts(pointers, counts, ratios, 1, request.get(), nullptr, 0, fits, made, &error), NP_OK);
  EXPECT_EQ(fits[0], 1);  // 2 vCPUs and 512 MiB on the one cell of 2 CPUs and 1 GiB
  ASSERT_NE(made[0], untouched);
  HostHandle handed(made[0]);
  ASSERT_NE(handed, nullptr);
}

}  // namespace
}  // namespace numaplace
