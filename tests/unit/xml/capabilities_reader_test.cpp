// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/capabilities_reader.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "plugin/sources/host_json.h"
#include "support/test_paths.h"
#include "xml/xml_document.h"

namespace numaplace::xml {
namespace {

using numaplace::testing::shared_path;

HostTopology read_sample(const std::string& name) {
  auto text = read_text_file(shared_path("samples/libvirt/" + name), "sample");
  EXPECT_TRUE(text.ok());
  auto host = read_capabilities(*text);
  EXPECT_TRUE(host.ok()) << host.error().message;
  return host.ok() ? *host : HostTopology{};
}

// Sibling lists that disagree (cpu 1 says 1-2, cpu 0 says 0-1) are one core, so that no CPU counts
// in two cores and the host's JSON reads back (the JSON reader refuses a CPU in two groups).
TEST(CapabilitiesReader, SiblingGroupsThatShareACpuAreOneCore) {
  auto host = read_capabilities(
      "<capabilities><host><topology><cells num='1'><cell id='0'><memory unit='KiB'>1048576</memory>"
      "<cpus num='4'><cpu id='0' siblings='0-1'/><cpu id='1' siblings='1-2'/><cpu id='2'/><cpu id='3' siblings='3'/>"
      "</cpus></cell></cells></topology></host></capabilities>");
  ASSERT_TRUE(host.ok()) << host.error().message;
  ASSERT_EQ(host->cells[0].siblings.size(), 2u);
  EXPECT_EQ(to_cpu_list(host->cells[0].siblings[0]), "0-2");
  EXPECT_EQ(to_cpu_list(host->cells[0].siblings[1]), "3");
  auto again = plugin::host_from_json_text(plugin::host_to_json(*host).dump());
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->cells[0].siblings, host->cells[0].siblings);
}

TEST(CapabilitiesReader, ReadsCellsCpusSiblingsMemoryPagesAndDistances) {
  HostTopology host = read_sample("caps-2cell.xml");
  ASSERT_EQ(host.cells.size(), 2u);
  const HostCell& cell = host.cells[1];
  EXPECT_EQ(cell.id, 1u);
  EXPECT_EQ(to_cpu_list(cell.cpus), "8-15,24-31");
  ASSERT_EQ(cell.siblings.size(), 8u);
  EXPECT_EQ(to_cpu_list(cell.siblings[0]), "8,24");
  EXPECT_EQ(cell.memory_kib, 33554432u);
  ASSERT_EQ(cell.pages.size(), 3u);
  EXPECT_EQ(cell.pages[0].size_kib, 4u);
  EXPECT_EQ(cell.pages[1].size_kib, 2048u);
  EXPECT_EQ(cell.pages[1].total, 1024u);
  EXPECT_EQ(cell.pages[2].size_kib, 1048576u);
  EXPECT_EQ(cell.distances, (std::vector<std::uint32_t>{21, 10}));
  EXPECT_EQ(host.distance(0, 1), 21u);
  EXPECT_EQ(cell.shared_cpus, cell.cpus);
  EXPECT_EQ(cell.dedicated_cpus, cell.cpus);
}

TEST(CapabilitiesReader, EverySampleReads) {
  for (const auto& entry : std::filesystem::directory_iterator(shared_path("samples/libvirt"))) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("caps-", 0) != 0) continue;
    auto text = read_text_file(entry.path().string(), "sample");
    ASSERT_TRUE(text.ok());
    auto host = read_capabilities(*text, name);
    EXPECT_TRUE(host.ok()) << name << ": " << host.error().message;
    if (host.ok()) {
      EXPECT_FALSE(host->cells.empty()) << name;
    }
  }
}

// Every capabilities file of the real-world corpus reads or is refused with a named error.
TEST(CapabilitiesReader, CorpusReadsOrIsRefusedWithAReason) {
  int read = 0;
  int refused = 0;
  for (const char* dir : {"corpus/libvirt/capabilities", "corpus/virt-manager/capabilities"}) {
    for (const auto& entry : std::filesystem::directory_iterator(shared_path(dir))) {
      auto text = read_text_file(entry.path().string(), "corpus file");
      ASSERT_TRUE(text.ok());
      auto host = read_capabilities(*text, entry.path().filename().string());
      if (host.ok()) {
        ++read;
        for (const auto& cell : host->cells) EXPECT_EQ(cell.shared_cpus, cell.cpus);
      } else {
        ++refused;
        EXPECT_FALSE(host.error().name.empty());
        EXPECT_NE(host.error().message.find(entry.path().filename().string()), std::string::npos)
            << host.error().message;
      }
    }
  }
  EXPECT_GT(read, 30);
  EXPECT_LE(refused, 5);
}

TEST(CapabilitiesReader, RefusesMalformedXml) {
  auto host = read_capabilities("<capabilities><host>", "broken.xml");
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().name, "XmlMalformed");
  EXPECT_NE(host.error().message.find("broken.xml"), std::string::npos);
}

TEST(CapabilitiesReader, RefusesOtherDocuments) {
  auto host = read_capabilities("<domain type='kvm'/>");
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().name, "NotCapabilities");
}

TEST(CapabilitiesReader, RefusesHostsWithoutTopology) {
  auto host = read_capabilities("<capabilities><host><cpu/></host></capabilities>");
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().name, "NoNumaTopology");
}

TEST(CapabilitiesReader, RefusesExternalEntities) {
  auto host = read_capabilities(
      "<?xml version='1.0'?><!DOCTYPE c [<!ENTITY x SYSTEM 'file:///etc/passwd'>]><capabilities>&x;</capabilities>");
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().name, "XmlForbiddenConstruct");
}

TEST(CapabilitiesReader, RefusesImpossibleValues) {
  auto wrap = [](const std::string& cells) {
    return "<capabilities><host><topology><cells num='1'>" + cells + "</cells></topology></host></capabilities>";
  };
  struct Case {
    const char* xml;
    const char* name;
  } cases[] = {
      {"<cell id='0'><memory unit='KiB'>-5</memory></cell>", "InvalidMemorySize"},
      {"<cell id='0'><memory unit='KiB'>99999999999999999999999</memory></cell>", "InvalidMemorySize"},
      {"<cell id='0'><memory unit='parsec'>1</memory></cell>", "InvalidMemorySize"},
      {"<cell id='0'><cpus num='1'><cpu id='0' siblings='0-4294967295'/></cpus></cell>", "InvalidCpuList"},
      {"<cell id='0'><cpus num='1'><cpu id='x'/></cpus></cell>", "InvalidCapabilities"},
      {"<cell id='0'><cpus num='2'><cpu id='1'/><cpu id='1'/></cpus></cell>", "InvalidCapabilities"},
      {"<cell id='0'/><cell id='0'/>", "DuplicateNumaNode"},
      {"<cell id='0'><pages unit='KiB' size='2048'>4</pages><pages unit='MiB' size='2'>1</pages></cell>",
       "InvalidCapabilities"},
      {"<cell id='0'><cpus num='1'><cpu id='1'/></cpus></cell><cell id='1'><cpus num='1'><cpu id='1'/></cpus></cell>",
       "InconsistentHost"},
      // a distance row that leaves out a cell: no distance is guessed for it
      {"<cell id='0'><distances><sibling id='0' value='10'/></distances><cpus num='1'><cpu id='0'/></cpus></cell>"
       "<cell id='1'><distances><sibling id='0' value='21'/><sibling id='1' value='10'/></distances>"
       "<cpus num='1'><cpu id='1'/></cpus></cell>",
       "InvalidNumaDistances"},
  };
  for (const auto& c : cases) {
    auto host = read_capabilities(wrap(c.xml));
    ASSERT_FALSE(host.ok()) << c.xml;
    EXPECT_EQ(host.error().name, c.name) << c.xml << ": " << host.error().message;
  }
}

}  // namespace
}  // namespace numaplace::xml
