/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Where the CLI gets the claims of guests already on the host: the domains of a
// libvirt connection (running ones; defined ones placed by numaplace too with
// include_defined) and domain XML files given with --claim.
#pragma once

#include <string>
#include <vector>

#include "placement/model/error.h"
#include "placement/model/host_topology.h"
#include "plugin/sources/host_claims.h"

namespace numaplace::cli {

struct ClaimSourceOptions {
  std::string connect_uri;               // empty: no libvirt domains are read
  bool include_defined = false;
  std::vector<std::string> claim_files;  // domain XML files
  std::string exclude_name;              // the guest being placed
  std::string exclude_uuid;
};

Result<plugin::HostClaims> load_claims(const ClaimSourceOptions& options, const HostTopology& host);

}  // namespace numaplace::cli
