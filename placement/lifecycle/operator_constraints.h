/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What an operator wrote into a domain that numaplace must place within, never widen:
// <vcpu cpuset> and each <vcpupin> (the pCPUs vCPUs may use), <emulatorpin>, and the
// memory binding of <numatune> (its mode and nodeset, and per guest cell its <memnode>).
// The placement honours each (host_within narrows the host to the CPUs the vCPUs may use,
// with_thread_bounds hands each thread's own narrower bound to the fit, host_cell_limits keeps
// guest cells on the nodesets, check_pins verifies every pin is kept) or names the element that
// conflicts. xml/operator_constraints.h reads them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "placement/model/cpu_set.h"
#include "placement/model/error.h"
#include "placement/fit/fit.h"
#include "placement/model/host_topology.h"
#include "placement/request/guest_topology.h"

namespace numaplace {

struct MemoryBinding {
  std::string mode;               // strict, interleave, preferred, restrictive; empty: not given
  std::optional<CpuSet> nodeset;  // host nodes; nullopt: not given
};

struct OperatorConstraints {
  std::optional<CpuSet> vcpu_cpuset;         // <vcpu cpuset>
  std::map<std::uint32_t, CpuSet> vcpupins;  // <vcpupin vcpu cpuset>
  std::optional<CpuSet> emulatorpin;         // <emulatorpin cpuset>
  std::map<std::uint32_t, CpuSet> iothreadpins;  // <iothreadpin iothread cpuset>: kept within the emulator's
  MemoryBinding memory;                      // <numatune><memory>
  std::map<std::uint32_t, MemoryBinding> memnodes;  // guest cell -> <memnode>

  bool empty() const;
};

// A domain placed before: `recorded` is what the operator wrote first (numaplace's record keeps it),
// `written` the same elements as numaplace left them, `live` as the domain has them now. An element
// the operator changed, added or removed since (live differs from written) is the operator's again:
// its live value replaces the recorded one (a removed one bounds nothing). `edits` gets a sentence
// for each. Elements as numaplace left them keep the recorded constraint.
OperatorConstraints with_operator_edits(const OperatorConstraints& recorded, const OperatorConstraints& written,
                                        const OperatorConstraints& live, std::vector<std::string>& edits);

// Where libvirt lets vCPU `vcpu` run: its <vcpupin>, else <vcpu cpuset>; null: anywhere.
const CpuSet* vcpu_bound(const OperatorConstraints& constraints, std::uint32_t vcpu);

// Where libvirt lets the emulator threads run: <emulatorpin>, else <vcpu cpuset>; null: anywhere.
const CpuSet* emulator_bound(const OperatorConstraints& constraints);

// Every pCPU some vCPU of the guest may use: its pin, else <vcpu cpuset>, else `host_cpus`.
CpuSet usable_cpus(const OperatorConstraints& constraints, std::uint32_t vcpus, const CpuSet& host_cpus);

// The host as a guest limited to `cpus` sees it: each cell's CPUs, shared and dedicated sets and
// sibling groups within `cpus`; memory, pages, usage and devices unchanged.
HostTopology host_within(const HostTopology& host, const CpuSet& cpus);

// The host as a guest whose memory is bound to `nodes` sees it: only the cells of `nodes`, their
// distances to each other kept (distances go by cell index); devices unchanged.
HostTopology host_on_nodes(const HostTopology& host, const CpuSet& nodes);

// `guest` with each vCPU's bound as libvirt reads it (its <vcpupin>, else <vcpu cpuset>) set on its
// cell (GuestCell::vcpu_bounds), and the emulator's (<emulatorpin>, else <vcpu cpuset>) as
// GuestTopology::emulator_bound, within `view_cpus` (the CPUs of the host the fit sees), for each
// bound narrower than that: the fit then pins and floats those vCPUs, and reserves an isolated
// emulator pCPU, within them.
GuestTopology with_thread_bounds(GuestTopology guest, const OperatorConstraints& constraints, const CpuSet& view_cpus);

// The host cells guest cells may take: the <numatune><memory> nodeset for every guest cell, each
// <memnode>'s for its own.
std::vector<HostCellLimit> host_cell_limits(const OperatorConstraints& constraints);

// ConflictingPin when `placement` breaks a pin the operator wrote, read as libvirt reads them (a
// vCPU's <vcpupin>, else <vcpu cpuset>; the emulator's <emulatorpin>, else <vcpu cpuset>): a
// dedicated vCPU pinned outside its bound, a floating vCPU whose bound shares no pCPU with where its
// cell floats, emulator threads whose bound shares none with `emulator` (where they run, fit.h's
// emulator_cpus) or, isolated, does not hold their reserved pCPUs.
Status check_pins(const OperatorConstraints& constraints, const Placement& placement, const CpuSet& emulator);

}  // namespace numaplace
