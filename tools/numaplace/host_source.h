/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Where the CLI gets its host from, exactly one of: a libvirt URI (--connect URI:
// capabilities plus its PCI node devices), a saved capabilities file (--capabilities
// FILE), or hwloc (--hwloc: this machine; --hwloc FILE: an hwloc XML export, PCI
// devices included). Without any of them the host is this machine (with_default_host):
// its libvirt (qemu:///system) when it answers, else hwloc with the running guests read
// from libvirt's QEMU status files; which one was read is said on stderr. Node device XML files (--nodedev FILE, repeatable) add or update
// PCI devices on any of them; a file's device on a NUMA node the host does not
// have is refused ("InvalidNodeDevice"). PCI devices libvirt describes badly are
// left out with a warning on stderr. hwloc reads in a child process
// (plugin/sources/isolated_host_load.h): a crash or stall inside hwloc is "HwlocLoadFailed".
// The host configuration (--host-config, or this machine's own file) is applied last.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "placement/model/error.h"
#include "placement/model/host_topology.h"

namespace numaplace::cli {

struct HostSourceOptions {
  std::string connect_uri;                 // empty: default
  std::string capabilities_file;           // wins over connect_uri when set
  bool hwloc = false;                      // read the host from hwloc ...
  std::string hwloc_file;                  // ... from this export; empty: this machine
  std::vector<std::string> nodedev_files;  // node device XML adding PCI devices
  // Raise each cell's used memory to what the live host shows in use (plugin/sources/free_memory.h):
  // libvirt's free memory per cell, or libnuma's for --hwloc of this machine. A file-based
  // host has no live free memory: FreeMemoryUnavailable.
  bool free_memory = false;
  // The host configuration (plugin/sources/host_config_file.h): this file; empty: $NUMAPLACE_CONFIG or
  // /etc/numaplace/numaplace.conf when the host is this machine (bare --hwloc, a local libvirt
  // URI such as qemu:///system), none for files and other hosts.
  std::string host_config;
  // Guests' claims come from libvirt's QEMU status files in this directory (set by
  // with_default_host when this machine's libvirt does not answer); empty: not read.
  std::string status_dir;
};

// `options` as given when it names a host; else this machine: qemu:///system when a read-only
// connection opens, otherwise hwloc of this machine with status_dir set. Says which on stderr.
HostSourceOptions with_default_host(HostSourceOptions options);

// Whether the host read is this machine itself (its own configuration file applies).
bool is_this_machine(const HostSourceOptions& options);

Result<HostTopology> load_host(const HostSourceOptions& options);
// hwloc's view, read in a child process: this machine when `hwloc_file` is empty, else that export.
Result<HostTopology> load_hwloc_isolated(const std::string& hwloc_file);
// The libvirt URI the host comes from, or empty when it comes from a file or hwloc (or no
// source was given: with_default_host resolves that first).
std::string libvirt_uri(const HostSourceOptions& options);
std::string describe_source(const HostSourceOptions& options);

// For the topology table: the PCI devices of one cell ("0000:3b:00.0 0000:3b:10.0(vf)"),
// and those whose NUMA node is unknown; "-" when there are none.
std::string pci_devices_of_cell(const HostTopology& host, std::uint32_t cell_id);
std::string pci_devices_without_cell(const HostTopology& host);

}  // namespace numaplace::cli
