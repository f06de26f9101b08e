// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/service/fit_json.h"

#include "plugin/service/json_text.h"
#include "plugin/sources/json_fields.h"

#include <cmath>
#include <string>

namespace numaplace::plugin {
namespace {

using nlohmann::json;

using json_fields::bad;
using json_fields::BadField;
using json_fields::cpus_of;
using json_fields::field;
using json_fields::unsigned_of;

std::uint64_t memory_of(const json& object, const std::string& where) { return json_fields::memory_of(object, where, true); }





// A key=value map of strings; numbers and booleans (typed image properties) as Nova prints them.
SpecMap spec_map(const json& object, const std::string& where) {
  if (!object.is_object()) bad(where, "must be an object of KEY: VALUE");
  SpecMap map;
  for (const auto& [key, value] : object.items()) {
    if (value.is_string()) {
      map[key] = value.get<std::string>();
    } else if (value.is_boolean()) {
      map[key] = value.get<bool>() ? "true" : "false";
    } else if (value.is_number()) {
      map[key] = value.dump();
    } else {
      bad(where + "." + key, "must be a string, a number or a boolean");
    }
  }
  return map;
}

std::string string_of(const json& object, const char* name, const std::string& where) {
  const json* value = field(object, name);
  if (value == nullptr) return {};
  if (!value->is_string()) bad(where + "." + name, "must be a string");
  return value->get<std::string>();
}

std::vector<PciRequest> pci_of(const json& request) {
  std::vector<PciRequest> out;
  const json* pci = field(request, "pci");
  if (pci == nullptr) return out;
  if (!pci->is_array()) bad("request.pci", "must be a list");
  for (std::size_t i = 0; i < pci->size(); ++i) {
    const json& p = (*pci)[i];
    const std::string at = "request.pci[" + std::to_string(i) + "]";
    if (!p.is_object()) bad(at, "must be {\"count\", \"vendor_id\", \"product_id\"} or {\"count\", \"specs\"}");
    json_fields::check_members(p, {"count", "vendor_id", "product_id", "specs", "alias_numa_policy"}, at);
    PciRequest r;
    if (const json* count = field(p, "count")) r.count = static_cast<std::uint32_t>(unsigned_of(*count, at + ".count", 1024));
    if (r.count == 0) bad(at + ".count", "must be at least 1");
    r.vendor_id = string_of(p, "vendor_id", at);
    r.product_id = string_of(p, "product_id", at);
    if (const json* specs = field(p, "specs")) {
      if (!r.vendor_id.empty() || !r.product_id.empty()) {
        bad(at, "gives both specs and vendor_id/product_id; put the ids in the specs");
      }
      if (!specs->is_array() || specs->empty()) bad(at + ".specs", "must be a non-empty list of {\"KEY\": \"VALUE\"} objects");
      constexpr std::size_t kMaxSpecs = 64;
      if (specs->size() > kMaxSpecs) bad(at + ".specs", "has more than " + std::to_string(kMaxSpecs) + " specs");
      for (std::size_t k = 0; k < specs->size(); ++k) {
        r.specs.push_back(json_fields::tag_map_of((*specs)[k], at + ".specs[" + std::to_string(k) + "]"));
      }
    }
    r.alias_numa_policy = string_of(p, "alias_numa_policy", at);
    if (!r.alias_numa_policy.empty() && r.alias_numa_policy != "required" && r.alias_numa_policy != "preferred" &&
        r.alias_numa_policy != "legacy" && r.alias_numa_policy != "socket") {
      bad(at + ".alias_numa_policy", "must be required, preferred, legacy or socket");
    }
    out.push_back(std::move(r));
  }
  return out;
}

// The request's network_metadata (Nova's limits.network_metadata); absent or null: none.
NetworkAffinity networks_of(const json& request) {
  const json* networks = field(request, "network_metadata");
  return networks ? json_fields::network_of(*networks, "request.network_metadata") : NetworkAffinity{};
}

// A policy by its Nova name; null or absent: unset.
template <typename Policy>
Policy policy_of(const json& topology, const char* name, std::initializer_list<Policy> known) {
  const std::string where = std::string("request.topology.") + name;
  const json* value = field(topology, name);
  if (value == nullptr) return Policy::Unset;
  if (!value->is_string()) bad(where, "must be a string or null");
  const std::string text = value->get<std::string>();
  std::string names;
  for (Policy policy : known) {
    if (to_string(policy) == text) return policy;
    names += (names.empty() ? "" : ", ") + to_string(policy);
  }
  bad(where, "is '" + text + "'; known: " + names);
}

std::int64_t pagesize_of(const json& cell, const std::string& where) {
  const json* value = field(cell, "pagesize");
  if (value == nullptr) return kPageSizeNone;
  if (value->is_number_integer()) {
    const auto v = value->get<std::int64_t>();
    if (v == kPageSizeSmall || v == kPageSizeLarge || v == kPageSizeAny || (v > 0 && v <= std::int64_t{1} << 40)) return v;
  }
  bad(where + ".pagesize", "must be null, -1 (small), -2 (large), -3 (any) or a size in KiB");
}

GuestTopology topology_of(const json& t) {
  const std::string where = "request.topology";
  if (!t.is_object()) bad(where, "must be an object or null");
  json_fields::check_members(t, {"cells", "cpu_policy", "cpu_thread_policy", "emulator_threads_policy",
                                 "pci_numa_affinity_policy", "realtime_cpus", "locked_memory", "network_metadata"},
                             where);
  GuestTopology topology;
  topology.cpu_policy = policy_of(t, "cpu_policy", {CpuPolicy::Shared, CpuPolicy::Dedicated, CpuPolicy::Mixed});
  topology.thread_policy =
      policy_of(t, "cpu_thread_policy", {ThreadPolicy::Prefer, ThreadPolicy::Isolate, ThreadPolicy::Require});
  topology.emulator_threads_policy =
      policy_of(t, "emulator_threads_policy", {EmulatorThreadsPolicy::Share, EmulatorThreadsPolicy::Isolate});
  topology.pci_numa_policy = policy_of(t, "pci_numa_affinity_policy",
                                       {PciNumaPolicy::Required, PciNumaPolicy::Preferred, PciNumaPolicy::Legacy,
                                        PciNumaPolicy::Socket});
  if (const json* rt = field(t, "realtime_cpus")) topology.realtime_cpus = cpus_of(*rt, where + ".realtime_cpus");
  // As guest_topology_json writes it (np_derive's answer given back); the request's own
  // network_metadata is the same field one level up.
  if (const json* networks = field(t, "network_metadata")) {
    topology.networks = json_fields::network_of(*networks, where + ".network_metadata");
  }
  if (const json* locked = field(t, "locked_memory")) {
    if (!locked->is_boolean()) bad(where + ".locked_memory", "must be true or false");
    topology.locked_memory = locked->get<bool>();
  }
  const json* cells = field(t, "cells");
  if (cells == nullptr || !cells->is_array() || cells->empty()) bad(where + ".cells", "must be a non-empty list");
  CpuSet seen;
  for (std::size_t i = 0; i < cells->size(); ++i) {
    const json& c = (*cells)[i];
    const std::string at = where + ".cells[" + std::to_string(i) + "]";
    if (!c.is_object()) bad(at, "must be an object");
    json_fields::check_members(c, {"id", "cpus", "pcpus", "memory_mib", "memory_kib", "pagesize"}, at);
    GuestCell cell;
    cell.id = static_cast<std::uint32_t>(i);
    if (const json* id = field(c, "id")) {
      if (unsigned_of(*id, at + ".id", 65535) != i) bad(at + ".id", "must be the cell's index, " + std::to_string(i));
    }
    const json* cpus = field(c, "cpus");
    if (cpus == nullptr) bad(at, "has no cpus");
    cell.cpus = cpus_of(*cpus, at + ".cpus");
    if (const json* pcpus = field(c, "pcpus")) cell.dedicated_cpus = cpus_of(*pcpus, at + ".pcpus");
    if (!cell.dedicated_cpus.is_subset_of(cell.cpus)) bad(at + ".pcpus", "must be within the cell's cpus");
    if (cell.cpus.intersects(seen)) bad(at + ".cpus", "names a vCPU another cell has");
    seen = seen.united(cell.cpus);
    cell.memory_kib = memory_of(c, at);
    if (cell.memory_kib == 0) bad(at, "has no memory");
    cell.pagesize = pagesize_of(c, at);
    // The cell's dedicated vCPUs follow the guest's policy, as Nova's cells carry it.
    if (topology.cpu_policy == CpuPolicy::Dedicated && cell.dedicated_cpus.empty()) cell.dedicated_cpus = cell.cpus;
    if (topology.cpu_policy != CpuPolicy::Dedicated && topology.cpu_policy != CpuPolicy::Mixed &&
        !cell.dedicated_cpus.empty()) {
      bad(at + ".pcpus", "dedicated vCPUs need cpu_policy dedicated or mixed");
    }
    topology.cells.push_back(std::move(cell));
  }
  if (seen.empty()) bad(where + ".cells", "hold no vCPU");
  if (!topology.realtime_cpus.is_subset_of(seen)) bad(where + ".realtime_cpus", "must be vCPUs of the cells");
  return topology;
}

GuestRequest guest_request_of(const json& request) {
  const json* flavor = field(request, "flavor");
  if (flavor == nullptr || !flavor->is_object()) bad("request.flavor", "must be {\"vcpus\", \"memory_mib\", \"extra_specs\"}");
  json_fields::check_members(*flavor, {"vcpus", "memory_mib", "memory_kib", "extra_specs"}, "request.flavor");
  GuestRequest out;
  const json* vcpus = field(*flavor, "vcpus");
  if (vcpus == nullptr) bad("request.flavor", "has no vcpus");
  out.vcpus = static_cast<std::uint32_t>(unsigned_of(*vcpus, "request.flavor.vcpus", kMaxCpuId + 1));
  if (out.vcpus == 0) bad("request.flavor.vcpus", "must be at least 1");
  out.memory_kib = memory_of(*flavor, "request.flavor");
  if (out.memory_kib == 0) bad("request.flavor", "has no memory");
  if (const json* specs = field(*flavor, "extra_specs")) out.flavor_specs = spec_map(*specs, "request.flavor.extra_specs");
  if (const json* image = field(request, "image")) {
    if (!image->is_object()) bad("request.image", "must be {\"properties\": {...}}");
    json_fields::check_members(*image, {"properties"}, "request.image");
    if (const json* props = field(*image, "properties")) out.image_props = spec_map(*props, "request.image.properties");
  }
  out.pci = pci_of(request);
  out.networks = networks_of(request);
  return out;
}

json policy_json(const std::string& name) { return name == "unset" ? json() : json(name); }

}  // namespace

Result<FitRequest> fit_request_from_json(const nlohmann::json& request) {
  try {
    if (!request.is_object()) bad("request", "must be an object with flavor (and image) or topology");
    json_fields::check_members(request, {"flavor", "image", "topology", "pci", "network_metadata"}, "request");
    const bool has_flavor = request.contains("flavor");
    const bool has_topology = request.contains("topology");
    if (has_flavor == has_topology) bad("request", "must have either flavor (and image) or topology");
    if (has_topology) {
      if (request.contains("image")) bad("request.image", "goes with flavor, not with topology");
      std::vector<PciRequest> pci = pci_of(request);
      NetworkAffinity networks = networks_of(request);  // checked even when there is no topology
      if (request["topology"].is_null()) {
        if (!pci.empty()) bad("request.pci", "a guest without a topology has no NUMA view of its devices");
        return FitRequest{};
      }
      GuestTopology topology = topology_of(request["topology"]);
      topology.pci_requests = std::move(pci);
      if (field(request, "network_metadata") != nullptr) {
        if (field(request["topology"], "network_metadata") != nullptr &&
            (networks.physnets != topology.networks.physnets || networks.tunneled != topology.networks.tunneled)) {
          bad("request.network_metadata", "differs from request.topology.network_metadata; give the networks once");
        }
        topology.networks = std::move(networks);
      }
      return FitRequest{std::move(topology)};
    }
    GuestRequest guest = guest_request_of(request);
    auto derived = derive_guest_topology(guest);
    if (!derived) return derived.error();
    return std::move(*derived);
  } catch (const BadField& b) {
    return make_error("InvalidRequestJson", b.message);
  }
}

Result<FitRequest> fit_request_from_json_text(std::string_view text) {
  auto [doc, repeated] = json_fields::parse_json(text);
  if (doc.is_discarded()) return make_error("InvalidRequestJson", "the request is not JSON");
  if (!repeated.empty()) return make_error("InvalidRequestJson", "the request's " + json_fields::repeated_member_problem(repeated));
  return fit_request_from_json(doc);
}

json guest_topology_json(const FitRequest& topology) {
  if (!topology) return json();
  json cells = json::array();
  for (const auto& cell : topology->cells) {
    json c = {{"id", cell.id},
              {"cpus", cell.cpus.ids()},
              {"pcpus", cell.dedicated_cpus.ids()},
              {"memory_kib", cell.memory_kib},
              {"pagesize", cell.pagesize == kPageSizeNone ? json() : json(cell.pagesize)}};
    if (cell.memory_kib % 1024 == 0) c["memory_mib"] = cell.memory_kib / 1024;
    cells.push_back(std::move(c));
  }
  return {{"cells", std::move(cells)},
          {"cpu_policy", policy_json(to_string(topology->cpu_policy))},
          {"cpu_thread_policy", policy_json(to_string(topology->thread_policy))},
          {"emulator_threads_policy", policy_json(to_string(topology->emulator_threads_policy))},
          {"pci_numa_affinity_policy", policy_json(to_string(topology->pci_numa_policy))},
          {"realtime_cpus", topology->realtime_cpus.ids()},
          {"locked_memory", topology->locked_memory},
          {"network_metadata",
           {{"physnets", topology->networks.physnets}, {"tunneled", topology->networks.tunneled}}}};
}

namespace {

void append_ids(std::string& out, const CpuSet& set) {
  out += '[';
  bool first = true;
  for (std::uint32_t id : set.ids()) {
    if (!first) out += ',';
    first = false;
    out += std::to_string(id);
  }
  out += ']';
}

}  // namespace

std::string fit_answer_text(const FitResult& result) {
  std::string out;
  if (!result.placement) {
    out = R"({"kind":"no_fit","summary":)" + json_text(json(result.summary)) + R"(,"rejections":[)";
    for (std::size_t i = 0; i < result.rejections.size(); ++i) {
      const auto& r = result.rejections[i];
      if (i > 0) out += ',';
      out += R"({"guest_cell":)" + std::to_string(r.guest_cell) + R"(,"host_cell":)" + std::to_string(r.host_cell) +
             R"(,"reason":)" + json_text(json(r.reason)) + '}';
    }
    out += "]}";
    return out;
  }
  out.reserve(160 * result.placement->cells.size() + 32);
  out += R"({"kind":"fit","cells":[)";
  bool first_cell = true;
  for (const auto& cell : result.placement->cells) {
    if (!first_cell) out += ',';
    first_cell = false;
    out += R"({"guest_cell":)";
    out += std::to_string(cell.guest_cell);
    out += R"(,"host_cell":)";
    out += std::to_string(cell.host_cell);
    out += R"(,"guest_cpus":)";
    append_ids(out, cell.guest_cpus);
    out += R"(,"host_cpus":)";
    append_ids(out, cell.host_cpus);
    out += R"(,"memory_kib":)";
    out += std::to_string(cell.memory_kib);
    out += R"(,"pagesize_kib":)";
    out += cell.pagesize_kib == 0 ? std::string("null") : std::to_string(cell.pagesize_kib);
    out += R"(,"pinning":)";
    if (cell.pinning.empty()) {
      out += "null";
    } else {
      out += '{';
      bool first = true;
      for (const auto& [vcpu, pcpu] : cell.pinning) {
        if (!first) out += ',';
        first = false;
        out += '"';
        out += std::to_string(vcpu);
        out += "\":";
        out += std::to_string(pcpu);
      }
      out += '}';
    }
    out += R"(,"cpuset_reserved":)";
    if (cell.cpuset_reserved.empty()) {
      out += "null";
    } else {
      append_ids(out, cell.cpuset_reserved);
    }
    out += R"(,"isolated_cpus":)";
    append_ids(out, cell.isolated_cpus);
    out += '}';
  }
  out += "]}";
  return out;
}

std::string no_topology_answer_text() { return R"({"kind":"no_topology"})"; }

}  // namespace numaplace::plugin
