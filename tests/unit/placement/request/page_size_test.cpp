// SPDX-License-Identifier: LGPL-2.1-or-later
// Page-size values, Nova's flavor/image rules for them, and the choice per host cell.
#include "placement/request/page_size.h"

#include <gtest/gtest.h>

#include "placement/fit/cell_fit.h"
#include "placement/request/guest_topology.h"

namespace numaplace {
namespace {

std::int64_t kib(std::string_view text) {
  auto v = parse_page_size(text);
  return v.ok() ? v->kib : -100;
}

TEST(PageSize, ValuesAsNovaReadsThem) {
  EXPECT_EQ(kib("small"), kPageSizeSmall);
  EXPECT_EQ(kib("large"), kPageSizeLarge);
  EXPECT_EQ(kib("any"), kPageSizeAny);
  EXPECT_EQ(kib("2048"), 2048);  // bare digits are KiB
  EXPECT_EQ(kib("2MB"), 2048);
  EXPECT_EQ(kib("1GB"), 1048576);
  EXPECT_EQ(kib("2048KB"), 2048);
  EXPECT_EQ(kib("4KiB"), 4);
  EXPECT_EQ(kib("1GiB"), 1048576);
  // A unit letter without B, lower-case units, blanks and words are refused.
  // Negative sizes too: a cast of -2e20 KiB to an integer is undefined (found by fuzz.specs).
  for (const char* bad : {"2M", "2kB", "huge", "3XB", "2 MB", "SMALL", "", "-2MB", "-222000000000803GB"}) {
    auto v = parse_page_size(bad);
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_EQ(v.error().name, "MemoryPageSizeInvalid") << bad;
  }
  EXPECT_FALSE(parse_page_size("0")->requested);  // "0" asks for nothing
}

TEST(PageSize, TheImageMayOnlyNarrowAnyOrLarge) {
  ImageProperties image;
  image.mem_page_size = "2MB";
  auto narrowed = page_size_constraint({{"hw:mem_page_size", "large"}}, image);
  ASSERT_TRUE(narrowed.ok());
  EXPECT_EQ(narrowed->kib, 2048);
  auto forbidden = page_size_constraint({{"hw:mem_page_size", "small"}}, image);
  ASSERT_FALSE(forbidden.ok());
  EXPECT_EQ(forbidden.error().name, "MemoryPageSizeForbidden");
  auto alone = page_size_constraint({}, image);
  ASSERT_FALSE(alone.ok());
  EXPECT_EQ(alone.error().name, "MemoryPageSizeForbidden");
  EXPECT_FALSE(page_size_constraint({}, {})->requested);
}

HostCell cell_with_pages() {
  HostCell cell;
  cell.id = 3;
  cell.cpus = CpuSet::range(0, 3);
  cell.shared_cpus = cell.cpus;
  cell.dedicated_cpus = cell.cpus;
  cell.memory_kib = 8u << 20;
  cell.pages = {{4, 1u << 20, 0, 0}, {2048, 1024, 512, 0}, {1048576, 4, 3, 0}};  // 4 GiB, 2 GiB (1 free), 4 GiB (1 free)
  return cell;
}

TEST(PageSize, AnyTakesTheLargestSizeWhoseFreePagesHoldTheCellExactly) {
  HostCell cell = cell_with_pages();
  EXPECT_EQ(choose_page_size(cell, kPageSizeAny, 1u << 20, nullptr), 1048576u);         // 1 GiB: one free 1G page
  EXPECT_EQ(choose_page_size(cell, kPageSizeAny, 3u << 18, nullptr), 2048u);            // 768 MiB is no whole 1G page
  EXPECT_EQ(choose_page_size(cell, kPageSizeAny, 2u << 20, nullptr), 4u);               // 2 GiB: only 4K pages have it
  EXPECT_EQ(choose_page_size(cell, kPageSizeLarge, 2u << 20, nullptr), std::nullopt);   // large never means 4K
  EXPECT_EQ(choose_page_size(cell, kPageSizeSmall, 1u << 20, nullptr), 4u);
  std::string why;
  EXPECT_EQ(choose_page_size(cell, 16384, 1u << 20, &why), std::nullopt);
  EXPECT_NE(why.find("has none"), std::string::npos) << why;
  EXPECT_EQ(choose_page_size(cell, 2048, 2u << 20, &why), std::nullopt);
  EXPECT_NE(why.find("1024 MiB free"), std::string::npos) << why;
}

TEST(PageSize, HugePagesIgnoreTheRamRatioButNotTheirOwnCount) {
  HostTopology host;
  host.cells.push_back(cell_with_pages());
  host.cells[0].usage.memory_kib = 12u << 20;  // far beyond RAM ratio x memory
  GuestTopology guest;
  GuestCell g;
  g.cpus = CpuSet{0};
  g.memory_kib = 1u << 20;
  g.pagesize = kPageSizeLarge;
  guest.cells.push_back(g);
  // Shared CPUs with huge pages: the RAM ratio still applies to a shared cell (Nova's shared part).
  EXPECT_FALSE(fit_cell(host, host.cells[0], guest, guest.cells[0], false).fits);
  // A dedicated cell has no ratio, only free memory: 12 GiB used of 8 leaves none.
  guest.cpu_policy = CpuPolicy::Dedicated;
  guest.cells[0].dedicated_cpus = CpuSet{0};
  CellFit fit = fit_cell(host, host.cells[0], guest, guest.cells[0], false);
  EXPECT_FALSE(fit.fits);
  EXPECT_NE(fit.reason.find("pinned cell"), std::string::npos) << fit.reason;
  host.cells[0].usage.memory_kib = 0;
  fit = fit_cell(host, host.cells[0], guest, guest.cells[0], false);
  ASSERT_TRUE(fit.fits) << fit.reason;
  EXPECT_EQ(fit.pagesize_kib, 1048576u);
}

TEST(PageSize, WithoutARequestTheSmallestPagesTotalBoundsTheCell) {
  HostTopology host;
  host.cells.push_back(cell_with_pages());
  host.ratio.ram = 100;
  GuestTopology guest;
  GuestCell g;
  g.cpus = CpuSet{0};
  g.memory_kib = 5u << 20;  // more than the 4 GiB of 4K pages, less than the 8 GiB cell
  guest.cells.push_back(g);
  CellFit fit = fit_cell(host, host.cells[0], guest, guest.cells[0], false);
  EXPECT_FALSE(fit.fits);
  EXPECT_NE(fit.reason.find("4096 MiB in 4 KiB pages"), std::string::npos) << fit.reason;
}

}  // namespace
}  // namespace numaplace
