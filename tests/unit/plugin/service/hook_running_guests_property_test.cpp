// SPDX-License-Identifier: LGPL-2.1-or-later
// Invariant: the hook never places a guest onto what a running guest holds, and never places one
// beside a running guest it cannot read. For random running guests (dedicated and shared, placed
// one after another on a 2- or 4-cell host), one of them at times damaged (its numaplace record
// edited into nonsense, its status XML cut short) or pinned beyond the host (a CPU gone offline),
// a restored guest is placed again by the hook:
//   - beside a guest it cannot read: refused, RunningGuestsUnknown;
//   - otherwise, when placed: no dedicated vCPU of it on a pCPU a running dedicated guest's vCPU
//     is pinned to (read here from the running guests' <vcpupin> by a pattern of its own), and a
//     pin beyond the host is counted within it with a warning, not refused.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "placement/lifecycle/claims.h"
#include "plugin/service/place_domain.h"
#include "plugin/service/qemu_hook.h"
#include "plugin/sources/host_claims.h"
#include "support/test_paths.h"
#include "xml/capabilities_reader.h"
#include "xml/xml_document.h"

namespace numaplace::plugin {
namespace {

std::string guest_xml(const std::string& name, int vcpus, int memory_mib) {
  return "<domain type='kvm'><name>" + name + "</name><memory unit='MiB'>" + std::to_string(memory_mib) +
         "</memory><vcpu>" + std::to_string(vcpus) + "</vcpu><os><type arch='x86_64'>hvm</type></os><devices/></domain>";
}

// The pCPU of each <vcpupin> with one pCPU, from the XML's text.
std::set<int> single_pins(const std::string& xml) {
  std::set<int> pins;
  const std::regex pin(R"re(<vcpupin vcpu=["']\d+["'] cpuset=["'](\d+)["']/>)re");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), pin); it != std::sregex_iterator(); ++it) {
    pins.insert(std::stoi((*it)[1].str()));
  }
  return pins;
}

enum class Damage { None, Record, CutShort, PinBeyondHost };

TEST(HookRunningGuestsProperty, NeverPlacesOntoHeldPcpusNorBesideAGuestItCannotRead) {
  const std::vector<std::string> hosts = {testing::shared_path("samples/libvirt/caps-2cell.xml"),
                                          testing::shared_path("samples/libvirt/caps-4cell.xml")};
  std::vector<std::string> caps;
  for (const auto& path : hosts) {
    auto text = xml::read_text_file(path, "capabilities");
    ASSERT_TRUE(text.ok()) << text.error().message;
    caps.push_back(*text);
  }
  std::mt19937 rng(20261207);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::map<Damage, int> refused, placed, no_fit;
  for (int round = 0; round < 300; ++round) {
    const std::string& host_caps = caps[static_cast<std::size_t>(pick(0, 1))];
    auto read_host = [&]() { return xml::read_capabilities(host_caps); };
    auto empty = read_host();
    ASSERT_TRUE(empty.ok()) << empty.error().message;

    // Running guests, each placed around those before it.
    std::vector<DomainXml> running;
    std::vector<bool> is_dedicated;
    const int count = pick(1, 5);
    for (int g = 0; g < count; ++g) {
      HostTopology host = *empty;
      const HostClaims so_far = read_host_claims(running, host);
      ASSERT_TRUE(so_far.warnings.empty()) << so_far.warnings.front();
      apply_claims(host, so_far.claims);
      const bool dedicated = pick(0, 1) == 1;
      PlaceRequest request;
      request.domain_xml = guest_xml("run-" + std::to_string(g), pick(1, 4), 256 * pick(1, 8));
      request.flavor_specs = {{"hw:numa_nodes", "1"}};
      if (dedicated) request.flavor_specs["hw:cpu_policy"] = "dedicated";
      auto outcome = place_domain(host, request);
      if (!outcome.ok()) continue;  // the host is full for it: fewer running guests
      running.push_back({"run-" + std::to_string(g), {}, true, outcome->domain_xml});
      is_dedicated.push_back(dedicated);
    }
    if (running.empty()) continue;

    // One of them damaged, at times.
    const Damage damage = static_cast<Damage>(pick(0, 3));
    DomainXml& victim = running[static_cast<std::size_t>(pick(0, static_cast<int>(running.size()) - 1))];
    std::string& text = victim.xml;
    if (damage == Damage::Record) {
      const std::size_t at = text.find(" memory-kib=\"", text.find("<numaplace:cell "));
      ASSERT_NE(at, std::string::npos) << text;
      text.insert(at + std::string(" memory-kib=\"").size(), "x");
    } else if (damage == Damage::CutShort) {
      text.resize(text.size() / 2);
    } else if (damage == Damage::PinBeyondHost) {
      const std::size_t at = text.find("<vcpupin vcpu=");
      if (at == std::string::npos) continue;
      const std::size_t set = text.find("cpuset=", at) + std::string("cpuset=\"").size();
      text.replace(set, text.find('"', set) - set, "1000");
    }
    std::set<int> dedicated_pins;  // what the running dedicated guests' vCPUs are pinned to now
    for (std::size_t g = 0; g < running.size(); ++g) {
      if (!is_dedicated[g]) continue;
      for (int pcpu : single_pins(running[g].xml)) dedicated_pins.insert(pcpu);
    }

    // The guest being restored: placed before on the empty host, with its numaplace request.
    PlaceRequest first;
    first.domain_xml = guest_xml("restored", pick(1, 4), 256 * pick(1, 8));
    first.flavor_specs = {{"hw:numa_nodes", "1"}, {"hw:cpu_policy", "dedicated"}};
    auto before = place_domain(*empty, first);
    ASSERT_TRUE(before.ok()) << before.error().message;
    HookInput input{"restored", "restore", "begin", before->domain_xml};
    HookSources sources;
    sources.host = read_host;
    sources.running = [&]() -> Result<std::vector<DomainXml>> { return running; };
    const HookVerdict verdict = decide_qemu_hook(input, sources);

    const std::string context = "round " + std::to_string(round) + ", damage " + std::to_string(static_cast<int>(damage));
    if (damage == Damage::Record || damage == Damage::CutShort) {
      ASSERT_TRUE(verdict.refused) << context << ": placed beside a guest it cannot read";
      EXPECT_EQ(verdict.refusal.name, "RunningGuestsUnknown") << context << ": " << verdict.refusal.message;
      ++refused[damage];
      continue;
    }
    if (verdict.refused) {
      EXPECT_EQ(verdict.refusal.name, "NoFit") << context << ": " << verdict.refusal.message;
      ++no_fit[damage];
      continue;
    }
    ++placed[damage];
    const std::string& now = verdict.new_xml.empty() ? before->domain_xml : verdict.new_xml;
    for (int pcpu : single_pins(now)) {
      EXPECT_EQ(dedicated_pins.count(pcpu), 0u) << context << ": pCPU " << pcpu << " given again\n" << now;
    }
    if (damage == Damage::PinBeyondHost) {
      bool said = false;
      for (const auto& warning : verdict.warnings) {
        said = said || (warning.find("'" + victim.name + "'") != std::string::npos && warning.find("1000") != std::string::npos);
      }
      EXPECT_TRUE(said) << context << ": a pin beyond the host counted without a word";
    }
  }
  EXPECT_GE(refused[Damage::Record], 30);
  EXPECT_GE(refused[Damage::CutShort], 30);
  EXPECT_GE(placed[Damage::None], 30);
  EXPECT_GE(placed[Damage::PinBeyondHost], 30);
}

}  // namespace
}  // namespace numaplace::plugin
