// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/service/place_domain.h"

#include "placement/model/utf8_text.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <set>
#include <sstream>
#include <utility>

#include "placement/request/guest_topology.h"
#include "placement/request/guest_tuning.h"
#include "placement/request/page_size.h"
#include "placement/lifecycle/narrowing.h"
#include "placement/lifecycle/operator_constraints.h"
#include "placement/model/count_words.h"
#include "placement/model/utf8_text.h"
#include "xml/domain_bindings.h"
#include "xml/domain_reader.h"
#include "xml/domain_writer.h"
#include "xml/operator_constraints.h"
#include "xml/placement_record.h"
#include "xml/xml_document.h"
#include "xml/xml_text.h"

namespace numaplace::plugin {

std::string explain_no_fit(const FitResult& result, std::string_view separator) {
  std::string text = result.summary;
  for (const auto& rejection : result.rejections) {
    text += std::string(separator) + "guest cell " + std::to_string(rejection.guest_cell) + " on host cell " +
            std::to_string(rejection.host_cell) + ": " + rejection.reason;
  }
  return text;
}

namespace {

std::string mib_text(std::uint64_t kib) { return std::to_string(kib / 1024) + " MiB"; }

// The operator's pins onto pCPUs the host does not have are refused, naming the element (the
// other elements are kept within what the placement chooses, operator_constraints.h; iothread
// pins of a confined guest are checked by check_iothread_pins).
Status check_operator_pins(const HostTopology& host, const xml::DomainBindings& bindings, const std::string& what) {
  CpuSet online;
  for (const auto& cell : host.cells) online = online.united(cell.cpus);
  const auto& threads = bindings.threads;
  std::vector<std::pair<std::string, CpuSet>> pins;
  if (threads.vcpu_cpuset) pins.emplace_back("<vcpu cpuset>", *threads.vcpu_cpuset);
  for (const auto& [vcpu, cpus] : threads.vcpupins) pins.emplace_back("<vcpupin vcpu='" + std::to_string(vcpu) + "'>", cpus);
  if (threads.emulatorpin) pins.emplace_back("<emulatorpin>", *threads.emulatorpin);
  for (const auto& [id, cpus] : threads.iothreadpins) {
    pins.emplace_back("<iothreadpin iothread='" + std::to_string(id) + "'>", cpus);
  }
  for (const auto& [element, cpus] : pins) {
    if (!cpus.is_subset_of(online)) {
      return make_error("PinBeyondHost", what + ": " + element + " cpuset='" + to_cpu_list(cpus) + "' names pCPU " +
                                             to_cpu_list(cpus.minus(online)) +
                                             ", which this host does not have (its CPUs are " + to_cpu_list(online) + ")");
    }
  }
  for (const auto& device : bindings.memory_devices) {
    if (!device.nodemask) continue;
    for (std::uint32_t node : *device.nodemask) {
      if (host.find_cell(node) == nullptr) {
        return make_error("InvalidDomain", what + ": " + device.element + " <source><nodemask>" +
                                               to_cpu_list(*device.nodemask) + "</nodemask> names host node " +
                                               std::to_string(node) + ", which this host does not have");
      }
    }
  }
  return Done{};
}

// A guest numaplace confines keeps its <iothreadpin> elements as written, so under exclusive
// accounting none may run on pCPUs dedicated guests hold (a guest it re-pins has them moved to
// its emulator's pCPUs by the writer instead).
Status check_iothread_pins(const HostTopology& host, const xml::DomainBindings& bindings, const std::string& what) {
  if (host.accounting != Accounting::Exclusive) return Done{};
  CpuSet held;
  for (const auto& cell : host.cells) held = held.united(cell.usage.pinned_cpus);
  for (const auto& [id, cpus] : bindings.threads.iothreadpins) {
    if (cpus.intersects(held)) {
      return make_error("ConflictingPin", what + ": <iothreadpin iothread='" + std::to_string(id) + "' cpuset='" +
                                              to_cpu_list(cpus) + "'> runs on pCPUs " +
                                              to_cpu_list(cpus.intersected(held)) +
                                              ", which dedicated guests hold; pin the iothread elsewhere");
    }
  }
  return Done{};
}

// Room a strict binding to `nodes` still has for memory devices of `page_kib` pages, over the cells.
std::uint64_t room_on(const HostTopology& host, const CpuSet& nodes, std::uint64_t page_kib) {
  std::uint64_t room = 0;
  for (const auto& cell : host.cells) {
    if (!nodes.contains(cell.id)) continue;
    if (page_kib > 4) {
      for (const auto& pool : cell.pages) room += pool.size_kib == page_kib ? pool.free() * pool.size_kib : 0;
    } else {
      room += strict_memory_room_kib(host, cell);
    }
  }
  return room;
}

// Memory devices bound by their own <nodemask> must find their memory there.
Status check_device_memory(const HostTopology& host, const xml::DomainBindings& bindings, const std::string& name) {
  for (const auto& device : bindings.memory_devices) {
    if (!device.nodemask) continue;
    const std::uint64_t page = device.page_kib > 0 ? device.page_kib : bindings.pages.default_page_kib;
    const std::uint64_t room = room_on(host, *device.nodemask, page);
    if (room < device.size_kib) {
      return make_error("NoFit", "guest '" + name + "' does not fit this host: its " + device.element + " (" +
                                     mib_text(device.size_kib) + ", <nodemask>" + to_cpu_list(*device.nodemask) +
                                     "</nodemask>) finds " + mib_text(room) + " free on those host nodes");
    }
  }
  return Done{};
}

// The memory devices without a <nodemask> of a guest with a NUMA topology land with their guest
// cell; the host cell must hold them beside what the guest cells take there.
Status check_cell_device_memory(const HostTopology& host, const xml::DomainBindings& bindings,
                                const Placement& placement, const std::string& name) {
  for (const auto& cell : placement.cells) {
    std::uint64_t devices = 0;
    for (const auto& device : bindings.memory_devices) {
      if (!device.nodemask && device.guest_node.value_or(0) == cell.guest_cell) devices += device.size_kib;
    }
    if (devices == 0) continue;
    const HostCell* host_cell = host.find_cell(cell.host_cell);
    std::uint64_t room = 0;
    if (cell.pagesize_kib > 4) {
      for (const auto& pool : host_cell->pages) {
        room += pool.size_kib == static_cast<std::uint64_t>(cell.pagesize_kib) ? pool.free() * pool.size_kib : 0;
      }
    } else {
      room = strict_memory_room_kib(host, *host_cell);
    }
    if (room < cell.memory_kib + devices) {
      return make_error("NoFit", "guest '" + name + "' does not fit this host: host cell " +
                                     std::to_string(cell.host_cell) + " holds guest cell " +
                                     std::to_string(cell.guest_cell) + " (" + mib_text(cell.memory_kib) +
                                     ") but not its memory devices (" + mib_text(devices) + " more; " +
                                     mib_text(room) + " free)");
    }
  }
  return Done{};
}

// The CPUs of every host cell the guest may use at all, within the operator's pins.
CpuSet host_cpus_of(const HostTopology& host) {
  CpuSet cpus;
  for (const auto& cell : host.cells) cpus = cpus.united(cell.cpus);
  return cpus;
}

std::string within_text(const OperatorConstraints& constraints) {
  std::string elements;
  const auto add = [&](bool present, const char* element) {
    if (present) elements += (elements.empty() ? "" : ", ") + std::string(element);
  };
  add(constraints.vcpu_cpuset.has_value(), "<vcpu cpuset>");
  add(!constraints.vcpupins.empty(), "<vcpupin>");
  add(constraints.emulatorpin.has_value(), "<emulatorpin>");
  return elements.empty() ? "" : " (within the domain's own pins: " + elements + ")";
}

// Everything one placement reads once and its steps share.
struct Placing {
  const HostTopology& host;
  const PlaceRequest& request;
  const std::string& what;
  xml::Document doc;
  xml::DomainSummary summary;
  xml::DomainBindings bindings;
  OperatorConstraints constraints;
  xml::StoredRequest stored;
  GuestRequest guest;
  FloatingGuest floating;
  std::vector<std::string> pci_addresses;  // every device the guest is given, once, canonical
  HostTopology view;                       // the host within the CPUs the operator's pins allow
  PlaceOutcome outcome;
  GuestTuning tuning;                      // what the request asks besides the placement
  bool had_tuning = false;                 // the domain's record said what numaplace wrote before
  xml::WrittenTuning written;              // what this placement wrote of `tuning`
};

std::string size_text(const Placing& p, std::uint64_t memory_kib) {
  return "guest '" + p.summary.name + "' (" + count_of(p.summary.vcpus, "vCPU") + ", " + mib_text(memory_kib) + ")";
}

// The request: the one asked for, else the one the domain's metadata stores.
Status read_request(Placing& p) {
  // The request is written into the domain's metadata: text XML cannot hold is refused here, before
  // anything is written, not copied into a document that then does not parse.
  for (const auto& [specs, what] : {std::pair{&p.request.flavor_specs, "flavor spec"},
                                    std::pair{&p.request.image_props, "image property"}}) {
    for (const auto& [key, value] : *specs) {
      if (auto problem = xml::xml_text_problem(key)) {
        return make_error("InvalidSpecText", std::string(what) + " key '" + printable_text(key) + "' " + *problem +
                                                 "; give keys and values as UTF-8 text without control characters");
      }
      if (auto problem = xml::xml_text_problem(value)) {
        return make_error("InvalidSpecText", std::string(what) + " '" + printable_text(key) + "' " + *problem +
                                                 "; give keys and values as UTF-8 text without control characters");
      }
    }
  }
  p.stored = {p.request.flavor_specs, p.request.image_props, {}, {}, {}};
  for (const auto& text : p.request.pci_addresses) {
    auto address = pci_address(text);
    if (!address) return address.error();
    if (std::find(p.stored.pci_addresses.begin(), p.stored.pci_addresses.end(), *address) == p.stored.pci_addresses.end()) {
      p.stored.pci_addresses.push_back(std::move(*address));
    }
  }
  if (p.request.flavor_specs.empty() && p.request.image_props.empty() && p.request.pci_addresses.empty()) {
    auto from_metadata = xml::read_stored_request(p.doc.get(), p.what);
    if (!from_metadata) return from_metadata.error();
    if (*from_metadata) {
      p.stored = std::move(**from_metadata);
      p.outcome.request_from_metadata = true;
    }
  } else if (auto before = xml::read_stored_request(p.doc.get(), p.what); before && *before) {
    // The request asked for replaces the stored one whole: a device an earlier --pci gave is said
    // to leave it (a bad record is named where the placement record is read).
    for (const auto& address : (*before)->pci_addresses) {
      if (std::find(p.stored.pci_addresses.begin(), p.stored.pci_addresses.end(), address) != p.stored.pci_addresses.end()) {
        continue;
      }
      p.outcome.warnings.push_back("PCI device " + address + ", which the domain's stored request gives the guest "
                                   "(an earlier --pci), is not in this request, so it is no longer counted as the "
                                   "guest's; give --pci " + address + " again to keep it");
    }
  }
  p.guest.vcpus = p.summary.vcpus;
  // <memory> includes the memory devices (DIMMs, NVDIMMs, virtio-mem); the guest's NUMA cells
  // hold the rest, the boot memory, and libvirt adds the devices on top of them.
  if (p.summary.memory_device_kib >= p.summary.memory_kib) {
    return make_error("InvalidDomain", p.what + ": its memory devices (" + std::to_string(p.summary.memory_device_kib) +
                                           " KiB) take all of <memory> (" + std::to_string(p.summary.memory_kib) +
                                           " KiB), which includes them; leave memory for the guest to boot with");
  }
  p.guest.memory_kib = xml::boot_memory_kib(p.summary);
  // With <cpu><numa> cells libvirt boots the guest with their sum, whatever <memory> says, and
  // sets <memory> to that sum plus the devices: placing <memory>'s figure would shrink or grow it.
  if (const std::uint64_t written = p.summary.memory_kib - p.summary.memory_device_kib; p.guest.memory_kib != written) {
    p.outcome.warnings.push_back(
        "the domain's <memory> (" + std::to_string(p.summary.memory_kib) + " KiB" +
        (p.summary.memory_device_kib > 0
             ? ", of which its memory devices take " + std::to_string(p.summary.memory_device_kib) + " KiB"
             : std::string()) +
        ") disagrees with its <cpu><numa> cells (" + std::to_string(p.guest.memory_kib) + " KiB in all); libvirt "
        "boots the guest with the cells' memory, so numaplace places " + std::to_string(p.guest.memory_kib) + " KiB");
  }
  p.guest.flavor_specs = p.stored.flavor_specs;
  p.guest.image_props = p.stored.image_props;

  // What a confinement binds: the boot memory and the RAM-backed devices without a nodemask; and
  // where the operator's pins reach.
  std::uint64_t confined_memory = p.guest.memory_kib;
  for (const auto& device : p.bindings.memory_devices) confined_memory += device.nodemask ? 0 : device.size_kib;
  p.floating = FloatingGuest{p.summary.vcpus, confined_memory, 0, {}, {}};  // its page: confined_page_kib
  for (const auto& [vcpu, cpus] : p.constraints.vcpupins) {
    CpuSet cells;
    for (const auto& cell : p.host.cells) {
      if (cell.cpus.intersects(cpus)) cells.insert(cell.id);
    }
    p.floating.pinned_vcpu_cells.emplace_back("vcpupin:" + std::to_string(vcpu), cells);
  }
  return Done{};
}

// The PCI devices the guest is given (<hostdev>s and the request's), each once: this very device,
// where it is (its own NUMA node counts, not a pool of identical ones elsewhere), and nobody's.
Status read_devices(Placing& p) {
  for (const std::vector<std::string>* list : {&std::as_const(p.summary.pci_hostdevs), &std::as_const(p.stored.pci_addresses)}) {
    for (const auto& address : *list) {
      if (std::find(p.pci_addresses.begin(), p.pci_addresses.end(), address) == p.pci_addresses.end()) {
        p.pci_addresses.push_back(address);
      }
    }
  }
  for (const auto& address : p.pci_addresses) {
    const PciDevice* device = nullptr;
    for (const auto& d : p.host.pci) {
      if (canonical_pci_address(d.address).value_or(d.address) == address) device = &d;
    }
    if (device == nullptr) {
      p.outcome.warnings.push_back("PCI device " + address + " of the domain is not among the host's devices; "
                                   "its NUMA locality is unknown");
      p.floating.pci_device_nodes.push_back(std::nullopt);
      continue;
    }
    if (device->allocated) {
      return make_error("PciDeviceHeld", "PCI device " + address + " of '" + p.summary.name + "' is held by " +
                                             (device->held_by.empty() ? std::string("the host (allocated)")
                                                                      : "guest '" + device->held_by + "'") +
                                             "; give the guest another device, or free that one first");
    }
    p.floating.pci_device_nodes.push_back(device->numa_node);
    p.guest.pci.push_back({1, device->vendor_id, device->product_id, "", device->address, {}});
  }
  return Done{};
}

// The guest's NUMA topology by Nova's rules. A guest the domain backs with huge pages
// (<memoryBacking><hugepages>) asks for that page size when the request names none; otherwise
// the fit would count small pages for it.
Result<std::optional<GuestTopology>> derive_topology(Placing& p) {
  auto topology = derive_guest_topology(p.guest);
  if (!topology || !topology->has_value()) return topology;
  // The page sizes the domain gives the guest cells the topology has (the writer drops the
  // <page>s of the others), as libvirt would back them.
  const std::set<std::uint64_t> sizes =
      xml::page_sizes_of_cells(p.summary.pages, static_cast<std::uint32_t>((**topology).cells.size()));
  if (p.summary.pages.page_elements > 0 && names_page_size(p.guest)) {
    p.outcome.warnings.push_back("the domain's <memoryBacking><hugepages> <page> elements are replaced by the page "
                                 "sizes the request names (hw:mem_page_size, numaplace:mem_page_size.N), which the "
                                 "fit checks");
  }
  if (!p.summary.pages.hugepages || names_page_size(p.guest)) return topology;
  if (sizes.size() == 1 && *sizes.begin() > 4) {
    const std::uint64_t size = *sizes.begin();
    p.guest.flavor_specs["hw:mem_page_size"] = std::to_string(size);
    p.outcome.warnings.push_back("the domain's <memoryBacking><hugepages> asks for " + std::to_string(size) +
                                 " KiB pages: placed as hw:mem_page_size=" + std::to_string(size));
    return derive_guest_topology(p.guest);
  } else if (sizes.size() > 1) {
    p.outcome.warnings.push_back("the domain's <memoryBacking><hugepages> gives guest cells their own page sizes; "
                                 "numaplace fits the cells on small pages and keeps those <page> elements (pages "
                                 "of guest cells the new topology lacks are dropped): ask with hw:mem_page_size to "
                                 "have huge pages checked");
  } else if (*sizes.begin() == 0 && p.summary.pages.page_elements > 0) {
    p.outcome.warnings.push_back("the domain's <memoryBacking><hugepages> backs none of the new topology's guest "
                                 "cells: its <page> elements name only others, and pages of guest cells the new "
                                 "topology lacks are dropped; the cells fit on small pages");
  }
  return topology;
}

// Each <numatune> nodeset against the host's NUMA nodes: one naming none of them is
// ConflictingConstraint (libvirt could not bind the memory anywhere), nodes the host lacks beside
// ones it has are a warning (the placement stays within the ones it has).
// `guest_cells`: the cells of the guest's new topology (a <memnode> of another cell is dropped, and
// said, when the placement is written), nullopt for a guest without one (its <memnode>s stay).
Status check_nodesets(Placing& p, std::optional<std::size_t> guest_cells) {
  CpuSet host_nodes;
  for (const auto& cell : p.host.cells) host_nodes.insert(cell.id);
  std::vector<std::pair<std::string, CpuSet>> nodesets;
  if (p.constraints.memory.nodeset) nodesets.emplace_back("<numatune><memory", *p.constraints.memory.nodeset);
  for (const auto& [cell, binding] : p.constraints.memnodes) {
    if (guest_cells && cell >= *guest_cells) continue;
    if (binding.nodeset) nodesets.emplace_back("<memnode cellid='" + std::to_string(cell) + "'", *binding.nodeset);
  }
  for (const auto& [element, nodeset] : nodesets) {
    const CpuSet missing = nodeset.minus(host_nodes);
    if (missing.empty()) continue;
    const std::string named = element + " nodeset='" + to_cpu_list(nodeset) + "'>";
    if (!nodeset.intersects(host_nodes)) {
      return make_error("ConflictingConstraint", p.what + ": " + named + " names no NUMA node of this host (it has " +
                                                     to_cpu_list(host_nodes) + "); bind the memory to nodes it has");
    }
    p.outcome.warnings.push_back("the domain's " + named + " names NUMA nodes " + to_cpu_list(missing) +
                                 ", which this host does not have; placed within " +
                                 to_cpu_list(nodeset.intersected(host_nodes)));
  }
  return Done{};
}

// The writer keeps each operator's <iothreadpin> within the emulator's pCPUs, or moves it onto
// them when it shares none: said, since the pin the operator wrote is then not what runs.
void warn_moved_iothreads(Placing& p) {
  if (p.constraints.iothreadpins.empty()) return;
  auto written = xml::read_domain_bindings(p.doc.get(), p.what, p.summary.vcpus);
  if (!written) return;
  for (const auto& [id, wanted] : p.constraints.iothreadpins) {
    const auto now = written->threads.iothreadpins.find(id);
    if (now == written->threads.iothreadpins.end() || now->second == wanted) continue;
    const std::string element = "<iothreadpin iothread='" + std::to_string(id) + "' cpuset='" + to_cpu_list(wanted) + "'>";
    p.outcome.warnings.push_back(
        "the domain's " + element + (now->second.intersects(wanted) ? " is narrowed to " : " is moved onto ") +
        to_cpu_list(now->second) + ", the emulator's pCPUs" +
        (now->second.intersects(wanted) ? "" : " (it shares none with them: iothreads run beside the emulator)"));
  }
}

// An interleaved binding narrowed to fewer nodes than the operator listed interleaves less than was
// asked (over one node, not at all): said, since the mode is kept and the nodeset alone changes.
void warn_narrowed_interleave(Placing& p, const CpuSet& nodes) {
  const auto& memory = p.constraints.memory;
  if (memory.mode != "interleave" || !memory.nodeset || nodes == *memory.nodeset) return;
  p.outcome.warnings.push_back("the domain's <numatune><memory mode='interleave' nodeset='" + to_cpu_list(*memory.nodeset) +
                               "'> now interleaves over host cells " + to_cpu_list(nodes) +
                               " only, those the guest was placed on");
}

// A confinement the operator's own elements allow: within the <numatune> nodeset, every
// <vcpupin> and the <emulatorpin> reaching a pCPU of it.
Status check_confinement(const Placing& p, const DefaultPlacement& confined, const CpuSet& nodes,
                         const CpuSet& cell_cpus) {
  const auto& constraints = p.constraints;
  if (constraints.memory.nodeset && !nodes.is_subset_of(*constraints.memory.nodeset)) {
    return make_error("ConflictingConstraint",
                      p.what + ": <numatune><memory nodeset='" + to_cpu_list(*constraints.memory.nodeset) +
                          "'> leaves out host cells " + to_cpu_list(nodes.minus(*constraints.memory.nodeset)) +
                          ", which the guest's memory, vCPUs and devices need (" + confined.reason + ")");
  }
  // The operator's <vcpu cpuset> bounds the vCPUs without a <vcpupin>, the emulator without an
  // <emulatorpin> and the iothreads, as libvirt reads it: the confinement must leave it a pCPU.
  if (constraints.vcpu_cpuset && !constraints.vcpu_cpuset->intersects(confined.cpus)) {
    return make_error("ConflictingPin", p.what + ": <vcpu cpuset='" + to_cpu_list(*constraints.vcpu_cpuset) +
                                            "'> shares no pCPU with host cells " + to_cpu_list(nodes) +
                                            ", where the guest is confined (" + to_cpu_list(confined.cpus) +
                                            "); widen or remove it");
  }
  for (const auto& [vcpu, cpus] : constraints.vcpupins) {
    if (!cpus.intersects(confined.cpus)) {
      return make_error("ConflictingPin", p.what + ": <vcpupin vcpu='" + std::to_string(vcpu) + "' cpuset='" +
                                              to_cpu_list(cpus) + "'> shares no pCPU with host cells " +
                                              to_cpu_list(nodes) + ", where the guest is confined (" +
                                              to_cpu_list(confined.cpus) + "); widen or remove it");
    }
  }
  if (constraints.emulatorpin && !constraints.emulatorpin->intersects(cell_cpus)) {
    return make_error("ConflictingPin", p.what + ": <emulatorpin cpuset='" + to_cpu_list(*constraints.emulatorpin) +
                                            "'> shares no pCPU with host cells " + to_cpu_list(nodes) +
                                            ", where the guest is confined; widen or remove it");
  }
  return Done{};
}

// A guest without a NUMA topology confined to host cells under the topology policy; the record
// of its memory per cell when it was.
Result<std::optional<xml::ConfinementRecord>> confine(Placing& p) {
  // Within the operator's memory nodeset: the hints are merged over the cells it allows.
  const HostTopology within = p.constraints.memory.nodeset ? host_on_nodes(p.view, *p.constraints.memory.nodeset) : p.view;
  auto confined = place_floating_guest(within, p.floating, p.request.floating, p.pci_addresses);
  if (!confined) {
    if (confined.error().name != "NoFit") return confined.error();
    return make_error("NoFit", size_text(p, p.floating.memory_kib) + " does not fit this host: " +
                                   confined.error().message + within_text(p.constraints));
  }
  std::optional<xml::ConfinementRecord> record;
  if (confined->cells) {
    CpuSet nodes;  // libvirt's canonical range syntax, "0-1" rather than "0,1"
    for (std::uint32_t node : confined->cells->nodes()) nodes.insert(node);
    if (confined->cpus.empty()) {
      return make_error("NoFit", size_text(p, p.floating.memory_kib) + " does not fit this host: host cells " +
                                     to_cpu_list(nodes) + ", which hold its memory, have no CPU left for "
                                     "floating guests (dedicated guests hold them, or the host configuration "
                                     "gives them none)" + within_text(p.constraints));
    }
    CpuSet cell_cpus;  // the emulator may use every floating CPU of the cells, not only the vCPUs'
    for (const auto& cell : p.host.cells) {
      if (nodes.contains(cell.id)) cell_cpus = cell_cpus.united(floating_cpus_of(p.host, cell));
    }
    if (auto allowed = check_confinement(p, *confined, nodes, cell_cpus); !allowed) return allowed.error();
    for (auto& note : xml::write_confinement(p.doc.get(), nodes, confined->cpus, cell_cpus, p.constraints)) {
      p.outcome.warnings.push_back("the domain's " + note + ", the host cells and pCPUs it is confined to");
    }
    warn_narrowed_interleave(p, nodes);
    record = xml::ConfinementRecord{nodes, confined->memory_split};
  }
  p.outcome.confinement = std::move(*confined);
  return record;
}

// A guest confined to no cells (--policy none, or no mask chosen) still keeps off the pCPUs
// dedicated guests hold: its <vcpu cpuset>, and each <vcpupin> and <emulatorpin> the operator
// wrote, narrowed off them (said), or ConflictingPin when one would keep no pCPU.
Status keep_off_held_cpus(Placing& p) {
  CpuSet floating_cpus;
  for (const auto& cell : p.view.cells) floating_cpus = floating_cpus.united(floating_cpus_of(p.view, cell));
  if (floating_cpus == host_cpus_of(p.host)) return Done{};
  if (floating_cpus.empty()) {
    return make_error("NoFit", "guest '" + p.summary.name + "' does not fit this host: every pCPU it may use is "
                               "held by a dedicated guest" + within_text(p.constraints));
  }
  CpuSet host_floating;  // the pins are the operator's own bounds: checked against the whole host's
  for (const auto& cell : p.host.cells) host_floating = host_floating.united(floating_cpus_of(p.host, cell));
  const CpuSet held = host_cpus_of(p.host).minus(host_floating);
  auto pin_keeps_a_pcpu = [&](const std::string& element, const CpuSet& cpus) -> Status {
    if (cpus.intersects(host_floating)) return Done{};
    return make_error("ConflictingPin", p.what + ": " + element + " runs only on pCPUs " + to_cpu_list(cpus) +
                                            ", which dedicated guests hold (or the host keeps from guests); pin it "
                                            "onto one of " + to_cpu_list(host_floating) + ", or remove it");
  };
  for (const auto& [vcpu, cpus] : p.bindings.threads.vcpupins) {
    // A 1:1 pin holds its pCPU for this guest (check_pin_collisions refused one onto another's).
    if (cpus.size() == 1 && !held.contains(cpus.first())) continue;
    const std::string element = "<vcpupin vcpu='" + std::to_string(vcpu) + "' cpuset='" + to_cpu_list(cpus) + "'>";
    if (auto kept = pin_keeps_a_pcpu(element, cpus); !kept) return kept.error();
  }
  if (const auto& emulator = p.bindings.threads.emulatorpin) {
    if (auto kept = pin_keeps_a_pcpu("<emulatorpin cpuset='" + to_cpu_list(*emulator) + "'>", *emulator); !kept) {
      return kept.error();
    }
  }
  for (const auto& change : xml::narrow_threads(p.doc.get(), held, host_cpus_of(p.host))) {
    if (change.rfind("<vcpu cpuset>", 0) == 0) continue;  // set below, and said there
    p.outcome.warnings.push_back("the domain's " + change + ", off the pCPUs dedicated guests hold");
  }
  xmlNode* vcpu = xml::first_child(xmlDocGetRootElement(p.doc.get()), "vcpu");
  xmlSetProp(vcpu, reinterpret_cast<const xmlChar*>("placement"), reinterpret_cast<const xmlChar*>("static"));
  xmlSetProp(vcpu, reinterpret_cast<const xmlChar*>("cpuset"),
             reinterpret_cast<const xmlChar*>(to_cpu_list(floating_cpus).c_str()));
  p.outcome.warnings.push_back("not confined to NUMA cells, but kept off the pCPUs dedicated guests hold: "
                               "<vcpu cpuset='" + to_cpu_list(floating_cpus) + "'>");
  return Done{};
}

// The operator's 1:1 pins hold their pCPUs, as the guest's claim reads them later: never one a
// dedicated guest holds, and other guests' threads leave them.
CpuSet operator_held_pins(const Placing& p) {
  CpuSet held;
  for (const auto& [vcpu, cpus] : p.constraints.vcpupins) {
    if (cpus.size() == 1) held.insert(cpus.first());
  }
  return held;
}

// PinningCollision when the operator's 1:1 pins take a pCPU another guest holds, naming the guest
// when the caller gave the others' claims; checked before the guest is confined, whose cells
// leave such pCPUs out and would only report the pin as outside them.
Status check_pin_collisions(const Placing& p) {
  const CpuSet held = operator_held_pins(p);
  CpuSet others_held;
  for (const auto& cell : p.host.cells) others_held = others_held.united(cell.usage.pinned_cpus);
  const CpuSet taken = held.intersected(others_held);
  if (taken.empty()) return Done{};
  std::vector<std::string> holders;
  if (p.request.other_guests != nullptr) {
    for (const auto& other : *p.request.other_guests) {
      if (other.held_cpus().intersects(taken)) holders.push_back("'" + other.name + "'");
    }
  }
  std::string who = holders.empty() ? "dedicated guests hold" : holders.size() == 1 ? "guest " + holders[0] + " holds" : "guests";
  for (std::size_t i = 0; holders.size() > 1 && i < holders.size(); ++i) who += (i == 0 ? " " : ", ") + holders[i];
  if (holders.size() > 1) who += " hold";
  return make_error("PinningCollision", p.what + ": its <vcpupin> elements pin vCPUs onto pCPUs " + to_cpu_list(taken) +
                                            ", which " + who + "; pin them elsewhere, or move that guest");
}

// The pins and memory bindings as this placement leaves them, kept in the record so that the next
// placement tells an operator's later edit from numaplace's own output.
std::optional<OperatorConstraints> elements_as_written(const Placing& p) {
  auto bindings = xml::read_domain_bindings(p.doc.get(), p.what, p.summary.vcpus);
  if (!bindings) return std::nullopt;  // written by numaplace itself, so read before; kept unrecorded
  return xml::constraints_as_written(*bindings);
}

// The caller has checked them against other guests' pCPUs (check_pin_collisions).
Status hold_operator_pins(Placing& p) {
  const CpuSet held = operator_held_pins(p);
  p.outcome.held = held;
  if (p.request.other_guests != nullptr) {
    auto narrowings = plan_narrowing(*p.request.other_guests, held, p.summary.name);
    if (!narrowings) return narrowings.error();
    p.outcome.narrowings = std::move(*narrowings);
  }
  return Done{};
}

// Locked memory without a <memtune><hard_limit>: libvirt cannot know how much memory QEMU itself
// will lock, so it lifts the guest's memlock limit altogether, and nothing bounds what the guest
// pins in host RAM. numaplace does not guess a hard limit (it caps the whole QEMU process, and an
// overhead too small has the guest killed); it says so, and an operator's <memtune> stays as written.
void warn_unbounded_lock(Placing& p) {
  if (!p.tuning.locked_memory) return;
  const xmlNode* memtune = xml::first_child(xmlDocGetRootElement(p.doc.get()), "memtune");
  if (xml::first_child(memtune, "hard_limit") != nullptr) return;
  p.outcome.warnings.push_back("the guest's memory is locked (<memoryBacking><locked/>) without a <memtune><hard_limit>: "
                               "libvirt then lifts QEMU's memlock limit altogether, so nothing bounds the host RAM "
                               "the guest pins; add a <memtune><hard_limit> of the guest's memory plus QEMU's "
                               "overhead for this workload (libvirt's advice for <locked/>)");
}

// A confined guest keeps its cells and their <page>s, so its memory is bound in the one page size
// they all use (0: small pages).
Result<std::uint64_t> confined_page_kib(const Placing& p) {
  const std::set<std::uint64_t> page_sizes =
      xml::page_sizes_of_cells(p.bindings.pages, static_cast<std::uint32_t>(p.bindings.cells.size()));
  if (page_sizes.size() > 1) {
    std::string sizes;
    for (std::uint64_t size : page_sizes) sizes += (sizes.empty() ? "" : " and ") + std::to_string(size == 0 ? 4 : size);
    return make_error("ConflictingConstraint",
                      p.what + ": its <cpu><numa> cells are backed by pages of " + sizes + " KiB (<hugepages><page "
                          "nodeset>), but the request asks for no NUMA topology, so numaplace would confine the guest's "
                          "memory as a whole in one page size; ask for the cells with hw:numa_nodes, or give every "
                          "cell one page size, or leave the guest unconfined (policy none)");
  }
  return *page_sizes.begin();
}

Result<PlaceOutcome> place_without_topology(Placing& p) {
  if (!p.bindings.memnodes.empty()) {
    return make_error("ConflictingConstraint",
                      p.what + ": <numatune><memnode cellid='" + std::to_string(p.bindings.memnodes.begin()->first) +
                          "'> binds a guest cell's memory itself, but the request asks for no NUMA topology, so "
                          "numaplace confines the guest as a whole; remove the <memnode> elements, or ask for the "
                          "cells with hw:numa_nodes");
  }
  // libvirt backs a memory device from its guest cell, and a confined guest keeps the cells it has.
  if (!p.bindings.device_guest_nodes.empty() && p.bindings.cells.empty()) {
    const auto& device = p.bindings.device_guest_nodes.front();
    return make_error("ConflictingConstraint",
                      p.what + ": " + device.element + " sits on guest cell " + std::to_string(device.guest_node) +
                          " (<target><node>), but the guest has no <cpu><numa> cells and the request asks for no "
                          "NUMA topology; ask for the cells with hw:numa_nodes, or remove the device's <node>");
  }
  std::optional<xml::ConfinementRecord> record;
  if (p.host.accounting == Accounting::Exclusive) {
    if (auto collisions = check_pin_collisions(p); !collisions) return collisions.error();
  }
  if (p.request.floating.policy != TopologyPolicy::None) {
    if (auto page = confined_page_kib(p); !page) {
      return page.error();
    } else {
      p.floating.hugepage_kib = *page;
    }
    auto confined = confine(p);
    if (!confined) return confined.error();
    record = std::move(*confined);
  }
  if (auto pins = check_iothread_pins(p.host, p.bindings, p.what); !pins) return pins.error();
  if (p.host.accounting == Accounting::Exclusive) {
    if (!record) {
      if (auto kept = keep_off_held_cpus(p); !kept) return kept.error();
    }
    if (auto held = hold_operator_pins(p); !held) return held.error();
  }
  p.written = xml::write_tuning(p.doc.get(), p.tuning);
  warn_unbounded_lock(p);
  if (!p.stored.flavor_specs.empty() || !p.stored.image_props.empty() || !p.stored.pci_addresses.empty() || record ||
      !p.constraints.empty() || !p.written.empty() || p.had_tuning) {
    const auto as_written = elements_as_written(p);
    xml::write_record(p.doc.get(), p.stored,
                      {nullptr, record ? &*record : nullptr, &p.constraints, as_written ? &*as_written : nullptr, &p.written});
  }
  p.outcome.domain_xml = xml::serialize(p.doc.get());
  return std::move(p.outcome);
}

// The placement recorded for this very request, when the domain has one and it may be kept.
Result<std::optional<Placement>> recorded_placement(const Placing& p) {
  if (!p.request.keep_recorded) return std::optional<Placement>{};
  auto record_request = xml::read_stored_request(p.doc.get(), p.what);
  if (!record_request) return record_request.error();
  if (!*record_request || (*record_request)->flavor_specs != p.stored.flavor_specs ||
      (*record_request)->image_props != p.stored.image_props ||
      (*record_request)->pci_addresses != p.stored.pci_addresses) {
    return std::optional<Placement>{};
  }
  return xml::read_placement_record(p.doc.get(), p.what);
}

// Moves the fit's explanation to the caller's `sink`, when both exist: the last fit's wins.
FitResult hand_over_explanation(FitResult fit, FitExplanation* sink) {
  if (sink != nullptr && fit.explanation) *sink = std::move(*fit.explanation);
  return fit;
}

Result<PlaceOutcome> place_with_topology(Placing& p, const GuestTopology& topology) {
  // libvirt backs a memory device from its guest cell, which the new topology must have.
  for (const auto& device : p.bindings.device_guest_nodes) {
    if (device.guest_node >= topology.cells.size()) {
      return make_error("ConflictingConstraint",
                        p.what + ": " + device.element + " sits on guest cell " + std::to_string(device.guest_node) +
                            " (<target><node>), but the request gives the guest " +
                            count_of(topology.cells.size(), "cell") + "; ask for more cells (hw:numa_nodes) or give "
                            "the device a <node> below " + std::to_string(topology.cells.size()));
    }
  }
  auto recorded = recorded_placement(p);
  if (!recorded) return recorded.error();
  FitOptions options = p.request.fit;
  options.explain = options.explain || p.request.explanation != nullptr;
  for (auto& limit : host_cell_limits(p.constraints)) options.host_cell_limits.push_back(std::move(limit));
  const GuestTopology bounded = with_thread_bounds(topology, p.constraints, host_cpus_of(p.view));
  const auto fit_on = [&](const HostTopology& on) {
    if (*recorded) {
      Replacement again = place_again(on, bounded, **recorded, options);
      p.outcome.replacement = {again.kind, std::move(again.repinned), std::move(again.why), std::move(again.refreshed)};
      return hand_over_explanation(std::move(again.fit), p.request.explanation);
    }
    return hand_over_explanation(fit_guest(on, bounded, options), p.request.explanation);
  };
  FitResult fit = fit_on(p.view);
  const bool exclusive = p.request.other_guests != nullptr && p.host.accounting == Accounting::Exclusive;
  // A pinning that would leave another guest's thread with no pCPU is tried again with one pCPU of
  // that thread kept out of reach, as long as the guest still fits: refused only when unavoidable.
  if (fit.placement && exclusive) {
    HostTopology sparing = p.view;
    // What is said of the attempt kept, not of a later one given up.
    RecordedPlacementUse kept_use = p.outcome.replacement;
    std::optional<FitExplanation> kept_explanation;
    if (p.request.explanation != nullptr) kept_explanation = *p.request.explanation;
    for (std::size_t spared = 0; spared < 64; ++spared) {
      const ThreadAffinity* starving = starving_thread(*p.request.other_guests, fit.placement->held_cpus());
      if (starving == nullptr) break;
      const std::uint32_t keep = starving->cpus.last();
      for (auto& cell : sparing.cells) {
        if (cell.cpus.contains(keep)) cell.usage.pinned_cpus.insert(keep);
      }
      FitResult again = fit_on(sparing);
      if (!again.placement) break;  // only a starving placement fits: plan_narrowing names it below
      fit = std::move(again);
      kept_use = p.outcome.replacement;
      if (p.request.explanation != nullptr) kept_explanation = *p.request.explanation;
    }
    p.outcome.replacement = std::move(kept_use);
    if (p.request.explanation != nullptr) *p.request.explanation = std::move(*kept_explanation);
  }
  p.outcome.rejections = fit.rejections;
  if (!fit.placement) {
    return make_error("NoFit", size_text(p, p.guest.memory_kib) + " does not fit this host" +
                                   within_text(p.constraints) + ": " + explain_no_fit(fit));
  }
  const CpuSet emulator = emulator_cpus(p.host, *fit.placement, p.tuning.realtime_vcpus);
  if (emulator.empty()) {
    return make_error("NoFit", size_text(p, p.guest.memory_kib) +
                                   " has every vCPU realtime, and its host cells have no shared CPU left for its "
                                   "emulator threads; leave a vCPU out of hw:cpu_realtime_mask or use "
                                   "hw:emulator_threads_policy=isolate");
  }
  if (auto pins = check_pins(p.constraints, *fit.placement, emulator); !pins) {
    return make_error(pins.error().name, p.what + ": " + pins.error().message);
  }
  if (auto devices = check_cell_device_memory(p.view, p.bindings, *fit.placement, p.summary.name); !devices) {
    return devices.error();
  }
  p.outcome.held = fit.placement->held_cpus();
  if (exclusive) {
    auto narrowings = plan_narrowing(*p.request.other_guests, p.outcome.held, p.summary.name);
    if (!narrowings) return narrowings.error();
    p.outcome.narrowings = std::move(*narrowings);
  }
  p.written = xml::write_placement(p.doc.get(), p.host, *fit.placement, p.constraints, p.tuning);
  warn_moved_iothreads(p);
  CpuSet placed_nodes;
  for (const auto& cell : fit.placement->cells) placed_nodes.insert(cell.host_cell);
  warn_narrowed_interleave(p, placed_nodes);
  for (const auto& [cell, binding] : p.constraints.memnodes) {
    if (cell < fit.placement->cells.size()) continue;
    p.outcome.warnings.push_back("the domain's <memnode cellid='" + std::to_string(cell) + "'> is dropped: the guest "
                                 "now has " + count_of(fit.placement->cells.size(), "NUMA cell") +
                                 ", and libvirt refuses a <memnode> of a cell the guest lacks");
  }
  // Nova's rule lets shared cells overcommit a cell's memory up to the RAM ratio, but the binding is
  // strict: past the cell's small pages the kernel cannot hold it all there. Allowed, and said.
  for (const auto& placed : fit.placement->cells) {
    const HostCell* cell = p.host.find_cell(placed.host_cell);
    if (cell == nullptr || placed.pagesize_kib > 4 || p.host.accounting != Accounting::Exclusive) continue;
    const std::uint64_t room = strict_memory_room_kib(p.host, *cell);
    if (placed.memory_kib <= room) continue;
    std::ostringstream ratio;
    ratio << p.host.ratio.ram;
    const std::string ratio_text = ratio.str();
    p.outcome.warnings.push_back(
        "host cell " + std::to_string(cell->id) + " has " + mib_text(room) + " of memory physically free and guest cell " +
        std::to_string(placed.guest_cell) + " binds " + mib_text(placed.memory_kib) + " to it strictly: the RAM ratio (" +
        ratio_text + ") lets shared guests overcommit a cell, as Nova counts, but the kernel cannot "
        "hold it all there (audit: CellMemoryOvercommitted); ram_allocation_ratio = 1.0 in the host configuration "
        "refuses such a placement");
  }
  // The operator's own cells, resized by the request (hw:numa_nodes splits the guest evenly unless
  // hw:numa_cpus.N / hw:numa_mem.N say otherwise): said, never silently.
  for (const auto& written : p.bindings.cells) {
    for (const auto& placed : fit.placement->cells) {
      if (placed.guest_cell != written.id) continue;
      if (placed.guest_cpus == written.cpus && placed.memory_kib == written.memory_kib) continue;
      p.outcome.warnings.push_back(
          "the domain's <cpu><numa><cell id='" + std::to_string(written.id) + "'> (vCPUs " +
          (written.cpus.empty() ? std::string("none") : to_cpu_list(written.cpus)) + ", " + mib_text(written.memory_kib) +
          ") is now vCPUs " + (placed.guest_cpus.empty() ? std::string("none") : to_cpu_list(placed.guest_cpus)) + ", " +
          mib_text(placed.memory_kib) + ", as the request gives the guest's cells; give hw:numa_cpus.N and "
          "hw:numa_mem.N to keep the cells as written");
    }
  }
  for (const auto& cell : p.written.dropped_cells) {
    p.outcome.warnings.push_back("the domain's " + cell + " is dropped: the guest now has " +
                                 count_of(fit.placement->cells.size(), "NUMA cell") +
                                 "; set what it said on the cells the guest keeps if the guest needs it");
  }
  warn_unbounded_lock(p);
  const auto as_written = elements_as_written(p);
  xml::write_record(p.doc.get(), p.stored,
                    {&*fit.placement, nullptr, &p.constraints, as_written ? &*as_written : nullptr, &p.written});
  p.outcome.placement = std::move(fit.placement);
  p.outcome.domain_xml = xml::serialize(p.doc.get());
  return std::move(p.outcome);
}

}  // namespace

Result<PlaceOutcome> place_domain(const HostTopology& host, const PlaceRequest& request) {
  const std::string& what = request.domain_name_for_errors;
  auto doc = xml::parse_document(request.domain_xml, what);
  if (!doc) return doc.error();
  // What numaplace wrote for the last request is taken back first: the domain is then as the
  // operator wrote it, and this request's tuning is written onto that.
  auto written_before = xml::read_tuning_record(doc->get(), what);
  if (!written_before) return written_before.error();
  xml::undo_tuning(doc->get(), *written_before);
  auto summary = xml::read_domain_summary(doc->get(), what);
  if (!summary) return summary.error();
  auto bindings = xml::read_domain_bindings(doc->get(), what, summary->vcpus);
  if (!bindings) return bindings.error();
  std::vector<std::string> edits;
  auto constraints = xml::read_operator_constraints(doc->get(), *bindings, what, edits);
  if (!constraints) return constraints.error();
  if (auto checked = check_operator_pins(host, *bindings, what); !checked) return checked.error();

  Placing p{host, request, what, std::move(*doc), std::move(*summary), std::move(*bindings), std::move(*constraints),
            {}, {}, {}, {}, {}, {}, {}, !written_before->empty(), {}};
  p.outcome.domain_name = p.summary.name;
  for (auto& edit : edits) p.outcome.warnings.push_back(std::move(edit));
  p.outcome.domain_uuid = p.summary.uuid;
  if (auto read = read_request(p); !read) return read.error();
  if (auto read = read_devices(p); !read) return read.error();
  auto topology = derive_topology(p);
  if (!topology) return topology.error();
  const auto guest_cells = topology->has_value() ? std::optional<std::size_t>((**topology).cells.size()) : std::nullopt;
  for (std::string& note : unread_numa_keys(p.guest, guest_cells.value_or(0))) p.outcome.warnings.push_back(std::move(note));
  auto tuning = derive_guest_tuning(p.guest, *topology);
  if (!tuning) return tuning.error();
  p.tuning = std::move(*tuning);

  if (auto nodesets = check_nodesets(p, guest_cells); !nodesets) return nodesets.error();
  // The host as this guest may use it: within the pCPUs the operator's pins allow, the vCPUs' and,
  // where it reserves a pCPU of its own (isolate), the emulator's; each thread's own bound is
  // then kept by the fit (with_thread_bounds).
  const CpuSet all = host_cpus_of(host);
  CpuSet usable = usable_cpus(p.constraints, p.summary.vcpus, all);
  if (topology->has_value() && (**topology).emulator_threads_policy == EmulatorThreadsPolicy::Isolate) {
    const CpuSet* emulator = emulator_bound(p.constraints);
    usable = usable.united(emulator != nullptr ? emulator->intersected(all) : all);
  }
  p.view = usable == all ? host : host_within(host, usable);
  if (auto devices = check_device_memory(p.view, p.bindings, p.summary.name); !devices) return devices.error();
  return topology->has_value() ? place_with_topology(p, **topology) : place_without_topology(p);
}

}  // namespace numaplace::plugin
