#include "xml/domain_writer.h"

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

// Finds <name> under root, or creates it right after the first existing sibling in `after`.
xmlNode* ensure_child(xmlNode* root, const char* name, std::initializer_list<const char*> after) {
  if (xmlNode* existing = first_child(root, name)) return existing;
  xmlNode* node = xmlNewDocNode(root->doc, nullptr, X(name), nullptr);
  xmlNode* anchor = nullptr;
  for (const char* candidate : after) {
    if (xmlNode* found = first_child(root, candidate)) anchor = found;
  }
  if (anchor != nullptr) {
    xmlAddNextSibling(anchor, node);
  } else {
    xmlAddChild(root, node);
  }
  return node;
}

std::string join_host_cells(const Placement& placement) {
  CpuSet cells;
  for (const auto& cell : placement.cells) cells.insert(cell.host_cell);
  return to_cpu_list(cells);
}

void write_vcpu_and_cputune(xmlNode* root, const Placement& placement) {
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
  CpuSet emulator;
  for (const auto& cell : placement.cells) {
    std::map<std::uint32_t, std::uint32_t> dedicated(cell.pinning.begin(), cell.pinning.end());
    for (std::uint32_t v : cell.guest_cpus) {
      auto it = dedicated.find(v);
      pins[v] = it != dedicated.end() ? std::to_string(it->second) : to_cpu_list(cell.host_cpus);
      if (it == dedicated.end()) emulator = emulator.united(cell.host_cpus);
    }
    emulator = emulator.united(cell.cpuset_reserved);
  }
  if (emulator.empty()) emulator = all_host_cpus;
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

void write_numatune(xmlNode* root, const Placement& placement) {
  xmlNode* numatune = ensure_child(root, "numatune", {"vcpu", "vcpus", "iothreads", "iothreadids", "cputune"});
  remove_children(numatune, "memory");
  remove_children(numatune, "memnode");
  xmlNode* memory = new_child(numatune, "memory");
  set_attr(memory, "mode", "strict");
  set_attr(memory, "nodeset", join_host_cells(placement));
  for (const auto& cell : placement.cells) {
    xmlNode* memnode = new_child(numatune, "memnode");
    set_attr(memnode, "cellid", std::to_string(cell.guest_cell));
    set_attr(memnode, "mode", "strict");
    set_attr(memnode, "nodeset", std::to_string(cell.host_cell));
  }
}

void write_cpu_numa(xmlNode* root, const HostTopology& host, const Placement& placement) {
  xmlNode* cpu = ensure_child(root, "cpu", {"features", "os", "vcpu", "cputune", "numatune"});
  xmlNode* numa = first_child(cpu, "numa");
  if (numa == nullptr) numa = new_child(cpu, "numa");
  // Keep what the operator wrote on existing cells (memAccess, discard, ...), keyed by id.
  std::map<std::string, xmlNode*> previous;
  for (xmlNode* cell : child_elements(numa, "cell")) {
    xmlUnlinkNode(cell);
    // A second cell with an id already seen (libvirt refuses such a domain) is dropped, not leaked.
    if (!previous.try_emplace(attribute(cell, "id").value_or(""), cell).second) xmlFreeNode(cell);
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
    set_attr(cell, "cpus", to_cpu_list(placed.guest_cpus));
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
  for (auto& [id, node] : previous) xmlFreeNode(node);
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

std::vector<std::string> write_confinement(xmlDoc* doc, const CpuSet& nodes, const CpuSet& cpus) {
  const std::string nodeset = to_cpu_list(nodes);
  xmlNode* root = xmlDocGetRootElement(doc);
  xmlNode* vcpu = first_child(root, "vcpu");
  set_attr(vcpu, "placement", "static");
  set_attr(vcpu, "cpuset", to_cpu_list(cpus));
  xmlNode* numatune = ensure_child(root, "numatune", {"vcpu", "vcpus", "iothreads", "iothreadids", "cputune"});
  remove_children(numatune, "memory");
  xmlNode* memory = xmlNewDocNode(doc, nullptr, X("memory"), nullptr);
  set_attr(memory, "mode", "strict");
  set_attr(memory, "nodeset", nodeset);
  if (numatune->children != nullptr) xmlAddPrevSibling(numatune->children, memory); else xmlAddChild(numatune, memory);

  std::vector<std::string> narrowed;
  // A list `text` outside `allowed` is replaced by `allowed` through `write`; an unreadable list
  // is left for libvirt to refuse, as it was.
  auto narrow = [&](const std::string& text, const CpuSet& allowed, const std::string& what, auto&& write) {
    const auto listed = parse_cpu_list(text, what);
    if (!listed || listed->is_subset_of(allowed)) return;
    const std::string list = to_cpu_list(allowed);
    write(list);
    narrowed.push_back(what + " " + text + " narrowed to " + list);
  };
  auto narrow_attribute = [&](xmlNode* node, const char* attr, const CpuSet& allowed, const std::string& what) {
    if (const auto text = attribute(node, attr)) {
      narrow(*text, allowed, what, [&](const std::string& list) { set_attr(node, attr, list); });
    }
  };
  if (xmlNode* cputune = first_child(root, "cputune")) {
    for (const char* pin : {"vcpupin", "emulatorpin", "iothreadpin"}) {
      for (xmlNode* node : child_elements(cputune, pin)) {
        narrow_attribute(node, "cpuset", cpus, "<" + std::string(pin) + " cpuset>");
      }
    }
  }
  for (xmlNode* memnode : child_elements(numatune, "memnode")) {
    narrow_attribute(memnode, "nodeset", nodes, "<memnode nodeset>");
  }
  for (xmlNode* device : child_elements(first_child(root, "devices"), "memory")) {
    if (xmlNode* mask = first_child(first_child(device, "source"), "nodemask")) {
      narrow(text_of(mask), nodes, "memory device <nodemask>",
             [&](const std::string& list) { xmlNodeSetContent(mask, X(list.c_str())); });
    }
  }
  return narrowed;
}

void write_placement(xmlDoc* doc, const HostTopology& host, const Placement& placement) {
  xmlNode* root = xmlDocGetRootElement(doc);
  write_vcpu_and_cputune(root, placement);
  write_numatune(root, placement);
  write_cpu_numa(root, host, placement);
  write_memory_backing(root, placement);
}

}  // namespace numaplace::xml
