/* SPDX-License-Identifier: LGPL-2.1-or-later */
// libvirt's own test driver (test:///default) for tests that hold numaplace to libvirt: a
// connection that closes itself, its host as numaplace reads it, domains defined for a look and
// undefined again, and where libvirt lets a defined domain's threads run.
#pragma once

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/lsan_interface.h>
#define NUMAPLACE_TEST_LSAN 1
#endif
#endif

#include "placement/model/error.h"
#include "support/cpu_list_text.h"
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

// The pCPUs set in one of libvirt's CPU maps of `bytes` bytes.
inline CpuIds ids_in_cpu_map(const unsigned char* map, int bytes) {
  CpuIds out;
  for (int cpu = 0; cpu < bytes * 8; ++cpu) {
    if ((map[cpu / 8] >> (cpu % 8)) & 1) out.insert(cpu);
  }
  return out;
}

// Where libvirt lets each thread of a defined domain run, by its own answers for the defined
// configuration (virDomainGetVcpuPinInfo, virDomainGetEmulatorPinInfo, virDomainGetIOThreadInfo):
// "vcpu N", "emulator", "iothread N" -> pCPUs, on a host of `host_cpus` CPUs. The test driver
// sizes an unpinned iothread's map by the guest's vCPUs, not the host's CPUs.
inline std::map<std::string, CpuIds> libvirt_thread_affinities(virDomain* domain, int host_cpus) {
  std::map<std::string, CpuIds> out;
  const int bytes = (host_cpus + 7) / 8;
  const int vcpus = virDomainGetVcpusFlags(
      domain, static_cast<unsigned int>(VIR_DOMAIN_AFFECT_CONFIG) | static_cast<unsigned int>(VIR_DOMAIN_VCPU_MAXIMUM));
  std::vector<unsigned char> maps(static_cast<std::size_t>(std::max(vcpus, 1) * bytes));
  const int got = virDomainGetVcpuPinInfo(domain, vcpus, maps.data(), bytes, VIR_DOMAIN_AFFECT_CONFIG);
  for (int v = 0; v < got; ++v) out["vcpu " + std::to_string(v)] = ids_in_cpu_map(maps.data() + v * bytes, bytes);
  std::vector<unsigned char> emulator(static_cast<std::size_t>(bytes));
  if (virDomainGetEmulatorPinInfo(domain, emulator.data(), bytes, VIR_DOMAIN_AFFECT_CONFIG) >= 0) {
    out["emulator"] = ids_in_cpu_map(emulator.data(), bytes);
  }
  virDomainIOThreadInfoPtr* iothreads = nullptr;
  const int count = virDomainGetIOThreadInfo(domain, &iothreads, VIR_DOMAIN_AFFECT_CONFIG);
  for (int i = 0; i < count; ++i) {
    out["iothread " + std::to_string(iothreads[i]->iothread_id)] =
        ids_in_cpu_map(iothreads[i]->cpumap, iothreads[i]->cpumaplen);
    virDomainIOThreadInfoFree(iothreads[i]);
  }
  std::free(iothreads);
  return out;
}

}  // namespace numaplace::testing
