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

// <iothreads> larger than the ids named: libvirt adds the lowest ids it lacks (iothreadinfo of
// this domain on libvirt 9.0's test driver lists 2, 5, 1, 3).
TEST(ThreadAffinity, IothreadsLibvirtAddsAreReadAndAnIdGivenTwiceIsRefused) {
  auto read = [](const std::string& iothreads) {
    const std::string xml = "<domain type='test'><name>io</name><memory unit='MiB'>512</memory><vcpu>2</vcpu>" +
                            iothreads + "<os><type>hvm</type></os></domain>";
    auto doc = xml::parse_document(xml, "domain");
    EXPECT_TRUE(doc.ok());
    return xml::read_domain_bindings(doc->get(), "domain", 2);
  };
  auto added = read("<iothreads>4</iothreads><iothreadids><iothread id='2'/><iothread id='5'/></iothreadids>");
  ASSERT_TRUE(added.ok()) << added.error().message;
  EXPECT_EQ(added->threads.iothread_ids, (std::vector<std::uint32_t>{2, 5, 1, 3}));
  auto twice = read("<iothreadids><iothread id='2'/><iothread id='2'/></iothreadids>");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().name, "InvalidDomain");
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
  int iothreads_added = 0;
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
      // Now and then <iothreads> counts more than the ids, and libvirt adds ids of its own (the
      // lowest it lacks, so among 1 to the count): now and then one of those is pinned too.
      std::set<int> ids;
      for (int n = pick(1, 3); n > 0; --n) ids.insert(pick(1, 9));
      const int count = static_cast<int>(ids.size()) + (pick(0, 2) == 0 ? pick(1, 3) : 0);
      iothreads = "<iothreads>" + std::to_string(count) + "</iothreads><iothreadids>";
      for (int id : ids) iothreads += "<iothread id='" + std::to_string(id) + "'/>";
      iothreads += "</iothreadids>";
      iothread_ids.assign(ids.begin(), ids.end());
      if (count > static_cast<int>(ids.size()) && pick(0, 1) == 0) iothread_ids.push_back(pick(1, count));
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
    std::size_t named = 0;
    for (std::size_t at = xml.find("<iothread id="); at != std::string::npos; at = xml.find("<iothread id=", at + 1)) {
      ++named;
    }
    const auto libvirt_iothreads = static_cast<std::size_t>(std::count_if(
        expected.begin(), expected.end(), [](const auto& thread) { return thread.first.rfind("iothread", 0) == 0; }));
    iothreads_added += named > 0 && libvirt_iothreads > named ? 1 : 0;
    if (::testing::Test::HasFailure()) break;
  }
  // About 1,465 domains compared (35 refused by both), 8,000 threads, 1,700 vCPU pins, 650 with
  // <vcpu cpuset>, 500 with <iothreadids> (130 to 165 of them with iothreads libvirt adds), 180
  // with placement='auto' (seeds 0 to 3 alike).
  EXPECT_GT(compared, 1300);
  EXPECT_GT(threads_compared, 7000);
  EXPECT_GT(pinned_vcpus, 1500);
  EXPECT_GT(by_cpuset, 500);
  EXPECT_GT(iothreads_by_id, 400);
  EXPECT_GT(auto_placed, 120);
  EXPECT_GT(iothreads_added, 80);
}

}  // namespace
}  // namespace numaplace
