/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Writes a placement into a libvirt domain document, owning exactly these parts:
// <vcpu cpuset>, <cputune><vcpupin>/<emulatorpin>, <numatune> (memory + one
// memnode per guest cell), <cpu><numa> cells with distances mirrored
// from the host, and <memoryBacking><hugepages> (one <page> per huge page size
// the placement chose, with its guest cells; none when it chose only small
// pages). A guest cell without vCPUs (memory only) is written without a cpus
// attribute, as libvirt's schema wants. Each <iothreadpin> (the operator's, as
// `constraints` keeps it, else as written) is kept within where the emulator
// threads now run (or moved there when it shares no pCPU with them),
// so no thread stays bound outside the guest's placement. With a GuestTuning it
// also writes what the request asks besides the placement (write_tuning, tuning_writer.h) and
// returns what that wrote, for numaplace's record.
// Everything else is left as it was, including extra attributes of
// existing guest cells (memAccess, discard). Applying the same placement to its
// own output yields the same document.
#pragma once

#include <libxml/tree.h>

#include <string>
#include <vector>

#include "placement/fit/fit.h"
#include "placement/model/host_topology.h"
#include "placement/lifecycle/operator_constraints.h"
#include "placement/request/guest_tuning.h"
#include "xml/tuning_writer.h"

namespace numaplace::xml {

// Within the operator's constraints: a floating vCPU's <vcpupin> is where its cell floats within
// the operator's pin for it, <emulatorpin> within the operator's, and <numatune> keeps the
// operator's memory modes (strict where none was given). The emulator threads run where
// emulator_cpus(host, placement, tuning.realtime_vcpus) says (fit.h); the caller has checked
// that set, within the operator's <emulatorpin>, is not empty.
WrittenTuning write_placement(xmlDoc* doc, const HostTopology& host, const Placement& placement,
                     const OperatorConstraints& constraints = {}, const GuestTuning& tuning = {});

// Confines a guest without a NUMA topology: <vcpu placement='static' cpuset=cpus> (within the
// operator's <vcpu cpuset> when there is one) and
// <numatune><memory mode=... nodeset=nodeset> (the operator's mode, strict where none was given).
// The operator's <vcpupin>s (as `constraints` keeps them, else as written) are kept within `cpus`,
// the CPUs its vCPUs may use there, and <emulatorpin> within `cell_cpus`, those of the cells; the
// returned sentences say which were narrowed, for the caller to say. <iothreadpin>, <memnode> and
// memory devices' <nodemask> stay as the operator wrote them.
std::vector<std::string> write_confinement(xmlDoc* doc, const CpuSet& nodes, const CpuSet& cpus,
                                           const CpuSet& cell_cpus, const OperatorConstraints& constraints = {});

// Keeps every thread of the domain off `taken` (pCPUs another guest now holds): <vcpu cpuset>
// (or, without one, `host_cpus`) when a thread runs by it, and each <vcpupin>, <emulatorpin>
// and <iothreadpin> that reaches into `taken`, each less `taken`. The caller has checked none is
// left empty (placement/lifecycle/narrowing.h). Returns what changed, one sentence each.
std::vector<std::string> narrow_threads(xmlDoc* doc, const CpuSet& taken, const CpuSet& host_cpus);

}  // namespace numaplace::xml
