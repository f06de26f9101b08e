// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/fit/pci_pools.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "placement/model/fit_demands.h"

namespace numaplace {
namespace {

bool same_id(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

PciNumaPolicy alias_policy(const std::string& name) {
  if (name == "required") return PciNumaPolicy::Required;
  if (name == "preferred") return PciNumaPolicy::Preferred;
  if (name == "socket") return PciNumaPolicy::Socket;
  return PciNumaPolicy::Legacy;
}

bool matches(const PciDevice& dev, const PciRequest& request) {
  if (dev.allocated) return false;
  if (!request.address.empty()) return dev.address == request.address;
  return same_id(dev.vendor_id, request.vendor_id) && same_id(dev.product_id, request.product_id);
}

// Requests that draw on the same devices: the same device kind, or the same one device.
bool same_device(const PciRequest& a, const PciRequest& b) {
  return a.address == b.address && same_id(a.vendor_id, b.vendor_id) && same_id(a.product_id, b.product_id);
}

// Nova's pool of one device kind on one NUMA node (none: the device has no NUMA node).
struct DevicePool {
  std::optional<std::uint32_t> node;
  std::uint32_t count = 0;
};

// The free devices `request` matches, pooled by NUMA node in the order the host lists them.
std::vector<DevicePool> pools_of(const HostTopology& host, const PciRequest& request) {
  std::vector<DevicePool> pools;
  for (const auto& dev : host.pci) {
    if (!matches(dev, request)) continue;
    auto pool = std::find_if(pools.begin(), pools.end(), [&](const DevicePool& p) { return p.node == dev.numa_node; });
    if (pool == pools.end()) pool = pools.insert(pools.end(), DevicePool{dev.numa_node, 0});
    ++pool->count;
  }
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
// those if enough, else every pool, the chosen cells' and node-less ones first.
std::vector<DevicePool*> pools_allowed(const HostTopology& host, const PciDemand& demand,
                                       std::vector<DevicePool>& pools, const std::vector<bool>& chosen) {
  auto on_chosen_cell = [&](const DevicePool& p) {
    if (!p.node) return false;
    for (std::size_t i = 0; i < host.cells.size(); ++i) {
      if (chosen[i] && host.cells[i].id == *p.node) return true;
    }
    return false;
  };
  std::vector<DevicePool*> local;
  for (auto& p : pools) {
    if (p.count > 0 && on_chosen_cell(p)) local.push_back(&p);
  }
  const std::uint32_t count = demand.request.count;
  if (demand.policy == PciNumaPolicy::Required || devices_in(local) >= count) return local;
  std::vector<DevicePool*> allowed;
  if (demand.policy == PciNumaPolicy::Socket) {
    for (const auto& cell : host.cells) {
      if (!cell.socket) return allowed;
    }
    for (auto& p : pools) {
      bool near = false;
      for (std::size_t i = 0; i < host.cells.size() && p.node && p.count > 0; ++i) {
        if (host.cells[i].id != *p.node) continue;
        for (std::size_t j = 0; j < host.cells.size() && !near; ++j) {
          near = chosen[j] && *host.cells[j].socket == *host.cells[i].socket;
        }
      }
      if (near) allowed.push_back(&p);
    }
    return allowed;
  }
  for (auto& p : pools) {
    if (p.count > 0 && (!p.node || on_chosen_cell(p))) allowed.push_back(&p);
  }
  if (demand.policy != PciNumaPolicy::Preferred || devices_in(allowed) >= count) return allowed;
  for (auto& p : pools) {
    if (p.count > 0 && p.node && !on_chosen_cell(p)) allowed.push_back(&p);
  }
  return allowed;
}

}  // namespace

bool pci_demands_satisfied(const HostTopology& host, const std::vector<PciDemand>& demands,
                           const std::vector<bool>& chosen, const PciDemand** shortfall) {
  bool shared = false;
  for (std::size_t k = 0; k < demands.size(); ++k) {
    if (!demands[k].satisfied(host, chosen)) {
      if (shortfall != nullptr) *shortfall = &demands[k];
      return false;
    }
    shared = shared || demands[k].first_for_device != k;
  }
  if (!shared) return true;  // requests for different devices never compete
  // Requests for the same devices: served one after another from one set of pools.
  std::vector<std::vector<DevicePool>> pools_by_demand(demands.size());
  for (std::size_t k = 0; k < demands.size(); ++k) {
    if (demands[k].first_for_device == k) pools_by_demand[k] = pools_of(host, demands[k].request);
  }
  for (std::size_t k = 0; k < demands.size(); ++k) {
    std::vector<DevicePool*> allowed =
        pools_allowed(host, demands[k], pools_by_demand[demands[k].first_for_device], chosen);
    std::uint32_t wanted = demands[k].request.count;
    if (devices_in(allowed) < wanted) {
      if (shortfall != nullptr) *shortfall = &demands[k];
      return false;
    }
    for (DevicePool* p : allowed) {
      const std::uint32_t taken = std::min(wanted, p->count);
      p->count -= taken;
      wanted -= taken;
      if (wanted == 0) break;
    }
  }
  return true;
}

std::uint32_t PciDemand::usable(const HostTopology& host, const std::vector<bool>& chosen) const {
  std::uint32_t local = 0;
  for (std::size_t i = 0; i < per_cell.size(); ++i) local += chosen[i] ? per_cell[i] : 0;
  if (policy == PciNumaPolicy::Required || local >= request.count) return local;
  if (policy == PciNumaPolicy::Socket) {
    // Without a list of sockets: this runs at every leaf of the search, which allocates nothing.
    for (const auto& cell : host.cells) {
      if (!cell.socket) return 0;
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
  if (policy == PciNumaPolicy::Preferred && with_floating < request.count) return total;
  return with_floating;
}

bool PciDemand::satisfied(const HostTopology& host, const std::vector<bool>& chosen) const {
  return fits_within("pci", static_cast<double>(request.count), static_cast<double>(usable(host, chosen)));
}

std::string PciDemand::describe() const {
  const std::string device = request.address.empty() ? std::to_string(request.count) + " x " + request.vendor_id + ":" +
                                                           request.product_id
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
    for (const auto& dev : host.pci) {
      if (!matches(dev, request)) continue;
      ++demand.total;
      if (!dev.numa_node) {
        ++demand.without_node;
        continue;
      }
      for (std::size_t i = 0; i < host.cells.size(); ++i) {
        if (host.cells[i].id == *dev.numa_node) ++demand.per_cell[i];
      }
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
