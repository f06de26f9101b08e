// SPDX-License-Identifier: LGPL-2.1-or-later
// An operator's per-vCPU pins (<vcpupin>) steer the placement instead of only being checked after
// it: a dedicated vCPU gets a free pCPU of its own pin, a guest cell goes to the host cell that holds
// its vCPUs' pins, a shared vCPU floats where its pin lets it, an isolated emulator pCPU is reserved
// within <emulatorpin> (and beyond the vCPUs' pins), a dedicated guest's emulator runs on a vCPU
// within it, and a pin no host cell can keep is refused by name. On caps-2cell.xml: host cell 0 holds pCPUs 0-7,16-23, host cell 1 8-15,24-31.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "support/placed_domains.h"
#include "support/xml_walk.h"

namespace numaplace {
namespace {

using testing::attr;
using testing::child;
using testing::children;
using testing::parse_xml;
using testing::path;

std::string domain_with(const std::string& cputune, int vcpus = 2) {
  return "<domain type='kvm'><name>pinned</name><memory unit='GiB'>2</memory><vcpu>" + std::to_string(vcpus) +
         "</vcpu>"
         "<os><type arch='x86_64'>hvm</type></os><cputune>" +
         cputune + "</cputune></domain>";
}

// vCPU -> the cpuset of its <vcpupin> in the placed domain.
std::map<std::string, std::string> pins_of(const std::string& xml) {
  auto doc = parse_xml(xml);
  std::map<std::string, std::string> pins;
  for (xmlNode* pin : children(child(xmlDocGetRootElement(doc.get()), "cputune"), "vcpupin")) {
    pins[attr(pin, "vcpu").value_or("?")] = attr(pin, "cpuset").value_or("");
  }
  return pins;
}

// The cpuset of the placed domain's <emulatorpin>; empty when it has none.
std::string emulatorpin_of(const std::string& xml) {
  auto doc = parse_xml(xml);
  xmlNode* pin = path(xmlDocGetRootElement(doc.get()), {"cputune", "emulatorpin"});
  return pin == nullptr ? "" : attr(pin, "cpuset").value_or("");
}

std::string memory_nodeset_of(const std::string& xml) {
  auto doc = parse_xml(xml);
  xmlNode* memory = path(xmlDocGetRootElement(doc.get()), {"numatune", "memory"});
  return memory == nullptr ? "" : attr(memory, "nodeset").value_or("");
}

class OperatorPins : public ::testing::Test {
 protected:
  HostTopology host = testing::sample_capabilities_host("caps-2cell.xml");
};

TEST_F(OperatorPins, ADedicatedVCpuGetsAFreePCpuOfItsOwnPin) {
  auto placed = testing::place_with_specs(host, domain_with("<vcpupin vcpu='0' cpuset='2'/>"),
                                          {{"hw:cpu_policy", "dedicated"}});
  ASSERT_TRUE(placed) << placed.error().message;
  const auto pins = pins_of(placed->domain_xml);
  EXPECT_EQ(pins.at("0"), "2") << placed->domain_xml;
  ASSERT_EQ(pins.count("1"), 1u) << placed->domain_xml;
  EXPECT_NE(pins.at("1"), "2") << placed->domain_xml;
  EXPECT_EQ(memory_nodeset_of(placed->domain_xml), "0") << placed->domain_xml;
}

TEST_F(OperatorPins, APinSteersTheGuestCellToTheHostCellHoldingIt) {
  // Nova's order alone would take host cell 0.
  auto placed = testing::place_with_specs(host, domain_with("<vcpupin vcpu='1' cpuset='9,25'/>"),
                                          {{"hw:cpu_policy", "dedicated"}, {"hw:numa_nodes", "1"}});
  ASSERT_TRUE(placed) << placed.error().message;
  const auto pins = pins_of(placed->domain_xml);
  EXPECT_TRUE(pins.at("1") == "9" || pins.at("1") == "25") << placed->domain_xml;
  EXPECT_EQ(memory_nodeset_of(placed->domain_xml), "1") << placed->domain_xml;
}

TEST_F(OperatorPins, ASharedVCpuFloatsWhereItsPinLetsIt) {
  auto placed = testing::place_with_specs(host, domain_with("<vcpupin vcpu='0' cpuset='12'/>"), {{"hw:numa_nodes", "1"}});
  ASSERT_TRUE(placed) << placed.error().message;
  EXPECT_EQ(pins_of(placed->domain_xml).at("0"), "12") << placed->domain_xml;
  EXPECT_EQ(memory_nodeset_of(placed->domain_xml), "1") << placed->domain_xml;
}

TEST_F(OperatorPins, TheIsolatedEmulatorPCpuIsReservedWithinTheEmulatorPin) {
  auto placed = testing::place_with_specs(host, domain_with("<emulatorpin cpuset='5,13'/>"),
                                          {{"hw:cpu_policy", "dedicated"}, {"hw:emulator_threads_policy", "isolate"}});
  ASSERT_TRUE(placed) << placed.error().message;
  const std::string reserved = emulatorpin_of(placed->domain_xml);
  EXPECT_TRUE(reserved == "5" || reserved == "13") << placed->domain_xml;
  for (const auto& [vcpu, cpuset] : pins_of(placed->domain_xml)) EXPECT_NE(cpuset, reserved) << placed->domain_xml;
}

TEST_F(OperatorPins, AnIsolatedEmulatorMayTakeAPCpuBeyondTheVCpusPins) {
  // Every vCPU pinned and the emulator bound nowhere, or elsewhere: its pCPU lies outside the pins.
  for (const std::string& emulator : {std::string(), std::string("<emulatorpin cpuset='5'/>")}) {
    auto placed = testing::place_with_specs(
        host, domain_with("<vcpupin vcpu='0' cpuset='2,3'/><vcpupin vcpu='1' cpuset='2,3'/>" + emulator),
        {{"hw:cpu_policy", "dedicated"}, {"hw:emulator_threads_policy", "isolate"}});
    ASSERT_TRUE(placed) << emulator << ": " << placed.error().message;
    const std::string reserved = emulatorpin_of(placed->domain_xml);
    EXPECT_FALSE(reserved.empty()) << placed->domain_xml;
    EXPECT_TRUE(emulator.empty() ? reserved != "2" && reserved != "3" : reserved == "5") << placed->domain_xml;
  }
}

TEST_F(OperatorPins, ADedicatedGuestsEmulatorRunsOnAVCpuWithinTheEmulatorPin) {
  // Without isolate the emulator runs on the guest's own pCPUs: one vCPU goes where it may run.
  auto placed = testing::place_with_specs(host, domain_with("<emulatorpin cpuset='12'/>"),
                                          {{"hw:cpu_policy", "dedicated"}, {"hw:numa_nodes", "1"}});
  ASSERT_TRUE(placed) << placed.error().message;
  const auto pins = pins_of(placed->domain_xml);
  EXPECT_TRUE(pins.at("0") == "12" || pins.at("1") == "12") << placed->domain_xml;
  EXPECT_EQ(memory_nodeset_of(placed->domain_xml), "1") << placed->domain_xml;
}

TEST_F(OperatorPins, PinsNoOneHostCellCanKeepAreRefusedByName) {
  // One guest cell, two of its four vCPUs pinned into different host cells.
  auto refused = testing::place_with_specs(host, domain_with("<vcpupin vcpu='0' cpuset='2'/><vcpupin vcpu='1' cpuset='9'/>", 4),
                                           {{"hw:cpu_policy", "dedicated"}, {"hw:numa_nodes", "1"}});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().name, "NoFit");
  EXPECT_NE(refused.error().message.find("dedicated vCPU 1 on one of pCPUs 9"), std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("dedicated vCPU 0 on one of pCPUs 2"), std::string::npos)
      << refused.error().message;
}

TEST_F(OperatorPins, TwoGuestCellsFollowTheirVCpusPins) {
  // Guest cell 0 holds vCPU 0, pinned into host cell 1; guest cell 1 holds vCPU 1, pinned into 0.
  auto placed = testing::place_with_specs(
      host, domain_with("<vcpupin vcpu='0' cpuset='10'/><vcpupin vcpu='1' cpuset='3'/>"),
      {{"hw:cpu_policy", "dedicated"}, {"hw:numa_nodes", "2"}});
  ASSERT_TRUE(placed) << placed.error().message;
  const auto pins = pins_of(placed->domain_xml);
  EXPECT_EQ(pins.at("0"), "10") << placed->domain_xml;
  EXPECT_EQ(pins.at("1"), "3") << placed->domain_xml;
}

}  // namespace
}  // namespace numaplace
