/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Reads the host and the request of a nova-fit reference vector
// (tests/data/conformance/nova/README.md) into core values.
#pragma once

#include <nlohmann/json.hpp>

#include "placement/fit/fit.h"
#include "placement/model/guest_request.h"
#include "placement/model/host_topology.h"

namespace numaplace::conformance {

HostTopology host_from_nova_json(const nlohmann::json& host);
GuestRequest request_from_nova_json(const nlohmann::json& request);
FitOptions options_from_nova_config(const nlohmann::json& vector);

}  // namespace numaplace::conformance
