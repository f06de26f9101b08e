/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Writes what a request asks besides where the guest runs (placement/request/guest_tuning.h) and
// says exactly what it wrote, so that a later placement can take back what numaplace wrote and the
// new request no longer asks for, and never an element the operator wrote:
//   - realtime: one <cputune><vcpusched vcpus=realtime scheduler='fifo' priority='1'>; an
//     operator's <vcpusched> naming a realtime vCPU is kept for its other vCPUs (removed when it
//     has none left) and recorded as it was;
//   - <memoryBacking><locked/> and <nosharepages/>, recorded only when numaplace added them (an
//     operator's own stays theirs);
//   - <cpu><topology sockets dies='1' cores threads>, with the operator's <topology> as it was
//     (or that there was none).
// undo_tuning puts the domain back as the operator had it: each element numaplace wrote and still
// finds as it wrote it is removed, each operator element it changed is restored (unless the
// operator has since written another for the same vCPUs). What the operator edited after
// numaplace wrote it is the operator's and stays. Applying undo then write with the same tuning
// to a domain numaplace wrote gives the same document.
#pragma once

#include <libxml/tree.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "placement/model/cpu_set.h"
#include "placement/request/guest_tuning.h"
#include "xml/xml_document.h"

namespace numaplace::xml {

struct WrittenTuning {
  std::optional<CpuSet> vcpusched;            // the vcpus of the <vcpusched> numaplace added
  std::vector<Attributes> operator_vcpusched;  // the operator's <vcpusched> it narrowed or removed, as they were
  bool locked = false;                        // numaplace added <memoryBacking><locked/>
  bool nosharepages = false;                  // numaplace added <memoryBacking><nosharepages/>
  std::optional<Attributes> topology;         // the <cpu><topology> numaplace wrote
  std::optional<Attributes> operator_topology;  // the <topology> it replaced (nullopt: there was none)
  // The operator's <cpu><numa><cell>s of guest cells the placement no longer has that carried more
  // than numaplace writes (memAccess, discard, ...), each as "<cell id='1' memAccess='shared'>":
  // dropped with their cell, which the caller says.
  std::vector<std::string> dropped_cells;

  bool empty() const {
    return !vcpusched && operator_vcpusched.empty() && !locked && !nosharepages && !topology;
  }
};

// Writes `tuning` (what it does not ask for is left as the domain has it) and returns what it wrote.
WrittenTuning write_tuning(xmlDoc* doc, const GuestTuning& tuning);

// Takes back what `written` says numaplace wrote (see above).
void undo_tuning(xmlDoc* doc, const WrittenTuning& written);

}  // namespace numaplace::xml
