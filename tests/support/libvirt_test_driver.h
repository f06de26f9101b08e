/* SPDX-License-Identifier: LGPL-2.1-or-later */
// libvirt's own test driver (test:///default) for tests that hold numaplace to libvirt: a
// connection that closes itself, its host as numaplace reads it, and domains defined for a look
// and undefined again.
#pragma once

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <cstdlib>
#include <memory>
#include <string>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/lsan_interface.h>
#define NUMAPLACE_TEST_LSAN 1
#endif
#endif

#include "placement/model/error.h"
#include "placement/model/host_topology.h"
#include "xml/capabilities_reader.h"

namespace numaplace::testing {

struct TestDriverCloser {
  void operator()(virConnect* conn) const { virConnectClose(conn); }
};
using TestDriver = std::unique_ptr<virConnect, TestDriverCloser>;

// A domain defined on the driver for as long as the handle lives.
struct DefinedDomainCloser {
  void operator()(virDomain* domain) const {
    virDomainUndefine(domain);
    virDomainFree(domain);
  }
};
using DefinedDomain = std::unique_ptr<virDomain, DefinedDomainCloser>;

// `xml` defined on the driver (null when libvirt refuses it), with libvirt's validation `flags`.
// libvirt 9.0's domain parser leaks a vCPU mask it parsed on some paths through broken domains (a
// <cpu><numa> cell given twice, for one); LeakSanitizer would report those allocations of libvirt's
// own, so they are made with leak detection off. numaplace's allocations are never made here.
inline DefinedDomain define_for_a_look(virConnect* conn, const std::string& xml, unsigned int flags = 0) {
#ifdef NUMAPLACE_TEST_LSAN
  __lsan_disable();
#endif
  DefinedDomain domain(virDomainDefineXMLFlags(conn, xml.c_str(), flags));
#ifdef NUMAPLACE_TEST_LSAN
  __lsan_enable();
#endif
  return domain;
}

// A new connection to test:///default (null when libvirt cannot open it), with libvirt's own
// printing of errors turned off: the tests look at what it refuses.
inline TestDriver open_test_driver() {
  virSetErrorFunc(nullptr, [](void*, virErrorPtr) {});
  return TestDriver(virConnectOpen("test:///default"));
}

// The driver's host, read from its capabilities as numaplace reads any.
inline Result<HostTopology> test_driver_host(virConnect* conn) {
  char* caps = virConnectGetCapabilities(conn);
  if (caps == nullptr) return make_error("LibvirtUnavailable", "libvirt's test driver gave no capabilities");
  auto host = xml::read_capabilities(caps);
  std::free(caps);
  return host;
}

}  // namespace numaplace::testing
