// SPDX-License-Identifier: LGPL-2.1-or-later
// "Never widens what an operator wrote", after a first placement: random guests placed on a
// 4-cell host, then either placed again as they are (the same bytes, and no edit reported) or
// edited by the operator (a vCPU's <vcpupin>, or the <emulatorpin>, narrowed to part of what
// numaplace wrote there, as `virsh edit` would) and placed again with the request the domain
// stores. The edited thread must then run within the operator's new pin, as libvirt reads the
// elements, and the edit is said. The check reads the output with libxml2 and a cpulist parser
// of its own.
#include <gtest/gtest.h>
#include <libxml/tree.h>

#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/cpu_list_text.h"
#include "support/placed_domains.h"
#include "support/xml_walk.h"

namespace numaplace {
namespace {

using testing::attr;
using testing::child;
using testing::children;
using Ids = testing::CpuIds;
using testing::ids_in_list;

bool within(const Ids& inner, const Ids& outer) {
  for (int id : inner) {
    if (outer.count(id) == 0) return false;
  }
  return true;
}

std::string serialized(xmlDoc* doc) {
  xmlChar* text = nullptr;
  int size = 0;
  xmlDocDumpMemory(doc, &text, &size);
  std::string out(reinterpret_cast<const char*>(text), static_cast<std::size_t>(size));
  xmlFree(text);
  return out;
}

// Where libvirt lets vCPU `vcpu` run (its <vcpupin>, else <vcpu cpuset>; nullopt: anywhere), or
// the emulator (vcpu < 0: <emulatorpin>, else <vcpu cpuset>).
std::optional<Ids> runs_on(xmlNode* root, int vcpu) {
  xmlNode* cputune = child(root, "cputune");
  if (vcpu < 0) {
    if (xmlNode* pin = child(cputune, "emulatorpin")) return ids_in_list(attr(pin, "cpuset").value_or(""));
  } else {
    for (xmlNode* pin : children(cputune, "vcpupin")) {
      if (attr(pin, "vcpu") == std::to_string(vcpu)) return ids_in_list(attr(pin, "cpuset").value_or(""));
    }
  }
  xmlNode* vcpus = child(root, "vcpu");
  if (auto cpuset = vcpus != nullptr ? attr(vcpus, "cpuset") : std::nullopt) return ids_in_list(*cpuset);
  return std::nullopt;
}

bool edit_said(const plugin::PlaceOutcome& outcome) {
  for (const auto& warning : outcome.warnings) {
    if (warning.find("since numaplace placed it") != std::string::npos) return true;
  }
  return false;
}

TEST(OperatorEditsProperty, AnEditAfterPlacementIsKeptAndNothingElseIsReported) {
  const HostTopology host = testing::sample_capabilities_host("caps-4cell.xml");
  std::mt19937 rng(20261208);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const std::vector<SpecMap> requests{{},
                                      {{"hw:numa_nodes", "1"}},
                                      {{"hw:numa_nodes", "2"}},
                                      {{"hw:numa_nodes", "1"}, {"hw:cpu_policy", "dedicated"}}};
  int unchanged = 0, edited = 0, kept_within = 0;
  std::map<std::string, int> refusals;
  for (int round = 0; round < 600; ++round) {
    const int vcpus = 2 * pick(1, 3);
    const std::string xml = "<domain type='kvm'><name>edit-" + std::to_string(round) + "</name><memory unit='MiB'>" +
                            std::to_string(512 * pick(1, 8)) + "</memory><vcpu placement='static'>" +
                            std::to_string(vcpus) + "</vcpu><os><type arch='x86_64'>hvm</type></os></domain>";
    const SpecMap& specs = requests[static_cast<std::size_t>(pick(0, 3))];
    auto first = testing::place_with_specs(host, xml, specs);
    ASSERT_TRUE(first) << first.error().message << "\n" << xml;
    if (pick(0, 3) == 0) {
      auto again = testing::place_with_specs(host, first->domain_xml, {});
      ASSERT_TRUE(again) << again.error().message << "\n" << first->domain_xml;
      EXPECT_EQ(again->domain_xml, first->domain_xml) << "placed again unchanged, the output changed";
      EXPECT_FALSE(edit_said(*again)) << again->warnings.front() << "\n" << first->domain_xml;
      ++unchanged;
      continue;
    }
    // The operator narrows one thread's pin to part of what numaplace wrote for it.
    testing::XmlDoc doc = testing::parse_xml(first->domain_xml);
    xmlNode* root = xmlDocGetRootElement(doc.get());
    const int thread = pick(-1, vcpus - 1);  // -1: the emulator
    const std::optional<Ids> before = runs_on(root, thread);
    if (!before || before->size() < 2) continue;
    std::vector<int> pool(before->begin(), before->end());
    std::shuffle(pool.begin(), pool.end(), rng);
    const Ids narrowed(pool.begin(), pool.begin() + pick(1, static_cast<int>(pool.size()) - 1));
    xmlNode* cputune = child(root, "cputune");
    if (cputune == nullptr) cputune = xmlNewChild(root, nullptr, BAD_CAST "cputune", nullptr);
    const char* element = thread < 0 ? "emulatorpin" : "vcpupin";
    xmlNode* pin = nullptr;
    for (xmlNode* candidate : children(cputune, element)) {
      if (thread < 0 || attr(candidate, "vcpu") == std::to_string(thread)) pin = candidate;
    }
    if (pin == nullptr) {
      pin = xmlNewChild(cputune, nullptr, BAD_CAST element, nullptr);
      if (thread >= 0) xmlSetProp(pin, BAD_CAST "vcpu", BAD_CAST std::to_string(thread).c_str());
    }
    xmlSetProp(pin, BAD_CAST "cpuset", BAD_CAST testing::list_of_ids(narrowed).c_str());
    const std::string edited_xml = serialized(doc.get());
    ++edited;
    auto again = testing::place_with_specs(host, edited_xml, {});
    if (!again) {
      // A pin the placement cannot keep is refused by name, never widened.
      ++refusals[again.error().name];
      continue;
    }
    EXPECT_TRUE(edit_said(*again)) << "the edit was not said\n" << edited_xml;
    testing::XmlDoc out = testing::parse_xml(again->domain_xml);
    const std::optional<Ids> after = runs_on(xmlDocGetRootElement(out.get()), thread);
    ASSERT_TRUE(after.has_value()) << "thread " << thread << " may run anywhere now\n" << again->domain_xml;
    EXPECT_TRUE(within(*after, narrowed)) << "thread " << thread << " widened back from "
                                          << testing::list_of_ids(narrowed) << " to " << testing::list_of_ids(*after)
                                          << "\n" << edited_xml << "\n" << again->domain_xml;
    ++kept_within;
    if (::testing::Test::HasFailure()) break;
  }
  std::string why;
  for (const auto& [name, count] : refusals) why += " " + name + " " + std::to_string(count);
  EXPECT_GT(unchanged, 80) << why;
  EXPECT_GT(edited, 250) << why;
  EXPECT_GT(kept_within, 200) << why;
}

}  // namespace
}  // namespace numaplace
