// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/domain_bindings.h"

#include <algorithm>
#include <set>

#include "placement/model/c_whole_number.h"
#include "placement/model/count_words.h"
#include "placement/model/memory_size.h"
#include "xml/xml_document.h"

namespace numaplace::xml {
namespace {

// An index attribute (a vCPU, a guest cell) as libvirt reads one (c_whole_number.h).
std::optional<std::uint32_t> parse_index(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  const std::optional<std::uint64_t> value = c_whole_number(*text);
  if (!value || *value > kMaxCpuId) return std::nullopt;
  return static_cast<std::uint32_t>(*value);
}

Error invalid(const std::string& what, const std::string& sentence) { return make_error("InvalidDomain", what + ": " + sentence); }

// A cpulist attribute: absent is nullopt; present must be a non-empty list.
Result<std::optional<CpuSet>> cpu_list_attribute(const xmlNode* node, const char* name, const std::string& what) {
  auto text = attribute(node, name);
  if (!text) return std::optional<CpuSet>{};
  auto set = parse_cpu_list(*text, what);
  if (!set) return set.error();
  if (set->empty()) return make_error("InvalidDomain", what + " is empty; libvirt needs at least one CPU or node");
  return std::optional<CpuSet>{std::move(*set)};
}

// The operator's <vcpusched> elements, as libvirt's parser checks them: numaplace narrows and keeps
// them beside the realtime ones it writes, so one libvirt would refuse is refused here rather
// than written out. Each names some of the guest's vCPUs (no vCPU twice) and a scheduler, with an
// int priority for the realtime ones.
Status check_vcpu_scheduling(const xmlNode* cputune, const std::string& what, std::uint32_t vcpus) {
  CpuSet named;
  for (const xmlNode* sched : child_elements(cputune, "vcpusched")) {
    const auto list = attribute(sched, "vcpus");
    if (!list) return invalid(what, "a <vcpusched> has no vcpus; say which vCPUs it schedules");
    const std::string element = "<vcpusched vcpus='" + *list + "'>";
    auto listed = parse_cpu_list(*list, what + " " + element);
    if (!listed) return listed.error();
    if (listed->empty()) return invalid(what, element + " names no vCPU");
    if (listed->last() >= vcpus) {
      return invalid(what, element + " names vCPU " + std::to_string(listed->last()) + ", but the guest has " +
                               count_of(vcpus, "vCPU"));
    }
    if (listed->intersects(named)) {
      return invalid(what, element + " names vCPU " + std::to_string(listed->intersected(named).first()) +
                               ", which another <vcpusched> names; libvirt takes each vCPU in one");
    }
    named.unite_with(*listed);
    const std::string scheduler = attribute(sched, "scheduler").value_or("");
    if (scheduler != "batch" && scheduler != "idle" && scheduler != "fifo" && scheduler != "rr") {
      return invalid(what, element + " scheduler='" + scheduler + "' is none of batch, idle, fifo and rr");
    }
    if (scheduler == "fifo" || scheduler == "rr") {
      const auto priority = attribute(sched, "priority");
      if (!priority || !c_int(*priority)) {
        return invalid(what, element + " with scheduler='" + scheduler + "' needs a priority that is a whole "
                                 "number (1 to 99 on Linux)");
      }
    }
  }
  return Done{};
}

Result<MemoryTune> read_tune(const xmlNode* node, const std::string& what) {
  MemoryTune tune;
  if (node == nullptr) return tune;
  const auto mode = attribute(node, "mode");
  tune.mode = mode.value_or("");
  if (mode && tune.mode != "strict" && tune.mode != "interleave" && tune.mode != "preferred" &&
      tune.mode != "restrictive") {
    return make_error("InvalidDomain", what + " mode='" + tune.mode +
                                           "' is not one of strict, interleave, preferred, restrictive");
  }
  if (const auto placement = attribute(node, "placement"); placement && *placement != "static" && *placement != "auto") {
    return make_error("InvalidDomain", what + " placement='" + *placement + "' is neither static nor auto");
  }
  tune.placement_auto = attribute(node, "placement").value_or("") == "auto";
  auto nodeset = cpu_list_attribute(node, "nodeset", what + " nodeset");
  if (!nodeset) return nodeset.error();
  tune.nodeset = std::move(*nodeset);
  return tune;
}

Result<std::uint64_t> size_of(const xmlNode* node, const std::string& what) {
  return domain_memory_to_kib(text_of(node), attribute(node, "unit").value_or("KiB"), what);
}

Status read_threads(const xmlNode* root, const std::string& what, DomainThreads& out) {
  const xmlNode* vcpu = first_child(root, "vcpu");
  const std::string placement = attribute(vcpu, "placement").value_or("static");
  if (placement != "static" && placement != "auto") {
    return invalid(what, "<vcpu placement='" + placement + "'> is neither static nor auto");
  }
  out.vcpu_placement_auto = placement == "auto";
  // libvirt reads no cpuset beside placement='auto': numad's choice replaces it.
  if (!out.vcpu_placement_auto) {
    auto cpuset = cpu_list_attribute(vcpu, "cpuset", what + " <vcpu cpuset>");
    if (!cpuset) return cpuset.error();
    out.vcpu_cpuset = std::move(*cpuset);
  }

  const xmlNode* cputune = first_child(root, "cputune");
  for (const xmlNode* pin : child_elements(cputune, "vcpupin")) {
    auto id = attribute(pin, "vcpu");
    auto index = parse_index(id);
    if (!index) return invalid(what, "<vcpupin vcpu='" + id.value_or("") + "'> is not a vCPU number");
    const std::string element = "<vcpupin vcpu='" + std::to_string(*index) + "'>";
    if (*index >= out.vcpus) {
      return invalid(what, element + " but the guest has " + count_of(out.vcpus, "vCPU"));
    }
    auto cpus = cpu_list_attribute(pin, "cpuset", what + " " + element + " cpuset");
    if (!cpus) return cpus.error();
    if (!*cpus) return invalid(what, element + " has no cpuset");
    if (!out.vcpupins.emplace(*index, **cpus).second) return invalid(what, element + " is given twice");
  }
  if (const xmlNode* pin = first_child(cputune, "emulatorpin")) {
    auto cpus = cpu_list_attribute(pin, "cpuset", what + " <emulatorpin cpuset>");
    if (!cpus) return cpus.error();
    if (!*cpus) return invalid(what, "<emulatorpin> has no cpuset");
    out.emulatorpin = std::move(*cpus);
  }
  // iothreads: <iothreadids> names them, each once, and libvirt adds the lowest ids not named until
  // there are <iothreads>; without ids, <iothreads>N are 1..N.
  std::set<std::uint32_t> named;
  for (const xmlNode* io : child_elements(first_child(root, "iothreadids"), "iothread")) {
    auto id = parse_index(attribute(io, "id"));
    if (!id || *id == 0) return invalid(what, "<iothread id='" + attribute(io, "id").value_or("") + "'> is not an iothread id");
    if (!named.insert(*id).second) return invalid(what, "<iothread id='" + std::to_string(*id) + "'> is given twice");
    out.iothread_ids.push_back(*id);
  }
  if (const xmlNode* count = first_child(root, "iothreads")) {
    auto n = parse_index(text_of(count));
    if (!n) return invalid(what, "<iothreads> is '" + text_of(count) + "', not a number");
    for (std::uint32_t id = 1; out.iothread_ids.size() < *n; ++id) {
      if (named.count(id) == 0) out.iothread_ids.push_back(id);
    }
  }
  for (const xmlNode* pin : child_elements(cputune, "iothreadpin")) {
    auto id = parse_index(attribute(pin, "iothread"));
    const std::string element = "<iothreadpin iothread='" + attribute(pin, "iothread").value_or("") + "'>";
    if (!id || std::find(out.iothread_ids.begin(), out.iothread_ids.end(), *id) == out.iothread_ids.end()) {
      return invalid(what, element + " names no iothread of the guest");
    }
    auto cpus = cpu_list_attribute(pin, "cpuset", what + " " + element + " cpuset");
    if (!cpus) return cpus.error();
    if (!*cpus) return invalid(what, element + " has no cpuset");
    if (!out.iothreadpins.emplace(*id, **cpus).second) return invalid(what, element + " is given twice");
  }
  return check_vcpu_scheduling(cputune, what, out.vcpus);
}

// "no <cpu><numa> cells", "1 cell", "2 cells": what a guest has, for messages.
std::string guest_cells_text(std::size_t cells) {
  return cells == 0 ? std::string("no <cpu><numa> cells") : count_of(cells, "cell");
}

Status read_memory(const xmlNode* root, const std::string& what, DomainBindings& out) {
  const xmlNode* numatune = first_child(root, "numatune");
  auto memory = read_tune(first_child(numatune, "memory"), what + " <numatune><memory>");
  if (!memory) return memory.error();
  out.memory = std::move(*memory);
  for (const xmlNode* memnode : child_elements(numatune, "memnode")) {
    auto cellid = parse_index(attribute(memnode, "cellid"));
    if (!cellid) {
      return invalid(what, "<memnode cellid='" + attribute(memnode, "cellid").value_or("") + "'> is not a cell number");
    }
    const std::string element = "<memnode cellid='" + std::to_string(*cellid) + "'>";
    auto tune = read_tune(memnode, what + " " + element);
    if (!tune) return tune.error();
    // libvirt binds a restrictive guest's cells restrictively or not at all.
    if (out.memory.mode == "restrictive" && tune->mode != "restrictive") {
      return invalid(what, element + " mode='" + (tune->mode.empty() ? "strict" : tune->mode) + "' under <memory "
                               "mode='restrictive'>, which libvirt refuses; give the <memnode> mode='restrictive' too");
    }
    if (!out.memnodes.emplace(*cellid, std::move(*tune)).second) return invalid(what, element + " is given twice");
  }

  const std::vector<xmlNode*> cells = child_elements(first_child(first_child(root, "cpu"), "numa"), "cell");
  auto pages = read_guest_pages(root, cells.size(), what);
  if (!pages) return pages.error();
  out.pages = std::move(*pages);

  // The cells as libvirt's parser takes them: numbered 0 to N-1 (in any order, each once; a cell
  // without an id takes its place in the document), each one's vCPUs a list of the guest's own
  // (or none), no vCPU in two cells. numaplace keeps the cells in what it writes, so one libvirt would refuse
  // is refused here rather than passed on.
  CpuSet vcpus_in_cells;
  std::uint32_t position = 0;
  for (const xmlNode* cell : cells) {
    const auto given = attribute(cell, "id");
    auto id = given ? parse_index(given) : std::optional<std::uint32_t>(position);
    ++position;
    if (!id) return invalid(what, "<cpu><numa><cell id='" + given.value_or("") + "'> is not a number");
    const std::string element = "<cpu><numa><cell id='" + std::to_string(*id) + "'>";
    if (*id >= cells.size()) {
      return invalid(what, element + " is past its " + count_of(cells.size(), "cell") + "; libvirt takes the cells "
                                     "numbered 0 to " + std::to_string(cells.size() - 1) + ", each once");
    }
    if (std::any_of(out.cells.begin(), out.cells.end(), [&](const GuestNumaCell& c) { return c.id == *id; })) {
      return invalid(what, element + " is given twice; libvirt takes each cell once");
    }
    CpuSet cell_cpus;
    if (const auto cpus_text = attribute(cell, "cpus")) {
      auto cpus = parse_cpu_list(*cpus_text, what + " " + element + " cpus");
      if (!cpus) return cpus.error();
      // A list that leaves no vCPU ('0,^0') is a cell without CPUs, as libvirt reads it.
      if (!cpus->empty() && cpus->last() >= out.threads.vcpus) {
        return invalid(what, element + " cpus='" + *cpus_text + "' names vCPU " + std::to_string(cpus->last()) +
                                 ", but the guest has " + count_of(out.threads.vcpus, "vCPU"));
      }
      if (const CpuSet twice = cpus->intersected(vcpus_in_cells); !twice.empty()) {
        return invalid(what, element + " cpus='" + *cpus_text + "' names vCPU " + std::to_string(twice.first()) +
                                 ", which another cell holds; libvirt puts each vCPU in one cell");
      }
      vcpus_in_cells.unite_with(*cpus);
      cell_cpus = *cpus;
    }
    auto kib = domain_memory_to_kib(attribute(cell, "memory").value_or(""), attribute(cell, "unit").value_or("KiB"),
                             what + " <cpu><numa><cell memory>");
    if (!kib) return kib.error();
    out.cells.push_back({*id, *kib, std::move(cell_cpus)});
  }
  // libvirt looks up each guest cell a <memnode> names (a <page nodeset>: guest_pages.cpp).
  for (const auto& [cell, tune] : out.memnodes) {
    if (cell >= cells.size()) {
      return invalid(what, "<memnode cellid='" + std::to_string(cell) + "'> names a guest cell the guest lacks (it has " +
                               guest_cells_text(cells.size()) +
                               ")");
    }
  }

  std::size_t index = 0;
  for (const xmlNode* device : child_elements(first_child(root, "devices"), "memory")) {
    ++index;
    const std::string model = attribute(device, "model").value_or("");
    const std::string element = "<memory model='" + model + "'> " + std::to_string(index);
    const xmlNode* target = first_child(device, "target");
    const xmlNode* source = first_child(device, "source");
    MemoryDevice dev;
    dev.element = element;
    if (const xmlNode* size = first_child(target, "size")) {
      auto kib = size_of(size, what + " " + element + " <target><size>");
      if (!kib) return kib.error();
      dev.size_kib = *kib;
    }
    // libvirt reads an empty <node/> as none.
    if (const xmlNode* node = first_child(target, "node"); node != nullptr && !text_of(node).empty()) {
      auto n = parse_index(text_of(node));
      if (!n) return invalid(what, element + " <target><node> is '" + text_of(node) + "', not a guest cell");
      // libvirt refuses a device on a guest cell the guest lacks, and any <node> for virtio-pmem. A
      // guest without cells gets its cells from the request, which place_domain checks the node against.
      if (!cells.empty() && *n >= cells.size()) {
        return invalid(what, element + " sits on guest cell " + std::to_string(*n) + " (<target><node>), but the "
                                        "guest has " + count_of(cells.size(), "cell") +
                                 "; give it a <node> of a guest cell, or give the guest that cell");
      }
      if (model == "virtio-pmem") {
        return invalid(what, element + " has a <target><node>, which libvirt does not take for virtio-pmem; remove it");
      }
      dev.guest_node = *n;
      out.device_guest_nodes.push_back({element, *n});
    }
    if (const xmlNode* mask = first_child(source, "nodemask")) {
      auto nodes = parse_cpu_list(text_of(mask), what + " " + element + " <source><nodemask>");
      if (!nodes) return nodes.error();
      if (nodes->empty()) return invalid(what, element + " <source><nodemask> is empty");
      dev.nodemask = std::move(*nodes);
    }
    if (const xmlNode* page = first_child(source, "pagesize")) {
      auto kib = size_of(page, what + " " + element + " <source><pagesize>");
      if (!kib) return kib.error();
      dev.page_kib = *kib;
    }
    if (model == "dimm" || model == "virtio-mem") out.memory_devices.push_back(std::move(dev));
  }
  return Done{};
}

}  // namespace

Result<DomainBindings> read_domain_bindings(const xmlDoc* doc, const std::string& what, std::uint32_t vcpus) {
  const xmlNode* root = xmlDocGetRootElement(const_cast<xmlDoc*>(doc));
  DomainBindings out;
  out.threads.vcpus = vcpus;
  if (auto read = read_threads(root, what, out.threads); !read) return read.error();
  if (auto read = read_memory(root, what, out); !read) return read.error();
  return out;
}

std::vector<ThreadAffinity> thread_affinities(const DomainThreads& threads, const CpuSet& host_cpus) {
  std::vector<ThreadAffinity> out;
  const bool have_default = threads.vcpu_cpuset && !threads.vcpu_placement_auto;
  const CpuSet fallback = have_default ? *threads.vcpu_cpuset : host_cpus;
  const std::string fallback_source = have_default ? "<vcpu cpuset>" : "no pinning";
  for (std::uint32_t v = 0; v < threads.vcpus; ++v) {
    auto pin = threads.vcpupins.find(v);
    if (pin != threads.vcpupins.end()) {
      out.push_back({ThreadAffinity::Kind::Vcpu, v, pin->second, "<vcpupin vcpu='" + std::to_string(v) + "'>"});
    } else {
      out.push_back({ThreadAffinity::Kind::Vcpu, v, fallback, fallback_source});
    }
  }
  if (threads.emulatorpin) {
    out.push_back({ThreadAffinity::Kind::Emulator, 0, *threads.emulatorpin, "<emulatorpin>"});
  } else {
    out.push_back({ThreadAffinity::Kind::Emulator, 0, fallback, fallback_source});
  }
  for (std::uint32_t id : threads.iothread_ids) {
    auto pin = threads.iothreadpins.find(id);
    if (pin != threads.iothreadpins.end()) {
      out.push_back({ThreadAffinity::Kind::IoThread, id, pin->second, "<iothreadpin iothread='" + std::to_string(id) + "'>"});
    } else {
      out.push_back({ThreadAffinity::Kind::IoThread, id, fallback, fallback_source});
    }
  }
  return out;
}

}  // namespace numaplace::xml
