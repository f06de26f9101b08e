// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/placement_record.h"

#include <algorithm>
#include <map>
#include <set>
#include <charconv>
#include <cstring>

#include "xml/xml_document.h"
#include "placement/model/pci_address.h"
#include "placement/model/text_items.h"

namespace numaplace::xml {
namespace {

const xmlChar* X(const char* text) { return reinterpret_cast<const xmlChar*>(text); }

bool in_our_namespace(const xmlNode* node) {
  return node != nullptr && node->type == XML_ELEMENT_NODE && node->ns != nullptr && node->ns->href != nullptr &&
         std::strcmp(reinterpret_cast<const char*>(node->ns->href), kNamespaceUri) == 0;
}

xmlNode* find_record(const xmlDoc* doc) {
  const xmlNode* metadata = first_child(xmlDocGetRootElement(const_cast<xmlDoc*>(doc)), "metadata");
  for (xmlNode* child : child_elements(metadata)) {
    if (in_our_namespace(child) && is_named(child, "numaplace")) return child;
  }
  return nullptr;
}

xmlNode* find_part(const xmlNode* record, const char* name) {
  for (xmlNode* child : child_elements(record)) {
    if (in_our_namespace(child) && is_named(child, name)) return child;
  }
  return nullptr;
}

Result<std::uint64_t> parse_number(const std::optional<std::string>& text, const std::string& what) {
  std::uint64_t value = 0;
  if (!text) return make_error("InvalidPlacementRecord", what + " is missing");
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (text->empty() || ec != std::errc() || ptr != text->data() + text->size()) {
    return make_error("InvalidPlacementRecord", what + " is '" + *text + "', not a whole number");
  }
  return value;
}

Result<CpuSet> parse_optional_list(const std::optional<std::string>& text, const std::string& what) {
  if (!text || text->empty()) return CpuSet{};
  return parse_cpu_list(*text, what);
}

// "vcpu:pcpu,vcpu:pcpu"
Result<std::vector<std::pair<std::uint32_t, std::uint32_t>>> parse_pins(const std::string& text, const std::string& what) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pins;
  for (std::string_view raw : split_items_allowing_trailing_separator(text)) {
    const std::string item(raw);
    std::size_t colon = item.find(':');
    if (colon == std::string::npos) {
      return make_error("InvalidPlacementRecord", what + ": '" + item + "' is not vcpu:pcpu");
    }
    auto v = parse_number(item.substr(0, colon), what);
    auto p = parse_number(item.substr(colon + 1), what);
    if (!v) return v.error();
    if (!p) return p.error();
    if (*v > kMaxCpuId || *p > kMaxCpuId) return make_error("InvalidPlacementRecord", what + ": '" + item + "' is out of range");
    pins.emplace_back(static_cast<std::uint32_t>(*v), static_cast<std::uint32_t>(*p));
  }
  return pins;
}

}  // namespace

Result<std::optional<StoredRequest>> read_stored_request(const xmlDoc* doc, const std::string& what) {
  // libvirt keeps one element per metadata namespace: with two records, which one a define keeps
  // is not the one placed from, so a domain holding more than one is refused here.
  std::size_t records = 0;
  const xmlNode* metadata = first_child(xmlDocGetRootElement(const_cast<xmlDoc*>(doc)), "metadata");
  for (const xmlNode* child : child_elements(metadata)) records += in_our_namespace(child) && is_named(child, "numaplace") ? 1 : 0;
  if (records > 1) {
    return make_error("InvalidPlacementRecord",
                      what + ": its <metadata> holds " + std::to_string(records) +
                          " numaplace records (<numaplace:numaplace>); libvirt keeps one element per namespace, so "
                          "the others would be lost and the one kept might not describe the domain: remove all but one");
  }
  // The record is rewritten whole with each placement: a part numaplace does not write would be
  // dropped without a word, so it is refused here, where every use of a record starts.
  for (const xmlNode* part : child_elements(find_record(doc))) {
    bool known = false;
    for (const char* name : {"request", "placement", "confinement", "constraints", "written", "tuning"}) {
      known = known || (in_our_namespace(part) && is_named(part, name));
    }
    if (!known) {
      return make_error("InvalidPlacementRecord",
                        what + ": unexpected element <" + std::string(reinterpret_cast<const char*>(part->name)) +
                            "> in numaplace's record; it holds request, placement, confinement, constraints, "
                            "written and tuning only; remove it (--fresh keeps the record and would not help)");
    }
  }
  const xmlNode* request = find_part(find_record(doc), "request");
  if (request == nullptr) return std::optional<StoredRequest>{};
  StoredRequest stored;
  stored.policy = attribute(request, "policy").value_or("");
  stored.strategy = attribute(request, "strategy").value_or("");
  for (const xmlNode* item : child_elements(request)) {
    const bool spec = is_named(item, "spec");
    if (in_our_namespace(item) && is_named(item, "pci")) {
      const auto given = attribute(item, "address");
      const auto address = canonical_pci_address(given.value_or(""));
      if (!address) {
        return make_error("InvalidPlacementRecord", what + ": <numaplace:pci address='" + given.value_or("") +
                                                        "'> in the numaplace request is no PCI address "
                                                        "(domain:bus:slot.function, e.g. 0000:3b:00.0)");
      }
      if (std::find(stored.pci_addresses.begin(), stored.pci_addresses.end(), *address) != stored.pci_addresses.end()) {
        return make_error("InvalidPlacementRecord", what + ": numaplace request names PCI device " + *address + " twice");
      }
      stored.pci_addresses.push_back(*address);
      continue;
    }
    if (!in_our_namespace(item) || (!spec && !is_named(item, "image-prop"))) {
      return make_error("InvalidPlacementRecord", what + ": unexpected element <" +
                                                      std::string(reinterpret_cast<const char*>(item->name)) +
                                                      "> in the numaplace request; use <numaplace:spec>, "
                                                      "<numaplace:image-prop> or <numaplace:pci>");
    }
    auto key = attribute(item, "key");
    auto value = attribute(item, "value");
    if (!key || key->empty() || !value) {
      return make_error("InvalidPlacementRecord", what + ": a numaplace request entry needs key and value attributes");
    }
    SpecMap& map = spec ? stored.flavor_specs : stored.image_props;
    if (!map.emplace(*key, *value).second) {
      return make_error("InvalidPlacementRecord", what + ": numaplace request names '" + *key + "' twice");
    }
  }
  return std::optional<StoredRequest>{std::move(stored)};
}

namespace {

// A record is numaplace's own output, but it sits in XML anyone can edit: one that could not have
// been written (a pCPU pinned to two vCPUs, a pin of a vCPU its cell lacks, a guest cell or vCPU given twice) would
// have its pins written back as they are, so it is refused. So is one with two guest cells on a host cell,
// or the emulator's pCPU or isolate's siblings given to a vCPU too or held twice.
Status check_placement_record(const Placement& placement, const std::string& where) {
  const auto damaged = [&](const std::string& problem) {
    return make_error("InvalidPlacementRecord", where + " is damaged: " + problem +
                                                    "; place the domain with --fresh, or remove numaplace's record");
  };
  std::set<std::uint32_t> guest_cells;
  std::set<std::uint32_t> host_cells;
  CpuSet vcpus_seen;
  std::map<std::uint32_t, std::uint32_t> pinned;  // pCPU -> vCPU
  for (const auto& cell : placement.cells) {
    const std::string named = "guest cell " + std::to_string(cell.guest_cell);
    if (!guest_cells.insert(cell.guest_cell).second) return damaged(named + " is given twice");
    // Each guest cell has a host cell of its own (Nova's rule); two on one would each be re-pinned
    // there as if the other held nothing.
    if (!host_cells.insert(cell.host_cell).second) {
      return damaged(named + " is on host cell " + std::to_string(cell.host_cell) + ", which another guest cell is on");
    }
    if (cell.guest_cpus.intersects(vcpus_seen)) {
      return damaged(named + " lists vCPUs " + to_cpu_list(cell.guest_cpus.intersected(vcpus_seen)) +
                     ", which another cell lists too");
    }
    vcpus_seen = vcpus_seen.united(cell.guest_cpus);
    for (const auto& [vcpu, pcpu] : cell.pinning) {
      const std::string pin = "vCPU " + std::to_string(vcpu) + " -> pCPU " + std::to_string(pcpu);
      if (!cell.guest_cpus.contains(vcpu)) return damaged(named + " pins " + pin + ", a vCPU the cell does not list");
      if (const auto [at, fresh] = pinned.emplace(pcpu, vcpu); !fresh) {
        return damaged("pCPU " + std::to_string(pcpu) + " is pinned to vCPUs " + std::to_string(at->second) + " and " +
                       std::to_string(vcpu));
      }
    }
  }
  // The emulator's pCPU and isolate's siblings are held apart from every vCPU, and each once.
  CpuSet apart;
  for (const auto& cell : placement.cells) {
    for (const CpuSet* held : {&cell.cpuset_reserved, &cell.isolated_cpus}) {
      const char* what = held == &cell.cpuset_reserved ? " reserved for the emulator" : " kept free by isolate";
      for (std::uint32_t pcpu : *held) {
        const std::string named = "pCPU " + std::to_string(pcpu) + what + " (guest cell " + std::to_string(cell.guest_cell) + ")";
        if (const auto pin = pinned.find(pcpu); pin != pinned.end()) {
          return damaged(named + " is pinned to vCPU " + std::to_string(pin->second));
        }
        if (apart.contains(pcpu)) return damaged(named + " is held by the record twice");
        apart.insert(pcpu);
      }
    }
  }
  return Done{};
}

}  // namespace

Result<std::optional<Placement>> read_placement_record(const xmlDoc* doc, const std::string& what) {
  const xmlNode* part = find_part(find_record(doc), "placement");
  if (part == nullptr) return std::optional<Placement>{};
  Placement placement;
  for (const xmlNode* node : child_elements(part)) {
    if (!in_our_namespace(node) || !is_named(node, "cell")) continue;
    const std::string where = what + ": numaplace placement cell";
    CellPlacement cell;
    auto guest = parse_number(attribute(node, "guest"), where + " guest");
    auto host = parse_number(attribute(node, "host"), where + " host");
    auto memory = parse_number(attribute(node, "memory-kib"), where + " memory-kib");
    auto pagesize = parse_number(attribute(node, "pagesize-kib").value_or("0"), where + " pagesize-kib");
    auto vcpus = parse_optional_list(attribute(node, "vcpus"), where + " vcpus");
    auto host_cpus = parse_optional_list(attribute(node, "host-cpus"), where + " host-cpus");
    auto pins = parse_pins(attribute(node, "pins").value_or(""), where + " pins");
    auto reserved = parse_optional_list(attribute(node, "reserved-cpus"), where + " reserved-cpus");
    auto isolated = parse_optional_list(attribute(node, "isolated-cpus"), where + " isolated-cpus");
    for (const Error* e : {guest.ok() ? nullptr : &guest.error(), host.ok() ? nullptr : &host.error(),
                           memory.ok() ? nullptr : &memory.error(), pagesize.ok() ? nullptr : &pagesize.error(),
                           vcpus.ok() ? nullptr : &vcpus.error(), host_cpus.ok() ? nullptr : &host_cpus.error(),
                           pins.ok() ? nullptr : &pins.error(), reserved.ok() ? nullptr : &reserved.error(),
                           isolated.ok() ? nullptr : &isolated.error()}) {
      if (e != nullptr) return *e;
    }
    cell.cpuset_reserved = *reserved;
    cell.isolated_cpus = *isolated;
    if (*guest > kMaxCpuId || *host > kMaxCpuId) {
      return make_error("InvalidPlacementRecord", where + " names a cell id out of range");
    }
    cell.guest_cell = static_cast<std::uint32_t>(*guest);
    cell.host_cell = static_cast<std::uint32_t>(*host);
    cell.memory_kib = *memory;
    cell.pagesize_kib = static_cast<std::int64_t>(*pagesize);
    cell.guest_cpus = *vcpus;
    cell.host_cpus = *host_cpus;
    cell.pinning = std::move(*pins);
    placement.cells.push_back(std::move(cell));
  }
  if (auto consistent = check_placement_record(placement, what + ": numaplace placement"); !consistent) {
    return consistent.error();
  }
  return std::optional<Placement>{std::move(placement)};
}

bool has_record(const xmlDoc* doc) { return find_record(doc) != nullptr; }

Result<std::optional<ConfinementRecord>> read_confinement_record(const xmlDoc* doc, const std::string& what) {
  const xmlNode* part = find_part(find_record(doc), "confinement");
  if (part == nullptr) return std::optional<ConfinementRecord>{};
  const std::string where = what + ": numaplace confinement";
  ConfinementRecord record;
  auto nodes = parse_optional_list(attribute(part, "nodes"), where + " nodes");
  if (!nodes) return nodes.error();
  record.nodes = *nodes;
  const std::string text = attribute(part, "memory").value_or("");
  for (std::string_view raw : split_items_allowing_trailing_separator(text)) {
    const std::string item(raw);
    const std::size_t colon = item.find(':');
    if (colon == std::string::npos) {
      return make_error("InvalidPlacementRecord", where + " memory: '" + item + "' is not node:KiB");
    }
    auto node = parse_number(item.substr(0, colon), where + " memory");
    auto kib = parse_number(item.substr(colon + 1), where + " memory");
    if (!node) return node.error();
    if (!kib) return kib.error();
    if (*node > kMaxCpuId) return make_error("InvalidPlacementRecord", where + " memory names node " + std::to_string(*node));
    record.memory.emplace_back(static_cast<std::uint32_t>(*node), *kib);
  }
  return std::optional<ConfinementRecord>{std::move(record)};
}

namespace {

// The constraints-shaped part `name` of the record: "constraints" (what the operator wrote first)
// or "written" (the elements as numaplace left them).
Result<std::optional<OperatorConstraints>> read_constraints_part(const xmlDoc* doc, const char* name,
                                                                 const std::string& what) {
  const xmlNode* part = find_part(find_record(doc), name);
  if (part == nullptr) return std::optional<OperatorConstraints>{};
  const std::string where = what + ": numaplace " + name;
  OperatorConstraints constraints;
  auto optional_set = [&](const char* name) -> Result<std::optional<CpuSet>> {
    auto text = attribute(part, name);
    if (!text) return std::optional<CpuSet>{};
    auto set = parse_cpu_list(*text, where + " " + name);
    if (!set) return set.error();
    return std::optional<CpuSet>{std::move(*set)};
  };
  auto cpuset = optional_set("vcpu-cpuset");
  if (!cpuset) return cpuset.error();
  constraints.vcpu_cpuset = *cpuset;
  auto emulator = optional_set("emulatorpin");
  if (!emulator) return emulator.error();
  constraints.emulatorpin = *emulator;
  constraints.memory.mode = attribute(part, "memory-mode").value_or("");
  auto nodeset = optional_set("memory-nodeset");
  if (!nodeset) return nodeset.error();
  constraints.memory.nodeset = *nodeset;
  for (const xmlNode* child : child_elements(part)) {
    if (!in_our_namespace(child)) continue;
    if (is_named(child, "vcpupin")) {
      auto vcpu = parse_number(attribute(child, "vcpu"), where + " vcpupin vcpu");
      if (!vcpu) return vcpu.error();
      auto cpus = parse_cpu_list(attribute(child, "cpuset").value_or(""), where + " vcpupin cpuset");
      if (!cpus) return cpus.error();
      if (*vcpu > kMaxCpuId) return make_error("InvalidPlacementRecord", where + " vcpupin names vCPU " + std::to_string(*vcpu));
      constraints.vcpupins[static_cast<std::uint32_t>(*vcpu)] = *cpus;
    } else if (is_named(child, "iothreadpin")) {
      auto id = parse_number(attribute(child, "iothread"), where + " iothreadpin iothread");
      if (!id) return id.error();
      auto cpus = parse_cpu_list(attribute(child, "cpuset").value_or(""), where + " iothreadpin cpuset");
      if (!cpus) return cpus.error();
      if (*id == 0 || *id > kMaxCpuId) {
        return make_error("InvalidPlacementRecord", where + " iothreadpin names iothread " + std::to_string(*id));
      }
      constraints.iothreadpins[static_cast<std::uint32_t>(*id)] = *cpus;
    } else if (is_named(child, "memnode")) {
      auto cell = parse_number(attribute(child, "cellid"), where + " memnode cellid");
      if (!cell) return cell.error();
      if (*cell > kMaxCpuId) return make_error("InvalidPlacementRecord", where + " memnode names cell " + std::to_string(*cell));
      MemoryBinding binding;
      binding.mode = attribute(child, "mode").value_or("");
      if (auto text = attribute(child, "nodeset")) {
        auto nodes = parse_cpu_list(*text, where + " memnode nodeset");
        if (!nodes) return nodes.error();
        binding.nodeset = *nodes;
      }
      constraints.memnodes[static_cast<std::uint32_t>(*cell)] = std::move(binding);
    }
  }
  return std::optional<OperatorConstraints>{std::move(constraints)};
}

}  // namespace

Result<std::optional<OperatorConstraints>> read_recorded_constraints(const xmlDoc* doc, const std::string& what) {
  return read_constraints_part(doc, "constraints", what);
}

Result<std::optional<OperatorConstraints>> read_recorded_written(const xmlDoc* doc, const std::string& what) {
  return read_constraints_part(doc, "written", what);
}

Result<WrittenTuning> read_tuning_record(const xmlDoc* doc, const std::string& what) {
  WrittenTuning written;
  const xmlNode* part = find_part(find_record(doc), "tuning");
  if (part == nullptr) return written;
  const std::string where = what + ": numaplace tuning";
  if (auto text = attribute(part, "vcpusched")) {
    auto vcpus = parse_cpu_list(*text, where + " vcpusched");
    if (!vcpus) return vcpus.error();
    written.vcpusched = *vcpus;
  }
  for (const char* flag : {"locked", "nosharepages"}) {
    const auto text = attribute(part, flag);
    if (text && *text != "yes") {
      return make_error("InvalidPlacementRecord", where + " " + flag + " is '" + *text + "', not 'yes'");
    }
    (std::strcmp(flag, "locked") == 0 ? written.locked : written.nosharepages) = text.has_value();
  }
  for (const xmlNode* child : child_elements(part)) {
    if (!in_our_namespace(child)) continue;
    if (is_named(child, "operator-vcpusched")) {
      written.operator_vcpusched.push_back(attributes_of(child));
    } else if (is_named(child, "topology")) {
      written.topology = attributes_of(child);
    } else if (is_named(child, "operator-topology")) {
      written.operator_topology = attributes_of(child);
    }
  }
  return written;
}

void write_record(xmlDoc* doc, const StoredRequest& request, const RecordParts& parts) {
  xmlNode* root = xmlDocGetRootElement(doc);
  xmlNode* metadata = first_child(root, "metadata");
  if (metadata == nullptr) {
    metadata = xmlNewDocNode(doc, nullptr, X("metadata"), nullptr);
    xmlNode* anchor = nullptr;
    for (const char* name : {"name", "uuid", "genid", "title", "description"}) {
      if (xmlNode* found = first_child(root, name)) anchor = found;
    }
    if (anchor != nullptr) xmlAddNextSibling(anchor, metadata); else xmlAddChild(root, metadata);
  }
  if (xmlNode* old = find_record(doc)) {
    xmlUnlinkNode(old);
    xmlFreeNode(old);
  }
  xmlNode* record = xmlNewDocNode(doc, nullptr, X("numaplace"), nullptr);
  xmlAddChild(metadata, record);
  xmlNs* ns = xmlNewNs(record, X(kNamespaceUri), X(kNamespacePrefix));
  xmlSetNs(record, ns);

  auto set = [](xmlNode* node, const char* name, const std::string& value) {
    xmlSetProp(node, X(name), X(value.c_str()));
  };
  xmlNode* req = xmlNewChild(record, ns, X("request"), nullptr);
  if (!request.policy.empty()) set(req, "policy", request.policy);
  if (!request.strategy.empty()) set(req, "strategy", request.strategy);
  for (const auto& [key, value] : request.flavor_specs) {
    xmlNode* item = xmlNewChild(req, ns, X("spec"), nullptr);
    set(item, "key", key);
    set(item, "value", value);
  }
  for (const auto& [key, value] : request.image_props) {
    xmlNode* item = xmlNewChild(req, ns, X("image-prop"), nullptr);
    set(item, "key", key);
    set(item, "value", value);
  }
  for (const auto& address : request.pci_addresses) set(xmlNewChild(req, ns, X("pci"), nullptr), "address", address);
  if (const ConfinementRecord* confinement = parts.confinement) {
    xmlNode* node = xmlNewChild(record, ns, X("confinement"), nullptr);
    set(node, "nodes", to_cpu_list(confinement->nodes));
    std::string memory;
    for (const auto& [cell, kib] : confinement->memory) {
      memory += (memory.empty() ? "" : ",") + std::to_string(cell) + ":" + std::to_string(kib);
    }
    set(node, "memory", memory);
  }
  auto write_constraints = [&](const char* name, const OperatorConstraints* constraints) {
    xmlNode* node = xmlNewChild(record, ns, X(name), nullptr);
    if (constraints->vcpu_cpuset) set(node, "vcpu-cpuset", to_cpu_list(*constraints->vcpu_cpuset));
    if (constraints->emulatorpin) set(node, "emulatorpin", to_cpu_list(*constraints->emulatorpin));
    if (!constraints->memory.mode.empty()) set(node, "memory-mode", constraints->memory.mode);
    if (constraints->memory.nodeset) set(node, "memory-nodeset", to_cpu_list(*constraints->memory.nodeset));
    for (const auto& [vcpu, cpus] : constraints->vcpupins) {
      xmlNode* pin = xmlNewChild(node, ns, X("vcpupin"), nullptr);
      set(pin, "vcpu", std::to_string(vcpu));
      set(pin, "cpuset", to_cpu_list(cpus));
    }
    for (const auto& [id, cpus] : constraints->iothreadpins) {
      xmlNode* pin = xmlNewChild(node, ns, X("iothreadpin"), nullptr);
      set(pin, "iothread", std::to_string(id));
      set(pin, "cpuset", to_cpu_list(cpus));
    }
    for (const auto& [cell, binding] : constraints->memnodes) {
      xmlNode* memnode = xmlNewChild(node, ns, X("memnode"), nullptr);
      set(memnode, "cellid", std::to_string(cell));
      if (!binding.mode.empty()) set(memnode, "mode", binding.mode);
      if (binding.nodeset) set(memnode, "nodeset", to_cpu_list(*binding.nodeset));
    }
  };
  if (parts.constraints != nullptr && !parts.constraints->empty()) write_constraints("constraints", parts.constraints);
  if (parts.written != nullptr) write_constraints("written", parts.written);
  if (const WrittenTuning* tuning = parts.tuning; tuning != nullptr && !tuning->empty()) {
    xmlNode* node = xmlNewChild(record, ns, X("tuning"), nullptr);
    if (tuning->vcpusched) set(node, "vcpusched", to_cpu_list(*tuning->vcpusched));
    if (tuning->locked) set(node, "locked", "yes");
    if (tuning->nosharepages) set(node, "nosharepages", "yes");
    auto element = [&](const char* name, const Attributes& attributes) {
      xmlNode* child = xmlNewChild(node, ns, X(name), nullptr);
      for (const auto& [key, value] : attributes) set(child, key.c_str(), value);
    };
    for (const Attributes& original : tuning->operator_vcpusched) element("operator-vcpusched", original);
    if (tuning->topology) element("topology", *tuning->topology);
    if (tuning->operator_topology) element("operator-topology", *tuning->operator_topology);
  }
  const Placement* placement = parts.placement;
  if (placement == nullptr) return;
  xmlNode* placed = xmlNewChild(record, ns, X("placement"), nullptr);
  for (const auto& cell : placement->cells) {
    xmlNode* node = xmlNewChild(placed, ns, X("cell"), nullptr);
    set(node, "guest", std::to_string(cell.guest_cell));
    set(node, "host", std::to_string(cell.host_cell));
    set(node, "vcpus", to_cpu_list(cell.guest_cpus));
    set(node, "host-cpus", to_cpu_list(cell.host_cpus));
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pins = cell.pinning;
    std::sort(pins.begin(), pins.end());
    std::string pins_text;
    for (const auto& [v, p] : pins) pins_text += (pins_text.empty() ? "" : ",") + std::to_string(v) + ":" + std::to_string(p);
    if (!pins_text.empty()) set(node, "pins", pins_text);
    set(node, "memory-kib", std::to_string(cell.memory_kib));
    set(node, "pagesize-kib", std::to_string(cell.pagesize_kib > 0 ? cell.pagesize_kib : 0));
    if (!cell.cpuset_reserved.empty()) set(node, "reserved-cpus", to_cpu_list(cell.cpuset_reserved));
    if (!cell.isolated_cpus.empty()) set(node, "isolated-cpus", to_cpu_list(cell.isolated_cpus));
  }
}

}  // namespace numaplace::xml
