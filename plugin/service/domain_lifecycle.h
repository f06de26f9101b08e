/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Define and start guests through libvirt with placement in between, under the
// host lock: read the host and the claims of the guests already there, place,
// define with libvirt's schema validation, and (for start) start. A guest being
// defined again or started never collides with its own earlier claim.
//   define: claims of running guests and of defined guests placed by numaplace
//           (a defined guest holds its reservation until it is undefined);
//   start:  claims of running guests; a guest whose recorded pins are still free
//           starts unchanged, otherwise it is placed again and redefined first.
// Before a dedicated guest is defined or started, every other guest (running or defined) whose
// threads may run on its pCPUs is narrowed off them, live and persistently
// (plugin/service/guest_narrowing.h); when one would be left with no pCPU, the new guest is refused
// (WouldStarveGuest) and nothing changes.
// A dry run reads the same (read-only, without the lock) and places the same, and stops before the
// first write: nothing is narrowed, defined or started; the outcome says what would have been.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "placement/lifecycle/default_placement.h"
#include "placement/model/error.h"
#include "placement/fit/fit.h"
#include "placement/model/guest_request.h"
#include "placement/lifecycle/replacement.h"
#include "plugin/service/place_domain.h"

namespace numaplace::plugin {

struct LifecycleOptions {
  std::string uri = "qemu:///system";
  std::string lock_path;  // empty: default_lock_path()
  SpecMap flavor_specs;   // empty with image_props: use the request stored in the domain
  SpecMap image_props;
  FitOptions fit;
  FitExplanation* explanation = nullptr;  // as PlaceRequest::explanation (place_domain.h)
  DefaultPlacementOptions floating;  // guests without a NUMA topology
  // The host configuration file; empty: $NUMAPLACE_CONFIG or the default file for a local URI.
  std::string host_config;
  bool dry_run = false;  // read and place only: no narrowing, define or start
};

struct LifecycleOutcome {
  std::string name;
  std::optional<Placement> placement;  // nullopt: the guest asked for no NUMA topology
  std::optional<DefaultPlacement> confinement;  // set for a guest without a NUMA topology
  // start: kept when the recorded placement still fits and the request is the recorded one.
  RecordedPlacementUse replacement;
  bool replaced = false;               // start: the guest was placed again before starting
  std::vector<std::string> warnings;   // domains whose claims could not be read, the placement's own
  std::vector<Narrowing> narrowings;   // other guests' threads moved off this guest's pCPUs
  // The domain XML defined (define; start when replaced), or in a dry run the one that would be;
  // empty when start keeps the definition as it is.
  std::string domain_xml;
  bool dry_run = false;                // nothing above was applied
};

Result<LifecycleOutcome> define_domain(const std::string& domain_xml, const std::string& what,
                                       const LifecycleOptions& options);
Result<LifecycleOutcome> start_domain(const std::string& name, const LifecycleOptions& options);

// What the host lock says while start_domain holds it for guest `name` (host_lock.h): the hook
// libvirt runs inside that start does not wait for the lock.
inline std::string start_lock_purpose(const std::string& name) { return "start " + name; }

}  // namespace numaplace::plugin
