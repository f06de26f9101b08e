// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/sources/libvirt_api.h"

#include <dlfcn.h>

#include <string>
#include <type_traits>

namespace numaplace::plugin {
namespace {

constexpr const char* kLibrary = "libvirt.so.0";

Result<LibvirtApi> load() {
  void* library = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    return make_error("LibvirtUnavailable", std::string("cannot load ") + kLibrary + " (" +
                                                (why ? why : "no reason given") +
                                                "); install libvirt0, or read the host from a file "
                                                "(--capabilities FILE or --hwloc FILE) instead of --connect");
  }
  LibvirtApi api{};
  std::string missing;
  auto bind = [&](auto& slot, const char* name) {
    void* symbol = dlsym(library, name);
    if (symbol == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(name);
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(symbol);
  };
#define NUMAPLACE_BIND(name) bind(api.name, #name)
  NUMAPLACE_BIND(virConnectOpen);
  NUMAPLACE_BIND(virConnectOpenReadOnly);
  NUMAPLACE_BIND(virConnectClose);
  NUMAPLACE_BIND(virConnectGetCapabilities);
  NUMAPLACE_BIND(virConnectListAllNodeDevices);
  NUMAPLACE_BIND(virConnectListAllDomains);
  NUMAPLACE_BIND(virNodeDeviceGetName);
  NUMAPLACE_BIND(virNodeDeviceGetXMLDesc);
  NUMAPLACE_BIND(virNodeDeviceFree);
  NUMAPLACE_BIND(virNodeGetCellsFreeMemory);
  NUMAPLACE_BIND(virDomainLookupByName);
  NUMAPLACE_BIND(virDomainDefineXMLFlags);
  NUMAPLACE_BIND(virDomainCreate);
  NUMAPLACE_BIND(virDomainIsActive);
  NUMAPLACE_BIND(virDomainGetName);
  NUMAPLACE_BIND(virDomainGetUUIDString);
  NUMAPLACE_BIND(virDomainGetXMLDesc);
  NUMAPLACE_BIND(virDomainFree);
  NUMAPLACE_BIND(virDomainLookupByUUIDString);
  NUMAPLACE_BIND(virDomainIsPersistent);
  NUMAPLACE_BIND(virDomainPinVcpuFlags);
  NUMAPLACE_BIND(virDomainPinEmulator);
  NUMAPLACE_BIND(virDomainPinIOThread);
  NUMAPLACE_BIND(virGetLastError);
  NUMAPLACE_BIND(virSetErrorFunc);
#undef NUMAPLACE_BIND
  if (!missing.empty()) {
    return make_error("LibvirtUnavailable", std::string(kLibrary) + " lacks " + missing +
                                                "; numaplace needs libvirt 9.0 or newer");
  }
  api.virSetErrorFunc(nullptr, [](void*, virErrorPtr) {});
  return api;
}

}  // namespace

Result<const LibvirtApi*> libvirt_api() {
  static const Result<LibvirtApi> loaded = load();  // thread-safe initialisation
  if (!loaded) return loaded.error();
  return &loaded.value();
}

const LibvirtApi& loaded_libvirt() { return *libvirt_api().value(); }

std::string last_libvirt_message() {
  auto api = libvirt_api();
  if (!api) return api.error().message;
  const virError* error = (*api)->virGetLastError();
  return error != nullptr && error->message != nullptr ? error->message : "no further detail from libvirt";
}

}  // namespace numaplace::plugin
