/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Carries out a narrowing plan (placement/lifecycle/narrowing.h) on the guests of a libvirt connection,
// before the dedicated guest that takes the pCPUs is defined or started: a running guest's
// threads are re-pinned live (virDomainPinVcpuFlags, virDomainPinEmulator,
// virDomainPinIOThread), and the persistent definition of every guest named (running or
// defined) is rewritten (xml::narrow_threads) and defined again, so a later start keeps off the
// pCPUs too. Only ever narrows: a failure half-way leaves guests narrower than before, never
// wider. Errors: NarrowingFailed with libvirt's message.
#pragma once

#include <string>
#include <vector>

#include "placement/model/cpu_set.h"
#include "placement/model/error.h"
#include "placement/lifecycle/narrowing.h"
#include "plugin/sources/libvirt_connection.h"

namespace numaplace::plugin {

// `taken`: the pCPUs the new guest holds; `host_cpus`: every CPU of the host.
Status apply_narrowing(const LibvirtConnection& conn, const std::vector<Narrowing>& plan, const CpuSet& taken,
                       const CpuSet& host_cpus);

}  // namespace numaplace::plugin
