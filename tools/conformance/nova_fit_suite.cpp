// SPDX-License-Identifier: LGPL-2.1-or-later
// Suite nova-fit: for each vector of nova/edge.jsonl and nova/fit.jsonl (and perf.jsonl),
// the outcome kind (fit / no_fit / invalid with Nova's error class / no_topology), the
// guest topology Nova derives, and for a fit the host cell and page size of every guest
// cell, plus a valid pinning: every dedicated vCPU on its own free pCPU of its host
// cell's dedicated set, the thread policy honoured, the emulator reservation sound.
// Where Nova's own answer is inconsistent, the vector's expect_fixed is the reference.
// Nova's exact vCPU-to-pCPU choice (Python set order) is not compared.
#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include "conformance/nova_vector.h"
#include "conformance/json_number.h"
#include "conformance/suite.h"
#include "placement/fit/cpu_pinning.h"
#include "placement/fit/fit.h"
#include "placement/request/guest_topology.h"

namespace numaplace::conformance {
namespace {

std::string describe_cells(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& cells) {
  std::ostringstream out;
  out << "fit [";
  for (std::size_t i = 0; i < cells.size(); ++i) {
    out << (i ? ", " : "") << "guest " << cells[i].first << "->host " << cells[i].second;
  }
  out << "]";
  return out.str();
}

nlohmann::json policy_json(const std::string& text) { return text == "unset" ? nlohmann::json() : nlohmann::json(text); }

std::vector<std::uint32_t> ids(const CpuSet& set) { return set.ids(); }

// The guest topology as the vectors write it.
nlohmann::json topology_json(const GuestTopology& topology) {
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& cell : topology.cells) {
    cells.push_back({{"id", cell.id},
                     {"cpus", ids(cell.cpus)},
                     {"pcpus", ids(cell.dedicated_cpus)},
                     {"memory_mib", cell.memory_kib / 1024},
                     {"pagesize", cell.pagesize == kPageSizeNone ? nlohmann::json() : nlohmann::json(cell.pagesize)}});
  }
  return {{"cells", cells},
          {"cpu_policy", policy_json(to_string(topology.cpu_policy))},
          {"cpu_thread_policy", policy_json(to_string(topology.thread_policy))},
          {"emulator_threads_policy", policy_json(to_string(topology.emulator_threads_policy))},
          {"pci_numa_affinity_policy", policy_json(to_string(topology.pci_numa_policy))}};
}

nlohmann::json normalised_topology(nlohmann::json topology) {
  for (auto& cell : topology["cells"]) {
    for (const char* key : {"cpus", "pcpus"}) {
      auto list = whole_list<std::uint32_t>(cell[key]);
      std::sort(list.begin(), list.end());
      cell[key] = list;
    }
  }
  return topology;
}

// Checks a chosen cell's pinning; returns what is wrong, or an empty string.
std::string pinning_problem(const HostCell& cell, const GuestTopology& topology, const GuestCell& guest_cell,
                            const CellPlacement& placed, bool expect_reserved) {
  std::ostringstream why;
  const std::vector<CpuSet> groups = sibling_groups(cell);
  auto group_of = [&](std::uint32_t cpu) -> const CpuSet* {
    for (const auto& g : groups) {
      if (g.contains(cpu)) return &g;
    }
    return nullptr;
  };
  std::map<std::uint32_t, std::uint32_t> pins(placed.pinning.begin(), placed.pinning.end());
  CpuSet pinned_vcpus;
  for (const auto& [v, p] : placed.pinning) pinned_vcpus.insert(v);
  if (pinned_vcpus != guest_cell.dedicated_cpus || pins.size() != placed.pinning.size()) {
    why << "pinning covers vCPUs {" << to_cpu_list(pinned_vcpus) << "}, the dedicated ones are {"
        << to_cpu_list(guest_cell.dedicated_cpus) << "}";
    return why.str();
  }
  CpuSet used;
  for (const auto& [v, p] : placed.pinning) {
    if (used.contains(p)) return "pCPU " + std::to_string(p) + " pinned twice";
    used.insert(p);
    if (!cell.dedicated_cpus.contains(p)) return "pCPU " + std::to_string(p) + " is outside the host cell's dedicated set";
    if (cell.usage.pinned_cpus.contains(p)) return "pCPU " + std::to_string(p) + " is already pinned by another guest";
    if (group_of(p) == nullptr) return "pCPU " + std::to_string(p) + " is in no sibling group";
  }
  if (topology.thread_policy == ThreadPolicy::Require) {
    for (auto p : used) {
      if (group_of(p)->size() < 2) return "thread policy require, but pCPU " + std::to_string(p) + " has no sibling";
    }
  }
  if (topology.thread_policy == ThreadPolicy::Isolate) {
    for (auto p : used) {
      for (auto s : *group_of(p)) {
        if (s == p) continue;
        if (used.contains(s) || cell.usage.pinned_cpus.contains(s)) {
          return "thread policy isolate, but sibling " + std::to_string(s) + " of pCPU " + std::to_string(p) + " is used";
        }
      }
    }
  }
  if (expect_reserved != !placed.cpuset_reserved.empty()) {
    return expect_reserved ? "no emulator pCPU reserved" : "an emulator pCPU reserved where none is due";
  }
  for (auto r : placed.cpuset_reserved) {
    if (used.contains(r)) return "emulator pCPU " + std::to_string(r) + " is also pinned to a vCPU";
    if (!cell.dedicated_cpus.contains(r) || cell.usage.pinned_cpus.contains(r)) {
      return "emulator pCPU " + std::to_string(r) + " is not a free dedicated pCPU";
    }
    if (topology.thread_policy == ThreadPolicy::Isolate && group_of(r) != nullptr) {
      for (auto s : *group_of(r)) {
        if (used.contains(s)) return "emulator pCPU " + std::to_string(r) + " shares a core with pinned pCPU " + std::to_string(s);
      }
    }
  }
  return {};
}

}  // namespace

VectorOutcome check_nova_fit(const nlohmann::json& vector) {
  // at(), not operator[]: on a const json, [] of a missing key reads freed memory (a fuzz find).
  const nlohmann::json& outer = vector.at("expect");
  const nlohmann::json& expect = outer.contains("expect_fixed") ? outer.at("expect_fixed") : outer;
  const std::string kind = expect.at("kind").get<std::string>();
  GuestRequest request = request_from_nova_json(vector.at("request"));
  auto topology = derive_guest_topology(request);
  if (!topology) {
    if (kind == "invalid" && expect.value("error", "") == topology.error().name) return VectorOutcome::pass();
    std::string wanted = kind == "invalid" ? "invalid " + expect.value("error", "") : kind;
    return VectorOutcome::fail(wanted, "invalid " + topology.error().name + " (" + topology.error().message + ")");
  }
  if (kind == "invalid") {
    return VectorOutcome::fail("invalid " + expect.value("error", ""), topology->has_value() ? "a topology" : "no_topology");
  }
  if (!topology->has_value()) {
    return kind == "no_topology" ? VectorOutcome::pass() : VectorOutcome::fail(kind, "no_topology");
  }
  if (kind == "no_topology") return VectorOutcome::fail("no_topology", "a guest topology");
  const GuestTopology& guest = **topology;

  const nlohmann::json& reference_topology =
      vector["expect"].contains("guest_topology") ? vector["expect"]["guest_topology"] : expect.value("guest_topology", nlohmann::json());
  if (reference_topology.is_object()) {
    nlohmann::json want = normalised_topology(reference_topology);
    nlohmann::json got = topology_json(guest);
    if (want != got) return VectorOutcome::fail("guest topology " + want.dump(), got.dump());
  }

  HostTopology host = host_from_nova_json(vector.at("host"));
  FitResult result = fit_guest(host, guest, options_from_nova_config(vector));
  if (!result.placement) {
    return kind == "no_fit" ? VectorOutcome::pass() : VectorOutcome::fail("fit", "no_fit (" + result.summary + ")");
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
  for (const auto& cell : result.placement->cells) got.emplace_back(cell.guest_cell, cell.host_cell);
  if (kind == "no_fit") return VectorOutcome::fail("no_fit", describe_cells(got));

  std::vector<std::pair<std::uint32_t, std::uint32_t>> wanted;
  for (const auto& cell : expect.at("cells")) {
    wanted.emplace_back(whole<std::uint32_t>(cell.at("guest_cell")), whole<std::uint32_t>(cell.at("host_cell")));
  }
  if (wanted != got) return VectorOutcome::fail(describe_cells(wanted), describe_cells(got));

  for (std::size_t i = 0; i < expect.at("cells").size(); ++i) {
    const auto& want = expect["cells"][i];
    const CellPlacement& placed = result.placement->cells[i];
    const std::string which = "guest cell " + std::to_string(placed.guest_cell);
    const std::int64_t want_page = want.value("pagesize_kib", nlohmann::json()).is_null() ? 0 : whole<std::int64_t>(want["pagesize_kib"]);
    if (want_page != placed.pagesize_kib) {
      return VectorOutcome::fail(which + " pagesize " + std::to_string(want_page), std::to_string(placed.pagesize_kib));
    }
    if (want.contains("memory_mib") && whole<std::uint64_t>(want["memory_mib"]) * 1024 != placed.memory_kib) {
      return VectorOutcome::fail(which + " memory " + want["memory_mib"].dump() + " MiB", std::to_string(placed.memory_kib) + " KiB");
    }
    const bool want_pinning = want.contains("pinning") && !want["pinning"].is_null();
    if (want_pinning == placed.pinning.empty()) {
      return VectorOutcome::fail(which + (want_pinning ? " pinned" : " unpinned"),
                                 placed.pinning.empty() ? "no pinning" : "a pinning");
    }
    const bool want_reserved = want.contains("cpuset_reserved") && !want["cpuset_reserved"].is_null();
    const HostCell* cell = host.find_cell(placed.host_cell);
    if (cell == nullptr) return VectorOutcome::fail(which + " on a host cell", "unknown host cell");
    if (want_pinning || want_reserved) {
      std::string problem = pinning_problem(*cell, guest, guest.cells[i], placed, want_reserved);
      if (!problem.empty()) return VectorOutcome::fail(which + " validly pinned", problem);
    }
  }
  return VectorOutcome::pass();
}

std::optional<std::vector<double>> time_nova_fit(const nlohmann::json& vector, std::size_t repeat) {
  auto topology = derive_guest_topology(request_from_nova_json(vector.at("request")));
  if (!topology || !topology->has_value()) return std::nullopt;
  const GuestTopology& guest = **topology;
  const HostTopology host = host_from_nova_json(vector.at("host"));
  const FitOptions options = options_from_nova_config(vector);
  std::vector<double> seconds;
  seconds.reserve(repeat);
  for (std::size_t i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    fit_guest(host, guest, options);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return seconds;
}

}  // namespace numaplace::conformance
