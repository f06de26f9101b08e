#include "xml/domain_claims.h"

#include <charconv>
#include <map>

#include "placement/memory_size.h"
#include "placement/count_words.h"
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

std::optional<std::uint32_t> cell_of_cpu(const HostTopology& host, std::uint32_t cpu) {
  for (const auto& cell : host.cells) {
    if (cell.cpus.contains(cpu)) return cell.id;
  }
  return std::nullopt;
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

// Memory of one guest cell (or the whole guest) bound to `nodeset`, as pages of `page_kib` (0: small pages).
void bind_memory(GuestClaim& claim, const HostTopology& host, std::uint64_t memory_kib, const CpuSet& nodeset,
                 std::uint64_t page_kib) {
  std::vector<std::uint32_t> nodes;
  for (std::uint32_t node : nodeset) {
    if (host.find_cell(node) != nullptr) nodes.push_back(node);
  }
  if (nodes.empty()) {
    claim.unbound_memory_kib += memory_kib;
    return;
  }
  const std::uint64_t share = memory_kib / nodes.size();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    std::uint64_t part = share + (i == 0 ? memory_kib % nodes.size() : 0);
    CellClaim& cell = claim_for(claim, nodes[i]);
    if (page_kib > 4) {
      cell.pages[page_kib] += (part + page_kib - 1) / page_kib;
    } else {
      cell.memory_kib += part;
    }
  }
}

Result<CpuSet> optional_cpu_list(const xmlNode* node, const char* name, const std::string& what) {
  auto text = attribute(node, name);
  if (!text) return CpuSet{};
  return parse_cpu_list(*text, what);
}

GuestClaim claim_from_record(const Placement& placement) {
  GuestClaim claim;
  claim.placed_by_numaplace = true;
  for (const auto& placed : placement.cells) {
    CellClaim& cell = claim_for(claim, placed.host_cell);
    for (const auto& [vcpu, pcpu] : placed.pinning) cell.pinned_cpus.insert(pcpu);
    cell.shared_vcpus += static_cast<double>(placed.guest_cpus.size() - placed.pinning.size());
    if (placed.pagesize_kib > 4) {
      const auto size = static_cast<std::uint64_t>(placed.pagesize_kib);
      cell.pages[size] += (placed.memory_kib + size - 1) / size;
    } else {
      cell.memory_kib += placed.memory_kib;
    }
  }
  return claim;
}

std::optional<std::uint32_t> parse_index(const std::optional<std::string>& text) {
  if (!text || text->empty()) return std::nullopt;
  std::uint32_t value = 0;
  auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || ptr != text->data() + text->size() || value > kMaxCpuId) return std::nullopt;
  return value;
}

}  // namespace

Result<GuestClaim> read_guest_claim(const xmlDoc* doc, const HostTopology& host, const std::string& what) {
  auto summary = read_domain_summary(doc, what);
  if (!summary) return summary.error();
  const xmlNode* root = xmlDocGetRootElement(const_cast<xmlDoc*>(doc));

  auto record = read_placement_record(doc, what);
  if (!record) return record.error();
  GuestClaim claim;
  if (*record) {
    claim = claim_from_record(**record);
  } else {
    // vCPUs: per-vCPU pins, else the <vcpu cpuset>, else anywhere on the host.
    const xmlNode* vcpu = first_child(root, "vcpu");
    auto default_cpus = optional_cpu_list(vcpu, "cpuset", what + " <vcpu cpuset>");
    if (!default_cpus) return default_cpus.error();
    CpuSet anywhere;
    for (const auto& cell : host.cells) anywhere = anywhere.united(cell.cpus);
    if (default_cpus->empty()) *default_cpus = anywhere;
    std::map<std::uint32_t, CpuSet> pins;
    for (const xmlNode* pin : child_elements(first_child(root, "cputune"), "vcpupin")) {
      auto id = attribute(pin, "vcpu");
      auto cpus = optional_cpu_list(pin, "cpuset", what + " <vcpupin cpuset>");
      if (!cpus) return cpus.error();
      auto index = parse_index(id);
      if (!index) {
        return make_error("InvalidDomain", what + ": <vcpupin vcpu='" + id.value_or("") + "'> is not a vCPU number");
      }
      const std::uint32_t v = *index;
      if (v >= summary->vcpus) {
        return make_error("InvalidDomain", what + ": <vcpupin vcpu='" + std::to_string(v) + "'> but the guest has " +
                                               count_of(summary->vcpus, "vCPU"));
      }
      if (!cpus->is_subset_of(anywhere)) {  // never let a pin onto a missing pCPU count as anything else
        return make_error("PinBeyondHost", what + ": <vcpupin vcpu='" + std::to_string(v) + "' cpuset='" +
                                               to_cpu_list(*cpus) + "'> names pCPU " +
                                               to_cpu_list(cpus->minus(anywhere)) + ", which this host does not have "
                                               "(its CPUs are " + to_cpu_list(anywhere) + ")");
      }
      pins[v] = *cpus;
    }
    for (std::uint32_t v = 0; v < summary->vcpus; ++v) {
      auto it = pins.find(v);
      const CpuSet& allowed = it != pins.end() ? it->second : *default_cpus;
      if (allowed.size() == 1 && cell_of_cpu(host, allowed.first())) {
        claim_for(claim, *cell_of_cpu(host, allowed.first())).pinned_cpus.insert(allowed.first());
      } else {
        add_floating_vcpu(claim, host, allowed);
      }
    }

    // Memory: per guest cell where memnodes bind it, else where <numatune><memory> binds the guest.
    const xmlNode* numatune = first_child(root, "numatune");
    const xmlNode* memory = first_child(numatune, "memory");
    auto guest_nodeset = optional_cpu_list(memory, "nodeset", what + " <numatune><memory nodeset>");
    if (!guest_nodeset) return guest_nodeset.error();
    if (attribute(memory, "placement").value_or("") == "auto") *guest_nodeset = CpuSet{};  // numad decides later
    std::map<std::uint32_t, CpuSet> memnodes;
    for (const xmlNode* memnode : child_elements(numatune, "memnode")) {
      auto cellid = attribute(memnode, "cellid");
      auto nodeset = optional_cpu_list(memnode, "nodeset", what + " <memnode nodeset>");
      if (!nodeset) return nodeset.error();
      auto index = parse_index(cellid);
      if (!index) {
        return make_error("InvalidDomain", what + ": <memnode cellid='" + cellid.value_or("") + "'> is not a cell number");
      }
      memnodes[*index] = *nodeset;
    }
    // Huge pages: a <page> with a nodeset applies to those guest cells, one without to all.
    std::uint64_t default_page = 0;
    std::map<std::uint32_t, std::uint64_t> page_by_cell;
    for (const xmlNode* page : child_elements(first_child(first_child(root, "memoryBacking"), "hugepages"), "page")) {
      auto size = memory_to_kib(attribute(page, "size").value_or(""), attribute(page, "unit").value_or("KiB"),
                                what + " <hugepages><page size>");
      if (!size) return size.error();
      auto nodeset = optional_cpu_list(page, "nodeset", what + " <hugepages><page nodeset>");
      if (!nodeset) return nodeset.error();
      if (nodeset->empty()) default_page = *size;
      for (std::uint32_t c : *nodeset) page_by_cell[c] = *size;
    }
    if (first_child(first_child(root, "memoryBacking"), "hugepages") != nullptr && default_page == 0 &&
        page_by_cell.empty()) {
      default_page = 2048;  // the host's default huge page size on x86; libvirt leaves it to the kernel
    }

    const xmlNode* numa = first_child(first_child(root, "cpu"), "numa");
    std::vector<xmlNode*> cells = child_elements(numa, "cell");
    if (cells.empty()) {
      bind_memory(claim, host, summary->memory_kib, *guest_nodeset, default_page);
    }
    for (const xmlNode* cell : cells) {
      auto id_text = attribute(cell, "id");
      auto index = parse_index(id_text);
      if (!index) {
        return make_error("InvalidDomain", what + ": <cpu><numa><cell id='" + id_text.value_or("") + "'> is not a number");
      }
      const std::uint32_t id = *index;
      auto kib = memory_to_kib(attribute(cell, "memory").value_or(""), attribute(cell, "unit").value_or("KiB"),
                               what + " <cpu><numa><cell memory>");
      if (!kib) return kib.error();
      auto node = memnodes.find(id);
      const CpuSet& nodeset = node != memnodes.end() ? node->second : *guest_nodeset;
      auto page = page_by_cell.find(id);
      bind_memory(claim, host, *kib, nodeset, page != page_by_cell.end() ? page->second : default_page);
    }
  }
  claim.name = summary->name;
  claim.uuid = text_of(first_child(root, "uuid"));
  return claim;
}

}  // namespace numaplace::xml
