// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace's record in a domain's <metadata> (xml/placement_record.h): a domain holding two
// records is refused by name, since libvirt keeps one element per namespace and the one it keeps
// need not be the one placed from; a placement record numaplace could not have written (one pCPU
// for two vCPUs, a vCPU in two cells) is refused rather than written back.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/placed_domains.h"

namespace numaplace {
namespace {

TEST(PlacementRecord, TwoRecordsInOneDomainAreRefusedByName) {
  const HostTopology host = testing::sample_capabilities_host("caps-2cell.xml");
  const std::string domain = "<domain type='kvm'><name>twice</name><memory unit='MiB'>1024</memory><vcpu>2</vcpu>"
                             "<os><type arch='x86_64'>hvm</type></os></domain>";
  auto placed = testing::place_with_specs(host, domain, {{"hw:numa_nodes", "1"}});
  ASSERT_TRUE(placed) << placed.error().message;
  const std::string stale = "<numaplace:numaplace xmlns:numaplace=\"https://numaplace.dev/xmlns/domain/1\"><numaplace:request>"
                            "<numaplace:spec key=\"hw:numa_nodes\" value=\"2\"/></numaplace:request></numaplace:numaplace>";
  for (const bool first : {true, false}) {
    std::string doubled = placed->domain_xml;
    const std::size_t at = first ? doubled.find("<metadata>") + 10 : doubled.find("</metadata>");
    ASSERT_NE(at, std::string::npos) << doubled;
    doubled.insert(at, stale);
    auto again = testing::place_with_specs(host, doubled, {});
    ASSERT_FALSE(again.ok()) << again->domain_xml;
    EXPECT_EQ(again.error().name, "InvalidPlacementRecord");
    EXPECT_NE(again.error().message.find("holds 2 numaplace records"), std::string::npos) << again.error().message;
  }
  // One record, as written: placed again.
  EXPECT_TRUE(testing::place_with_specs(host, placed->domain_xml, {}).ok());
}

TEST(PlacementRecord, ARecordNumaplaceCouldNotHaveWrittenIsRefused) {
  const HostTopology host = testing::sample_capabilities_host("caps-2cell.xml");
  const std::string domain = "<domain type='kvm'><name>pinned</name><memory unit='MiB'>2048</memory><vcpu>4</vcpu>"
                             "<os><type arch='x86_64'>hvm</type></os></domain>";
  auto placed = testing::place_with_specs(host, domain, {{"hw:numa_nodes", "2"}, {"hw:cpu_policy", "dedicated"}});
  ASSERT_TRUE(placed) << placed.error().message;
  // As written it is read back and placed again unchanged.
  auto again = testing::place_with_specs(host, placed->domain_xml, {});
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->domain_xml, placed->domain_xml);
  const auto replace_attribute = [](std::string xml, const std::string& name, std::size_t nth, const std::string& value) {
    std::size_t at = 0;
    for (std::size_t i = 0; i <= nth; ++i) at = xml.find(" " + name + "=\"", at + 1);
    const std::size_t start = at + name.size() + 3;
    return xml.replace(start, xml.find('"', start) - start, value);
  };
  struct Damage {
    std::string attribute;
    std::size_t cell;
    std::string value;
    std::string said;
  };
  // Cell 0 holds vCPUs 0-1, cell 1 vCPUs 2-3 (two dedicated vCPUs each).
  for (const Damage& damage : std::vector<Damage>{{"pins", 0, "0:1,1:1", "pCPU 1 is pinned to vCPUs 0 and 1"},
                                                  {"pins", 0, "0:1,3:2", "pins vCPU 3 -> pCPU 2, a vCPU the cell does not list"},
                                                  {"vcpus", 1, "1-3", "lists vCPUs 1, which another cell lists too"},
                                                  {"guest", 1, "0", "guest cell 0 is given twice"}}) {
    const std::string damaged = replace_attribute(placed->domain_xml, damage.attribute, damage.cell, damage.value);
    ASSERT_NE(damaged, placed->domain_xml);
    auto refused = testing::place_with_specs(host, damaged, {});
    ASSERT_FALSE(refused.ok()) << damage.value << "\n" << refused->domain_xml;
    EXPECT_EQ(refused.error().name, "InvalidPlacementRecord");
    EXPECT_NE(refused.error().message.find(damage.said), std::string::npos) << refused.error().message;
  }
}

}  // namespace
}  // namespace numaplace
