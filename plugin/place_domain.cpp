#include "plugin/place_domain.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <utility>

#include "placement/guest_topology.h"
#include "placement/narrowing.h"
#include "placement/operator_constraints.h"
#include "placement/count_words.h"
#include "xml/domain_bindings.h"
#include "xml/domain_reader.h"
#include "xml/domain_writer.h"
#include "xml/operator_constraints.h"
#include "xml/placement_record.h"
#include "xml/xml_document.h"

namespace numaplace::plugin {

std::optional<std::string> canonical_pci_address(std::string_view text) {
  // Fields from the right: function after '.', then slot, bus and an optional domain after ':'.
  const auto dot = text.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::vector<std::string_view> fields;
  std::string_view head = text.substr(0, dot);
  for (std::size_t colon; (colon = head.rfind(':')) != std::string_view::npos; head = head.substr(0, colon)) {
    fields.insert(fields.begin(), head.substr(colon + 1));
  }
  fields.insert(fields.begin(), head);
  if (fields.size() == 2) fields.insert(fields.begin(), "0000");
  fields.push_back(text.substr(dot + 1));
  if (fields.size() != 4) return std::nullopt;
  // A PCI domain is 16 bits on most hosts and up to 32 (Intel VMD, hwloc and libvirt alike);
  // it is written with at least four digits, as the host's devices are named.
  const std::size_t widths[4] = {8, 2, 2, 1};
  const int padding[4] = {4, 2, 2, 1};
  const unsigned long long limits[4] = {0xffffffffULL, 0xff, 0x1f, 7};
  std::string out;
  for (std::size_t i = 0; i < 4; ++i) {
    const auto field = fields[i];
    unsigned long long value = 0;
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value, 16);
    if (field.empty() || field.size() > widths[i] || error != std::errc() || end != field.data() + field.size() ||
        value > limits[i]) {
      return std::nullopt;
    }
    char part[16];
    std::snprintf(part, sizeof part, "%0*llx", padding[i], value);
    out += (i == 0 ? "" : i == 3 ? "." : ":") + std::string(part);
  }
  return out;
}

Result<std::string> pci_address(std::string_view text) {
  if (auto address = canonical_pci_address(text)) return *address;
  return make_error("InvalidPciAddress", "'" + std::string(text) +
                                             "' is not a PCI address; write domain:bus:slot.function in hex, "
                                             "e.g. 0000:3b:00.0 (or bus:slot.function, 3b:00.0)");
}

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

// The operator's pins that run threads on pCPUs a dedicated guest holds, or pins onto pCPUs the
// host does not have: both are refused, naming the element (the other elements are kept within
// what the placement chooses, operator_constraints.h).
Status check_operator_pins(const HostTopology& host, const xml::DomainBindings& bindings, const std::string& what) {
  CpuSet online, held;
  for (const auto& cell : host.cells) {
    online = online.united(cell.cpus);
    held = held.united(cell.usage.pinned_cpus);
  }
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
  if (host.accounting == Accounting::Exclusive) {
    for (const auto& [id, cpus] : threads.iothreadpins) {
      if (cpus.intersects(held)) {
        return make_error("ConflictingPin", what + ": <iothreadpin iothread='" + std::to_string(id) + "' cpuset='" +
                                                to_cpu_list(cpus) + "'> runs on pCPUs " +
                                                to_cpu_list(cpus.intersected(held)) +
                                                ", which dedicated guests hold; pin the iothread elsewhere");
      }
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
    const std::uint64_t page = device.page_kib > 0 ? device.page_kib : bindings.default_page_kib;
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
  if (constraints.vcpu_cpuset || !constraints.vcpupins.empty()) {
    return " (within the domain's own " + std::string(constraints.vcpu_cpuset ? "<vcpu cpuset>" : "<vcpupin>") +
           " pins)";
  }
  return "";
}

}  // namespace

Result<PlaceOutcome> place_domain(const HostTopology& host, const PlaceRequest& request) {
  const std::string& what = request.domain_name_for_errors;
  auto doc = xml::parse_document(request.domain_xml, what);
  if (!doc) return doc.error();
  auto summary = xml::read_domain_summary(doc->get(), what);
  if (!summary) return summary.error();
  auto bindings = xml::read_domain_bindings(doc->get(), what, summary->vcpus);
  if (!bindings) return bindings.error();
  auto constraints = xml::read_operator_constraints(doc->get(), *bindings, what);
  if (!constraints) return constraints.error();
  if (auto checked = check_operator_pins(host, *bindings, what); !checked) return checked.error();

  PlaceOutcome outcome;
  outcome.domain_name = summary->name;
  outcome.domain_uuid = summary->uuid;

  xml::StoredRequest stored{request.flavor_specs, request.image_props, {}, {}};
  if (request.flavor_specs.empty() && request.image_props.empty()) {
    auto from_metadata = xml::read_stored_request(doc->get(), what);
    if (!from_metadata) return from_metadata.error();
    if (*from_metadata) {
      stored = std::move(**from_metadata);
      outcome.request_from_metadata = true;
    }
  }

  GuestRequest guest;
  guest.vcpus = summary->vcpus;
  // <memory> includes the memory devices (DIMMs, NVDIMMs, virtio-mem); the guest's NUMA cells
  // hold the rest, the boot memory, and libvirt adds the devices on top of them.
  if (summary->memory_device_kib >= summary->memory_kib) {
    return make_error("InvalidDomain", what + ": its memory devices (" + std::to_string(summary->memory_device_kib) +
                                           " KiB) take all of <memory> (" + std::to_string(summary->memory_kib) +
                                           " KiB), which includes them; leave memory for the guest to boot with");
  }
  guest.memory_kib = summary->memory_kib - summary->memory_device_kib;
  guest.flavor_specs = stored.flavor_specs;
  guest.image_props = stored.image_props;

  // The memory a confinement binds: the boot memory and the RAM-backed devices without a nodemask.
  std::uint64_t confined_memory = guest.memory_kib;
  for (const auto& device : bindings->memory_devices) confined_memory += device.nodemask ? 0 : device.size_kib;
  FloatingGuest floating{summary->vcpus, confined_memory, summary->hugepage_kib, {}, {}};
  for (const auto& [vcpu, cpus] : constraints->vcpupins) {
    CpuSet cells;
    for (const auto& cell : host.cells) {
      if (cell.cpus.intersects(cpus)) cells.insert(cell.id);
    }
    floating.pinned_vcpu_cells.emplace_back("vcpupin:" + std::to_string(vcpu), cells);
  }
  // Each device once: an address given as a <hostdev> and again with --pci (or twice) is one device.
  std::vector<std::string> given;
  for (const auto& text : request.pci_addresses) {
    auto address = pci_address(text);
    if (!address) return address.error();
    given.push_back(std::move(*address));
  }
  std::vector<std::string> pci_addresses;
  for (const std::vector<std::string>* list : {&std::as_const(summary->pci_hostdevs), &std::as_const(given)}) {
    for (const auto& address : *list) {
      if (std::find(pci_addresses.begin(), pci_addresses.end(), address) == pci_addresses.end()) {
        pci_addresses.push_back(address);
      }
    }
  }
  for (const auto& address : pci_addresses) {
    const PciDevice* device = nullptr;
    for (const auto& d : host.pci) {
      if (canonical_pci_address(d.address).value_or(d.address) == address) device = &d;
    }
    if (device == nullptr) {
      outcome.warnings.push_back("PCI device " + address + " of the domain is not among the host's devices; "
                                 "its NUMA locality is unknown");
      floating.pci_device_nodes.push_back(std::nullopt);
      continue;
    }
    if (device->allocated) {
      return make_error("PciDeviceHeld", "PCI device " + address + " of '" + summary->name + "' is held by " +
                                             (device->held_by.empty() ? std::string("the host (allocated)")
                                                                      : "guest '" + device->held_by + "'") +
                                             "; give the guest another device, or free that one first");
    }
    floating.pci_device_nodes.push_back(device->numa_node);
    // This very device: its own NUMA node counts, not a pool of identical ones elsewhere.
    guest.pci.push_back({1, device->vendor_id, device->product_id, "", device->address});
  }

  auto topology = derive_guest_topology(guest);
  if (!topology) return topology.error();
  // A guest the domain backs with huge pages (<memoryBacking><hugepages>) asks for that page
  // size when the request names none; otherwise the fit would count small pages for it.
  const auto names_page_size = [&] {
    const auto flavor = guest.flavor_specs.find("hw:mem_page_size");
    const auto image = guest.image_props.find("hw_mem_page_size");
    return (flavor != guest.flavor_specs.end() && !flavor->second.empty()) ||
           (image != guest.image_props.end() && !image->second.empty());
  };
  // The page size of every guest cell of the topology, when the domain gives them all one: no
  // <page>, or pages that, restricted to the guest cells the topology has (the writer drops the
  // others), are of one size and together name every cell. nullopt: cells differ, or some have none.
  const auto one_size_for_all = [&]() -> std::optional<std::uint64_t> {
    if (summary->hugepage_pages.empty()) return summary->hugepage_kib;
    const auto cells = static_cast<std::uint32_t>((**topology).cells.size());
    const CpuSet all = CpuSet::range(0, cells - 1);
    std::optional<std::uint64_t> size;
    CpuSet named;
    for (const auto& page : summary->hugepage_pages) {
      const CpuSet here = page.guest_cells ? page.guest_cells->intersected(all) : all;
      if (here.empty()) continue;
      if (size && *size != page.size_kib) return std::nullopt;
      size = page.size_kib;
      named = named.united(here);
    }
    if (!size || named != all) return std::nullopt;
    return size;
  };
  const bool has_hugepages = summary->hugepage_kib > 0 || !summary->hugepage_pages.empty();
  if (topology->has_value() && has_hugepages && !names_page_size()) {
    if (const auto size = one_size_for_all(); size && *size > 4) {
      guest.flavor_specs["hw:mem_page_size"] = std::to_string(*size);
      topology = derive_guest_topology(guest);
      if (!topology) return topology.error();
      outcome.warnings.push_back("the domain's <memoryBacking><hugepages> asks for " + std::to_string(*size) +
                                 " KiB pages: placed as hw:mem_page_size=" + std::to_string(*size));
    } else if (!size) {
      outcome.warnings.push_back("the domain's <memoryBacking><hugepages> gives guest cells their own page sizes; "
                                 "numaplace fits the cells on small pages and keeps those <page> elements (pages "
                                 "of guest cells the new topology lacks are dropped): ask with hw:mem_page_size to "
                                 "have huge pages checked");
    }
  }

  // The host as this guest may use it: within the pCPUs the operator's pins allow.
  const CpuSet usable = usable_cpus(*constraints, summary->vcpus, host_cpus_of(host));
  const HostTopology view = usable == host_cpus_of(host) ? host : host_within(host, usable);
  if (auto devices = check_device_memory(view, *bindings, summary->name); !devices) return devices.error();

  if (!topology->has_value()) {
    if (!bindings->memnodes.empty()) {
      return make_error("ConflictingConstraint",
                        what + ": <numatune><memnode cellid='" + std::to_string(bindings->memnodes.begin()->first) +
                            "'> binds a guest cell's memory itself, but the request asks for no NUMA topology, so "
                            "numaplace confines the guest as a whole; remove the <memnode> elements, or ask for the "
                            "cells with hw:numa_nodes");
    }
    std::optional<xml::ConfinementRecord> record;
    if (request.floating.policy != TopologyPolicy::None) {
      auto confined = place_floating_guest(view, floating, request.floating, pci_addresses);
      if (!confined) {
        if (confined.error().name == "NoFit") {
          return make_error("NoFit", "guest '" + summary->name + "' (" + count_of(summary->vcpus, "vCPU") + ", " +
                                         mib_text(floating.memory_kib) + ") does not fit this host: memory: " +
                                         confined.error().message + within_text(*constraints));
        }
        return confined.error();
      }
      if (confined->cells) {
        CpuSet nodes;  // libvirt's canonical range syntax, "0-1" rather than "0,1"
        for (std::uint32_t node : confined->cells->nodes()) nodes.insert(node);
        if (confined->cpus.empty()) {
          return make_error("NoFit", "guest '" + summary->name + "' (" + count_of(summary->vcpus, "vCPU") + ", " +
                                         mib_text(floating.memory_kib) + ") does not fit this host: host cells " +
                                         to_cpu_list(nodes) + ", which hold its memory, have no CPU left for "
                                         "floating guests (dedicated guests hold them, or the host configuration "
                                         "gives them none)" + within_text(*constraints));
        }
        if (constraints->memory.nodeset && !nodes.is_subset_of(*constraints->memory.nodeset)) {
          // The operator's nodeset is a limit: confine within it, or say it cannot be.
          const CpuSet within = nodes.intersected(*constraints->memory.nodeset);
          return make_error("ConflictingConstraint",
                            what + ": <numatune><memory nodeset='" + to_cpu_list(*constraints->memory.nodeset) +
                                "'> leaves out host cells " + to_cpu_list(nodes.minus(within)) +
                                ", which the guest's memory, vCPUs and devices need (" + confined->reason + ")");
        }
        for (const auto& [vcpu, cpus] : constraints->vcpupins) {
          if (!cpus.intersects(confined->cpus)) {
            return make_error("ConflictingPin", what + ": <vcpupin vcpu='" + std::to_string(vcpu) + "' cpuset='" +
                                                    to_cpu_list(cpus) + "'> shares no pCPU with host cells " +
                                                    to_cpu_list(nodes) + ", where the guest is confined (" +
                                                    to_cpu_list(confined->cpus) + "); widen or remove it");
          }
        }
        CpuSet cell_cpus;  // the emulator may use every floating CPU of the cells, not only the vCPUs'
        for (const auto& cell : host.cells) {
          if (nodes.contains(cell.id)) cell_cpus = cell_cpus.united(floating_cpus_of(host, cell));
        }
        if (constraints->emulatorpin && !constraints->emulatorpin->intersects(cell_cpus)) {
          return make_error("ConflictingPin", what + ": <emulatorpin cpuset='" + to_cpu_list(*constraints->emulatorpin) +
                                                  "'> shares no pCPU with host cells " + to_cpu_list(nodes) +
                                                  ", where the guest is confined; widen or remove it");
        }
        for (auto& note : xml::write_confinement(doc->get(), nodes, confined->cpus, cell_cpus, *constraints)) {
          outcome.warnings.push_back("the domain's " + note + ", the host cells and pCPUs it is confined to");
        }
        record = xml::ConfinementRecord{nodes, confined->memory_split};
      }
      outcome.confinement = std::move(*confined);
    }
    if (!record && host.accounting == Accounting::Exclusive) {
      // Not confined to NUMA cells (--policy none, or no mask chosen), but kept off the pCPUs
      // dedicated guests hold.
      CpuSet floating_cpus;
      for (const auto& cell : view.cells) floating_cpus = floating_cpus.united(floating_cpus_of(view, cell));
      if (floating_cpus != host_cpus_of(host)) {
        if (floating_cpus.empty()) {
          return make_error("NoFit", "guest '" + summary->name + "' does not fit this host: every pCPU it may use is "
                                     "held by a dedicated guest" + within_text(*constraints));
        }
        xmlNode* vcpu = xml::first_child(xmlDocGetRootElement(doc->get()), "vcpu");
        xmlSetProp(vcpu, reinterpret_cast<const xmlChar*>("placement"), reinterpret_cast<const xmlChar*>("static"));
        xmlSetProp(vcpu, reinterpret_cast<const xmlChar*>("cpuset"),
                   reinterpret_cast<const xmlChar*>(to_cpu_list(floating_cpus).c_str()));
        outcome.warnings.push_back("not confined to NUMA cells, but kept off the pCPUs dedicated guests hold: "
                                   "<vcpu cpuset='" + to_cpu_list(floating_cpus) + "'>");
      }
    }
    // The operator's 1:1 pins hold their pCPUs, as another guest's claim reads them: never one a
    // dedicated guest holds, and other guests' threads leave them.
    if (host.accounting == Accounting::Exclusive) {
      auto written = xml::read_domain_bindings(doc->get(), what, summary->vcpus);
      if (!written) return written.error();
      CpuSet held_here, others_held;
      for (const auto& thread : thread_affinities(written->threads, host_cpus_of(host))) {
        if (thread.kind == ThreadAffinity::Kind::Vcpu && thread.cpus.size() == 1) held_here.insert(thread.cpus.first());
      }
      for (const auto& cell : host.cells) others_held = others_held.united(cell.usage.pinned_cpus);
      if (held_here.intersects(others_held)) {
        return make_error("ConflictingPin", what + ": its <vcpupin> elements pin vCPUs onto pCPUs " +
                                                to_cpu_list(held_here.intersected(others_held)) +
                                                ", which dedicated guests hold; pin them elsewhere");
      }
      outcome.held = held_here;
      if (request.other_guests != nullptr) {
        auto narrowings = plan_narrowing(*request.other_guests, held_here, summary->name);
        if (!narrowings) return narrowings.error();
        outcome.narrowings = std::move(*narrowings);
      }
    }
    if (!stored.flavor_specs.empty() || !stored.image_props.empty() || record || !constraints->empty()) {
      xml::write_record(doc->get(), stored, {nullptr, record ? &*record : nullptr, &*constraints});
    }
    outcome.domain_xml = xml::serialize(doc->get());
    return outcome;
  }
  // The request asked for is the one the domain records: start from the recorded placement.
  std::optional<Placement> recorded;
  if (request.keep_recorded) {
    auto record_request = xml::read_stored_request(doc->get(), what);
    if (!record_request) return record_request.error();
    if (*record_request && (*record_request)->flavor_specs == stored.flavor_specs &&
        (*record_request)->image_props == stored.image_props) {
      auto record = xml::read_placement_record(doc->get(), what);
      if (!record) return record.error();
      recorded = std::move(*record);
    }
  }
  FitOptions options = request.fit;
  for (auto& limit : host_cell_limits(*constraints)) options.host_cell_limits.push_back(std::move(limit));
  FitResult fit;
  const auto fit_on = [&](const HostTopology& on) {
    if (recorded) {
      Replacement again = place_again(on, **topology, *recorded, options);
      outcome.replacement = {again.kind, std::move(again.repinned), std::move(again.why)};
      return std::move(again.fit);
    }
    return fit_guest(on, **topology, options);
  };
  fit = fit_on(view);
  // A pinning that would leave another guest's thread with no pCPU is tried again with one pCPU of
  // that thread kept out of reach, as long as the guest still fits: refused only when unavoidable.
  if (fit.placement && request.other_guests != nullptr && host.accounting == Accounting::Exclusive) {
    HostTopology sparing = view;
    for (std::size_t spared = 0; spared < 64; ++spared) {
      const ThreadAffinity* starving = starving_thread(*request.other_guests, fit.placement->held_cpus());
      if (starving == nullptr) break;
      const std::uint32_t keep = starving->cpus.last();
      for (auto& cell : sparing.cells) {
        if (cell.cpus.contains(keep)) cell.usage.pinned_cpus.insert(keep);
      }
      FitResult again = fit_on(sparing);
      if (!again.placement) break;  // only a starving placement fits: plan_narrowing names it below
      fit = std::move(again);
    }
  }
  outcome.rejections = fit.rejections;
  if (!fit.placement) {
    return make_error("NoFit", "guest '" + summary->name + "' (" + count_of(summary->vcpus, "vCPU") + ", " +
                                   mib_text(guest.memory_kib) + ") does not fit this host" +
                                   within_text(*constraints) + ": " + explain_no_fit(fit));
  }
  if (auto pins = check_pins(*constraints, *fit.placement); !pins) {
    return make_error(pins.error().name, what + ": " + pins.error().message);
  }
  if (auto devices = check_cell_device_memory(view, *bindings, *fit.placement, summary->name); !devices) {
    return devices.error();
  }
  if (request.other_guests != nullptr && host.accounting == Accounting::Exclusive) {
    auto narrowings = plan_narrowing(*request.other_guests, fit.placement->held_cpus(), summary->name);
    if (!narrowings) return narrowings.error();
    outcome.narrowings = std::move(*narrowings);
  }
  outcome.held = fit.placement->held_cpus();
  xml::write_placement(doc->get(), host, *fit.placement, *constraints);
  xml::write_record(doc->get(), stored, {&*fit.placement, nullptr, &*constraints});
  outcome.placement = std::move(fit.placement);
  outcome.domain_xml = xml::serialize(doc->get());
  return outcome;
}

}  // namespace numaplace::plugin
