// SPDX-License-Identifier: LGPL-2.1-or-later
// Runs the real numaplace binary as a user would and checks exit codes,
// stdout, stderr and that nothing partial is ever written.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <chrono>
#include <future>
#include <memory>
#include <thread>
#include <cctype>
#include <fstream>
#include <sstream>

#include "support/cli_runner.h"
#include "plugin/sources/host_json.h"
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

TEST(Cli, PlacesTheWorkedExampleOnTheEmbeddedTestHost) {
  CliRun r = run("place " + kExample + kTestHost + kWorkedSpecs);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("<memnode cellid=\"0\" mode=\"strict\" nodeset=\"1\"/>"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<memnode cellid=\"1\" mode=\"strict\" nodeset=\"0\"/>"), std::string::npos);
}

TEST(Cli, RefusesTheWorkedExampleOnAOneCellHost) {
  CliRun r = run("place " + kExample + " --capabilities " + shared_path("samples/libvirt/caps-1cell.xml") + kWorkedSpecs);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("NoFit"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("host has only 1"), std::string::npos) << r.err;
}

TEST(Cli, JsonOutputCarriesPlacementAndXml) {
  CliRun r = run("place " + kExample + kTestHost + kWorkedSpecs + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["placement"]["cells"].size(), 2u);
  EXPECT_EQ(doc["placement"]["cells"][0]["host_cell"], 1);
  EXPECT_NE(doc["xml"].get<std::string>().find("<numatune>"), std::string::npos);
}

TEST(Cli, JsonErrorsAreJsonToo) {
  CliRun r = run("place " + kExample + kTestHost + " --json --spec hw:numa_nodes=two");
  EXPECT_EQ(r.exit_code, 1);
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["error"]["name"], "InvalidNUMANodesNumber");
}

// The example a malformed pair's error gives is in the flag's own form: flavor keys hw:..., image
// properties hw_...; the image example placed as given must take effect (two guest cells).
TEST(Cli, AMalformedPairsExampleIsInTheFlagsOwnForm) {
  for (const std::string flag : {"--spec", "--image-prop"}) {
    CliRun bad = run("place " + kExample + kTestHost + " " + flag + " numa");
    ASSERT_EQ(bad.exit_code, 1) << bad.err;
    const std::string marker = "for example " + flag + " ";
    const auto at = bad.err.find(marker);
    ASSERT_NE(at, std::string::npos) << bad.err;
    const std::string example = bad.err.substr(at + marker.size(), bad.err.find_first_of(" \n", at + marker.size()) - at - marker.size());
    EXPECT_EQ(example.rfind(flag == "--spec" ? "hw:" : "hw_", 0), 0u) << example;
    CliRun good = run("place " + kExample + kTestHost + " " + flag + " " + example + " --json");
    ASSERT_EQ(good.exit_code, 0) << good.err;
    EXPECT_EQ(nlohmann::json::parse(good.out)["placement"]["cells"].size(), 2u) << example;
  }
}

// Each class of bad input: a named error, a non-zero exit, and no output at all.
TEST(Cli, BadInputGetsANamedErrorAndNoPartialOutput) {
  const std::string dir = std::filesystem::temp_directory_path() / ("numaplace-cli-bad-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
    return dir + "/" + name;
  };
  const std::string malformed = write("malformed.xml", "<domain type='test'><vcpu>2</vcpu>");
  const std::string xxe = write("xxe.xml",
                                "<?xml version='1.0'?><!DOCTYPE d [<!ENTITY x SYSTEM 'file:///etc/passwd'>]>"
                                "<domain type='test'><name>&x;</name><vcpu>2</vcpu><memory>1024</memory></domain>");
  const std::string negative = write("negative.xml", "<domain type='test'><name>g</name><vcpu>2</vcpu><memory>-1</memory></domain>");
  const std::string huge = write("huge.xml",
                                 "<domain type='test'><name>g</name><vcpu>2</vcpu><memory unit='EiB'>18446744073709551615</memory></domain>");
  struct Case {
    std::string args;
    int exit_code;
    const char* name;
  } cases[] = {
      {"place " + malformed + kTestHost + " --spec hw:numa_nodes=1", 1, "XmlMalformed"},
      {"place " + xxe + kTestHost + " --spec hw:numa_nodes=1", 1, "XmlForbiddenConstruct"},
      {"place " + negative + kTestHost + " --spec hw:numa_nodes=1", 1, "InvalidMemorySize"},
      {"place " + huge + kTestHost + " --spec hw:numa_nodes=1", 1, "InvalidMemorySize"},
      {"place " + kExample + kTestHost + " --spec hw:numa_nodes=2 --spec hw:numa_cpus.0=0-4294967295 --spec hw:numa_cpus.1=1"
                             " --spec hw:numa_mem.0=2048 --spec hw:numa_mem.1=2048", 1, "Invalid"},
      {"place " + kExample + kTestHost + " --spec hw:numa_nodes=2 --spec hw:numa_cpus.0=0-3 --spec hw:numa_cpus.1=4-7"
                             " --spec hw:numa_mem.0=-2048 --spec hw:numa_mem.1=6144", 1, "ImageNUMATopologyMemoryOutOfRange"},
      {"place " + kExample + kTestHost + " --spec hw:numa_nodse=2", 1, "UnknownSpecKey"},
      {"place " + kExample + kTestHost + " --spec hw:numa_nodes=2 --image-prop hw_numa_nodes=2", 1, "ImageNUMATopologyForbidden"},
      {"place " + kExample + kTestHost + " --spec hw:numa_nodes=3", 1, "ImageNUMATopologyAsymmetric"},
      {"place " + kExample + kTestHost + " --spec hw:numa_nodes", 1, "InvalidArgument"},
      {"place " + kExample + kTestHost + " --spec hw:numa_nodes=1 --spec hw:numa_nodes=2", 1, "InvalidArgument"},
      {"place " + kExample + " --capabilities " + malformed + " --spec hw:numa_nodes=1", 1, "XmlMalformed"},
      {"place " + kExample + " --capabilities " + kExample + " --spec hw:numa_nodes=1", 1, "NotCapabilities"},
      {"place " + kExample + " --connect test:///nonexistent/path.xml --spec hw:numa_nodes=1", 4, "HostUnavailable"},
      {"place " + dir + "/missing.xml" + kTestHost + " --spec hw:numa_nodes=1", 2, "CannotRead"},
  };
  const std::string out_file = dir + "/out.xml";
  for (const auto& c : cases) {
    std::ofstream(out_file) << "previous content";
    CliRun r = run(c.args + " -o " + out_file);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args;
    EXPECT_NE(r.err.find(std::string("numaplace: ") + c.name + ":"), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(slurp(out_file), "previous content") << c.args;
  }
  std::filesystem::remove_all(dir);
}

TEST(Cli, OutputFileIsWrittenWhole) {
  const std::string out_file = std::filesystem::temp_directory_path() / ("numaplace-out-" + std::to_string(getpid()) + ".xml");
  CliRun r = run("place " + kExample + kTestHost + kWorkedSpecs + " -o " + out_file);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  std::string written = slurp(out_file);
  EXPECT_NE(written.find("<numatune>"), std::string::npos);
  EXPECT_NE(written.find("</domain>"), std::string::npos);
  std::filesystem::remove(out_file);
}

// -o onto something that is not a regular file (a FIFO here; /dev/null alike) writes into it: the
// write-then-rename of a regular file would replace the FIFO (or the device) with a file.
TEST(Cli, OutputIntoAFifoLeavesTheFifo) {
  const std::string fifo = std::filesystem::temp_directory_path() / ("numaplace-fifo-" + std::to_string(getpid()));
  std::filesystem::remove(fifo);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // Read on a detached thread: were the FIFO replaced, its reader would wait forever.
  auto received = std::make_shared<std::promise<std::string>>();
  std::future<std::string> text = received->get_future();
  std::thread([received, fifo] { received->set_value(slurp(fifo)); }).detach();
  CliRun r = run("place " + kExample + kTestHost + kWorkedSpecs + " -o " + fifo);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(text.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "nothing was written into the FIFO";
  const std::string got = text.get();
  EXPECT_NE(got.find("</domain>"), std::string::npos) << got;
  EXPECT_TRUE(std::filesystem::is_fifo(fifo)) << "the FIFO was replaced";
  EXPECT_FALSE(std::filesystem::exists(fifo + ".numaplace-tmp"));
  std::filesystem::remove(fifo);
}

// -o through a symbolic link writes the file it names and keeps the link; a file replaced keeps
// its permissions.
TEST(Cli, OutputThroughASymlinkKeepsTheLinkAndPermissions) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("numaplace-link-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "real");
  const auto file = dir / "real" / "guest.xml";
  const auto link = dir / "guest.xml";
  { std::ofstream(file) << "old"; }
  std::filesystem::permissions(file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::filesystem::create_symlink(std::filesystem::path("real") / "guest.xml", link);
  CliRun r = run("place " + kExample + kTestHost + kWorkedSpecs + " -o " + link.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_symlink(link)) << "the link was replaced by a file";
  EXPECT_NE(slurp(file.string()).find("</domain>"), std::string::npos);
  EXPECT_EQ(std::filesystem::status(file).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  EXPECT_FALSE(std::filesystem::exists(dir / "real" / "guest.xml.numaplace-tmp"));
  // A dangling link (and a link to it): the file it names is made, each link kept.
  const auto dangling = dir / "new.xml", chained = dir / "chain.xml";
  std::filesystem::create_symlink(std::filesystem::path("real") / "new.xml", dangling);
  std::filesystem::create_symlink("new.xml", chained);
  CliRun made = run("place " + kExample + kTestHost + kWorkedSpecs + " -o " + chained.string());
  EXPECT_EQ(made.exit_code, 0) << made.err;
  EXPECT_TRUE(std::filesystem::is_symlink(dangling) && std::filesystem::is_symlink(chained));
  EXPECT_NE(slurp((dir / "real" / "new.xml").string()).find("</domain>"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// A record whose floating CPUs were edited by hand is kept for its host cells and pins, and the
// CPUs it is brought back to are said, in text and in JSON, not rewritten without a word.
TEST(Cli, AHandEditedRecordsFloatingCpusAreSaidWhenTheyAreRewritten) {
  const std::string dir = std::filesystem::temp_directory_path() / ("numaplace-edited-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string placed = dir + "/placed.xml", edited = dir + "/edited.xml";
  const std::string host = " --capabilities " + shared_path("samples/libvirt/caps-2cell.xml");
  ASSERT_EQ(run("place " + kExample + host + " --spec hw:numa_nodes=1 -o " + placed).exit_code, 0);
  std::string text = slurp(placed);
  const std::string recorded = "host-cpus=\"0-7,16-23\"";
  const auto at = text.find(recorded);
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, recorded.size(), "host-cpus=\"0-1\"");
  std::ofstream(edited) << text;
  CliRun again = run("place " + edited + host);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("kept its host cells and pins (guest cell 0 floats on 0-7,16-23, not the recorded 0-1)"),
            std::string::npos) << again.err;
  EXPECT_NE(again.out.find(recorded), std::string::npos) << again.out;
  CliRun json = run("place " + edited + host + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto replacement = nlohmann::json::parse(json.out)["replacement"];
  EXPECT_EQ(replacement["kind"], "kept");
  EXPECT_EQ(replacement["refreshed"], "guest cell 0 floats on 0-7,16-23, not the recorded 0-1");
  CliRun untouched = run("place " + placed + host + " --json");
  EXPECT_TRUE(nlohmann::json::parse(untouched.out)["replacement"]["refreshed"].is_null()) << untouched.out;
  std::filesystem::remove_all(dir);
}

// A --claim file of the guest being placed (its own <name> or <uuid>) does not count against it;
// the same guest under another name does.
TEST(Cli, AClaimFileOfTheGuestBeingPlacedIsNotCountedAgainstIt) {
  const std::string dir = std::filesystem::temp_directory_path() / ("numaplace-self-claim-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string placed = dir + "/placed.xml", other = dir + "/other.xml";
  const std::string host_and_specs = " --capabilities " + shared_path("samples/libvirt/caps-2cell.xml") +
                                     " --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated";
  ASSERT_EQ(run("place " + kExample + host_and_specs + " -o " + placed).exit_code, 0);
  std::string twin = slurp(placed);
  const auto name_at = twin.find("<name>");
  ASSERT_NE(name_at, std::string::npos);
  twin.replace(name_at, twin.find("</name>") - name_at, "<name>someone-else");
  if (const auto uuid_at = twin.find("<uuid>"); uuid_at != std::string::npos) {
    twin.erase(uuid_at, twin.find("</uuid>") + 7 - uuid_at);
  }
  std::ofstream(other) << twin;

  CliRun self = run("place " + placed + host_and_specs + " --claim " + placed + " --json");
  ASSERT_EQ(self.exit_code, 0) << self.err;
  EXPECT_EQ(nlohmann::json::parse(self.out)["replacement"]["kind"], "kept") << self.out;
  CliRun crowded = run("place " + placed + host_and_specs + " --claim " + other + " --json");
  ASSERT_EQ(crowded.exit_code, 0) << crowded.err;
  EXPECT_NE(nlohmann::json::parse(crowded.out)["replacement"]["kind"], "kept") << crowded.out;

  // By uuid alone, in either case (libvirt reads both): the twin under another name but with the
  // guest's uuid is the guest.
  const std::string uuid = "4dea22b3-1d52-d8f3-2516-782e98ab3fa0";
  std::string with_uuid = slurp(placed);
  with_uuid.insert(with_uuid.find("</name>") + 7, "<uuid>" + uuid + "</uuid>");
  const std::string placed_with_uuid = dir + "/placed-uuid.xml", same_uuid = dir + "/same-uuid.xml";
  std::ofstream(placed_with_uuid) << with_uuid;
  std::string upper = uuid;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string renamed = twin;
  renamed.insert(renamed.find("</name>") + 7, "<uuid>" + upper + "</uuid>");
  std::ofstream(same_uuid) << renamed;
  CliRun by_uuid = run("place " + placed_with_uuid + host_and_specs + " --claim " + same_uuid + " --json");
  ASSERT_EQ(by_uuid.exit_code, 0) << by_uuid.err;
  EXPECT_EQ(nlohmann::json::parse(by_uuid.out)["replacement"]["kind"], "kept") << by_uuid.out;
  std::filesystem::remove_all(dir);
}

// A directory of the test's own holding DIR/vm.xml: a test-driver domain `name` of `vcpus` vCPUs and
// 256 MiB without NUMA keys, for define on libvirt's test driver.
struct TestDomainDir {
  TestDomainDir(const std::string& tag, const std::string& name, int vcpus)
      : dir(std::filesystem::temp_directory_path() / ("numaplace-" + tag + "-" + std::to_string(getpid()))),
        vm(dir + "/vm.xml") {
    std::filesystem::create_directories(dir);
    std::ofstream(vm) << "<domain type='test'><name>" << name << "</name><memory unit='MiB'>256</memory><vcpu>"
                      << vcpus << "</vcpu><os><type arch='i686'>hvm</type></os><devices/></domain>";
  }
  ~TestDomainDir() { std::filesystem::remove_all(dir); }
  const std::string dir;
  const std::string vm;
};

// define on libvirt's test driver: a guest without NUMA keys says where it was confined.
TEST(Cli, DefineSaysWhereAGuestWithoutNumaKeysWasConfined) {
  const TestDomainDir test("define", "cli-floating", 1);
  const std::string& dir = test.dir;
  const std::string& vm = test.vm;
  const std::string env = "NUMAPLACE_LOCK_FILE=" + dir + "/lock";
  CliRun confined = run("define " + vm + " -c test:///default", env);
  ASSERT_EQ(confined.exit_code, 0) << confined.err;
  EXPECT_NE(confined.out.find("defined 'cli-floating' (no NUMA request: confined to host cells "), std::string::npos)
      << confined.out;
  CliRun json = run("define " + vm + " -c test:///default --json", env);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_TRUE(doc["placement"].is_null());
  EXPECT_FALSE(doc["confinement"]["cells"].empty()) << json.out;
  EXPECT_EQ(doc["replacement"]["kind"], "fresh");
  CliRun unconfined = run("define " + vm + " -c test:///default --policy none", env);
  ASSERT_EQ(unconfined.exit_code, 0) << unconfined.err;
  EXPECT_NE(unconfined.out.find("(no NUMA request: not confined)"), std::string::npos) << unconfined.out;
}

// define --dry-run: the XML that would be defined on stdout (a domain libvirt's schema takes), the
// outcome's line on stderr; --json says dry_run and carries the same XML.
TEST(Cli, DefineDryRunPrintsTheDomainItWouldDefine) {
  const TestDomainDir test("dry", "cli-dry", 2);
  const std::string& dir = test.dir;
  const std::string& vm = test.vm;
  const std::string env = "NUMAPLACE_LOCK_FILE=" + dir + "/lock";
  const std::string request = " -c test:///default --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated";
  CliRun dry = run("define " + vm + request + " --dry-run", env);
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_EQ(dry.out.rfind("<domain", 0), 0u) << dry.out;
  EXPECT_NE(dry.out.find("<vcpupin vcpu=\"1\""), std::string::npos) << dry.out;
  EXPECT_NE(dry.err.find("dry run: would define 'cli-dry': guest cell 0 -> host cell "), std::string::npos) << dry.err;
  EXPECT_NE(dry.err.find("would move off the pCPUs this guest holds (nothing moved)"), std::string::npos) << dry.err;
  std::ofstream(dir + "/would-be.xml") << dry.out;
  CliRun valid = testing::run_binary("virsh", "-c test:///default define --validate " + dir + "/would-be.xml");
  EXPECT_EQ(valid.exit_code, 0) << valid.err;
  CliRun json = run("define " + vm + request + " --dry-run --json", env);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["dry_run"], true);
  EXPECT_EQ(doc["domain_xml"], dry.out);
  EXPECT_FALSE(doc["narrowings"].empty());
}

// A lock path in a directory that does not exist is LockUnavailable (exit 4) with nothing made or
// written: a misspelt NUMAPLACE_LOCK_FILE would otherwise lock nothing another numaplace takes.
TEST(Cli, ALockInAMissingDirectoryIsRefusedNotMade) {
  const TestDomainDir test("lockdir", "cli-lock", 1);
  const std::string& dir = test.dir;
  const std::string& vm = test.vm;
  CliRun r = run("define " + vm + " -c test:///default", "NUMAPLACE_LOCK_FILE=" + dir + "/missing/lock");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("LockUnavailable: the host lock '" + dir + "/missing/lock' is in a directory that does not exist"),
            std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/missing"));
  CliRun taken = run("define " + vm + " -c test:///default", "NUMAPLACE_LOCK_FILE=" + dir + "/lock");
  EXPECT_EQ(taken.exit_code, 0) << taken.err;
}

TEST(Cli, TopologyPrintsATableAndJson) {
  CliRun table = run("topology --capabilities " + shared_path("samples/libvirt/caps-4cell.xml"));
  EXPECT_EQ(table.exit_code, 0);
  EXPECT_NE(table.out.find("4 NUMA cells"), std::string::npos);
  EXPECT_NE(table.out.find("10 12 21 21"), std::string::npos) << table.out;
  CliRun json = run("topology" + kTestHost + " --json");
  ASSERT_EQ(json.exit_code, 0);
  auto doc = nlohmann::json::parse(json.out);
  ASSERT_EQ(doc["cells"].size(), 2u);
  EXPECT_EQ(doc["cells"][1]["cpus"], nlohmann::json({8, 9, 10, 11, 12, 13, 14, 15}));
}

// One writer of a host: what topology --json prints of an idle host (nothing pinned, so empty CPU
// lists) is a host JSON that place and rank read back, and the library writes the same document.
TEST(Cli, TopologyJsonOfAnIdleHostIsReadBackByRankAndPlace) {
  CliRun topology = run("topology --capabilities " + shared_path("samples/libvirt/caps-4cell.xml") + " --json");
  ASSERT_EQ(topology.exit_code, 0) << topology.err;
  auto doc = nlohmann::json::parse(topology.out);
  EXPECT_EQ(doc["cells"][0]["usage"]["pinned_cpus"], nlohmann::json::array());
  doc.erase("guests");
  const std::string path = ::testing::TempDir() + "/idle-host.json";
  {
    std::ofstream out(path);
    out << doc.dump();
  }
  CliRun rank = run("rank --hosts " + path + " --vcpus 2 --memory 1024");
  EXPECT_EQ(rank.exit_code, 0) << rank.err << rank.out;
  auto back = plugin::host_from_json(doc);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(plugin::host_to_json(*back), doc);
}

// The installed numaplace carries only what places guests; the reference checks are numaplace-dev's.
TEST(Cli, DeveloperCommandsAreNumaplaceDevsNotTheInstalledTools) {
  for (const char* command : {"conformance nova-fit x.jsonl", "replay x.jsonl"}) {
    CliRun r = run(command);
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.out << r.err;
  }
  EXPECT_EQ(run("--help").out.find("replay"), std::string::npos);
  CliRun dev = testing::run_dev("--help");
  EXPECT_EQ(dev.exit_code, 0);
  EXPECT_NE(dev.out.find("conformance"), std::string::npos) << dev.out;
  EXPECT_NE(dev.out.find("replay"), std::string::npos) << dev.out;
}

TEST(Cli, ConformanceRunnerClosesWithTheCounts) {
  CliRun r = testing::run_dev("conformance nova-fit " + shared_path("conformance/nova/edge.jsonl"));
  EXPECT_NE(r.out.find(" passed, 0 failed, "), std::string::npos) << r.out;
  CliRun unknown = testing::run_dev("conformance no-such-suite " + shared_path("conformance/nova/edge.jsonl"));
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown suite"), std::string::npos);
}

// A malformed line is bad input (exit 1) for the developer commands that read JSON lines, each
// named by its own program on stderr; a vector file with nothing to check is named too.
TEST(Cli, MalformedDeveloperFilesAreBadInputNamedByTheirCommand) {
  const std::string bad = (std::filesystem::temp_directory_path() / ("numaplace-bad-" + std::to_string(getpid()) + ".jsonl")).string();
  std::ofstream(bad) << "\n";
  CliRun empty = testing::run_dev("conformance nova-fit " + bad);
  EXPECT_EQ(empty.exit_code, 1) << empty.err;
  EXPECT_NE(empty.err.find("numaplace-dev conformance: NoVectorsChecked: no vector of nova-fit was checked"),
            std::string::npos) << empty.err;
  std::ofstream(bad) << "{not json\n";
  CliRun vectors = testing::run_dev("conformance nova-fit " + bad);
  EXPECT_EQ(vectors.exit_code, 1) << vectors.err;
  EXPECT_EQ(vectors.err.rfind("numaplace-dev conformance: InvalidVector: " + bad + ":1 is not a JSON object", 0), 0u) << vectors.err;
  CliRun streams = testing::run_dev("replay " + bad);
  EXPECT_EQ(streams.exit_code, 1) << streams.err;
  EXPECT_EQ(streams.err.rfind("numaplace-dev replay: InvalidStream: " + bad + ":1 is not a JSON object", 0), 0u) << streams.err;
  CliRun fleet = testing::run_dev("fleet " + bad);
  EXPECT_EQ(fleet.exit_code, 1) << fleet.err;
  EXPECT_EQ(fleet.err.rfind("numaplace-dev fleet: InvalidFleet: ", 0), 0u) << fleet.err;
  std::filesystem::remove(bad);
}

// Every accepted request is applied (issue 20): realtime vCPUs, the CPU topology and locked
// memory reach the domain the CLI prints, and what cannot be applied is a named error.
TEST(Cli, RealtimeTopologyAndLockedMemoryReachThePrintedDomain) {
  CliRun r = run("place " + kExample + kTestHost +
                 " --spec hw:cpu_policy=dedicated --spec hw:cpu_realtime=yes --spec hw:cpu_realtime_mask=^0"
                 " --spec hw:numa_nodes=2 --spec hw:cpu_sockets=2 --spec hw:mem_page_size=small"
                 " --spec hw:locked_memory=true");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("<vcpusched vcpus=\"1-7\" scheduler=\"fifo\" priority=\"1\"/>"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<topology sockets=\"2\" dies=\"1\" cores=\"4\" threads=\"1\"/>"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<locked/>"), std::string::npos) << r.out;
  // The emulator is pinned to vCPU 0's pCPU alone.
  const auto pin = r.out.find("<vcpupin vcpu=\"0\" cpuset=\"");
  ASSERT_NE(pin, std::string::npos);
  const auto start = pin + std::string("<vcpupin vcpu=\"0\" cpuset=\"").size();
  const std::string pcpu = r.out.substr(start, r.out.find('"', start) - start);
  EXPECT_NE(r.out.find("<emulatorpin cpuset=\"" + pcpu + "\"/>"), std::string::npos) << r.out;
}

TEST(Cli, ATopologyOrLockWithoutWhatItNeedsIsANamedError) {
  CliRun sockets = run("place " + kExample + kTestHost + " --spec hw:cpu_sockets=3");
  EXPECT_EQ(sockets.exit_code, 1);
  EXPECT_TRUE(sockets.out.empty());
  EXPECT_NE(sockets.err.find("CpuTopologyUnsatisfiable"), std::string::npos) << sockets.err;
  CliRun cells = run("place " + kExample + kTestHost + " --json --spec hw:numa_nodes=2 --spec hw:cpu_max_sockets=1");
  EXPECT_EQ(cells.exit_code, 1);
  EXPECT_EQ(nlohmann::json::parse(cells.out)["error"]["name"], "CpuTopologyUnsatisfiable") << cells.out;
  CliRun limits = run("place " + kExample + kTestHost + " --spec hw:cpu_max_sockets=1 --image-prop hw_cpu_max_sockets=2");
  EXPECT_EQ(limits.exit_code, 1);
  EXPECT_NE(limits.err.find("ImageVCPULimitsRangeExceeded"), std::string::npos) << limits.err;
  CliRun locked = run("place " + kExample + kTestHost + " --spec hw:locked_memory=true");
  EXPECT_EQ(locked.exit_code, 1);
  EXPECT_NE(locked.err.find("LockMemoryForbidden"), std::string::npos) << locked.err;
}

// A memory-only guest cell (hw:numa_cpus.1 empty, as Nova accepts) comes out as libvirt accepts it.
TEST(Cli, AMemoryOnlyCellIsWrittenAsLibvirtAcceptsIt) {
  const std::string out_file =
      std::filesystem::temp_directory_path() / ("numaplace-memonly-" + std::to_string(getpid()) + ".xml");
  CliRun r = run("place " + kExample + kTestHost +
                 " --spec hw:numa_nodes=2 --spec hw:numa_cpus.0=0-7 --spec hw:numa_cpus.1="
                 " --spec hw:numa_mem.0=3072 --spec hw:numa_mem.1=1024 -o " + out_file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string written = slurp(out_file);
  EXPECT_NE(written.find("<cell id=\"1\" memory=\"1048576\" unit=\"KiB\""), std::string::npos) << written;
  EXPECT_EQ(std::system(("virt-xml-validate '" + out_file + "' domain >/dev/null 2>&1").c_str()), 0) << written;
  EXPECT_EQ(std::system(("virsh -q -c test:///default define --validate '" + out_file + "' >/dev/null 2>&1").c_str()), 0)
      << written;
  std::filesystem::remove(out_file);
}

TEST(Cli, HelpTeachesTheKeys) {
  CliRun r = run("place --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("hw:numa_cpus.I"), std::string::npos);
  EXPECT_NE(r.out.find("hw:cpu_sockets"), std::string::npos);
  EXPECT_NE(r.out.find("--capabilities"), std::string::npos);
}

}  // namespace
}  // namespace numaplace
