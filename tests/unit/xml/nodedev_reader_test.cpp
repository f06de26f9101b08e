// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/nodedev_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "support/test_paths.h"
#include "xml/xml_document.h"

namespace numaplace::xml {
namespace {

using numaplace::testing::shared_path;

PciDevice read_sample(const std::string& relative) {
  auto text = read_text_file(shared_path(relative), "sample");
  EXPECT_TRUE(text.ok());
  auto dev = read_pci_node_device(text.ok() ? *text : std::string(), relative);
  EXPECT_TRUE(dev.ok()) << dev.error().message;
  EXPECT_TRUE(dev.ok() && dev->has_value()) << relative << " is not a PCI device";
  return dev.ok() && dev->has_value() ? **dev : PciDevice{};
}

std::string device_xml(const std::string& capability_body) {
  return "<device><name>pci_test</name><capability type='pci'>" + capability_body + "</capability></device>";
}

const std::string kAddress = "<domain>0</domain><bus>59</bus><slot>16</slot><function>0</function>";
const std::string kIds = "<product id='0x10ed'/><vendor id='0x8086'/>";

TEST(NodeDeviceReader, ReadsAGpuWithItsNumaNodeAndClass) {
  PciDevice dev = read_sample("samples/libvirt/nodedev-pci-gpu-numa3.xml");
  EXPECT_EQ(dev.address, "0000:d8:00.0");
  EXPECT_EQ(dev.numa_node, 3u);
  EXPECT_EQ(dev.vendor_id, "10de");
  EXPECT_EQ(dev.product_id, "20b5");
  EXPECT_EQ(dev.class_id, "0302");
  EXPECT_FALSE(dev.is_pf);
  EXPECT_TRUE(dev.parent_pf.empty());
  EXPECT_FALSE(dev.allocated);
}

TEST(NodeDeviceReader, ADeviceWithoutNumaElementHasNoNode) {
  PciDevice dev = read_sample("samples/libvirt/nodedev-pci-real-no-numa.xml");
  EXPECT_EQ(dev.address, "0000:00:03.0");
  EXPECT_FALSE(dev.numa_node.has_value());
  EXPECT_EQ(dev.vendor_id, "1af4");
  EXPECT_EQ(dev.product_id, "1041");
}

TEST(NodeDeviceReader, ReadsSriovPhysicalAndVirtualFunctions) {
  PciDevice pf = read_sample("samples/libvirt/nodedev-pci-sriov-pf-numa1.xml");
  EXPECT_EQ(pf.address, "0000:3b:00.0");
  EXPECT_TRUE(pf.is_pf);
  EXPECT_TRUE(pf.parent_pf.empty());
  EXPECT_EQ(pf.numa_node, 1u);
  PciDevice vf = read_sample("samples/libvirt/nodedev-pci-sriov-vf-numa1.xml");
  EXPECT_EQ(vf.address, "0000:3b:10.0");
  EXPECT_FALSE(vf.is_pf);
  EXPECT_EQ(vf.parent_pf, "0000:3b:00.0");
  EXPECT_EQ(vf.numa_node, 1u);
  EXPECT_EQ(vf.product_id, "10ed");
}

TEST(NodeDeviceReader, NumaNodeMinusOneMeansUnknown) {
  auto dev = read_pci_node_device(device_xml(kAddress + kIds + "<numa node='-1'/>"));
  ASSERT_TRUE(dev.ok()) << dev.error().message;
  ASSERT_TRUE(dev->has_value());
  EXPECT_FALSE((*dev)->numa_node.has_value());
}

TEST(NodeDeviceReader, NonPciDevicesAreSkipped) {
  auto dev = read_pci_node_device("<device><name>scsi_host0</name><capability type='scsi_host'><host>0</host>"
                                  "</capability></device>");
  ASSERT_TRUE(dev.ok()) << dev.error().message;
  EXPECT_FALSE(dev->has_value());
}

TEST(NodeDeviceReader, RefusesImpossibleFieldsByName) {
  struct Case {
    std::string body;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {"<domain>0</domain><bus>256</bus><slot>0</slot><function>0</function>" + kIds, "PCI bus 256 is out of range"},
      {"<domain>0</domain><bus>0</bus><slot>32</slot><function>0</function>" + kIds, "PCI slot 32"},
      {"<domain>0</domain><bus>0</bus><slot>0</slot><function>8</function>" + kIds, "PCI function 8"},
      {"<domain>0</domain><bus>x</bus><slot>0</slot><function>0</function>" + kIds, "<bus> is 'x'"},
      {"<domain>0</domain><slot>0</slot><function>0</function>" + kIds, "no <bus>"},
      {kAddress + "<product id='0x10ed'/>", "no <vendor id="},
      {kAddress + "<product id='0x10ed'/><vendor id='0x18086'/>", "<vendor id='0x18086'>"},
      {kAddress + kIds + "<numa node='one'/>", "<numa node='one'>"},
      {kAddress + kIds + "<numa/>", "<numa> has no node"},
      {kAddress + kIds + "<class>0x1000000</class>", "<class>"},
      {kAddress + kIds + "<capability type='phys_function'/>", "phys_function capability has no <address>"},
      {kAddress + kIds + "<capability type='phys_function'><address domain='0' bus='0x3b' slot='0x40' function='0'/>"
                         "</capability>",
       "impossible slot '0x40'"},
  };
  for (const auto& c : cases) {
    auto dev = read_pci_node_device(device_xml(c.body), "case");
    ASSERT_FALSE(dev.ok()) << c.body;
    EXPECT_EQ(dev.error().name, "InvalidNodeDevice") << c.body;
    EXPECT_NE(dev.error().message.find(c.expect), std::string::npos) << dev.error().message;
    EXPECT_NE(dev.error().message.find("node device 'pci_test' in case"), std::string::npos) << dev.error().message;
  }
}

TEST(NodeDeviceReader, RefusesDocumentsThatAreNotNodeDevices) {
  auto hostdev = read_pci_node_device("<hostdev mode='subsystem' type='pci'/>", "x.xml");
  ASSERT_FALSE(hostdev.ok());
  EXPECT_EQ(hostdev.error().name, "NotNodeDevice");
  EXPECT_NE(hostdev.error().message.find("root <hostdev>"), std::string::npos);
  auto broken = read_pci_node_device("<device><name>x</name>", "x.xml");
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().name, "XmlMalformed");
  auto entity = read_node_devices("<!DOCTYPE node [<!ENTITY a 'b'>]><node/>", "x.xml");
  ASSERT_FALSE(entity.ok());
  EXPECT_EQ(entity.error().name, "XmlForbiddenConstruct");
}

TEST(NodeDeviceReader, ReadsATestDriverNodeFile) {
  auto text = read_text_file(shared_path("samples/libvirt/testdriver-node-sriov-pci.xml"), "sample");
  ASSERT_TRUE(text.ok());
  auto scan = read_node_devices(*text, "testdriver-node-sriov-pci.xml");
  ASSERT_TRUE(scan.ok()) << scan.error().message;
  ASSERT_EQ(scan->pci.size(), 2u);
  EXPECT_TRUE(scan->refused.empty());
  EXPECT_EQ(scan->pci[0].address, "0000:3b:00.0");
  EXPECT_TRUE(scan->pci[0].is_pf);
  EXPECT_EQ(scan->pci[1].parent_pf, "0000:3b:00.0");
}

// virt-manager's test-driver host: 94 devices, 37 of them PCI; two carry PCI
// functions above 7 (50 and 15), which no real PCI address can have.
TEST(NodeDeviceReader, ReadsVirtManagersTestDriverFileAndRefusesImpossibleFunctions) {
  auto text = read_text_file(shared_path("corpus/virt-manager/testdriver.xml"), "corpus file");
  ASSERT_TRUE(text.ok());
  auto scan = read_node_devices(*text, "testdriver.xml");
  ASSERT_TRUE(scan.ok()) << scan.error().message;
  EXPECT_EQ(scan->pci.size(), 35u);
  EXPECT_EQ(scan->skipped, 94u - 37u);
  ASSERT_EQ(scan->refused.size(), 2u);
  EXPECT_NE(scan->refused[0].message.find("node device 'pci_1180_476'"), std::string::npos) << scan->refused[0].message;
  EXPECT_NE(scan->refused[0].message.find("PCI function 50 is out of range (0-7)"), std::string::npos);
  EXPECT_NE(scan->refused[1].message.find("PCI function 15"), std::string::npos) << scan->refused[1].message;
}

// Every node device file of the samples and the real-world corpus either reads
// (a PCI device, or a non-PCI device that is skipped) or is refused with a named
// error and a reason.
TEST(NodeDeviceReader, CorpusAndSamplesReadOrAreRefusedWithAReason) {
  std::vector<std::filesystem::path> files;
  for (const char* dir : {"corpus/libvirt/nodedev", "corpus/virt-manager/nodedev"}) {
    for (const auto& entry : std::filesystem::directory_iterator(shared_path(dir))) files.push_back(entry.path());
  }
  for (const auto& entry : std::filesystem::directory_iterator(shared_path("samples/libvirt"))) {
    if (entry.path().filename().string().rfind("nodedev-", 0) == 0) files.push_back(entry.path());
  }
  std::map<std::string, int> counts;
  std::map<std::string, std::string> refusals;
  for (const auto& path : files) {
    auto text = read_text_file(path.string(), "node device file");
    ASSERT_TRUE(text.ok()) << path;
    auto dev = read_pci_node_device(*text, path.filename().string());
    if (!dev.ok()) {
      ++counts["refused"];
      EXPECT_FALSE(dev.error().name.empty());
      EXPECT_NE(dev.error().message.find(path.filename().string()), std::string::npos) << dev.error().message;
      refusals[path.filename().string()] = dev.error().name + ": " + dev.error().message;
    } else if (dev->has_value()) {
      ++counts["pci"];
      EXPECT_EQ((*dev)->address.size(), 12u) << path;
      EXPECT_EQ((*dev)->vendor_id.size(), 4u) << path;
      EXPECT_EQ((*dev)->product_id.size(), 4u) << path;
    } else {
      ++counts["skipped"];
    }
  }
  EXPECT_EQ(files.size(), 24u);
  EXPECT_EQ(counts["pci"], 17);      // 13 of libvirt's corpus and the 4 samples
  EXPECT_EQ(counts["skipped"], 5);   // scsi_host and scsi devices
  EXPECT_EQ(counts["refused"], 2);
  ASSERT_EQ(refusals.count("pci_0000_00_02_0_header_type.xml"), 1u);
  EXPECT_NE(refusals["pci_0000_00_02_0_header_type.xml"].find("InvalidNodeDevice: node device 'pci_0000_00_02_0' in "
                                                              "pci_0000_00_02_0_header_type.xml: PCI bus 4294967295 is "
                                                              "out of range (0-255)"),
            std::string::npos)
      << refusals["pci_0000_00_02_0_header_type.xml"];
  ASSERT_EQ(refusals.count("pcidev.xml"), 1u);  // virt-manager's <hostdev>, not a node device
  EXPECT_NE(refusals["pcidev.xml"].find("NotNodeDevice"), std::string::npos) << refusals["pcidev.xml"];
}

}  // namespace
}  // namespace numaplace::xml
