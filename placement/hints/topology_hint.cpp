// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/hints/topology_hint.h"

namespace numaplace {

std::vector<HintList> hint_lists_from_providers(const std::vector<ProviderHints>& providers) {
  const TopologyHint any_preferred{std::nullopt, true};
  const TopologyHint any_not_preferred{std::nullopt, false};
  std::vector<HintList> lists;
  for (const ProviderHints& provider : providers) {
    if (provider.empty()) {
      lists.push_back({any_preferred});
      continue;
    }
    for (const auto& [resource, hints] : provider) {
      if (!hints) {
        lists.push_back({any_preferred});
      } else if (hints->empty()) {
        lists.push_back({any_not_preferred});
      } else {
        lists.push_back(*hints);
      }
    }
  }
  return lists;
}

}  // namespace numaplace
