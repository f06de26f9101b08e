// SPDX-License-Identifier: LGPL-2.1-or-later
// `numaplace-dev replay` run as a user would on Nova's admission streams: the first refusal it
// reports per stream, and its refusal of bad input.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/cli_runner.h"
#include "support/test_paths.h"

namespace numaplace {
namespace {

using testing::shared_path;

const std::string kStreams = shared_path("conformance/nova/streams.jsonl");

// In nova-stream-17 Nova refuses request 5 (8 dedicated vCPUs, 64 GiB without a page size)
// under both orders: only the cell without 1 GiB pages has 64 GiB of small pages, and request 2
// took it. Every strategy must refuse it there, and say why cell by cell.
TEST(ReplayCli, FirstRefusalNamesTheRequestAndEveryCellsReason) {
  for (const std::string strategy : {"pack", "spread", "nova"}) {
    SCOPED_TRACE(strategy);
    const auto run = testing::run_dev("replay " + kStreams + " --stream nova-stream-17 --first-refusals --strategy " + strategy);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const std::size_t at = run.out.find("nova-stream-17: request 5: 1-cell dedicated, 8 vCPUs, 65536 MiB: ");
    ASSERT_NE(at, std::string::npos) << run.out;
    const std::string line = run.out.substr(at, run.out.find('\n', at) - at);
    for (const char* cell : {"host cell 3", "host cell 4", "host cell 6", "host cell 7"}) {
      EXPECT_NE(line.find(std::string("on ") + cell + ": needs 65536 MiB of memory, " + cell +
                          " has 32768 MiB in 4 KiB pages in all"),
                std::string::npos)
          << line;
    }
    EXPECT_NE(line.find("on host cell 5: needs 65536 MiB of memory for a pinned cell"), std::string::npos) << line;
  }
}

TEST(ReplayCli, WithoutTheFlagNoRefusalsAreListed) {
  const auto run = testing::run_dev("replay " + kStreams + " --stream nova-stream-17");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.find("first refusal per stream"), std::string::npos) << run.out;
}

TEST(ReplayCli, RefusesALineThatIsNotAStream) {
  const std::string path = std::string(::testing::TempDir()) + "/numaplace-replay-bad.jsonl";
  {
    std::ofstream(path) << "[1, 2]\n";
  }
  const auto run = testing::run_dev("replay " + path);
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_NE(run.err.find("InvalidStream"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

}  // namespace
}  // namespace numaplace
