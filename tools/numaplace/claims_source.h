/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Where the CLI gets the claims of guests already on the host: the domains of a
// libvirt connection (running ones; defined ones placed by numaplace too with
// include_defined), or the running ones in libvirt's QEMU status files when libvirt
// does not answer, and domain XML files given with --claim.
#pragma once

#include <string>
#include <vector>

#include "placement/model/error.h"
#include "placement/model/host_topology.h"
#include "plugin/sources/host_claims.h"

namespace numaplace::cli {

struct ClaimSourceOptions {
  std::string connect_uri;               // empty: no libvirt domains are read
  std::string status_dir;                // libvirt's QEMU status files; empty: not read
  bool include_defined = false;
  std::vector<std::string> claim_files;  // domain XML files
  std::string exclude_name;              // the guest being placed
  std::string exclude_uuid;
  // RunningGuestsUnknown when a running guest (of the connection or the status files) cannot be
  // read, for a placement beside it; false: such a guest is a warning (topology, audit).
  bool refuse_unknown_running = false;
};

Result<plugin::HostClaims> load_claims(const ClaimSourceOptions& options, const HostTopology& host);

}  // namespace numaplace::cli
