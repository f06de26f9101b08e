/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The library's one-call placement: a domain XML text, a host (with the claims of
// other guests already folded into its usage) and the NUMA wishes in; the
// rewritten domain XML (or an error naming why) out. When the caller gives no
// spec and no image property, the request stored in the domain's numaplace
// metadata is used. The request and the placement are recorded in that metadata.
// A guest that asks for no NUMA topology is confined to the cells its vCPUs, memory
// and PCI devices agree on under the topology policy (default_placement.h).
// <hostdev> PCI devices found on the host constrain both kinds of guest.
// No global state; no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "placement/lifecycle/default_placement.h"
#include "placement/model/error.h"
#include "placement/fit/fit.h"
#include "placement/model/guest_request.h"
#include "placement/model/host_topology.h"
#include "placement/lifecycle/narrowing.h"
#include "placement/lifecycle/replacement.h"
#include "placement/model/pci_address.h"

namespace numaplace::plugin {

struct PlaceRequest {
  std::string domain_xml;
  std::string domain_name_for_errors = "domain XML";
  SpecMap flavor_specs;
  SpecMap image_props;
  FitOptions fit;
  // For guests that ask for no NUMA topology: the policy their resources' hints are merged
  // under (none leaves them unconfined).
  DefaultPlacementOptions floating;
  // Host PCI addresses ("0000:3b:00.0") the guest will be given besides its <hostdev> elements.
  std::vector<std::string> pci_addresses;
  // Start from the placement recorded in the domain when its request is the one asked for,
  // moving only what must move (placement/lifecycle/replacement.h); false: a fresh fit.
  bool keep_recorded = true;
  // The guests already on the host (their claims folded into `host`, this guest's own left out):
  // when given, a dedicated guest's outcome lists their threads that must leave its pCPUs
  // (placement/lifecycle/narrowing.h), or it is refused when one would be left with none.
  const std::vector<GuestClaim>* other_guests = nullptr;
  // When set, receives the explanation of the last fit (FitResult::explanation), also when the
  // guest is refused: a refusal is an error, which carries no outcome.
  FitExplanation* explanation = nullptr;
};

// How the placement recorded in a domain was used: fresh (none, or not this request), kept,
// repinned (the cells named re-pinned on their recorded host cells) or moved.
struct RecordedPlacementUse {
  ReplacementKind kind = ReplacementKind::Fresh;
  std::vector<std::uint32_t> repinned_cells;
  std::string why;        // why pins or cells had to change
  std::string refreshed;  // kept cells that float on other CPUs than the record said, and which
};

struct PlaceOutcome {
  std::string domain_name;
  std::string domain_uuid;
  std::string domain_xml;              // the rewritten document
  std::optional<Placement> placement;  // nullopt: the guest asked for no NUMA topology
  std::optional<DefaultPlacement> confinement;  // set for a guest without a NUMA topology
  std::vector<CellRejection> rejections;
  std::vector<std::string> warnings;   // e.g. a <hostdev> the host does not have
  bool request_from_metadata = false;
  RecordedPlacementUse replacement;
  std::vector<Narrowing> narrowings;   // other guests' threads to move off this guest's pCPUs
  CpuSet held;                         // the pCPUs this guest holds for itself (pins, emulator, siblings)
};

// Errors: the XML's (XmlMalformed, NotDomain, InvalidDomain, InvalidMemorySize ...),
// the request's (Nova's exception names, UnknownSpecKey ...), InvalidPciAddress, the operator's
// elements that cannot be honoured (ConflictingPin, ConflictingConstraint, PinBeyondHost),
// PciDeviceHeld, WouldStarveGuest and "NoFit".
Result<PlaceOutcome> place_domain(const HostTopology& host, const PlaceRequest& request);

// A person-readable account of why nothing fit: the summary, then one entry per guest cell and
// host cell, each after `separator` (a new indented line by default).
std::string explain_no_fit(const FitResult& result, std::string_view separator = "\n  ");

}  // namespace numaplace::plugin
