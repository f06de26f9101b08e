// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/lifecycle/claims.h"

#include <gtest/gtest.h>

#include "support/test_paths.h"
#include "xml/capabilities_reader.h"
#include "xml/domain_claims.h"
#include "xml/domain_writer.h"
#include "xml/placement_record.h"
#include "xml/xml_document.h"

namespace numaplace {
namespace {

using numaplace::testing::shared_path;

HostTopology two_cell_host() {
  auto text = xml::read_text_file(shared_path("samples/libvirt/caps-2cell.xml"), "caps");
  return *xml::read_capabilities(*text);
}

Result<GuestClaim> claim_of(const std::string& domain_xml, const HostTopology& host) {
  auto doc = xml::parse_document(domain_xml, "domain");
  if (!doc) return doc.error();
  return xml::read_guest_claim(doc->get(), host, "domain");
}

TEST(Claims, ApplyAddsPinsLoadMemoryAndPages) {
  HostTopology host = two_cell_host();
  GuestClaim claim;
  claim.name = "web-3";
  CellClaim cell;
  cell.host_cell = 1;
  cell.pinned_cpus = CpuSet{8, 9};
  cell.shared_vcpus = 1.5;
  cell.memory_kib = 1024;
  cell.pages[2048] = 10;
  claim.cells.push_back(cell);
  GuestClaim elsewhere;
  elsewhere.name = "other-host";
  elsewhere.cells.push_back(CellClaim{7, {}, 1, 0, {}, {}});
  auto foreign = apply_claims(host, {claim, claim, elsewhere});
  EXPECT_EQ(foreign, std::vector<std::string>{"other-host"});
  EXPECT_EQ(to_cpu_list(host.cells[1].usage.pinned_cpus), "8-9");
  EXPECT_DOUBLE_EQ(host.cells[1].usage.shared_cpus, 3.0);
  EXPECT_EQ(host.cells[1].usage.memory_kib, 2048u);
  EXPECT_EQ(host.cells[1].pages[1].size_kib, 2048u);
  EXPECT_EQ(host.cells[1].pages[1].used, 20u);
  EXPECT_EQ(host.cells[0].usage.memory_kib, 0u);
}

TEST(Claims, CollisionsNameTheHolder) {
  GuestClaim a{"a", "uuid-a", true, false, {CellClaim{0, CpuSet{1, 2}, 0, 0, {}, {}}}, 0, 0, {}, {}};
  GuestClaim b{"b", "uuid-b", true, false, {CellClaim{0, CpuSet{2, 3}, 0, 0, {}, {}}}, 0, 0, {}, {}};
  auto collisions = pinning_collisions(a, {a, b});
  ASSERT_EQ(collisions.size(), 1u);
  EXPECT_EQ(collisions[0].first, 2u);
  EXPECT_EQ(collisions[0].second, "b");
}

TEST(DomainClaims, InfersPinsMemoryAndHugePagesFromLibvirtElements) {
  HostTopology host = two_cell_host();
  auto text = xml::read_text_file(shared_path("samples/libvirt/domain-testdriver-2cell.xml"), "domain");
  auto claim = claim_of(*text, host);
  ASSERT_TRUE(claim.ok()) << claim.error().message;
  EXPECT_EQ(claim->name, "numa-test");
  EXPECT_FALSE(claim->placed_by_numaplace);
  ASSERT_EQ(claim->cells.size(), 2u);
  // vcpupin 0->0, 1->1, 2->4, 3->5: each vCPU holds its one pCPU, all on host cell 0.
  EXPECT_EQ(claim->cells[0].host_cell, 0u);
  EXPECT_EQ(to_cpu_list(claim->cells[0].pinned_cpus), "0-1,4-5");
  // Guest cell 0 (512 MiB) is bound to node 0 with 2 MiB pages; cell 1 (512 MiB) to node 1 with 1 GiB pages.
  EXPECT_EQ(claim->cells[0].pages.at(2048), 256u);
  EXPECT_EQ(claim->cells[1].host_cell, 1u);
  EXPECT_EQ(claim->cells[1].pages.at(1048576), 1u);
  EXPECT_EQ(claim->unbound_memory_kib, 0u);
}

TEST(DomainClaims, FloatingVcpusSpreadTheirLoadOverTheirCells) {
  HostTopology host = two_cell_host();
  auto claim = claim_of("<domain type='kvm'><name>f</name><memory unit='MiB'>1024</memory>"
                        "<vcpu cpuset='6-9'>2</vcpu></domain>",
                        host);
  ASSERT_TRUE(claim.ok()) << claim.error().message;
  ASSERT_EQ(claim->cells.size(), 2u);
  // cpus 6,7 are on cell 0 and 8,9 on cell 1: each of the 2 vCPUs counts half on each.
  EXPECT_DOUBLE_EQ(claim->cells[0].shared_vcpus, 1.0);
  EXPECT_DOUBLE_EQ(claim->cells[1].shared_vcpus, 1.0);
  EXPECT_EQ(claim->unbound_memory_kib, 1024u * 1024);
}

TEST(DomainClaims, NumaplaceOutputAndRecordReadBackWhatTheGuestHolds) {
  HostTopology host = two_cell_host();
  Placement placement;
  CellPlacement cell;
  cell.guest_cell = 0;
  cell.host_cell = 1;
  cell.guest_cpus = CpuSet{0, 1, 2};
  cell.host_cpus = CpuSet{10, 11};
  cell.pinning = {{0, 8}, {1, 9}};
  cell.memory_kib = 2048 * 1024;
  cell.cpuset_reserved = CpuSet{12};     // the emulator's own pCPU
  cell.isolated_cpus = CpuSet{13, 14};   // siblings isolate keeps idle
  placement.cells.push_back(cell);
  auto doc = xml::parse_document("<domain type='kvm'><name>r</name><memory unit='MiB'>2048</memory><vcpu>3</vcpu></domain>",
                                 "d");
  ASSERT_TRUE(doc.ok());
  xml::write_placement(doc->get(), host, placement);
  xml::write_record(doc->get(), {{{"hw:numa_nodes", "1"}}, {}, "", "", {}}, {&placement, nullptr, nullptr});
  auto text = xml::serialize(doc->get());
  auto claim = claim_of(text, host);
  ASSERT_TRUE(claim.ok()) << claim.error().message;
  EXPECT_TRUE(claim->placed_by_numaplace);
  ASSERT_EQ(claim->cells.size(), 1u);
  EXPECT_EQ(claim->cells[0].host_cell, 1u);
  EXPECT_EQ(to_cpu_list(claim->cells[0].pinned_cpus), "8-9");
  // The emulator pCPU and the isolated siblings show in no pin of libvirt's: the record says so.
  EXPECT_EQ(to_cpu_list(claim->cells[0].reserved_cpus), "12-14");
  EXPECT_EQ(to_cpu_list(claim->held_cpus()), "8-9,12-14");
  EXPECT_DOUBLE_EQ(claim->cells[0].shared_vcpus, 1.0);
  EXPECT_EQ(claim->cells[0].memory_kib, 2048u * 1024);

  // The stored request reads back too.
  auto reparsed = xml::parse_document(text, "d");
  auto stored = xml::read_stored_request(reparsed->get(), "d");
  ASSERT_TRUE(stored.ok());
  ASSERT_TRUE(stored->has_value());
  EXPECT_EQ((*stored)->flavor_specs.at("hw:numa_nodes"), "1");
  EXPECT_TRUE((*stored)->pci_addresses.empty());
  auto record = xml::read_placement_record(reparsed->get(), "d");
  ASSERT_TRUE(record.ok() && record->has_value());
  EXPECT_EQ((*record)->cells[0].pinning, cell.pinning);
}

TEST(DomainClaims, BrokenRecordsAndPinsAreNamed) {
  HostTopology host = two_cell_host();
  const std::string ns = "https://numaplace.dev/xmlns/domain/1";
  struct Case {
    std::string xml;
    const char* name;
  } cases[] = {
      {"<domain><name>x</name><memory>1024</memory><vcpu>2</vcpu><cputune><vcpupin vcpu='5' cpuset='1'/></cputune></domain>",
       "InvalidDomain"},
      {"<domain><name>x</name><memory>1024</memory><vcpu>2</vcpu><cputune><vcpupin vcpu='0' cpuset='0-4294967295'/></cputune></domain>",
       "InvalidCpuList"},
      {"<domain><name>x</name><memory>1024</memory><vcpu>2</vcpu><metadata><n:numaplace xmlns:n='" + ns +
           "'><n:placement><n:cell guest='0' host='zero' memory-kib='1'/></n:placement></n:numaplace></metadata></domain>",
       "InvalidPlacementRecord"},
      {"<domain><name>x</name><memory>1024</memory><vcpu>2</vcpu><metadata><n:numaplace xmlns:n='" + ns +
           "'><n:placement><n:cell guest='0' host='0' memory-kib='1' pins='0-1'/></n:placement></n:numaplace></metadata></domain>",
       "InvalidPlacementRecord"},
      {"<domain><name>x</name><memory>1024</memory><vcpu>2</vcpu><metadata><n:numaplace xmlns:n='" + ns +
           "'><n:request><n:pci address='3b:00'/></n:request></n:numaplace></metadata></domain>",
       "InvalidPlacementRecord"},
      {"<domain><name>x</name><memory>1024</memory><vcpu>2</vcpu><metadata><n:numaplace xmlns:n='" + ns +
           "'><n:request><n:pci address='3b:00.0'/><n:pci address='0000:3B:00.0'/></n:request></n:numaplace></metadata></domain>",
       "InvalidPlacementRecord"},
      {"<domain><name>x</name><memory>1024</memory><vcpu>2</vcpu><metadata><n:numaplace xmlns:n='" + ns +
           "'><n:bogus/></n:numaplace></metadata></domain>",
       "InvalidPlacementRecord"},
  };
  for (const auto& c : cases) {
    auto claim = claim_of(c.xml, host);
    ASSERT_FALSE(claim.ok()) << c.xml;
    EXPECT_EQ(claim.error().name, c.name) << c.xml << ": " << claim.error().message;
  }
}

}  // namespace
}  // namespace numaplace

namespace numaplace {
namespace {

// A floating guest numaplace placed, narrowed down to one pCPU by a dedicated guest placed after
// it, still floats there: only its record's pins (and 1:1 pins the operator wrote) hold a pCPU.
// The same XML without numaplace's record reads as another tool's guest pinned 1:1.
TEST(DomainClaims, AFloatingVcpuNarrowedToOnePcpuStillFloats) {
  HostTopology host = two_cell_host();
  Placement placement;
  CellPlacement cell;
  cell.guest_cell = 0;
  cell.host_cell = 0;
  cell.guest_cpus = CpuSet{0};
  cell.host_cpus = CpuSet{0, 1};
  cell.memory_kib = 1024 * 1024;
  placement.cells.push_back(cell);
  auto doc = xml::parse_document("<domain type='kvm'><name>f</name><memory unit='MiB'>1024</memory><vcpu>1</vcpu></domain>",
                                 "d");
  ASSERT_TRUE(doc.ok());
  xml::write_placement(doc->get(), host, placement);
  xml::write_record(doc->get(), {{{"hw:numa_nodes", "1"}}, {}, "", "", {}}, {&placement, nullptr, nullptr});
  EXPECT_FALSE(xml::narrow_threads(doc->get(), CpuSet{0}, CpuSet::range(0, 31)).empty());
  const std::string narrowed = xml::serialize(doc->get());
  ASSERT_NE(narrowed.find("<vcpupin vcpu=\"0\" cpuset=\"1\"/>"), std::string::npos) << narrowed;
  auto claim = claim_of(narrowed, host);
  ASSERT_TRUE(claim.ok()) << claim.error().message;
  EXPECT_TRUE(claim->held_cpus().empty());
  ASSERT_EQ(claim->cells.size(), 1u);
  EXPECT_DOUBLE_EQ(claim->cells[0].shared_vcpus, 1.0);

  const auto metadata_start = narrowed.find("<metadata>");
  const auto metadata_end = narrowed.find("</metadata>") + std::string("</metadata>").size();
  std::string foreign = narrowed;
  foreign.erase(metadata_start, metadata_end - metadata_start);
  auto other_tool = claim_of(foreign, host);
  ASSERT_TRUE(other_tool.ok()) << other_tool.error().message;
  EXPECT_EQ(to_cpu_list(other_tool->held_cpus()), "1");
}

}  // namespace
}  // namespace numaplace

namespace numaplace {
namespace {

// The guest being placed never counts against itself, whichever way the host lists it.
TEST(SameGuest, AUuidInAnotherCaseOrWithoutDashesOrTheSameNameIsTheSameGuest) {
  const std::string uuid = "c7a5fdbd-edaf-9455-926a-d65c16db1809";
  EXPECT_TRUE(is_same_guest("a", uuid, "b", "C7A5FDBDEDAF9455926AD65C16DB1809"));
  EXPECT_TRUE(is_same_guest("guest", "", "guest", uuid));
  EXPECT_FALSE(is_same_guest("a", uuid, "b", "c7a5fdbd-edaf-9455-926a-d65c16db1808"));
  EXPECT_FALSE(is_same_guest("", "", "", "")) << "an empty name or uuid matches nothing";
  EXPECT_FALSE(is_same_guest("a", "", "b", ""));
}

}  // namespace
}  // namespace numaplace
