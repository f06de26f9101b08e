// SPDX-License-Identifier: LGPL-2.1-or-later
// `numaplace hook qemu ...` and `numaplace rank ...` run as libvirt and a scheduler would:
// the XML on stdin, the exit code and the output checked for every operation and for
// garbage; status directories built from placed guests.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "plugin/service/host_lock.h"
#include "support/cli_runner.h"
#include "support/test_paths.h"

namespace numaplace {
namespace {

namespace fs = std::filesystem;
using testing::cli_path;
using testing::CliRun;
using testing::slurp;
using testing::shared_path;
using testing::source_path;

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

struct HookCli : ::testing::Test {
  void SetUp() override {
    dir = fs::temp_directory_path() /
          ("numaplace-hook-test-" + std::to_string(getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir / "status");
  }
  void TearDown() override { fs::remove_all(dir); }

  // Runs the CLI with `input` on stdin and `env` before it.
  CliRun run(const std::string& args, const std::string& input = {}, const std::string& env = {}) {
    const fs::path in = dir / "stdin";
    write(in, input);
    // The hook takes the host lock for migrate and restore: a lock file of the test's own.
    return testing::run(args, "NUMAPLACE_LOCK_FILE=" + (dir / "host.lock").string() + " " + env, in.string());
  }

  std::string hook(const std::string& name, const std::string& op, const std::string& subop,
                   const std::string& options = {}) {
    return "hook qemu --capabilities " + caps + " --status-dir " + (dir / "status").string() +
           " --disabled-file " + (dir / "disabled").string() + " " + options + " -- " + name + " " + op + " " + subop +
           " -";
  }

  // A 16-vCPU dedicated guest placed on one cell of the 2 x 16 CPU host.
  std::string placed_guest(const std::string& name) {
    std::string domain = slurp(source_path("examples/guest-8vcpu-4g.xml"));
    domain.replace(domain.find("numaplace-demo"), 14, name);
    domain.replace(domain.find("<vcpu>8</vcpu>"), 14, "<vcpu>16</vcpu>");
    CliRun placed = run("place - --capabilities " + caps + " --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated", domain);
    EXPECT_EQ(placed.exit_code, 0) << placed.err;
    return placed.out;
  }

  void running(const std::string& name, const std::string& xml) {
    write(dir / "status" / (name + ".xml"), "<domstatus state='running' pid='1'>\n" + xml + "</domstatus>\n");
  }

  fs::path dir;
  const std::string caps = shared_path("samples/libvirt/caps-2cell.xml");
};

std::string pins_of(const std::string& xml) {
  std::string pins;
  for (std::size_t at = xml.find("<vcpupin"); at != std::string::npos; at = xml.find("<vcpupin", at + 1)) {
    pins += xml.substr(at, xml.find("/>", at) - at) + "\n";
  }
  return pins;
}

TEST_F(HookCli, OtherOperationsPassAtOnceWithoutOutput) {
  for (const char* op : {"start begin", "started begin", "stopped end", "release end", "reconnect begin",
                         "attach begin", "migrate end", "whatever else"}) {
    const std::string text(op);
    const auto space = text.find(' ');
    CliRun r = run(hook("vm", text.substr(0, space), text.substr(space + 1)), "garbage <<<");
    EXPECT_EQ(r.exit_code, 0) << op << ": " << r.err;
    EXPECT_EQ(r.out, "") << op;
  }
  CliRun other_driver = run("hook lxc -- vm migrate begin -", "garbage");
  EXPECT_EQ(other_driver.exit_code, 0);
  CliRun without_separator = run("hook qemu vm start begin -", "");
  EXPECT_EQ(without_separator.exit_code, 0) << without_separator.err;
  CliRun too_few = run("hook qemu -- vm", "");
  EXPECT_EQ(too_few.exit_code, 0);
}

TEST_F(HookCli, RestorePlacesAgainAroundRunningGuests) {
  const std::string guest = placed_guest("web-1");
  const std::string old_pins = pins_of(guest);
  ASSERT_FALSE(old_pins.empty());

  // Nothing else runs: the guest keeps its pins.
  CliRun same = run(hook("web-1", "restore", "begin"), guest);
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(pins_of(same.out), old_pins);

  // Another guest now holds those pCPUs: restore moves web-1 to the other cell.
  std::string thief = guest;
  thief.replace(thief.find("web-1"), 5, "thief");
  running("thief", thief);
  running("web-1", guest);  // its own stale status file never counts against it
  for (const char* op : {"restore", "migrate"}) {
    CliRun moved = run(hook("web-1", op, "begin"), guest);
    EXPECT_EQ(moved.exit_code, 0) << moved.err;
    EXPECT_NE(moved.out.find("<domain"), std::string::npos);
    EXPECT_FALSE(pins_of(moved.out).empty());
    EXPECT_NE(pins_of(moved.out), old_pins) << op;
  }

  // And a third guest of that size finds no room: refused with a reason.
  CliRun moved = run(hook("web-1", "restore", "begin"), guest);
  std::string second = moved.out;
  second.replace(second.find("web-1"), 5, "web-2");
  running("web-2", second);
  std::string third = guest;
  third.replace(third.find("web-1"), 5, "web-3");
  CliRun refused = run(hook("web-3", "restore", "begin"), third);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.out, "");
  EXPECT_NE(refused.err.find("refusing restore begin of guest 'web-3'"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("NoFit"), std::string::npos) << refused.err;
  // One line (libvirt shows it in its error), the fit's reasons joined.
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  EXPECT_NE(refused.err.find("; guest cell 0 on host cell"), std::string::npos) << refused.err;
}

// A status directory that does not exist would read as a host where nothing runs: the hook refuses
// the operations that place again (and lets the others pass), never hands out held pCPUs.
TEST_F(HookCli, AStatusDirectoryThatIsNotThereIsARefusalNotAnIdleHost) {
  const std::string guest = placed_guest("web-1");
  const std::string missing = (dir / "no-such-status").string();
  for (const char* op : {"restore", "migrate"}) {
    std::string command = hook("web-1", op, "begin");
    command.replace(command.find((dir / "status").string()), (dir / "status").string().size(), missing);
    CliRun r = run(command, guest);
    EXPECT_EQ(r.exit_code, 1) << op << ": " << r.err;
    EXPECT_EQ(r.out, "") << op;
    EXPECT_NE(r.err.find("CannotRead: the status directory of running guests '" + missing + "'"), std::string::npos)
        << r.err;
  }
  std::string passing = hook("web-1", "stopped", "end");
  passing.replace(passing.find((dir / "status").string()), (dir / "status").string().size(), missing);
  EXPECT_EQ(run(passing, guest).exit_code, 0);
}

// NUMAPLACE_HOOK_TIMEOUT that is no number of seconds from 1 to 3600 refuses the operations the
// hook judges, naming the variable (strtoul took "abc" as unset and "-5" as an hour); --timeout
// given on the command line wins over it, and operations the hook does not judge still pass.
TEST_F(HookCli, ABadHookTimeoutVariableIsARefusalNotTheDefault) {
  const std::string guest = placed_guest("web-1");
  for (const char* value : {"abc", "-5", "0", "3601", "10s"}) {
    CliRun r = run(hook("web-1", "restore", "begin"), guest, std::string("NUMAPLACE_HOOK_TIMEOUT=") + value);
    EXPECT_EQ(r.exit_code, 1) << value << ": " << r.err;
    EXPECT_EQ(r.out, "") << value;
    EXPECT_NE(r.err.find(std::string("InvalidArgument: NUMAPLACE_HOOK_TIMEOUT '") + value +
                         "' is not a whole number of seconds from 1 to 3600"),
              std::string::npos) << r.err;
  }
  EXPECT_EQ(run(hook("web-1", "restore", "begin", "--timeout 5"), guest, "NUMAPLACE_HOOK_TIMEOUT=abc").exit_code, 0);
  EXPECT_EQ(run(hook("web-1", "restore", "begin"), guest, "NUMAPLACE_HOOK_TIMEOUT=20").exit_code, 0);
  EXPECT_EQ(run(hook("web-1", "stopped", "end"), guest, "NUMAPLACE_HOOK_TIMEOUT=abc").exit_code, 0);
}

// The <cpu> element of a domain as written: the guest's NUMA cells, their vCPUs, memory and distances.
std::string cpu_of(const std::string& xml) {
  const auto from = xml.find("\n  <cpu>");
  const auto to = xml.find("\n  </cpu>");
  return from == std::string::npos || to == std::string::npos ? "" : xml.substr(from, to - from);
}

// libvirt refuses a migrated or restored guest whose view changed. On caps-4cell (cells 0-1 and 2-3
// at distance 12, the others at 21) a 2-cell guest placed on cells 0 and 1 is moved, by a guest
// pinned over cells 1 and 3, to cells 0 and 2 (distance 21): new pins and memory bindings, and
// everything the guest sees byte-identical, its distances of 12 included; stderr says so.
TEST_F(HookCli, MigrateAndRestoreChangeOnlyHostSideBindings) {
  const std::string caps4 = shared_path("samples/libvirt/caps-4cell.xml");
  std::string domain = slurp(source_path("examples/guest-8vcpu-4g.xml"));
  domain.replace(domain.find("numaplace-demo"), 14, "vm");
  CliRun placed = run("place - --capabilities " + caps4 + " --spec hw:numa_nodes=2 --spec hw:cpu_policy=dedicated", domain);
  ASSERT_EQ(placed.exit_code, 0) << placed.err;
  ASSERT_NE(placed.out.find("<memnode cellid=\"1\" mode=\"strict\" nodeset=\"1\"/>"), std::string::npos) << placed.out;
  std::string pins;
  const int hog_cpus[] = {4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31};  // cells 1 and 3
  for (int i = 0; i < 16; ++i) pins += "<vcpupin vcpu='" + std::to_string(i) + "' cpuset='" + std::to_string(hog_cpus[i]) + "'/>";
  running("hog", "<domain type='kvm'><name>hog</name><memory unit='MiB'>1024</memory><vcpu>16</vcpu><cputune>" + pins +
                     "</cputune><os><type arch='x86_64'>hvm</type></os></domain>");
  for (const char* op : {"migrate", "restore"}) {
    CliRun moved = run("hook qemu --capabilities " + caps4 + " --status-dir " + (dir / "status").string() +
                           " --disabled-file " + (dir / "disabled").string() + " -- vm " + op + " begin -",
                       placed.out);
    ASSERT_EQ(moved.exit_code, 0) << moved.err;
    EXPECT_NE(moved.out.find("<memnode cellid=\"1\" mode=\"strict\" nodeset=\"2\"/>"), std::string::npos) << moved.out;
    EXPECT_NE(pins_of(moved.out), pins_of(placed.out));
    ASSERT_FALSE(cpu_of(placed.out).empty());
    EXPECT_EQ(cpu_of(moved.out), cpu_of(placed.out)) << op;
    EXPECT_NE(cpu_of(moved.out).find("<sibling id=\"1\" value=\"12\"/>"), std::string::npos);
    EXPECT_NE(moved.err.find("the guest keeps the distances it had"), std::string::npos) << moved.err;
    // Everything but the host-side bindings and numaplace's record is the XML libvirt passed.
    for (const char* part : {"\n  <memory", "\n  <os>", "\n  <devices"}) {
      const auto at = placed.out.find(part);
      ASSERT_NE(at, std::string::npos) << part;
      const std::string line = placed.out.substr(at, placed.out.find('\n', at + 1) - at);
      EXPECT_NE(moved.out.find(line), std::string::npos) << line;
    }
  }
}

// migrate and restore hand out pCPUs, so the hook takes the host lock define and start take, within
// its time limit; a start of this very guest holds it on the hook's behalf (libvirt runs the hook
// inside virDomainCreate when the guest has a managed save image).
TEST_F(HookCli, MigrateAndRestoreTakeTheHostLock) {
  const std::string guest = placed_guest("web-1");
  const std::string lock_file = (dir / "host.lock").string();
  {
    auto held = plugin::HostLock::acquire(lock_file, 5, "define other-guest");
    ASSERT_TRUE(held.ok()) << held.error().message;
    const auto start = std::chrono::steady_clock::now();
    CliRun waited = run(hook("web-1", "restore", "begin", "--timeout 1"), guest);
    EXPECT_EQ(waited.exit_code, 1) << waited.err;
    EXPECT_EQ(waited.out, "");
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(900));
    // prepare begin only checks, and runs while start holds the lock: it never waits for it.
    CliRun prepare = run(hook("web-1", "prepare", "begin", "--timeout 1"), guest);
    EXPECT_EQ(prepare.exit_code, 0) << prepare.err;
  }
  {
    auto held = plugin::HostLock::acquire(lock_file, 5, "start web-1");
    ASSERT_TRUE(held.ok()) << held.error().message;
    CliRun inside = run(hook("web-1", "restore", "begin", "--timeout 5"), guest);
    EXPECT_EQ(inside.exit_code, 0) << inside.err;
    EXPECT_NE(inside.out.find("<domain"), std::string::npos);
    CliRun other = run(hook("web-2", "restore", "begin", "--timeout 1"), guest);
    EXPECT_EQ(other.exit_code, 1) << "the lock held for web-1's start is not web-2's";
  }
  CliRun free_lock = run(hook("web-1", "restore", "begin"), guest);
  EXPECT_EQ(free_lock.exit_code, 0) << free_lock.err;
}

TEST_F(HookCli, GuestsNumaplaceDidNotPlacePassUnchanged) {
  CliRun r = run(hook("plain", "restore", "begin"), slurp(source_path("examples/guest-8vcpu-4g.xml")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(HookCli, PrepareRefusesCollidingPins) {
  const std::string guest = placed_guest("db-1");
  CliRun alone = run(hook("db-1", "prepare", "begin"), guest);
  EXPECT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(alone.out, "");

  std::string holder = guest;
  holder.replace(holder.find("db-1"), 4, "db-0");
  running("db-0", holder);
  CliRun clash = run(hook("db-1", "prepare", "begin"), guest);
  EXPECT_EQ(clash.exit_code, 1);
  EXPECT_EQ(clash.out, "");
  EXPECT_NE(clash.err.find("PinningCollision"), std::string::npos) << clash.err;
  EXPECT_NE(clash.err.find("held by 'db-0'"), std::string::npos) << clash.err;

  // A guest without pins never collides.
  CliRun floating = run(hook("plain", "prepare", "begin"), slurp(source_path("examples/guest-8vcpu-4g.xml")));
  EXPECT_EQ(floating.exit_code, 0) << floating.err;
}

TEST_F(HookCli, GarbageIsARefusalNeverACrash) {
  const std::string inputs[] = {"", "garbage", "<domain", "<domain/>", "<capabilities/>",
                                "<!DOCTYPE d [<!ENTITY x 'y'>]><domain/>", std::string(100000, '<'),
                                "<domain><name>x</name><vcpu>0</vcpu><memory>1</memory></domain>",
                                "<domain><name>x</name><vcpu>4294967295</vcpu><memory>99999999999999999999</memory></domain>"};
  for (const auto& input : inputs) {
    for (const char* op : {"restore", "migrate", "prepare"}) {
      CliRun r = run(hook("vm", op, "begin"), input);
      EXPECT_EQ(r.exit_code, 1) << op << " on " << input.substr(0, 60) << ": " << r.err;
      EXPECT_EQ(r.out, "");
      EXPECT_NE(r.err.find("numaplace hook: refusing"), std::string::npos) << r.err;
    }
  }
}

// A running guest the hook cannot count holds pCPUs it cannot see: a status file that is not XML
// refuses a numaplace guest's restore, migrate and start (prepare) rather than handing its pCPUs out
// again; a guest numaplace did not place, pinned by hand, passes prepare with a warning (the hook
// blocks it only for a collision). A running guest pinned to a CPU the host no longer has (offline:
// SMT turned off) is counted within the host, and said: it blocks nothing.
TEST_F(HookCli, ARunningGuestTheHookCannotCountIsARefusalNotAnIdleHost) {
  const std::string guest = placed_guest("db-1");
  std::string hand_pinned = slurp(source_path("examples/guest-8vcpu-4g.xml"));
  hand_pinned.replace(hand_pinned.find("</vcpu>"), 7, "</vcpu><cputune><vcpupin vcpu='0' cpuset='40'/></cputune>");
  running("broken", "<domain");
  for (const char* op : {"restore", "migrate", "prepare"}) {
    CliRun r = run(hook("db-1", op, "begin"), guest);
    EXPECT_EQ(r.exit_code, 1) << op << ": " << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("RunningGuestsUnknown"), std::string::npos) << op << ": " << r.err;
  }
  CliRun by_hand = run(hook("hand", "prepare", "begin"), hand_pinned);
  EXPECT_EQ(by_hand.exit_code, 0) << by_hand.err;
  EXPECT_NE(by_hand.err.find("passed without a check of its pins"), std::string::npos) << by_hand.err;

  // The unreadable status file of the guest being restored is not a guest beside it.
  fs::rename(dir / "status" / "broken.xml", dir / "status" / "db-1.xml");
  CliRun own = run(hook("db-1", "restore", "begin"), guest);
  EXPECT_EQ(own.exit_code, 0) << own.err;
  fs::remove(dir / "status" / "db-1.xml");
  // Running on host cell 1, its vCPU 0 pinned to pCPU 40 of a 32-CPU host: counted on cell 1.
  std::string offline = hand_pinned;
  offline.replace(offline.find("numaplace-demo"), 14, "db-0");
  offline.replace(offline.find("<vcpu>8</vcpu>"), 14, "<vcpu cpuset='8-15,24-31,40'>8</vcpu>");
  running("db-0", offline);
  for (const char* op : {"restore", "migrate", "prepare"}) {
    CliRun r = run(hook("db-1", op, "begin"), guest);
    EXPECT_EQ(r.exit_code, 0) << op << ": " << r.err;
    EXPECT_NE(r.err.find("names pCPU 40, which this host does not have (offline?); counted without it"),
              std::string::npos)
        << op << ": " << r.err;
  }
}

TEST_F(HookCli, OperatorSwitchAndTimeLimit) {
  write(dir / "disabled", "");
  CliRun off = run(hook("vm", "restore", "begin"), "garbage");
  EXPECT_EQ(off.exit_code, 0);
  EXPECT_EQ(off.out, "");
  fs::remove(dir / "disabled");
  CliRun env_off = run(hook("vm", "restore", "begin"), "garbage", "NUMAPLACE_HOOK_DISABLED=1");
  EXPECT_EQ(env_off.exit_code, 0);

  // stdin that never ends: the time limit refuses the operation.
  const auto start = std::chrono::steady_clock::now();
  const std::string command = "sleep 3 | " + cli_path() + " " + hook("vm", "restore", "begin", "--timeout 1") +
                              " 2>" + (dir / "err").string();
  const int status = std::system(command.c_str());
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(slurp(dir / "err").find("timed out"), std::string::npos);
  EXPECT_GE(seconds, 0.9);
}

TEST_F(HookCli, TheTimeLimitAlsoEndsAStalledHwlocRead) {
  // An hwloc export that never arrives (a FIFO nobody writes): hwloc is read in a child process,
  // which must end with the hook and hold none of its output, since libvirtd reads the hook's
  // output to its end. `timeout 60` only keeps a regression from hanging the test.
  const fs::path fifo = dir / "topology.xml";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  write(dir / "in.xml", placed_guest("vm"));
  const auto start = std::chrono::steady_clock::now();
  const std::string command = "timeout 60 sh -c '" + cli_path() + " hook qemu --hwloc " + fifo.string() +
                              " --status-dir " + (dir / "status").string() + " --disabled-file " +
                              (dir / "disabled").string() + " --timeout 1 -- vm restore begin - < " +
                              (dir / "in.xml").string() + " 2>" + (dir / "err").string() + " | cat >/dev/null'";
  const int status = std::system(command.c_str());
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(WEXITSTATUS(status), 0);  // cat's status; the hook's own refusal is in err
  EXPECT_NE(slurp(dir / "err").find("timed out"), std::string::npos) << slurp(dir / "err");
  EXPECT_LT(seconds, 20.0);
}

// rank chooses each host's cells with place's strategy flags and default, and scores the hosts by
// the strategy's counterpart unless --host-strategy says otherwise.
TEST_F(HookCli, RankUsesPlacesCellStrategyAndFlags) {
  const fs::path hosts = dir / "hosts.json";
  // One 4-cell host whose cell 2 is fuller: pack (adaptive on 4 cells) fills it, Nova's order and
  // spread take the emptiest first.
  write(hosts, R"([{"name": "h", "cells": [
    {"id": 0, "cpus": "0-7", "memory_mib": 16384}, {"id": 1, "cpus": "8-15", "memory_mib": 16384},
    {"id": 2, "cpus": "16-23", "memory_mib": 16384, "usage": {"memory_mib": 10240}},
    {"id": 3, "cpus": "24-31", "memory_mib": 16384}]}])");
  const std::string request = "rank --hosts " + hosts.string() + " --vcpus 4 --memory 4096 --spec hw:numa_nodes=1 --json";
  const auto host_cell = [](const nlohmann::json& doc) { return doc["ranked"][0]["placement"]["cells"][0]["host_cell"]; };
  const struct {
    std::string flags;
    std::string strategy;
    std::string host_strategy;
    int host_cell;
  } cases[] = {{"", "adaptive", "LeastAllocated", 2},
               {" --strategy nova", "nova", "LeastAllocated", 0},
               {" --strategy pack", "pack", "MostAllocated", 2},
               {" --strategy spread --host-strategy MostAllocated", "spread", "MostAllocated", 0},
               {" --strategy MostAllocated", "adaptive", "MostAllocated", 2},
               {" --strategy ratio --ratio-shape 0:10,100:0", "ratio", "RequestedToCapacityRatio", 0},
               {" --strategy ratio --shape 0:0,100:10 --ratio-weights cpu=0,memory=1", "ratio",
                "RequestedToCapacityRatio", 2},
               {" --pack-cells", "nova", "LeastAllocated", 2}};
  for (const auto& c : cases) {
    CliRun out = run(request + c.flags);
    ASSERT_EQ(out.exit_code, 0) << c.flags << ": " << out.err;
    const auto doc = nlohmann::json::parse(out.out);
    EXPECT_EQ(doc["strategy"], c.strategy) << c.flags;
    EXPECT_EQ(doc["host_strategy"], c.host_strategy) << c.flags;
    EXPECT_EQ(host_cell(doc), c.host_cell) << c.flags;
  }
  // An old name beside its new one is a usage error, and the help lists no empty "Excludes:".
  for (const std::string flags : {" --strategy ratio --shape 0:0,100:10 --ratio-shape 0:0,100:10", " --pack-cells --pack"}) {
    CliRun out = run(request + flags);
    EXPECT_EQ(out.exit_code, 2) << flags << ": " << out.out;
    // With --json a usage error is the JSON error on stdout.
    const bool named = out.out.find("--pack-cells excludes --pack") != std::string::npos ||
                       out.out.find("--shape excludes --ratio-shape") != std::string::npos;
    EXPECT_TRUE(named) << flags << ": " << out.out;
  }
  CliRun help = run("rank --help");
  EXPECT_EQ(help.exit_code, 0);
  for (std::size_t at = help.out.find("Excludes:"); at != std::string::npos; at = help.out.find("Excludes:", at + 1)) {
    const std::size_t line_end = help.out.find('\n', at);
    EXPECT_NE(help.out.substr(at, line_end - at).find("--"), std::string::npos) << help.out.substr(at, line_end - at);
  }
  // A shape with nothing scored by ratio, and --pack beside a scored strategy, are refused as by place.
  for (const std::string flags : {" --ratio-shape 0:0,100:10", " --pack --strategy spread"}) {
    CliRun out = run(request + flags);
    EXPECT_EQ(out.exit_code, 2) << flags;
    EXPECT_EQ(nlohmann::json::parse(out.out)["error"]["name"], "UsageError") << flags << ": " << out.out;
    EXPECT_EQ(out.out.find("ranked"), std::string::npos) << flags;
  }
}

TEST_F(HookCli, RankOrdersHostsAndExplainsRefusals) {
  const std::string hosts = (dir / "hosts").string();
  fs::create_directories(hosts);
  fs::copy_file(shared_path("samples/libvirt/caps-1cell.xml"), dir / "hosts" / "a-one-cell.xml");
  fs::copy_file(shared_path("samples/libvirt/caps-2cell.xml"), dir / "hosts" / "b-two-cells.xml");
  write(dir / "hosts" / "c-json.json", R"([
    {"name": "busy", "cells": [{"id": 0, "cpus": "0-7", "memory_mib": 16384, "usage": {"pinned_cpus": "0-5", "memory_mib": 12000}},
                               {"id": 1, "cpus": "8-15", "memory_mib": 16384, "usage": {"pinned_cpus": "8-13", "memory_mib": 12000}}]},
    {"name": "idle", "cells": [{"id": 0, "cpus": "0-7", "memory_mib": 16384}, {"id": 1, "cpus": "8-15", "memory_mib": 16384}]}])");
  const std::string request = "rank --hosts " + hosts + " --vcpus 8 --memory 4096 --spec hw:numa_nodes=2";
  CliRun text = run(request + " --explain");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("1 of 4 hosts refused:"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("a-one-cell: the guest asks for 2 NUMA cells"), std::string::npos) << text.out;
  CliRun json = run(request + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["fitting"], 3);
  EXPECT_EQ(doc["ranked"][0]["host"], "b-two-cells");  // 32 CPUs and 64 GiB: the emptiest after the guest
  EXPECT_EQ(doc["ranked"][1]["host"], "idle");
  EXPECT_EQ(doc["ranked"][2]["host"], "busy");
  EXPECT_GT(doc["ranked"][1]["score"], doc["ranked"][2]["score"]);
  EXPECT_EQ(doc["refused"][0]["host"], "a-one-cell");
  CliRun pack = run(request + " --strategy MostAllocated --json");
  EXPECT_EQ(nlohmann::json::parse(pack.out)["ranked"][0]["host"], "busy");

  // --explain in JSON: every refused pair as a value, beside the one-sentence reason.
  CliRun explained = run(request + " --json --explain");
  ASSERT_EQ(explained.exit_code, 0) << explained.err;
  const auto refusal = nlohmann::json::parse(explained.out)["refused"][0];
  EXPECT_EQ(refusal["reason"].get<std::string>().find('\n'), std::string::npos) << refusal;
  EXPECT_TRUE(refusal["cells"].is_array()) << refusal;
  EXPECT_FALSE(doc["refused"][0].contains("cells"));  // not asked for

  // No host fits: nothing on stdout, NoFit on stderr (with the refusals under --explain), exit 3;
  // in JSON the whole answer with the error beside it.
  write(dir / "busy.json", R"({"name": "busy", "cells": [
      {"id": 0, "cpus": "0-7", "memory_mib": 16384, "usage": {"pinned_cpus": "0-5", "memory_mib": 12000}},
      {"id": 1, "cpus": "8-15", "memory_mib": 16384, "usage": {"pinned_cpus": "8-13", "memory_mib": 12000}}]})");
  const std::string none_fits = "rank --hosts " + shared_path("samples/libvirt/caps-1cell.xml") + " --hosts " +
                                (dir / "busy.json").string() +
                                " --vcpus 8 --memory 4096 --spec hw:numa_nodes=2 --spec hw:cpu_policy=dedicated"
                                " --spec hw:numa_mem.0=2048 --spec hw:numa_mem.1=2048 --spec hw:numa_cpus.0=0-3"
                                " --spec hw:numa_cpus.1=4-7";
  CliRun none = run(none_fits);
  EXPECT_EQ(none.exit_code, 3);
  EXPECT_TRUE(none.out.empty()) << none.out;
  EXPECT_NE(none.err.find("NoFit: none of the 2 hosts given can take the guest (--explain says why)"),
            std::string::npos)
      << none.err;
  CliRun none_why = run(none_fits + " --explain");
  EXPECT_EQ(none_why.exit_code, 3);
  EXPECT_TRUE(none_why.out.empty()) << none_why.out;
  EXPECT_NE(none_why.err.find("caps-1cell: the guest asks for 2 NUMA cells"), std::string::npos) << none_why.err;
  EXPECT_NE(none_why.err.find("    guest cell 0 on host cell 0: needs 4 dedicated vCPUs"), std::string::npos)
      << none_why.err;
  CliRun none_json = run(none_fits + " --json --explain");
  EXPECT_EQ(none_json.exit_code, 3);
  const auto none_doc = nlohmann::json::parse(none_json.out);
  EXPECT_EQ(none_doc["error"]["name"], "NoFit");
  EXPECT_EQ(none_doc["fitting"], 0);
  EXPECT_EQ(none_doc["refused"].size(), 2u);
  EXPECT_EQ(none_doc["refused"][1]["host"], "busy");
  EXPECT_FALSE(none_doc["refused"][1]["cells"].empty()) << none_doc;
  CliRun bad = run("rank --hosts " + hosts + " --vcpus 8 --memory 4096 --strategy Fastest");
  EXPECT_EQ(bad.exit_code, 2);  // as place's --strategy: a usage error naming what it takes
  EXPECT_NE(bad.err.find("adaptive"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("LeastAllocated"), std::string::npos) << bad.err;
  // The guest's size: --vcpus with --memory, or --domain; anything else is a usage error (exit 2).
  for (const std::string& sizes : std::vector<std::string>{"", " --vcpus 8", " --memory 4096",
                                  " --vcpus 8 --memory 4096 --domain " + source_path("examples/guest-8vcpu-4g.xml")}) {
    CliRun usage = run("rank --hosts " + hosts + sizes);
    EXPECT_EQ(usage.exit_code, 2) << sizes << ": " << usage.err;
    EXPECT_TRUE(usage.out.empty()) << sizes;
  }
  write(dir / "hosts" / "d-bad.json", R"({"cells": [{"id": 0, "cpus": [-3], "memory_mib": 1}]})");
  CliRun bad_host = run(request);
  EXPECT_EQ(bad_host.exit_code, 1);
  EXPECT_NE(bad_host.err.find("InvalidHostJson"), std::string::npos) << bad_host.err;
  // The error names the file, then the field from the host's root.
  const std::string file = (dir / "hosts" / "d-bad.json").string();
  EXPECT_NE(bad_host.err.find(file + ": cells[0].cpus[0]: is negative"), std::string::npos) << bad_host.err;
  std::filesystem::remove(dir / "hosts" / "d-bad.json");
  write(dir / "hosts" / "e-lines.jsonl", "{\"cells\": [{\"id\": 0, \"cpus\": [0], \"memory_mib\": 1}]}\n\n"
                                         "{\"name\": 7, \"cells\": [{\"id\": 0, \"cpus\": [0], \"memory_mib\": 1}]}\n");
  CliRun bad_line = run(request);
  EXPECT_EQ(bad_line.exit_code, 1);
  EXPECT_NE(bad_line.err.find((dir / "hosts" / "e-lines.jsonl").string() + " line 3: name: must be a string"),
            std::string::npos)
      << bad_line.err;
}

// --hosts that name no host: an empty directory, or one holding only files that are no host, is
// InvalidArgument naming what was given and what is read; a directory that cannot be listed is
// CannotRead, not an empty one.
TEST_F(HookCli, RankHostsThatHoldNoHostAreNamed) {
  const fs::path empty = dir / "no-hosts";
  fs::create_directories(empty);
  const std::string sizes = " --vcpus 2 --memory 1024";
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) fs::copy_file(source_path("examples/guest-8vcpu-4g.xml"), empty / "guest.xml");
    CliRun none = run("rank --hosts " + empty.string() + sizes + " --json");
    EXPECT_EQ(none.exit_code, 1) << none.out;
    const auto doc = nlohmann::json::parse(none.out);
    EXPECT_EQ(doc["error"]["name"], "InvalidArgument");
    EXPECT_NE(doc["error"]["message"].get<std::string>().find("no hosts found in --hosts " + empty.string() + ":"),
              std::string::npos)
        << none.out;
  }
  if (geteuid() != 0) {  // root lists a directory whatever its mode
    fs::permissions(empty, fs::perms::none);
    CliRun unlisted = run("rank --hosts " + empty.string() + sizes);
    fs::permissions(empty, fs::perms::owner_all);
    EXPECT_EQ(unlisted.exit_code, 2) << unlisted.err;
    EXPECT_NE(unlisted.err.find("CannotRead"), std::string::npos) << unlisted.err;
    EXPECT_NE(unlisted.err.find("cannot list the directory"), std::string::npos) << unlisted.err;
  }
}

}  // namespace
}  // namespace numaplace
