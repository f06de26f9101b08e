/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Loading a host in a child process, so that a crash or a stall inside a C library reading
// untrusted input (hwloc 2.9's XML importer trusts its input: fuzzing found five crash classes in
// an hour) ends as a named error instead of taking the caller down. `load` runs in a forked
// child; the host (or the error) comes back as host JSON (host_json.h) over a pipe. A child
// killed by a signal, ending without an answer, or running past `limit` (it is then killed) is
// `failure_name` with a sentence naming `what` and ending with `remedy` (what the user can do).
// The child's address space may grow by `memory_limit_bytes` (0: no limit; not applied in an
// AddressSanitizer build), so a loader that asks for more fails its allocation instead of
// starving the machine; a loader that throws std::bad_alloc is reported as out of memory.
// The child dies with the calling process (PR_SET_PDEATHSIG) and holds none of its standard
// input or output. The CLI uses it for hwloc; the library's C ABI loads in process (forking
// inside a compute driver's threads is not the library's call).
// No exception escapes.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "placement/model/error.h"
#include "placement/model/host_topology.h"

namespace numaplace::plugin {

// False in an AddressSanitizer build, where memory_limit_bytes is not applied.
bool child_memory_can_be_limited();

Result<HostTopology> load_host_in_child(const std::function<Result<HostTopology>()>& load, const std::string& what,
                                        const std::string& failure_name, const std::string& remedy,
                                        std::chrono::milliseconds limit = std::chrono::seconds(60),
                                        std::uint64_t memory_limit_bytes = std::uint64_t{1} << 30);

}  // namespace numaplace::plugin
