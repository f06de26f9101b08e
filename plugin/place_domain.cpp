#include "plugin/place_domain.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <utility>

#include "placement/guest_topology.h"
#include "placement/count_words.h"
#include "xml/domain_reader.h"
#include "xml/domain_writer.h"
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

Result<PlaceOutcome> place_domain(const HostTopology& host, const PlaceRequest& request) {
  const std::string& what = request.domain_name_for_errors;
  auto doc = xml::parse_document(request.domain_xml, what);
  if (!doc) return doc.error();
  auto summary = xml::read_domain_summary(doc->get(), what);
  if (!summary) return summary.error();

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

  // The domain's own PCI devices, located on the host.
  FloatingGuest floating{summary->vcpus, summary->memory_kib, summary->hugepage_kib, {}};
  // Each device once: an address given as a <hostdev> and again with --pci (or twice) is one device.
  std::vector<std::string> given;
  for (const auto& text : request.pci_addresses) {
    auto address = pci_address(text);
    if (!address) return address.error();
    given.push_back(std::move(*address));
  }
  std::vector<std::string> hostdevs;
  for (const auto& address : summary->pci_hostdevs) hostdevs.push_back(canonical_pci_address(address).value_or(address));
  std::vector<std::string> pci_addresses;
  for (const std::vector<std::string>* list : {&std::as_const(hostdevs), &std::as_const(given)}) {
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
    floating.pci_device_nodes.push_back(device->numa_node);
    guest.pci.push_back({1, device->vendor_id, device->product_id, ""});
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

  if (!topology->has_value()) {
    if (request.floating.policy != TopologyPolicy::None) {
      auto confined = place_floating_guest(host, floating, request.floating, pci_addresses);
      if (!confined) return confined.error();
      if (confined->cells) {
        CpuSet nodes;  // libvirt's canonical range syntax, "0-1" rather than "0,1"
        for (std::uint32_t node : confined->cells->nodes()) nodes.insert(node);
        for (auto& note : xml::write_confinement(doc->get(), nodes, confined->cpus)) {
          outcome.warnings.push_back("the domain's " + note + ", the host cells and pCPUs it is confined to");
        }
      }
      outcome.confinement = std::move(*confined);
    }
    if (!stored.flavor_specs.empty() || !stored.image_props.empty()) xml::write_record(doc->get(), stored, nullptr);
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
  FitResult fit;
  if (recorded) {
    Replacement again = place_again(host, **topology, *recorded, request.fit);
    fit = std::move(again.fit);
    outcome.replacement = {again.kind, std::move(again.repinned), std::move(again.why)};
  } else {
    fit = fit_guest(host, **topology, request.fit);
  }
  outcome.rejections = fit.rejections;
  if (!fit.placement) {
    return make_error("NoFit", "guest '" + summary->name + "' (" + count_of(summary->vcpus, "vCPU") + ", " +
                                   std::to_string(guest.memory_kib / 1024) + " MiB) does not fit this host: " +
                                   explain_no_fit(fit));
  }
  xml::write_placement(doc->get(), host, *fit.placement);
  xml::write_record(doc->get(), stored, &*fit.placement);
  outcome.placement = std::move(fit.placement);
  outcome.domain_xml = xml::serialize(doc->get());
  return outcome;
}

}  // namespace numaplace::plugin
