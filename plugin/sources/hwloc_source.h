/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The host as hwloc sees it, from the live machine or from an hwloc XML export
// (`lstopo --of xml`, `hwloc-gather-topology`): one HostCell per NUMA node (its
// os_index as id, ascending), the node's CPUs (PU os_index), thread siblings
// (PUs sharing a Core), memory (local_memory, in KiB), page pools (page_types)
// when the export has them, socket (the enclosing Package's os_index, none when
// the node spans packages or there is no Package), distances (the NUMA latency
// matrix hwloc holds, relative as the OS reports it, indexed like `cells`; empty
// when hwloc has none), and the "important" PCI devices (network, storage,
// display, accelerators) with their NUMA node: the one node of the device's
// nearest non-I/O ancestor, none when that ancestor covers several nodes.
// Failures are "CannotRead" for a file that cannot be read, else "HwlocLoadFailed" with
// hwloc's reason (errno) where it gives one;
// an export declaring entities or a DOCTYPE other than hwloc's own is "XmlForbiddenConstruct";
// an export is first read with numaplace's safe libxml2 parser (UTF-8 only, the xml/ limits and
// errors), and one whose <object>s hwloc 2.9 would crash or stall on (an object other than I/O
// or Misc without all of cpuset, complete_cpuset, nodeset and complete_nodeset; a set that is
// not an hwloc bitmap; a PU or NUMANode without an os_index up to 65535) is "HwlocLoadFailed"
// before hwloc sees it.
// No exception escapes.
#pragma once

#include <string>

#include "placement/model/error.h"
#include "placement/model/host_topology.h"

namespace numaplace::plugin {

// The machine this process runs on (hwloc honours HWLOC_SYNTHETIC; HWLOC_XMLFILE is read as
// load_hwloc_xml reads any export, checks included).
Result<HostTopology> load_hwloc_live();

// An hwloc XML export; files above xml::kMaxXmlBytes are refused before hwloc reads them.
Result<HostTopology> load_hwloc_xml(const std::string& path);

}  // namespace numaplace::plugin
