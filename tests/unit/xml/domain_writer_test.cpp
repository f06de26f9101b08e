// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/domain_writer.h"

#include <gtest/gtest.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <algorithm>
#include <memory>

#include "plugin/service/place_domain.h"
#include "support/libvirt_test_driver.h"
#include "support/test_paths.h"
#include "xml/capabilities_reader.h"
#include "xml/xml_document.h"

namespace numaplace {
namespace {

using numaplace::testing::shared_path;
using numaplace::testing::source_path;

const SpecMap kWorkedExample{{"hw:numa_nodes", "2"},      {"hw:numa_cpus.0", "0,1,2,3,4,5"},
                             {"hw:numa_cpus.1", "6,7"},   {"hw:numa_mem.0", "3072"},
                             {"hw:numa_mem.1", "1024"}};

HostTopology host_from(const std::string& caps_file) {
  auto text = xml::read_text_file(shared_path(caps_file), "caps");
  auto host = xml::read_capabilities(*text);
  EXPECT_TRUE(host.ok());
  return *host;
}

std::string read_file(const std::string& path) { return *xml::read_text_file(path, "file"); }

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The test driver's sample domain pins guest cell 1's vCPUs to host cell 0 and binds its memory to
// host cell 1; with its pins moved to host cell 1 (pCPUs 8-9 there) a 2-cell placement can honour
// every element the operator wrote.
std::string testdriver_domain_pinned_per_cell() {
  std::string text = read_file(shared_path("samples/libvirt/domain-testdriver-2cell.xml"));
  text = replaced(text, "cpuset='0-1,4-5'>4</vcpu>", "cpuset='0-1,8-9'>4</vcpu>");
  text = replaced(text, "<vcpupin vcpu='2' cpuset='4'/>", "<vcpupin vcpu='2' cpuset='8'/>");
  text = replaced(text, "<vcpupin vcpu='3' cpuset='5'/>", "<vcpupin vcpu='3' cpuset='9'/>");
  return replaced(text, "<emulatorpin cpuset='0-1,4-5'/>", "<emulatorpin cpuset='0-1,8-9'/>");
}

Result<plugin::PlaceOutcome> place(const HostTopology& host, const std::string& xml, SpecMap specs) {
  plugin::PlaceRequest request;
  request.domain_xml = xml;
  request.flavor_specs = std::move(specs);
  return plugin::place_domain(host, request);
}

// Whether some warning holds `text`.
bool contains(const std::vector<std::string>& warnings, const std::string& text) {
  return std::any_of(warnings.begin(), warnings.end(), [&](const std::string& w) { return w.find(text) != std::string::npos; });
}

TEST(DomainWriter, WorkedExampleLandsOnBothCellsWithPinsAndDistances) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  auto outcome = place(host, read_file(source_path("examples/guest-8vcpu-4g.xml")), kWorkedExample);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  const std::string& xml = outcome->domain_xml;
  EXPECT_NE(xml.find("<memnode cellid=\"0\" mode=\"strict\" nodeset=\"0\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<memnode cellid=\"1\" mode=\"strict\" nodeset=\"1\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<memory mode=\"strict\" nodeset=\"0-1\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<vcpupin vcpu=\"0\" cpuset=\"0-7,16-23\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<vcpupin vcpu=\"7\" cpuset=\"8-15,24-31\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<cell id=\"0\" cpus=\"0-5\" memory=\"3145728\" unit=\"KiB\">"), std::string::npos);
  EXPECT_NE(xml.find("<sibling id=\"1\" value=\"21\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<name>numaplace-demo</name>"), std::string::npos);
}

TEST(DomainWriter, PlacingItsOwnOutputChangesNothing) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  auto first = place(host, read_file(source_path("examples/guest-8vcpu-4g.xml")), kWorkedExample);
  ASSERT_TRUE(first.ok());
  auto second = place(host, first->domain_xml, kWorkedExample);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(first->domain_xml, second->domain_xml);
}

std::string hugepage_guest(const std::string& memory_kib, const std::string& pages, const std::string& numa) {
  return "<domain type='kvm'><name>hp</name><memory unit='KiB'>" + memory_kib +
         "</memory><memoryBacking><hugepages>" + pages + "</hugepages><locked/></memoryBacking><vcpu>4</vcpu>"
         "<os><type arch='x86_64' machine='pc'>hvm</type></os>" + numa + "</domain>";
}

// A domain backed by one huge page size for all its memory asks for that page size: the fit
// counts the host's free pages of that size, and the output names the guest cells they back.
TEST(DomainWriter, DomainHugePagesAreCheckedAndWrittenForEveryGuestCell) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");  // 1024 x 2 MiB pages per cell
  const std::string pages = "<page size='2048' unit='KiB'/>";
  auto placed = place(host, hugepage_guest("2097152", pages, ""), {{"hw:numa_nodes", "2"}});
  ASSERT_TRUE(placed.ok()) << placed.error().message;
  for (const auto& cell : placed->placement->cells) EXPECT_EQ(cell.pagesize_kib, 2048);
  EXPECT_NE(placed->domain_xml.find("<page size=\"2048\" unit=\"KiB\" nodeset=\"0-1\"/>"), std::string::npos)
      << placed->domain_xml;
  EXPECT_NE(placed->domain_xml.find("<locked/>"), std::string::npos) << placed->domain_xml;
  // 4 GiB a cell is more than the 2 GiB of 2 MiB pages a host cell has.
  auto refused = place(host, hugepage_guest("8388608", pages, ""), {{"hw:numa_nodes", "2"}});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().name, "NoFit");
  EXPECT_NE(refused.error().message.find("in 2048 KiB pages"), std::string::npos) << refused.error().message;
}

// Per-cell pages are the operator's: kept, less the guest cells the new topology lacks, which
// libvirt would refuse ("hugepages: node 2 not found").
TEST(DomainWriter, PerCellHugePagesLoseOnlyGuestCellsThatNoLongerExist) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  const std::string numa =
      "<cpu><numa><cell id='0' cpus='0' memory='524288'/><cell id='1' cpus='1' memory='524288'/>"
      "<cell id='2' cpus='2' memory='524288'/><cell id='3' cpus='3' memory='524288'/></numa></cpu>";
  const std::string pages = "<page size='2048' unit='KiB' nodeset='0,2'/><page size='1048576' unit='KiB' nodeset='3'/>";
  auto placed = place(host, hugepage_guest("2097152", pages, numa), {{"hw:numa_nodes", "2"}});
  ASSERT_TRUE(placed.ok()) << placed.error().message;
  const std::string& xml = placed->domain_xml;
  EXPECT_NE(xml.find("<page size=\"2048\" unit=\"KiB\" nodeset=\"0\"/>"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("<page size=\"1048576\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find("<cell id=\"2\""), std::string::npos) << xml;
  bool warned = false;
  for (const auto& w : placed->warnings) warned = warned || w.find("their own page sizes") != std::string::npos;
  EXPECT_TRUE(warned);
}

// Per-cell pages are read for the cells the new topology has: here only guest cell 0 remains,
// and the page naming it (1 GiB) backs it; placing the output again changes nothing.
TEST(DomainWriter, PagesOfTheCellsThatRemainDecideThePageSize) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");  // 4 x 1 GiB pages per cell
  const std::string numa =
      "<cpu><numa><cell id='0' cpus='0-1' memory='1048576'/><cell id='1' cpus='2-3' memory='1048576'/></numa></cpu>";
  const std::string pages = "<page size='2048' unit='KiB' nodeset='1'/><page size='1048576' unit='KiB' nodeset='0'/>";
  auto placed = place(host, hugepage_guest("2097152", pages, numa), {{"hw:numa_nodes", "1"}});
  ASSERT_TRUE(placed.ok()) << placed.error().message;
  ASSERT_EQ(placed->placement->cells.size(), 1u);
  EXPECT_EQ(placed->placement->cells[0].pagesize_kib, 1048576);
  auto again = place(host, placed->domain_xml, {{"hw:numa_nodes", "1"}});
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->domain_xml, placed->domain_xml);
}

// <memory> includes the memory devices; the guest cells hold the rest (libvirt adds the
// devices on top of the cells). Without <memory>, libvirt sums the cells, and so does numaplace.
TEST(DomainWriter, GuestCellsHoldTheMemoryLessItsMemoryDevices) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  const std::string with_dimm =
      "<domain type='kvm'><name>dimm</name><maxMemory slots='4' unit='KiB'>8388608</maxMemory>"
      "<memory unit='KiB'>3145728</memory><vcpu>2</vcpu><os><type arch='x86_64' machine='pc'>hvm</type></os>"
      "<devices><memory model='dimm'><target><size unit='KiB'>1048576</size><node>0</node></target></memory>"
      "</devices></domain>";
  auto placed = place(host, with_dimm, {{"hw:numa_nodes", "2"}});
  ASSERT_TRUE(placed.ok()) << placed.error().message;
  ASSERT_EQ(placed->placement->cells.size(), 2u);
  for (const auto& cell : placed->placement->cells) EXPECT_EQ(cell.memory_kib, 1048576u);
  EXPECT_NE(placed->domain_xml.find("<memory unit=\"KiB\">3145728</memory>"), std::string::npos);

  // Without a request for cells the guest keeps none, and libvirt refuses a device on a guest cell.
  auto confined = place(host, with_dimm, {});
  ASSERT_FALSE(confined.ok());
  EXPECT_EQ(confined.error().name, "ConflictingConstraint");
  EXPECT_NE(confined.error().message.find("has no <cpu><numa> cells"), std::string::npos) << confined.error().message;

  const std::string all_devices =
      "<domain type='kvm'><name>d</name><memory unit='KiB'>1048576</memory><vcpu>2</vcpu>"
      "<devices><memory model='dimm'><target><size unit='GiB'>1</size></target></memory></devices></domain>";
  auto refused = place(host, all_devices, {{"hw:numa_nodes", "1"}});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().name, "InvalidDomain");
  EXPECT_NE(refused.error().message.find("take all of <memory>"), std::string::npos) << refused.error().message;

  const std::string cells_only =
      "<domain type='kvm'><name>c</name><vcpu>2</vcpu><cpu><numa><cell id='0' cpus='0' memory='1' unit='GiB'/>"
      "<cell id='1' cpus='1' memory='1048576'/></numa></cpu></domain>";
  auto from_cells = place(host, cells_only, {{"hw:numa_nodes", "2"}});
  ASSERT_TRUE(from_cells.ok()) << from_cells.error().message;
  for (const auto& cell : from_cells->placement->cells) EXPECT_EQ(cell.memory_kib, 1048576u);
}

// libvirt boots a guest with <cpu><numa> cells on their sum (and sets <memory> to it plus the
// devices), whatever <memory> says: the placement keeps that sum, and a warning names the mismatch.
TEST(DomainWriter, CellsThatDisagreeWithMemoryArePlacedAsLibvirtReadsThem) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  const auto domain = [](const std::string& memory, const std::string& devices) {
    return "<domain type='kvm'><name>m</name><memory unit='GiB'>" + memory + "</memory><vcpu>2</vcpu>"
           "<cpu><numa><cell id='0' cpus='0' memory='4' unit='GiB'/><cell id='1' cpus='1' memory='4' unit='GiB'/>"
           "</numa></cpu><devices>" + devices + "</devices></domain>";
  };
  const std::string dimm = "<memory model='dimm'><target><size unit='GiB'>1</size><node>0</node></target></memory>";
  struct Case {
    std::string xml;
    bool warned;
  } cases[] = {{domain("4", ""), true}, {domain("16", ""), true}, {domain("8", ""), false},
               {domain("9", dimm), false}, {domain("8", dimm), true}};
  for (const auto& c : cases) {
    for (const char* nodes : {"1", "2"}) {
      auto placed = place(host, c.xml, {{"hw:numa_nodes", nodes}});
      ASSERT_TRUE(placed.ok()) << c.xml << ": " << placed.error().message;
      std::uint64_t placed_kib = 0;
      for (const auto& cell : placed->placement->cells) placed_kib += cell.memory_kib;
      EXPECT_EQ(placed_kib, 8u << 20) << c.xml;
      EXPECT_EQ(contains(placed->warnings, "disagrees with its <cpu><numa> cells (8388608 KiB in all)"), c.warned)
          << c.xml;
    }
  }
}

// Confining a guest without NUMA keys keeps the domain's own pins within the confinement and
// says so; a pin onto a pCPU the host lacks, and a <memnode> of a guest confined as a whole, are
// named errors instead of being rewritten.
TEST(DomainWriter, ConfinementKeepsPinsWithinAndRefusesWhatItCannotHonour) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");  // cell 0: 0-7,16-23; cell 1: 8-15,24-31
  const std::string head = "<domain type='kvm'><name>pins</name><memory unit='KiB'>1048576</memory><vcpu>2</vcpu>";
  auto placed = place(host, head + "<cputune><vcpupin vcpu='0' cpuset='1-3,8'/><vcpupin vcpu='1' cpuset='1'/>"
                                   "<emulatorpin cpuset='0-31'/></cputune></domain>", {});
  ASSERT_TRUE(placed.ok()) << placed.error().message;
  ASSERT_TRUE(placed->confinement && placed->confinement->cells.has_value());
  EXPECT_EQ(placed->confinement->cells->to_nodeset(), "0");
  const std::string& out = placed->domain_xml;
  EXPECT_NE(out.find("<vcpupin vcpu=\"0\" cpuset=\"1-3\"/>"), std::string::npos) << out;  // within cell 0
  EXPECT_NE(out.find("<vcpu placement=\"static\" cpuset=\"1-3\">2</vcpu>"), std::string::npos) << out;
  EXPECT_NE(out.find("<vcpupin vcpu=\"1\" cpuset=\"1\"/>"), std::string::npos) << out;  // inside: kept
  EXPECT_NE(out.find("<emulatorpin cpuset=\"0-7,16-23\"/>"), std::string::npos) << out;
  std::size_t kept_within = 0;
  for (const auto& w : placed->warnings) kept_within += w.find("kept within") != std::string::npos ? 1 : 0;
  EXPECT_EQ(kept_within, 2u);

  auto beyond = place(host, head + "<cputune><vcpupin vcpu='0' cpuset='4000'/></cputune></domain>", {});
  ASSERT_FALSE(beyond.ok());
  EXPECT_EQ(beyond.error().name, "PinBeyondHost") << beyond.error().message;
  auto memnode = place(host, head + "<numatune><memnode cellid='0' mode='strict' nodeset='1'/></numatune>"
                                    "<cpu><numa><cell id='0' cpus='0-1' memory='1048576'/></numa></cpu></domain>", {});
  ASSERT_FALSE(memnode.ok());
  EXPECT_EQ(memnode.error().name, "ConflictingConstraint") << memnode.error().message;
  EXPECT_NE(memnode.error().message.find("<memnode cellid='0'>"), std::string::npos) << memnode.error().message;
}

// The sample's own pins put guest cell 1's vCPUs on host cell 0 and its memory on host cell 1: a
// 2-cell placement cannot honour both, and says which elements stand in the way.
TEST(DomainWriter, OperatorPinsThatContradictTheRequestAreNamed) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  auto outcome = place(host, read_file(shared_path("samples/libvirt/domain-testdriver-2cell.xml")),
                       {{"hw:numa_nodes", "2"}});
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().name, "NoFit");
  EXPECT_NE(outcome.error().message.find("within the domain's own"), std::string::npos) << outcome.error().message;
  EXPECT_NE(outcome.error().message.find("<memnode cellid='1' nodeset='1'>"), std::string::npos)
      << outcome.error().message;
}

TEST(DomainWriter, KeepsEverythingItDoesNotOwn) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  auto outcome = place(host, testdriver_domain_pinned_per_cell(), {{"hw:numa_nodes", "2"}});
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  const std::string& xml = outcome->domain_xml;
  // Operator's attributes on existing guest cells and unrelated tuning survive.
  EXPECT_NE(xml.find("memAccess=\"shared\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("discard=\"yes\""), std::string::npos);
  EXPECT_NE(xml.find("memAccess=\"private\""), std::string::npos);
  EXPECT_NE(xml.find("<iothreadpin iothread=\"1\" cpuset=\"0-1\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<page size=\"2048\" unit=\"KiB\" nodeset=\"0\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<topology sockets=\"2\" dies=\"1\" cores=\"2\" threads=\"1\"/>"), std::string::npos);
  // The operator's pins and memory modes are constraints: kept (within the placement), never
  // duplicated, never made strict.
  EXPECT_NE(xml.find("<memnode cellid=\"1\" mode=\"preferred\" nodeset=\"1\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<vcpupin vcpu=\"2\" cpuset=\"8\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<emulatorpin cpuset=\"0-1,8-9\"/>"), std::string::npos) << xml;
  std::size_t pins = 0;
  for (std::size_t at = xml.find("<vcpupin"); at != std::string::npos; at = xml.find("<vcpupin", at + 1)) ++pins;
  EXPECT_EQ(pins, 4u);
}

// Without NUMA keys the guest is confined (default placement), never given a NUMA topology.
TEST(DomainWriter, NoNumaKeysConfinesWithoutInventingATopology) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  auto outcome = place(host, read_file(source_path("examples/guest-8vcpu-4g.xml")), {});
  ASSERT_TRUE(outcome.ok());
  EXPECT_FALSE(outcome->placement.has_value());
  ASSERT_TRUE(outcome->confinement.has_value());
  auto doc = xml::parse_document(outcome->domain_xml, "output");
  ASSERT_TRUE(doc.ok());
  const xmlNode* root = xmlDocGetRootElement(doc->get());
  const xmlNode* numatune = xml::first_child(root, "numatune");
  ASSERT_NE(numatune, nullptr);
  EXPECT_EQ(xml::attribute(xml::first_child(numatune, "memory"), "mode"), "strict");
  EXPECT_EQ(xml::first_child(numatune, "memnode"), nullptr);
  EXPECT_EQ(xml::first_child(root, "cputune"), nullptr);
  EXPECT_EQ(xml::first_child(root, "cpu"), nullptr);
}

TEST(DomainWriter, RefusalNamesTheReason) {
  HostTopology host = host_from("samples/libvirt/caps-1cell.xml");
  auto outcome = place(host, read_file(source_path("examples/guest-8vcpu-4g.xml")), kWorkedExample);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.error().name, "NoFit");
  EXPECT_NE(outcome.error().message.find("2 NUMA cells but the host has only 1"), std::string::npos)
      << outcome.error().message;
}

// A guest without a NUMA topology whose operator bound its memory (<numatune><memory nodeset>) is
// confined within that nodeset, not refused because its hints preferred a cell outside it; a node
// the host lacks beside ones it has is a warning, a nodeset of none of its nodes an error.
TEST(DomainWriter, AFloatingGuestIsConfinedWithinTheOperatorsNodeset) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");  // cell 1: CPUs 8-15,24-31
  auto domain = [](const std::string& nodeset) {
    return "<domain type='test'><name>t</name><memory unit='MiB'>2048</memory><vcpu>4</vcpu>"
           "<numatune><memory mode='strict' nodeset='" + nodeset + "'/></numatune></domain>";
  };
  auto on_one = place(host, domain("1"), {});
  ASSERT_TRUE(on_one.ok()) << on_one.error().message;
  EXPECT_NE(on_one->domain_xml.find("<memory mode=\"strict\" nodeset=\"1\"/>"), std::string::npos) << on_one->domain_xml;
  EXPECT_NE(on_one->domain_xml.find("cpuset=\"8-15,24-31\""), std::string::npos) << on_one->domain_xml;
  auto with_missing = place(host, domain("0-1,5"), {});
  ASSERT_TRUE(with_missing.ok()) << with_missing.error().message;
  ASSERT_EQ(with_missing->warnings.size(), 1u);
  EXPECT_NE(with_missing->warnings[0].find("names NUMA nodes 5, which this host does not have; placed within 0-1"),
            std::string::npos)
      << with_missing->warnings[0];
  for (const SpecMap& specs : {SpecMap{}, SpecMap{{"hw:numa_nodes", "1"}}}) {
    auto none = place(host, domain("5"), specs);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().name, "ConflictingConstraint");
    EXPECT_NE(none.error().message.find("names no NUMA node of this host (it has 0-1)"), std::string::npos)
        << none.error().message;
  }
}

// What the writer changes of the operator's elements beyond the placement is said: an
// <iothreadpin> moved onto the emulator's pCPUs, a <memnode> of a guest cell the new request
// removes, per-cell <page> elements the request's page size replaces.
TEST(DomainWriter, OperatorElementsChangedBeyondThePlacementAreWarnedAbout) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");  // 1024 x 2 MiB pages per cell
  auto moved = place(host, "<domain type='kvm'><name>io</name><memory unit='GiB'>2</memory><vcpu>4</vcpu>"
                           "<iothreads>1</iothreads><cputune><iothreadpin iothread='1' cpuset='30'/></cputune></domain>",
                     {{"hw:numa_nodes", "1"}});
  ASSERT_TRUE(moved.ok()) << moved.error().message;
  EXPECT_TRUE(contains(moved->warnings, "<iothreadpin iothread='1' cpuset='30'> is moved onto 0-7,16-23")) << moved->domain_xml;
  auto kept = place(host, "<domain type='kvm'><name>io</name><memory unit='GiB'>2</memory><vcpu>4</vcpu>"
                          "<iothreads>1</iothreads><cputune><iothreadpin iothread='1' cpuset='0-1'/></cputune></domain>",
                    {{"hw:numa_nodes", "1"}});
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_FALSE(contains(kept->warnings, "iothreadpin")) << kept->domain_xml;

  const std::string two_cells = read_file(shared_path("samples/libvirt/domain-kvm-2cell-full-numa.xml"));
  auto one_cell = place(host, "<domain type='kvm'><name>m</name><memory unit='MiB'>1024</memory><vcpu>4</vcpu>"
                              "<numatune><memnode cellid='0' mode='strict' nodeset='0'/><memnode cellid='1' "
                              "mode='preferred' nodeset='1'/></numatune><cpu><numa><cell id='0' cpus='0-1' "
                              "memory='512' unit='MiB'/><cell id='1' cpus='2-3' memory='512' unit='MiB'/></numa></cpu>"
                              "</domain>",
                        {{"hw:numa_nodes", "1"}});
  ASSERT_TRUE(one_cell.ok()) << one_cell.error().message;
  EXPECT_TRUE(contains(one_cell->warnings, "<memnode cellid='1'> is dropped: the guest now has 1 NUMA cell"));
  auto sized = place(host, two_cells, {{"hw:numa_nodes", "2"}, {"hw:mem_page_size", "large"}});
  ASSERT_TRUE(sized.ok()) << sized.error().message;
  EXPECT_TRUE(contains(sized->warnings, "<page> elements are replaced by the page sizes the request names"));
  EXPECT_FALSE(contains(sized->warnings, "is dropped"));
}

TEST(DomainWriter, BadDomainsAreNamed) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  struct Case {
    const char* xml;
    const char* name;
  } cases[] = {
      {"<domain type='test'><name>x</name>", "XmlMalformed"},
      {"<capabilities/>", "NotDomain"},
      // A <domain> of another vocabulary (a default or a prefixed namespace) is not libvirt's.
      {"<domain xmlns='urn:other' type='test'><name>x</name><vcpu>2</vcpu><memory>1024</memory></domain>", "NotDomain"},
      {"<o:domain xmlns:o='urn:other' type='test'><name>x</name><vcpu>2</vcpu><memory>1024</memory></o:domain>", "NotDomain"},
      {"<domain type='test'><name>x</name><memory>1024</memory></domain>", "InvalidDomain"},
      {"<domain type='test'><name>x</name><vcpu>0</vcpu><memory>1024</memory></domain>", "InvalidDomain"},
      {"<domain type='test'><name>x</name><vcpu>4294967297</vcpu><memory>1024</memory></domain>", "InvalidDomain"},
      {"<domain type='test'><name>x</name><vcpu>2</vcpu></domain>", "InvalidDomain"},
      {"<domain type='test'><name>x</name><vcpu>2</vcpu><memory unit='KiB'>-1</memory></domain>", "InvalidMemorySize"},
      {"<domain type='test'><name>x</name><vcpu>2</vcpu><memory unit='EiB'>99999</memory></domain>", "InvalidMemorySize"},
      // libvirt refuses a domain without a name ("missing name information"); a blank one it takes.
      {"<domain type='test'><vcpu>2</vcpu><memory>1024</memory></domain>", "InvalidDomain"},
      {"<domain type='test'><name></name><vcpu>2</vcpu><memory>1024</memory></domain>", "InvalidDomain"},
      {"<domain type='test'><name>  </name><vcpu>2</vcpu><memory>1024</memory></domain>", ""},
      // As libvirt's test driver: "maximum vCPU count must not be less than current vCPU count";
      // "Expected non-negative integer value"; current='0' it takes as every vCPU online.
      {"<domain type='test'><name>x</name><vcpu current='12'>8</vcpu><memory>1024</memory></domain>", "InvalidDomain"},
      {"<domain type='test'><name>x</name><vcpu current='0'>8</vcpu><memory>1024</memory></domain>", ""},
      {"<domain type='test'><name>x</name><vcpu current='two'>8</vcpu><memory>1024</memory></domain>", "InvalidDomain"},
      {"<domain type='test'><name>x</name><vcpu current='2'>8</vcpu><memory>1024</memory></domain>", ""},
      {"<domain type='test'><name>x</name><vcpu current='8'>8</vcpu><memory>1024</memory></domain>", ""},
  };
  for (const auto& c : cases) {
    auto outcome = place(host, c.xml, {{"hw:numa_nodes", "1"}});
    if (std::string(c.name).empty()) {
      EXPECT_TRUE(outcome.ok()) << c.xml << ": " << outcome.error().message;
      continue;
    }
    ASSERT_FALSE(outcome.ok()) << c.xml;
    EXPECT_EQ(outcome.error().name, c.name) << c.xml << ": " << outcome.error().message;
  }
  auto nameless = place(host, "<domain type='test'><vcpu>2</vcpu><memory>1024</memory></domain>", {{"hw:numa_nodes", "1"}});
  ASSERT_FALSE(nameless.ok());
  EXPECT_NE(nameless.error().message.find("has no <name>"), std::string::npos) << nameless.error().message;
}

// libvirt reads a guest cell's memory policy from its <memnode> alone (and under <memory
// mode='restrictive'> takes only restrictive ones): the cells numaplace binds get the operator's
// <memory> mode, whichever it is (it was strict for all but restrictive, so preferred memory
// became strict), and libvirt's test driver defines the result.
TEST(DomainWriter, EachGuestCellIsBoundInTheOperatorsMemoryMode) {
  const testing::TestDriver conn = testing::open_test_driver();
  ASSERT_NE(conn, nullptr);
  const auto host = testing::test_driver_host(conn.get());
  ASSERT_TRUE(host.ok()) << host.error().message;
  for (const std::string mode : {"restrictive", "preferred", "interleave", "strict", ""}) {
    const std::string domain = "<domain type='test'><name>mode-" + mode + "</name><memory unit='MiB'>1024</memory><vcpu>4</vcpu>"
                               "<numatune><memory " + (mode.empty() ? "" : "mode='" + mode + "' ") + "nodeset='0-1'/></numatune>"
                               "<os><type>hvm</type></os></domain>";
    auto outcome = place(*host, domain, {{"hw:numa_nodes", "2"}});
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    const std::string written = mode.empty() ? "strict" : mode;
    for (const std::string cell : {"0", "1"}) {
      EXPECT_NE(outcome->domain_xml.find("<memnode cellid=\"" + cell + "\" mode=\"" + written + "\" nodeset="), std::string::npos)
          << outcome->domain_xml;
    }
    testing::DefinedDomain defined(virDomainDefineXML(conn.get(), outcome->domain_xml.c_str()));
    EXPECT_NE(defined, nullptr) << mode << ": " << (virGetLastErrorMessage() != nullptr ? virGetLastErrorMessage() : "");
  }
}

// <interconnects> entries naming a guest cell the placement drops would make libvirt refuse the
// domain: they are dropped and said; those between cells the guest keeps stay, after the cells.
TEST(DomainWriter, InterconnectsOfCellsTheGuestLosesAreDroppedAndSaid) {
  const testing::TestDriver conn = testing::open_test_driver();
  ASSERT_NE(conn, nullptr);
  const auto host = testing::test_driver_host(conn.get());
  ASSERT_TRUE(host.ok()) << host.error().message;
  const std::string domain =
      "<domain type='test'><name>links</name><memory unit='MiB'>2048</memory><vcpu>4</vcpu><os><type>hvm</type></os>"
      "<cpu><numa><cell id='0' cpus='0-1' memory='1048576'/><cell id='1' cpus='2-3' memory='1048576'/>"
      "<interconnects><latency initiator='0' target='0' type='access' value='5'/>"
      "<latency initiator='1' target='1' type='access' value='7'/>"
      "<bandwidth initiator='0' target='1' type='access' value='204800' unit='KiB'/></interconnects></numa></cpu>"
      "</domain>";
  auto two = place(*host, domain, {{"hw:numa_nodes", "2"}});
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_NE(two->domain_xml.find("initiator=\"1\" target=\"1\""), std::string::npos) << two->domain_xml;
  EXPECT_LT(two->domain_xml.rfind("<cell "), two->domain_xml.find("<interconnects>")) << two->domain_xml;
  {
    testing::DefinedDomain both(virDomainDefineXMLFlags(conn.get(), two->domain_xml.c_str(), VIR_DOMAIN_DEFINE_VALIDATE));
    EXPECT_NE(both, nullptr) << (virGetLastErrorMessage() != nullptr ? virGetLastErrorMessage() : "");
  }  // undefined again: the one-cell placement below is defined under the same name

  auto one = place(*host, domain, {{"hw:numa_nodes", "1"}});
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_NE(one->domain_xml.find("<latency initiator=\"0\" target=\"0\""), std::string::npos) << one->domain_xml;
  EXPECT_EQ(one->domain_xml.find("initiator=\"1\""), std::string::npos) << one->domain_xml;
  EXPECT_EQ(one->domain_xml.find("target=\"1\""), std::string::npos) << one->domain_xml;
  int said = 0;
  for (const auto& warning : one->warnings) said += warning.find("<interconnects>") != std::string::npos ? 1 : 0;
  EXPECT_EQ(said, 2);  // the latency of cell 1 and the bandwidth to it
  testing::DefinedDomain kept(virDomainDefineXMLFlags(conn.get(), one->domain_xml.c_str(), VIR_DOMAIN_DEFINE_VALIDATE));
  EXPECT_NE(kept, nullptr) << (virGetLastErrorMessage() != nullptr ? virGetLastErrorMessage() : "") << one->domain_xml;
}

// The operator's own <cpu><numa> cells resized by the request (hw:numa_nodes alone splits evenly)
// are said, each; cells the request keeps as written, and a second placement, say nothing.
TEST(DomainWriter, OperatorCellsTheRequestResizesAreSaid) {
  const testing::TestDriver conn = testing::open_test_driver();
  ASSERT_NE(conn, nullptr);
  const auto host = testing::test_driver_host(conn.get());
  ASSERT_TRUE(host.ok()) << host.error().message;
  const std::string domain =
      "<domain type='test'><name>cells</name><memory unit='MiB'>2048</memory><vcpu>4</vcpu><os><type>hvm</type></os>"
      "<cpu><numa><cell id='0' cpus='0' memory='512' unit='MiB'/><cell id='1' cpus='1-3' memory='1536' unit='MiB'/>"
      "</numa></cpu></domain>";
  const auto resized = [](const plugin::PlaceOutcome& outcome) {
    std::vector<std::string> said;
    for (const auto& warning : outcome.warnings) {
      if (warning.find("as the request gives the guest's cells") != std::string::npos) said.push_back(warning);
    }
    return said;
  };
  auto even = place(*host, domain, {{"hw:numa_nodes", "2"}});
  ASSERT_TRUE(even.ok()) << even.error().message;
  const auto said = resized(*even);
  ASSERT_EQ(said.size(), 2u);
  EXPECT_NE(said[0].find("<cell id='0'> (vCPUs 0, 512 MiB) is now vCPUs 0-1, 1024 MiB"), std::string::npos) << said[0];
  EXPECT_TRUE(resized(*place(*host, even->domain_xml, {})).empty());
  auto as_written = place(*host, domain, {{"hw:numa_nodes", "2"}, {"hw:numa_cpus.0", "0"}, {"hw:numa_cpus.1", "1-3"},
                                          {"hw:numa_mem.0", "512"}, {"hw:numa_mem.1", "1536"}});
  ASSERT_TRUE(as_written.ok()) << as_written.error().message;
  EXPECT_TRUE(resized(*as_written).empty());
}

// The real libvirt test driver accepts what numaplace writes, with schema validation on.
TEST(DomainWriter, LibvirtTestDriverValidatesThePlacedDomain) {
  const testing::TestDriver conn = testing::open_test_driver();
  ASSERT_NE(conn, nullptr);
  const auto host = testing::test_driver_host(conn.get());
  ASSERT_TRUE(host.ok()) << host.error().message;
  for (const std::string& domain : {read_file(source_path("examples/guest-8vcpu-4g.xml")), testdriver_domain_pinned_per_cell()}) {
    SpecMap specs = domain.find("numaplace-demo") != std::string::npos ? kWorkedExample : SpecMap{{"hw:numa_nodes", "2"}};
    auto outcome = place(*host, domain, specs);
    ASSERT_TRUE(outcome.ok()) << domain << ": " << outcome.error().message;
    virDomainPtr defined = virDomainDefineXMLFlags(conn.get(), outcome->domain_xml.c_str(), VIR_DOMAIN_DEFINE_VALIDATE);
    const virError* error = virGetLastError();
    EXPECT_NE(defined, nullptr) << domain << ": " << (error != nullptr && error->message ? error->message : "");
    if (defined != nullptr) {
      virDomainUndefine(defined);
      virDomainFree(defined);
    }
  }
}

}  // namespace
}  // namespace numaplace
