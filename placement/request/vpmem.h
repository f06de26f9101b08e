/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Virtual persistent memory (vPMEM), Nova 26's hw:pmem flavor key: a comma-separated list of
// PMEM namespace labels ("SMALL,LARGE"). Nova reads it from the flavor only (no image property),
// strips each label and drops empty ones; a guest with at least one label gets a NUMA topology
// (one cell unless hw:numa_nodes says more), as hugepages and pinning do. numaplace only derives
// that topology: which namespace backs a label is the libvirt driver's business, not the fit's.
#pragma once

#include <string>
#include <vector>

#include "placement/model/guest_request.h"

namespace numaplace {

// The labels of hw:pmem in `flavor`, in order, each stripped of blanks; empty when the key is
// absent, empty or holds only blanks and commas.
std::vector<std::string> vpmem_labels(const SpecMap& flavor);

}  // namespace numaplace
