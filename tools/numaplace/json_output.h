/* SPDX-License-Identifier: LGPL-2.1-or-later */
// JSON views of core values for `--json` output.
#pragma once

#include <nlohmann/json.hpp>

#include "placement/lifecycle/claims.h"
#include "placement/lifecycle/default_placement.h"
#include "placement/fit/fit.h"
#include "placement/model/host_topology.h"

namespace numaplace::cli {

nlohmann::json to_json(const Placement& placement);
nlohmann::json to_json(const std::vector<CellRejection>& rejections);
nlohmann::json to_json(const std::vector<GuestClaim>& claims);
nlohmann::json to_json(const DefaultPlacement& confinement);

}  // namespace numaplace::cli
