/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What is wrong with the guests already on a host, each finding with the guests, the resource
// and a remedy. The host is as read (no claims folded in); the guests are their claims
// (claims.h), each checked against the host and against the others:
//   PcpuHeldTwice           a pCPU held (pinned, or reserved) by two or more guests
//   FloatsOverHeldPcpu      a thread of one guest may run on a pCPU another guest holds
//   MemoryExceedsCell       one guest binds more memory to a cell than the cell has at all
//   CellMemoryOvercommitted the guests bind more memory to a cell than its allocation ratio allows
//   HugePagesOvercommitted  the guests bind more huge pages of a size to a cell than it has free
//   VcpusAwayFromMemory     vCPUs that can run only on cells holding none of the guest's memory
//   DeviceHeldTwice         a PCI device passed through to two or more guests
//   RemoteDevice            a PCI device on a cell where the guest has neither vCPUs nor memory
// Findings come in a stable order: by kind as listed, then by the first resource.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "placement/lifecycle/claims.h"
#include "placement/model/host_topology.h"

namespace numaplace {

enum class FindingKind {
  PcpuHeldTwice,
  FloatsOverHeldPcpu,
  MemoryExceedsCell,
  CellMemoryOvercommitted,
  HugePagesOvercommitted,
  VcpusAwayFromMemory,
  DeviceHeldTwice,
  RemoteDevice,
};

const char* finding_name(FindingKind kind);

struct AuditFinding {
  FindingKind kind = FindingKind::PcpuHeldTwice;
  std::vector<std::string> guests;    // those involved, the one to act on first
  std::string resource;               // "pCPUs 4-5", "memory of cell 1", "PCI 0000:3b:00.0"
  std::optional<std::uint32_t> cell;  // the host cell concerned, when there is one
  CpuSet cpus;                        // the pCPUs concerned (PcpuHeldTwice, FloatsOverHeldPcpu)
  std::string message;                // one sentence saying what is wrong
  std::string remedy;                 // one sentence saying what to do
};

// Every finding of `guests` on `host`; empty when nothing is wrong.
std::vector<AuditFinding> audit_host(const HostTopology& host, const std::vector<GuestClaim>& guests);

}  // namespace numaplace
