// SPDX-License-Identifier: LGPL-2.1-or-later
#include "conformance/nova_vector.h"
#include "conformance/json_number.h"

#include <algorithm>

namespace numaplace::conformance {
namespace {

CpuSet cpu_set(const nlohmann::json& list) {
  CpuSet set;
  for (const auto& id : list) set.insert(whole<std::uint32_t>(id));
  return set;
}

SpecMap spec_map(const nlohmann::json& object) {
  SpecMap map;
  if (!object.is_object()) return map;
  for (const auto& [key, value] : object.items()) {
    map[key] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  return map;
}

// A PCI tag or spec value as the vectors write it: a string, null (Nova's None) or other JSON.
PciTagValue tag_value(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.is_null() ? PciTagValue::none() : PciTagValue::json(value.dump());
}

// Nova's NetworkMetadata as the vectors write it: {"physnets": [...], "tunneled": bool}, absent: none.
NetworkAffinity network_affinity(const nlohmann::json& object) {
  NetworkAffinity out;
  if (!object.contains("network_metadata") || !object["network_metadata"].is_object()) return out;
  const auto& m = object["network_metadata"];
  for (const auto& name : m.value("physnets", nlohmann::json::array())) out.physnets.push_back(name.get<std::string>());
  std::sort(out.physnets.begin(), out.physnets.end());
  out.physnets.erase(std::unique(out.physnets.begin(), out.physnets.end()), out.physnets.end());
  out.tunneled = m.value("tunneled", false);
  return out;
}

}  // namespace

HostTopology host_from_nova_json(const nlohmann::json& host) {
  HostTopology topology;
  topology.accounting = Accounting::Nova;  // the vectors were made by Nova's own accounting
  for (const auto& c : host.at("cells")) {
    HostCell cell;
    cell.id = whole<std::uint32_t>(c.at("id"));
    cell.cpus = cpu_set(c.at("cpus"));
    cell.shared_cpus = c.contains("shared_cpuset") && !c["shared_cpuset"].is_null() ? cpu_set(c["shared_cpuset"]) : cell.cpus;
    cell.dedicated_cpus =
        c.contains("dedicated_cpuset") && !c["dedicated_cpuset"].is_null() ? cpu_set(c["dedicated_cpuset"]) : cell.cpus;
    for (const auto& group : c.value("siblings", nlohmann::json::array())) cell.siblings.push_back(cpu_set(group));
    cell.memory_kib = whole<std::uint64_t>(c.at("memory_mib")) * 1024;
    for (const auto& p : c.value("pages", nlohmann::json::array())) {
      PagePool pool;
      pool.size_kib = whole<std::uint64_t>(p.at("size_kib"));
      if (pool.size_kib == 0) {
        throw nlohmann::json::type_error::create(302, "a page size of 0 KiB is impossible", &p);
      }
      pool.total = whole<std::uint64_t>(p.at("total"));
      pool.used = whole_or<std::uint64_t>(p, "used", 0);
      pool.reserved = whole_or<std::uint64_t>(p, "reserved", 0);
      cell.pages.push_back(pool);
    }
    std::sort(cell.pages.begin(), cell.pages.end(),
              [](const PagePool& a, const PagePool& b) { return a.size_kib < b.size_kib; });
    if (c.contains("socket") && !c["socket"].is_null()) cell.socket = whole<std::uint32_t>(c["socket"]);
    cell.network = network_affinity(c);
    for (const auto& d : c.value("distances", nlohmann::json::array())) cell.distances.push_back(whole<std::uint32_t>(d));
    if (c.contains("usage")) {
      const auto& u = c["usage"];
      cell.usage.shared_cpus = u.value("shared_cpus", 0.0);
      cell.usage.pinned_cpus = cpu_set(u.value("pinned_cpus", nlohmann::json::array()));
      cell.usage.memory_kib = whole_or<std::uint64_t>(u, "memory_mib", 0) * 1024;
    }
    topology.cells.push_back(std::move(cell));
  }
  for (const auto& d : host.value("pci", nlohmann::json::array())) {
    PciDevice dev;
    dev.address = d.value("address", "");
    if (d.contains("numa_node") && !d["numa_node"].is_null()) dev.numa_node = whole<std::uint32_t>(d["numa_node"]);
    dev.vendor_id = d.value("vendor_id", "");
    dev.product_id = d.value("product_id", "");
    dev.allocated = d.value("allocated", false);
    const nlohmann::json tags = d.value("tags", nlohmann::json::object());  // kept: items() refers to it
    for (const auto& [key, value] : tags.items()) dev.tags[key] = tag_value(value);
    topology.pci.push_back(std::move(dev));
  }
  // null: Nova ran with limits=None, so no ratio is checked (nova/README.md "Extensions").
  if (host.contains("allocation_ratio") && host["allocation_ratio"].is_null()) topology.ratio.enforced = false;
  if (host.contains("allocation_ratio") && host["allocation_ratio"].is_object()) {
    topology.ratio.cpu = host["allocation_ratio"].value("cpu", topology.ratio.cpu);
    topology.ratio.ram = host["allocation_ratio"].value("ram", topology.ratio.ram);
  }
  return topology;
}

GuestRequest request_from_nova_json(const nlohmann::json& request) {
  GuestRequest out;
  const auto& flavor = request.at("flavor");
  out.vcpus = whole<std::uint32_t>(flavor.at("vcpus"));
  out.memory_kib = whole<std::uint64_t>(flavor.at("memory_mib")) * 1024;
  out.flavor_specs = spec_map(flavor.value("extra_specs", nlohmann::json::object()));
  if (request.contains("image")) out.image_props = spec_map(request["image"].value("properties", nlohmann::json::object()));
  for (const auto& p : request.value("pci", nlohmann::json::array())) {
    out.pci.push_back({whole_or<std::uint32_t>(p, "count", 1u), p.value("vendor_id", ""), p.value("product_id", ""),
                       p.contains("alias_numa_policy") && p["alias_numa_policy"].is_string()
                           ? p["alias_numa_policy"].get<std::string>()
                           : std::string(),
                       std::string(), {}});
    for (const auto& spec : p.value("specs", nlohmann::json::array())) {
      PciSpec one;
      for (const auto& [key, value] : spec.items()) one[key] = tag_value(value);
      out.pci.back().specs.push_back(std::move(one));
    }
  }
  out.networks = network_affinity(request);
  return out;
}

FitOptions options_from_nova_config(const nlohmann::json& vector) {
  FitOptions options;
  if (vector.contains("config") && vector["config"].is_object()) {
    options.pack_host_cells = vector["config"].value("compute.packing_host_numa_cells_allocation_strategy", false);
  }
  return options;
}

}  // namespace numaplace::conformance
