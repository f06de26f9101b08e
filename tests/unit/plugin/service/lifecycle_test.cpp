// SPDX-License-Identifier: LGPL-2.1-or-later
// define/start against libvirt's real test driver, in process. test:///default keeps its
// state while at least one connection to it is open, so the fixture holds one open for
// the length of each test and successive calls see each other's domains.
#include "plugin/service/domain_lifecycle.h"

#include <gtest/gtest.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

namespace numaplace::plugin {
namespace {

std::string guest(const std::string& name, int vcpus, int memory_mib) {
  return "<domain type='test'><name>" + name + "</name><memory unit='MiB'>" + std::to_string(memory_mib) +
         "</memory><vcpu>" + std::to_string(vcpus) + "</vcpu><os><type arch='i686'>hvm</type></os><devices/></domain>";
}

LifecycleOptions options_for_test_driver() {
  LifecycleOptions options;
  options.uri = "test:///default";
  options.lock_path = (std::filesystem::temp_directory_path() / ("numaplace-test-" + std::to_string(getpid()) + ".lock")).string();
  options.flavor_specs = {{"hw:numa_nodes", "1"}};
  return options;
}

class Lifecycle : public ::testing::Test {
 protected:
  void SetUp() override {
    virSetErrorFunc(nullptr, [](void*, virErrorPtr) {});
    keep_alive_ = virConnectOpen("test:///default");
    ASSERT_NE(keep_alive_, nullptr);
  }
  void TearDown() override {
    virConnectClose(keep_alive_);
    std::filesystem::remove(options_for_test_driver().lock_path);  // the host lock file the test used
  }
  virConnectPtr keep_alive_ = nullptr;
};

// test:///default: cell 0 has 2 GiB, cell 1 has 4 GiB; RAM ratio 1.5 lets cell 1 hold 6 GiB of guests.
TEST_F(Lifecycle, DefinedGuestsCountAgainstTheNextOne) {
  LifecycleOptions options = options_for_test_driver();
  auto a = define_domain(guest("lc-a", 1, 3072), "lc-a", options);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE(a->placement.has_value());
  EXPECT_EQ(a->placement->cells[0].host_cell, 1u);  // 3 GiB is more than cell 0 has at all
  auto b = define_domain(guest("lc-b", 1, 3072), "lc-b", options);
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b->placement->cells[0].host_cell, 1u);
  // Cell 1 now carries 6 GiB, its limit: a third 3 GiB guest fits nowhere.
  auto c = define_domain(guest("lc-c", 1, 3072), "lc-c", options);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().name, "NoFit");
  // Defining lc-a again does not collide with its own earlier claim.
  auto again = define_domain(guest("lc-a", 1, 3072), "lc-a", options);
  EXPECT_TRUE(again.ok()) << again.error().message;
}

TEST_F(Lifecycle, StartRunsTheGuestAndKeepsAPlacementThatStillFits) {
  LifecycleOptions options = options_for_test_driver();
  auto defined = define_domain(guest("lc-start", 2, 512), "lc-start", options);
  ASSERT_TRUE(defined.ok()) << defined.error().message;
  LifecycleOptions from_metadata = options;
  from_metadata.flavor_specs.clear();
  auto started = start_domain("lc-start", from_metadata);
  ASSERT_TRUE(started.ok()) << started.error().message;
  EXPECT_FALSE(started->replaced);
  EXPECT_EQ(defined->replacement.kind, ReplacementKind::Fresh);
  EXPECT_EQ(started->replacement.kind, ReplacementKind::Kept);
  ASSERT_TRUE(started->placement.has_value());
  EXPECT_EQ(started->placement->cells[0].host_cell, defined->placement->cells[0].host_cell);

  virConnectPtr conn = virConnectOpen("test:///default");
  ASSERT_NE(conn, nullptr);
  virDomainPtr domain = virDomainLookupByName(conn, "lc-start");
  ASSERT_NE(domain, nullptr);
  EXPECT_EQ(virDomainIsActive(domain), 1);
  auto twice = start_domain("lc-start", from_metadata);
  EXPECT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().name, "AlreadyRunning");
  virDomainDestroy(domain);
  virDomainFree(domain);
  virConnectClose(conn);
}

// A guest without NUMA keys is confined under the policy (best-effort by default), and says so.
TEST_F(Lifecycle, AGuestWithoutANumaRequestReportsItsConfinement) {
  LifecycleOptions options = options_for_test_driver();
  options.flavor_specs.clear();
  auto defined = define_domain(guest("lc-floating", 1, 256), "lc-floating", options);
  ASSERT_TRUE(defined.ok()) << defined.error().message;
  EXPECT_FALSE(defined->placement.has_value());
  ASSERT_TRUE(defined->confinement.has_value());
  ASSERT_TRUE(defined->confinement->cells.has_value());
  EXPECT_EQ(defined->confinement->cells->nodes().size(), 1u);
  options.floating.policy = TopologyPolicy::None;
  auto unconfined = define_domain(guest("lc-floating-none", 1, 256), "lc-floating-none", options);
  ASSERT_TRUE(unconfined.ok()) << unconfined.error().message;
  EXPECT_FALSE(unconfined->confinement.has_value() && unconfined->confinement->cells.has_value());
}

TEST_F(Lifecycle, UnknownDomainsAndRefusedXmlAreNamed) {
  LifecycleOptions options = options_for_test_driver();
  auto missing = start_domain("no-such-guest", options);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().name, "NoSuchDomain");
  auto bad = define_domain("<domain type='test'><name>x</name>", "x", options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().name, "XmlMalformed");
}

}  // namespace
}  // namespace numaplace::plugin

namespace numaplace::plugin {
namespace {

// Reads a cpulist out of the first `attribute='...'` after `element` in `xml` (test helper).
std::string cpuset_after(const std::string& xml, const std::string& element) {
  const auto at = xml.find(element);
  if (at == std::string::npos) return "";
  const auto start = xml.find("cpuset='", at);
  if (start == std::string::npos) return "";
  return xml.substr(start + 8, xml.find('\'', start + 8) - start - 8);
}

// test:///default runs a guest "test" whose 2 vCPUs float over every pCPU. A dedicated guest
// defined next takes pCPUs from it: define names and moves its threads off them, live and in its
// persistent definition, before defining the new guest.
TEST_F(Lifecycle, ADedicatedGuestMovesAFloatingGuestOffItsPcpus) {
  LifecycleOptions options = options_for_test_driver();
  options.flavor_specs = {{"hw:numa_nodes", "1"}, {"hw:cpu_policy", "dedicated"}};
  auto defined = define_domain(guest("lc-pinned", 2, 512), "lc-pinned", options);
  ASSERT_TRUE(defined.ok()) << defined.error().message;
  ASSERT_TRUE(defined->placement.has_value());
  CpuSet pins;
  for (const auto& [vcpu, pcpu] : defined->placement->cells[0].pinning) pins.insert(pcpu);
  std::size_t of_test = 0;
  for (const auto& n : defined->narrowings) {
    of_test += n.guest == "test" ? 1 : 0;
    EXPECT_FALSE(n.kept.intersects(pins)) << describe(n);
  }
  EXPECT_GE(of_test, 3u);  // both vCPUs and the emulator of "test"

  virDomainPtr test = virDomainLookupByName(keep_alive_, "test");
  ASSERT_NE(test, nullptr);
  char* live = virDomainGetXMLDesc(test, 0);
  char* persistent = virDomainGetXMLDesc(test, VIR_DOMAIN_XML_INACTIVE);
  ASSERT_NE(live, nullptr);
  ASSERT_NE(persistent, nullptr);
  const std::string live_xml(live), persistent_xml(persistent);
  free(live);
  free(persistent);
  virDomainFree(test);
  for (const char* vcpu : {"<vcpupin vcpu='0'", "<vcpupin vcpu='1'"}) {
    auto kept = parse_cpu_list(cpuset_after(live_xml, vcpu));
    ASSERT_TRUE(kept.ok()) << live_xml;
    EXPECT_FALSE(kept->empty()) << live_xml;
    EXPECT_FALSE(kept->intersects(pins)) << live_xml;
  }
  auto persistent_set = parse_cpu_list(cpuset_after(persistent_xml, "<vcpu "));
  ASSERT_TRUE(persistent_set.ok()) << persistent_xml;
  EXPECT_FALSE(persistent_set->empty());
  EXPECT_FALSE(persistent_set->intersects(pins)) << persistent_xml;
}


// The domain's XML as libvirt holds it (live), or "" when there is no such domain (test helper).
std::string xml_of(virConnectPtr conn, const std::string& name) {
  virDomainPtr domain = virDomainLookupByName(conn, name.c_str());
  if (domain == nullptr) return "";
  char* raw = virDomainGetXMLDesc(domain, 0);
  std::string text = raw == nullptr ? "" : raw;
  free(raw);
  virDomainFree(domain);
  return text;
}

// A dry run places as the real call would and changes nothing: no domain defined, no guest
// started, no other guest's threads moved; what would be written is in the outcome.
TEST_F(Lifecycle, ADryRunPlacesAsTheRealCallWouldAndChangesNothing) {
  LifecycleOptions options = options_for_test_driver();
  options.flavor_specs = {{"hw:numa_nodes", "1"}, {"hw:cpu_policy", "dedicated"}};
  const std::string test_before = xml_of(keep_alive_, "test");
  ASSERT_FALSE(test_before.empty());
  LifecycleOptions dry = options;
  dry.dry_run = true;
  auto would = define_domain(guest("lc-dry", 2, 512), "lc-dry", dry);
  ASSERT_TRUE(would.ok()) << would.error().message;
  EXPECT_TRUE(would->dry_run);
  EXPECT_EQ(xml_of(keep_alive_, "lc-dry"), "") << "a dry run defined the guest";
  EXPECT_EQ(xml_of(keep_alive_, "test"), test_before) << "a dry run moved another guest's threads";
  EXPECT_FALSE(would->narrowings.empty());  // the floating guest "test" would have to move
  EXPECT_NE(would->domain_xml.find("<vcpupin"), std::string::npos) << would->domain_xml;

  auto real = define_domain(guest("lc-dry", 2, 512), "lc-dry", options);
  ASSERT_TRUE(real.ok()) << real.error().message;
  EXPECT_FALSE(real->dry_run);
  ASSERT_TRUE(would->placement && real->placement);
  EXPECT_EQ(would->placement->cells[0].host_cell, real->placement->cells[0].host_cell);
  EXPECT_EQ(would->placement->cells[0].pinning, real->placement->cells[0].pinning);
  EXPECT_NE(xml_of(keep_alive_, "lc-dry"), "");

  LifecycleOptions dry_start = dry;
  dry_start.flavor_specs.clear();
  auto would_start = start_domain("lc-dry", dry_start);
  ASSERT_TRUE(would_start.ok()) << would_start.error().message;
  EXPECT_EQ(would_start->replacement.kind, ReplacementKind::Kept);
  EXPECT_TRUE(would_start->domain_xml.empty()) << "a kept placement is not redefined";
  virDomainPtr domain = virDomainLookupByName(keep_alive_, "lc-dry");
  ASSERT_NE(domain, nullptr);
  EXPECT_EQ(virDomainIsActive(domain), 0) << "a dry run started the guest";
  virDomainFree(domain);
}


// The pCPU each vCPU of `xml` is pinned to (<vcpupin vcpu='V' cpuset='P'/> with one pCPU), read here.
std::map<int, std::string> pins_of(const std::string& xml) {
  std::map<int, std::string> pins;
  const std::regex pin("<vcpupin vcpu='(\\d+)' cpuset='([^']*)'/>");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), pin); it != std::sregex_iterator(); ++it) {
    pins[std::stoi((*it)[1].str())] = (*it)[2].str();
  }
  return pins;
}

// start keeps a recorded placement only where the domain as it is now still holds: an operator who
// moved a defined guest's pins (virsh edit) onto a running guest's pCPUs gets a refusal or a
// placement within the edit, never a start on held pCPUs; a host configuration reserving a
// recorded pCPU since the define moves the guest off it.
TEST_F(Lifecycle, StartNeverKeepsPinsOthersHoldOrTheHostReserves) {
  LifecycleOptions options = options_for_test_driver();
  options.flavor_specs = {{"hw:numa_nodes", "1"}, {"hw:cpu_policy", "dedicated"}};
  LifecycleOptions from_metadata = options;
  from_metadata.flavor_specs.clear();
  ASSERT_TRUE(define_domain(guest("lc-held", 2, 256), "lc-held", options).ok());
  ASSERT_TRUE(start_domain("lc-held", from_metadata).ok());
  const auto held = pins_of(xml_of(keep_alive_, "lc-held"));
  ASSERT_EQ(held.size(), 2u);
  ASSERT_TRUE(define_domain(guest("lc-edited", 2, 256), "lc-edited", options).ok());
  // The operator moves lc-edited's pins onto lc-held's pCPUs, as virsh edit would.
  virDomainPtr domain = virDomainLookupByName(keep_alive_, "lc-edited");
  ASSERT_NE(domain, nullptr);
  char* raw = virDomainGetXMLDesc(domain, VIR_DOMAIN_XML_INACTIVE);
  std::string edited = raw;
  free(raw);
  virDomainFree(domain);
  for (const auto& [vcpu, pcpu] : pins_of(edited)) {
    const std::string from = "<vcpupin vcpu='" + std::to_string(vcpu) + "' cpuset='" + pcpu + "'/>";
    edited.replace(edited.find(from), from.size(), "<vcpupin vcpu='" + std::to_string(vcpu) + "' cpuset='" + held.at(vcpu) + "'/>");
  }
  domain = virDomainDefineXML(keep_alive_, edited.c_str());
  ASSERT_NE(domain, nullptr);
  virDomainFree(domain);
  auto started = start_domain("lc-edited", from_metadata);
  if (started.ok()) {
    for (const auto& [vcpu, pcpu] : pins_of(xml_of(keep_alive_, "lc-edited"))) {
      EXPECT_NE(pcpu, held.at(0)) << "vCPU " << vcpu << " started on lc-held's pCPU";
      EXPECT_NE(pcpu, held.at(1)) << "vCPU " << vcpu << " started on lc-held's pCPU";
    }
  } else {
    EXPECT_NE(started.error().name, "AlreadyRunning") << started.error().message;
  }

  // A defined guest whose recorded pCPU the host configuration now reserves.
  ASSERT_TRUE(define_domain(guest("lc-reserved", 2, 256), "lc-reserved", options).ok());
  domain = virDomainLookupByName(keep_alive_, "lc-reserved");
  ASSERT_NE(domain, nullptr);
  raw = virDomainGetXMLDesc(domain, VIR_DOMAIN_XML_INACTIVE);
  const std::string reserved_pcpu = pins_of(raw).at(0);
  free(raw);
  virDomainFree(domain);
  const std::string config = (std::filesystem::temp_directory_path() / ("numaplace-test-" + std::to_string(getpid()) + ".conf")).string();
  std::ofstream(config) << "[numaplace]\nreserved_cpus = " << reserved_pcpu << "\n";
  LifecycleOptions reserving = from_metadata;
  reserving.host_config = config;
  auto moved = start_domain("lc-reserved", reserving);
  std::filesystem::remove(config);
  ASSERT_TRUE(moved.ok()) << moved.error().message;
  EXPECT_NE(moved->replacement.kind, ReplacementKind::Kept);
  for (const auto& [vcpu, pcpu] : pins_of(xml_of(keep_alive_, "lc-reserved"))) {
    EXPECT_NE(pcpu, reserved_pcpu) << "vCPU " << vcpu << " started on a reserved pCPU";
  }
}

// A running guest whose XML cannot be counted (its numaplace record damaged by hand) holds pCPUs
// nobody can see: define and start refuse beside it, as the hook does. Once it stops, it is a
// defined guest whose own start places it again: a warning, not a refusal.
TEST_F(Lifecycle, ARunningGuestThatCannotBeReadStopsDefineAndStart) {
  LifecycleOptions options = options_for_test_driver();
  options.flavor_specs = {{"hw:numa_nodes", "1"}, {"hw:cpu_policy", "dedicated"}};
  ASSERT_TRUE(define_domain(guest("lc-next", 2, 256), "lc-next", options).ok());
  ASSERT_TRUE(define_domain(guest("lc-broken", 2, 256), "lc-broken", options).ok());
  std::string broken = xml_of(keep_alive_, "lc-broken");
  const std::size_t pins = broken.find(" pins=\"");
  ASSERT_NE(pins, std::string::npos) << broken;
  broken.replace(pins, std::string(" pins=\"").size(), " pins=\"x");
  virDomainPtr domain = virDomainDefineXML(keep_alive_, broken.c_str());
  ASSERT_NE(domain, nullptr);
  ASSERT_EQ(virDomainCreate(domain), 0);

  LifecycleOptions from_metadata = options;
  from_metadata.flavor_specs.clear();
  auto started = start_domain("lc-next", from_metadata);
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.error().name, "RunningGuestsUnknown");
  EXPECT_NE(started.error().message.find("lc-broken"), std::string::npos) << started.error().message;
  auto defined = define_domain(guest("lc-other", 2, 256), "lc-other", options);
  ASSERT_FALSE(defined.ok());
  EXPECT_EQ(defined.error().name, "RunningGuestsUnknown");

  ASSERT_EQ(virDomainDestroy(domain), 0);
  virDomainFree(domain);
  defined = define_domain(guest("lc-other", 2, 256), "lc-other", options);
  ASSERT_TRUE(defined.ok()) << defined.error().message;
  bool warned = false;
  for (const auto& warning : defined->warnings) warned = warned || warning.find("lc-broken") != std::string::npos;
  EXPECT_TRUE(warned) << "the unreadable defined guest is not mentioned";
}

}  // namespace
}  // namespace numaplace::plugin
