// SPDX-License-Identifier: LGPL-2.1-or-later
// "Never silently drops or widens what an operator wrote", as a property: random domains carrying
// an operator's <cpu><numa> cell settings (memAccess, discard) and memory (sometimes against a
// <memory> that disagrees), <memnode>s, a <page> per cell, an <iothreadpin>, and elements numaplace has no business with (<clock>, <features>, <on_poweroff>,
// <devices>), placed with random flavor specs. For every placement that succeeds, each of the
// operator's items is in the output as written, or one of the outcome's warnings names it; the
// other elements come out equal; the guest boots with the memory libvirt read from the input. A refusal is allowed (it writes nothing). The check reads the
// output with libxml2 and its own walk; it does not call numaplace's readers.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/placed_domains.h"
#include "support/xml_walk.h"

namespace numaplace {
namespace {

using testing::attr;
using testing::child;
using testing::children;
using testing::name_of;
using testing::parse_xml;
using testing::path;

// The element as a canonical text: name, attributes in order, text, children; blanks dropped.
std::string canonical(const xmlNode* node) {
  std::string out = "<" + name_of(node);
  for (const xmlAttr* a = node->properties; a != nullptr; a = a->next) {
    out += " " + std::string(reinterpret_cast<const char*>(a->name)) + "=" + attr(node, reinterpret_cast<const char*>(a->name)).value_or("");
  }
  out += ">";
  for (const xmlNode* c = node->children; c != nullptr; c = c->next) {
    if (c->type == XML_ELEMENT_NODE) out += canonical(c);
    if (c->type == XML_TEXT_NODE && c->content != nullptr) {
      std::string text = reinterpret_cast<const char*>(c->content);
      if (text.find_first_not_of(" \t\r\n") != std::string::npos) out += text;
    }
  }
  return out + "</" + name_of(node) + ">";
}

// The guest's memory in KiB as libvirt boots it: its <cpu><numa> cells' sum when it has cells,
// else <memory> (units KiB, MiB or GiB, as these domains and numaplace's output write them).
// An element's text, its libxml2 copy freed.
std::string content_of(xmlNode* node) {
  xmlChar* text = xmlNodeGetContent(node);
  std::string out = text == nullptr ? "" : reinterpret_cast<const char*>(text);
  xmlFree(text);
  return out;
}

long long boot_memory_kib(xmlNode* root) {
  const auto kib = [](const std::optional<std::string>& value, const std::optional<std::string>& unit) {
    const long long factor = unit == "GiB" ? 1 << 20 : unit == "MiB" ? 1 << 10 : 1;
    return std::stoll(value.value_or("0")) * factor;
  };
  const std::vector<xmlNode*> cells = children(path(root, {"cpu", "numa"}), "cell");
  if (cells.empty()) {
    xmlNode* memory = child(root, "memory");
    return kib(content_of(memory), attr(memory, "unit"));
  }
  long long sum = 0;
  for (xmlNode* cell : cells) sum += kib(attr(cell, "memory"), attr(cell, "unit"));
  return sum;
}

bool warned(const std::vector<std::string>& warnings, const std::vector<std::string>& words) {
  for (const auto& warning : warnings) {
    bool all = true;
    for (const auto& word : words) all = all && warning.find(word) != std::string::npos;
    if (all) return true;
  }
  return false;
}

struct Drawn {
  std::string xml;
  SpecMap specs;
  int cells = 0;                                        // of the operator's <cpu><numa>; 0: none
  std::map<int, std::map<std::string, std::string>> cell_settings;  // id: memAccess, discard
  std::map<int, std::string> memnode_modes;              // cellid: mode
  std::map<int, int> pages;                              // cellid: page size KiB of its <page>
  std::optional<std::string> iothreadpin;                // its cpuset
};

Drawn draw(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Drawn d;
  const int vcpus = 2 * pick(1, 4);
  const int memory_mib = 1024 * pick(2, 4);
  d.cells = pick(0, 2);
  std::string cpu, numatune, backing, cputune;
  if (d.cells > 0) {
    cpu = "<cpu><numa>";
    for (int id = 0; id < d.cells; ++id) {
      const int per = vcpus / d.cells;
      std::string cell = "<cell id='" + std::to_string(id) + "' cpus='" + std::to_string(id * per) + "-" +
                         std::to_string(id * per + per - 1) + "' memory='" + std::to_string(memory_mib / d.cells) +
                         "' unit='MiB'";
      if (pick(0, 1)) d.cell_settings[id]["memAccess"] = pick(0, 1) ? "shared" : "private";
      if (pick(0, 2) == 0) d.cell_settings[id]["discard"] = pick(0, 1) ? "yes" : "no";
      for (const auto& [key, value] : d.cell_settings[id]) cell += " " + key + "='" + value + "'";
      cpu += cell + "/>";
      if (pick(0, 2) == 0) d.memnode_modes[id] = std::vector<std::string>{"strict", "preferred", "interleave"}[pick(0, 2)];
      if (pick(0, 3) == 0) d.pages[id] = 2048;
    }
    cpu += "</numa></cpu>";
    if (!d.memnode_modes.empty()) {
      numatune = "<numatune>";
      for (const auto& [id, mode] : d.memnode_modes) {
        numatune += "<memnode cellid='" + std::to_string(id) + "' mode='" + mode + "' nodeset='" + std::to_string(pick(0, 1)) + "'/>";
      }
      numatune += "</numatune>";
    }
    if (!d.pages.empty()) {
      backing = "<memoryBacking><hugepages>";
      for (const auto& [id, size] : d.pages) {
        backing += "<page size='" + std::to_string(size) + "' unit='KiB' nodeset='" + std::to_string(id) + "'/>";
      }
      backing += "</hugepages></memoryBacking>";
    }
  }
  if (pick(0, 2) == 0) {
    d.iothreadpin = std::to_string(pick(0, 31));
    cputune = "<cputune><iothreadpin iothread='1' cpuset='" + *d.iothreadpin + "'/></cputune>";
  }
  // Now and then a <memory> that disagrees with the cells (libvirt boots on the cells' sum).
  const int written_memory_mib = d.cells > 0 && pick(0, 3) == 0 ? memory_mib * pick(1, 3) / 2 : memory_mib;
  d.xml = "<domain type='kvm'><name>drawn</name><memory unit='MiB'>" + std::to_string(written_memory_mib) +
          "</memory><vcpu>" + std::to_string(vcpus) + "</vcpu>" + (d.iothreadpin ? "<iothreads>1</iothreads>" : "") +
          backing + cputune + numatune +
          "<os><type arch='x86_64'>hvm</type><boot dev='hd'/></os><features><acpi/><apic/></features>" + cpu +
          "<clock offset='utc'><timer name='rtc' tickpolicy='catchup'/></clock><on_poweroff>destroy</on_poweroff>"
          "<devices><console type='pty'><target type='serial' port='0'/></console></devices></domain>";
  const int nodes = pick(0, 2);
  if (nodes > 0) d.specs["hw:numa_nodes"] = std::to_string(nodes);
  if (pick(0, 1)) d.specs["hw:cpu_policy"] = "dedicated";
  if (const int page = pick(0, 3); page == 1) d.specs["hw:mem_page_size"] = "2048";
  else if (page == 2) d.specs["hw:mem_page_size"] = "small";
  return d;
}

TEST(OperatorElementsProperty, EveryOperatorItemIsKeptOrAWarningNamesIt) {
  const HostTopology host = testing::sample_capabilities_host("caps-2cell.xml");
  ASSERT_FALSE(host.cells.empty());
  std::mt19937 rng(20261206);
  int placed = 0, refused = 0, kept = 0, said = 0;
  for (int round = 0; round < 1500; ++round) {
    const Drawn d = draw(rng);
    auto outcome = testing::place_with_specs(host, d.xml, d.specs);
    if (!outcome) {
      ++refused;
      continue;
    }
    ++placed;
    const auto& warnings = outcome->warnings;
    const std::string context = testing::placement_context(d.xml, d.specs, *outcome);
    testing::XmlDoc in = parse_xml(d.xml), out = parse_xml(outcome->domain_xml);
    ASSERT_TRUE(in && out) << context;
    xmlNode* in_root = xmlDocGetRootElement(in.get());
    xmlNode* out_root = xmlDocGetRootElement(out.get());

    // Elements numaplace does not write come out as they went in.
    for (const char* name : {"os", "features", "clock", "on_poweroff", "devices", "iothreads"}) {
      xmlNode* before = child(in_root, name);
      if (before == nullptr) continue;
      xmlNode* after = child(out_root, name);
      ASSERT_NE(after, nullptr) << name << "\n" << context;
      EXPECT_EQ(canonical(after), canonical(before)) << context;
    }
    // <cpu><numa><cell> settings: on the output's cell of that id, or a warning naming the cell.
    std::map<int, xmlNode*> out_cells;
    for (xmlNode* cell : children(path(out_root, {"cpu", "numa"}), "cell")) out_cells[std::stoi(attr(cell, "id").value_or("-1"))] = cell;
    for (const auto& [id, settings] : d.cell_settings) {
      if (settings.empty()) continue;
      if (auto it = out_cells.find(id); it != out_cells.end()) {
        for (const auto& [key, value] : settings) EXPECT_EQ(attr(it->second, key.c_str()), value) << key << "\n" << context;
        ++kept;
      } else {
        std::vector<std::string> words{"<cell id='" + std::to_string(id) + "'"};
        for (const auto& [key, value] : settings) words.push_back(key + "='" + value + "'");
        EXPECT_TRUE(warned(warnings, words)) << "cell " << id << " dropped without a word\n" << context;
        ++said;
      }
    }
    // <memnode>s: kept with the operator's mode, or named.
    std::map<int, xmlNode*> out_memnodes;
    for (xmlNode* m : children(path(out_root, {"numatune"}), "memnode")) out_memnodes[std::stoi(attr(m, "cellid").value_or("-1"))] = m;
    for (const auto& [id, mode] : d.memnode_modes) {
      if (auto it = out_memnodes.find(id); it != out_memnodes.end()) {
        EXPECT_EQ(attr(it->second, "mode"), mode) << "memnode " << id << "\n" << context;
        ++kept;
      } else {
        EXPECT_TRUE(warned(warnings, {"<memnode cellid='" + std::to_string(id) + "'>"})) << context;
        ++said;
      }
    }
    // <page>s: the operator's size for that cell still there, or the <page> elements named.
    std::map<int, std::string> out_pages;  // guest cell: size
    for (xmlNode* page : children(path(out_root, {"memoryBacking", "hugepages"}), "page")) {
      const std::string nodeset = attr(page, "nodeset").value_or("");
      for (char c : nodeset) {
        if (c >= '0' && c <= '9') out_pages[c - '0'] = attr(page, "size").value_or("");
      }
    }
    for (const auto& [id, size] : d.pages) {
      const auto it = out_pages.find(id);
      if (it != out_pages.end() && it->second == std::to_string(size)) {
        ++kept;
      } else {
        // Why this cell's <page> may be gone, each with the warning that must say it: the request
        // names a page size (which replaces every <page>); every cell of the new topology is
        // named with one size, which becomes the request's (the only reason within the guest's
        // cells); or, for a guest cell the new topology lacks, its <page> is dropped.
        const auto asked = d.specs.find("hw:mem_page_size");
        const bool request_names_size = asked != d.specs.end() && !asked->second.empty();
        const bool size_for_all = warned(warnings, {"<hugepages> asks for " + std::to_string(size) +
                                                    " KiB pages: placed as hw:mem_page_size=" + std::to_string(size)});
        if (request_names_size) {
          EXPECT_TRUE(warned(warnings, {"<page> elements are replaced by the page sizes the request names"}))
              << "page of cell " << id << "\n" << context;
        } else if (id >= static_cast<int>(out_cells.size())) {
          EXPECT_TRUE(size_for_all || warned(warnings, {"<page>", "pages of guest cells the new topology lacks are dropped"}))
              << "page of cell " << id << " (the guest has " << out_cells.size() << " cells)\n" << context;
        } else {
          EXPECT_TRUE(size_for_all) << "page of cell " << id << " dropped within the guest's cells\n" << context;
        }
        ++said;
      }
    }
    // The guest boots with the memory it had: libvirt's reading of the input and of the output agree,
    // and a <memory> the cells contradict is said.
    EXPECT_EQ(boot_memory_kib(out_root), boot_memory_kib(in_root)) << context;
    if (boot_memory_kib(in_root) != 1024LL * std::stoll(content_of(child(in_root, "memory")))) {
      EXPECT_TRUE(warned(warnings, {"<memory>", "disagrees with its <cpu><numa> cells"})) << context;
      ++said;
    }
    // <iothreadpin>: its cpuset as written, or a warning naming it.
    if (d.iothreadpin) {
      xmlNode* pin = child(child(out_root, "cputune"), "iothreadpin");
      if (pin != nullptr && attr(pin, "cpuset") == *d.iothreadpin) {
        ++kept;
      } else {
        EXPECT_TRUE(warned(warnings, {"<iothreadpin iothread='1' cpuset='" + *d.iothreadpin + "'>"})) << context;
        ++said;
      }
    }
    if (::testing::Test::HasFailure()) break;
  }
  // 1,226 placed, 274 refused (2 GiB of 2048 KiB pages a cell; a <memnode> outside the guest's cells), 1,391 kept, 529 said
  EXPECT_GT(placed, 500);
  EXPECT_GT(refused, 20);
  EXPECT_GT(kept, 300);
  EXPECT_GT(said, 100);
}

}  // namespace
}  // namespace numaplace
