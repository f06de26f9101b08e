/* SPDX-License-Identifier: LGPL-2.1-or-later */
// libvirt, loaded on first use. numaplace reads most hosts from files (capabilities, hwloc,
// JSON) and runs as libvirt's hook, where calling back into libvirt is forbidden; mapping
// libvirt and its ~50 dependent libraries there would cost start-up time and most of the
// process's resident memory for nothing. So libnumaplace does not link libvirt: the first
// caller that needs a connection gets the functions below from dlopen("libvirt.so.0"),
// with libvirt's default error printing silenced (numaplace reports errors itself).
// Thread-safe; the library stays loaded for the life of the process.
#pragma once

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <string>

#include "placement/model/error.h"

namespace numaplace::plugin {

// The libvirt functions numaplace calls, named as libvirt names them.
struct LibvirtApi {
  decltype(&::virConnectOpen) virConnectOpen;
  decltype(&::virConnectOpenReadOnly) virConnectOpenReadOnly;
  decltype(&::virConnectClose) virConnectClose;
  decltype(&::virConnectGetCapabilities) virConnectGetCapabilities;
  decltype(&::virConnectListAllNodeDevices) virConnectListAllNodeDevices;
  decltype(&::virConnectListAllDomains) virConnectListAllDomains;
  decltype(&::virNodeDeviceGetName) virNodeDeviceGetName;
  decltype(&::virNodeDeviceGetXMLDesc) virNodeDeviceGetXMLDesc;
  decltype(&::virNodeDeviceFree) virNodeDeviceFree;
  decltype(&::virNodeGetCellsFreeMemory) virNodeGetCellsFreeMemory;
  decltype(&::virDomainLookupByName) virDomainLookupByName;
  decltype(&::virDomainDefineXMLFlags) virDomainDefineXMLFlags;
  decltype(&::virDomainCreate) virDomainCreate;
  decltype(&::virDomainIsActive) virDomainIsActive;
  decltype(&::virDomainGetName) virDomainGetName;
  decltype(&::virDomainGetUUIDString) virDomainGetUUIDString;
  decltype(&::virDomainGetXMLDesc) virDomainGetXMLDesc;
  decltype(&::virDomainFree) virDomainFree;
  decltype(&::virDomainLookupByUUIDString) virDomainLookupByUUIDString;
  decltype(&::virDomainIsPersistent) virDomainIsPersistent;
  decltype(&::virDomainPinVcpuFlags) virDomainPinVcpuFlags;
  decltype(&::virDomainPinEmulator) virDomainPinEmulator;
  decltype(&::virDomainPinIOThread) virDomainPinIOThread;
  decltype(&::virGetLastError) virGetLastError;
  decltype(&::virSetErrorFunc) virSetErrorFunc;
};

// The loaded functions, or LibvirtUnavailable saying what could not be loaded and what to do.
Result<const LibvirtApi*> libvirt_api();

// The loaded functions, for code that holds a connection (opening one loaded them).
const LibvirtApi& loaded_libvirt();

// libvirt's message for the last failed call on this thread, or a placeholder.
std::string last_libvirt_message();

}  // namespace numaplace::plugin
