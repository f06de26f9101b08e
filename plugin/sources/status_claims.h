/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The guests running on this host as libvirt's QEMU driver records them in its
// status directory (/run/libvirt/qemu/NAME.xml): each file a <domstatus> document
// wrapping the live <domain>. The libvirt hook reads them instead of calling back
// into libvirtd (which would deadlock: libvirtd waits for the hook). Only files
// ending in ".xml" are read; a file that cannot be read or holds no <domain> is a
// warning, not fatal for the others (the hook refuses on it); one removed since the listing (a
// guest that stopped) is left out. A plain <domain> document is accepted too.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "placement/model/error.h"
#include "plugin/sources/libvirt_domains.h"

namespace numaplace::plugin {

inline constexpr const char* kQemuStatusDir = "/run/libvirt/qemu";

struct StatusScan {
  std::vector<DomainXml> domains;  // every one running
  std::vector<std::string> warnings;
  // Beside each warning: the guest its file is named after (libvirt names a status file NAME.xml),
  // "" when the directory itself could not be listed.
  std::vector<std::string> unread_guests;
};

// `scan`'s warnings, less those about the status file of the guest `name` (the guest being placed
// again is not beside itself).
std::vector<std::string> status_warnings_except(const StatusScan& scan, const std::string& name);

// The <domain> inside one status document, as its own XML text.
Result<DomainXml> domain_from_status(std::string_view text, const std::string& what);

// Every status file of `dir`, in name order; a missing directory is an empty scan.
StatusScan read_status_dir(const std::string& dir);

}  // namespace numaplace::plugin
