// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/lifecycle/claims.h"

#include <algorithm>
#include <cctype>

#include "placement/model/ascii_case.h"
#include "placement/model/utf8_text.h"

namespace numaplace {

std::string describe(const ThreadAffinity& thread) {
  switch (thread.kind) {
    case ThreadAffinity::Kind::Vcpu: return "vCPU " + std::to_string(thread.id);
    case ThreadAffinity::Kind::Emulator: return "the emulator threads";
    case ThreadAffinity::Kind::IoThread: return "iothread " + std::to_string(thread.id);
  }
  return "a thread";
}

CpuSet GuestClaim::held_cpus() const {
  CpuSet held;
  for (const auto& cell : cells) held = held.united(cell.held_cpus());
  return held;
}

std::vector<std::string> apply_claims(HostTopology& host, const std::vector<GuestClaim>& claims) {
  std::vector<std::string> foreign;
  for (const auto& claim : claims) {
    bool all_known = true;
    for (const auto& cell_claim : claim.cells) {
      auto it = std::find_if(host.cells.begin(), host.cells.end(),
                             [&](const HostCell& c) { return c.id == cell_claim.host_cell; });
      if (it == host.cells.end()) {
        all_known = false;
        continue;
      }
      HostCell& cell = *it;
      cell.usage.pinned_cpus = cell.usage.pinned_cpus.united(cell_claim.held_cpus());
      cell.usage.shared_cpus += cell_claim.shared_vcpus;
      cell.usage.memory_kib += cell_claim.memory_kib;
      // Small-page memory is drawn from the cell's smallest pages, as huge pages from theirs.
      if (PagePool* smallest = smallest_pool(cell); smallest != nullptr && smallest->size_kib > 0) {
        smallest->used += (cell_claim.memory_kib + smallest->size_kib - 1) / smallest->size_kib;
      }
      for (const auto& [size, count] : cell_claim.pages) {
        for (auto& pool : cell.pages) {
          if (pool.size_kib == size) pool.used += count;
        }
        // Nova counts a huge-page guest cell's memory in the cell's memory usage too
        // (numa_usage_from_instance_numa), which later guests' memory checks read.
        if (host.accounting == Accounting::Nova) cell.usage.memory_kib += size * count;
      }
    }
    host.unbound_memory_kib += claim.unbound_memory_kib;
    for (const auto& address : claim.pci_devices) {
      bool listed = false;
      for (auto& device : host.pci) {
        if (device.address != address) continue;
        listed = true;
        device.allocated = true;
        if (device.held_by.empty()) device.held_by = claim.name;
      }
      // Held whether or not the host source lists it (hwloc lists the "important" devices only):
      // a device of unknown locality, but nobody else's.
      if (!listed) {
        PciDevice held;
        held.address = address;
        held.allocated = true;
        held.held_by = claim.name;
        host.pci.push_back(std::move(held));
      }
    }
    if (!all_known) foreign.push_back(claim.name);
  }
  return foreign;
}

namespace {

std::string uuid_key(std::string_view uuid) {
  std::string key;
  for (char c : uuid) {
    if (c != '-') key += ascii_lower(c);
  }
  return key;
}

}  // namespace

bool is_same_guest(std::string_view name, std::string_view uuid, std::string_view other_name,
                   std::string_view other_uuid) {
  if (!uuid.empty() && !other_uuid.empty() && uuid_key(uuid) == uuid_key(other_uuid)) return true;
  return !name.empty() && name == other_name;
}

std::optional<std::size_t> counted_already(const GuestClaim& claim, std::span<const GuestClaim> counted) {
  for (std::size_t i = 0; i < counted.size(); ++i) {
    if (is_same_guest(claim.name, claim.uuid, counted[i].name, counted[i].uuid)) return i;
  }
  return std::nullopt;
}

std::string same_guest_text(const GuestClaim& claim, const GuestClaim& counted) {
  std::string text = "guest '" + printable_text(claim.name) + "'";
  if (claim.name != counted.name) text += " (the uuid of guest '" + printable_text(counted.name) + "')";
  return text;
}

std::vector<std::pair<std::uint32_t, std::string>> pinning_collisions(const GuestClaim& candidate,
                                                                       const std::vector<GuestClaim>& others) {
  std::vector<std::pair<std::uint32_t, std::string>> out;
  const CpuSet mine = candidate.held_cpus();
  for (const auto& other : others) {
    if (is_same_guest(candidate.name, candidate.uuid, other.name, other.uuid)) continue;
    for (std::uint32_t cpu : mine.intersected(other.held_cpus())) out.emplace_back(cpu, other.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace numaplace
