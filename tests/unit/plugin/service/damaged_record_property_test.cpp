// SPDX-License-Identifier: LGPL-2.1-or-later
// "Never writes a binding the host cannot honour", when the placement record a domain carries has
// been edited: random guests (shared, dedicated, dedicated with an isolated emulator; one or two
// cells) are placed on a 4-cell host, one attribute of one recorded cell is damaged at random
// (a pin sent to another pCPU or to another vCPU's, the host cell, its CPUs, the vCPUs, memory,
// page size, reserved or isolated CPUs, the guest cell id), and the domain is placed again. It is
// either refused by name or placed consistently, which this file checks from the output alone, with
// libxml2 and the host's capabilities read here: every vCPU in one guest cell, each guest cell's
// memory bound to one host cell that exists, each vCPU pinned within that host cell, dedicated vCPUs
// on one pCPU each and no pCPU twice, an isolated emulator on a pCPU of the host and off the vCPUs.
#include <gtest/gtest.h>
#include <libxml/tree.h>

#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support/cpu_list_text.h"
#include "support/placed_domains.h"
#include "support/test_paths.h"
#include "support/xml_walk.h"

namespace numaplace {
namespace {

using testing::attr;
using testing::child;
using testing::children;
using Ids = testing::CpuIds;
using testing::ids_in_list;
using testing::list_of_ids;

// Host cell id -> its CPUs, read from the capabilities file with this file's own walk.
std::map<int, Ids> host_cells_of(const std::string& caps_file) {
  std::map<int, Ids> cells;
  auto text = xml::read_text_file(testing::shared_path("samples/libvirt/" + caps_file), "caps");
  if (!text) return cells;
  testing::XmlDoc doc = testing::parse_xml(*text);
  xmlNode* list = testing::path(xmlDocGetRootElement(doc.get()), {"host", "topology", "cells"});
  for (xmlNode* cell : children(list, "cell")) {
    Ids& cpus = cells[std::stoi(attr(cell, "id").value_or("-1"))];
    for (xmlNode* cpu : children(child(cell, "cpus"), "cpu")) cpus.insert(std::stoi(attr(cpu, "id").value_or("-1")));
  }
  return cells;
}

bool disjoint(const Ids& a, const Ids& b) {
  for (int id : a) {
    if (b.count(id) != 0) return false;
  }
  return true;
}

bool within(const Ids& inner, const Ids& outer) {
  for (int id : inner) {
    if (outer.count(id) == 0) return false;
  }
  return true;
}

// What is wrong with the placed domain `out` for a guest of `vcpus` vCPUs and `memory_kib`, or "".
std::string inconsistency(const std::string& out, int vcpus, long long memory_kib, bool dedicated, bool isolated_emulator,
                          const std::map<int, Ids>& host) {
  testing::XmlDoc doc = testing::parse_xml(out);
  if (!doc) return "the output is not XML";
  xmlNode* root = xmlDocGetRootElement(doc.get());
  std::map<int, int> cell_of_vcpu;  // vCPU -> guest cell
  long long cell_memory = 0;
  for (xmlNode* cell : children(testing::path(root, {"cpu", "numa"}), "cell")) {
    const int id = std::stoi(attr(cell, "id").value_or("-1"));
    for (int vcpu : ids_in_list(attr(cell, "cpus").value_or(""))) {
      if (!cell_of_vcpu.emplace(vcpu, id).second) return "vCPU " + std::to_string(vcpu) + " is in two guest cells";
    }
    cell_memory += std::stoll(attr(cell, "memory").value_or("0"));  // KiB: numaplace writes unit='KiB'
  }
  if (static_cast<int>(cell_of_vcpu.size()) != vcpus) return "the guest cells hold " + std::to_string(cell_of_vcpu.size()) + " vCPUs";
  if (cell_memory != memory_kib) return "the guest cells hold " + std::to_string(cell_memory) + " KiB";
  std::map<int, int> host_cell_of;  // guest cell -> host cell its memory is bound to
  for (xmlNode* memnode : children(child(root, "numatune"), "memnode")) {
    const Ids nodes = ids_in_list(attr(memnode, "nodeset").value_or(""));
    const int cell = std::stoi(attr(memnode, "cellid").value_or("-1"));
    if (nodes.size() != 1 || host.count(*nodes.begin()) == 0) return "guest cell " + std::to_string(cell) + " memory not on one host cell";
    host_cell_of[cell] = *nodes.begin();
  }
  std::map<int, Ids> pins;
  for (xmlNode* pin : children(child(root, "cputune"), "vcpupin")) {
    pins[std::stoi(attr(pin, "vcpu").value_or("-1"))] = ids_in_list(attr(pin, "cpuset").value_or(""));
  }
  Ids dedicated_pcpus;
  for (const auto& [vcpu, cell] : cell_of_vcpu) {
    if (host_cell_of.count(cell) == 0) return "guest cell " + std::to_string(cell) + " has no <memnode>";
    const Ids& room = host.at(host_cell_of.at(cell));
    if (pins.count(vcpu) == 0) return "vCPU " + std::to_string(vcpu) + " has no <vcpupin>";
    const Ids& on = pins.at(vcpu);
    if (on.empty() || !within(on, room)) {
      return "vCPU " + std::to_string(vcpu) + " pinned to " + list_of_ids(on) + ", outside host cell " +
             std::to_string(host_cell_of.at(cell)) + " where its memory is";
    }
    if (dedicated) {
      if (on.size() != 1) return "dedicated vCPU " + std::to_string(vcpu) + " pinned to " + list_of_ids(on);
      if (!dedicated_pcpus.insert(*on.begin()).second) return "pCPU " + list_of_ids(on) + " pinned to two vCPUs";
    }
  }
  if (isolated_emulator) {
    xmlNode* emulator = child(child(root, "cputune"), "emulatorpin");
    const Ids on = emulator != nullptr ? ids_in_list(attr(emulator, "cpuset").value_or("")) : Ids{};
    Ids everywhere;
    for (const auto& [id, cpus] : host) everywhere.insert(cpus.begin(), cpus.end());
    if (on.empty() || !within(on, everywhere) || !disjoint(on, dedicated_pcpus)) {
      return "isolated emulator on '" + list_of_ids(on) + "'";
    }
  }
  return "";
}

// The domain `placed` with one attribute of one cell of its numaplace placement record set at random.
std::string damaged(const std::string& placed, std::mt19937& rng, std::string& what) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  testing::XmlDoc doc = testing::parse_xml(placed);
  xmlNode* record = testing::path(xmlDocGetRootElement(doc.get()), {"metadata", "numaplace", "placement"});
  std::vector<xmlNode*> cells = children(record, "cell");
  if (cells.empty()) return "";
  xmlNode* cell = cells[static_cast<std::size_t>(pick(0, static_cast<int>(cells.size()) - 1))];
  std::string name, value;
  switch (pick(0, 9)) {
    case 0:
    case 1: {  // one pin sent elsewhere: to any pCPU id near the host's, or to another pin's pCPU
      std::vector<std::string> items;
      std::string text = attr(cell, "pins").value_or("");
      for (std::size_t at = 0; at < text.size();) {
        const std::size_t comma = text.find(',', at);
        items.push_back(text.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
        at = comma == std::string::npos ? text.size() : comma + 1;
      }
      if (items.empty()) return "";
      std::string& item = items[static_cast<std::size_t>(pick(0, static_cast<int>(items.size()) - 1))];
      const std::string other = items[static_cast<std::size_t>(pick(0, static_cast<int>(items.size()) - 1))];
      item = item.substr(0, item.find(':') + 1) + (pick(0, 1) == 0 ? std::to_string(pick(0, 35)) : other.substr(other.find(':') + 1));
      name = "pins";
      for (const auto& each : items) value += (value.empty() ? "" : ",") + each;
      break;
    }
    case 2: name = "host"; value = std::to_string(pick(0, 5)); break;
    case 3: name = "guest"; value = std::to_string(pick(0, 3)); break;
    case 4: name = "host-cpus"; value = std::to_string(pick(0, 31)) + "-" + std::to_string(pick(0, 33)); break;
    case 5: name = "vcpus"; value = std::to_string(pick(0, 3)) + "-" + std::to_string(pick(2, 9)); break;
    case 6: name = "memory-kib"; value = std::to_string(262144LL * pick(0, 40)); break;
    case 7: name = "pagesize-kib"; value = std::vector<std::string>{"0", "4", "2048", "1048576", "64"}[static_cast<std::size_t>(pick(0, 4))]; break;
    case 8: name = "reserved-cpus"; value = std::to_string(pick(0, 33)); break;
    default: name = "isolated-cpus"; value = std::to_string(pick(0, 31)) + "," + std::to_string(pick(0, 31)); break;
  }
  what = "cell " + attr(cell, "guest").value_or("?") + " " + name + "='" + value + "' (was '" + attr(cell, name.c_str()).value_or("") + "')";
  xmlSetProp(cell, BAD_CAST name.c_str(), BAD_CAST value.c_str());
  xmlChar* text = nullptr;
  int size = 0;
  xmlDocDumpMemory(doc.get(), &text, &size);
  std::string out(reinterpret_cast<const char*>(text), static_cast<std::size_t>(size));
  xmlFree(text);
  return out;
}

TEST(DamagedRecordProperty, AnEditedRecordIsRefusedOrPlacedConsistently) {
  const HostTopology host = testing::sample_capabilities_host("caps-4cell.xml");
  const std::map<int, Ids> host_cells = host_cells_of("caps-4cell.xml");
  ASSERT_EQ(host_cells.size(), 4U);
  std::mt19937 rng(20261207);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int placed_again = 0;
  std::map<std::string, int> refusals;
  for (int round = 0; round < 1500; ++round) {
    const int vcpus = 2 * pick(1, 3);
    const long long memory_kib = 524288LL * pick(1, 8);
    const std::string xml = "<domain type='kvm'><name>rec-" + std::to_string(round) + "</name><memory unit='KiB'>" +
                            std::to_string(memory_kib) + "</memory><vcpu placement='static'>" + std::to_string(vcpus) +
                            "</vcpu><os><type arch='x86_64'>hvm</type></os></domain>";
    const int kind = pick(0, 2);
    SpecMap specs{{"hw:numa_nodes", std::to_string(pick(1, 2))}};
    if (kind >= 1) specs["hw:cpu_policy"] = "dedicated";
    if (kind == 2) specs["hw:emulator_threads_policy"] = "isolate";
    auto first = testing::place_with_specs(host, xml, specs);
    ASSERT_TRUE(first) << first.error().message << "\n" << xml;
    const std::string first_problem = inconsistency(first->domain_xml, vcpus, memory_kib, kind >= 1, kind == 2, host_cells);
    ASSERT_EQ(first_problem, "") << testing::placement_context(xml, specs, *first);
    std::string what;
    const std::string edited = damaged(first->domain_xml, rng, what);
    if (edited.empty()) continue;
    auto again = testing::place_with_specs(host, edited, {});
    if (!again) {
      ++refusals[again.error().name];
      continue;
    }
    ++placed_again;
    const std::string problem = inconsistency(again->domain_xml, vcpus, memory_kib, kind >= 1, kind == 2, host_cells);
    EXPECT_EQ(problem, "") << "record damaged: " << what << "\n" << testing::placement_context(edited, {}, *again);
    if (::testing::Test::HasFailure()) break;
  }
  std::string why;
  for (const auto& [name, count] : refusals) why += " " + name + " " + std::to_string(count);
  EXPECT_GT(placed_again, 300) << why;
  EXPECT_GT(refusals["InvalidPlacementRecord"], 100) << why;
}

}  // namespace
}  // namespace numaplace
