// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/capabilities_reader.h"

#include "placement/model/host_consistency.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "placement/model/memory_size.h"
#include "xml/xml_document.h"

namespace numaplace::xml {
namespace {

Result<std::uint64_t> parse_count(const std::optional<std::string>& text, const std::string& what) {
  if (!text) return make_error("InvalidCapabilities", what + " is missing");
  std::uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (text->empty() || ec != std::errc() || ptr != text->data() + text->size()) {
    return make_error("InvalidCapabilities", what + " is '" + *text + "', not a non-negative whole number");
  }
  return value;
}

Result<std::uint32_t> parse_id(const std::optional<std::string>& text, const std::string& what) {
  auto value = parse_count(text, what);
  if (!value) return value.error();
  if (*value > kMaxCpuId) return make_error("InvalidCapabilities", what + " " + std::to_string(*value) + " is out of range");
  return static_cast<std::uint32_t>(*value);
}

Result<HostCell> read_cell(const xmlNode* node, std::map<std::uint32_t, std::uint32_t>& distance_by_id,
                           const std::string& what) {
  HostCell cell;
  auto id = parse_id(attribute(node, "id"), what + ": cell id");
  if (!id) return id.error();
  cell.id = *id;
  const std::string where = what + ": cell " + std::to_string(cell.id);

  if (const xmlNode* memory = first_child(node, "memory")) {
    auto kib = memory_to_kib(text_of(memory), attribute(memory, "unit").value_or("KiB"), where + " memory");
    if (!kib) return kib.error();
    cell.memory_kib = *kib;
  }
  for (const xmlNode* pages : child_elements(node, "pages")) {
    auto size = memory_to_kib(attribute(pages, "size").value_or(""), attribute(pages, "unit").value_or("KiB"),
                              where + " page size");
    if (!size) return size.error();
    if (*size == 0) return make_error("InvalidCapabilities", where + ": a page size of 0 is impossible");
    auto count = parse_count(text_of(pages), where + " page count");
    if (!count) return count.error();
    PagePool pool;
    pool.size_kib = *size;
    pool.total = *count;
    cell.pages.push_back(pool);
  }
  if (const auto twice = sort_page_pools(cell.pages)) {
    return make_error("InvalidCapabilities", where + " lists <pages size='" + std::to_string(*twice) +
                                                 "' unit='KiB'> more than once; a cell has one pool of each page size");
  }

  if (const xmlNode* distances = first_child(node, "distances")) {
    for (const xmlNode* sibling : child_elements(distances, "sibling")) {
      auto to = parse_id(attribute(sibling, "id"), where + " distance sibling id");
      if (!to) return to.error();
      auto value = parse_count(attribute(sibling, "value"), where + " distance value");
      if (!value) return value.error();
      if (*value > 255) return make_error("InvalidCapabilities", where + ": distance " + std::to_string(*value) + " is above 255");
      distance_by_id[*to] = static_cast<std::uint32_t>(*value);
    }
  }

  // The cell's socket: the socket_id its CPUs agree on (none when one lacks it or they differ).
  std::optional<std::uint32_t> socket;
  bool socket_agreed = true;
  if (const xmlNode* cpus = first_child(node, "cpus")) {
    for (const xmlNode* cpu : child_elements(cpus, "cpu")) {
      auto cpu_id = parse_id(attribute(cpu, "id"), where + " cpu id");
      if (!cpu_id) return cpu_id.error();
      if (auto socket_text = attribute(cpu, "socket_id")) {
        auto id = parse_id(socket_text, where + " cpu " + std::to_string(*cpu_id) + " socket_id");
        if (!id) return id.error();
        if (socket && *socket != *id) socket_agreed = false;
        socket = *id;
      } else {
        socket_agreed = false;
      }
      if (cell.cpus.contains(*cpu_id)) {
        return make_error("InvalidCapabilities", where + ": cpu " + std::to_string(*cpu_id) + " is listed twice");
      }
      cell.cpus.insert(*cpu_id);
      CpuSet group{*cpu_id};
      if (auto siblings = attribute(cpu, "siblings")) {
        auto parsed = parse_cpu_list(*siblings, where + " cpu " + std::to_string(*cpu_id) + " siblings");
        if (!parsed) return parsed.error();
        group = parsed->united(group);
      }
      if (std::find(cell.siblings.begin(), cell.siblings.end(), group) == cell.siblings.end()) {
        cell.siblings.push_back(std::move(group));
      }
    }
  }
  // Siblings may name CPUs that are offline or in other cells; keep only this cell's. Groups that
  // share a CPU (a <cpu> whose siblings disagree with another's) are one core: merged, so that no
  // CPU counts in two cores and the host reads back from its own JSON (which refuses that).
  std::vector<CpuSet> cores;
  for (auto& group : cell.siblings) {
    CpuSet merged = group.intersected(cell.cpus);
    for (auto it = cores.begin(); it != cores.end();) {
      if (it->intersects(merged)) {
        merged.unite_with(*it);
        it = cores.erase(it);
      } else {
        ++it;
      }
    }
    cores.push_back(std::move(merged));
  }
  std::sort(cores.begin(), cores.end(), [](const CpuSet& a, const CpuSet& b) { return a.first() < b.first(); });
  cell.siblings = std::move(cores);
  if (socket_agreed && socket) cell.socket = socket;
  cell.shared_cpus = cell.cpus;
  cell.dedicated_cpus = cell.cpus;
  return cell;
}

}  // namespace

Result<HostTopology> read_capabilities(std::string_view text, std::string_view what) {
  const std::string name(what);
  auto doc = parse_document(text, what);
  if (!doc) return doc.error();
  const xmlNode* root = xmlDocGetRootElement(doc->get());
  if (!is_named(root, "capabilities")) {
    return make_error("NotCapabilities", name + " has root <" + std::string(reinterpret_cast<const char*>(root->name)) +
                                             ">, not <capabilities>; give the output of 'virsh capabilities'");
  }
  const xmlNode* cells = first_child(first_child(first_child(root, "host"), "topology"), "cells");
  if (cells == nullptr || child_elements(cells, "cell").empty()) {
    return make_error("NoNumaTopology", name + " has no <host><topology><cells>: this host reports no NUMA "
                                               "topology, so there is nothing to place guests onto");
  }
  HostTopology host;
  std::vector<std::map<std::uint32_t, std::uint32_t>> distances;
  CpuSet all_cpus;
  for (const xmlNode* node : child_elements(cells, "cell")) {
    std::map<std::uint32_t, std::uint32_t> by_id;
    auto cell = read_cell(node, by_id, name);
    if (!cell) return cell.error();
    if (host.find_cell(cell->id) != nullptr) {
      return make_error("DuplicateNumaNode", name + ": NUMA cell " + std::to_string(cell->id) +
                                                 " is listed twice; a host lists each node once");
    }
    if (all_cpus.intersects(cell->cpus)) {
      return make_error("InconsistentHost", name + ": cpus " + to_cpu_list(all_cpus.intersected(cell->cpus)) +
                                                " belong to more than one cell; a CPU is in one NUMA cell");
    }
    all_cpus = all_cpus.united(cell->cpus);
    host.cells.push_back(std::move(*cell));
    distances.push_back(std::move(by_id));
  }
  // <host><cache><bank level='3' cpus='...'/>: the last-level cache domains.
  std::vector<CpuSet> l3;
  for (const xmlNode* bank : child_elements(first_child(first_child(root, "host"), "cache"), "bank")) {
    if (attribute(bank, "level") != std::optional<std::string>("3")) continue;
    const auto cpus = attribute(bank, "cpus");
    auto set = parse_cpu_list(cpus.value_or(""), name + ": <cache><bank level='3'> cpus");
    if (!set) return make_error("InvalidCapabilities", set.error().message);
    l3.push_back(std::move(*set));
  }
  assign_cache_domains(host, l3);
  for (std::size_t i = 0; i < host.cells.size(); ++i) {
    if (distances[i].empty()) continue;
    for (const auto& other : host.cells) {
      auto it = distances[i].find(other.id);
      // A row that names some cells but not this one: a guessed distance would be read as libvirt's.
      if (it == distances[i].end() && other.id != host.cells[i].id) {
        return make_error("InvalidNumaDistances", name + ": cell " + std::to_string(host.cells[i].id) +
                                                      " gives distances but none to cell " + std::to_string(other.id) +
                                                      "; give one <sibling> per cell, or none");
      }
      host.cells[i].distances.push_back(it != distances[i].end() ? it->second : 10);
    }
  }
  if (auto consistent = check_host_consistency(host, name); !consistent) return consistent.error();
  // A machine without a CPU cannot report itself; such capabilities are damaged (a host JSON may
  // model CPU-less cells only, as Nova's tests do).
  if (std::all_of(host.cells.begin(), host.cells.end(), [](const HostCell& cell) { return cell.cpus.empty(); })) {
    return make_error("InconsistentHost", name + ": no NUMA cell lists a CPU; give the output of 'virsh capabilities' "
                                                 "unchanged");
  }
  return host;
}

}  // namespace numaplace::xml
