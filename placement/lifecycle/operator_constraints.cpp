// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/lifecycle/operator_constraints.h"

#include <algorithm>
#include <set>

namespace numaplace {

bool OperatorConstraints::empty() const {
  return !vcpu_cpuset && vcpupins.empty() && !emulatorpin && iothreadpins.empty() && memory.mode.empty() &&
         !memory.nodeset && memnodes.empty();
}

namespace {

std::string set_text(const std::optional<CpuSet>& set) { return set ? "'" + to_cpu_list(*set) + "'" : "none"; }

std::string binding_text(const MemoryBinding& binding) {
  if (binding.mode.empty() && !binding.nodeset) return "none";
  return "mode '" + (binding.mode.empty() ? std::string("strict") : binding.mode) + "' nodeset " + set_text(binding.nodeset);
}

bool same_binding(const MemoryBinding& a, const MemoryBinding& b) { return a.mode == b.mode && a.nodeset == b.nodeset; }

// One element (or a keyed family of them) compared live against written; the live value wins
// where they differ.
template <typename Value, typename Same, typename Text>
void take_edit(const Value& written, const Value& live, Value& merged, const std::string& element, Same same, Text text,
               std::vector<std::string>& edits) {
  if (same(written, live)) return;
  edits.push_back("the domain's " + element + " was changed since numaplace placed it (" + text(written) + " -> " +
                  text(live) + "); the new one is kept as the operator's");
  merged = live;
}

template <typename Value, typename Same, typename Text>
void take_keyed_edits(const std::map<std::uint32_t, Value>& written, const std::map<std::uint32_t, Value>& live,
                      std::map<std::uint32_t, Value>& merged, const std::string& element, const char* key, Same same,
                      Text text, std::vector<std::string>& edits) {
  std::set<std::uint32_t> keys;
  for (const auto& [k, v] : written) keys.insert(k);
  for (const auto& [k, v] : live) keys.insert(k);
  for (std::uint32_t k : keys) {
    const auto w = written.find(k);
    const auto l = live.find(k);
    if (w != written.end() && l != live.end() && same(w->second, l->second)) continue;
    const std::string named = "<" + element + " " + key + "='" + std::to_string(k) + "'>";
    const std::string before = w != written.end() ? text(w->second) : "none";
    if (l == live.end()) {
      edits.push_back("the domain's " + named + " was removed since numaplace placed it (it was " + before +
                      "); it no longer bounds the guest");
      merged.erase(k);
    } else {
      edits.push_back("the domain's " + named + " was changed since numaplace placed it (" + before + " -> " +
                      text(l->second) + "); the new one is kept as the operator's");
      merged[k] = l->second;
    }
  }
}

}  // namespace

OperatorConstraints with_operator_edits(const OperatorConstraints& recorded, const OperatorConstraints& written,
                                        const OperatorConstraints& live, std::vector<std::string>& edits) {
  OperatorConstraints merged = recorded;
  const auto same_set = [](const std::optional<CpuSet>& a, const std::optional<CpuSet>& b) { return a == b; };
  const auto cpus_text = [](const CpuSet& set) { return "'" + to_cpu_list(set) + "'"; };
  const auto same_cpus = [](const CpuSet& a, const CpuSet& b) { return a == b; };
  take_edit(written.vcpu_cpuset, live.vcpu_cpuset, merged.vcpu_cpuset, "<vcpu cpuset>", same_set, set_text, edits);
  take_edit(written.emulatorpin, live.emulatorpin, merged.emulatorpin, "<emulatorpin>", same_set, set_text, edits);
  take_edit(written.memory, live.memory, merged.memory, "<numatune><memory>", same_binding, binding_text, edits);
  take_keyed_edits(written.vcpupins, live.vcpupins, merged.vcpupins, "vcpupin", "vcpu", same_cpus, cpus_text, edits);
  take_keyed_edits(written.iothreadpins, live.iothreadpins, merged.iothreadpins, "iothreadpin", "iothread", same_cpus,
                   cpus_text, edits);
  take_keyed_edits(written.memnodes, live.memnodes, merged.memnodes, "memnode", "cellid", same_binding, binding_text,
                   edits);
  return merged;
}

const CpuSet* vcpu_bound(const OperatorConstraints& constraints, std::uint32_t vcpu) {
  auto pin = constraints.vcpupins.find(vcpu);
  if (pin != constraints.vcpupins.end()) return &pin->second;
  return constraints.vcpu_cpuset ? &*constraints.vcpu_cpuset : nullptr;
}

const CpuSet* emulator_bound(const OperatorConstraints& constraints) {
  if (constraints.emulatorpin) return &*constraints.emulatorpin;
  return constraints.vcpu_cpuset ? &*constraints.vcpu_cpuset : nullptr;
}

CpuSet usable_cpus(const OperatorConstraints& constraints, std::uint32_t vcpus, const CpuSet& host_cpus) {
  const CpuSet fallback = constraints.vcpu_cpuset ? *constraints.vcpu_cpuset : host_cpus;
  CpuSet out;
  bool fallback_used = false;
  for (std::uint32_t v = 0; v < vcpus; ++v) {
    auto pin = constraints.vcpupins.find(v);
    if (pin != constraints.vcpupins.end()) {
      out = out.united(pin->second);
    } else {
      fallback_used = true;
    }
  }
  return fallback_used ? out.united(fallback) : out;
}

HostTopology host_within(const HostTopology& host, const CpuSet& cpus) {
  HostTopology narrowed = host;
  for (auto& cell : narrowed.cells) {
    cell.cpus = cell.cpus.intersected(cpus);
    cell.shared_cpus = cell.shared_cpus.intersected(cpus);
    cell.dedicated_cpus = cell.dedicated_cpus.intersected(cpus);
    std::vector<CpuSet> siblings;
    for (const auto& group : cell.siblings) {
      CpuSet kept = group.intersected(cpus);
      if (!kept.empty()) siblings.push_back(std::move(kept));
    }
    cell.siblings = std::move(siblings);
  }
  return narrowed;
}

HostTopology host_on_nodes(const HostTopology& host, const CpuSet& nodes) {
  HostTopology kept = host;
  kept.cells.clear();
  std::vector<std::size_t> indexes;
  for (std::size_t i = 0; i < host.cells.size(); ++i) {
    if (nodes.contains(host.cells[i].id)) indexes.push_back(i);
  }
  for (std::size_t i : indexes) {
    HostCell cell = host.cells[i];
    if (cell.distances.size() == host.cells.size()) {
      std::vector<std::uint32_t> distances;
      for (std::size_t j : indexes) distances.push_back(host.cells[i].distances[j]);
      cell.distances = std::move(distances);
    } else {
      cell.distances.clear();
    }
    kept.cells.push_back(std::move(cell));
  }
  return kept;
}

GuestTopology with_thread_bounds(GuestTopology guest, const OperatorConstraints& constraints, const CpuSet& view_cpus) {
  for (auto& cell : guest.cells) {
    cell.vcpu_bounds.clear();
    for (auto v : cell.cpus) {
      const CpuSet* allowed = vcpu_bound(constraints, v);
      if (allowed != nullptr && !view_cpus.is_subset_of(*allowed)) cell.vcpu_bounds[v] = allowed->intersected(view_cpus);
    }
  }
  guest.emulator_bound.reset();
  const CpuSet* emulator = emulator_bound(constraints);
  if (emulator != nullptr && !view_cpus.is_subset_of(*emulator)) guest.emulator_bound = emulator->intersected(view_cpus);
  return guest;
}

std::vector<HostCellLimit> host_cell_limits(const OperatorConstraints& constraints) {
  std::vector<HostCellLimit> limits;
  if (constraints.memory.nodeset) {
    limits.push_back({std::nullopt, *constraints.memory.nodeset,
                      "the domain's <numatune><memory nodeset='" + to_cpu_list(*constraints.memory.nodeset) + "'>"});
  }
  for (const auto& [cell, binding] : constraints.memnodes) {
    if (!binding.nodeset) continue;
    limits.push_back({cell, *binding.nodeset,
                      "the domain's <memnode cellid='" + std::to_string(cell) + "' nodeset='" +
                          to_cpu_list(*binding.nodeset) + "'>"});
  }
  return limits;
}

Status check_pins(const OperatorConstraints& constraints, const Placement& placement, const CpuSet& emulator) {
  auto conflict = [](const std::string& element, const std::string& sentence) {
    return make_error("ConflictingPin", "the domain's " + element + " " + sentence +
                                            "; widen or remove that element, or change the NUMA request");
  };
  for (const auto& cell : placement.cells) {
    for (std::uint32_t v : cell.guest_cpus) {
      const CpuSet* allowed = vcpu_bound(constraints, v);
      if (allowed == nullptr) continue;
      const std::string element = constraints.vcpupins.count(v) != 0
                                      ? "<vcpupin vcpu='" + std::to_string(v) + "' cpuset='" + to_cpu_list(*allowed) + "'>"
                                      : "<vcpu cpuset='" + to_cpu_list(*allowed) + "'> (for vCPU " + std::to_string(v) +
                                            ", which has no <vcpupin>)";
      auto dedicated = std::find_if(cell.pinning.begin(), cell.pinning.end(), [&](const auto& p) { return p.first == v; });
      if (dedicated != cell.pinning.end()) {
        if (!allowed->contains(dedicated->second)) {
          return conflict(element, "leaves out pCPU " + std::to_string(dedicated->second) + ", the free pCPU of host cell " +
                                       std::to_string(cell.host_cell) + " this dedicated vCPU gets");
        }
      } else if (!allowed->intersects(cell.host_cpus)) {
        return conflict(element, "shares no pCPU with host cell " + std::to_string(cell.host_cell) +
                                     ", where guest cell " + std::to_string(cell.guest_cell) + " floats (" +
                                     to_cpu_list(cell.host_cpus) + ")");
      }
    }
  }
  if (const CpuSet* bound = emulator_bound(constraints)) {
    const std::string element = constraints.emulatorpin
                                    ? "<emulatorpin cpuset='" + to_cpu_list(*bound) + "'>"
                                    : "<vcpu cpuset='" + to_cpu_list(*bound) + "'> (for the emulator, which has no <emulatorpin>)";
    CpuSet reserved;
    for (const auto& cell : placement.cells) reserved = reserved.united(cell.cpuset_reserved);
    if (!reserved.empty() && !reserved.is_subset_of(*bound)) {
      return conflict(element, "leaves out pCPU " + to_cpu_list(reserved) +
                                   ", which hw:emulator_threads_policy=isolate reserves for the emulator");
    }
    if (!bound->intersects(emulator)) {
      return conflict(element, "shares no pCPU with the guest's own (" + to_cpu_list(emulator) + ")");
    }
  }
  return Done{};
}

}  // namespace numaplace
