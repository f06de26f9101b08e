/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Folds the domains already on a host into its usage. Each domain's XML is read
// as a GuestClaim (xml/domain_claims.h); a domain whose XML cannot be read is
// reported as a warning, not silently dropped and not fatal for everyone else.
#pragma once

#include <string>
#include <vector>

#include "placement/lifecycle/claims.h"
#include "placement/model/host_topology.h"
#include "plugin/sources/libvirt_domains.h"
#include "xml/domain_claims.h"

namespace numaplace::plugin {

struct HostClaims {
  std::vector<GuestClaim> claims;
  std::vector<std::string> warnings;        // a guest not counted, and why
  std::vector<std::string> running_unread;  // those of the warnings that name a running guest
  std::vector<std::string> notes;           // a guest counted without what this host lacks (BeyondHost::CountWithin)
};

// Done when every running guest among `claims` was read; else RunningGuestsUnknown naming the first
// that was not: what it holds is unknown, and placing beside it could give its pCPUs and memory out
// twice. The message says how to stop or repair such a guest; `also` adds what else this surface
// allows (empty: nothing).
Status running_guests_known(const HostClaims& claims, const std::string& also);

// Reads claims of `domains`, leaving out the one named `exclude_name` / `exclude_uuid`
// (the guest being placed again must not collide with itself). `beyond`: how a pin or memory
// binding onto what the host lacks is read (xml/domain_claims.h): CountWithin for the guests a host
// runs or defines, Refuse (not counted, a warning) for claims an operator gives.
HostClaims read_host_claims(const std::vector<DomainXml>& domains, const HostTopology& host,
                            const std::string& exclude_name = {}, const std::string& exclude_uuid = {},
                            xml::BeyondHost beyond = xml::BeyondHost::Refuse);

}  // namespace numaplace::plugin
