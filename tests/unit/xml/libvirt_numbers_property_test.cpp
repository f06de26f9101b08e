// SPDX-License-Identifier: LGPL-2.1-or-later
// A domain's numbers and lists as libvirt reads them, as properties: random domains whose vCPU
// count, <vcpu current>, <memory> (size and unit), indexes (<vcpupin vcpu>, <cell id>, <memnode
// cellid>), <vcpu cpuset> or <cpu><numa> cells are written in ways libvirt may or may not take (blanks, signs, leading
// zeros, hex, words, figures past 32 or 64 bits, sizes that are not whole KiB, empty or odd list
// items, exclusions before and after inclusions) are defined on libvirt's own test driver and
// placed by numaplace on that driver's host. numaplace refuses, with a named error, exactly the
// domains libvirt's parser refuses (and finds some too large for the host), and libvirt reads
// what it writes for the others as it read the input (vCPUs online, memory, CPUs within the
// operator's, the cells). libvirt is the oracle; nothing of numaplace computes the expectation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "placement/model/cpu_set.h"
#include "support/cpu_list_text.h"
#include "support/libvirt_test_driver.h"
#include "support/placed_domains.h"
#include "xml/domain_reader.h"
#include "xml/xml_document.h"

namespace numaplace {
namespace {

using testing::DefinedDomain;
using testing::CpuIds;
using testing::ids_in_list;

// The domain as libvirt writes it back once defined (its inactive XML), or nothing when it refuses it.
std::optional<std::string> xml_as_libvirt_reads(virConnect* conn, const std::string& xml) {
  DefinedDomain domain = testing::define_for_a_look(conn, xml);
  if (!domain) return std::nullopt;
  char* written = virDomainGetXMLDesc(domain.get(), VIR_DOMAIN_XML_INACTIVE);
  std::string text = written != nullptr ? written : "";
  free(written);
  return text;
}

// Each property runs against a connection of its own to libvirt's test driver and its host.
class LibvirtOracle : public ::testing::Test {
 protected:
  void SetUp() override {
    conn = testing::open_test_driver();
    ASSERT_NE(conn, nullptr);
    auto read = testing::test_driver_host(conn.get());
    ASSERT_TRUE(read.ok()) << read.error().message;
    host = std::move(*read);
  }
  testing::TestDriver conn;
  HostTopology host;
};
using VcpuCountProperty = LibvirtOracle;
using DomainMemoryProperty = LibvirtOracle;
using CpuListProperty = LibvirtOracle;
using DomainIndexProperty = LibvirtOracle;
using GuestCellsProperty = LibvirtOracle;
using PlacedDomainsProperty = LibvirtOracle;
using PciAddressProperty = LibvirtOracle;

// The vCPUs libvirt has online in the defined configuration, or nothing when it refuses the XML.
std::optional<int> online_vcpus_as_libvirt_reads(virConnect* conn, const std::string& xml) {
  DefinedDomain domain = testing::define_for_a_look(conn, xml);
  if (!domain) return std::nullopt;
  const int online = virDomainGetVcpusFlags(domain.get(), VIR_DOMAIN_AFFECT_CONFIG);
  EXPECT_GE(online, 0) << xml;
  return online;
}

// `n` as one of the ways to write it that libvirt may or may not read as n (blanks before or
// after, a sign, leading zeros), now and then a word; with `huge`, now and then a negative figure
// or one past 32 bits. (Not for the vCPU count: libvirt reads a negative count as a huge one, and
// its test driver allocates what the count asks for before it checks it, and aborts.)
std::string written_variously(std::mt19937& rng, const std::string& n, bool huge) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  switch (pick(0, 14)) {
    case 0: return huge ? "-" + n : n;
    case 1: return "+" + n;
    case 2: return " " + n;
    case 3: return n + " ";
    case 4: return "0" + n;
    case 5: return "0x" + n;
    case 6: return "";
    case 7: return std::vector<std::string>{"two", "1e1", "3.0", "NaN"}[pick(0, 3)];
    case 8:
      if (!huge) return n;
      return std::vector<std::string>{"4294967295", "4294967296", "18446744073709551617"}[pick(0, 2)];
    case 9: return std::vector<std::string>{"\t", "\n", "\n  "}[pick(0, 2)] + n;
    case 10: return n + std::vector<std::string>{"\t", "\n", "\n  "}[pick(0, 2)];
    default: return n;
  }
}

std::string xml_escaped(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '\t' ? "&#9;" : c == '\n' ? "&#10;" : std::string(1, c);
  return out;
}

TEST_F(VcpuCountProperty, NumaplaceTakesTheVcpuCountsLibvirtTakes) {
  std::mt19937 rng(20261207);
  int accepted = 0, refused = 0, fewer_online = 0, count_written_otherwise = 0;
  for (int round = 0; round < 1500; ++round) {
    const int vcpus = std::uniform_int_distribution<int>(1, 12)(rng);
    const std::string count = std::uniform_int_distribution<int>(0, 2)(rng) == 0 ? written_variously(rng, std::to_string(vcpus), false)
                                                                                 : std::to_string(vcpus);
    std::string current;
    if (std::uniform_int_distribution<int>(0, 4)(rng) != 0) {
      const std::string n = std::to_string(std::uniform_int_distribution<int>(0, vcpus + 3)(rng));
      current = " current='" + xml_escaped(written_variously(rng, n, true)) + "'";
    }
    const std::string xml = "<domain type='test'><name>current-" + std::to_string(round) +
                            "</name><memory unit='MiB'>512</memory><vcpu" + current + ">" + count +
                            "</vcpu><os><type>hvm</type></os></domain>";
    const std::optional<int> libvirt_online = online_vcpus_as_libvirt_reads(conn.get(), xml);
    auto outcome = testing::place_with_specs(host, xml, {});
    if (!libvirt_online) {
      ASSERT_FALSE(outcome.ok()) << "libvirt refuses this domain, numaplace placed it:\n" << xml;
      EXPECT_EQ(outcome.error().name, "InvalidDomain") << outcome.error().message << "\n" << xml;
      ++refused;
      continue;
    }
    ASSERT_TRUE(outcome.ok()) << "libvirt takes this domain, numaplace refused it: " << outcome.error().name << ": "
                              << outcome.error().message << "\n" << xml;
    const std::optional<int> placed_online = online_vcpus_as_libvirt_reads(conn.get(), outcome->domain_xml);
    ASSERT_TRUE(placed_online) << "libvirt refuses what numaplace wrote:\n" << outcome->domain_xml;
    EXPECT_EQ(*placed_online, *libvirt_online) << xml << "\nbecame\n" << outcome->domain_xml;
    ++accepted;
    if (*libvirt_online < vcpus) ++fewer_online;
    if (count != std::to_string(vcpus)) ++count_written_otherwise;
    if (::testing::Test::HasFailure()) break;
  }
  // About 650 taken (300 with fewer vCPUs online than the guest has, 70 whose count is written
  // otherwise than plainly) and 850 refused.
  EXPECT_GT(accepted, 400);
  EXPECT_GT(refused, 500);
  EXPECT_GT(fewer_online, 200);
  EXPECT_GT(count_written_otherwise, 40);
}

// The guest's memory in KiB as libvirt reads it, or nothing when it refuses the XML.
std::optional<unsigned long> memory_as_libvirt_reads(virConnect* conn, const std::string& xml) {
  DefinedDomain domain = testing::define_for_a_look(conn, xml);
  if (!domain) return std::nullopt;
  return virDomainGetMaxMemory(domain.get());
}

TEST_F(DomainMemoryProperty, NumaplaceTakesTheSizesLibvirtTakes) {
  std::uint64_t host_kib = 0;
  for (const auto& cell : host.cells) host_kib += cell.memory_kib;

  // Units as written (case as libvirt takes it, and a few it does not), each with the largest
  // number drawn in it: mostly a guest that fits, now and then one that does not.
  const std::vector<std::pair<std::string, std::uint64_t>> units{
      {"", 3000000},     {"b", 3000000000}, {"bytes", 3000000000}, {"KiB", 3000000}, {"k", 3000000},
      {"KB", 3000000},   {"MiB", 3000},     {"M", 3000},           {"MB", 3000},     {"mib", 3000},
      {"GiB", 3},        {"G", 3},          {"GB", 3},             {"TiB", 1},       {"Kib", 100000},
      {" MiB", 3000},    {"x", 10}};
  std::mt19937 rng(20261207);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng); };
  int taken = 0, refused = 0, too_large = 0, not_whole_kib = 0;
  for (int round = 0; round < 1500; ++round) {
    const auto& [unit, most] = units[pick(0, units.size() - 1)];
    const std::string value = written_variously(rng, std::to_string(pick(0, most)), true);
    const std::string xml = "<domain type='test'><name>memory-" + std::to_string(round) + "</name><memory" +
                            (unit.empty() ? std::string() : " unit='" + unit + "'") + ">" + value +
                            "</memory><vcpu>2</vcpu><os><type>hvm</type></os></domain>";
    const std::optional<unsigned long> libvirt_kib = memory_as_libvirt_reads(conn.get(), xml);
    auto outcome = testing::place_with_specs(host, xml, {});
    if (!libvirt_kib) {
      ASSERT_FALSE(outcome.ok()) << "libvirt refuses this domain, numaplace placed it:\n" << xml;
      EXPECT_TRUE(outcome.error().name == "InvalidMemorySize" || outcome.error().name == "InvalidDomain")
          << outcome.error().name << ": " << outcome.error().message << "\n" << xml;
      ++refused;
      continue;
    }
    if (*libvirt_kib > host_kib) {
      // Larger than the whole host: numaplace may refuse it only as a guest that does not fit.
      ASSERT_FALSE(outcome.ok()) << xml;
      EXPECT_EQ(outcome.error().name, "NoFit") << outcome.error().message << "\n" << xml;
      ++too_large;
      continue;
    }
    if (!outcome.ok() && outcome.error().name == "NoFit") continue;  // the test host's cells are small
    ASSERT_TRUE(outcome.ok()) << "libvirt takes this domain, numaplace refused it: " << outcome.error().name << ": "
                              << outcome.error().message << "\n" << xml;
    const std::optional<unsigned long> placed_kib = memory_as_libvirt_reads(conn.get(), outcome->domain_xml);
    ASSERT_TRUE(placed_kib) << "libvirt refuses what numaplace wrote:\n" << outcome->domain_xml;
    EXPECT_EQ(*placed_kib, *libvirt_kib) << xml << "\nbecame\n" << outcome->domain_xml;
    ++taken;
    if (value.find_first_of("0123456789") != std::string::npos && (unit == "b" || unit == "bytes" || unit == "KB" ||
                                                                  unit == "MB" || unit == "GB")) {
      ++not_whole_kib;  // mostly: sizes in powers of 1000 or bytes are seldom whole KiB
    }
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(taken, 300);
  EXPECT_GT(refused, 400);
  EXPECT_GT(too_large, 20);
  EXPECT_GT(not_whole_kib, 60);
}

// The CPUs of <vcpu cpuset> as libvirt reads them (from its own XML of the defined domain), or
// nothing when it refuses the domain.
std::optional<testing::CpuIds> vcpu_cpuset_as_libvirt_reads(virConnect* conn, const std::string& xml) {
  const std::optional<std::string> read = xml_as_libvirt_reads(conn, xml);
  if (!read) return std::nullopt;
  const std::string& text = *read;
  const std::string attribute = "cpuset='";
  const std::size_t vcpu = text.find("<vcpu ");
  const std::size_t at = text.find(attribute, vcpu);
  EXPECT_NE(vcpu, std::string::npos) << text;
  if (vcpu == std::string::npos || at == std::string::npos || at > text.find('>', vcpu)) return testing::CpuIds{};
  const std::size_t from = at + attribute.size();
  return ids_in_list(text.substr(from, text.find('\'', from) - from));
}

// A cpulist of ids up to `top`: items (ids, ranges, exclusions) joined by commas and blanks as
// libvirt takes them, and in one list of three something it may not take (a stray sign, an
// empty item, a backwards or excluded range, another separator, junk at the end).
std::string drawn_cpu_list(std::mt19937& rng, int top) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  static const std::vector<std::string> blanks{"", "", "", " ", "\t"};
  static const std::vector<std::string> odd_joins{",,", ";", " ", "^", "-", "- -"};
  static const std::vector<std::string> odd_items{"+1", "^ 1", "^1-2", "3-1", "1-+2", "1- +2", "1-+ 2", "x", ""};
  const bool odd = pick(0, 2) == 0;
  const int items = pick(1, 5);
  const int odd_at = pick(0, items);
  std::string text = blanks[pick(0, blanks.size() - 1)];
  for (int i = 0; i < items; ++i) {
    if (odd && i == odd_at && pick(0, 1) == 0) {
      text += odd_items[pick(0, odd_items.size() - 1)];
    } else {
      const int first = pick(0, top);
      switch (pick(0, 3)) {
        case 0: text += "^" + std::to_string(first); break;
        case 1: text += std::to_string(first) + blanks[pick(0, 4)] + "-" + blanks[pick(0, 4)] + std::to_string(pick(first, top)); break;
        default: text += std::to_string(first);
      }
    }
    if (i + 1 < items) {
      text += odd && i == odd_at ? odd_joins[pick(0, odd_joins.size() - 1)]
                                 : blanks[pick(0, 4)] + "," + blanks[pick(0, 4)];
    }
  }
  if (pick(0, 5) == 0) text += std::vector<std::string>{",", ", ", " ", "\t", ",,", "x"}[pick(0, 5)];
  return text;
}

// parse_cpu_list reads each list as libvirt does, and place takes exactly the <vcpu cpuset>s
// libvirt takes (the lists name only CPUs the test host has), confining the guest within them.
TEST_F(CpuListProperty, ListsAreReadAsLibvirtReadsThem) {
  std::uint32_t top = 0;
  for (const auto& cell : host.cells) top = std::max(top, cell.cpus.last());

  std::mt19937 rng(20261207);
  int read = 0, refused = 0, empty = 0, reincluded = 0;
  for (int round = 0; round < 2000; ++round) {
    const std::string text = drawn_cpu_list(rng, static_cast<int>(std::min<std::uint32_t>(top, 7)));
    const std::string xml = "<domain type='test'><name>cpus-" + std::to_string(round) +
                            "</name><memory unit='MiB'>512</memory><vcpu cpuset='" + text +
                            "'>2</vcpu><os><type>hvm</type></os></domain>";
    const auto libvirt_cpus = vcpu_cpuset_as_libvirt_reads(conn.get(), xml);
    const Result<CpuSet> ours = parse_cpu_list(text, "cpuset");
    auto outcome = testing::place_with_specs(host, xml, {});
    if (!libvirt_cpus) {
      // libvirt refuses the list, or a list that leaves no CPU; place refuses both.
      EXPECT_TRUE(!ours.ok() || ours->empty()) << "'" << text << "' read as " << to_cpu_list(*ours);
      ASSERT_FALSE(outcome.ok()) << "libvirt refuses this domain, numaplace placed it:\n" << xml;
      EXPECT_EQ(outcome.error().name, ours.ok() ? "InvalidDomain" : "InvalidCpuList") << outcome.error().message << "\n" << xml;
      ++refused;
      if (ours.ok()) ++empty;
      continue;
    }
    ASSERT_TRUE(ours.ok()) << "'" << text << "': " << ours.error().message;
    const testing::CpuIds read_ids(ours->begin(), ours->end());
    EXPECT_EQ(read_ids, *libvirt_cpus) << "'" << text << "'";
    ASSERT_TRUE(outcome.ok()) << "libvirt takes this domain, numaplace refused it: " << outcome.error().name << ": "
                              << outcome.error().message << "\n" << xml;
    const auto placed_cpus = vcpu_cpuset_as_libvirt_reads(conn.get(), outcome->domain_xml);
    ASSERT_TRUE(placed_cpus) << "libvirt refuses what numaplace wrote:\n" << outcome->domain_xml;
    EXPECT_FALSE(placed_cpus->empty()) << outcome->domain_xml;
    EXPECT_TRUE(std::includes(libvirt_cpus->begin(), libvirt_cpus->end(), placed_cpus->begin(), placed_cpus->end()))
        << "'" << text << "' widened\n" << outcome->domain_xml;
    ++read;
    // An id the list excludes and libvirt still holds: a later item listed it again.
    for (std::size_t caret = text.find('^'); caret != std::string::npos; caret = text.find('^', caret + 1)) {
      const std::size_t digits = text.find_first_not_of("0123456789", caret + 1);
      const std::string id = text.substr(caret + 1, digits == std::string::npos ? std::string::npos : digits - caret - 1);
      if (!id.empty() && libvirt_cpus->count(std::stoi(id)) != 0) {
        ++reincluded;
        break;
      }
    }
    if (::testing::Test::HasFailure()) break;
  }
  // About 1,450 read (180 of them with an id excluded and listed again) and 550 refused (130 of
  // them lists that leave no CPU).
  EXPECT_GT(read, 1000);
  EXPECT_GT(refused, 350);
  EXPECT_GT(empty, 80);
  EXPECT_GT(reincluded, 100);
}

// Whether libvirt's parser takes the domain at all.
bool libvirt_takes(virConnect* conn, const std::string& xml) { return testing::define_for_a_look(conn, xml) != nullptr; }

// The indexes in a domain (a <vcpupin>'s vCPU, a <cpu><numa> cell's id, a <memnode>'s cell) are
// read as libvirt reads them: place takes exactly the domains libvirt takes.
TEST_F(DomainIndexProperty, NumaplaceTakesTheIndexesLibvirtTakes) {
  std::mt19937 rng(20261207);
  int taken = 0, refused = 0;
  for (int round = 0; round < 1500; ++round) {
    // Two vCPUs in two guest cells of 256 MiB; one index written some other way.
    std::string index[4] = {"0", "1", "0", "1"};  // vcpupin vcpu, cell 0 id, cell 1 id, memnode cellid
    const int odd = std::uniform_int_distribution<int>(0, 3)(rng);
    // Not past 32 bits for the vCPU: libvirt ignores a <vcpupin> of a vCPU the guest lacks (it
    // logs a warning), where numaplace refuses it as the operator's mistake (numbers_test.cpp).
    index[odd] = written_variously(rng, index[odd], odd != 0);
    const std::string xml = "<domain type='test'><name>index-" + std::to_string(round) +
                            "</name><memory unit='MiB'>512</memory><vcpu>2</vcpu><cputune><vcpupin vcpu='" +
                            xml_escaped(index[0]) + "' cpuset='1'/></cputune><numatune><memnode cellid='" +
                            xml_escaped(index[3]) + "' mode='strict' nodeset='1'/></numatune><os><type>hvm</type></os>"
                            "<cpu><numa><cell id='" + xml_escaped(index[1]) + "' cpus='0' memory='262144'/><cell id='" +
                            xml_escaped(index[2]) + "' cpus='1' memory='262144'/></numa></cpu></domain>";
    const bool libvirt = libvirt_takes(conn.get(), xml);
    auto outcome = testing::place_with_specs(host, xml, {{"hw:numa_nodes", "2"}});
    if (!libvirt) {
      ASSERT_FALSE(outcome.ok()) << "libvirt refuses this domain, numaplace placed it:\n" << xml;
      EXPECT_EQ(outcome.error().name.rfind("Invalid", 0), 0u) << outcome.error().name << ": " << outcome.error().message
                                                               << "\n" << xml;
      ++refused;
      continue;
    }
    ASSERT_TRUE(outcome.ok()) << "libvirt takes this domain, numaplace refused it: " << outcome.error().name << ": "
                              << outcome.error().message << "\n" << xml;
    EXPECT_TRUE(libvirt_takes(conn.get(), outcome->domain_xml)) << "libvirt refuses what numaplace wrote:\n"
                                                                << outcome->domain_xml;
    ++taken;
    if (::testing::Test::HasFailure()) break;
  }
  // About 840 taken and 660 refused.
  EXPECT_GT(taken, 500);
  EXPECT_GT(refused, 400);
}

// The value of attribute `name` in `element` ("bus='0x01'" -> "0x01"), read by the test alone.
std::string attribute_text(const std::string& element, const std::string& name) {
  const std::size_t at = element.find(" " + name + "='");
  if (at == std::string::npos) return "";
  const std::size_t from = at + name.size() + 3;
  return element.substr(from, element.find('\'', from) - from);
}

// A PCI device passed through is held once whatever way its address is written: numaplace reads a
// <hostdev>'s source address as libvirt does (each part C's strtoul in base 0: 0x hex, 0 octal,
// else decimal; blanks and a '+' before it), to the address libvirt writes back.
TEST_F(PciAddressProperty, NumaplaceReadsTheAddressesLibvirtReads) {
  std::mt19937 rng(20261207);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const char* parts[] = {"domain", "bus", "slot", "function"};
  const int limits[] = {0xffff, 0xff, 0x1f, 7};
  int taken = 0, refused = 0;
  for (int round = 0; round < 1500; ++round) {
    std::string written[4];
    for (int i = 0; i < 4; ++i) {
      const int value = pick(0, 2) == 0 ? limits[i] + pick(0, 1) : pick(0, limits[i]);
      char text[32];
      switch (pick(0, 2)) {
        case 0: std::snprintf(text, sizeof text, "%d", value); break;
        case 1: std::snprintf(text, sizeof text, pick(0, 1) == 0 ? "0x%x" : "0X%X", value); break;
        default: std::snprintf(text, sizeof text, "0%o", value); break;
      }
      written[i] = text;
    }
    const int odd = pick(0, 3);
    written[odd] = written_variously(rng, written[odd], true);
    std::string address = "<address";
    for (int i = 0; i < 4; ++i) address += std::string(" ") + parts[i] + "='" + xml_escaped(written[i]) + "'";
    address += "/>";
    const std::string xml = "<domain type='test'><name>pci-" + std::to_string(round) +
                            "</name><memory unit='MiB'>512</memory><vcpu>1</vcpu><os><type>hvm</type></os><devices>"
                            "<hostdev mode='subsystem' type='pci' managed='yes'><source>" + address +
                            "</source></hostdev></devices></domain>";
    const std::optional<std::string> libvirt = xml_as_libvirt_reads(conn.get(), xml);
    auto doc = xml::parse_document(xml, "domain");
    ASSERT_TRUE(doc.ok()) << xml;
    auto summary = xml::read_domain_summary(doc->get(), "domain");
    if (!libvirt) {
      EXPECT_FALSE(summary.ok()) << "libvirt refuses this address, numaplace read it: " << address;
      ++refused;
      continue;
    }
    ASSERT_TRUE(summary.ok()) << "libvirt takes this address, numaplace refused it: " << summary.error().message;
    const std::size_t source = libvirt->find("<source>");
    const std::string element = libvirt->substr(libvirt->find("<address", source));
    const auto part = [&](const char* name, int digits) {
      const std::string hex = attribute_text(element, name).substr(2);  // libvirt writes 0x...
      return std::string(static_cast<std::size_t>(std::max(0, digits - static_cast<int>(hex.size()))), '0') + hex;
    };
    const std::string expected = part("domain", 4) + ":" + part("bus", 2) + ":" + part("slot", 2) + "." +
                                 part("function", 1);
    ASSERT_EQ(summary->pci_hostdevs.size(), 1u) << address;
    EXPECT_EQ(summary->pci_hostdevs[0], expected) << address << " libvirt: " << element.substr(0, 80);
    ++taken;
    if (::testing::Test::HasFailure()) break;
  }
  // About 425 taken and 1,075 refused.
  EXPECT_GT(taken, 300);
  EXPECT_GT(refused, 800);
}

// The <cpu><numa> part of a defined domain, as libvirt writes it back.
std::optional<std::string> numa_as_libvirt_reads(virConnect* conn, const std::string& xml) {
  const std::optional<std::string> read = xml_as_libvirt_reads(conn, xml);
  if (!read) return std::nullopt;
  const std::string& text = *read;
  const std::size_t from = text.find("<numa>");
  const std::size_t to = text.find("</numa>");
  return from == std::string::npos || to == std::string::npos ? std::string() : text.substr(from, to - from);
}

// A guest's <cpu><numa> cells are taken as libvirt takes them (numbered 0 to N-1 in any order,
// vCPU lists of the guest's own vCPUs, none in two cells, memory in any unit), and a confined
// guest keeps them as libvirt read them. One exception, deliberate: a cell id given twice is
// refused, where libvirt lets it through when the first of the two has no memory (its check looks
// at that memory) and then has a cell without anything.
TEST_F(GuestCellsProperty, NumaplaceTakesTheCellsLibvirtTakes) {
  std::mt19937 rng(20261207);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int kept = 0, refused = 0, twice = 0;
  for (int round = 0; round < 1500; ++round) {
    const int vcpus = pick(1, 6);
    const int cells = pick(1, 3);
    std::string numa;
    std::set<std::string> ids;
    bool id_twice = false;
    int next = 0;
    for (int c = 0; c < cells; ++c) {
      // Mostly the vCPUs in runs, cell by cell; now and then a list that overlaps, runs past the
      // guest or is empty, a cell without a list, or an id out of turn.
      const int take = c + 1 == cells ? vcpus - next : pick(0, vcpus - next);
      std::string cpus = take > 0 ? std::to_string(next) + (take > 1 ? "-" + std::to_string(next + take - 1) : "") : "";
      next += take;
      if (pick(0, 6) == 0) cpus = std::to_string(pick(0, vcpus + 1));
      std::string id = std::to_string(c);
      if (pick(0, 8) == 0) id = std::to_string(pick(0, 3));
      id_twice = id_twice || !ids.insert(id).second;
      static const std::vector<std::pair<std::string, int>> units{{"", 1 << 20}, {"KiB", 1 << 20}, {"MiB", 1024},
                                                                   {"GiB", 2}, {"b", 1 << 30}};
      const auto& [unit, most] = units[pick(0, units.size() - 1)];
      numa += "<cell id='" + id + "'" + (cpus.empty() && pick(0, 1) == 0 ? std::string() : " cpus='" + cpus + "'") +
              " memory='" + std::to_string(pick(0, most)) + "'" + (unit.empty() ? "" : " unit='" + unit + "'") + "/>";
    }
    const std::string xml = "<domain type='test'><name>cells-" + std::to_string(round) +
                            "</name><memory unit='MiB'>512</memory><vcpu>" + std::to_string(vcpus) +
                            "</vcpu><os><type>hvm</type></os><cpu><numa>" + numa + "</numa></cpu></domain>";
    const std::optional<std::string> libvirt_numa = numa_as_libvirt_reads(conn.get(), xml);
    auto outcome = testing::place_with_specs(host, xml, {});
    if (id_twice || !libvirt_numa) {
      ASSERT_FALSE(outcome.ok()) << "numaplace placed a domain whose cells libvirt refuses or that names a cell "
                                    "twice:\n" << xml;
      EXPECT_EQ(outcome.error().name.rfind("Invalid", 0), 0u) << outcome.error().name << ": "
                                                               << outcome.error().message << "\n" << xml;
      ++(id_twice ? twice : refused);
      continue;
    }
    ASSERT_TRUE(outcome.ok()) << "libvirt takes this domain, numaplace refused it: " << outcome.error().name << ": "
                              << outcome.error().message << "\n" << xml;
    const std::optional<std::string> placed_numa = numa_as_libvirt_reads(conn.get(), outcome->domain_xml);
    ASSERT_TRUE(placed_numa) << "libvirt refuses what numaplace wrote:\n" << outcome->domain_xml;
    EXPECT_EQ(*placed_numa, *libvirt_numa) << "the cells changed\n" << xml << "\nbecame\n" << outcome->domain_xml;
    ++kept;
    if (::testing::Test::HasFailure()) break;
  }
  // About 800 kept, 600 refused and 100 with an id twice.
  EXPECT_GT(kept, 500);
  EXPECT_GT(refused, 400);
  EXPECT_GT(twice, 60);
}

// An element numaplace reads given twice is refused: libvirt's schema refuses each such domain,
// while its parser reads some of them together (the pins of two <cputune>s, the devices of two
// <devices>) and some only the first, so numaplace could not read the domain as libvirt does.
using RepeatedElements = LibvirtOracle;
TEST_F(RepeatedElements, AnElementNumaplaceReadsGivenTwiceIsRefusedAsLibvirtsSchemaRefusesIt) {
  const std::string cells = "<cell id='0' cpus='0' memory='512' unit='MiB'/><cell id='1' cpus='1' memory='512' unit='MiB'/>";
  const std::string parts[] = {
      "<vcpu>2</vcpu>",
      "<memory unit='MiB'>1024</memory>",
      "<cputune><vcpupin vcpu='0' cpuset='1'/><emulatorpin cpuset='2'/></cputune>",
      "<numatune><memory mode='strict' nodeset='0-1'/></numatune>",
      "<memoryBacking><nosharepages/></memoryBacking>",
      "<os><type>hvm</type></os>",
      "<cpu><numa>" + cells + "</numa></cpu>",
      "<devices><hostdev mode='subsystem' type='pci' managed='yes'><source><address domain='0' bus='1' slot='0' "
      "function='0'/></source></hostdev></devices>"};
  auto domain = [&](std::size_t twice, const std::string& part) {
    std::string xml = "<domain type='test'><name>twice</name>";
    for (std::size_t i = 0; i < std::size(parts); ++i) xml += parts[i] + (i == twice ? part : std::string());
    return xml + "</domain>";
  };
  ASSERT_NE(testing::define_for_a_look(conn.get(), domain(99, ""), VIR_DOMAIN_DEFINE_VALIDATE), nullptr);
  auto base = testing::place_with_specs(host, domain(99, ""), {});
  ASSERT_TRUE(base.ok()) << base.error().name << ": " << base.error().message;
  const std::vector<std::pair<std::size_t, std::string>> repeats{
      {0, parts[0]}, {1, parts[1]}, {2, "<cputune><vcpupin vcpu='1' cpuset='3'/></cputune>"},
      {2, "<cputune><emulatorpin cpuset='3'/></cputune>"}, {3, parts[3]},
      {4, "<memoryBacking><locked/></memoryBacking>"},
      {6, "<cpu><numa>" + cells + "</numa></cpu>"}, {7, parts[7]},
      {7, "<devices><hostdev mode='subsystem' type='pci' managed='yes'><source><address domain='0' bus='2' slot='0' "
          "function='0'/></source></hostdev></devices>"},
      {1, "<maxMemory slots='2' unit='MiB'>4096</maxMemory><maxMemory slots='2' unit='MiB'>4096</maxMemory>"},
      {1, "<iothreads>1</iothreads><iothreads>1</iothreads>"}};
  for (const auto& [after, part] : repeats) {
    const std::string xml = domain(after, part);
    EXPECT_EQ(testing::define_for_a_look(conn.get(), xml, VIR_DOMAIN_DEFINE_VALIDATE), nullptr)
        << "libvirt's schema takes " << xml;
    auto outcome = testing::place_with_specs(host, xml, {});
    ASSERT_FALSE(outcome.ok()) << xml;
    EXPECT_EQ(outcome.error().name, "InvalidDomain") << outcome.error().message;
    EXPECT_NE(outcome.error().message.find("where libvirt's schema allows one"), std::string::npos)
        << outcome.error().message;
  }
  // The same within one element: two <hugepages>, two <numa>.
  for (const auto& [once, twice] : std::vector<std::pair<std::string, std::string>>{
           {"<nosharepages/>", "<hugepages/><hugepages/>"},
           {"<numa>" + cells + "</numa>", "<numa>" + cells + "</numa><numa>" + cells + "</numa>"}}) {
    std::string xml = domain(99, "");
    xml.replace(xml.find(once), once.size(), twice);
    EXPECT_EQ(testing::define_for_a_look(conn.get(), xml, VIR_DOMAIN_DEFINE_VALIDATE), nullptr)
        << "libvirt's schema takes " << xml;
    auto outcome = testing::place_with_specs(host, xml, {});
    ASSERT_FALSE(outcome.ok()) << xml;
    EXPECT_NE(outcome.error().message.find("where libvirt's schema allows one"), std::string::npos)
        << outcome.error().message;
  }
  // Within one <cputune>, two <emulatorpin>s: libvirt's parser refuses them itself.
  const std::string pins = domain(2, "");
  const std::string two_pins =
      pins.substr(0, pins.find("</cputune>")) + "<emulatorpin cpuset='3'/>" + pins.substr(pins.find("</cputune>"));
  EXPECT_EQ(testing::define_for_a_look(conn.get(), two_pins), nullptr);
  EXPECT_FALSE(testing::place_with_specs(host, two_pins, {}).ok());
}

// A memory device of every model libvirt knows, now and then on a guest cell of its own
// (<target><node>), now and then on one the guest lacks; "" two times in three.
std::string memory_device(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  if (pick(0, 2) != 0) return "";
  const std::string node = pick(0, 3) == 0 ? std::string() : "<node>" + std::to_string(pick(0, 2)) + "</node>";
  const std::string size = "<size unit='MiB'>256</size>";
  switch (pick(0, 4)) {
    case 0:
      return "<memory model='dimm'><source><nodemask>0</nodemask></source><target>" + size + node + "</target></memory>";
    case 1:
      return "<memory model='nvdimm'><source><path>/tmp/numaplace-nvdimm</path></source><target>" + size + node +
             "</target></memory>";
    case 2:
      return "<memory model='virtio-mem'><target>" + size + node +
             "<block>2048</block><requested>0</requested></target></memory>";  // no units: numaplace reads neither
    case 3:
      return "<memory model='virtio-pmem'><source><path>/tmp/numaplace-pmem</path></source><target>" + size + node +
             "</target></memory>";
    default:
      return "<memory model='sgx-epc'><target>" + size + node + "</target></memory>";
  }
}

// A guest with every binding numaplace reads or writes: <vcpu cpuset>, pins, iothreads, <vcpusched>,
// <numatune> (a random memory mode, with <memnode>s or without), huge pages or not, two cells and
// now and then a memory device.
std::string rich_domain(std::mt19937& rng, const std::string& name) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const std::string mode = std::vector<std::string>{"strict", "interleave", "preferred", "restrictive"}[pick(0, 3)];
  // One guest in six has no <cpu><numa> cells: then no <memnode>s, and a <page> of no cell or of cell 0.
  const bool cells = pick(0, 5) != 0;
  const std::string memnodes = !cells || pick(0, 1) == 0
                                   ? std::string()
                                   : "<memnode cellid='0' mode='" + mode + "' nodeset='0'/><memnode cellid='1' mode='" +
                                         (mode == "restrictive" ? mode : "preferred") + "' nodeset='1'/>";
  // With cells, a page of cell 0 only (the cells then differ), of both, or of every cell.
  const std::string page_nodeset =
      cells ? std::vector<std::string>{" nodeset='0'", " nodeset='0-1'", ""}[pick(0, 2)] : pick(0, 1) == 0 ? " nodeset='0'" : "";
  const std::string device = memory_device(rng);
  return "<domain type='test'><name>" + name + "</name>" +
         (!device.empty() ? "<maxMemory slots='4' unit='MiB'>8192</maxMemory><memory unit='MiB'>1280</memory>"
                          : "<memory unit='MiB'>1024</memory>") +
         "<vcpu placement='static' cpuset='0-15'>4</vcpu><iothreads>2</iothreads><cputune><vcpupin vcpu='0' cpuset='1'/>"
         "<vcpupin vcpu='1' cpuset='2-3'/><emulatorpin cpuset='0-3'/><iothreadpin iothread='1' cpuset='4'/>"
         "<vcpusched vcpus='0-1' scheduler='fifo' priority='1'/></cputune><numatune><memory mode='" + mode +
         "' nodeset='0-1'/>" + memnodes + "</numatune>" +
         (pick(0, 1) == 0 ? "" : "<memoryBacking><hugepages><page size='2048' unit='KiB'" + page_nodeset +
                                     "/></hugepages></memoryBacking>") +
         "<os><type>hvm</type></os>" +
         (cells ? "<cpu><numa><cell id='0' cpus='0-1' memory='512' unit='MiB'/><cell id='1' cpus='2-3' memory='512' "
                  "unit='MiB'/></numa></cpu>"
                : "") +
         (!device.empty() ? "<devices>" + device + "</devices>" : std::string()) + "</domain>";
}

// Whatever numaplace writes, libvirt defines (and its schema takes, where it takes the input) and
// runs the guest's threads where the placement says, and what libvirt refuses numaplace refuses: rich guests with one or two attribute values or
// sizes, guest cells and host nodes replaced by numbers, lists, words and modes (and now and then
// a binding element given twice or left out), placed
// without a NUMA topology and with one (shared, dedicated, isolated, realtime, mixed, sockets).
TEST_F(PlacedDomainsProperty, LibvirtDefinesWhatNumaplaceWrites) {
  std::mt19937 rng(20261207);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  static const std::vector<std::string> values{
      "0", "1", "2", "3", "4", "5", "7", "8", "16", "-1", "+1", " 1", "1 ", "0-1", "1-0", "0-3", "0-15", "^0", "0,^0",
      "1,", "", "x", "4294967296", "2048", "1048576", "0x1", "strict", "interleave", "restrictive", "preferred",
      "auto", "static", "rr", "fifo", "batch", "other"};
  static const std::vector<SpecMap> requests{
      {},
      {{"hw:numa_nodes", "2"}},
      {{"hw:numa_nodes", "2"}, {"hw:cpu_policy", "dedicated"}},
      {{"hw:numa_nodes", "2"}, {"hw:cpu_policy", "dedicated"}, {"hw:emulator_threads_policy", "isolate"}},
      {{"hw:numa_nodes", "2"}, {"hw:cpu_policy", "dedicated"}, {"hw:cpu_realtime", "yes"},
       {"hw:cpu_realtime_mask", "^0"}},
      {{"hw:numa_nodes", "2"}, {"hw:cpu_policy", "mixed"}, {"hw:cpu_dedicated_mask", "^0"}},
      {{"hw:numa_nodes", "1"}, {"hw:cpu_sockets", "2"}}};
  int placed = 0, refused_as_libvirt = 0, placed_as_given = 0, validated = 0, placed_with_device = 0, placed_reshaped = 0;
  int placed_pinned = 0, placed_isolated = 0, placed_confined = 0;
  int host_cpus = 0;
  for (const auto& cell : host.cells) host_cpus += static_cast<int>(cell.cpus.size());
  std::map<std::size_t, int> placed_by_kind;
  for (int round = 0; round < 4500; ++round) {
    std::string xml = rich_domain(rng, "rich-" + std::to_string(round));
    const bool as_given = pick(0, 4) == 0;
    for (int changes = as_given ? 0 : pick(1, 2); changes > 0; --changes) {
      std::vector<std::pair<std::size_t, std::size_t>> values_at;  // every attribute value but type
      for (std::size_t at = xml.find("='"); at != std::string::npos; at = xml.find("='", at + 1)) {
        if (xml.compare(at - 4, 4, "type") == 0) continue;
        values_at.emplace_back(at + 2, xml.find('\'', at + 2));
      }
      // and the text of the sizes, guest cells and host nodes (<vcpu>'s has VcpuCountProperty)
      for (const std::string name : {"memory", "maxMemory", "size", "node", "nodemask"}) {
        for (std::size_t at = xml.find("<" + name); at != std::string::npos; at = xml.find("<" + name, at + 1)) {
          const std::size_t from = xml.find('>', at) + 1;
          const std::size_t to = xml.find('<', from);
          if (xml.compare(to, name.size() + 3, "</" + name + ">") == 0) values_at.emplace_back(from, to);
        }
      }
      const auto [from, to] = values_at[pick(0, values_at.size() - 1)];
      xml.replace(from, to - from, values[pick(0, values.size() - 1)]);
    }
    // Now and then one binding element given twice or left out.
    const bool reshaped = !as_given && pick(0, 3) == 0;
    if (reshaped) {
      std::vector<std::pair<std::size_t, std::size_t>> elements;
      for (const std::string name : {"vcpupin", "emulatorpin", "iothreadpin", "vcpusched", "memnode", "page", "cell"}) {
        for (std::size_t at = xml.find("<" + name + " "); at != std::string::npos; at = xml.find("<" + name + " ", at + 1)) {
          elements.emplace_back(at, xml.find("/>", at) + 2);
        }
      }
      const auto [from, to] = elements[pick(0, elements.size() - 1)];
      if (pick(0, 1) == 0) {
        xml.erase(from, to - from);
      } else {
        xml.insert(to, xml.substr(from, to - from));
      }
    }
    const std::size_t kind = static_cast<std::size_t>(pick(0, static_cast<int>(requests.size()) - 1));
    const SpecMap& specs = requests[kind];
    const bool libvirt_takes_input = libvirt_takes(conn.get(), xml);
    auto outcome = testing::place_with_specs(host, xml, specs);
    if (!outcome.ok()) {
      refused_as_libvirt += libvirt_takes_input ? 0 : 1;
      // A domain libvirt takes may not fit, or not fit the request, but it is no invalid one,
      // except where numaplace is stricter on purpose: a <vcpupin> of a vCPU the guest lacks, which
      // libvirt drops with a warning in its log.
      // And a <maxMemory> below the cells and devices, which QEMU's driver refuses (it sets
      // <memory> to them) and the test driver takes; and a device <nodemask> of a node this host
      // lacks, which libvirt's parser cannot know.
      const std::string& message = outcome.error().message;
      const bool vcpupin_of_none = message.find("<vcpupin vcpu='") != std::string::npos &&
                                   (message.find("but the guest has") != std::string::npos ||
                                    message.find("is not a vCPU number") != std::string::npos);
      const bool below_cells = message.find("<maxMemory> (") != std::string::npos &&
                               message.find("is less than") != std::string::npos &&
                               xml.find("<cpu><numa>") != std::string::npos;
      const bool node_beyond_host = message.find("<nodemask>") != std::string::npos &&
                                    message.find("which this host does not have") != std::string::npos;
      // And a cell id given twice, which libvirt lets through after a cell of no memory.
      const bool cell_twice = message.find("is given twice; libvirt takes each cell once") != std::string::npos;
      EXPECT_TRUE(!libvirt_takes_input || outcome.error().name.rfind("Invalid", 0) != 0 || vcpupin_of_none ||
                  below_cells || node_beyond_host || cell_twice)
          << "libvirt takes this domain, numaplace calls it invalid: " << outcome.error().name << ": " << message
          << "\n" << xml;
      if (::testing::Test::HasFailure()) break;
      continue;
    }
    // A guest without cells whose memory device names one gets its cells from the request, which
    // makes a domain libvirt refuses one it takes (numaplace's choice, DESIGN-NOTES.md).
    const bool given_cells = xml.find("<cpu>") == std::string::npos && xml.find("<node>") != std::string::npos &&
                             !specs.empty();
    EXPECT_TRUE(libvirt_takes_input || given_cells) << "numaplace placed a domain libvirt refuses:\n" << xml;
    ASSERT_TRUE(libvirt_takes(conn.get(), outcome->domain_xml))
        << "libvirt refuses what numaplace wrote"
        << (virGetLastErrorMessage() != nullptr ? std::string(": ") + virGetLastErrorMessage() : std::string()) << "\n"
        << xml << "\nbecame\n" << outcome->domain_xml;
    // Where libvirt then lets the guest's threads run is what the placement holds: each pinned
    // vCPU on its pCPU, each other vCPU within its cell's shared pCPUs, an isolated emulator on its
    // reserved pCPUs and no vCPU there.
    if (outcome->placement) {
      const testing::DefinedDomain defined = testing::define_for_a_look(conn.get(), outcome->domain_xml);
      ASSERT_NE(defined, nullptr);
      const auto runs = testing::libvirt_thread_affinities(defined.get(), host_cpus);
      CpuIds reserved;
      for (const auto& cell : outcome->placement->cells) {
        for (std::uint32_t c : cell.cpuset_reserved) reserved.insert(static_cast<int>(c));
      }
      for (const auto& cell : outcome->placement->cells) {
        for (std::uint32_t vcpu : cell.guest_cpus) {
          const auto pin = std::find_if(cell.pinning.begin(), cell.pinning.end(),
                                        [&](const auto& pair) { return pair.first == vcpu; });
          const CpuIds& where = runs.at("vcpu " + std::to_string(vcpu));
          if (pin != cell.pinning.end()) {
            EXPECT_EQ(where, CpuIds{static_cast<int>(pin->second)}) << "vCPU " << vcpu << "\n" << outcome->domain_xml;
          } else {
            for (int cpu : where) {
              EXPECT_TRUE(cell.host_cpus.contains(static_cast<std::uint32_t>(cpu)))
                  << "vCPU " << vcpu << " may run on pCPU " << cpu << "\n" << outcome->domain_xml;
            }
          }
          for (int cpu : where) EXPECT_EQ(reserved.count(cpu), 0u) << "vCPU " << vcpu << "\n" << outcome->domain_xml;
        }
      }
      if (!reserved.empty()) {
        EXPECT_EQ(runs.at("emulator"), reserved) << outcome->domain_xml;
      }
      placed_pinned += outcome->placement->cells.front().pinning.empty() ? 0 : 1;
      placed_isolated += reserved.empty() ? 0 : 1;
    } else if (outcome->confinement && outcome->confinement->cells) {
      // A confined guest's vCPUs and emulator run within the pCPUs of its cells (where the
      // operator's pins let them: those are kept).
      const testing::DefinedDomain defined = testing::define_for_a_look(conn.get(), outcome->domain_xml);
      ASSERT_NE(defined, nullptr);
      CpuSet cells_cpus;
      for (const auto& cell : host.cells) {
        if (outcome->confinement->cells->contains(cell.id)) cells_cpus = cells_cpus.united(cell.cpus);
      }
      for (const auto& [thread, where] : testing::libvirt_thread_affinities(defined.get(), host_cpus)) {
        if (thread.rfind("iothread", 0) == 0) continue;  // kept as the operator pinned them
        for (int cpu : where) {
          EXPECT_TRUE(cells_cpus.contains(static_cast<std::uint32_t>(cpu)))
              << thread << " may run on pCPU " << cpu << "\n" << outcome->domain_xml;
        }
      }
      ++placed_confined;
    }
    // And with libvirt's schema (RNG) validation on, where the input passes it: one placement in
    // ten, since validating costs 20 ms.
    if (placed % 10 == 0 && testing::define_for_a_look(conn.get(), xml, VIR_DOMAIN_DEFINE_VALIDATE) != nullptr) {
      EXPECT_NE(testing::define_for_a_look(conn.get(), outcome->domain_xml, VIR_DOMAIN_DEFINE_VALIDATE),
                nullptr)
          << "libvirt's schema refuses what numaplace wrote\n" << outcome->domain_xml;
      ++validated;
    }
    ++placed;
    ++placed_by_kind[kind];
    placed_as_given += as_given ? 1 : 0;
    placed_with_device += xml.find("<memory model=") != std::string::npos ? 1 : 0;
    placed_reshaped += reshaped ? 1 : 0;
    if (::testing::Test::HasFailure()) break;
  }
  // About 610 placed (160 of them changed, 30 with an element twice or left out, 155 with a memory
  // device, 43 to 107 of each request; 385 with pinned vCPUs, 88 of them with an isolated
  // emulator; 43 confined) and 3,230 refused as libvirt refuses them. Seeds 1 to 7: 590 to 650
  // placed, 16 to 38 reshaped, 32 to 50 confined, 370 to 415 pinned.
  EXPECT_GT(placed_as_given, 250);
  EXPECT_GT(placed_with_device, 100);
  EXPECT_GT(placed_reshaped, 10);
  EXPECT_GT(placed_pinned, 300);
  EXPECT_GT(placed_isolated, 70);
  EXPECT_GT(placed_confined, 20);
  EXPECT_GT(placed - placed_as_given, 80);
  EXPECT_GT(refused_as_libvirt, 2500);
  EXPECT_GT(validated, 40);
  for (std::size_t kind = 0; kind < requests.size(); ++kind) EXPECT_GT(placed_by_kind[kind], 12) << "request " << kind;
}

}  // namespace
}  // namespace numaplace
