// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/fit/network_demands.h"

#include <algorithm>

namespace numaplace {

std::vector<NetworkDemand> network_demands(const HostTopology& host, const NetworkAffinity& asked) {
  std::vector<NetworkDemand> out;
  std::vector<std::string> physnets = asked.physnets;
  std::sort(physnets.begin(), physnets.end());
  physnets.erase(std::unique(physnets.begin(), physnets.end()), physnets.end());
  auto add_if_provided = [&](std::string what, auto provides) {
    NetworkDemand d{std::move(what), std::vector<std::uint32_t>(host.cells.size(), 0)};
    bool any = false;
    for (std::size_t i = 0; i < host.cells.size(); ++i) {
      d.per_cell[i] = provides(host.cells[i].network) ? 1 : 0;
      any = any || d.per_cell[i] != 0;
    }
    if (any) out.push_back(std::move(d));
  };
  for (const std::string& physnet : physnets) {
    add_if_provided("physnet '" + physnet + "'", [&](const NetworkAffinity& cell) {
      return std::find(cell.physnets.begin(), cell.physnets.end(), physnet) != cell.physnets.end();
    });
  }
  if (asked.tunneled) add_if_provided("tunneled networks", [](const NetworkAffinity& cell) { return cell.tunneled; });
  return out;
}

bool network_demands_met(const std::vector<NetworkDemand>& demands, const std::vector<bool>& chosen,
                         const NetworkDemand** shortfall) {
  for (const NetworkDemand& d : demands) {
    bool met = false;
    for (std::size_t i = 0; i < chosen.size() && i < d.per_cell.size() && !met; ++i) met = chosen[i] && d.per_cell[i];
    if (!met) {
      if (shortfall) *shortfall = &d;
      return false;
    }
  }
  return true;
}

std::string network_shortfall_text(const HostTopology& host, const NetworkDemand& d) {
  std::string cells;
  for (std::size_t i = 0; i < host.cells.size(); ++i) {
    if (d.per_cell[i]) cells += (cells.empty() ? "" : ", ") + std::to_string(host.cells[i].id);
  }
  return "no assignment of guest cells to distinct host cells meets the network affinity: the guest's " + d.what +
         " must be on one of its host cells, and only host cell(s) " + cells + " are close to it";
}

const std::vector<NetworkDemand>& no_network_demands() {
  static const std::vector<NetworkDemand> none;
  return none;
}

}  // namespace numaplace
