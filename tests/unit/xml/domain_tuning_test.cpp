// SPDX-License-Identifier: LGPL-2.1-or-later
// What the request asks besides the placement, as the domain writer applies it: realtime vCPUs
// (<vcpusched>, the emulator off their pCPUs, locked memory), hw:locked_memory, the CPU topology,
// iothread pins that follow the guest, memory-only guest cells, and guest cells' own page sizes
// (numaplace:mem_page_size.N). Every output is checked with libvirt's schema (virt-xml-validate),
// and defined on libvirt's test driver with validation on where it takes the domain.
#include <gtest/gtest.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <utility>
#include <vector>

#include "plugin/service/place_domain.h"
#include "plugin/sources/hwloc_source.h"
#include "support/test_paths.h"
#include "xml/capabilities_reader.h"
#include "xml/domain_writer.h"
#include "xml/xml_document.h"

namespace numaplace {
namespace {

using numaplace::testing::shared_path;
using numaplace::testing::source_path;

HostTopology host_from(const std::string& caps_file) {
  auto text = xml::read_text_file(shared_path(caps_file), "caps");
  auto host = xml::read_capabilities(*text);
  EXPECT_TRUE(host.ok());
  return *host;
}

std::string example() { return *xml::read_text_file(source_path("examples/guest-8vcpu-4g.xml"), "example"); }

Result<plugin::PlaceOutcome> place(const HostTopology& host, const std::string& xml, SpecMap specs) {
  plugin::PlaceRequest request;
  request.domain_xml = xml;
  request.flavor_specs = std::move(specs);
  return plugin::place_domain(host, request);
}

// virt-xml-validate's verdict on `xml`: empty when libvirt's schema accepts it.
std::string schema_refusal(const std::string& xml) {
  const std::string path =
      std::filesystem::temp_directory_path() / ("numaplace-tuning-" + std::to_string(getpid()) + ".xml");
  std::ofstream(path) << xml;
  const std::string out = path + ".out";
  const int status = std::system(("virt-xml-validate '" + path + "' domain >'" + out + "' 2>&1").c_str());
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(path);
  std::filesystem::remove(out);
  return status == 0 ? "" : "virt-xml-validate: " + text;
}

struct ConnectionCloser {
  void operator()(virConnect* conn) const { virConnectClose(conn); }
};

// libvirt's test driver's verdict on `xml` (define with validation): empty when accepted.
std::string test_driver_refusal(const std::string& xml) {
  virSetErrorFunc(nullptr, [](void*, virErrorPtr) {});
  std::unique_ptr<virConnect, ConnectionCloser> conn(virConnectOpen("test:///default"));
  if (!conn) return "test:///default cannot be opened";
  virDomainPtr defined = virDomainDefineXMLFlags(conn.get(), xml.c_str(), VIR_DOMAIN_DEFINE_VALIDATE);
  if (defined == nullptr) {
    const virError* error = virGetLastError();
    return std::string("define: ") + (error != nullptr && error->message ? error->message : "refused");
  }
  virDomainUndefine(defined);
  virDomainFree(defined);
  return "";
}

void expect_libvirt_accepts(const std::string& xml) {
  EXPECT_EQ(schema_refusal(xml), "") << xml;
  EXPECT_EQ(test_driver_refusal(xml), "") << xml;
}

xml::Document parsed(const std::string& text) {
  auto doc = xml::parse_document(text, "output");
  EXPECT_TRUE(doc.ok());
  return std::move(*doc);
}

CpuSet cpuset_of(const xmlNode* node, const char* attribute = "cpuset") {
  auto text = xml::attribute(node, attribute);
  EXPECT_TRUE(text.has_value());
  auto set = parse_cpu_list(text.value_or(""), attribute);
  EXPECT_TRUE(set.ok());
  return set.ok() ? *set : CpuSet{};
}

// The pCPUs the <vcpupin> elements give the vCPUs in `vcpus`.
CpuSet pins_of(const xmlNode* cputune, const CpuSet& vcpus) {
  CpuSet out;
  for (const xmlNode* pin : xml::child_elements(cputune, "vcpupin")) {
    const auto id = xml::attribute(pin, "vcpu");
    if (id && vcpus.contains(static_cast<std::uint32_t>(std::stoul(*id)))) out = out.united(cpuset_of(pin));
  }
  return out;
}

TEST(DomainTuning, RealtimeVcpusGetFifoAndTheEmulatorLeavesTheirPcpus) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  auto outcome = place(host, example(),
                       {{"hw:cpu_policy", "dedicated"}, {"hw:cpu_realtime", "yes"}, {"hw:cpu_realtime_mask", "^0-1"}});
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  auto doc = parsed(outcome->domain_xml);
  const xmlNode* root = xmlDocGetRootElement(doc.get());
  const xmlNode* cputune = xml::first_child(root, "cputune");
  ASSERT_EQ(xml::child_elements(cputune, "vcpusched").size(), 1u) << outcome->domain_xml;
  const xmlNode* sched = xml::first_child(cputune, "vcpusched");
  EXPECT_EQ(xml::attribute(sched, "vcpus"), "2-7");
  EXPECT_EQ(xml::attribute(sched, "scheduler"), "fifo");
  EXPECT_EQ(xml::attribute(sched, "priority"), "1");
  // The emulator runs on the pCPUs of vCPUs 0 and 1, none of a realtime vCPU's.
  const CpuSet emulator = cpuset_of(xml::first_child(cputune, "emulatorpin"));
  EXPECT_EQ(emulator, pins_of(cputune, CpuSet::range(0, 1))) << outcome->domain_xml;
  EXPECT_FALSE(emulator.intersects(pins_of(cputune, CpuSet::range(2, 7)))) << outcome->domain_xml;
  // A realtime guest's memory is locked and not shared, as Nova writes it.
  const xmlNode* backing = xml::first_child(root, "memoryBacking");
  EXPECT_NE(xml::first_child(backing, "locked"), nullptr) << outcome->domain_xml;
  EXPECT_NE(xml::first_child(backing, "nosharepages"), nullptr) << outcome->domain_xml;
  expect_libvirt_accepts(outcome->domain_xml);
  // Placing the output again changes nothing (one <vcpusched>, one <locked/>).
  auto again = place(host, outcome->domain_xml,
                     {{"hw:cpu_policy", "dedicated"}, {"hw:cpu_realtime", "yes"}, {"hw:cpu_realtime_mask", "^0-1"}});
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->domain_xml, outcome->domain_xml);
}

TEST(DomainTuning, TheImagesRealtimeMaskIsAppliedToo) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  plugin::PlaceRequest request;
  request.domain_xml = example();
  request.flavor_specs = {{"hw:cpu_policy", "dedicated"}, {"hw:cpu_realtime", "yes"}};
  request.image_props = {{"hw_cpu_realtime_mask", "^0-2"}};
  auto outcome = plugin::place_domain(host, request);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  auto doc = parsed(outcome->domain_xml);
  const xmlNode* cputune = xml::first_child(xmlDocGetRootElement(doc.get()), "cputune");
  EXPECT_EQ(xml::attribute(xml::first_child(cputune, "vcpusched"), "vcpus"), "3-7");
  EXPECT_EQ(cpuset_of(xml::first_child(cputune, "emulatorpin")), pins_of(cputune, CpuSet::range(0, 2)));
}

TEST(DomainTuning, MixedRealtimeGuestsRunTheEmulatorWhereTheirSharedVcpusFloat) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  auto outcome = place(host, example(),
                       {{"hw:cpu_policy", "mixed"}, {"hw:cpu_realtime", "yes"}, {"hw:cpu_realtime_mask", "^0"}});
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  auto doc = parsed(outcome->domain_xml);
  const xmlNode* cputune = xml::first_child(xmlDocGetRootElement(doc.get()), "cputune");
  EXPECT_EQ(xml::attribute(xml::first_child(cputune, "vcpusched"), "vcpus"), "1-7");
  const CpuSet emulator = cpuset_of(xml::first_child(cputune, "emulatorpin"));
  EXPECT_EQ(emulator, pins_of(cputune, CpuSet::range(0, 0)));
  EXPECT_FALSE(emulator.intersects(pins_of(cputune, CpuSet::range(1, 7)))) << outcome->domain_xml;
  expect_libvirt_accepts(outcome->domain_xml);
}

TEST(DomainTuning, IsolatedEmulatorThreadsKeepTheirReservedPcpuUnderRealtime) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  auto outcome = place(host, example(),
                       {{"hw:cpu_policy", "dedicated"}, {"hw:cpu_realtime", "yes"}, {"hw:cpu_realtime_mask", "0-7"},
                        {"hw:emulator_threads_policy", "isolate"}});
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_TRUE(outcome->placement.has_value());
  auto doc = parsed(outcome->domain_xml);
  const xmlNode* cputune = xml::first_child(xmlDocGetRootElement(doc.get()), "cputune");
  EXPECT_EQ(cpuset_of(xml::first_child(cputune, "emulatorpin")), outcome->placement->cells[0].cpuset_reserved);
  EXPECT_EQ(xml::attribute(xml::first_child(cputune, "vcpusched"), "vcpus"), "0-7");
}

// Nova pins an isolated emulator to its reserved pCPU alone (_get_emulatorpin_cpuset), a mixed
// guest's too: not also where the mixed guest's shared vCPUs float.
TEST(DomainTuning, AMixedGuestsIsolatedEmulatorRunsOnItsReservedPcpuAlone) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  auto outcome = place(host, example(),
                       {{"hw:cpu_policy", "mixed"}, {"hw:cpu_dedicated_mask", "0-3"},
                        {"hw:emulator_threads_policy", "isolate"}});
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_TRUE(outcome->placement.has_value());
  const CpuSet reserved = outcome->placement->cells[0].cpuset_reserved;
  ASSERT_EQ(reserved.size(), 1u);
  auto doc = parsed(outcome->domain_xml);
  const xmlNode* cputune = xml::first_child(xmlDocGetRootElement(doc.get()), "cputune");
  EXPECT_EQ(cpuset_of(xml::first_child(cputune, "emulatorpin")), reserved) << outcome->domain_xml;
  expect_libvirt_accepts(outcome->domain_xml);
}

TEST(DomainTuning, TheOperatorsVcpuschedOfOtherVcpusStays) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  std::string domain = example();
  domain.replace(domain.find("<devices/>"), 10,
                 "<cputune><vcpusched vcpus='0' scheduler='batch'/><vcpusched vcpus='3' scheduler='idle'/></cputune>"
                 "<devices/>");
  auto outcome = place(host, domain,
                       {{"hw:cpu_policy", "dedicated"}, {"hw:cpu_realtime", "yes"}, {"hw:cpu_realtime_mask", "^0-1"}});
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_NE(outcome->domain_xml.find("<vcpusched vcpus=\"0\" scheduler=\"batch\"/>"), std::string::npos)
      << outcome->domain_xml;
  // vCPU 3's <vcpusched> is replaced by the realtime one (numaplace's record keeps it, to give it back
  // when vCPU 3 is no longer realtime).
  auto doc = parsed(outcome->domain_xml);
  for (const xmlNode* sched : xml::child_elements(xml::first_child(xmlDocGetRootElement(doc.get()), "cputune"), "vcpusched")) {
    EXPECT_NE(xml::attribute(sched, "scheduler"), "idle") << outcome->domain_xml;
  }
  expect_libvirt_accepts(outcome->domain_xml);
}

TEST(DomainTuning, LockedMemoryIsWrittenWithItsPageSize) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  const std::string domain = "<domain type='kvm'><name>locked</name><memory unit='GiB'>1</memory><vcpu>2</vcpu>"
                             "<os><type arch='x86_64' machine='pc'>hvm</type></os></domain>";
  auto outcome = place(host, domain, {{"hw:locked_memory", "true"}, {"hw:mem_page_size", "2MB"}});
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  auto doc = parsed(outcome->domain_xml);
  const xmlNode* backing = xml::first_child(xmlDocGetRootElement(doc.get()), "memoryBacking");
  EXPECT_NE(xml::first_child(backing, "locked"), nullptr) << outcome->domain_xml;
  EXPECT_NE(xml::first_child(backing, "hugepages"), nullptr) << outcome->domain_xml;
  EXPECT_EQ(xml::first_child(backing, "nosharepages"), nullptr);
  EXPECT_EQ(schema_refusal(outcome->domain_xml), "");
  // Nova's rule: locking needs an explicit page size.
  auto refused = place(host, domain, {{"hw:locked_memory", "true"}});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().name, "LockMemoryForbidden");
  // The image's twin locks too, and without locking nothing is added.
  plugin::PlaceRequest request;
  request.domain_xml = domain;
  request.flavor_specs = {{"hw:mem_page_size", "2MB"}};
  request.image_props = {{"hw_locked_memory", "yes"}};
  auto by_image = plugin::place_domain(host, request);
  ASSERT_TRUE(by_image.ok()) << by_image.error().message;
  EXPECT_NE(by_image->domain_xml.find("<locked/>"), std::string::npos);
  auto unlocked = place(host, domain, {{"hw:mem_page_size", "2MB"}});
  ASSERT_TRUE(unlocked.ok());
  EXPECT_EQ(unlocked->domain_xml.find("<locked/>"), std::string::npos);
}

TEST(DomainTuning, CpuTopologyIsWrittenAndAgreesWithTheCells) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  auto outcome = place(host, example(), {{"hw:numa_nodes", "2"}, {"hw:cpu_max_sockets", "2"}, {"hw:cpu_threads", "2"}});
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_NE(outcome->domain_xml.find("<topology sockets=\"2\" dies=\"1\" cores=\"2\" threads=\"2\"/>"),
            std::string::npos)
      << outcome->domain_xml;
  expect_libvirt_accepts(outcome->domain_xml);
  // One socket cannot hold vCPUs of two cells.
  auto refused = place(host, example(), {{"hw:numa_nodes", "2"}, {"hw:cpu_sockets", "1"}});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().name, "CpuTopologyUnsatisfiable");
}

TEST(DomainTuning, CpuTopologyOfAGuestWithoutNumaTopologyReplacesTheDomainsOwn) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  std::string domain = example();
  domain.replace(domain.find("<devices/>"), 10, "<cpu><topology sockets='8' cores='1' threads='1'/></cpu><devices/>");
  auto outcome = place(host, domain, {{"hw:cpu_sockets", "1"}});
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_FALSE(outcome->placement.has_value());
  EXPECT_NE(outcome->domain_xml.find("<topology sockets=\"1\" dies=\"1\" cores=\"8\" threads=\"1\"/>"),
            std::string::npos)
      << outcome->domain_xml;
  // The domain's own <topology> is replaced (numaplace's record keeps it, for a later request without
  // topology keys).
  auto doc = parsed(outcome->domain_xml);
  const auto topologies = xml::child_elements(xml::first_child(xmlDocGetRootElement(doc.get()), "cpu"), "topology");
  ASSERT_EQ(topologies.size(), 1u);
  EXPECT_EQ(xml::attribute(topologies[0], "sockets"), "1");
  expect_libvirt_accepts(outcome->domain_xml);
}

// Nova 26 puts no limit on the guest's threads from its pinning (get_best_cpu_topology takes no
// NUMA topology; the libvirt driver calls it with the flavor and image only): a guest pinned one
// vCPU a core (isolate) on an SMT host still gets the two threads a core it asks for.
TEST(DomainTuning, ThePinningDoesNotLimitTheGuestsThreadsAsInNova26) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");  // 2 threads a core
  auto outcome = place(host, example(),
                       {{"hw:cpu_policy", "dedicated"}, {"hw:cpu_thread_policy", "isolate"}, {"hw:cpu_threads", "2"}});
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_TRUE(outcome->placement.has_value());
  ASSERT_FALSE(outcome->placement->cells.front().isolated_cpus.empty()) << outcome->domain_xml;  // one vCPU a core
  EXPECT_NE(outcome->domain_xml.find("<topology sockets=\"4\" dies=\"1\" cores=\"1\" threads=\"2\"/>"),
            std::string::npos)
      << outcome->domain_xml;
  expect_libvirt_accepts(outcome->domain_xml);
}

// An iothread pinned onto the other cell follows the guest to the pCPUs its emulator now uses.
TEST(DomainTuning, IothreadPinsFollowTheGuest) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");  // cell 0: 0-7,16-23; cell 1: 8-15,24-31
  std::string domain = example();
  domain.replace(domain.find("<vcpu>8</vcpu>"), 14,
                 "<vcpu>4</vcpu><iothreads>2</iothreads>"
                 "<cputune><iothreadpin iothread='1' cpuset='30-31'/><iothreadpin iothread='2' cpuset='0-31'/></cputune>");
  auto outcome = place(host, domain, {{"hw:cpu_policy", "dedicated"}, {"hw:numa_nodes", "1"}});
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_TRUE(outcome->placement.has_value());
  auto doc = parsed(outcome->domain_xml);
  const xmlNode* cputune = xml::first_child(xmlDocGetRootElement(doc.get()), "cputune");
  const CpuSet emulator = cpuset_of(xml::first_child(cputune, "emulatorpin"));
  const CpuSet guest = cpuset_of(xml::first_child(xmlDocGetRootElement(doc.get()), "vcpu"));
  const auto pins = xml::child_elements(cputune, "iothreadpin");
  ASSERT_EQ(pins.size(), 2u);
  for (const xmlNode* pin : pins) {
    EXPECT_EQ(cpuset_of(pin), emulator) << outcome->domain_xml;
    EXPECT_TRUE(cpuset_of(pin).is_subset_of(guest)) << outcome->domain_xml;
  }
  expect_libvirt_accepts(outcome->domain_xml);
}

// Placed again after its host cell filled up, the guest moves, and its iothreads move with it.
TEST(DomainTuning, IothreadPinsMoveWhenTheGuestIsPlacedElsewhere) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  std::string domain = example();
  domain.replace(domain.find("<vcpu>8</vcpu>"), 14,
                 "<vcpu>4</vcpu><iothreads>1</iothreads><cputune><iothreadpin iothread='1' cpuset='0-31'/></cputune>");
  const SpecMap specs{{"hw:cpu_policy", "dedicated"}, {"hw:numa_nodes", "1"}};
  auto first = place(host, domain, specs);
  ASSERT_TRUE(first.ok()) << first.error().message;
  const std::uint32_t first_cell = first->placement->cells[0].host_cell;
  HostTopology filled = host;
  for (auto& cell : filled.cells) {
    if (cell.id == first_cell) cell.usage.pinned_cpus = cell.cpus;  // another guest holds every pCPU there
  }
  auto moved = place(filled, first->domain_xml, specs);
  ASSERT_TRUE(moved.ok()) << moved.error().message;
  ASSERT_NE(moved->placement->cells[0].host_cell, first_cell);
  const HostCell* now = host.find_cell(moved->placement->cells[0].host_cell);
  ASSERT_NE(now, nullptr);
  auto doc = parsed(moved->domain_xml);
  const xmlNode* cputune = xml::first_child(xmlDocGetRootElement(doc.get()), "cputune");
  const CpuSet iothread = cpuset_of(xml::first_child(cputune, "iothreadpin"));
  EXPECT_FALSE(iothread.empty());
  EXPECT_TRUE(iothread.is_subset_of(now->cpus)) << moved->domain_xml;
  EXPECT_EQ(iothread, cpuset_of(xml::first_child(cputune, "emulatorpin"))) << moved->domain_xml;
  expect_libvirt_accepts(moved->domain_xml);
  // The operator's own pin (recorded the first time) bounds it, not numaplace's last rewrite.
  EXPECT_NE(moved->domain_xml.find("<numaplace:iothreadpin iothread=\"1\" cpuset=\"0-31\"/>"), std::string::npos)
      << moved->domain_xml;
}

// An operator's pin narrower than the emulator's pCPUs is kept as it is while the guest stays.
TEST(DomainTuning, AnIothreadPinWithinTheEmulatorsPcpusStays) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");  // cell 0: 0-7,16-23
  std::string domain = example();
  domain.replace(domain.find("<vcpu>8</vcpu>"), 14,
                 "<vcpu>2</vcpu><iothreads>1</iothreads><cputune><iothreadpin iothread='1' cpuset='0-3'/></cputune>");
  auto outcome = place(host, domain, {{"hw:numa_nodes", "1"}});  // floats over host cell 0
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_EQ(outcome->placement->cells[0].host_cell, 0u);
  EXPECT_NE(outcome->domain_xml.find("<iothreadpin iothread=\"1\" cpuset=\"0-3\"/>"), std::string::npos)
      << outcome->domain_xml;
}

TEST(DomainTuning, AMemoryOnlyCellHasNoCpusAttributeAndLibvirtAcceptsIt) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  auto outcome = place(host, example(),
                       {{"hw:numa_nodes", "2"},
                        {"hw:numa_cpus.0", "0-7"},
                        {"hw:numa_cpus.1", ""},
                        {"hw:numa_mem.0", "3072"},
                        {"hw:numa_mem.1", "1024"}});
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_EQ(outcome->domain_xml.find("<cell id=\"1\" cpus="), std::string::npos) << outcome->domain_xml;
  EXPECT_NE(outcome->domain_xml.find("<cell id=\"1\" memory=\"1048576\" unit=\"KiB\">"), std::string::npos)
      << outcome->domain_xml;
  expect_libvirt_accepts(outcome->domain_xml);
  auto again = place(host, outcome->domain_xml,
                     {{"hw:numa_nodes", "2"},
                      {"hw:numa_cpus.0", "0-7"},
                      {"hw:numa_cpus.1", ""},
                      {"hw:numa_mem.0", "3072"},
                      {"hw:numa_mem.1", "1024"}});
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->domain_xml, outcome->domain_xml);
}


// numaplace:mem_page_size.N: each guest cell on its own page size, written as one <page> per size
// with the guest cells it backs, on a capabilities host and on an hwloc host.
std::vector<std::pair<std::string, std::string>> hugepages_of(const std::string& xml) {
  auto doc = parsed(xml);
  std::vector<std::pair<std::string, std::string>> out;
  const xmlNode* backing = xml::first_child(xmlDocGetRootElement(doc.get()), "memoryBacking");
  for (const xmlNode* page : xml::child_elements(xml::first_child(backing, "hugepages"), "page")) {
    out.emplace_back(xml::attribute(page, "size").value_or("?") + xml::attribute(page, "unit").value_or(""),
                     xml::attribute(page, "nodeset").value_or("(all)"));
  }
  return out;
}

TEST(DomainTuning, GuestCellsGetTheirOwnPageSizesOnACapabilitiesHost) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");  // each cell: 1024 x 2 MiB, 4 x 1 GiB
  auto outcome = place(host, example(),
                       {{"hw:numa_nodes", "2"}, {"numaplace:mem_page_size.0", "1GB"}, {"numaplace:mem_page_size.1", "2MB"}});
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_TRUE(outcome->placement.has_value());
  const std::vector<std::pair<std::string, std::string>> want{{"2048KiB", "1"}, {"1048576KiB", "0"}};  // by size
  EXPECT_EQ(hugepages_of(outcome->domain_xml), want) << outcome->domain_xml;
  EXPECT_EQ(schema_refusal(outcome->domain_xml), "");
  // A cell whose pages no host cell has enough of does not fit: 3 GiB of 2 MiB pages (a host
  // cell has 2 GiB of them).
  auto refused = place(host, example(),
                       {{"hw:numa_nodes", "2"}, {"hw:numa_cpus.0", "0-3"}, {"hw:numa_cpus.1", "4-7"},
                        {"hw:numa_mem.0", "1024"}, {"hw:numa_mem.1", "3072"}, {"numaplace:mem_page_size.1", "2MB"}});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().name, "NoFit") << refused.error().message;
  // Placing the output again with the same request changes nothing.
  auto again = place(host, outcome->domain_xml,
                     {{"hw:numa_nodes", "2"}, {"numaplace:mem_page_size.0", "1GB"}, {"numaplace:mem_page_size.1", "2MB"}});
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->domain_xml, outcome->domain_xml);
}

TEST(DomainTuning, GuestCellsGetTheirOwnPageSizesOnAnHwlocHost) {
  // The two-node synthetic export with a pool of 1024 x 2 MiB pages on each node.
  auto text = xml::read_text_file(shared_path("samples/hwloc/synth-2pkg-2numa.xml"), "hwloc");
  ASSERT_TRUE(text.ok());
  std::string with_pages = *text;
  const std::string small = "<page_type size=\"4096\" count=\"4194304\"/>";
  std::size_t replaced = 0;
  for (std::size_t at = with_pages.find(small); at != std::string::npos; at = with_pages.find(small, at + 1)) {
    with_pages.insert(at + small.size(), "<page_type size=\"2097152\" count=\"1024\"/>");
    ++replaced;
  }
  ASSERT_EQ(replaced, 2u);
  const std::string path =
      std::filesystem::temp_directory_path() / ("numaplace-hwloc-pages-" + std::to_string(getpid()) + ".xml");
  std::ofstream(path) << with_pages;
  auto host = plugin::load_hwloc_xml(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(host.ok()) << host.error().message;
  auto outcome = place(*host, example(),
                       {{"hw:numa_nodes", "2"}, {"numaplace:mem_page_size.0", "2MB"}, {"numaplace:mem_page_size.1", "small"}});
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  const std::vector<std::pair<std::string, std::string>> want{{"2048KiB", "0"}};
  EXPECT_EQ(hugepages_of(outcome->domain_xml), want) << outcome->domain_xml;
  EXPECT_NE(outcome->domain_xml.find("pagesize-kib=\"2048\""), std::string::npos) << outcome->domain_xml;
  EXPECT_EQ(schema_refusal(outcome->domain_xml), "");
}

// <locked/> without a <memtune><hard_limit> is said (libvirt lifts QEMU's memlock limit then);
// an operator's own <memtune> is kept as written and silences it.
TEST(DomainTuning, LockedMemoryWithoutAHardLimitIsSaidAndTheOperatorsMemtuneStays) {
  HostTopology host = host_from("samples/libvirt/caps-2cell.xml");
  const SpecMap locked{{"hw:locked_memory", "true"}, {"hw:mem_page_size", "small"}};
  const auto warned = [](const plugin::PlaceOutcome& outcome) {
    for (const auto& warning : outcome.warnings) {
      if (warning.find("<memtune><hard_limit>") != std::string::npos) return true;
    }
    return false;
  };
  auto bare = place(host, example(), locked);
  ASSERT_TRUE(bare.ok()) << bare.error().message;
  EXPECT_TRUE(warned(*bare));
  EXPECT_EQ(bare->domain_xml.find("<memtune"), std::string::npos) << bare->domain_xml;
  auto unlocked = place(host, example(), {{"hw:mem_page_size", "small"}});
  ASSERT_TRUE(unlocked.ok());
  EXPECT_FALSE(warned(*unlocked));

  std::string domain = example();
  const std::string memtune = "<memtune><hard_limit unit='KiB'>5242880</hard_limit><soft_limit unit='KiB'>4194304</soft_limit></memtune>";
  domain.replace(domain.find("<devices/>"), 10, memtune + "<devices/>");
  auto bounded = place(host, domain, locked);
  ASSERT_TRUE(bounded.ok()) << bounded.error().message;
  EXPECT_FALSE(warned(*bounded));
  auto doc = parsed(bounded->domain_xml);
  const xmlNode* kept = xml::first_child(xmlDocGetRootElement(doc.get()), "memtune");
  EXPECT_EQ(xml::text_of(xml::first_child(kept, "hard_limit")), "5242880");
  EXPECT_EQ(xml::text_of(xml::first_child(kept, "soft_limit")), "4194304");
  EXPECT_EQ(xml::child_elements(kept).size(), 2u);
  expect_libvirt_accepts(bounded->domain_xml);
}

}  // namespace
}  // namespace numaplace
