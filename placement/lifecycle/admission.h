/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What admitting a placed guest does to the host's usage, by Nova's own accounting
// (numa_usage_from_instance_numa, Nova 26), so that a stream of admissions can be
// replayed on the same terms as Nova: per guest cell on its host cell, memory is
// always added to the cell's used memory (huge-page guests too), the page pool it
// draws from (its page size, or the cell's smallest) gains memory / page size used
// pages, floating vCPUs add to the shared load, and pinned pCPUs (plus the emulator
// reservation) become pinned; under thread policy isolate the whole core of every
// pinned pCPU is taken. Pinning a pCPU that is already pinned is PinningCollision and
// leaves the host unchanged.
#pragma once

#include "placement/model/error.h"
#include "placement/fit/fit.h"
#include "placement/request/guest_topology.h"
#include "placement/model/host_topology.h"

namespace numaplace {

Status admit_placement(HostTopology& host, const GuestTopology& guest, const Placement& placement);

}  // namespace numaplace
