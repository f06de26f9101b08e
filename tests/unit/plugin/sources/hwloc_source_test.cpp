// SPDX-License-Identifier: LGPL-2.1-or-later
// Every hwloc XML sample loads into the host model with the cells, CPUs,
// siblings, memory, sockets, distances and PCI devices read by hand from the
// files; bad paths and malformed exports are refused by name.
#include "plugin/sources/hwloc_source.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/test_paths.h"
#include "xml/xml_document.h"

namespace numaplace::plugin {
namespace {

using numaplace::testing::shared_path;

HostTopology load_sample(const std::string& name) {
  auto host = load_hwloc_xml(shared_path("samples/hwloc/" + name));
  EXPECT_TRUE(host.ok()) << name << ": " << host.error().name << ": " << host.error().message;
  return host.ok() ? *host : HostTopology{};
}

const PciDevice* find_pci(const HostTopology& host, const std::string& address) {
  for (const auto& dev : host.pci) {
    if (dev.address == address) return &dev;
  }
  return nullptr;
}

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = std::filesystem::temp_directory_path() / ("numaplace-hwloc-" + std::to_string(getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path;
}

// `text` read as an hwloc XML export, from a temporary file `name` removed afterwards.
Result<HostTopology> load_hwloc_text(const std::string& name, const std::string& text) {
  const std::string path = temp_file(name, text);
  auto host = load_hwloc_xml(path);
  std::filesystem::remove(path);
  return host;
}

// The text of the two-package sample export that the refusal tests edit ("" when it cannot be
// read, which their finds then fail on).
std::string two_package_sample() {
  auto sample = xml::read_text_file(shared_path("samples/hwloc/synth-2pkg-2numa.xml"), "hwloc");
  return sample.ok() ? *sample : std::string();
}

TEST(HwlocSource, OneNodeSyntheticHost) {
  HostTopology host = load_sample("synth-1numa.xml");  // [numa(memory=8589934592)] core:4 pu:2
  ASSERT_EQ(host.cells.size(), 1u);
  const HostCell& cell = host.cells[0];
  EXPECT_EQ(cell.id, 0u);
  EXPECT_EQ(to_cpu_list(cell.cpus), "0-7");
  ASSERT_EQ(cell.siblings.size(), 4u);
  EXPECT_EQ(to_cpu_list(cell.siblings[0]), "0-1");
  EXPECT_EQ(to_cpu_list(cell.siblings[3]), "6-7");
  EXPECT_EQ(cell.memory_kib, 8u * 1024 * 1024);
  ASSERT_EQ(cell.pages.size(), 1u);
  EXPECT_EQ(cell.pages[0].size_kib, 4u);
  EXPECT_EQ(cell.pages[0].total, 2097152u);
  EXPECT_FALSE(cell.socket.has_value());  // no Package in the description
  EXPECT_TRUE(cell.distances.empty());
  EXPECT_EQ(cell.shared_cpus, cell.cpus);
  EXPECT_EQ(cell.dedicated_cpus, cell.cpus);
  EXPECT_TRUE(host.pci.empty());
}

TEST(HwlocSource, TwoPackagesTwoNodes) {
  HostTopology host = load_sample("synth-2pkg-2numa.xml");  // pack:2 [numa(16 GiB)] core:8 pu:2
  ASSERT_EQ(host.cells.size(), 2u);
  EXPECT_EQ(to_cpu_list(host.cells[0].cpus), "0-15");
  EXPECT_EQ(to_cpu_list(host.cells[1].cpus), "16-31");
  EXPECT_EQ(host.cells[1].siblings.size(), 8u);
  EXPECT_EQ(to_cpu_list(host.cells[1].siblings[0]), "16-17");
  EXPECT_EQ(host.cells[0].memory_kib, 16u * 1024 * 1024);
  EXPECT_EQ(host.cells[0].socket, 0u);
  EXPECT_EQ(host.cells[1].socket, 1u);
  EXPECT_EQ(host.cells[1].pages.at(0).total, 4194304u);
  EXPECT_TRUE(host.cells[0].distances.empty());
}

TEST(HwlocSource, FourNodesWithDistancesAndPciLocality) {
  HostTopology host = load_sample("synth-2pkg-4numa-pci-distances.xml");  // pack:2 numa:2 core:4 pu:2
  ASSERT_EQ(host.cells.size(), 4u);
  const char* cpus[] = {"0-7", "8-15", "16-23", "24-31"};
  const std::vector<std::vector<std::uint32_t>> distances = {
      {10, 12, 21, 21}, {12, 10, 21, 21}, {21, 21, 10, 12}, {21, 21, 12, 10}};
  for (std::uint32_t i = 0; i < 4; ++i) {
    const HostCell& cell = host.cells[i];
    EXPECT_EQ(cell.id, i);
    EXPECT_EQ(to_cpu_list(cell.cpus), cpus[i]);
    EXPECT_EQ(cell.siblings.size(), 4u);
    EXPECT_EQ(cell.memory_kib, 1024u * 1024);
    EXPECT_EQ(cell.socket, i / 2);
    EXPECT_EQ(cell.distances, distances[i]);
  }
  EXPECT_EQ(host.distance(0, 3), 21u);
  EXPECT_EQ(host.distance(2, 3), 12u);
  ASSERT_EQ(host.pci.size(), 2u);
  const PciDevice* nic = find_pci(host, "0000:3b:00.0");
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->numa_node, 0u);
  EXPECT_EQ(nic->vendor_id, "8086");
  EXPECT_EQ(nic->product_id, "1572");
  EXPECT_EQ(nic->class_id, "0200");
  const PciDevice* gpu = find_pci(host, "0000:d8:00.0");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->numa_node, 3u);
  EXPECT_EQ(gpu->vendor_id, "10de");
  EXPECT_EQ(gpu->product_id, "20b5");
  EXPECT_EQ(gpu->class_id, "0302");
  EXPECT_FALSE(gpu->allocated);
}

TEST(HwlocSource, EightNodesWithoutSmt) {
  HostTopology host = load_sample("synth-4pkg-8numa.xml");  // pack:4 numa:2 core:4 pu:1
  ASSERT_EQ(host.cells.size(), 8u);
  for (std::uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(host.cells[i].id, i);
    EXPECT_EQ(host.cells[i].cpus, CpuSet::range(4 * i, 4 * i + 3));
    EXPECT_EQ(host.cells[i].siblings.size(), 4u);  // one PU per core
    EXPECT_EQ(host.cells[i].siblings[0].size(), 1u);
    EXPECT_EQ(host.cells[i].socket, i / 2);
    EXPECT_EQ(host.cells[i].memory_kib, 1024u * 1024);
  }
}

// A real export of a 2-CPU VM: PCI devices hang off the host bridge under the
// Machine, whose nodeset is the one NUMA node, so they are local to node 0.
TEST(HwlocSource, RealVmExportWithPciDevicesAndHugePagePool) {
  HostTopology host = load_sample("real-debian12-vm-1numa-pci.xml");
  ASSERT_EQ(host.cells.size(), 1u);
  const HostCell& cell = host.cells[0];
  EXPECT_EQ(to_cpu_list(cell.cpus), "0-1");
  EXPECT_EQ(cell.siblings.size(), 2u);
  EXPECT_EQ(cell.memory_kib, 4523327488u / 1024);
  ASSERT_EQ(cell.pages.size(), 2u);
  EXPECT_EQ(cell.pages[0].size_kib, 4u);
  EXPECT_EQ(cell.pages[0].total, 1104328u);
  EXPECT_EQ(cell.pages[1].size_kib, 2048u);
  EXPECT_EQ(cell.pages[1].total, 0u);
  EXPECT_EQ(cell.socket, 0u);
  ASSERT_EQ(host.pci.size(), 2u);
  const PciDevice* disk = find_pci(host, "0000:00:02.0");
  ASSERT_NE(disk, nullptr);
  EXPECT_EQ(disk->class_id, "0180");
  EXPECT_EQ(disk->vendor_id, "1af4");
  EXPECT_EQ(disk->numa_node, 0u);
  const PciDevice* nic = find_pci(host, "0000:00:03.0");
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->product_id, "1041");
}

TEST(HwlocSource, EverySampleLoads) {
  int loaded = 0, files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(shared_path("samples/hwloc"))) {
    ++files;
    auto host = load_hwloc_xml(entry.path().string());
    EXPECT_TRUE(host.ok()) << entry.path() << ": " << host.error().message;
    if (host.ok()) {
      ++loaded;
      for (const auto& cell : host->cells) EXPECT_FALSE(cell.cpus.empty()) << entry.path();
    }
  }
  EXPECT_EQ(loaded, files);
  EXPECT_GE(files, 6);
}

// CannotRead, as the CLI says of a file it cannot read (the C ABI's NP_ERR_HOST_UNAVAILABLE).
TEST(HwlocSource, RefusesAMissingFile) {
  auto host = load_hwloc_xml("/nonexistent/topology.xml");
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().name, "CannotRead");
  EXPECT_NE(host.error().message.find("/nonexistent/topology.xml"), std::string::npos) << host.error().message;
}

TEST(HwlocSource, RefusesMalformedAndForeignXml) {
  for (const std::string& text : {std::string("<topology version=\"2.0\"><object type=\"Machine\""),
                                  std::string("<capabilities><host/></capabilities>"), std::string("not xml at all"),
                                  std::string()}) {
    const std::string path = temp_file("bad.xml", text);
    auto host = load_hwloc_xml(path);
    std::filesystem::remove(path);
    ASSERT_FALSE(host.ok()) << text;
    EXPECT_EQ(host.error().name, "HwlocLoadFailed") << text;
    EXPECT_NE(host.error().message.find("hwloc could not load hwloc XML '" + path +
                                        "': it is not a well-formed hwloc XML export"),
              std::string::npos)
        << host.error().message;
  }
}

TEST(HwlocSource, RefusesEntities) {
  const std::string path = temp_file("entity.xml", "<!DOCTYPE topology [<!ENTITY a 'aaaa'>]><topology>&a;</topology>");
  auto host = load_hwloc_xml(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().name, "XmlForbiddenConstruct");
}

// hwloc reads local_memory="-1" as 2^64 - 1 bytes; numaplace refuses it as the export's fault,
// naming the node, not as a host JSON field out of range.
TEST(HwlocSource, RefusesLocalMemoryNoMachineHas) {
  const std::string sample = two_package_sample();
  const std::string from = "local_memory=\"";
  const auto at = sample.find(from);
  ASSERT_NE(at, std::string::npos);
  for (const char* value : {"-1", "18446744073709551615", "1152921504606846977"}) {
    std::string text = sample;
    text.replace(at + from.size(), text.find('"', at + from.size()) - at - from.size(), value);
    auto host = load_hwloc_text("memory.xml", text);
    ASSERT_FALSE(host.ok()) << value;
    EXPECT_EQ(host.error().name, "HwlocLoadFailed") << value;
    EXPECT_NE(host.error().message.find("bytes of local memory, more than any machine has"), std::string::npos)
        << host.error().message;
  }
}

// A page pool whose size is not a whole number of KiB cannot be a numaplace pool: refused while it
// holds pages (dropping it would lose them, rounding would count them at another size), and left
// out when it holds none.
TEST(HwlocSource, RefusesPagePoolsNotInWholeKib) {
  const std::string sample = two_package_sample();
  const std::string from = "<page_type size=\"4096\" count=\"4194304\"/>";
  const auto at = sample.find(from);
  ASSERT_NE(at, std::string::npos);
  struct Case {
    const char* page_type;
    bool refused;
  };
  for (const Case& c : {Case{"<page_type size=\"0\" count=\"8\"/>", true},
                        Case{"<page_type size=\"512\" count=\"8\"/>", true},
                        Case{"<page_type size=\"3000\" count=\"8\"/>", true},
                        Case{"<page_type size=\"0\" count=\"0\"/>", false}}) {
    std::string text = sample;
    text.replace(at, from.size(), c.page_type);
    auto host = load_hwloc_text("pages.xml", text);
    if (c.refused) {
      ASSERT_FALSE(host.ok()) << c.page_type;
      EXPECT_EQ(host.error().name, "HwlocLoadFailed") << c.page_type;
      EXPECT_NE(host.error().message.find("NUMA node 0 reports 8 pages of"), std::string::npos) << host.error().message;
    } else {
      ASSERT_TRUE(host.ok()) << c.page_type << ": " << (host.ok() ? "" : host.error().message);
      ASSERT_EQ(host->cells.size(), 2u);
      EXPECT_TRUE(host->cells[0].pages.empty()) << "an empty entry of no size is no pool";
      EXPECT_FALSE(host->cells[1].pages.empty()) << "the other node keeps its pool";
    }
  }
}

// Exports hwloc 2.9 itself crashes on, or spends seconds and half a gigabyte on, found by
// fuzz.hwloc: each is refused by numaplace's own reading before hwloc sees it.
TEST(HwlocSource, RefusesObjectsHwlocWouldCrashOrStallOn) {
  const std::string sample = two_package_sample();
  struct Case {
    std::string from, to, says;
  };
  for (const Case& c : {Case{"complete_cpuset=", "Hcomplete_cpuset=", "a Machine object has no complete_cpuset"},
                        Case{" nodeset=", " nete_nodeset=", "a Machine object has no nodeset"},
                        Case{"complete_nodeset=\"0x00000002\"", "x=\"\"", "a Package object has no complete_nodeset"},
                        Case{"<object type=\"Machine\"", "<object type=\"Package\"", "exactly one root <object type=\"Machine\">"},
                        Case{"<object type=\"NUMANode\" os_index=\"1\"", "<object type=\"NUMANode\" os_index0=\"1\"",
                             "a NUMANode object has no os_index"},
                        Case{"<object type=\"PU\" os_index=\"3\"", "<object type=\"PU\" os_index=\"4294967295\"",
                             "a PU object has the os_index '4294967295'"},
                        Case{"cpuset=\"0x0000ffff\"", "cpuset=\",0x0000ffff\"", "the cpuset ',0x0000ffff' is not an hwloc bitmap"},
                        Case{"cpuset=\"0x0000ffff\"", "cpuset=\"0xf...f,0x0000ffff\"",
                             "cpuset '0xf...f,0x0000ffff' is not within its complete_cpuset"},
                        Case{"<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">", "<!DOCTYPE topology SYSTEM \"http://x/hwloc2.dtd\">",
                             "declares a DOCTYPE other than the one hwloc writes"}}) {
    std::string text = sample;
    const std::size_t at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, c.from.size(), c.to);
    auto host = load_hwloc_text("crash.xml", text);
    ASSERT_FALSE(host.ok()) << c.to;
    EXPECT_NE(host.error().message.find(c.says), std::string::npos) << host.error().name << ": " << host.error().message;
  }
}

// HWLOC_XMLFILE makes hwloc read an export instead of the machine; a crafted one is refused
// by the same checks, not fed to hwloc.
TEST(HwlocSource, LiveTopologyFromHwlocXmlFileIsCheckedLikeAnyExport) {
  const std::string crash = numaplace::testing::source_path("tests/fuzz/regressions/hwloc-machine-without-nodeset-segv.xml");
  ASSERT_EQ(setenv("HWLOC_XMLFILE", crash.c_str(), 1), 0);
  auto refused = load_hwloc_live();
  ASSERT_EQ(setenv("HWLOC_XMLFILE", shared_path("samples/hwloc/synth-2pkg-2numa.xml").c_str(), 1), 0);
  auto sample = load_hwloc_live();
  unsetenv("HWLOC_XMLFILE");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("a Machine object has no nodeset"), std::string::npos) << refused.error().message;
  ASSERT_TRUE(sample.ok()) << sample.error().message;
  EXPECT_EQ(sample->cells.size(), 2u);
}

TEST(HwlocSource, LoadsThisMachine) {
  auto host = load_hwloc_live();
  ASSERT_TRUE(host.ok()) << host.error().message;
  ASSERT_FALSE(host->cells.empty());
  std::size_t cpus = 0;
  for (const auto& cell : host->cells) {
    cpus += cell.cpus.size();
    EXPECT_GT(cell.memory_kib, 0u);
  }
  EXPECT_GT(cpus, 0u);
}

}  // namespace
}  // namespace numaplace::plugin
