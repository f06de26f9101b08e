// SPDX-License-Identifier: LGPL-2.1-or-later
// The nova-fit suite over perf.jsonl (cases where Nova walks up to hundreds of millions of
// permutations, or times out): every answer right, the whole file in well under a second.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>

#include "support/test_paths.h"

namespace numaplace {
namespace {

TEST(NovaPerf, EveryPerfCaseIsAnsweredRightAndFast) {
  const std::string command = numaplace::testing::dev_cli_path() + " conformance nova-fit " +
                              numaplace::testing::shared_path("conformance/nova/perf.jsonl") + " 2>&1";
  const auto start = std::chrono::steady_clock::now();
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  const int status = pclose(pipe);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  EXPECT_NE(out.find("10 passed, 0 failed, 0 skipped"), std::string::npos) << out;
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), 2000) << out;
}

}  // namespace
}  // namespace numaplace
