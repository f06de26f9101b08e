// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/sources/host_json.h"

#include "placement/model/utf8_text.h"

#include "placement/lifecycle/default_placement.h"
#include "placement/model/host_consistency.h"
#include "plugin/sources/json_fields.h"
#include "placement/model/pci_address.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <set>
#include <string_view>

namespace numaplace::plugin {
namespace {

using nlohmann::json;

using json_fields::bad;
using json_fields::BadField;
using json_fields::check_members;
using json_fields::cpus_of;
using json_fields::field;
using json_fields::memory_of;
using json_fields::unsigned_of;


double ratio_of(const json& value, const std::string& where) {
  if (!value.is_number()) bad(where, "must be a number");
  const double d = value.get<double>();
  if (!std::isfinite(d) || d <= 0 || d > 1e6) bad(where, "must be a positive number");
  return d;
}




std::string string_of(const json& object, const char* name, const std::string& where) {
  const json* value = field(object, name);
  if (value == nullptr) return {};
  if (!value->is_string()) bad(where + "." + name, "must be a string");
  return value->get<std::string>();
}

HostCell cell_of(const json& c, const std::string& where) {
  if (!c.is_object()) bad(where, "must be an object");
  // "free" and "cache_domains" are what host_to_json writes for people, not read back.
  check_members(c, {"id", "cpus", "shared_cpuset", "dedicated_cpuset", "siblings", "memory_mib", "memory_kib", "pages",
                    "distances", "socket", "network_metadata", "usage", "free", "cache_domains"},
                where);
  HostCell cell;
  const json* id = field(c, "id");
  if (id == nullptr) bad(where, "has no id");
  cell.id = static_cast<std::uint32_t>(unsigned_of(*id, where + ".id", 65535));
  const json* cpus = field(c, "cpus");
  if (cpus == nullptr) bad(where, "has no cpus");
  cell.cpus = cpus_of(*cpus, where + ".cpus");
  const json* shared = field(c, "shared_cpuset");
  cell.shared_cpus = shared != nullptr ? cpus_of(*shared, where + ".shared_cpuset") : cell.cpus;
  const json* dedicated = field(c, "dedicated_cpuset");
  cell.dedicated_cpus = dedicated != nullptr ? cpus_of(*dedicated, where + ".dedicated_cpuset") : cell.cpus;
  if (!cell.shared_cpus.minus(cell.cpus).empty() || !cell.dedicated_cpus.minus(cell.cpus).empty()) {
    bad(where, "shared_cpuset and dedicated_cpuset must be within cpus");
  }
  if (const json* siblings = field(c, "siblings")) {
    if (!siblings->is_array()) bad(where + ".siblings", "must be a list of CPU lists");
    for (std::size_t i = 0; i < siblings->size(); ++i) {
      cell.siblings.push_back(cpus_of((*siblings)[i], where + ".siblings[" + std::to_string(i) + "]"));
    }
  }
  if (const json* domains = field(c, "cache_domains")) {
    if (!domains->is_array()) bad(where + ".cache_domains", "must be a list of CPU lists");
    for (std::size_t i = 0; i < domains->size(); ++i) {
      CpuSet domain = cpus_of((*domains)[i], where + ".cache_domains[" + std::to_string(i) + "]");
      if (!domain.is_subset_of(cell.cpus)) bad(where + ".cache_domains[" + std::to_string(i) + "]", "must be within cpus");
      cell.cache_domains.push_back(std::move(domain));
    }
  }
  cell.memory_kib = memory_of(c, where, true);
  if (const json* pages = field(c, "pages")) {
    if (!pages->is_array()) bad(where + ".pages", "must be a list");
    for (std::size_t i = 0; i < pages->size(); ++i) {
      const json& p = (*pages)[i];
      const std::string at = where + ".pages[" + std::to_string(i) + "]";
      if (!p.is_object()) bad(at, "must be {\"size_kib\", \"total\", \"used\"}");
      check_members(p, {"size_kib", "total", "used", "reserved"}, at);  // a misspelt size_kib is named as such
      if (field(p, "size_kib") == nullptr || field(p, "total") == nullptr) bad(at, "must be {\"size_kib\", \"total\", \"used\"}");
      constexpr std::uint64_t kMaxPages = std::uint64_t{1} << 40;
      PagePool pool;
      pool.size_kib = unsigned_of(p["size_kib"], at + ".size_kib", std::uint64_t{1} << 30);
      if (pool.size_kib == 0) bad(at + ".size_kib", "must not be 0");
      pool.total = unsigned_of(p["total"], at + ".total", kMaxPages);
      if (const json* used = field(p, "used")) pool.used = unsigned_of(*used, at + ".used", kMaxPages);
      if (const json* reserved = field(p, "reserved")) pool.reserved = unsigned_of(*reserved, at + ".reserved", kMaxPages);
      cell.pages.push_back(pool);
    }
    if (const auto twice = sort_page_pools(cell.pages)) {
      bad(where + ".pages", "lists page size " + std::to_string(*twice) + " KiB more than once; give each size one pool");
    }
  }
  if (const json* network = field(c, "network_metadata")) cell.network = json_fields::network_of(*network, where + ".network_metadata");
  if (const json* socket = field(c, "socket")) cell.socket = static_cast<std::uint32_t>(unsigned_of(*socket, where + ".socket", 65535));
  if (const json* distances = field(c, "distances")) {
    if (!distances->is_array()) bad(where + ".distances", "must be a list");
    for (std::size_t i = 0; i < distances->size(); ++i) {
      cell.distances.push_back(static_cast<std::uint32_t>(
          unsigned_of((*distances)[i], where + ".distances[" + std::to_string(i) + "]", 65535)));
    }
  }
  if (const json* usage = field(c, "usage")) {
    const std::string at = where + ".usage";
    if (!usage->is_object()) bad(at, "must be an object");
    check_members(*usage, {"shared_cpus", "pinned_cpus", "memory_mib", "memory_kib"}, at);
    if (const json* load = field(*usage, "shared_cpus")) {
      if (!load->is_number() || !std::isfinite(load->get<double>()) || load->get<double>() < 0 ||
          load->get<double>() > 1e9) {
        bad(at + ".shared_cpus", "must be a non-negative number");
      }
      cell.usage.shared_cpus = load->get<double>();
    }
    if (const json* pinned = field(*usage, "pinned_cpus")) cell.usage.pinned_cpus = cpus_of(*pinned, at + ".pinned_cpus");
    cell.usage.memory_kib = memory_of(*usage, at, false);
  }
  return cell;
}

PciDevice pci_of(const json& d, const std::string& where) {
  if (!d.is_object()) bad(where, "must be an object");
  PciDevice dev;
  dev.address = string_of(d, "address", where);
  if (const json* node = field(d, "numa_node")) {
    // The usual node is read without making its location's text, which only an error needs.
    dev.numa_node = static_cast<std::uint32_t>(node->is_number_unsigned() && node->get<std::uint64_t>() <= 65535
                                                   ? node->get<std::uint64_t>()
                                                   : unsigned_of(*node, where + ".numa_node", 65535));
  }
  dev.vendor_id = string_of(d, "vendor_id", where);
  dev.product_id = string_of(d, "product_id", where);
  dev.class_id = string_of(d, "class_id", where);
  dev.parent_pf = string_of(d, "parent_pf", where);
  dev.held_by = string_of(d, "held_by", where);
  // One spelling for every source, so that a guest's <hostdev> finds its device.
  if (auto canonical = canonical_pci_address(dev.address)) dev.address = *canonical;
  if (const json* allocated = field(d, "allocated")) {
    if (!allocated->is_boolean()) bad(where + ".allocated", "must be true or false");
    dev.allocated = allocated->get<bool>();
  }
  if (const json* pf = field(d, "is_pf")) {
    if (!pf->is_boolean()) bad(where + ".is_pf", "must be true or false");
    dev.is_pf = pf->get<bool>();
  }
  if (const json* tags = field(d, "tags")) dev.tags = json_fields::tag_map_of(*tags, where + ".tags");
  return dev;
}

std::vector<PciDevice> pci_list_of(const json& list, const std::string& where) {
  if (!list.is_array()) bad(where, "must be a list");
  std::vector<PciDevice> devices;
  std::set<std::string> addresses;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    devices.push_back(pci_of(list[i], at));
    // One device listed twice would be given to two requests (or two guests) as two devices.
    if (!devices.back().address.empty() && !addresses.insert(devices.back().address).second) {
      bad(at + ".address", "repeats device " + devices.back().address + "; list each device once");
    }
  }
  return devices;
}

// Parses `text` and reads it with `read`: "InvalidHostJson" when it is not JSON or a field is bad.
template <typename Read>
auto read_text(std::string_view text, const std::string& where, Read&& read) -> Result<decltype(read(json()))> {
  auto [parsed, repeated] = json_fields::parse_json(text);
  if (parsed.is_discarded()) return make_error("InvalidHostJson", where + " is not valid JSON");
  if (!repeated.empty()) return make_error("InvalidHostJson", where + ": " + json_fields::repeated_member_problem(repeated));
  try {
    return read(parsed);
  } catch (const BadField& problem) {
    return make_error("InvalidHostJson", problem.message);
  }
}

HostTopology parse(const json& host, const std::string& what) {
  if (!host.is_object()) bad(what, "must be a JSON object with \"cells\"");
  // "name" is rank's; "guests" and "warnings" are what `topology --json` and np_host_to_json add for
  // people, not read back.
  check_members(host, {"name", "cells", "pci", "allocation_ratio", "accounting", "unbound_memory_kib", "guests", "warnings",
                       "unread_running_guests"},
                what);
  if (const json* name = field(host, "name"); name != nullptr) {
    if (!name->is_string()) bad(what + ".name", "must be a string");
    if (name->get_ref<const std::string&>().empty()) bad(what + ".name", "must not be empty (rank shows it as the host)");
  }
  const json* cells = field(host, "cells");
  if (cells == nullptr || !cells->is_array() || cells->empty()) bad(what, "needs a non-empty \"cells\" list");
  HostTopology topology;
  // A cell id twice and a CPU in two cells or cores are what the host says, not how the JSON says
  // it: check_host_consistency names them after the parse, as it does for every reader.
  for (std::size_t i = 0; i < cells->size(); ++i) {
    topology.cells.push_back(cell_of((*cells)[i], what + ".cells[" + std::to_string(i) + "]"));
  }
  // A distance row is one distance per cell, in the cells' order; another length cannot be read.
  for (std::size_t i = 0; i < topology.cells.size(); ++i) {
    const std::size_t given = topology.cells[i].distances.size();
    if (given != 0 && given != topology.cells.size()) {
      bad(what + ".cells[" + std::to_string(i) + "].distances",
          "lists " + std::to_string(given) + " distances for " + std::to_string(topology.cells.size()) +
              " cells; give one per cell, in the cells' order (or none)");
    }
  }
  if (const json* pci = field(host, "pci")) topology.pci = pci_list_of(*pci, what + ".pci");
  // Nova's host model, Nova's accounting, unless the host says otherwise.
  topology.accounting = Accounting::Nova;
  if (const json* accounting = field(host, "accounting")) {
    if (*accounting == "exclusive") {
      topology.accounting = Accounting::Exclusive;
    } else if (*accounting != "nova") {
      bad(what + ".accounting", "must be \"nova\" (Nova's: pinned and floating use may overlap) or \"exclusive\" "
                                "(pinned pCPUs are nobody else's)");
    }
  }
  if (const json* unbound = field(host, "unbound_memory_kib")) {
    if (!unbound->is_number_unsigned()) bad(what + ".unbound_memory_kib", "must be a whole number of KiB");
    topology.unbound_memory_kib = unbound->get<std::uint64_t>();
  }
  if (auto limits = host.find("allocation_ratio"); limits != host.end() && limits->is_null()) {
    topology.ratio.enforced = false;  // the vectors' null: no limits, as Nova's limits=None
  }
  if (const json* ratio = field(host, "allocation_ratio")) {
    if (!ratio->is_object()) bad(what + ".allocation_ratio", "must be {\"cpu\", \"ram\"}");
    if (const json* cpu = field(*ratio, "cpu")) topology.ratio.cpu = ratio_of(*cpu, what + ".allocation_ratio.cpu");
    if (const json* ram = field(*ratio, "ram")) topology.ratio.ram = ratio_of(*ram, what + ".allocation_ratio.ram");
  }
  return topology;
}

json cpu_array(const CpuSet& set) { return set.ids(); }

}  // namespace

Result<HostTopology> host_from_json(const nlohmann::json& host, std::string_view what) {
  try {
    HostTopology topology = parse(host, std::string(what));
    if (auto consistent = check_host_consistency(topology, std::string(what)); !consistent) return consistent.error();
    // `topology --json` lists the running guests it could not read: their holdings are missing from
    // the usage, and placing on this host would give them out again.
    if (const json* unread = field(host, "unread_running_guests")) {
      const auto sentences = [](const json& list) {
        return list.is_array() && std::all_of(list.begin(), list.end(), [](const json& s) { return s.is_string(); });
      };
      if (!sentences(*unread)) bad(std::string(what) + ".unread_running_guests", "must be a list of sentences");
      if (!unread->empty()) {
        // The first sentence, cut short: the file is a program's, its text may be anything.
        std::string first = unread->front().get<std::string>();
        if (first.size() > 200) first = first.substr(0, 200) + "...";
        return make_error("RunningGuestsUnknown",
                          std::string(what) + " was written beside " + std::to_string(unread->size()) +
                              " running guest(s) whose holdings could not be read (" + printable_text(first) +
                              "), so its usage leaves them out; write it again once they read (numaplace topology "
                              "--json names them)");
      }
    }
    return topology;
  } catch (const BadField& problem) {
    return make_error("InvalidHostJson", problem.message);
  } catch (const std::exception& e) {
    return make_error("InvalidHostJson", std::string(what) + ": " + e.what());
  }
}

Result<HostTopology> host_from_json_text(std::string_view text, std::string_view what) {
  auto [parsed, repeated] = json_fields::parse_json(text);
  if (parsed.is_discarded()) return make_error("InvalidHostJson", std::string(what) + " is not valid JSON");
  if (!repeated.empty()) return make_error("InvalidHostJson", std::string(what) + ": " + json_fields::repeated_member_problem(repeated));
  return host_from_json(parsed, what);
}

Result<std::vector<PciDevice>> pci_devices_from_json_text(std::string_view text, std::string_view what) {
  const std::string where(what);
  return read_text(text, where, [&](const json& list) { return pci_list_of(list, where); });
}

Result<std::vector<NetworkAffinity>> cell_networks_from_json_text(std::string_view text, std::size_t cells,
                                                                  std::string_view what) {
  const std::string where(what);
  return read_text(text, where, [&](const json& list) {
    if (!list.is_array() || list.size() != cells) {
      bad(where, "must be a list of " + std::to_string(cells) + " entries, one per cell (null or network_metadata)");
    }
    std::vector<NetworkAffinity> networks(cells);
    for (std::size_t i = 0; i < cells; ++i) {
      if (!list[i].is_null()) networks[i] = json_fields::network_of(list[i], where + "[" + std::to_string(i) + "]");
    }
    return networks;
  });
}

nlohmann::json host_to_json(const HostTopology& host) {
  json cells = json::array();
  for (const auto& cell : host.cells) {
    json siblings = json::array();
    for (const auto& group : cell.siblings) siblings.push_back(cpu_array(group));
    json pages = json::array();
    json free_pages = json::object();
    for (const auto& p : cell.pages) {
      pages.push_back({{"size_kib", p.size_kib}, {"total", p.total}, {"used", p.used}, {"reserved", p.reserved}});
      free_pages[std::to_string(p.size_kib)] = p.free();
    }
    json c{{"id", cell.id},
           {"cpus", cpu_array(cell.cpus)},
           {"shared_cpuset", cpu_array(cell.shared_cpus)},
           {"dedicated_cpuset", cpu_array(cell.dedicated_cpus)},
           {"siblings", siblings},
           {"memory_kib", cell.memory_kib},
           {"pages", pages},
           {"distances", cell.distances},
           {"usage",
            {{"shared_cpus", cell.usage.shared_cpus},
             {"pinned_cpus", cpu_array(cell.usage.pinned_cpus)},
             {"memory_kib", cell.usage.memory_kib}}},
           // Computed from the rest, for people and programs that ask what is left; never read back.
           {"free",
            {{"dedicated_cpus", cpu_array(cell.free_dedicated_cpus())},
             {"floating_cpus", cpu_array(floating_cpus_of(host, cell))},
             {"memory_kib", strict_memory_room_kib(host, cell)},
             {"pages", free_pages}}}};
    if (cell.socket) c["socket"] = *cell.socket;
    if (!cell.network.empty()) c["network_metadata"] = {{"physnets", cell.network.physnets}, {"tunneled", cell.network.tunneled}};
    if (!cell.cache_domains.empty()) {
      json domains = json::array();
      for (const auto& domain : cell.cache_domains) domains.push_back(cpu_array(domain));
      c["cache_domains"] = domains;
    }
    cells.push_back(std::move(c));
  }
  json pci = json::array();
  for (const auto& dev : host.pci) {
    pci.push_back({{"address", dev.address},
                   {"numa_node", dev.numa_node ? json(*dev.numa_node) : json()},
                   {"vendor_id", dev.vendor_id},
                   {"product_id", dev.product_id},
                   {"class_id", dev.class_id},
                   {"is_pf", dev.is_pf},
                   {"parent_pf", dev.parent_pf.empty() ? json() : json(dev.parent_pf)},
                   {"allocated", dev.allocated},
                   {"held_by", dev.held_by.empty() ? json() : json(dev.held_by)}});
    if (!dev.tags.empty()) pci.back()["tags"] = json_fields::tag_map_json(dev.tags);
  }
  json ratio = host.ratio.enforced ? json{{"cpu", host.ratio.cpu}, {"ram", host.ratio.ram}} : json(nullptr);
  return {{"cells", cells},
          {"pci", pci},
          {"allocation_ratio", ratio},
          {"accounting", host.accounting == Accounting::Nova ? "nova" : "exclusive"},
          {"unbound_memory_kib", host.unbound_memory_kib}};
}

}  // namespace numaplace::plugin
