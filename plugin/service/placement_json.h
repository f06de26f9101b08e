/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The JSON texts the library hands to programs for one placement: the placement
// itself (which host cell and pCPUs each guest cell got) and the explanation (the
// request that was used and every (guest cell, host cell) pair that could not be
// used, with why). Shapes are documented in plugin/capi/include/numaplace.h.
#pragma once

#include <nlohmann/json.hpp>

#include "placement/model/guest_request.h"
#include "plugin/service/place_domain.h"

namespace numaplace::plugin {

nlohmann::json placement_json(const PlaceOutcome& outcome);
// {"kind": "fresh"|"kept"|"repinned"|"moved", "repinned_cells": [...], "why": TEXT|null, "refreshed": TEXT|null}
nlohmann::json replacement_json(const RecordedPlacementUse& use);
// [{"guest", "uuid", "running", "thread": "vcpu"|"emulator"|"iothread", "id", "source", "from", "to"}]
nlohmann::json narrowings_json(const std::vector<Narrowing>& narrowings);
nlohmann::json explanation_json(const PlaceOutcome& outcome, const SpecMap& flavor_specs, const SpecMap& image_props);

}  // namespace numaplace::plugin
