// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace.conf read as an operator means it (a new-user audit's findings): an empty CPU set is no
// value, as Nova reads its own options, not an empty set leaving the host no CPU; a node (and page
// size) reserved on two lines is refused by name rather than added up past the node or overwritten.
#include "plugin/sources/host_config_file.h"

#include <gtest/gtest.h>

#include <string>

namespace numaplace::plugin {
namespace {

TEST(HostConfigFile, AnEmptyCpuSetIsNoValue) {
  auto config = parse_host_config("[compute]\ncpu_shared_set =\ncpu_dedicated_set = 2-7\n", "conf");
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_FALSE(config->cpu_shared_set.has_value());
  ASSERT_TRUE(config->cpu_dedicated_set.has_value());
  EXPECT_EQ(to_cpu_list(*config->cpu_dedicated_set), "2-7");
  auto none = parse_host_config("[compute]\ncpu_dedicated_set =\n[numaplace]\nreserved_cpus =\n", "conf");
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_FALSE(none->cpu_dedicated_set.has_value());
  EXPECT_TRUE(none->reserved_cpus.empty());
}

TEST(HostConfigFile, ANodeReservedOnTwoLinesIsRefused) {
  const std::string twice[] = {
      "[numaplace]\nreserved_memory = node:0,size:20GB\nreserved_memory = node:0,size:20GB\n",
      "[DEFAULT]\nreserved_huge_pages = node:0,size:1GB,count:3\nreserved_huge_pages = node:0,size:1048576,count:1\n"};
  for (const auto& text : twice) {
    auto config = parse_host_config(text, "conf");
    ASSERT_FALSE(config.ok()) << text;
    EXPECT_EQ(config.error().name, "InvalidHostConfig");
    EXPECT_NE(config.error().message.find("conf line 3"), std::string::npos) << config.error().message;
    EXPECT_NE(config.error().message.find("by an earlier line too"), std::string::npos) << config.error().message;
  }
  // Other nodes, or other page sizes of one node, are separate reservations.
  auto apart = parse_host_config(
      "[DEFAULT]\nreserved_huge_pages = node:0,size:1GB,count:1\nreserved_huge_pages = node:0,size:2MB,count:8\n"
      "reserved_huge_pages = node:1,size:1GB,count:1\n[numaplace]\nreserved_memory = node:0,size:1GB\n"
      "reserved_memory = node:1,size:1GB\n",
      "conf");
  ASSERT_TRUE(apart.ok()) << apart.error().message;
  EXPECT_EQ(apart->reserved_huge_pages.size(), 3u);
  EXPECT_EQ(apart->reserved_memory.size(), 2u);
}

}  // namespace
}  // namespace numaplace::plugin
