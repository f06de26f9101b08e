// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/sources/libvirt_connection.h"

#include "plugin/sources/libvirt_api.h"

#include <cstdlib>
#include <memory>
#include <vector>

namespace numaplace::plugin {
namespace {

struct NodeDeviceFree {
  void operator()(virNodeDevice* dev) const { loaded_libvirt().virNodeDeviceFree(dev); }
};
using NodeDevice = std::unique_ptr<virNodeDevice, NodeDeviceFree>;

struct MallocFree {
  void operator()(void* p) const { std::free(p); }
};
using MallocString = std::unique_ptr<char, MallocFree>;

// Takes ownership of the devices and of the array libvirt allocated for them.
std::vector<NodeDevice> adopt_devices(virNodeDevicePtr* devices, int count) {
  std::vector<NodeDevice> owned;
  for (int i = 0; i < count; ++i) owned.emplace_back(devices[i]);
  std::free(devices);
  return owned;
}

// libvirt's protocol never sends more cells than this (REMOTE_NODE_MAX_CELLS).
constexpr int kMaxCells = 1024;

}  // namespace

void LibvirtConnection::Closer::operator()(virConnect* conn) const {
  if (conn != nullptr) loaded_libvirt().virConnectClose(conn);
}

Result<LibvirtConnection> LibvirtConnection::open_read_only(const std::string& uri) {
  auto api = libvirt_api();
  if (!api) return api.error();
  virConnect* conn = (*api)->virConnectOpenReadOnly(uri.c_str());
  if (conn == nullptr) {
    return make_error("HostUnavailable", "cannot connect to libvirt at '" + uri + "': " + last_libvirt_message() +
                                             "; check the URI and that libvirt's daemon runs there (place, topology and "
                                             "audit can read a saved host instead: --capabilities FILE)");
  }
  return LibvirtConnection(uri, conn);
}

Result<LibvirtConnection> LibvirtConnection::open_read_write(const std::string& uri) {
  auto api = libvirt_api();
  if (!api) return api.error();
  virConnect* conn = (*api)->virConnectOpen(uri.c_str());
  if (conn == nullptr) {
    return make_error("HostUnavailable", "cannot connect to libvirt at '" + uri + "' to manage domains: " +
                                             last_libvirt_message() + "; check the URI and that you may manage domains there");
  }
  return LibvirtConnection(uri, conn);
}

Result<std::string> LibvirtConnection::capabilities_xml() const {
  char* xml = loaded_libvirt().virConnectGetCapabilities(conn_.get());
  if (xml == nullptr) {
    return make_error("HostUnavailable", "libvirt at '" + uri_ + "' did not return capabilities: " + last_libvirt_message());
  }
  std::string out(xml);
  std::free(xml);
  return out;
}

Result<xml::NodeDeviceScan> LibvirtConnection::pci_node_devices() const {
  virNodeDevicePtr* raw = nullptr;
  const int count = loaded_libvirt().virConnectListAllNodeDevices(conn_.get(), &raw, VIR_CONNECT_LIST_NODE_DEVICES_CAP_PCI_DEV);
  if (count < 0) {
    return make_error("HostUnavailable", "libvirt at '" + uri_ + "' did not list its PCI node devices: " + last_libvirt_message());
  }
  std::vector<NodeDevice> devices = adopt_devices(raw, count);
  xml::NodeDeviceScan scan;
  for (const auto& device : devices) {
    const char* name = loaded_libvirt().virNodeDeviceGetName(device.get());
    const std::string what = "node device '" + std::string(name != nullptr ? name : "?") + "' of '" + uri_ + "'";
    MallocString text(loaded_libvirt().virNodeDeviceGetXMLDesc(device.get(), 0));
    if (!text) {
      scan.refused.push_back(make_error("HostUnavailable", "libvirt did not describe " + what + ": " + last_libvirt_message()));
      continue;
    }
    auto dev = xml::read_pci_node_device(text.get(), what);
    if (!dev) {
      scan.refused.push_back(dev.error());
    } else if (dev->has_value()) {
      scan.pci.push_back(std::move(**dev));
    } else {
      ++scan.skipped;
    }
  }
  return scan;
}

Result<std::vector<CellFreeMemory>> LibvirtConnection::cells_free_memory() const {
  std::vector<unsigned long long> bytes(kMaxCells, 0);
  const int count = loaded_libvirt().virNodeGetCellsFreeMemory(conn_.get(), bytes.data(), 0, kMaxCells);
  if (count < 0) {
    return make_error("HostUnavailable", "libvirt at '" + uri_ + "' did not report free memory per NUMA cell: " +
                                             last_libvirt_message());
  }
  std::vector<CellFreeMemory> cells;
  for (int i = 0; i < count; ++i) cells.push_back({static_cast<std::uint32_t>(i), bytes[static_cast<std::size_t>(i)] / 1024});
  return cells;
}

}  // namespace numaplace::plugin
