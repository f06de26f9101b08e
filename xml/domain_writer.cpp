// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/domain_writer.h"

#include <charconv>
#include <map>
#include <string>

#include "xml/xml_document.h"

namespace numaplace::xml {
namespace {

const xmlChar* X(const char* text) { return reinterpret_cast<const xmlChar*>(text); }

void set_attr(xmlNode* node, const char* name, const std::string& value) {
  xmlSetProp(node, X(name), X(value.c_str()));
}

xmlNode* new_child(xmlNode* parent, const char* name) { return xmlNewChild(parent, nullptr, X(name), nullptr); }

void remove_children(xmlNode* parent, const char* name) {
  for (xmlNode* child : child_elements(parent, name)) {
    xmlUnlinkNode(child);
    xmlFreeNode(child);
  }
}

std::string join_host_cells(const Placement& placement) {
  CpuSet cells;
  for (const auto& cell : placement.cells) cells.insert(cell.host_cell);
  return to_cpu_list(cells);
}

void write_vcpu_and_cputune(xmlNode* root, const HostTopology& host, const Placement& placement,
                            const OperatorConstraints& constraints, const CpuSet& realtime_vcpus) {
  CpuSet all_host_cpus;
  for (const auto& cell : placement.cells) {
    all_host_cpus = all_host_cpus.united(cell.host_cpus);
    for (const auto& [vcpu, pcpu] : cell.pinning) all_host_cpus.insert(pcpu);
  }
  xmlNode* vcpu = first_child(root, "vcpu");
  set_attr(vcpu, "placement", "static");
  set_attr(vcpu, "cpuset", to_cpu_list(all_host_cpus));

  xmlNode* cputune = ensure_child(root, "cputune", {"vcpu", "vcpus", "iothreads", "iothreadids"});
  remove_children(cputune, "vcpupin");
  remove_children(cputune, "emulatorpin");
  std::map<std::uint32_t, std::string> pins;  // vCPU -> cpuset, ascending vCPU
  for (const auto& cell : placement.cells) {
    std::map<std::uint32_t, std::uint32_t> dedicated(cell.pinning.begin(), cell.pinning.end());
    for (std::uint32_t v : cell.guest_cpus) {
      auto it = dedicated.find(v);
      // Within where the operator let it run, as libvirt reads it: its <vcpupin>, else <vcpu cpuset>.
      auto own = constraints.vcpupins.find(v);
      const CpuSet floating = own != constraints.vcpupins.end() ? cell.host_cpus.intersected(own->second)
                              : constraints.vcpu_cpuset         ? cell.host_cpus.intersected(*constraints.vcpu_cpuset)
                                                                : cell.host_cpus;
      pins[v] = it != dedicated.end() ? std::to_string(it->second) : to_cpu_list(floating);
    }
  }
  CpuSet emulator = emulator_cpus(host, placement, realtime_vcpus);
  // The emulator's bound as libvirt reads it: <emulatorpin>, else <vcpu cpuset>.
  if (const auto& bound = constraints.emulatorpin ? constraints.emulatorpin : constraints.vcpu_cpuset) {
    emulator = emulator.intersected(*bound);
  }
  // An iothread stays where the operator pinned it within the emulator's pCPUs, or goes to them:
  // a pin written for where the guest ran before must not keep it on another cell's pCPUs.
  for (xmlNode* pin : child_elements(cputune, "iothreadpin")) {
    const auto id = attribute(pin, "iothread").value_or("");
    std::optional<CpuSet> recorded;
    for (const auto& [thread, set] : constraints.iothreadpins) {
      if (std::to_string(thread) == id) recorded = set;
    }
    const auto text = attribute(pin, "cpuset");
    const auto listed = recorded ? Result<CpuSet>(*recorded)
                        : text   ? parse_cpu_list(*text, "<iothreadpin cpuset>")
                                 : Result<CpuSet>(emulator);
    const CpuSet kept = listed ? listed->intersected(emulator) : CpuSet{};
    set_attr(pin, "cpuset", to_cpu_list(kept.empty() ? emulator : kept));
  }
  // libvirt wants vcpupin first inside cputune; insert before any existing child.
  xmlNode* first = cputune->children;
  for (const auto& [v, cpuset] : pins) {
    xmlNode* pin = xmlNewDocNode(root->doc, nullptr, X("vcpupin"), nullptr);
    set_attr(pin, "vcpu", std::to_string(v));
    set_attr(pin, "cpuset", cpuset);
    if (first != nullptr) xmlAddPrevSibling(first, pin); else xmlAddChild(cputune, pin);
  }
  xmlNode* emulatorpin = xmlNewDocNode(root->doc, nullptr, X("emulatorpin"), nullptr);
  set_attr(emulatorpin, "cpuset", to_cpu_list(emulator));
  if (first != nullptr) xmlAddPrevSibling(first, emulatorpin); else xmlAddChild(cputune, emulatorpin);
}

std::string mode_or_strict(const std::string& mode) { return mode.empty() ? "strict" : mode; }

void write_numatune(xmlNode* root, const Placement& placement, const OperatorConstraints& constraints) {
  xmlNode* numatune = ensure_child(root, "numatune", {"vcpu", "vcpus", "iothreads", "iothreadids", "cputune"});
  remove_children(numatune, "memory");
  remove_children(numatune, "memnode");
  xmlNode* memory = new_child(numatune, "memory");
  set_attr(memory, "mode", mode_or_strict(constraints.memory.mode));
  set_attr(memory, "nodeset", join_host_cells(placement));
  // A cell the operator left without a <memnode> mode gets the guest's <memory> mode, as the operator
  // wrote it (strict where none was given): libvirt reads a guest cell's memory policy from its
  // <memnode> alone, so a strict one would turn the operator's preferred or interleave into strict.
  // (Under <memory mode='restrictive'> libvirt also takes restrictive cells only.)
  const std::string& cell_mode = constraints.memory.mode;
  for (const auto& cell : placement.cells) {
    xmlNode* memnode = new_child(numatune, "memnode");
    auto own = constraints.memnodes.find(cell.guest_cell);
    set_attr(memnode, "cellid", std::to_string(cell.guest_cell));
    set_attr(memnode, "mode", mode_or_strict(own != constraints.memnodes.end() ? own->second.mode : cell_mode));
    set_attr(memnode, "nodeset", std::to_string(cell.host_cell));
  }
}

// "<cell id='1' memAccess='shared'>" for an operator's cell that says more than numaplace writes
// of it (id, cpus, memory, unit, distances), else "".
std::string operator_cell_settings(xmlNode* cell) {
  std::string settings;
  for (xmlAttr* a = cell->properties; a != nullptr; a = a->next) {
    const std::string name = reinterpret_cast<const char*>(a->name);
    if (name == "id" || name == "cpus" || name == "memory" || name == "unit") continue;
    std::string value = attribute(cell, name.c_str()).value_or("");
    for (std::size_t at = value.find('\''); at != std::string::npos; at = value.find('\'', at + 6)) value.replace(at, 1, "&apos;");
    settings += " " + name + "='" + value + "'";
  }
  for (xmlNode* child = cell->children; child != nullptr; child = child->next) {
    if (child->type == XML_ELEMENT_NODE && std::string(reinterpret_cast<const char*>(child->name)) != "distances") {
      settings += " <" + std::string(reinterpret_cast<const char*>(child->name)) + ">";
    }
  }
  if (settings.empty()) return settings;
  return "<cell id='" + attribute(cell, "id").value_or("") + "'" + settings + ">";
}

std::vector<std::string> write_cpu_numa(xmlNode* root, const HostTopology& host, const Placement& placement) {
  xmlNode* cpu = ensure_child(root, "cpu", {"features", "os", "vcpu", "cputune", "numatune"});
  xmlNode* numa = first_child(cpu, "numa");
  if (numa == nullptr) numa = new_child(cpu, "numa");
  // Keep what the operator wrote on existing cells (memAccess, discard, ...), keyed by id.
  std::map<std::string, xmlNode*> previous;
  std::vector<std::string> dropped;
  for (xmlNode* cell : child_elements(numa, "cell")) {
    xmlUnlinkNode(cell);
    // A second cell with an id already seen (libvirt refuses such a domain) is dropped, not leaked,
    // and said when it carried settings of its own.
    if (!previous.try_emplace(attribute(cell, "id").value_or(""), cell).second) {
      if (std::string settings = operator_cell_settings(cell); !settings.empty()) {
        dropped.push_back("second " + settings + " (libvirt refuses two cells of one id)");
      }
      xmlFreeNode(cell);
    }
  }
  // Distances are mirrored only when the host reported every one of them.
  bool distances_known = true;
  for (const auto& a : placement.cells) {
    for (const auto& b : placement.cells) distances_known = distances_known && host.distance(a.host_cell, b.host_cell);
  }
  for (const auto& placed : placement.cells) {
    const std::string id = std::to_string(placed.guest_cell);
    xmlNode* cell = nullptr;
    if (auto it = previous.find(id); it != previous.end()) {
      cell = it->second;
      previous.erase(it);
      xmlAddChild(numa, cell);
      remove_children(cell, "distances");
    } else {
      cell = new_child(numa, "cell");
    }
    set_attr(cell, "id", id);
    // A memory-only cell has no cpus attribute: libvirt's schema refuses an empty list.
    if (placed.guest_cpus.empty()) {
      xmlUnsetProp(cell, X("cpus"));
    } else {
      set_attr(cell, "cpus", to_cpu_list(placed.guest_cpus));
    }
    set_attr(cell, "memory", std::to_string(placed.memory_kib));
    set_attr(cell, "unit", "KiB");
    if (distances_known) {
      xmlNode* distances = xmlNewDocNode(root->doc, nullptr, X("distances"), nullptr);
      if (cell->children != nullptr) xmlAddPrevSibling(cell->children, distances); else xmlAddChild(cell, distances);
      for (const auto& other : placement.cells) {
        xmlNode* sibling = new_child(distances, "sibling");
        set_attr(sibling, "id", std::to_string(other.guest_cell));
        set_attr(sibling, "value", std::to_string(*host.distance(placed.host_cell, other.host_cell)));
      }
    }
  }
  for (auto& [id, node] : previous) {
    if (std::string settings = operator_cell_settings(node); !settings.empty()) dropped.push_back(std::move(settings));
    xmlFreeNode(node);
  }
  // <interconnects> follows the cells (libvirt's schema), and each <latency> or <bandwidth> in it
  // names guest cells (initiator, target): one naming a cell the guest no longer has makes libvirt
  // refuse the domain, so it is dropped and said.
  if (xmlNode* interconnects = first_child(numa, "interconnects")) {
    xmlUnlinkNode(interconnects);
    CpuSet cells;
    for (const auto& placed : placement.cells) cells.insert(placed.guest_cell);
    for (xmlNode* link : child_elements(interconnects)) {
      std::string lost;
      for (const char* end : {"initiator", "target"}) {
        const auto id = attribute(link, end);
        std::uint32_t cell = 0;
        const bool known = id && !id->empty() &&
                           std::from_chars(id->data(), id->data() + id->size(), cell).ptr == id->data() + id->size() &&
                           cells.contains(cell);
        if (id && !known) lost += std::string(lost.empty() ? "" : " ") + end + "='" + *id + "'";
      }
      if (lost.empty()) continue;
      dropped.push_back("<interconnects><" + std::string(reinterpret_cast<const char*>(link->name)) + " " + lost + ">");
      xmlUnlinkNode(link);
      xmlFreeNode(link);
    }
    if (child_elements(interconnects).empty()) {
      xmlFreeNode(interconnects);
    } else {
      xmlAddChild(numa, interconnects);
    }
  }
  return dropped;
}

// <memoryBacking><hugepages> as the placement chose pages: one <page> per huge page size with
// the guest cells it backs. When the placement chose only small pages, the operator's <page>
// elements stay, less the guest cells the placement does not have (a <page> naming a guest
// cell that no longer exists makes libvirt refuse the domain; one left naming none goes).
// The other children of <memoryBacking> (locked, source, access, ...) always stay.
void write_memory_backing(xmlNode* root, const Placement& placement) {
  std::map<std::int64_t, CpuSet> cells_by_size;
  CpuSet guest_cells;
  for (const auto& cell : placement.cells) {
    guest_cells.insert(cell.guest_cell);
    if (cell.pagesize_kib > 4) cells_by_size[cell.pagesize_kib].insert(cell.guest_cell);
  }
  xmlNode* backing = first_child(root, "memoryBacking");
  if (cells_by_size.empty()) {
    xmlNode* hugepages = first_child(backing, "hugepages");
    const bool had_pages = !child_elements(hugepages, "page").empty();
    for (xmlNode* page : child_elements(hugepages, "page")) {
      const auto nodeset = attribute(page, "nodeset");
      if (!nodeset) continue;
      const auto cells = parse_cpu_list(*nodeset, "<hugepages><page nodeset>");
      if (!cells) continue;  // not a list: left for libvirt to refuse, as it was
      const CpuSet kept = cells->intersected(guest_cells);
      if (kept == *cells) continue;
      if (kept.empty()) {
        xmlUnlinkNode(page);
        xmlFreeNode(page);
      } else {
        set_attr(page, "nodeset", to_cpu_list(kept));
      }
    }
    // An emptied <hugepages/> would mean huge pages for every cell: the cells that had them are gone.
    if (had_pages && child_elements(hugepages, "page").empty()) {
      xmlUnlinkNode(hugepages);
      xmlFreeNode(hugepages);
    }
    return;
  }
  if (backing == nullptr) backing = ensure_child(root, "memoryBacking", {"memory", "currentMemory", "maxMemory"});
  remove_children(backing, "hugepages");
  xmlNode* hugepages = xmlNewDocNode(root->doc, nullptr, X("hugepages"), nullptr);
  if (backing->children != nullptr) xmlAddPrevSibling(backing->children, hugepages); else xmlAddChild(backing, hugepages);
  for (const auto& [size, cells] : cells_by_size) {
    xmlNode* page = new_child(hugepages, "page");
    set_attr(page, "size", std::to_string(size));
    set_attr(page, "unit", "KiB");
    set_attr(page, "nodeset", to_cpu_list(cells));
  }
}

}  // namespace

std::vector<std::string> write_confinement(xmlDoc* doc, const CpuSet& nodes, const CpuSet& cpus,
                                           const CpuSet& cell_cpus, const OperatorConstraints& constraints) {
  const std::string nodeset = to_cpu_list(nodes);
  xmlNode* root = xmlDocGetRootElement(doc);
  xmlNode* vcpu = first_child(root, "vcpu");
  set_attr(vcpu, "placement", "static");
  // Within the operator's own <vcpu cpuset> (the caller has checked they share a pCPU): it bounds
  // the vCPUs without a <vcpupin> and the emulator without an <emulatorpin>.
  set_attr(vcpu, "cpuset", to_cpu_list(constraints.vcpu_cpuset ? cpus.intersected(*constraints.vcpu_cpuset) : cpus));
  xmlNode* numatune = ensure_child(root, "numatune", {"vcpu", "vcpus", "iothreads", "iothreadids", "cputune"});
  remove_children(numatune, "memory");
  xmlNode* memory = xmlNewDocNode(doc, nullptr, X("memory"), nullptr);
  set_attr(memory, "mode", mode_or_strict(constraints.memory.mode));
  set_attr(memory, "nodeset", nodeset);
  if (numatune->children != nullptr) xmlAddPrevSibling(numatune->children, memory); else xmlAddChild(numatune, memory);

  // The operator's pins, kept within the confinement (the caller has checked each keeps a pCPU).
  std::vector<std::string> narrowed;
  auto keep_within = [&](xmlNode* node, const std::optional<CpuSet>& recorded, const CpuSet& cpus,
                         const std::string& what) {
    std::optional<CpuSet> base = recorded;
    if (!base) {
      const auto text = attribute(node, "cpuset");
      if (!text) return;
      auto listed = parse_cpu_list(*text, what);
      if (!listed) return;  // read_domain_bindings refused it already
      base = *listed;
    }
    const CpuSet kept = base->intersected(cpus);
    if (kept.empty() || kept == *base) {
      set_attr(node, "cpuset", to_cpu_list(*base));
      return;
    }
    set_attr(node, "cpuset", to_cpu_list(kept));
    narrowed.push_back(what + " " + to_cpu_list(*base) + " kept within " + to_cpu_list(kept));
  };
  if (xmlNode* cputune = first_child(root, "cputune")) {
    for (xmlNode* pin : child_elements(cputune, "vcpupin")) {
      const auto id = attribute(pin, "vcpu").value_or("");
      std::optional<CpuSet> recorded;
      for (const auto& [v, set] : constraints.vcpupins) {
        if (std::to_string(v) == id) recorded = set;
      }
      keep_within(pin, recorded, cpus, "<vcpupin vcpu='" + id + "' cpuset>");
    }
    for (xmlNode* pin : child_elements(cputune, "emulatorpin")) {
      keep_within(pin, constraints.emulatorpin, cell_cpus, "<emulatorpin cpuset>");
    }
  }
  return narrowed;
}

std::vector<std::string> narrow_threads(xmlDoc* doc, const CpuSet& taken, const CpuSet& host_cpus) {
  std::vector<std::string> changed;
  xmlNode* root = xmlDocGetRootElement(doc);
  auto narrow = [&](xmlNode* node, const std::string& what, const CpuSet& now) {
    if (!now.intersects(taken)) return;
    const CpuSet kept = now.minus(taken);
    set_attr(node, "cpuset", to_cpu_list(kept));
    changed.push_back(what + " " + to_cpu_list(now) + " -> " + to_cpu_list(kept));
  };
  xmlNode* cputune = first_child(root, "cputune");
  xmlNode* vcpu = first_child(root, "vcpu");
  if (vcpu != nullptr) {
    // <vcpu cpuset> covers every thread without a pin of its own; without one, they run anywhere.
    const auto text = attribute(vcpu, "cpuset");
    const auto listed = text ? parse_cpu_list(*text, "<vcpu cpuset>") : Result<CpuSet>(host_cpus);
    if (listed && attribute(vcpu, "placement").value_or("static") == "static") {
      narrow(vcpu, "<vcpu cpuset>", *listed);
    }
  }
  for (const char* pin : {"vcpupin", "emulatorpin", "iothreadpin"}) {
    for (xmlNode* node : child_elements(cputune, pin)) {
      const auto text = attribute(node, "cpuset");
      if (!text) continue;
      if (const auto listed = parse_cpu_list(*text, pin)) narrow(node, "<" + std::string(pin) + ">", *listed);
    }
  }
  return changed;
}

WrittenTuning write_placement(xmlDoc* doc, const HostTopology& host, const Placement& placement,
                              const OperatorConstraints& constraints, const GuestTuning& tuning) {
  xmlNode* root = xmlDocGetRootElement(doc);
  write_vcpu_and_cputune(root, host, placement, constraints, tuning.realtime_vcpus);
  write_numatune(root, placement, constraints);
  std::vector<std::string> dropped_cells = write_cpu_numa(root, host, placement);
  write_memory_backing(root, placement);
  WrittenTuning written = write_tuning(doc, tuning);
  written.dropped_cells = std::move(dropped_cells);
  return written;
}

}  // namespace numaplace::xml
