// Writes a placement into a libvirt domain document, owning exactly these parts:
// <vcpu cpuset>, <cputune><vcpupin>/<emulatorpin>, <numatune> (memory + one
// memnode per guest cell, strict), <cpu><numa> cells with distances mirrored
// from the host, and <memoryBacking><hugepages> (one <page> per huge page size
// the placement chose, with its guest cells; none when it chose only small
// pages). Everything else is left as it was, including extra attributes of
// existing guest cells (memAccess, discard). Applying the same placement to its
// own output yields the same document.
#pragma once

#include <libxml/tree.h>

#include <string>

#include "placement/fit.h"
#include "placement/host_topology.h"

namespace numaplace::xml {

void write_placement(xmlDoc* doc, const HostTopology& host, const Placement& placement);

// Confines a guest without a NUMA topology: <vcpu placement='static' cpuset=cpus> and
// <numatune><memory mode='strict' nodeset=nodeset>; everything else stays as it was.
void write_confinement(xmlDoc* doc, const std::string& nodeset, const CpuSet& cpus);

}  // namespace numaplace::xml
