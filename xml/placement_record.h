// numaplace's own element inside a domain's <metadata>, in the namespace
// kNamespaceUri:
//   <numaplace:numaplace xmlns:numaplace="...">
//     <numaplace:request policy=".." strategy="..">
//       <numaplace:spec key="hw:numa_nodes" value="2"/>
//       <numaplace:image-prop key="hw_numa_nodes" value="2"/>
//     </numaplace:request>
//     <numaplace:placement>
//       <numaplace:cell guest="0" host="1" vcpus="0-5" host-cpus="8-15" pins="0:8,1:9"
//                       memory-kib="3145728" pagesize-kib="0"/>   (pins: dedicated vCPUs only)
//     </numaplace:placement>
//   </numaplace:numaplace>
// The request lets a domain carry its own NUMA wishes; the placement is the record
// that makes a second run idempotent and lets claims be read back exactly.
#pragma once

#include <libxml/tree.h>

#include <optional>
#include <string>

#include "placement/error.h"
#include "placement/fit.h"
#include "placement/guest_request.h"

namespace numaplace::xml {

inline constexpr const char* kNamespaceUri = "https://numaplace.dev/xmlns/domain/1";
inline constexpr const char* kNamespacePrefix = "numaplace";

struct StoredRequest {
  SpecMap flavor_specs;
  SpecMap image_props;
  std::string policy;    // empty: default
  std::string strategy;  // empty: default
};

// The request stored in the domain, if any. Malformed records are named errors.
Result<std::optional<StoredRequest>> read_stored_request(const xmlDoc* doc, const std::string& what);

// The placement record, if any.
Result<std::optional<Placement>> read_placement_record(const xmlDoc* doc, const std::string& what);

// Replaces numaplace's element in <metadata> (creating <metadata> if needed); the placement part
// is omitted when `placement` is null (a guest that asked for no NUMA topology).
void write_record(xmlDoc* doc, const StoredRequest& request, const Placement* placement);

}  // namespace numaplace::xml
