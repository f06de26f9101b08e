// SPDX-License-Identifier: LGPL-2.1-or-later
// The host sources of the CLI, run as a user would: --hwloc (this machine or an
// export), --nodedev files, and the PCI devices libvirt's test host reports.
#include <gtest/gtest.h>

#include <algorithm>

#include <set>
#include <unistd.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
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

const std::string kHwloc4 = shared_path("samples/hwloc/synth-2pkg-4numa-pci-distances.xml");

const nlohmann::json* find_pci(const nlohmann::json& doc, const std::string& address) {
  for (const auto& dev : doc["pci"]) {
    if (dev["address"] == address) return &dev;
  }
  return nullptr;
}

// The line of the table that starts with this cell id.
std::string table_row(const std::string& table, const std::string& cell) {
  std::istringstream in(table);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(cell + " ", 0) == 0) return line;
  }
  return {};
}

TEST(CliSources, HwlocExportGivesCellsDistancesAndPciLocality) {
  CliRun r = run("topology --hwloc " + kHwloc4 + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["cells"].size(), 4u);
  EXPECT_EQ(doc["cells"][0]["cpus"], nlohmann::json({0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(doc["cells"][3]["cpus"], nlohmann::json({24, 25, 26, 27, 28, 29, 30, 31}));
  EXPECT_EQ(doc["cells"][0]["distances"], nlohmann::json({10, 12, 21, 21}));
  EXPECT_EQ(doc["cells"][3]["distances"], nlohmann::json({21, 21, 12, 10}));
  EXPECT_EQ(doc["cells"][1]["memory_kib"], 1048576);
  ASSERT_EQ(doc["pci"].size(), 2u);
  const auto* nic = find_pci(doc, "0000:3b:00.0");
  ASSERT_NE(nic, nullptr) << doc["pci"].dump();
  EXPECT_EQ((*nic)["numa_node"], 0);
  EXPECT_EQ((*nic)["vendor_id"], "8086");
  EXPECT_EQ((*nic)["class_id"], "0200");
  const auto* gpu = find_pci(doc, "0000:d8:00.0");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ((*gpu)["numa_node"], 3);
  EXPECT_EQ((*gpu)["product_id"], "20b5");
  EXPECT_TRUE(doc["guests"].empty()) << "an hwloc host reads no libvirt guests";
}

TEST(CliSources, TopologyTableShowsPciDevicesPerCell) {
  CliRun r = run("topology --hwloc " + kHwloc4);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("host: hwloc XML '" + kHwloc4 + "', 4 NUMA cells"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pci"), std::string::npos);
  EXPECT_NE(table_row(r.out, "0").find("0000:3b:00.0"), std::string::npos) << r.out;
  EXPECT_NE(table_row(r.out, "3").find("0000:d8:00.0"), std::string::npos) << r.out;
  EXPECT_NE(table_row(r.out, "0").find("10 12 21 21"), std::string::npos) << r.out;
  EXPECT_EQ(table_row(r.out, "1").find("0000:"), std::string::npos) << r.out;
}

TEST(CliSources, HwlocOfThisMachine) {
  CliRun r = run("topology --json --hwloc");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_GE(doc["cells"].size(), 1u);
  ASSERT_TRUE(doc["cells"][0]["cpus"].is_array());
  EXPECT_FALSE(doc["cells"][0]["cpus"].empty());
}

TEST(CliSources, FreeMemoryOfThisMachineCountsAsUsed) {
  CliRun plain = run("topology --hwloc --json");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  CliRun counted = run("topology --hwloc --free-memory --json");
  ASSERT_EQ(counted.exit_code, 0) << counted.err;
  const auto before = nlohmann::json::parse(plain.out)["cells"];
  const auto after = nlohmann::json::parse(counted.out)["cells"];
  ASSERT_EQ(before.size(), after.size());
  std::uint64_t used = 0;
  for (std::size_t i = 0; i < after.size(); ++i) {
    const auto total = after[i]["memory_kib"].get<std::uint64_t>();
    const auto in_use = after[i]["usage"]["memory_kib"].get<std::uint64_t>();
    EXPECT_GE(in_use, before[i]["usage"]["memory_kib"].get<std::uint64_t>());  // raised, never lowered
    EXPECT_LE(in_use, total);
    used += in_use;
  }
  EXPECT_GT(used, 0u) << "a running machine uses some memory";
}

TEST(CliSources, FreeMemoryNeedsALiveHost) {
  CliRun r = run("topology --capabilities " + shared_path("samples/libvirt/caps-2cell.xml") + " --free-memory");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("FreeMemoryUnavailable: --free-memory needs a live host"), std::string::npos) << r.err;
}

TEST(CliSources, PlacesAGuestOnAnHwlocHost) {
  CliRun r = run("place " + source_path("examples/guest-8vcpu-4g.xml") + " --hwloc " +
                 shared_path("samples/hwloc/synth-2pkg-2numa.xml") + " --spec hw:numa_nodes=2 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["placement"]["cells"].size(), 2u);
  EXPECT_EQ(doc["placement"]["cells"][1]["host_cpus"], "16-31");
}

TEST(CliSources, APciDeviceNamedTwiceIsOneDevice) {
  // The GPU on cell 3 named twice (as a <hostdev> would be and again with --pci) is one device;
  // two requests for the host's one GPU would not fit.
  std::string domain = slurp(source_path("examples/guest-8vcpu-4g.xml"));
  domain.replace(domain.find("<memory unit='GiB'>4</memory>"), 29, "<memory unit='MiB'>512</memory>");
  const std::string path = std::filesystem::temp_directory_path() / ("numaplace-pci-twice-" + std::to_string(getpid()) + ".xml");
  std::ofstream(path) << domain;
  const std::string place = "place " + path + " --hwloc " + kHwloc4 + " --spec hw:numa_nodes=1 --json --pci 0000:d8:00.0";
  CliRun once = run(place);
  CliRun twice = run(place + " --pci 0000:d8:00.0");
  ASSERT_EQ(once.exit_code, 0) << once.err << once.out;
  ASSERT_EQ(twice.exit_code, 0) << twice.err << twice.out;
  EXPECT_EQ(nlohmann::json::parse(twice.out)["placement"], nlohmann::json::parse(once.out)["placement"]);
  EXPECT_EQ(nlohmann::json::parse(twice.out)["placement"]["cells"][0]["host_cell"], 3);
  // The short form and upper case name the same device; text that is no address is refused.
  CliRun short_form = run(place.substr(0, place.find(" --pci")) + " --pci D8:00.0");
  ASSERT_EQ(short_form.exit_code, 0) << short_form.err << short_form.out;
  EXPECT_EQ(nlohmann::json::parse(short_form.out)["placement"], nlohmann::json::parse(once.out)["placement"]);
  // A 32-bit PCI domain (Intel VMD) is an address too; the host has no such device: a warning.
  CliRun wide_domain = run(place.substr(0, place.find(" --pci")) + " --pci 10000:E1:00.0");
  EXPECT_EQ(wide_domain.exit_code, 0) << wide_domain.err;
  EXPECT_NE(wide_domain.err.find("PCI device 10000:e1:00.0 of the domain is not among the host's devices"),
            std::string::npos)
      << wide_domain.err;
  std::ofstream(path) << domain;
  for (const std::string bad : {"zz:zz", "0000:d8:00.8", "0000:d8:20.0", "0000:100:00.0", "100000000:d8:00.0", "d8:00"}) {
    CliRun refused = run(place.substr(0, place.find(" --pci")) + " --pci " + bad);
    EXPECT_EQ(refused.exit_code, 1) << bad;
    EXPECT_TRUE(refused.out.find("InvalidPciAddress") != std::string::npos) << bad << ": " << refused.out;
    EXPECT_EQ(refused.out.find("\"xml\""), std::string::npos) << bad;
  }
  std::filesystem::remove(path);
}

// A device given with --pci is the guest's: recorded in its request (<numaplace:pci>), so that placing
// it again without --pci keeps it, and a guest claiming the placed domain holds it. Before, it drove
// the placement and was then forgotten, so a second guest was given the same device.
TEST(CliSources, APciDeviceGivenWithPciIsRecordedAndHeld) {
  std::string domain = slurp(source_path("examples/guest-8vcpu-4g.xml"));
  domain.replace(domain.find("<memory unit='GiB'>4</memory>"), 29, "<memory unit='MiB'>512</memory>");
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("numaplace-pci-held-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string first = (dir / "first.xml").string(), placed = (dir / "placed.xml").string();
  std::ofstream(first) << domain;
  const std::string host = " --hwloc " + kHwloc4;
  CliRun given = run("place " + first + host + " --spec hw:numa_nodes=1 --pci D8:00.0 -o " + placed);
  ASSERT_EQ(given.exit_code, 0) << given.err;
  const std::string written = slurp(placed);
  EXPECT_NE(written.find("<numaplace:pci address=\"0000:d8:00.0\"/>"), std::string::npos) << written;
  for (const char* again : {"", " --fresh"}) {  // the stored request, device included
    CliRun r = run("place " + placed + host + again + " --json");
    ASSERT_EQ(r.exit_code, 0) << again << ": " << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["placement"]["cells"][0]["host_cell"], 3) << again;
  }
  // A new request replaces the stored one whole: a device it leaves out is said to leave.
  CliRun replaced = run("place " + placed + host + " --spec hw:numa_nodes=1");
  ASSERT_EQ(replaced.exit_code, 0) << replaced.err;
  EXPECT_NE(replaced.err.find("PCI device 0000:d8:00.0, which the domain's stored request gives the guest"),
            std::string::npos)
      << replaced.err;
  EXPECT_EQ(replaced.out.find("<numaplace:pci"), std::string::npos);
  CliRun kept = run("place " + placed + host + " --spec hw:numa_nodes=1 --pci 0000:d8:00.0");
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_EQ(kept.err.find("no longer counted"), std::string::npos) << kept.err;
  std::string other = domain;
  other.replace(other.find("numaplace-demo"), 14, "second-guest");
  const std::string second = (dir / "second.xml").string();
  std::ofstream(second) << other;
  CliRun held = run("place " + second + host + " --spec hw:numa_nodes=1 --pci 0000:d8:00.0 --claim " + placed);
  EXPECT_EQ(held.exit_code, 3) << held.err;
  EXPECT_TRUE(held.out.empty());
  EXPECT_NE(held.err.find("PciDeviceHeld: PCI device 0000:d8:00.0 of 'second-guest' is held by guest 'numaplace-demo'"),
            std::string::npos)
      << held.err;
  std::filesystem::remove_all(dir);
}

// A <hostdev> another guest holds is PciDeviceHeld whether or not the host source lists the device
// (a capabilities file lists none; hwloc only the "important" ones): before, a device the host did
// not list was given to a second guest with only "its NUMA locality is unknown".
TEST(CliSources, ADeviceTheHostDoesNotListIsStillHeldOnce) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("numaplace-unlisted-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string domain = slurp(source_path("examples/guest-8vcpu-4g.xml"));
  domain.replace(domain.find("<devices/>"), 10,
                 "<devices><hostdev mode='subsystem' type='pci' managed='yes'><source><address domain='0x0000' "
                 "bus='0x3b' slot='0x00' function='0x0'/></source></hostdev></devices>");
  const std::string first = (dir / "first.xml").string(), second = (dir / "second.xml").string();
  std::ofstream(first) << domain;
  domain.replace(domain.find("numaplace-demo"), 14, "second-guest");
  std::ofstream(second) << domain;
  const std::string caps = " --capabilities " + shared_path("samples/libvirt/caps-2cell.xml");
  CliRun alone = run("place " + second + caps);
  EXPECT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_NE(alone.err.find("its NUMA locality is unknown"), std::string::npos) << alone.err;
  CliRun held = run("place " + second + caps + " --claim " + first);
  EXPECT_EQ(held.exit_code, 3) << held.err;
  EXPECT_TRUE(held.out.empty());
  EXPECT_NE(held.err.find("PciDeviceHeld: PCI device 0000:3b:00.0 of 'second-guest' is held by guest 'numaplace-demo'"),
            std::string::npos)
      << held.err;
  std::filesystem::remove_all(dir);
}

// The operator's 1:1 pin onto a pCPU another guest holds is PinningCollision naming that guest
// (it was ConflictingPin saying the pin lay outside the cells the guest was confined to); a guest
// without a NUMA topology given a --pci device records it too.
TEST(CliSources, APinOntoAnotherGuestsPcpuIsAPinningCollision) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("numaplace-pins-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  auto domain = [&](const std::string& name, const std::string& pins) {
    const std::string path = (dir / (name + ".xml")).string();
    std::ofstream(path) << "<domain type='kvm'><name>" << name << "</name><memory unit='GiB'>2</memory><vcpu>2</vcpu>"
                        << "<cputune>" << pins << "</cputune><os><type arch='x86_64'>hvm</type></os><devices/></domain>";
    return path;
  };
  const std::string holder = domain("holder", "<vcpupin vcpu='0' cpuset='8'/><vcpupin vcpu='1' cpuset='8'/>");
  const std::string newcomer = domain("newcomer", "<vcpupin vcpu='0' cpuset='8'/><vcpupin vcpu='1' cpuset='9'/>");
  const std::string caps = " --capabilities " + shared_path("samples/libvirt/caps-2cell.xml");
  CliRun r = run("place " + newcomer + caps + " --claim " + holder);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("PinningCollision: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("onto pCPUs 8, which guest 'holder' holds"), std::string::npos) << r.err;

  CliRun floating = run("place " + domain("floating", "") + " --hwloc " + kHwloc4 + " --pci 0000:d8:00.0");
  ASSERT_EQ(floating.exit_code, 0) << floating.err;
  EXPECT_NE(floating.out.find("<numaplace:pci address=\"0000:d8:00.0\"/>"), std::string::npos) << floating.out;
  std::filesystem::remove_all(dir);
}

TEST(CliSources, NodeDeviceFilesAddSriovDevicesToACapabilitiesHost) {
  CliRun r = run("topology --capabilities " + shared_path("samples/libvirt/caps-2cell.xml") + " --nodedev " +
                 shared_path("samples/libvirt/nodedev-pci-sriov-pf-numa1.xml") + " --nodedev " +
                 shared_path("samples/libvirt/nodedev-pci-sriov-vf-numa1.xml") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["pci"].size(), 2u);
  EXPECT_EQ(doc["pci"][0]["address"], "0000:3b:00.0");
  EXPECT_EQ(doc["pci"][0]["is_pf"], true);
  EXPECT_EQ(doc["pci"][0]["numa_node"], 1);
  EXPECT_EQ(doc["pci"][1]["parent_pf"], "0000:3b:00.0");
  CliRun table = run("topology --capabilities " + shared_path("samples/libvirt/caps-2cell.xml") + " --nodedev " +
                     shared_path("samples/libvirt/testdriver-node-sriov-pci.xml"));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table_row(table.out, "1").find("0000:3b:00.0(pf) 0000:3b:10.0(vf)"), std::string::npos) << table.out;
}

TEST(CliSources, NodeDeviceFileUpdatesTheHwlocDeviceOfTheSameAddress) {
  CliRun r = run("topology --hwloc " + kHwloc4 + " --nodedev " + shared_path("samples/libvirt/nodedev-pci-gpu-numa3.xml") +
                 " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["pci"].size(), 2u);
  EXPECT_EQ((*find_pci(doc, "0000:d8:00.0"))["numa_node"], 3);
}

TEST(CliSources, PciDevicesWithoutNumaNodeAreListedUnderTheTable) {
  CliRun r = run("topology --capabilities " + shared_path("samples/libvirt/caps-1cell.xml") + " --nodedev " +
                 shared_path("samples/libvirt/nodedev-pci-real-no-numa.xml"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("pci without NUMA node: 0000:00:03.0"), std::string::npos) << r.out;
}

TEST(CliSources, RefusesANodeDeviceOfAnotherHost) {
  CliRun r = run("topology --capabilities " + shared_path("samples/libvirt/caps-2cell.xml") + " --nodedev " +
                 shared_path("samples/libvirt/nodedev-pci-gpu-numa3.xml"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("InvalidNodeDevice: PCI device 0000:d8:00.0 in node device file"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is on NUMA node 3, but the host has cells 0-1"), std::string::npos) << r.err;
}

TEST(CliSources, RefusesAMalformedNodeDeviceFile) {
  CliRun r = run("topology" + kTestHost + " --nodedev " + shared_path("corpus/libvirt/nodedev/pci_0000_00_02_0_header_type.xml"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("InvalidNodeDevice: node device 'pci_0000_00_02_0' in node device file"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("PCI bus 4294967295 is out of range (0-255)"), std::string::npos) << r.err;
  CliRun hostdev = run("topology" + kTestHost + " --nodedev " + shared_path("corpus/virt-manager/nodedev/pcidev.xml"));
  EXPECT_EQ(hostdev.exit_code, 1);
  EXPECT_NE(hostdev.err.find("NotNodeDevice"), std::string::npos) << hostdev.err;
}

TEST(CliSources, NonPciNodeDevicesAddNothing) {
  CliRun r = run("topology" + kTestHost + " --json --nodedev " + shared_path("corpus/libvirt/nodedev/pci_8086_27c5_scsi_host.xml"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(r.out)["pci"].empty());
  // ... and says so: a file that adds nothing was probably not the one meant.
  EXPECT_NE(r.err.find("holds no PCI device (1 node device(s) of other kinds"), std::string::npos) << r.err;
}

TEST(CliSources, HwlocExcludesTheOtherSourcesAndWantsAnExistingFile) {
  CliRun both = run("topology --hwloc " + kHwloc4 + " --connect test:///default");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("excludes"), std::string::npos) << both.err;
  CliRun caps = run("topology --capabilities " + shared_path("samples/libvirt/caps-2cell.xml") + " --hwloc");
  EXPECT_EQ(caps.exit_code, 2);
  CliRun missing = run("topology --hwloc /nonexistent/topo.xml");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/topo.xml"), std::string::npos) << missing.err;
}

TEST(CliSources, RefusesAMalformedHwlocExport) {
  CliRun r = run("topology --hwloc " + shared_path("samples/libvirt/caps-2cell.xml"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("HwlocLoadFailed: hwloc could not load hwloc XML"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not a well-formed hwloc XML export"), std::string::npos) << r.err;
}

TEST(CliSources, TheTestLibvirtHostReportsItsPciDevicesTooNoneHere) {
  CliRun r = run("topology" + kTestHost + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_TRUE(doc.contains("pci"));
  EXPECT_TRUE(doc["pci"].empty());  // test:///default has no PCI node devices
}


// L3 cache domains as hwloc and libvirt report them: a synthetic export of 2 packages x 2 NUMA
// nodes x 2 L3 caches of 4 cores x 2 threads gives every cell two domains of 8 CPUs; a dedicated
// guest cell of 8 vCPUs is pinned inside one of them and --explain says which.
TEST(CliSources, L3CacheDomainsAreReadAndAGuestCellIsPinnedInsideOne) {
  const std::string host = " --hwloc " + shared_path("samples/hwloc/synth-2pkg-4numa-l3.xml");
  CliRun topology = run("topology --json" + host);
  ASSERT_EQ(topology.exit_code, 0) << topology.err;
  const auto doc = nlohmann::json::parse(topology.out);
  ASSERT_EQ(doc["cells"].size(), 4u);
  for (const auto& cell : doc["cells"]) {
    ASSERT_EQ(cell["cache_domains"].size(), 2u) << cell.dump();
    std::set<int> united;
    for (const auto& domain : cell["cache_domains"]) {
      EXPECT_EQ(domain.size(), 8u);
      for (int cpu : domain) EXPECT_TRUE(united.insert(cpu).second) << "CPU " << cpu << " in two domains";
    }
    EXPECT_EQ(united, cell["cpus"].get<std::set<int>>());
  }
  CliRun placed = run("place " + kExample + host + " --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated --explain");
  ASSERT_EQ(placed.exit_code, 0) << placed.err;
  EXPECT_NE(placed.err.find("explain: guest cell 0: L3 domain "), std::string::npos) << placed.err;
  std::set<int> pins;
  for (std::size_t at = placed.out.find("<vcpupin"); at != std::string::npos; at = placed.out.find("<vcpupin", at + 1)) {
    const auto value = placed.out.find("cpuset=\"", at) + 8;
    pins.insert(std::stoi(placed.out.substr(value, placed.out.find('"', value) - value)));
  }
  ASSERT_EQ(pins.size(), 8u) << placed.out;
  bool inside_one = false;
  for (const auto& cell : doc["cells"]) {
    for (const auto& domain : cell["cache_domains"]) {
      const auto cpus = domain.get<std::set<int>>();
      inside_one = inside_one || std::includes(cpus.begin(), cpus.end(), pins.begin(), pins.end());
    }
  }
  EXPECT_TRUE(inside_one) << placed.out;
}

}  // namespace
}  // namespace numaplace
