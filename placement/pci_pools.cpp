#include "placement/pci_pools.h"

#include <algorithm>
#include <cctype>

#include "placement/fit_demands.h"

namespace numaplace {
namespace {

bool same_id(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

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
  return std::to_string(request.count) + " x " + request.vendor_id + ":" + request.product_id + " (policy " +
         to_string(policy == PciNumaPolicy::Unset ? PciNumaPolicy::Legacy : policy) + ")";
}

std::vector<PciDemand> pci_demands(const HostTopology& host, const GuestTopology& guest) {
  std::vector<PciDemand> out;
  for (const auto& request : guest.pci_requests) {
    PciDemand demand;
    demand.request = request;
    demand.policy = guest.pci_numa_policy == PciNumaPolicy::Unset ? PciNumaPolicy::Legacy : guest.pci_numa_policy;
    demand.per_cell.assign(host.cells.size(), 0);
    for (const auto& dev : host.pci) {
      if (dev.allocated || !same_id(dev.vendor_id, request.vendor_id) || !same_id(dev.product_id, request.product_id)) {
        continue;
      }
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
