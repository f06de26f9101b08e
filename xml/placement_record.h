/* SPDX-License-Identifier: LGPL-2.1-or-later */
// numaplace's own element inside a domain's <metadata>, in the namespace
// kNamespaceUri:
//   <numaplace:numaplace xmlns:numaplace="...">
//     <numaplace:request policy=".." strategy="..">
//       <numaplace:spec key="hw:numa_nodes" value="2"/>
//       <numaplace:image-prop key="hw_numa_nodes" value="2"/>
//       <numaplace:pci address="0000:3b:00.0"/>   (a device given besides the <hostdev>s: --pci)
//     </numaplace:request>
//     <numaplace:placement>
//       <numaplace:cell guest="0" host="1" vcpus="0-5" host-cpus="8-15" pins="0:8,1:9"
//                       memory-kib="3145728" pagesize-kib="0"
//                       reserved-cpus="10" isolated-cpus="24-26"/>   (pins: dedicated vCPUs only;
//                                       reserved: the emulator's pCPU; isolated: isolate's siblings)
//     </numaplace:placement>
//     <numaplace:confinement nodes="0-1" memory="0:2097152,1:2097152"/>  (a guest without a
//                                       NUMA topology: its cells and its memory per cell, KiB)
//     <numaplace:constraints vcpu-cpuset="0-7" emulatorpin="0-1" memory-mode="interleave"
//                            memory-nodeset="0-1">          (what the operator wrote first,
//       <numaplace:vcpupin vcpu="0" cpuset="0-3"/>            kept for every later placement)
//       <numaplace:iothreadpin iothread="1" cpuset="0-1"/>
//       <numaplace:memnode cellid="0" mode="preferred" nodeset="0"/>
//     </numaplace:constraints>
//     <numaplace:written vcpu-cpuset="8-15" emulatorpin="8-15">  (the same elements as numaplace
//       <numaplace:vcpupin vcpu="0" cpuset="8"/>                   left them: one the operator
//     </numaplace:written>                                          changes since is taken as theirs)
//     <numaplace:tuning vcpusched="2-7" locked="yes" nosharepages="yes">  (what numaplace wrote
//       <numaplace:operator-vcpusched vcpus="0-3" scheduler="batch"/>     besides the placement,
//       <numaplace:topology sockets="2" dies="1" cores="2" threads="2"/>  and the operator's
//       <numaplace:operator-topology sockets="8"/>                        elements it changed,
//     </numaplace:tuning>                                                 tuning_writer.h)
//   </numaplace:numaplace>
// The request lets a domain carry its own NUMA wishes; the placement is the record
// that makes a second run idempotent and lets claims be read back exactly (what the
// guest holds beyond what libvirt's own elements show: the emulator pCPU, isolate's
// siblings, the memory of a multi-cell confinement); the constraints keep the operator's
// own limits once numaplace has rewritten the elements that stated them.
#pragma once

#include <libxml/tree.h>

#include <optional>
#include <string>
#include <vector>

#include "placement/model/error.h"
#include "placement/fit/fit.h"
#include "placement/model/guest_request.h"
#include "placement/lifecycle/operator_constraints.h"
#include "xml/tuning_writer.h"

namespace numaplace::xml {

inline constexpr const char* kNamespaceUri = "https://numaplace.dev/xmlns/domain/1";
inline constexpr const char* kNamespacePrefix = "numaplace";

struct StoredRequest {
  SpecMap flavor_specs;
  SpecMap image_props;
  std::string policy;    // empty: default
  std::string strategy;  // empty: default
  // Host PCI devices the guest is given besides its <hostdev> elements, canonical
  // (placement/model/pci_address.h), each once: part of what the guest holds.
  std::vector<std::string> pci_addresses;
};

// The request stored in the domain, if any. Malformed records are named errors.
Result<std::optional<StoredRequest>> read_stored_request(const xmlDoc* doc, const std::string& what);

// The placement record, if any.
Result<std::optional<Placement>> read_placement_record(const xmlDoc* doc, const std::string& what);

// A confined guest's cells and memory per cell (KiB).
struct ConfinementRecord {
  CpuSet nodes;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> memory;
};
Result<std::optional<ConfinementRecord>> read_confinement_record(const xmlDoc* doc, const std::string& what);

// Whether the domain carries numaplace's element at all.
bool has_record(const xmlDoc* doc);

// The operator's constraints the record keeps; nullopt when the record keeps none (or there is no
// record).
Result<std::optional<OperatorConstraints>> read_recorded_constraints(const xmlDoc* doc, const std::string& what);

// The pins and memory bindings as numaplace wrote them last (the "written" part), in the shape
// of the operator's constraints; nullopt when the record has none (records written before numaplace kept this part).
Result<std::optional<OperatorConstraints>> read_recorded_written(const xmlDoc* doc, const std::string& what);

// What numaplace wrote besides the placement (empty when the record says nothing).
Result<WrittenTuning> read_tuning_record(const xmlDoc* doc, const std::string& what);

// What write_record writes besides the request.
struct RecordParts {
  const Placement* placement = nullptr;                // a guest with a NUMA topology
  const ConfinementRecord* confinement = nullptr;      // a confined guest without one
  const OperatorConstraints* constraints = nullptr;    // written when not empty
  const OperatorConstraints* written = nullptr;        // the elements as written; written when given
  const WrittenTuning* tuning = nullptr;               // written when not empty
};

// Replaces numaplace's element in <metadata> (creating <metadata> if needed) with the request and
// the parts given.
void write_record(xmlDoc* doc, const StoredRequest& request, const RecordParts& parts);

}  // namespace numaplace::xml
