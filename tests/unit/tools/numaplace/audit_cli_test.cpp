// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace audit on domain XML as numaplace and others write it: exit 0 when nothing is wrong,
// 6 with the findings listed (text and JSON) when something is.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "support/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using numaplace::testing::CliRun;
using numaplace::testing::kExample;
using numaplace::testing::run;
using numaplace::testing::shared_path;
using numaplace::testing::slurp;

class AuditCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("numaplace-audit-" + std::to_string(getpid()));
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  // The example guest renamed `name`, written to DIR/NAME.xml; placed dedicated on caps when `pinned`.
  std::string guest(const std::string& name, bool pinned) {
    std::string xml = slurp(kExample);
    xml.replace(xml.find("numaplace-demo"), 14, name);
    const std::string path = (dir / (name + ".xml")).string();
    std::ofstream(path) << xml;
    if (pinned) {
      CliRun placed = run("place " + path + " --capabilities " + caps +
                          " --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated -o " + path);
      EXPECT_EQ(placed.exit_code, 0) << placed.err;
    }
    return path;
  }

  fs::path dir;
  const std::string caps = shared_path("samples/libvirt/caps-2cell.xml");
};

TEST_F(AuditCli, GuestsPlacedAroundEachOtherAreClean) {
  const std::string first = guest("first", true);
  // The second is placed with the first as a claim, so it takes other pCPUs.
  const std::string second = (dir / "second.xml").string();
  std::string xml = slurp(kExample);
  xml.replace(xml.find("numaplace-demo"), 14, "second");
  std::ofstream(second) << xml;
  ASSERT_EQ(run("place " + second + " --capabilities " + caps + " --claim " + first +
                " --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated -o " + second)
                .exit_code,
            0);
  CliRun audit = run("audit --capabilities " + caps + " --claim " + first + " --claim " + second);
  EXPECT_EQ(audit.exit_code, 0) << audit.out << audit.err;
  EXPECT_NE(audit.out.find(": 2 guests, nothing found"), std::string::npos) << audit.out;
}

// A running guest whose status file cannot be read is not checked: the summary says how many were
// not read, and "nothing found" covers only the guests checked (text and JSON).
TEST_F(AuditCli, GuestsThatCouldNotBeReadAreCountedNotCalledClean) {
  const fs::path status = dir / "status";
  fs::create_directories(status);
  std::ofstream(status / "good.xml") << "<domstatus state='running'>" << slurp(guest("good", true)) << "</domstatus>";
  std::ofstream(status / "broken.xml") << "<domstatus state='running'><domain type='kvm'><name>broken</name>";
  CliRun audit = run("audit --capabilities " + caps + " --status-dir " + status.string());
  EXPECT_EQ(audit.exit_code, 0) << audit.out << audit.err;
  EXPECT_NE(audit.out.find(": 1 guest checked, 1 not read (warnings above), nothing found among those checked"),
            std::string::npos) << audit.out;
  EXPECT_NE(audit.err.find("claims not counted"), std::string::npos) << audit.err;
  CliRun json = run("audit --capabilities " + caps + " --status-dir " + status.string() + " --json");
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["guests"], 1);
  EXPECT_EQ(doc["unread"], 1);
  fs::remove(status / "broken.xml");
  CliRun clean = run("audit --capabilities " + caps + " --status-dir " + status.string());
  EXPECT_NE(clean.out.find(": 1 guest, nothing found\n"), std::string::npos) << clean.out;
}

// Two guests pinned alike (placed without knowing of each other) and one floating over every
// pCPU: PcpuHeldTwice names both, FloatsOverHeldPcpu the floating one against each holder.
TEST_F(AuditCli, PinsHeldTwiceAndFloatingThreadsAreFindingsWithRemedies) {
  const std::string a = guest("alpha", true), b = guest("beta", true), floating = guest("floater", false);
  CliRun text = run("audit --capabilities " + caps + " --claim " + a + " --claim " + b + " --claim " + floating);
  EXPECT_EQ(text.exit_code, 6) << text.out << text.err;
  EXPECT_NE(text.out.find("3 guests, 3 findings"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("PcpuHeldTwice: pCPUs "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("held by 'alpha' and 'beta' at once"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  remedy: "), std::string::npos) << text.out;

  CliRun json = run("audit --capabilities " + caps + " --claim " + a + " --claim " + b + " --claim " + floating +
                    " --json");
  EXPECT_EQ(json.exit_code, 6) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["guests"], 3);
  std::multiset<std::string> kinds;
  for (const auto& f : doc["findings"]) {
    kinds.insert(f["kind"].get<std::string>());
    EXPECT_FALSE(f["remedy"].get<std::string>().empty());
    if (f["kind"] == "FloatsOverHeldPcpu") {
      EXPECT_EQ(f["guests"][0], "floater") << f.dump();
    }
  }
  EXPECT_EQ(kinds, (std::multiset<std::string>{"PcpuHeldTwice", "FloatsOverHeldPcpu", "FloatsOverHeldPcpu"}));
}

TEST_F(AuditCli, MemoryBoundAwayFromTheVcpusIsAFinding) {
  std::string xml = slurp(guest("remote", true));
  // Its memory moved to the other cell by hand, as an operator's edit might.
  for (auto at = xml.find("nodeset=\"0\""); at != std::string::npos; at = xml.find("nodeset=\"0\"", at)) {
    xml.replace(at, 11, "nodeset=\"1\"");
  }
  std::ofstream(dir / "remote.xml") << xml;
  CliRun json = run("audit --capabilities " + caps + " --claim " + (dir / "remote.xml").string() + " --json");
  EXPECT_EQ(json.exit_code, 6) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  ASSERT_EQ(doc["findings"].size(), 1u) << json.out;
  EXPECT_EQ(doc["findings"][0]["kind"], "VcpusAwayFromMemory");
  EXPECT_EQ(doc["findings"][0]["guests"][0], "remote");
}

}  // namespace

namespace {

// On a real host (capabilities: Exclusive accounting) small-page memory bound strictly to a cell
// comes from its small pages: caps-2cell's cell 0 has 32 GiB, 6 GiB of them in huge page pools, so
// 30 GiB bound there is a finding (place refuses such a cell); 20 GiB is not.
TEST_F(AuditCli, SmallPageMemoryBeyondACellsSmallPagesIsAFinding) {
  for (const auto& [gib, found] : {std::pair{30, true}, std::pair{20, false}}) {
    std::string xml = slurp(kExample);
    xml.replace(xml.find("<memory unit='GiB'>4</memory>"), 29,
                "<memory unit='GiB'>" + std::to_string(gib) + "</memory><numatune><memory mode='strict' nodeset='0'/></numatune>");
    const std::string path = (dir / "big.xml").string();
    std::ofstream(path) << xml;
    CliRun audit = run("audit --capabilities " + caps + " --claim " + path);
    EXPECT_EQ(audit.exit_code, found ? 6 : 0) << gib << " GiB: " << audit.out << audit.err;
    EXPECT_EQ(audit.out.find("which has 26624 MiB of small pages in all") != std::string::npos, found)
        << gib << " GiB: " << audit.out;
  }
}

}  // namespace
