/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Reads numaplace's host configuration file (placement/model/host_config.h), an INI file with
// Nova's names where Nova has them:
//   [DEFAULT]  cpu_allocation_ratio = 16.0      ram_allocation_ratio = 1.5
//              reserved_huge_pages = node:0,size:1GB,count:2     (repeatable, Nova's syntax)
//   [compute]  cpu_dedicated_set = 2-15         cpu_shared_set = 0-1   (Nova's CPU spec: 0-7,^3)
//   [numaplace] reserved_cpus = 0               (never given to a guest)
//              reserved_memory = node:0,size:1GB (repeatable; size in KiB unless it has a unit)
//              accounting = exclusive | nova
// '#' and ';' start comment lines. An empty CPU set is no value (Nova's reading). An unknown
// section or key, a value given twice (a node, or a node and page size, reserved on two lines), or a bad
// value is InvalidHostConfig naming the file, the line and what to write instead; nothing is
// half-read. Where the file lives: --host-config FILE, else $NUMAPLACE_CONFIG, else
// /etc/numaplace/numaplace.conf, which is read only for this machine's own host (a file that
// does not exist there is no configuration).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "placement/model/error.h"
#include "placement/model/host_config.h"

namespace numaplace::plugin {

inline constexpr const char* kDefaultHostConfigPath = "/etc/numaplace/numaplace.conf";

Result<HostConfig> parse_host_config(std::string_view text, const std::string& what);

// The configuration to apply: `path` when given (it must exist), else, for this machine's own
// host (`this_machine`), $NUMAPLACE_CONFIG or the default file when it exists; nullopt: none.
Result<std::optional<HostConfig>> load_host_config(const std::string& path, bool this_machine);

// Whether a libvirt URI names a hypervisor of this machine ("qemu:///system", "qemu:///session"):
// no host part, and not libvirt's test driver, whose hosts exist nowhere.
bool is_local_uri(const std::string& uri);

}  // namespace numaplace::plugin
