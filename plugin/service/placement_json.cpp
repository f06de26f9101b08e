// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/service/placement_json.h"

namespace numaplace::plugin {

using nlohmann::json;

json placement_json(const PlaceOutcome& outcome) {
  json cells = json::array();
  if (outcome.placement) {
    for (const auto& cell : outcome.placement->cells) {
      json pinning = json::object();
      for (const auto& [vcpu, pcpu] : cell.pinning) pinning[std::to_string(vcpu)] = pcpu;
      cells.push_back({{"guest_cell", cell.guest_cell},
                       {"host_cell", cell.host_cell},
                       {"guest_cpus", to_cpu_list(cell.guest_cpus)},
                       {"host_cpus", to_cpu_list(cell.host_cpus)},
                       {"memory_kib", cell.memory_kib},
                       {"pagesize_kib", cell.pagesize_kib > 0 ? json(cell.pagesize_kib) : json()},
                       {"pinning", pinning},
                       {"cpuset_reserved", cell.cpuset_reserved.empty() ? json() : json(to_cpu_list(cell.cpuset_reserved))},
                       {"isolated_cpus", cell.isolated_cpus.empty() ? json() : json(to_cpu_list(cell.isolated_cpus))}});
    }
  }
  return {{"domain", outcome.domain_name},
          {"uuid", outcome.domain_uuid},
          {"placed", outcome.placement.has_value()},
          {"request_from_metadata", outcome.request_from_metadata},
          {"replacement", replacement_json(outcome.replacement)},
          {"cells", cells},
          {"narrowings", narrowings_json(outcome.narrowings)}};
}

json narrowings_json(const std::vector<Narrowing>& narrowings) {
  json out = json::array();
  for (const auto& n : narrowings) {
    const char* kind = n.thread.kind == ThreadAffinity::Kind::Vcpu       ? "vcpu"
                       : n.thread.kind == ThreadAffinity::Kind::Emulator ? "emulator"
                                                                          : "iothread";
    out.push_back({{"guest", n.guest},
                   {"uuid", n.uuid},
                   {"running", n.running},
                   {"thread", kind},
                   {"id", n.thread.id},
                   {"source", n.thread.source},
                   {"from", to_cpu_list(n.thread.cpus)},
                   {"to", to_cpu_list(n.kept)}});
  }
  return out;
}

json replacement_json(const RecordedPlacementUse& use) {
  return {{"kind", to_string(use.kind)},
          {"repinned_cells", use.repinned_cells},
          {"why", use.why.empty() ? json() : json(use.why)},
          {"refreshed", use.refreshed.empty() ? json() : json(use.refreshed)}};
}

json explanation_json(const PlaceOutcome& outcome, const SpecMap& flavor_specs, const SpecMap& image_props) {
  json rejections = json::array();
  for (const auto& r : outcome.rejections) {
    rejections.push_back({{"guest_cell", r.guest_cell}, {"host_cell", r.host_cell}, {"reason", r.reason}});
  }
  std::string summary;
  if (!outcome.placement) {
    summary = outcome.confinement && outcome.confinement->cells
                  ? "the request names no NUMA topology; confined to host cells " +
                        outcome.confinement->cells->to_nodeset() + " (" + outcome.confinement->reason + ")"
                  : "the request names no NUMA topology; the guest is left unconfined";
  } else {
    for (const auto& cell : outcome.placement->cells) {
      summary += (summary.empty() ? "" : "; ") + std::string("guest cell ") + std::to_string(cell.guest_cell) +
                 " on host cell " + std::to_string(cell.host_cell);
    }
  }
  json request{{"from_metadata", outcome.request_from_metadata}};
  if (!outcome.request_from_metadata) {
    request["flavor"] = flavor_specs;
    request["image"] = image_props;
  }
  return {{"placed", outcome.placement.has_value()},
          {"summary", summary},
          {"request", request},
          {"rejections", rejections},
          {"warnings", outcome.warnings}};
}

}  // namespace numaplace::plugin
