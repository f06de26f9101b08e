// SPDX-License-Identifier: LGPL-2.1-or-later
// keep_guest_view: the domain as it was with only the host-side bindings of its new placement, or
// GuestViewWouldChange when the new placement needs the guest to see something else.
#include "xml/guest_view.h"

#include <gtest/gtest.h>

#include "xml/xml_document.h"

namespace numaplace::xml {
namespace {

std::string domain(const std::string& cputune, const std::string& numatune, const std::string& cpu,
                   const std::string& extra = {}) {
  return "<domain type='kvm'><name>vm</name><description>as the operator wrote it</description>"
         "<memory unit='KiB'>4194304</memory><vcpu placement='static' cpuset='0-3'>4</vcpu>" +
         cputune + numatune + cpu + extra + "<os><type arch='x86_64'>hvm</type></os></domain>";
}

std::string cpu_of_two_cells(int distance) {
  const std::string d = std::to_string(distance);
  return "<cpu><numa><cell id='0' cpus='0-1' memory='2097152' unit='KiB'><distances><sibling id='0' value='10'/>"
         "<sibling id='1' value='" + d + "'/></distances></cell><cell id='1' cpus='2-3' memory='2097152' unit='KiB'>"
         "<distances><sibling id='0' value='" + d + "'/><sibling id='1' value='10'/></distances></cell></numa></cpu>";
}

Result<GuestViewKept> keep(const std::string& original, const std::string& placed) {
  auto a = parse_document(original, "original");
  auto b = parse_document(placed, "placed");
  EXPECT_TRUE(a.ok() && b.ok());
  return keep_guest_view(a->get(), b->get(), "domain 'vm'");
}

TEST(GuestView, OnlyHostSideBindingsComeFromThePlacementAndDistancesStayAsTheGuestSawThem) {
  const std::string original = domain("<cputune><shares>2048</shares><vcpupin vcpu='0' cpuset='0'/></cputune>",
                                      "<numatune><memnode cellid='0' mode='strict' nodeset='0'/></numatune>",
                                      cpu_of_two_cells(12));
  std::string placed = domain("<cputune><shares>2048</shares><vcpupin vcpu='0' cpuset='9'/></cputune>",
                              "<numatune><memnode cellid='0' mode='strict' nodeset='2'/></numatune>",
                              cpu_of_two_cells(21), "<on_crash>destroy</on_crash>");
  placed.replace(placed.find("cpuset='0-3'"), 12, "cpuset='8-11'");
  auto kept = keep(original, placed);
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_TRUE(kept->distances_differ);
  const std::string& out = kept->domain_xml;
  EXPECT_NE(out.find("<vcpupin vcpu=\"0\" cpuset=\"9\"/>"), std::string::npos) << out;
  EXPECT_NE(out.find("nodeset=\"2\""), std::string::npos) << out;
  EXPECT_NE(out.find("cpuset=\"8-11\">4</vcpu>"), std::string::npos) << out;
  EXPECT_NE(out.find("<sibling id=\"1\" value=\"12\"/>"), std::string::npos) << out;
  EXPECT_EQ(out.find("value=\"21\""), std::string::npos) << out;
  EXPECT_NE(out.find("as the operator wrote it"), std::string::npos);
  EXPECT_EQ(out.find("on_crash"), std::string::npos) << "only host-side bindings are taken from the placement";
  EXPECT_NE(out.find("<shares>2048</shares>"), std::string::npos);

  auto same = keep(original, original);
  ASSERT_TRUE(same.ok());
  EXPECT_FALSE(same->distances_differ);
}

TEST(GuestView, APlacementTheGuestWouldSeeIsRefused) {
  const std::string original = domain("", "", cpu_of_two_cells(12));
  const std::string one_cell =
      domain("", "", "<cpu><numa><cell id='0' cpus='0-3' memory='4194304' unit='KiB'/></numa></cpu>");
  const std::string other_pages =
      domain("", "", cpu_of_two_cells(12), "<memoryBacking><hugepages><page size='1' unit='GiB'/></hugepages></memoryBacking>");
  std::string other_count = original;
  other_count.replace(other_count.find(">4</vcpu>"), 9, ">6</vcpu>");
  for (const auto& [placed, part] : {std::pair{one_cell, "<cpu>"}, std::pair{other_pages, "<memoryBacking>"},
                                     std::pair{other_count, "vCPU count"}}) {
    auto kept = keep(original, placed);
    ASSERT_FALSE(kept.ok()) << part;
    EXPECT_EQ(kept.error().name, "GuestViewWouldChange");
    EXPECT_NE(kept.error().message.find(part), std::string::npos) << kept.error().message;
  }
}

}  // namespace
}  // namespace numaplace::xml
