// SPDX-License-Identifier: LGPL-2.1-or-later
// Which host place and topology read without a host flag: this machine (its libvirt when it
// answers, else hwloc with the running guests of libvirt's status files), said on stderr; and
// --status-dir, which counts the guests of such a directory on any host.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "plugin/sources/host_json.h"
#include "support/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using numaplace::testing::CliRun;
using numaplace::testing::kExample;
using numaplace::testing::run;
using numaplace::testing::shared_path;

std::vector<nlohmann::json> cpus_per_cell(const std::string& topology_json) {
  std::vector<nlohmann::json> cpus;
  const nlohmann::json doc = nlohmann::json::parse(topology_json);  // kept: the loop walks into it
  for (const auto& cell : doc["cells"]) cpus.push_back(cell["cpus"]);
  return cpus;
}

// Whichever way this machine answers, the default is that way named on stderr, and the cells are
// the ones the explicit flag for it reads.
TEST(DefaultHost, WithoutAHostFlagTheHostIsThisMachineAndStderrSaysHowItWasRead) {
  CliRun defaulted = run("topology --json");
  ASSERT_EQ(defaulted.exit_code, 0) << defaulted.err;
  const bool libvirt = defaulted.err.find("numaplace: host: this machine's libvirt (qemu:///system") != std::string::npos;
  const bool hwloc = defaulted.err.find("numaplace: host: this machine through hwloc") != std::string::npos;
  ASSERT_TRUE(libvirt != hwloc) << defaulted.err;
  CliRun explicit_source = run(libvirt ? "topology --connect qemu:///system --json" : "topology --json --hwloc");
  ASSERT_EQ(explicit_source.exit_code, 0) << explicit_source.err;
  EXPECT_EQ(cpus_per_cell(defaulted.out), cpus_per_cell(explicit_source.out));
  EXPECT_EQ(explicit_source.err.find("numaplace: host:"), std::string::npos) << "a named host needs no note";
  // libvirt's fake test host is only ever read when asked for.
  EXPECT_EQ(defaulted.err.find("test:///default"), std::string::npos) << defaulted.err;
}

class StatusDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("numaplace-status-dir-" + std::to_string(getpid()));
    fs::create_directories(dir / "status");
  }
  void TearDown() override { fs::remove_all(dir); }

  std::string place_dedicated(const std::string& extra = {}) {
    CliRun placed = run("place " + kExample + " --capabilities " + caps +
                        " --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated" + extra);
    EXPECT_EQ(placed.exit_code, 0) << placed.err;
    return placed.out;
  }

  fs::path dir;
  const std::string caps = shared_path("samples/libvirt/caps-2cell.xml");
};

std::set<int> pins_of(const std::string& xml) {
  std::set<int> pins;
  const std::regex pin(R"re(<vcpupin vcpu="\d+" cpuset="(\d+)"/>)re");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), pin); it != std::sregex_iterator(); ++it) {
    pins.insert(std::stoi((*it)[1]));
  }
  return pins;
}

// A running guest recorded in the status directory holds its pCPUs: topology lists it, and the
// next dedicated guest gets other pCPUs than it holds.
TEST_F(StatusDir, RunningGuestsOfAStatusDirectoryHoldTheirPcpus) {
  const std::string first = place_dedicated();
  const std::set<int> first_pins = pins_of(first);
  ASSERT_EQ(first_pins.size(), 8u) << first;
  std::ofstream(dir / "status" / "first.xml") << "<domstatus state='running' pid='1'>\n" << first << "</domstatus>\n";

  CliRun topology = run("topology --capabilities " + caps + " --status-dir " + (dir / "status").string() + " --json");
  ASSERT_EQ(topology.exit_code, 0) << topology.err;
  const auto doc = nlohmann::json::parse(topology.out);
  ASSERT_EQ(doc["guests"].size(), 1u) << topology.out;
  EXPECT_EQ(doc["guests"][0]["name"], "numaplace-demo");
  EXPECT_EQ(doc["guests"][0]["running"], true);

  // The same guest under another name, so that it is not taken for the first one placed again.
  std::string second_domain = numaplace::testing::slurp(kExample);
  second_domain.replace(second_domain.find("numaplace-demo"), 14, "second-guest");
  std::ofstream(dir / "second.xml") << second_domain;
  CliRun second = run("place " + (dir / "second.xml").string() + " --capabilities " + caps + " --status-dir " +
                      (dir / "status").string() + " --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const std::set<int> second_pins = pins_of(second.out);
  ASSERT_EQ(second_pins.size(), 8u) << second.out;
  for (int pcpu : second_pins) EXPECT_EQ(first_pins.count(pcpu), 0u) << "pCPU " << pcpu << " handed out twice";

  CliRun missing = run("topology --capabilities " + caps + " --status-dir " + (dir / "nonexistent").string());
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
}

// A running guest whose status file cannot be read (cut short) or whose XML cannot be counted (a
// damaged numaplace record) holds pCPUs nobody can see: place refuses beside it, exit 4 and no
// XML; topology and audit only read, so they show the host with a warning.
TEST_F(StatusDir, PlaceRefusesBesideARunningGuestItCannotRead) {
  const std::string first = place_dedicated();
  const std::size_t pins = first.find(" pins=\"");
  ASSERT_NE(pins, std::string::npos) << first;
  std::string damaged = first;
  damaged.replace(pins, std::string(" pins=\"").size(), " pins=\"x");
  const std::vector<std::pair<std::string, std::string>> unreadable = {
      {"cut short", "<domstatus state='running' pid='1'>\n" + first.substr(0, first.size() / 2)},
      {"damaged record", "<domstatus state='running' pid='1'>\n" + damaged + "</domstatus>\n"},
  };
  std::string second_domain = numaplace::testing::slurp(kExample);
  second_domain.replace(second_domain.find("numaplace-demo"), 14, "second-guest");
  std::ofstream(dir / "second.xml") << second_domain;
  for (const auto& [what, text] : unreadable) {
    std::ofstream(dir / "status" / "first.xml", std::ios::trunc) << text;
    CliRun second = run("place " + (dir / "second.xml").string() + " --capabilities " + caps + " --status-dir " +
                        (dir / "status").string() + " --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated");
    EXPECT_EQ(second.exit_code, 4) << what << ": " << second.err;
    EXPECT_NE(second.err.find("RunningGuestsUnknown"), std::string::npos) << what << ": " << second.err;
    EXPECT_EQ(second.out, "") << what;
    CliRun topology = run("topology --capabilities " + caps + " --status-dir " + (dir / "status").string());
    EXPECT_EQ(topology.exit_code, 0) << what << ": " << topology.err;
    EXPECT_NE(topology.err.find("warning"), std::string::npos) << what << ": " << topology.err;
    // Its JSON says so, and a host read back from it is refused, not taken as free.
    CliRun json = run("topology --capabilities " + caps + " --status-dir " + (dir / "status").string() + " --json");
    ASSERT_EQ(json.exit_code, 0) << what << ": " << json.err;
    EXPECT_EQ(nlohmann::json::parse(json.out)["unread_running_guests"].size(), 1u) << what << ": " << json.out;
    auto again = numaplace::plugin::host_from_json_text(json.out);
    ASSERT_FALSE(again.ok()) << what;
    EXPECT_EQ(again.error().name, "RunningGuestsUnknown") << what << ": " << again.error().message;
  }
  // The status file of the guest being placed is not a guest beside it; a link to nothing in the
  // directory is no guest at all.
  fs::remove(dir / "status" / "first.xml");
  std::ofstream(dir / "status" / "second-guest.xml") << unreadable.front().second;  // cut short
  fs::create_symlink(dir / "nowhere.xml", dir / "status" / "dangling.xml");
  CliRun again = run("place " + (dir / "second.xml").string() + " --capabilities " + caps + " --status-dir " +
                     (dir / "status").string() + " --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  // A link that cannot be followed (here a loop) may be a running guest's status: not skipped.
  fs::create_symlink(dir / "status" / "loop.xml", dir / "status" / "loop.xml");
  CliRun looped = run("place " + (dir / "second.xml").string() + " --capabilities " + caps + " --status-dir " +
                      (dir / "status").string() + " --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated");
  EXPECT_EQ(looped.exit_code, 4) << looped.err;
  EXPECT_NE(looped.err.find("RunningGuestsUnknown"), std::string::npos) << looped.err;
  EXPECT_NE(looped.err.find("loop.xml"), std::string::npos) << looped.err;
}

}  // namespace
