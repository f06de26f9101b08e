// SPDX-License-Identifier: LGPL-2.1-or-later
// What numaplace.nova reads of a host for a guest whose vCPUs are all floating, or all dedicated
// (python/numaplace/_cellwords.cpp's floating_words and dedicated_words), decides that guest's
// verdict: on random hosts and such requests, np_fit_hosts_cells gives the same verdict on the host
// made from the whole cells' words and on the host made from the view's words, the views written
// here from the host's description:
//   floating: each cell's id, memory, shared load, memory used and page pools, and as many shared
//     CPUs as it has (numbered afresh across the cells); no socket, dedicated, pinned or siblings;
//   dedicated: the whole cell but its shared CPUs, its shared load and its socket (for any thread
//     policy but isolate, which compares the shared and dedicated sets; IsolateSeesTheSharedSet).
// This is the invariant that lets numaplace.nova's filter key those guests' verdicts by the view.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
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
using testing::host_of_words;
using testing::HostHandle;
using testing::random_host;
using testing::request_of_specs;
using testing::RequestHandle;
using testing::verdict_of;
using testing::words_of;

Described floating_view(const Described& host) {
  Described view;
  view.ratios = host.ratios;
  std::int64_t next_cpu = 0;
  for (const auto& cell : host.cells) {
    Described::Cell seen;
    seen.id = cell.id;
    seen.memory_mib = cell.memory_mib;
    seen.shared_used = cell.shared_used;
    seen.memory_used_mib = cell.memory_used_mib;
    for (std::size_t i = 0; i < cell.shared.size(); ++i) seen.shared.push_back(next_cpu++);
    seen.pages = cell.pages;
    view.cells.push_back(std::move(seen));
  }
  return view;
}

Described dedicated_view(const Described& host) {
  Described view;
  view.ratios = host.ratios;
  for (const auto& cell : host.cells) {
    Described::Cell seen = cell;
    seen.shared.clear();
    seen.shared_used = 0;
    seen.socket.reset();
    seen.network = nullptr;
    view.cells.push_back(std::move(seen));
  }
  return view;
}

// A random request whose vCPUs are all dedicated, or all floating; null where Nova's derivation
// refuses the combination drawn.
RequestHandle random_request(std::mt19937& rng, bool dedicated, std::string& said) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<std::pair<std::string, std::string>> specs;
  if (pick(0, 3) != 0) specs.emplace_back("hw:numa_nodes", std::to_string(pick(1, 3)));
  if (dedicated) {
    specs.emplace_back("hw:cpu_policy", "dedicated");
    // Not isolate: on an SMT host it asks whether the cell's shared and dedicated sets are the
    // same (Nova's legacy vcpu_pin_set hosts), so numaplace.nova reads such a guest's hosts whole.
    const char* policies[] = {"prefer", "require"};
    if (pick(0, 1) == 0) specs.emplace_back("hw:cpu_thread_policy", policies[pick(0, 1)]);
    if (pick(0, 3) == 0) specs.emplace_back("hw:emulator_threads_policy", "isolate");
  } else if (pick(0, 1) == 0) {
    specs.emplace_back("hw:cpu_policy", "shared");
  }
  const char* sizes[] = {"small", "large", "any", "2048", "1048576"};
  if (pick(0, 3) == 0) specs.emplace_back("hw:mem_page_size", sizes[pick(0, 4)]);
  const unsigned vcpus = static_cast<unsigned>(pick(1, 12));
  const unsigned long long memory_mib = static_cast<unsigned long long>(pick(1, 96)) * 512;
  return request_of_specs(vcpus, memory_mib, specs, said);
}

TEST(CellViewsProperty, AGuestsVerdictOnItsViewIsItsVerdictOnTheWholeHost) {
  std::mt19937 rng(20261205);
  const np_pair nova_options[][2] = {{{"strategy", "nova"}, {"cell_order", "spread"}},
                                     {{"strategy", "nova"}, {"cell_order", "pack"}}};
  int compared[2][2] = {};  // [dedicated][fits]
  int view_refused = 0;
  for (int round = 0; round < 6000; ++round) {
    const bool dedicated = round % 2 == 1;
    std::string said;
    RequestHandle request = random_request(rng, dedicated, said);
    if (!request) continue;
    const Described host = random_host(rng);
    const double cpu = host.ratios ? host.ratios->first : std::nan("");
    const double ram = host.ratios ? host.ratios->second : std::nan("");
    HostHandle whole = host_of_words(words_of(host), cpu, ram);
    if (!whole) continue;  // refused words: the filter reads such a host whole (tested apart)
    HostHandle view = host_of_words(words_of(dedicated ? dedicated_view(host) : floating_view(host)), cpu, ram);
    if (!view) {  // the filter then fits the whole host: still its verdict, at the full price
      ++view_refused;
      continue;
    }
    const np_pair* options = nova_options[round / 2 % 2];
    const int verdict = verdict_of(whole.get(), request.get(), options, 2);
    EXPECT_EQ(verdict_of(view.get(), request.get(), options, 2), verdict)
        << "round " << round << ": " << said << "\non " << testing::json_of(host).dump();
    ++compared[dedicated ? 1 : 0][verdict == 1 ? 1 : 0];
  }
  // Each kind of guest both fits and does not, often enough for the equality to mean something.
  for (const auto& kind : compared) {
    EXPECT_GT(kind[0], 150);
    EXPECT_GT(kind[1], 150);
  }
  EXPECT_LT(view_refused, 30);
  std::printf("compared: floating %d misfits, %d fits; dedicated %d misfits, %d fits; %d views refused\n", compared[0][0],
              compared[0][1], compared[1][0], compared[1][1], view_refused);
}

// Why isolate reads the whole cell: an SMT cell whose shared and dedicated sets differ refuses it
// (Nova's check for hosts not configured the legacy way), and the dedicated view cannot tell.
TEST(CellViews, IsolateSeesTheSharedSet) {
  Described host;
  Described::Cell cell;
  cell.memory_mib = 4096;
  cell.shared = {0, 1};
  cell.dedicated = {0, 1};
  cell.siblings = {{0, 1}};
  cell.pages = {{4, 1048576, 0, 0}};
  host.cells.push_back(cell);
  const np_pair specs[] = {{"hw:cpu_policy", "dedicated"}, {"hw:cpu_thread_policy", "isolate"}};
  np_request* made = nullptr;
  np_error* error = nullptr;
  ASSERT_EQ(np_request_from_specs(1, 1024, specs, 2, nullptr, 0, &made, &error), NP_OK);
  RequestHandle request(made);
  HostHandle whole = host_of_words(words_of(host), std::nan(""), std::nan(""));
  HostHandle view = host_of_words(words_of(dedicated_view(host)), std::nan(""), std::nan(""));
  ASSERT_TRUE(whole && view);
  EXPECT_EQ(verdict_of(whole.get(), request.get()), 1);  // legacy: pin one thread, hold its sibling
  EXPECT_EQ(verdict_of(view.get(), request.get()), 0);   // the sets look apart
}

}  // namespace
}  // namespace numaplace
