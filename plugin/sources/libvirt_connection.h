/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A read-only libvirt connection (RAII over virConnectPtr) and what numaplace
// reads through it: capabilities XML, the PCI node devices (each read by
// xml/nodedev_reader; one libvirt cannot describe sensibly is refused, not
// fatal), and free memory per NUMA cell. Errors carry libvirt's own message.
// The built-in "test:///default" driver needs no daemon (the demo's host; it has no PCI devices,
// "test:///ABS/PATH/node.xml" has some); this machine's own libvirt is "qemu:///system".
#pragma once

#include <memory>
#include <string>

#include "placement/model/error.h"
#include "plugin/sources/free_memory.h"
#include "xml/nodedev_reader.h"

typedef struct _virConnect virConnect;  // NOLINT: libvirt's own spelling

namespace numaplace::plugin {

inline constexpr const char* kTestUri = "test:///default";
inline constexpr const char* kLocalUri = "qemu:///system";

class LibvirtConnection {
 public:
  static Result<LibvirtConnection> open_read_only(const std::string& uri);
  // For define and start; needs the rights to manage domains on `uri`.
  static Result<LibvirtConnection> open_read_write(const std::string& uri);

  // The raw handle, for the readers in plugin/ that need libvirt calls of their own.
  virConnect* handle() const { return conn_.get(); }

  Result<std::string> capabilities_xml() const;
  // Every PCI node device (virConnectListAllNodeDevices, CAP_PCI_DEV). A device
  // whose XML is malformed lands in `refused`; `skipped` stays 0.
  Result<xml::NodeDeviceScan> pci_node_devices() const;
  // Free memory of cells 0.. as libvirt reports it (bytes, converted to KiB).
  // libvirt's test driver reports KiB where the API promises bytes, so its cells
  // look 1024 times emptier than they are: do not apply it to a test host.
  Result<std::vector<CellFreeMemory>> cells_free_memory() const;
  const std::string& uri() const { return uri_; }

 private:
  struct Closer {
    void operator()(virConnect* conn) const;
  };
  LibvirtConnection(std::string uri, virConnect* conn) : uri_(std::move(uri)), conn_(conn) {}

  std::string uri_;
  std::unique_ptr<virConnect, Closer> conn_;
};

}  // namespace numaplace::plugin
