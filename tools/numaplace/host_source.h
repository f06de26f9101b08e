// Where the CLI gets its host from: --capabilities FILE, or a libvirt URI
// (--connect, default test:///default, libvirt's built-in test host).
#pragma once

#include <string>

#include "placement/error.h"
#include "placement/host_topology.h"

namespace numaplace::cli {

struct HostSourceOptions {
  std::string connect_uri;        // empty: default
  std::string capabilities_file;  // wins when set
};

Result<HostTopology> load_host(const HostSourceOptions& options);
// The libvirt URI the host comes from, or empty when it comes from a file.
std::string libvirt_uri(const HostSourceOptions& options);
std::string describe_source(const HostSourceOptions& options);

}  // namespace numaplace::cli
