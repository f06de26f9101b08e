// SPDX-License-Identifier: LGPL-2.1-or-later
// Where a guest's threads may run, as numaplace reads it from a domain (what the guest holds and
// where it floats, the ground of every claim), is where libvirt lets them run: random domains with
// <vcpu cpuset>, <vcpupin>, <emulatorpin>, iothreads by count or by id and <iothreadpin>, each
// defined on libvirt's test driver, whose own answers (virDomainGetVcpuPinInfo,
// virDomainGetEmulatorPinInfo, virDomainGetIOThreadInfo, of the defined configuration) are the
// expectation, read from libvirt's bitmaps apart from numaplace's cpulist parser.
#include <gtest/gtest.h>
#include <libvirt/libvirt.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support/libvirt_test_driver.h"
#include "xml/domain_bindings.h"
#include "xml/domain_reader.h"
#include "xml/xml_document.h"

namespace numaplace {
namespace {

using Ids = testing::CpuIds;

Ids ids_of(const CpuSet& cpus) {
  Ids out;
  for (std::uint32_t cpu : cpus) out.insert(static_cast<int>(cpu));
  return out;
}

// A cpulist within the host's `cpus` pCPUs, now and then with an exclusion or a range.
std::string random_list(std::mt19937& rng, int cpus) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::string out;
  for (int items = pick(1, 3); items > 0; --items) {
    const int first = pick(0, cpus - 1);
    std::string item = std::to_string(first);
    if (pick(0, 2) == 0) item += "-" + std::to_string(pick(first, cpus - 1));
    if (!out.empty() && pick(0, 3) == 0) item = "^" + std::to_string(first);
    out += (out.empty() ? "" : ",") + item;
  }
  return out;
}

using ThreadAffinityProperty = ::testing::Test;

TEST_F(ThreadAffinityProperty, NumaplaceReadsWhereEachThreadRunsAsLibvirtDoes) {
  testing::TestDriver conn = testing::open_test_driver();
  ASSERT_NE(conn, nullptr);
  auto host = testing::test_driver_host(conn.get());
  ASSERT_TRUE(host.ok()) << host.error().message;
  CpuSet host_cpus;
  for (const auto& cell : host->cells) host_cpus = host_cpus.united(cell.cpus);
  const int cpus = static_cast<int>(host_cpus.size());
  ASSERT_GE(cpus, 8);

  std::mt19937 rng(20261207);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int compared = 0, threads_compared = 0, pinned_vcpus = 0, by_cpuset = 0, iothreads_by_id = 0, auto_placed = 0;
  for (int round = 0; round < 1500; ++round) {
    const int vcpus = pick(1, 6);
    std::string vcpu = "<vcpu";
    if (pick(0, 7) == 0) vcpu += " placement='auto'";
    if (pick(0, 1) == 0) vcpu += " cpuset='" + random_list(rng, cpus) + "'";
    vcpu += ">" + std::to_string(vcpus) + "</vcpu>";
    std::string iothreads, tune;
    std::vector<int> iothread_ids;
    if (pick(0, 2) == 0) {
      const int n = pick(1, 3);
      iothreads = "<iothreads>" + std::to_string(n) + "</iothreads>";
      for (int id = 1; id <= n; ++id) iothread_ids.push_back(id);
    } else if (pick(0, 1) == 0) {
      std::set<int> ids;
      for (int n = pick(1, 3); n > 0; --n) ids.insert(pick(1, 9));
      iothreads = "<iothreads>" + std::to_string(ids.size()) + "</iothreads><iothreadids>";
      for (int id : ids) iothreads += "<iothread id='" + std::to_string(id) + "'/>";
      iothreads += "</iothreadids>";
      iothread_ids.assign(ids.begin(), ids.end());
    }
    for (int v = 0; v < vcpus; ++v) {
      if (pick(0, 2) == 0) tune += "<vcpupin vcpu='" + std::to_string(v) + "' cpuset='" + random_list(rng, cpus) + "'/>";
    }
    if (pick(0, 2) == 0) tune += "<emulatorpin cpuset='" + random_list(rng, cpus) + "'/>";
    for (int id : iothread_ids) {
      if (pick(0, 1) == 0) {
        tune += "<iothreadpin iothread='" + std::to_string(id) + "' cpuset='" + random_list(rng, cpus) + "'/>";
      }
    }
    const std::string xml = "<domain type='test'><name>threads-" + std::to_string(round) +
                            "</name><memory unit='MiB'>512</memory>" + vcpu + iothreads +
                            (tune.empty() ? "" : "<cputune>" + tune + "</cputune>") +
                            "<os><type>hvm</type></os></domain>";

    auto doc = xml::parse_document(xml, "domain");
    ASSERT_TRUE(doc.ok()) << xml;
    auto summary = xml::read_domain_summary(doc->get(), "domain");
    auto bindings = summary.ok() ? xml::read_domain_bindings(doc->get(), "domain", summary->vcpus)
                                 : Result<xml::DomainBindings>(summary.error());
    testing::DefinedDomain domain = testing::define_for_a_look(conn.get(), xml);
    if (!domain) {
      // An empty list ("3,^3") is all libvirt refuses here; numaplace must refuse it too.
      EXPECT_FALSE(bindings.ok()) << "libvirt refuses this domain, numaplace read it:\n" << xml;
      continue;
    }
    ASSERT_TRUE(bindings.ok()) << "libvirt takes this domain, numaplace refused it: " << bindings.error().message
                               << "\n" << xml;
    const std::map<std::string, Ids> expected = testing::libvirt_thread_affinities(domain.get(), cpus);
    std::map<std::string, Ids> read;
    std::map<std::string, Ids> expected_threads = expected;
    for (const auto& thread : xml::thread_affinities(bindings->threads, host_cpus)) {
      const std::string key = thread.kind == ThreadAffinity::Kind::Vcpu       ? "vcpu " + std::to_string(thread.id)
                              : thread.kind == ThreadAffinity::Kind::Emulator ? std::string("emulator")
                                                                               : "iothread " + std::to_string(thread.id);
      // The test driver reports an iothread bound by nothing as able to run on as many pCPUs as
      // the guest has vCPUs (it sizes the map by them), where QEMU's driver says every host CPU;
      // such an iothread is checked for its presence only.
      if (thread.kind == ThreadAffinity::Kind::IoThread && thread.source == "no pinning") {
        EXPECT_EQ(expected_threads.erase(key), 1u) << key << " is not libvirt's\n" << xml;
        continue;
      }
      read[key] = ids_of(thread.cpus);
    }
    EXPECT_EQ(read, expected_threads) << xml;
    ++compared;
    threads_compared += static_cast<int>(read.size());
    pinned_vcpus += static_cast<int>(bindings->threads.vcpupins.size());
    by_cpuset += bindings->threads.vcpu_cpuset ? 1 : 0;
    auto_placed += bindings->threads.vcpu_placement_auto ? 1 : 0;
    iothreads_by_id += xml.find("<iothreadids>") != std::string::npos ? 1 : 0;
    if (::testing::Test::HasFailure()) break;
  }
  // About 1,475 domains compared (25 refused by both), 8,000 threads, 1,700 vCPU pins, 620 with
  // <vcpu cpuset>, 500 with <iothreadids>, 180 with placement='auto' (seeds 1 to 9 alike).
  EXPECT_GT(compared, 1300);
  EXPECT_GT(threads_compared, 7000);
  EXPECT_GT(pinned_vcpus, 1500);
  EXPECT_GT(by_cpuset, 500);
  EXPECT_GT(iothreads_by_id, 400);
  EXPECT_GT(auto_placed, 120);
}

}  // namespace
}  // namespace numaplace
