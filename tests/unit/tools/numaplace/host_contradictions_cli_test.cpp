// SPDX-License-Identifier: LGPL-2.1-or-later
// A host description that contradicts itself is refused by the same name from every reader and
// surface (a new-user audit's findings): two NUMA nodes of one id in an hwloc export, read by the
// library in process as by the CLI's child; a distance matrix hwloc would size past its buffer;
// node devices giving one device two nodes;
// distances of 0 or a cell farther from itself than from another; capabilities without a CPU. And
// a small-page pool a source reports larger than its cell is never counted beyond the cell.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "plugin/sources/host_json.h"
#include "plugin/sources/hwloc_source.h"
#include "support/cli_runner.h"
#include "support/temp_dir.h"
#include "support/test_paths.h"
#include "xml/capabilities_reader.h"

namespace numaplace {
namespace {

using numaplace::testing::CliRun;
using numaplace::testing::kExample;
using numaplace::testing::run;
using numaplace::testing::shared_path;

// A directory of the test's own, removed after it.
struct TempDir : testing::TempDir {
  TempDir() : testing::TempDir("numaplace-contradictions") {}
};

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// `text` with its first `from` replaced by `to` (the test fails when `from` is missing).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

const std::string kHwloc = shared_path("samples/hwloc/synth-2pkg-4numa-pci-distances.xml");
const std::string kCaps = shared_path("samples/libvirt/caps-2cell.xml");

TEST(HostContradictions, TwoNumaNodesOfOneIdAreRefusedByTheLibraryAsByTheCli) {
  TempDir dir;
  const std::string twice = dir.file("dup.xml", replaced(text_of(kHwloc), "<object type=\"NUMANode\" os_index=\"1\"",
                                                         "<object type=\"NUMANode\" os_index=\"0\""));
  auto in_process = plugin::load_hwloc_xml(twice);
  ASSERT_FALSE(in_process.ok()) << "two cells of id 0 read";
  EXPECT_EQ(in_process.error().name, "DuplicateNumaNode") << in_process.error().message;
  CliRun cli = run("topology --hwloc " + twice);
  EXPECT_EQ(cli.exit_code, 1) << cli.out << cli.err;
  EXPECT_EQ(cli.out, "");
  EXPECT_NE(cli.err.find("DuplicateNumaNode"), std::string::npos) << cli.err;
}

TEST(HostContradictions, ADistanceMatrixWiderThanTheExportIsRefusedBeforeHwlocReadsIt) {
  TempDir dir;
  // 65537 x 65537 wraps to 131073 in 32 bits: hwloc would read far past its buffer.
  const std::string wide = dir.file("wide.xml", replaced(text_of(kHwloc), "nbobjs=\"4\"", "nbobjs=\"65537\""));
  auto host = plugin::load_hwloc_xml(wide);
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().name, "HwlocLoadFailed");
  EXPECT_NE(host.error().message.find("relates 65537 objects"), std::string::npos) << host.error().message;
}

// Nova's host model keeps a PCI device on a node without a cell, as Nova's PCI pools may sit there
// (the Nova drop-ins' differential runs on such hosts); its fit never takes it for a cell.
TEST(HostContradictions, AJsonPciDeviceOnANodeWithoutACellIsNovasModel) {
  auto host = plugin::host_from_json_text(
      R"({"cells": [{"id": 0, "cpus": "0-3", "memory_mib": 4096}, {"id": 1, "cpus": "4-7", "memory_mib": 4096}],
          "pci": [{"address": "0000:3b:00.0", "numa_node": 7}]})",
      "host JSON");
  ASSERT_TRUE(host.ok()) << host.error().message;
  EXPECT_EQ(host->pci.size(), 1u);
}

TEST(HostContradictions, CapabilitiesDistancesOfZeroOrFartherFromItselfAreRefused) {
  const std::string caps = text_of(kCaps);
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"<sibling id='1' value='21'/>", "<sibling id='1' value='0'/>"},
                                 {"<sibling id='0' value='10'/>", "<sibling id='0' value='99'/>"}}) {
    auto host = xml::read_capabilities(replaced(caps, from, to), "caps");
    ASSERT_FALSE(host.ok()) << to;
    EXPECT_EQ(host.error().name, "InvalidNumaDistances") << host.error().message;
  }
}

TEST(HostContradictions, CapabilitiesWithoutAnyCpuAreRefused) {
  std::string caps = text_of(kCaps);
  // Drop every <cpus> block.
  for (auto at = caps.find("<cpus"); at != std::string::npos; at = caps.find("<cpus")) {
    const auto end = caps.find("</cpus>", at);
    ASSERT_NE(end, std::string::npos);
    caps.erase(at, end + 7 - at);
  }
  auto host = xml::read_capabilities(caps, "caps");
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().name, "InconsistentHost") << host.error().message;
}

// What one reader takes, every reader takes back: capabilities beyond the host JSON's bounds are
// refused where they are read, not written by `topology --json` and refused by rank.
TEST(HostContradictions, CapabilitiesBeyondTheHostJsonBoundsAreRefused) {
  const std::string caps = text_of(kCaps);
  for (const auto& [from, to] :
       {std::pair<std::string, std::string>{"<memory unit='KiB'>33554432</memory>", "<memory unit='KiB'>2251799813685249</memory>"},
        {"<pages unit='KiB' size='1048576'>4</pages>", "<pages unit='KiB' size='1048576'>1099511627777</pages>"}}) {
    auto host = xml::read_capabilities(replaced(caps, from, to), "caps");
    ASSERT_FALSE(host.ok()) << to;
    EXPECT_EQ(host.error().name, "InconsistentHost") << host.error().message;
  }
}

TEST(HostContradictions, NodeDevicesGivingOneDeviceTwoNodesAreRefused) {
  TempDir dir;
  const std::string on_node1 = shared_path("samples/libvirt/nodedev-pci-sriov-pf-numa1.xml");
  const std::string on_node0 = dir.file("node0.xml", replaced(text_of(on_node1), "<numa node='1'", "<numa node='0'"));
  CliRun r = run("topology --capabilities " + kCaps + " --nodedev " + on_node1 + " --nodedev " + on_node0);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("InvalidNodeDevice"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("on NUMA node 0 in node device file '" + on_node0 + "' but on node 1 in node device file '" +
                       on_node1 + "'"),
            std::string::npos)
      << r.err;
  // The same device on the same node twice adds nothing and is no contradiction.
  CliRun same = run("topology --capabilities " + kCaps + " --nodedev " + on_node1 + " --nodedev " + on_node1);
  EXPECT_EQ(same.exit_code, 0) << same.err;
}

TEST(HostContradictions, ASmallPagePoolLargerThanItsCellIsCountedAsTheCellAtMost) {
  TempDir dir;
  // Cell 0 has 32 GiB; its 4 KiB pool is said to hold 1 TiB.
  std::string caps = text_of(kCaps);
  const auto pool = caps.find("<pages unit='KiB' size='4'>");
  ASSERT_NE(pool, std::string::npos);
  const auto end = caps.find("</pages>", pool);
  caps.replace(pool, end - pool, "<pages unit='KiB' size='4'>268435456");
  const std::string host = dir.file("caps.xml", caps);
  // 40 GiB in one dedicated cell: more than either cell has (32 GiB; 26 GiB of small pages in cell 1).
  const std::string big = dir.file("big.xml", replaced(text_of(kExample), "<memory unit='GiB'>4</memory>",
                                                       "<memory unit='GiB'>40</memory>"));
  CliRun placed = run("place " + big + " --capabilities " + host + " --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated");
  EXPECT_EQ(placed.exit_code, 3) << placed.out << placed.err;
  EXPECT_EQ(placed.out, "");
  EXPECT_NE(placed.err.find("NoFit"), std::string::npos) << placed.err;
}

}  // namespace
}  // namespace numaplace
