// SPDX-License-Identifier: LGPL-2.1-or-later
// PCI node devices and free memory per cell through libvirt's test driver (no
// daemon): its built-in host, and a custom host file with an SR-IOV PF and VF.
#include <gtest/gtest.h>

#include "plugin/sources/free_memory.h"
#include "plugin/sources/libvirt_connection.h"
#include "support/test_paths.h"

namespace numaplace::plugin {
namespace {

using numaplace::testing::shared_path;

TEST(LibvirtSources, TheDefaultTestHostHasNoPciDevices) {
  auto conn = LibvirtConnection::open_read_only("test:///default");
  ASSERT_TRUE(conn.ok()) << conn.error().message;
  auto scan = conn->pci_node_devices();
  ASSERT_TRUE(scan.ok()) << scan.error().message;
  EXPECT_TRUE(scan->pci.empty());
  EXPECT_TRUE(scan->refused.empty());
}

TEST(LibvirtSources, ReadsSriovDevicesOfACustomTestDriverHost) {
  auto conn = LibvirtConnection::open_read_only("test://" + shared_path("samples/libvirt/testdriver-node-sriov-pci.xml"));
  ASSERT_TRUE(conn.ok()) << conn.error().message;
  auto scan = conn->pci_node_devices();
  ASSERT_TRUE(scan.ok()) << scan.error().message;
  ASSERT_EQ(scan->pci.size(), 2u);
  EXPECT_TRUE(scan->refused.empty());
  const PciDevice* pf = nullptr;
  const PciDevice* vf = nullptr;
  for (const auto& dev : scan->pci) (dev.is_pf ? pf : vf) = &dev;
  ASSERT_NE(pf, nullptr);
  ASSERT_NE(vf, nullptr);
  EXPECT_EQ(pf->address, "0000:3b:00.0");
  EXPECT_EQ(pf->numa_node, 1u);
  EXPECT_EQ(pf->vendor_id, "8086");
  EXPECT_EQ(pf->product_id, "10fb");
  EXPECT_EQ(pf->class_id, "0200");
  EXPECT_EQ(vf->address, "0000:3b:10.0");
  EXPECT_EQ(vf->parent_pf, "0000:3b:00.0");
  EXPECT_EQ(vf->numa_node, 1u);
}

// The test driver stores cell memory in KiB and hands it out where the API
// promises bytes: its 2 GiB and 4 GiB cells come back as 2048 and 4096 KiB free.
TEST(LibvirtSources, FreeMemoryPerCellOfTheDefaultTestHost) {
  auto conn = LibvirtConnection::open_read_only("test:///default");
  ASSERT_TRUE(conn.ok());
  auto cells = conn->cells_free_memory();
  ASSERT_TRUE(cells.ok()) << cells.error().message;
  ASSERT_EQ(cells->size(), 2u);
  EXPECT_EQ((*cells)[0].cell, 0u);
  EXPECT_EQ((*cells)[0].free_kib, 2048u);
  EXPECT_EQ((*cells)[1].cell, 1u);
  EXPECT_EQ((*cells)[1].free_kib, 4096u);
}

TEST(LibvirtSources, AHostWithoutCellsReportsNoFreeMemoryWithLibvirtsReason) {
  auto conn = LibvirtConnection::open_read_only("test://" + shared_path("samples/libvirt/testdriver-node-sriov-pci.xml"));
  ASSERT_TRUE(conn.ok());
  auto cells = conn->cells_free_memory();
  ASSERT_FALSE(cells.ok());
  EXPECT_EQ(cells.error().name, "HostUnavailable");
  EXPECT_NE(cells.error().message.find("Range exceeds available cells"), std::string::npos) << cells.error().message;
}

TEST(FreeMemory, RaisesUsageToWhatTheHostShowsInUseAndNeverLowersIt) {
  HostTopology host;
  host.cells.resize(3);
  for (std::uint32_t i = 0; i < 3; ++i) {
    host.cells[i].id = i * 2;  // sparse ids 0, 2, 4
    host.cells[i].memory_kib = 1000;
  }
  host.cells[1].usage.memory_kib = 700;  // claimed by guests already
  apply_free_memory(host, {{0, 400}, {1, 0}, {2, 600}, {4, 5000}});
  EXPECT_EQ(host.cells[0].usage.memory_kib, 600u);
  EXPECT_EQ(host.cells[1].usage.memory_kib, 700u);  // 400 in use by the report; the claims say more
  EXPECT_EQ(host.cells[2].usage.memory_kib, 0u);    // more free than the cell holds: nothing in use
}

}  // namespace
}  // namespace numaplace::plugin
