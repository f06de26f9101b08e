// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/fit/pci_pools.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>

#include "placement/model/fit_demands.h"
#include "placement/request/spec_values.h"

namespace numaplace {
namespace {

PciNumaPolicy alias_policy(const std::string& name) {
  if (name == "required") return PciNumaPolicy::Required;
  if (name == "preferred") return PciNumaPolicy::Preferred;
  if (name == "socket") return PciNumaPolicy::Socket;
  return PciNumaPolicy::Legacy;
}

// Nova's pci_device_prop_match: every key of the spec matches the device's value (tag_matches).
bool spec_matches(const PciDevice& dev, const PciSpec& spec) {
  for (const auto& [key, value] : spec) {
    PciTagValue id;
    const PciTagValue* have = nullptr;
    if (key == "vendor_id" || key == "product_id") {
      id = key == "vendor_id" ? dev.vendor_id : dev.product_id;
      have = &id;
    } else if (auto tag = dev.tags.find(key); tag != dev.tags.end()) {
      have = &tag->second;
    }
    if (!tag_matches(value, have)) return false;
  }
  return true;
}

// Whether `request` matches the free device `dev`, of any kind.
bool matches(const PciDevice& dev, const PciRequest& request) {
  if (dev.allocated) return false;
  if (!request.address.empty()) return dev.address == request.address;
  if (request.specs.empty()) return equal_without_case(dev.vendor_id, request.vendor_id) && equal_without_case(dev.product_id, request.product_id);
  return std::any_of(request.specs.begin(), request.specs.end(), [&](const PciSpec& spec) { return spec_matches(dev, spec); });
}

// A tag as Nova's filters of unrequested kinds read it: None where it is missing.
PciTagValue tag_of(const PciDevice& dev, const char* key) {
  auto tag = dev.tags.find(key);
  return tag == dev.tags.end() ? PciTagValue::none() : tag->second;
}

bool asks_for(const PciRequest& request, const char* key, const std::function<bool(const PciTagValue&)>& wanted) {
  return std::any_of(request.specs.begin(), request.specs.end(), [&](const PciSpec& spec) {
    auto value = spec.find(key);
    return wanted(value == spec.end() ? PciTagValue::none() : value->second);
  });
}

// oslo's bool_from_string as Nova applies it to a tag: a string read as above; None false; any
// other value as Python's str() of it, which for JSON's true, false and 1 reads as they do.
bool truthy_tag(const PciTagValue& value) {
  return value.kind() != PciTagValue::Kind::None && bool_from_string(value.text());
}

// Nova gives a request no PF, VDPA device or remote-managed device unless one of its specs asks
// for that kind (the kinds as the host's tags state them). A request for one device by address
// is given that device whatever its kind.
bool kind_not_asked_for(const PciDevice& dev, const PciRequest& request) {
  if (!request.address.empty() || dev.tags.empty()) return false;
  const PciTagValue dev_type = tag_of(dev, "dev_type");
  for (const char* kind : {"type-PF", "vdpa"}) {
    if (dev_type == PciTagValue(kind) && !asks_for(request, "dev_type", [&](const PciTagValue& v) { return v == PciTagValue(kind); })) {
      return true;
    }
  }
  return truthy_tag(tag_of(dev, "remote_managed")) && !asks_for(request, "remote_managed", truthy_tag);
}

bool same_value(const PciTagValue& a, const PciTagValue& b) {
  return a.kind() == b.kind() && (a.is_string() ? equal_without_case(a.text(), b.text()) : a.text() == b.text());
}

// Requests that draw on exactly the same devices: the same spec list (or device kind), or the
// same one device.
bool same_device(const PciRequest& a, const PciRequest& b) {
  if (a.address != b.address || a.specs.size() != b.specs.size()) return false;
  if (!a.specs.empty()) {
    for (std::size_t i = 0; i < a.specs.size(); ++i) {
      const PciSpec& x = a.specs[i];
      const PciSpec& y = b.specs[i];
      if (x.size() != y.size()) return false;
      for (auto p = x.begin(), q = y.begin(); p != x.end(); ++p, ++q) {
        if (p->first != q->first || !same_value(p->second, q->second)) return false;
      }
    }
    return true;
  }
  return equal_without_case(a.vendor_id, b.vendor_id) && equal_without_case(a.product_id, b.product_id);
}

// Devices of one Nova pool: the same ids, tags and NUMA node.
bool same_pool(const PciDevice& a, const PciDevice& b) {
  return a.numa_node == b.numa_node && equal_without_case(a.vendor_id, b.vendor_id) && equal_without_case(a.product_id, b.product_id) &&
         a.tags == b.tags;
}

// Nova's pool of one device kind on one NUMA node (none: the device has no NUMA node).
struct DevicePool {
  const PciDevice* kind = nullptr;  // the pool's first device: what its devices are
  bool named = false;               // a device a request names by address: a pool of its own
  std::uint32_t count = 0;          // devices left
  std::vector<const PciDevice*> devices;  // when kept: all of them, in the host's order; the last `count` are left
};

// Every free device some request matches, pooled by kind and NUMA node, in Nova's order of pools;
// `keep_devices`: each pool lists its devices (for pci_devices_given; the search needs counts only).
std::vector<DevicePool> pools_of(const HostTopology& host, const std::vector<PciDemand>& demands, bool keep_devices) {
  std::vector<DevicePool> pools;
  for (const auto& dev : host.pci) {
    bool named = false;
    bool wanted = false;
    for (const auto& d : demands) {
      if (!matches(dev, d.request)) continue;
      wanted = true;
      named = named || !d.request.address.empty();
    }
    if (!wanted) continue;
    auto pool = named ? pools.end() : std::find_if(pools.begin(), pools.end(), [&](const DevicePool& p) {
      return !p.named && same_pool(*p.kind, dev);
    });
    if (pool == pools.end()) pool = pools.insert(pools.end(), DevicePool{&dev, named, 0, {}});
    ++pool->count;
    if (keep_devices) pool->devices.push_back(&dev);
  }
  // Nova keeps its pools ordered by how many keys they have (tags included), fewer first.
  std::stable_sort(pools.begin(), pools.end(),
                   [](const DevicePool& a, const DevicePool& b) { return a.kind->tags.size() < b.kind->tags.size(); });
  return pools;
}

std::uint32_t devices_in(const std::vector<DevicePool*>& pools) {
  std::uint32_t n = 0;
  for (const DevicePool* p : pools) n += p->count;
  return n;
}

// The pools one request may draw from, in the order it draws from them, by Nova's policy rules:
// the chosen cells' pools when they hold enough (always for required); socket: pools on any cell
// sharing a socket with a chosen cell; legacy: chosen cells' and node-less pools; preferred:
// those if enough, else every pool, the chosen cells' and node-less ones first. "Enough" counts
// the pools of kinds the request does not ask for too; those are dropped from the answer.
std::vector<DevicePool*> pools_allowed(const HostTopology& host, const PciDemand& demand,
                                       std::vector<DevicePool>& all_pools, const std::vector<bool>& chosen) {
  std::vector<DevicePool*> pools;
  for (auto& p : all_pools) {
    if (p.count > 0 && matches(*p.kind, demand.request)) pools.push_back(&p);
  }
  auto on_chosen_cell = [&](const DevicePool* p) {
    if (!p->kind->numa_node) return false;
    for (std::size_t i = 0; i < host.cells.size(); ++i) {
      if (chosen[i] && host.cells[i].id == *p->kind->numa_node) return true;
    }
    return false;
  };
  auto asked_for = [&](std::vector<DevicePool*> step) {
    std::erase_if(step, [&](const DevicePool* p) { return kind_not_asked_for(*p->kind, demand.request); });
    return step;
  };
  std::vector<DevicePool*> local;
  for (DevicePool* p : pools) {
    if (on_chosen_cell(p)) local.push_back(p);
  }
  const std::uint32_t count = demand.request.count;
  if (demand.policy == PciNumaPolicy::Required || devices_in(local) >= count) return asked_for(local);
  std::vector<DevicePool*> allowed;
  if (demand.policy == PciNumaPolicy::Socket) {
    for (const auto& cell : host.cells) {
      if (!cell.socket) return allowed;
    }
    for (DevicePool* p : pools) {
      bool near = false;
      for (std::size_t i = 0; i < host.cells.size() && p->kind->numa_node; ++i) {
        if (host.cells[i].id != *p->kind->numa_node) continue;
        for (std::size_t j = 0; j < host.cells.size() && !near; ++j) {
          near = chosen[j] && *host.cells[j].socket == *host.cells[i].socket;
        }
      }
      if (near) allowed.push_back(p);
    }
    return asked_for(allowed);
  }
  for (DevicePool* p : pools) {
    if (!p->kind->numa_node || on_chosen_cell(p)) allowed.push_back(p);
  }
  if (demand.policy != PciNumaPolicy::Preferred || devices_in(allowed) >= count) return asked_for(allowed);
  for (DevicePool* p : pools) {
    if (p->kind->numa_node && !on_chosen_cell(p)) allowed.push_back(p);
  }
  return asked_for(allowed);
}

// Takes `demand`'s devices from the pools it may draw from; false when they hold too few.
// `given`, when set, receives the devices taken, each pool's first ones left first.
bool take_devices(const HostTopology& host, const PciDemand& demand, std::vector<DevicePool>& pools,
                  const std::vector<bool>& chosen, std::vector<const PciDevice*>* given = nullptr) {
  std::vector<DevicePool*> allowed = pools_allowed(host, demand, pools, chosen);
  std::uint32_t wanted = demand.request.count;
  if (devices_in(allowed) < wanted) return false;
  for (DevicePool* p : allowed) {
    const std::uint32_t taken = std::min(wanted, p->count);
    if (given != nullptr) {
      const std::size_t first = p->devices.size() - p->count;
      given->insert(given->end(), p->devices.begin() + static_cast<std::ptrdiff_t>(first),
                    p->devices.begin() + static_cast<std::ptrdiff_t>(first + taken));
    }
    p->count -= taken;
    wanted -= taken;
    if (wanted == 0) break;
  }
  return true;
}

// Serves the requests one after another from one set of pools, as Nova applies them, those
// naming their device first (it can serve no other of them); false at the first that cannot be
// served (`*shortfall`, when given). `given`, when set, receives the devices taken.
bool serve_in_turn(const HostTopology& host, const std::vector<PciDemand>& demands, const std::vector<bool>& chosen,
                   std::vector<const PciDevice*>* given, const PciDemand** shortfall) {
  std::vector<DevicePool> pools = pools_of(host, demands, given != nullptr);
  for (bool by_address : {true, false}) {
    for (const auto& d : demands) {
      if (d.request.address.empty() == by_address) continue;
      if (!take_devices(host, d, pools, chosen, given)) {
        if (shortfall != nullptr) *shortfall = &d;
        return false;
      }
    }
  }
  return true;
}

}  // namespace

bool pci_demands_satisfied(const HostTopology& host, const std::vector<PciDemand>& demands,
                           const std::vector<bool>& chosen, const PciDemand** shortfall) {
  bool shared = false;
  for (const auto& d : demands) {
    if (!d.satisfied(host, chosen)) {
      if (shortfall != nullptr) *shortfall = &d;
      return false;
    }
    shared = shared || d.shares_devices;
  }
  if (!shared) return true;  // requests for different devices never compete
  return serve_in_turn(host, demands, chosen, nullptr, shortfall);
}

std::vector<const PciDevice*> pci_devices_given(const HostTopology& host, const std::vector<PciDemand>& demands,
                                                const std::vector<bool>& chosen) {
  std::vector<const PciDevice*> given;
  if (!serve_in_turn(host, demands, chosen, &given, nullptr)) return {};
  return given;
}

std::uint32_t PciDemand::usable(const HostTopology& host, const std::vector<bool>& chosen) const {
  // Each step of Nova's policy is taken on every matching device, kinds not asked for included
  // (the *_matching counts, when there are such devices), and gives the devices of that step the
  // request may be given.
  const bool other_kinds = !per_cell_matching.empty();
  std::uint32_t local = 0;
  std::uint32_t local_matching = 0;
  for (std::size_t i = 0; i < per_cell.size(); ++i) {
    if (!chosen[i]) continue;
    local += per_cell[i];
    local_matching += other_kinds ? per_cell_matching[i] : per_cell[i];
  }
  // A request sharing devices with others is served after them (pci_demands_satisfied): they may
  // take the devices that made a step "enough" here, so that this one reaches a wider step. Its
  // count is then of the widest step its policy can reach, and the exact answer is the serving's.
  const bool wider_reachable = shares_devices;
  if (policy == PciNumaPolicy::Required || (!wider_reachable && local_matching >= request.count)) return local;
  if (policy == PciNumaPolicy::Socket) {
    // Without a list of sockets: this runs at every leaf of the search, which allocates nothing.
    // Without sockets Nova's socket step gives nothing; the first step may still have been taken.
    for (const auto& cell : host.cells) {
      if (!cell.socket) return wider_reachable ? local : 0;
    }
    std::uint32_t near = 0;
    for (std::size_t i = 0; i < host.cells.size(); ++i) {
      bool shares_socket = false;
      for (std::size_t j = 0; j < host.cells.size() && !shares_socket; ++j) {
        shares_socket = chosen[j] && *host.cells[j].socket == *host.cells[i].socket;
      }
      if (shares_socket) near += per_cell[i];
    }
    return near;
  }
  const std::uint32_t with_floating = local + without_node;
  const std::uint32_t with_floating_matching = local_matching + (other_kinds ? without_node_matching : without_node);
  if (policy == PciNumaPolicy::Preferred && (wider_reachable || with_floating_matching < request.count)) return total;
  return with_floating;
}

bool PciDemand::satisfied(const HostTopology& host, const std::vector<bool>& chosen) const {
  return fits_within("pci", static_cast<double>(request.count), static_cast<double>(usable(host, chosen)));
}

namespace {

std::string spec_text(const PciRequest& request) {
  if (request.specs.empty()) return request.vendor_id + ":" + request.product_id;
  std::string text;
  for (const auto& spec : request.specs) {
    if (!text.empty()) text += " or ";
    std::string one;
    for (const auto& [key, value] : spec) {
      one += (one.empty() ? "" : " ") + key + "=" + (value.kind() == PciTagValue::Kind::None ? "None" : value.text());
    }
    text += one.empty() ? "any device" : one;
  }
  return request.specs.size() > 1 ? "(" + text + ")" : text;
}

}  // namespace

std::string PciDemand::describe() const {
  const std::string device = request.address.empty() ? std::to_string(request.count) + " x " + spec_text(request)
                                                     : "device " + request.address;
  return device + " (policy " + to_string(policy == PciNumaPolicy::Unset ? PciNumaPolicy::Legacy : policy) + ")";
}

std::vector<PciDemand> pci_demands(const HostTopology& host, const GuestTopology& guest) {
  std::vector<PciDemand> out;
  for (const auto& request : guest.pci_requests) {
    PciDemand demand;
    demand.request = request;
    demand.policy = guest.pci_numa_policy != PciNumaPolicy::Unset ? guest.pci_numa_policy
                                                                  : alias_policy(request.alias_numa_policy);
    demand.per_cell.assign(host.cells.size(), 0);
    demand.first_for_device = out.size();
    demand.asked_so_far = request.count;
    for (std::size_t e = out.size(); e-- > 0;) {  // the latest earlier request for it carries the sum
      if (same_device(out[e].request, request)) {
        demand.first_for_device = out[e].first_for_device;
        demand.asked_so_far += out[e].asked_so_far;
        break;
      }
    }
    std::vector<std::uint32_t> per_cell_matching(host.cells.size(), 0);
    bool other_kinds = false;
    for (const auto& dev : host.pci) {
      if (!matches(dev, request)) continue;
      for (auto& earlier : out) {
        if (!matches(dev, earlier.request)) continue;
        earlier.shares_devices = true;
        demand.shares_devices = true;
      }
      const bool given = !kind_not_asked_for(dev, request);
      other_kinds = other_kinds || !given;
      demand.total += given ? 1 : 0;
      if (!dev.numa_node) {
        demand.without_node += given ? 1 : 0;
        ++demand.without_node_matching;
        continue;
      }
      for (std::size_t i = 0; i < host.cells.size(); ++i) {
        if (host.cells[i].id != *dev.numa_node) continue;
        demand.per_cell[i] += given ? 1 : 0;
        ++per_cell_matching[i];
      }
    }
    if (other_kinds) {
      demand.per_cell_matching = std::move(per_cell_matching);
    } else {
      demand.without_node_matching = demand.without_node;
    }
    out.push_back(std::move(demand));
  }
  return out;
}

std::uint32_t free_pci_devices_on(const HostTopology& host, std::uint32_t cell_id) {
  std::uint32_t n = 0;
  for (const auto& dev : host.pci) n += (!dev.allocated && dev.numa_node && *dev.numa_node == cell_id) ? 1 : 0;
  return n;
}

}  // namespace numaplace
