// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace:mem_page_size.N, a guest cell's own page size: the values of hw:mem_page_size, the
// image's rule, the cell it names, locking, and unknown keys of numaplace's namespace.
#include <gtest/gtest.h>

#include "placement/request/guest_topology.h"

namespace numaplace {
namespace {

GuestRequest request(SpecMap flavor, SpecMap image = {}) {
  GuestRequest r;
  r.vcpus = 4;
  r.memory_kib = 4096 * 1024;
  r.flavor_specs = std::move(flavor);
  r.image_props = std::move(image);
  return r;
}

// The page size of each guest cell, or the error's name.
std::string pages(const GuestRequest& r) {
  auto topology = derive_guest_topology(r);
  if (!topology) return topology.error().name;
  if (!topology->has_value()) return "no topology";
  std::string out;
  for (const auto& cell : (*topology)->cells) out += (out.empty() ? "" : ",") + std::to_string(cell.pagesize);
  return out;
}

const std::string kNone = std::to_string(kPageSizeNone);
const std::string kSmall = std::to_string(kPageSizeSmall);
const std::string kLarge = std::to_string(kPageSizeLarge);
const std::string kAny = std::to_string(kPageSizeAny);

TEST(CellPageSize, EachCellTakesItsOwnSizeAndTheOthersTheGuests) {
  EXPECT_EQ(pages(request({{"hw:numa_nodes", "2"}, {"numaplace:mem_page_size.1", "2MB"}})), kNone + ",2048");
  EXPECT_EQ(pages(request({{"hw:numa_nodes", "2"}, {"hw:mem_page_size", "large"}, {"numaplace:mem_page_size.0", "small"}})),
            kSmall + "," + kLarge);
  EXPECT_EQ(pages(request({{"hw:numa_nodes", "2"}, {"numaplace:mem_page_size.0", "1GB"}, {"numaplace:mem_page_size.1", "any"}})),
            "1048576," + kAny);
  // "0" and an empty value ask for nothing, as for hw:mem_page_size: the guest's size holds.
  EXPECT_EQ(pages(request({{"hw:numa_nodes", "2"}, {"hw:mem_page_size", "2048"}, {"numaplace:mem_page_size.0", "0"},
                           {"numaplace:mem_page_size.1", ""}})),
            "2048,2048");
}

TEST(CellPageSize, ACellsPageSizeAloneAsksForATopologyAsHwMemPageSizeDoes) {
  EXPECT_EQ(pages(request({{"numaplace:mem_page_size.0", "2MB"}})), "2048");
  EXPECT_EQ(pages(request({{"numaplace:mem_page_size.0", "0"}})), "no topology");
}

TEST(CellPageSize, ValuesAreReadAsHwMemPageSizeIs) {
  for (const char* bad : {"2M", "huge", "SMALL", "-2MB"}) {
    EXPECT_EQ(pages(request({{"hw:numa_nodes", "2"}, {"numaplace:mem_page_size.1", bad}})), "MemoryPageSizeInvalid")
        << bad;
  }
}

TEST(CellPageSize, TheImageMayOnlyNarrowAnyOrLarge) {
  const SpecMap image{{"hw_mem_page_size", "2MB"}};
  EXPECT_EQ(pages(request({{"hw:numa_nodes", "2"}, {"hw:mem_page_size", "large"}, {"numaplace:mem_page_size.1", "any"}},
                          image)),
            "2048,2048");
  auto forbidden = derive_guest_topology(
      request({{"hw:numa_nodes", "2"}, {"hw:mem_page_size", "large"}, {"numaplace:mem_page_size.1", "small"}}, image));
  ASSERT_FALSE(forbidden.ok());
  EXPECT_EQ(forbidden.error().name, "MemoryPageSizeForbidden");
  EXPECT_NE(forbidden.error().message.find("numaplace:mem_page_size.1"), std::string::npos) << forbidden.error().message;
  // As with hw:mem_page_size, an image page size needs the flavor's hw:mem_page_size.
  EXPECT_EQ(pages(request({{"hw:numa_nodes", "2"}, {"numaplace:mem_page_size.1", "any"}}, image)),
            "MemoryPageSizeForbidden");
}

TEST(CellPageSize, TheKeyMustNameACellOfTheGuest) {
  auto beyond = derive_guest_topology(request({{"hw:numa_nodes", "2"}, {"numaplace:mem_page_size.2", "2MB"}}));
  ASSERT_FALSE(beyond.ok());
  EXPECT_EQ(beyond.error().name, "InvalidRequest");
  EXPECT_NE(beyond.error().message.find("numaplace:mem_page_size.2"), std::string::npos) << beyond.error().message;
  EXPECT_EQ(pages(request({{"numaplace:mem_page_size.99999999999999999999", "2MB"}})), "InvalidRequest");
}

TEST(CellPageSize, LockingNeedsAPageSizeForEveryCell) {
  EXPECT_EQ(pages(request({{"hw:numa_nodes", "2"}, {"hw:locked_memory", "true"}, {"numaplace:mem_page_size.0", "2MB"},
                           {"numaplace:mem_page_size.1", "small"}})),
            "2048," + kSmall);
  auto half = derive_guest_topology(
      request({{"hw:numa_nodes", "2"}, {"hw:locked_memory", "true"}, {"numaplace:mem_page_size.0", "2MB"}}));
  ASSERT_FALSE(half.ok());
  EXPECT_EQ(half.error().name, "LockMemoryForbidden");
  EXPECT_NE(half.error().message.find("guest cell 1"), std::string::npos) << half.error().message;
}

TEST(CellPageSize, OtherKeysOfNumaplacesNamespaceAreTypos) {
  for (const char* key : {"numaplace:mem_pagesize.0", "numaplace:mem_page_size", "numaplace:mem_page_size.x",
                          "numaplace:numa_nodes"}) {
    EXPECT_EQ(pages(request({{"hw:numa_nodes", "2"}, {key, "2MB"}})), "UnknownSpecKey") << key;
  }
}

}  // namespace
}  // namespace numaplace
