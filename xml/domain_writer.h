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
#include <vector>

#include "placement/fit.h"
#include "placement/host_topology.h"

namespace numaplace::xml {

void write_placement(xmlDoc* doc, const HostTopology& host, const Placement& placement);

// Confines a guest without a NUMA topology: <vcpu placement='static' cpuset=cpus> and
// <numatune><memory mode='strict' nodeset=nodeset>. Settings of the domain that would take it
// outside again (a <vcpupin>, <emulatorpin> or <iothreadpin> onto other pCPUs, a <memnode> or
// a memory device's <nodemask> onto other host nodes) are narrowed to the confinement; the
// returned sentences say which, for the caller to warn. Everything else stays as it was.
std::vector<std::string> write_confinement(xmlDoc* doc, const CpuSet& nodes, const CpuSet& cpus);

}  // namespace numaplace::xml
