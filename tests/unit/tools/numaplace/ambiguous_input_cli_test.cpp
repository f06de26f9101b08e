// SPDX-License-Identifier: LGPL-2.1-or-later
// Input that says one thing twice, or two things at once, is a named error rather than one of
// them winning without a word (a new-user audit's findings): a member given twice in a JSON host,
// two hosts of one name for rank, one guest claimed twice, one file for --svg and --html, a host
// scoring named by --strategy and --host-strategy, a weight given twice, a bad lock timeout, a
// directory given as a file; rank --domain uses the request the domain stores, as place does;
// --explain does not call an assignment the only one when swapping twin cells gives another; an
// interleave the placement narrows is said.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "support/cli_runner.h"
#include "support/temp_dir.h"
#include "support/test_paths.h"

namespace numaplace {
namespace {

using numaplace::testing::CliRun;
using numaplace::testing::kExample;
using numaplace::testing::run;
using numaplace::testing::shared_path;
using numaplace::testing::source_path;

// A directory of the test's own, removed after it.
struct TempDir : testing::TempDir {
  TempDir() : testing::TempDir("numaplace-ambiguous") {}
};

const std::string kHostCell = R"({"id": 0, "cpus": "0-7", "memory_mib": 8192})";

std::string example_text() {
  std::ifstream in(kExample);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(AmbiguousInput, AJsonHostGivingAMemberTwiceIsRefusedNamingIt) {
  TempDir dir;
  const std::string host = dir.file("twice.json", R"({"name": "h", "cells": [{"id": 0, "cpus": "0-7", "memory_mib": 65536,
      "memory_mib": 1024, "usage": {"pinned_cpus": "0-5", "pinned_cpus": "7"}}]})");
  CliRun r = run("rank --hosts " + host + " --vcpus 2 --memory 512");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("InvalidHostJson: " + host + ": member \"memory_mib\" is given twice in one object"),
            std::string::npos) << r.err;
}

TEST(AmbiguousInput, RankRefusesTwoHostsOfOneNameAndReadsJsonByItsContent) {
  TempDir dir;
  const std::string two = dir.file("two.json", "[{\"name\": \"h1\", \"cells\": [" + kHostCell + "]}, {\"name\": \"h1\", \"cells\": [" +
                                                   kHostCell + "]}]");
  CliRun r = run("rank --hosts " + two + " --vcpus 2 --memory 512");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("two hosts are named 'h1'"), std::string::npos) << r.err;
  const std::string one = dir.file("one.txt", "{\"name\": \"j1\", \"cells\": [" + kHostCell + "]}");
  CliRun given_twice = run("rank --hosts " + one + " --hosts " + one + " --vcpus 2 --memory 512");
  EXPECT_EQ(given_twice.exit_code, 1) << given_twice.err;
  EXPECT_NE(given_twice.err.find("two hosts are named 'j1'"), std::string::npos) << given_twice.err;
  CliRun by_content = run("rank --hosts " + one + " --vcpus 2 --memory 512");
  EXPECT_EQ(by_content.exit_code, 0) << by_content.err;
  EXPECT_NE(by_content.out.find("j1"), std::string::npos) << by_content.out;
}

TEST(AmbiguousInput, RankNamesContradictoryFlags) {
  TempDir dir;
  const std::string host = dir.file("h.json", "{\"name\": \"h\", \"cells\": [" + kHostCell + "]}");
  const std::string base = "rank --hosts " + host + " --vcpus 2 --memory 512";
  CliRun scorings = run(base + " --strategy MostAllocated --host-strategy LeastAllocated");
  EXPECT_EQ(scorings.exit_code, 2) << scorings.err;
  EXPECT_EQ(scorings.err.rfind("numaplace: UsageError: ", 0), 0u) << scorings.err;
  EXPECT_NE(scorings.err.find("name two host scorings"), std::string::npos) << scorings.err;
  EXPECT_EQ(run(base + " --strategy MostAllocated --host-strategy MostAllocated").exit_code, 0);
  CliRun shapes = run(base + " --strategy ratio --ratio-shape 0:10,100:0 --shape 0:0,100:10");
  EXPECT_EQ(shapes.exit_code, 2) << shapes.err;
  CliRun weights = run(base + " --ratio-weights cpu=2,cpu=1");
  EXPECT_EQ(weights.exit_code, 1) << weights.err;
  EXPECT_NE(weights.err.find("the cpu weight is given twice"), std::string::npos) << weights.err;
}

TEST(AmbiguousInput, OneGuestClaimedTwiceIsRefused) {
  const std::string claim = shared_path("samples/libvirt/domain-testdriver-2cell.xml");
  CliRun r = run("audit --capabilities " + shared_path("samples/libvirt/caps-2cell.xml") + " --claim " + claim +
                 " --claim " + claim);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("InvalidClaim: --claim " + claim + ": guest 'numa-test' is counted already (--claim " + claim + ")"),
            std::string::npos) << r.err;
}

TEST(AmbiguousInput, OneFileForSvgAndHtmlIsAUsageErrorWithNothingWritten) {
  TempDir dir;
  const std::string same = (dir.path / "same.out").string();
  for (const std::string& second : {same, (dir.path / "." / "same.out").string()}) {
    CliRun r = run("topology --capabilities " + shared_path("samples/libvirt/caps-2cell.xml") + " --svg " + same +
                   " --html " + second);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("name one file; give each its own"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(same));
  }
}

TEST(AmbiguousInput, ABadLockTimeoutIsNamed) {
  TempDir dir;
  CliRun r = run("define " + kExample + " -c test:///default --spec hw:numa_nodes=2",
                 "NUMAPLACE_LOCK_TIMEOUT=abc NUMAPLACE_LOCK_FILE=" + (dir.path / "host.lock").string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("NUMAPLACE_LOCK_TIMEOUT 'abc' is not a whole number of seconds"), std::string::npos) << r.err;
}

TEST(AmbiguousInput, RankDomainUsesTheRequestTheDomainStores) {
  TempDir dir;
  const std::string placed = (dir.path / "placed.xml").string();
  ASSERT_EQ(run("place " + kExample + " --capabilities " + shared_path("samples/libvirt/caps-2cell.xml") +
                " --spec hw:numa_nodes=2 --spec hw:cpu_policy=dedicated -o " + placed).exit_code, 0);
  // 8 dedicated vCPUs over two cells: a host of one 8-CPU cell cannot take them, a plain 8-vCPU guest fits it.
  const std::string host = dir.file("small.json", "{\"name\": \"small\", \"cells\": [" + kHostCell + "]}");
  CliRun stored = run("rank --hosts " + host + " --domain " + placed);
  EXPECT_EQ(stored.exit_code, 3) << stored.out << stored.err;
  EXPECT_NE(stored.err.find("using the request stored in"), std::string::npos) << stored.err;
  CliRun plain = run("rank --hosts " + host + " --domain " + source_path("examples/guest-8vcpu-4g.xml"));
  EXPECT_EQ(plain.exit_code, 0) << plain.out << plain.err;
}

// A page size a domain's <page>s give every cell of it (one <page> without a nodeset, or nodesets
// naming every cell with one size) is asked for by rank, as place asks for it, and a host without
// such pages does not take the guest.
TEST(AmbiguousInput, RankDomainAsksForThePageSizeEveryCellOfTheDomainUses) {
  TempDir dir;
  std::string text = example_text();
  const auto at = text.find("</vcpu>");
  ASSERT_NE(at, std::string::npos);
  text.insert(at + 7, "<memoryBacking><hugepages><page size='1' unit='GiB'/></hugepages></memoryBacking>");
  const std::string domain = dir.file("default-page.xml", text);
  const std::string host = dir.file("plain.json", "{\"name\": \"plain\", \"cells\": [" + kHostCell + "]}");
  CliRun r = run("rank --hosts " + host + " --domain " + domain + " --explain");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  // No NUMA keys: ranked on free pages of the size over the host's cells, as place confines it there
  // (hw:mem_page_size would ask for one guest cell holding them all).
  EXPECT_NE(r.err.find("asks for 1048576 KiB pages: ranked on the host's free pages of that size"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("memory: 4096 MiB in 1048576 KiB pages cannot be bound to any set of host cells: cell 0 has 0 MiB free "
                       "(free pages of that size)"), std::string::npos)
      << r.err;
  // With a NUMA request the size is asked for as hw:mem_page_size.
  CliRun numa = run("rank --hosts " + host + " --domain " + domain + " --spec hw:numa_nodes=1");
  EXPECT_EQ(numa.exit_code, 3) << numa.out << numa.err;
  EXPECT_NE(numa.err.find("asks for 1048576 KiB pages: ranked as hw:mem_page_size=1048576"), std::string::npos)
      << numa.err;

  // Pages that name every cell of the domain with one size ask for it the same way; cells of
  // different sizes are only noted, and the guest is ranked on small pages.
  const auto end = text.find("</domain>");
  ASSERT_NE(end, std::string::npos);
  text.insert(end, "<cpu><numa><cell id='0' cpus='0-3' memory='2' unit='GiB'/>"
                   "<cell id='1' cpus='4-7' memory='2' unit='GiB'/></numa></cpu>");
  for (const auto& [pages, asked] : {std::pair<std::string, bool>{"<page size='2' unit='MiB' nodeset='0-1'/>", true},
                                     {"<page size='2' unit='MiB' nodeset='0'/><page size='1' unit='GiB' nodeset='1'/>", false}}) {
    std::string named = text;
    const auto page = named.find("<page size='1' unit='GiB'/>");
    named.replace(page, 27, pages);
    CliRun ranked = run("rank --hosts " + host + " --domain " + dir.file("named-pages.xml", named));
    EXPECT_EQ(ranked.exit_code, asked ? 3 : 0) << pages << "\n" << ranked.out << ranked.err;
    EXPECT_EQ(ranked.err.find("asks for 2048 KiB pages: ranked") != std::string::npos, asked) << pages << "\n" << ranked.err;
    EXPECT_EQ(ranked.err.find("give its cells their own page sizes") != std::string::npos, !asked) << pages << "\n" << ranked.err;
  }

  // A request naming its cells' page sizes itself (numaplace:mem_page_size.N) is ranked on them,
  // as place does: the domain's pages are not asked for on top.
  std::string named = text;
  named.replace(named.find("<page size='1' unit='GiB'/>"), 27, "<page size='2' unit='MiB' nodeset='0-1'/>");
  const std::string small_pages =
      dir.file("small-pages.json", "{\"name\": \"small\", \"cells\": [{\"id\": 0, \"cpus\": \"0-7\", "
                                   "\"memory_mib\": 8192, \"pages\": [{\"size_kib\": 4, \"total\": 2097152}]}]}");
  CliRun own = run("rank --hosts " + small_pages + " --domain " + dir.file("own-pages.xml", named) +
                   " --spec numaplace:mem_page_size.0=small");
  EXPECT_EQ(own.exit_code, 0) << own.out << own.err;
  EXPECT_EQ(own.err.find("ranked as hw:mem_page_size"), std::string::npos) << own.err;
}

// A dry run promises no define that libvirt would refuse: a uuid another domain holds (libvirt's
// test driver's 'test') is refused as the real define is, with nothing defined.
TEST(AmbiguousInput, DefineRefusesAUuidAnotherDomainHoldsAlsoInADryRun) {
  TempDir dir;
  std::string text = example_text();
  const auto at = text.find("<name>numaplace-demo</name>");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 27, "<name>other</name><uuid>6695eb01-f6a4-8304-79aa-97f2502e193f</uuid>");
  const std::string domain = dir.file("same-uuid.xml", text);
  for (const std::string& dry : {std::string(" --dry-run"), std::string()}) {
    CliRun r = run("define " + domain + " -c test:///default --spec hw:numa_nodes=2" + dry,
                   "NUMAPLACE_LOCK_FILE=" + (dir.path / "host.lock").string());
    EXPECT_EQ(r.exit_code, 5) << dry << r.out << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("DefineFailed: libvirt would refuse to define 'other': domain 'test' already has uuid"),
              std::string::npos) << r.err;
  }
}

TEST(AmbiguousInput, ADirectoryWhereAFileIsExpectedIsSaidToBeOne) {
  TempDir dir;
  for (const char* flag : {"--hwloc", "--capabilities"}) {
    CliRun r = run(std::string("topology ") + flag + " " + dir.path.string());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err, std::string("numaplace: CannotRead: ") + flag + ": cannot read '" + dir.path.string() +
                         "': it is a directory; give a file\n");
  }
}

// A guest of two cells of one shape: the swapped assignment is the same, and --explain says so
// rather than calling the chosen one the only one that fits.
TEST(AmbiguousInput, ExplainSaysTwinCellsAreInterchangeable) {
  CliRun r = run("place " + kExample + " --capabilities " + shared_path("samples/libvirt/caps-2cell.xml") +
                 " --spec hw:numa_nodes=2 --explain");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("why: the only assignment that fits, but for swapping guest cells of one shape"), std::string::npos)
      << r.err;
}

// An interleaved binding the placement narrows interleaves over fewer nodes: said.
TEST(AmbiguousInput, ANarrowedInterleaveIsSaid) {
  TempDir dir;
  std::ifstream in(kExample);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = text.find("<devices/>");
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "<numatune><memory mode='interleave' nodeset='0-1'/></numatune>");
  const std::string domain = dir.file("interleave.xml", text);
  CliRun r = run("place " + domain + " --capabilities " + shared_path("samples/libvirt/caps-2cell.xml") +
                 " --spec hw:numa_nodes=1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("<numatune><memory mode='interleave' nodeset='0-1'> now interleaves over host cells"),
            std::string::npos) << r.err;
  CliRun both = run("place " + domain + " --capabilities " + shared_path("samples/libvirt/caps-2cell.xml") +
                    " --spec hw:numa_nodes=2");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_EQ(both.err.find("now interleaves"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace numaplace
