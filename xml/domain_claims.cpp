// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/domain_claims.h"

#include <algorithm>
#include <map>

#include "xml/domain_bindings.h"
#include "xml/domain_reader.h"
#include "xml/placement_record.h"
#include "xml/xml_document.h"

namespace numaplace::xml {
namespace {

CellClaim& claim_for(GuestClaim& claim, std::uint32_t host_cell) {
  for (auto& cell : claim.cells) {
    if (cell.host_cell == host_cell) return cell;
  }
  claim.cells.push_back(CellClaim{});
  claim.cells.back().host_cell = host_cell;
  return claim.cells.back();
}

// One floating vCPU allowed on `cpus`: its load is shared by the cells in proportion.
void add_floating_vcpu(GuestClaim& claim, const HostTopology& host, const CpuSet& cpus) {
  std::map<std::uint32_t, std::size_t> per_cell;
  std::size_t known = 0;
  for (std::uint32_t cpu : cpus) {
    if (auto cell = cell_of_cpu(host, cpu)) {
      ++per_cell[*cell];
      ++known;
    }
  }
  if (known == 0) {
    claim.unbound_vcpus += 1;
    return;
  }
  for (const auto& [cell, count] : per_cell) {
    claim_for(claim, cell).shared_vcpus += static_cast<double>(count) / static_cast<double>(known);
  }
}

void add_memory(CellClaim& cell, std::uint64_t kib, std::uint64_t page_kib) {
  if (page_kib > 4) {
    cell.pages[page_kib] += (kib + page_kib - 1) / page_kib;
  } else {
    cell.memory_kib += kib;
  }
}

// Memory bound to `nodeset` (nullopt or no node of this host: unbound), as pages of `page_kib`
// (0: small pages), split evenly, or as `split` says when it names exactly those nodes.
void bind_memory(GuestClaim& claim, const HostTopology& host, std::uint64_t memory_kib,
                 const std::optional<CpuSet>& nodeset, std::uint64_t page_kib,
                 const std::optional<ConfinementRecord>& split = std::nullopt) {
  std::vector<std::uint32_t> nodes;
  if (nodeset) {
    for (std::uint32_t node : *nodeset) {
      if (host.find_cell(node) != nullptr) nodes.push_back(node);
    }
  }
  if (nodes.empty()) {
    claim.unbound_memory_kib += memory_kib;
    return;
  }
  if (split && nodeset && split->nodes == *nodeset) {
    std::uint64_t total = 0;
    for (const auto& [node, kib] : split->memory) total += kib;
    bool known = total == memory_kib;
    for (const auto& [node, kib] : split->memory) known = known && host.find_cell(node) != nullptr && nodeset->contains(node);
    if (known) {
      for (const auto& [node, kib] : split->memory) add_memory(claim_for(claim, node), kib, page_kib);
      return;
    }
  }
  const std::uint64_t share = memory_kib / nodes.size();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    add_memory(claim_for(claim, nodes[i]), share + (i == 0 ? memory_kib % nodes.size() : 0), page_kib);
  }
}

// The nodeset binding guest cell `cell`'s memory: its <memnode>, else <numatune><memory>.
std::optional<CpuSet> cell_nodeset(const DomainBindings& bindings, std::optional<std::uint32_t> cell) {
  if (cell) {
    auto memnode = bindings.memnodes.find(*cell);
    if (memnode != bindings.memnodes.end() && memnode->second.nodeset && !memnode->second.placement_auto) {
      return memnode->second.nodeset;
    }
  }
  if (bindings.memory.placement_auto) return std::nullopt;  // numad decides: bound nowhere we know
  return bindings.memory.nodeset;
}

}  // namespace

Result<GuestClaim> read_guest_claim(const xmlDoc* doc, const HostTopology& host, const std::string& what,
                                    BeyondHost beyond, std::vector<std::string>* notes) {
  auto summary = read_domain_summary(doc, what);
  if (!summary) return summary.error();
  auto bindings = read_domain_bindings(doc, what, summary->vcpus);
  if (!bindings) return bindings.error();
  auto record = read_placement_record(doc, what);
  if (!record) return record.error();
  auto confinement = read_confinement_record(doc, what);
  if (!confinement) return confinement.error();

  GuestClaim claim;
  claim.name = summary->name;
  claim.uuid = summary->uuid;
  claim.placed_by_numaplace = has_record(doc);
  CpuSet anywhere;
  for (const auto& cell : host.cells) anywhere = anywhere.united(cell.cpus);
  CpuSet nodes;
  for (const auto& cell : host.cells) nodes.insert(cell.id);
  if (beyond == BeyondHost::CountWithin) {
    const auto note = [&](const std::string& text) {
      if (notes != nullptr) notes->push_back(what + ": " + text);
    };
    for (auto it = bindings->threads.vcpupins.begin(); it != bindings->threads.vcpupins.end();) {
      const CpuSet missing = it->second.minus(anywhere);
      if (missing.empty()) {
        ++it;
        continue;
      }
      note("<vcpupin vcpu='" + std::to_string(it->first) + "'> names pCPU " + to_cpu_list(missing) +
           ", which this host does not have (offline?); counted without it");
      it->second = it->second.intersected(anywhere);
      it = it->second.empty() ? bindings->threads.vcpupins.erase(it) : std::next(it);
    }
    const auto within = [&](std::optional<CpuSet>& nodeset, const std::string& element) {
      if (!nodeset || nodeset->is_subset_of(nodes)) return;
      note(element + " binds memory to NUMA node " + to_cpu_list(nodeset->minus(nodes)) +
           ", which this host does not have; counted on the nodes left");
      nodeset = nodeset->intersected(nodes);
      if (nodeset->empty()) nodeset.reset();
    };
    within(bindings->memory.nodeset, "<numatune><memory>");
    for (auto& [cell, tune] : bindings->memnodes) within(tune.nodeset, "<memnode cellid='" + std::to_string(cell) + "'>");
  }
  for (const auto& [vcpu, cpus] : bindings->threads.vcpupins) {
    if (!cpus.is_subset_of(anywhere)) {  // never let a pin onto a missing pCPU count as anything else
      return make_error("PinBeyondHost", what + ": <vcpupin vcpu='" + std::to_string(vcpu) + "' cpuset='" +
                                             to_cpu_list(cpus) + "'> names pCPU " + to_cpu_list(cpus.minus(anywhere)) +
                                             ", which this host does not have (its CPUs are " + to_cpu_list(anywhere) +
                                             ")");
    }
  }

  // Memory bound to a node the host lacks would be counted as bound nowhere: refused, as a pin is.
  std::vector<std::pair<std::string, const CpuSet*>> bindings_of_memory;
  if (bindings->memory.nodeset && !bindings->memory.placement_auto) {
    bindings_of_memory.emplace_back("<numatune><memory nodeset='" + to_cpu_list(*bindings->memory.nodeset) + "'>",
                                    &*bindings->memory.nodeset);
  }
  for (const auto& [cell, tune] : bindings->memnodes) {
    if (!tune.nodeset || tune.placement_auto) continue;
    bindings_of_memory.emplace_back("<memnode cellid='" + std::to_string(cell) + "' nodeset='" + to_cpu_list(*tune.nodeset) + "'>",
                                    &*tune.nodeset);
  }
  for (const auto& [element, nodeset] : bindings_of_memory) {
    if (!nodeset->is_subset_of(nodes)) {
      return make_error("PinBeyondHost", what + ": " + element + " binds memory to NUMA node " +
                                             to_cpu_list(nodeset->minus(nodes)) + ", which this host does not have "
                                             "(its nodes are " + to_cpu_list(nodes) + ")");
    }
  }

  // Threads: a vCPU allowed on one pCPU holds it, one allowed on several floats over them. In a
  // guest numaplace placed, only the vCPUs its record pins (and those the operator pinned 1:1)
  // hold their pCPU: a floating vCPU narrowed down to one pCPU still floats.
  std::optional<CpuSet> holding_vcpus;
  if (has_record(doc)) {
    auto constraints = read_recorded_constraints(doc, what);
    if (!constraints) return constraints.error();
    holding_vcpus = CpuSet{};
    if (*record) {
      for (const auto& placed : (*record)->cells) {
        for (const auto& [vcpu, pcpu] : placed.pinning) holding_vcpus->insert(vcpu);
      }
    }
    if (*constraints) {
      for (const auto& [vcpu, cpus] : (*constraints)->vcpupins) {
        if (cpus.size() == 1) holding_vcpus->insert(vcpu);
      }
    }
  }
  claim.threads = thread_affinities(bindings->threads, anywhere);
  for (auto& thread : claim.threads) thread.cpus = thread.cpus.intersected(anywhere);
  for (const auto& thread : claim.threads) {
    if (thread.kind != ThreadAffinity::Kind::Vcpu) continue;
    if (thread.cpus.size() == 1 && (!holding_vcpus || holding_vcpus->contains(thread.id))) {
      claim_for(claim, *cell_of_cpu(host, thread.cpus.first())).pinned_cpus.insert(thread.cpus.first());
    } else {
      add_floating_vcpu(claim, host, thread.cpus);
    }
  }
  // What the record says the guest holds beyond its pins.
  if (*record) {
    for (const auto& placed : (*record)->cells) {
      if (host.find_cell(placed.host_cell) == nullptr) continue;
      CellClaim& cell = claim_for(claim, placed.host_cell);
      cell.reserved_cpus = cell.reserved_cpus.united(placed.cpuset_reserved.united(placed.isolated_cpus))
                               .intersected(anywhere)
                               .minus(cell.pinned_cpus);
    }
  }

  // Memory: each guest cell where it is bound, the RAM-backed memory devices where theirs is.
  std::uint64_t devices_bound_apart = 0;
  for (const auto& device : bindings->memory_devices) {
    const std::uint64_t page = device.page_kib > 0 ? device.page_kib
                                                   : (device.guest_node ? page_of_cell(bindings->pages, *device.guest_node)
                                                                        : bindings->pages.default_page_kib);
    if (device.nodemask) {
      bind_memory(claim, host, device.size_kib, device.nodemask, page);
      if (bindings->cells.empty()) devices_bound_apart += device.size_kib;
    } else if (!bindings->cells.empty()) {
      bind_memory(claim, host, device.size_kib, cell_nodeset(*bindings, device.guest_node), page);
    }
  }
  if (bindings->cells.empty()) {
    // <memory> holds the memory devices; file-backed ones (nvdimm, virtio-pmem) take no RAM, the
    // RAM-backed ones without a <nodemask> follow the guest's binding.
    std::uint64_t ram_devices = 0;
    for (const auto& device : bindings->memory_devices) ram_devices += device.size_kib;
    const std::uint64_t boot = summary->memory_kib - std::min(summary->memory_kib, summary->memory_device_kib);
    const std::uint64_t bound_together = boot + ram_devices - devices_bound_apart;
    bind_memory(claim, host, bound_together, cell_nodeset(*bindings, std::nullopt), bindings->pages.default_page_kib,
                *confinement);
  }
  for (const auto& cell : bindings->cells) {
    bind_memory(claim, host, cell.memory_kib, cell_nodeset(*bindings, cell.id), page_of_cell(bindings->pages, cell.id));
  }
  claim.pci_devices = summary->pci_hostdevs;
  // A device given besides the <hostdev>s (place --pci) is the guest's as much as they are.
  auto stored = read_stored_request(doc, what);
  if (!stored) return stored.error();
  if (*stored) {
    for (const auto& address : (*stored)->pci_addresses) {
      if (std::find(claim.pci_devices.begin(), claim.pci_devices.end(), address) == claim.pci_devices.end()) {
        claim.pci_devices.push_back(address);
      }
    }
  }
  return claim;
}

}  // namespace numaplace::xml
