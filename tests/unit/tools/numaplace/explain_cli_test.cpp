// SPDX-License-Identifier: LGPL-2.1-or-later
// `numaplace place --strategy ... --explain [--json]` run as a user would.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "support/cli_runner.h"
#include "support/test_paths.h"

namespace numaplace {
namespace {

using numaplace::testing::CliRun;
using numaplace::testing::run;
using numaplace::testing::slurp;
using numaplace::testing::shared_path;
using numaplace::testing::source_path;
using numaplace::testing::kTestHost;

using numaplace::testing::kExample;
using numaplace::testing::kWorkedSpecs;

// Every (guest cell, host cell) pair that does not fit appears once among the rejections.
void expect_rejection_per_misfit(const nlohmann::json& explanation) {
  std::set<std::pair<int, int>> misfits;
  for (const auto& pair : explanation["pairs"]) {
    if (!pair["fits"].get<bool>()) misfits.insert({pair["guest_cell"].get<int>(), pair["host_cell"].get<int>()});
  }
  std::set<std::pair<int, int>> rejected;
  for (const auto& r : explanation["rejections"]) {
    EXPECT_FALSE(r["reason"].get<std::string>().empty());
    EXPECT_TRUE(rejected.insert({r["guest_cell"].get<int>(), r["host_cell"].get<int>()}).second) << "a pair rejected twice";
  }
  EXPECT_EQ(rejected, misfits);
}

TEST(ExplainCli, JsonExplanationOfAnAcceptedPlacement) {
  CliRun r = run("place " + kExample + kTestHost + kWorkedSpecs + " --explain --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  const auto& e = doc["explanation"];
  EXPECT_EQ(e["strategy"], "adaptive");  // the default: on this host of two cells it scores as spread
  EXPECT_EQ(e["scoring"], "spread");
  EXPECT_EQ(e["pairs"].size(), 4u);  // 2 guest cells x 2 host cells
  ASSERT_EQ(e["rejections"].size(), 1u);
  EXPECT_EQ(e["rejections"][0]["guest_cell"], 0);
  EXPECT_EQ(e["rejections"][0]["host_cell"], 0);
  EXPECT_NE(e["rejections"][0]["reason"].get<std::string>().find("3072 MiB"), std::string::npos);
  expect_rejection_per_misfit(e);
  EXPECT_EQ(e["chosen"]["cells"][0]["host_cell"], 1);
  EXPECT_FALSE(e["verdict"].get<std::string>().empty());
}

TEST(ExplainCli, JsonExplanationOfARefusal) {
  // 80 GiB in two cells of 40 GiB: caps-2cell.xml's cells have 32 GiB each.
  const std::string big = std::filesystem::temp_directory_path() / ("numaplace-explain-big-" + std::to_string(getpid()) + ".xml");
  std::ofstream(big) << "<domain type='test'><name>big</name><memory unit='GiB'>80</memory><vcpu>8</vcpu>"
                        "<os><type arch='i686'>hvm</type></os><devices/></domain>";
  CliRun r = run("place " + big + " --capabilities " + shared_path("samples/libvirt/caps-2cell.xml") +
                 " --spec hw:numa_nodes=2 --explain --json");
  std::filesystem::remove(big);
  ASSERT_EQ(r.exit_code, 3) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["error"]["name"], "NoFit");
  const auto& e = doc["explanation"];
  EXPECT_TRUE(e["chosen"].is_null());
  EXPECT_EQ(e["rejections"].size(), 4u);  // neither guest cell fits either host cell
  expect_rejection_per_misfit(e);
  EXPECT_NE(e["verdict"].get<std::string>().find("nothing fits"), std::string::npos);
}

TEST(ExplainCli, TextExplanationGoesToStderrAndNamesTheRunnerUp) {
  CliRun r = run("place " + kExample + kTestHost + kWorkedSpecs + " --strategy spread --explain");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("<numatune>"), std::string::npos);
  EXPECT_NE(r.err.find("explain: strategy spread"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("host cell 0: cannot: needs 3072 MiB"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("chosen: guest cell 0 -> host cell 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("why: "), std::string::npos) << r.err;
}

TEST(ExplainCli, TextExplanationOfAGuestWithoutTopologyListsEveryResourcesHints) {
  const std::string caps = shared_path("samples/libvirt/caps-2cell.xml");
  CliRun r = run("place " + kExample + " --capabilities " + caps + " --explain");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("explain: no NUMA topology requested; the hints of the guest's resources, merged under "
                       "best-effort"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("  cpu: cells 0 (preferred), cells 1 (preferred)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("  memory: cells 0 (preferred)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("chosen: cells 0 (preferred), CPUs "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("why: NUMA nodes 0 is the narrowest, then closest, alignment"), std::string::npos) << r.err;
  CliRun none = run("place " + kExample + " --capabilities " + caps + " --policy none --explain");
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.err.find("chosen: cells"), std::string::npos) << none.err;  // nothing merged, nothing confined
}

TEST(ExplainCli, BadStrategyOptionsAreNamedErrors) {
  CliRun shape = run("place " + kExample + kTestHost + kWorkedSpecs + " --strategy ratio --ratio-shape 0:0,100:11");
  EXPECT_EQ(shape.exit_code, 1);
  EXPECT_NE(shape.err.find("InvalidScoringShape"), std::string::npos) << shape.err;
  CliRun weights = run("place " + kExample + kTestHost + kWorkedSpecs + " --ratio-weights gpu=1");
  EXPECT_EQ(weights.exit_code, 1);
  EXPECT_NE(weights.err.find("InvalidResourceWeights"), std::string::npos) << weights.err;
  // Flags that do not go together are a usage error, as every other contradiction of the command line.
  CliRun mixed = run("place " + kExample + kTestHost + kWorkedSpecs + " --strategy spread --pack");
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("UsageError: --pack is Nova's packing order"), std::string::npos) << mixed.err;
  CliRun policy = run("place " + kExample + kTestHost + " --policy bogus");
  EXPECT_EQ(policy.exit_code, 2);
  EXPECT_NE(policy.err.find("UsageError: --policy: bogus not in {none,best-effort,restricted,single-numa-node}"),
            std::string::npos) << policy.err;
  CliRun ratio = run("place " + kExample + kTestHost + kWorkedSpecs + " --strategy ratio --ratio-shape 0:10,100:0 --ratio-weights cpu=1,memory=3");
  EXPECT_EQ(ratio.exit_code, 0) << ratio.err;
  CliRun nova = run("place " + kExample + kTestHost + kWorkedSpecs + " --strategy nova --pack --explain");
  EXPECT_EQ(nova.exit_code, 0) << nova.err;
  EXPECT_NE(nova.err.find("fullest first"), std::string::npos) << nova.err;
}

}  // namespace
}  // namespace numaplace
