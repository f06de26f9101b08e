// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace's record in a domain's <metadata> (xml/placement_record.h): a domain holding two
// records is refused by name, since libvirt keeps one element per namespace and the one it keeps
// need not be the one placed from.
#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace numaplace
