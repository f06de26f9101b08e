// SPDX-License-Identifier: LGPL-2.1-or-later
#include "numaplace/host_source.h"

#include <iostream>
#include <map>

#include "plugin/sources/free_memory.h"
#include "plugin/sources/host_config_file.h"
#include "plugin/sources/hwloc_source.h"
#include "plugin/sources/isolated_host_load.h"
#include "plugin/sources/libnuma_source.h"
#include "plugin/sources/libvirt_connection.h"
#include "plugin/sources/libvirt_host.h"
#include "plugin/sources/status_claims.h"
#include "xml/capabilities_reader.h"
#include "xml/nodedev_reader.h"
#include "xml/xml_document.h"

namespace numaplace::cli {
namespace {

Status add_nodedev_files(HostTopology& host, const std::vector<std::string>& files) {
  std::map<std::string, std::string> given_by;  // address -> the file that gave it
  for (const auto& path : files) {
    const std::string what = "node device file '" + path + "'";
    auto text = xml::read_text_file(path, "node device file");
    if (!text) return text.error();
    auto scan = xml::read_node_devices(*text, what);
    if (!scan) return scan.error();
    if (!scan->refused.empty()) return scan->refused.front();
    if (scan->pci.empty() && scan->skipped > 0) {
      std::cerr << "numaplace: warning: " << what << " holds no PCI device (" << scan->skipped
                << " node device(s) of other kinds: net, scsi, mdev, ...), so it adds nothing; --nodedev reads "
                   "'virsh nodedev-dumpxml pci_DDDD_BB_SS_F' output\n";
    }
    for (auto& dev : scan->pci) {
      if (dev.numa_node && host.find_cell(*dev.numa_node) == nullptr) {
        return make_error("InvalidNodeDevice", "PCI device " + dev.address + " in " + what + " is on NUMA node " +
                                                   std::to_string(*dev.numa_node) + ", but the host has cells " +
                                                   cell_id_list(host) + ": the file describes another host");
      }
      // A device given twice on two nodes (by the files, or by a file and the host source) is two
      // hosts' devices: which node to bind it near would be a guess.
      for (const auto& known : host.pci) {
        if (known.address != dev.address || !known.numa_node || !dev.numa_node || *known.numa_node == *dev.numa_node) continue;
        const auto earlier = given_by.find(dev.address);
        return make_error("InvalidNodeDevice", "PCI device " + dev.address + " is on NUMA node " +
                                                   std::to_string(*dev.numa_node) + " in " + what + " but on node " +
                                                   std::to_string(*known.numa_node) + " in " +
                                                   (earlier != given_by.end() ? earlier->second : std::string("the host source")) +
                                                   "; give the node devices of this host only, each once");
      }
      given_by[dev.address] = what;
      plugin::add_or_update_pci(host, std::move(dev));
    }
  }
  return Done{};
}

Result<HostTopology> load_from_libvirt(const std::string& uri, bool free_memory) {
  auto conn = plugin::LibvirtConnection::open_read_only(uri);
  if (!conn) return conn.error();
  auto loaded = plugin::load_libvirt_host(*conn, free_memory);
  if (!loaded) return loaded.error();
  for (const auto& warning : loaded->warnings) std::cerr << "numaplace: warning: " << warning << '\n';
  return std::move(loaded->host);
}

std::string describe_pci(const PciDevice& dev) {
  std::string text = dev.address;
  if (dev.is_pf) text += "(pf)";
  if (!dev.parent_pf.empty()) text += "(vf)";
  if (!dev.held_by.empty()) {
    text += "[" + dev.held_by + "]";
  } else if (dev.allocated) {
    text += "[allocated]";
  }
  return text;
}

}  // namespace

std::string describe_source(const HostSourceOptions& options) {
  std::string source;
  if (options.hwloc) {
    source = options.hwloc_file.empty() ? "hwloc (this machine)" : "hwloc XML '" + options.hwloc_file + "'";
  } else if (!options.capabilities_file.empty()) {
    source = "capabilities file '" + options.capabilities_file + "'";
  } else {
    source = "libvirt '" + libvirt_uri(options) + "'";
  }
  for (const auto& file : options.nodedev_files) source += " + node devices '" + file + "'";
  return source;
}

std::string libvirt_uri(const HostSourceOptions& options) {
  if (options.hwloc || !options.capabilities_file.empty()) return {};
  return options.connect_uri;
}

HostSourceOptions with_default_host(HostSourceOptions options) {
  if (options.hwloc || !options.capabilities_file.empty() || !options.connect_uri.empty()) return options;
  if (plugin::LibvirtConnection::open_read_only(plugin::kLocalUri).ok()) {
    options.connect_uri = plugin::kLocalUri;
    std::cerr << "numaplace: host: this machine's libvirt (" << plugin::kLocalUri
              << "; --connect, --capabilities or --hwloc choose another)\n";
    return options;
  }
  options.hwloc = true;
  if (options.status_dir.empty()) options.status_dir = plugin::kQemuStatusDir;
  std::cerr << "numaplace: host: this machine through hwloc (" << plugin::kLocalUri
            << " does not answer), running guests from " << options.status_dir
            << " (--connect, --capabilities or --hwloc choose another)\n";
  return options;
}

Result<HostTopology> load_hwloc_isolated(const std::string& hwloc_file) {
  if (hwloc_file.empty()) {
    return plugin::load_host_in_child([] { return plugin::load_hwloc_live(); }, "this machine's topology (hwloc)",
                                      "HwlocLoadFailed",
                                      "check 'lstopo' on this machine, or give the host with --capabilities");
  }
  return plugin::load_host_in_child([&] { return plugin::load_hwloc_xml(hwloc_file); },
                                    "hwloc export '" + hwloc_file + "'", "HwlocLoadFailed",
                                    "the export is likely malformed: re-create it with 'lstopo --of xml'");
}

Result<HostTopology> load_host(const HostSourceOptions& options) {
  Result<HostTopology> host = make_error("Unreachable", "no host source");
  const bool live = options.hwloc ? options.hwloc_file.empty() : options.capabilities_file.empty();
  if (options.free_memory && !live) {
    return make_error("FreeMemoryUnavailable", "--free-memory needs a live host (--connect URI, or --hwloc for this "
                                               "machine); " + describe_source(options) + " reports no free memory");
  }
  if (options.hwloc) {
    host = load_hwloc_isolated(options.hwloc_file);
    if (host && options.free_memory) {
      if (auto applied = plugin::apply_live_free_memory(*host); !applied) return applied.error();
    }
  } else if (!options.capabilities_file.empty()) {
    auto text = xml::read_text_file(options.capabilities_file, "capabilities file");
    if (!text) return text.error();
    host = xml::read_capabilities(*text, "capabilities file '" + options.capabilities_file + "'");
  } else if (!options.connect_uri.empty()) {
    host = load_from_libvirt(options.connect_uri, options.free_memory);
  } else {
    return make_error("Unreachable", "no host source: with_default_host was not applied");
  }
  if (!host) return host;
  if (auto added = add_nodedev_files(*host, options.nodedev_files); !added) return added.error();
  auto config = plugin::load_host_config(options.host_config, is_this_machine(options));
  if (!config) return config.error();
  if (*config) {
    if (auto applied = apply_host_config(*host, **config); !applied) return applied.error();
  }
  return host;
}

bool is_this_machine(const HostSourceOptions& options) {
  if (options.hwloc) return options.hwloc_file.empty();
  if (!options.capabilities_file.empty()) return false;
  return plugin::is_local_uri(libvirt_uri(options));
}

std::string pci_devices_of_cell(const HostTopology& host, std::uint32_t cell_id) {
  std::string out;
  for (const auto& dev : host.pci) {
    if (dev.numa_node == cell_id) out += (out.empty() ? "" : " ") + describe_pci(dev);
  }
  return out.empty() ? "-" : out;
}

std::string pci_devices_without_cell(const HostTopology& host) {
  std::string out;
  for (const auto& dev : host.pci) {
    if (!dev.numa_node || host.find_cell(*dev.numa_node) == nullptr) out += (out.empty() ? "" : " ") + describe_pci(dev);
  }
  return out.empty() ? "-" : out;
}

}  // namespace numaplace::cli
