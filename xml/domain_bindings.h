/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What a libvirt domain's XML binds on the host, read as libvirt applies it, every value
// checked (an absurd cpulist, a vCPU or iothread that does not exist, a pin given twice, an
// unknown memory mode are InvalidDomain or the cpulist's own error, naming the element):
//   threads: <vcpu cpuset> (or placement='auto'), each <vcpupin>, <emulatorpin>, the iothreads
//     (<iothreads>, <iothreadids>) and each <iothreadpin>; thread_affinities() turns them into
//     where every thread may run (its pin, else <vcpu cpuset>, else every host CPU);
//   memory: <numatune><memory> and each <memnode> (mode, nodeset, placement), the huge page
//     size of each guest cell (<memoryBacking><hugepages><page>), the <cpu><numa> cells, and
//     the RAM-backed memory devices (dimm, virtio-mem) with their guest node, <nodemask> and page
//     size (nvdimm and virtio-pmem are backed by files, not by a cell's memory), and the guest
//     cell of every memory device that names one (each must be a cell the guest has).
#pragma once

#include <libxml/tree.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "placement/lifecycle/claims.h"
#include "placement/model/cpu_set.h"
#include "placement/model/error.h"
#include "xml/guest_pages.h"

namespace numaplace::xml {

struct DomainThreads {
  std::uint32_t vcpus = 0;
  std::optional<CpuSet> vcpu_cpuset;          // <vcpu cpuset>
  bool vcpu_placement_auto = false;           // <vcpu placement='auto'>: numad chooses
  std::map<std::uint32_t, CpuSet> vcpupins;   // vCPU -> <vcpupin cpuset>
  std::optional<CpuSet> emulatorpin;
  std::vector<std::uint32_t> iothread_ids;    // every iothread of the guest
  std::map<std::uint32_t, CpuSet> iothreadpins;
};

struct MemoryTune {
  std::string mode;                 // strict, interleave, preferred, restrictive; empty: not given
  std::optional<CpuSet> nodeset;
  bool placement_auto = false;      // placement='auto': numad chooses
};

struct MemoryDevice {
  std::string element;              // "<memory model='dimm'> 1" for messages
  std::uint64_t size_kib = 0;
  std::optional<std::uint32_t> guest_node;  // <target><node>
  std::optional<CpuSet> nodemask;           // <source><nodemask>: host nodes
  std::uint64_t page_kib = 0;               // <source><pagesize>; 0: the guest's
};

// A memory device of any model, RAM-backed or not, placed on a guest cell by <target><node>.
struct DeviceGuestNode {
  std::string element;              // as MemoryDevice::element
  std::uint32_t guest_node = 0;
};

struct GuestNumaCell {
  std::uint32_t id = 0;
  std::uint64_t memory_kib = 0;
  CpuSet cpus;  // its vCPUs (none: a memory-only cell)
};

struct DomainBindings {
  DomainThreads threads;
  MemoryTune memory;                               // <numatune><memory>
  std::map<std::uint32_t, MemoryTune> memnodes;    // guest cell -> <memnode>
  GuestPages pages;                                // <memoryBacking><hugepages> (guest_pages.h)
  std::vector<GuestNumaCell> cells;                // <cpu><numa><cell>
  std::vector<MemoryDevice> memory_devices;        // RAM-backed only
  std::vector<DeviceGuestNode> device_guest_nodes; // every memory device with a <target><node>
};

// `vcpus` is the domain's vCPU count (xml/domain_reader.h).
Result<DomainBindings> read_domain_bindings(const xmlDoc* doc, const std::string& what, std::uint32_t vcpus);

// Where each thread may run, as libvirt enforces it: a pin, else <vcpu cpuset>, else `host_cpus`.
std::vector<ThreadAffinity> thread_affinities(const DomainThreads& threads, const CpuSet& host_cpus);

}  // namespace numaplace::xml
