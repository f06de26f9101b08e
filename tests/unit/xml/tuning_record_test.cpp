// SPDX-License-Identifier: LGPL-2.1-or-later
// Property: what numaplace writes besides the placement (realtime <vcpusched>, <locked/>,
// <nosharepages/>, <cpu><topology>) is recorded, so a guest placed again with another request
// holds exactly what the new request asks plus everything the operator had written, never less
// (an operator's element is narrowed only by what the new request itself asks) and never a
// leftover of the earlier request. Random operator domains (their own <vcpusched> over random
// vCPU ranges, <locked/>, <nosharepages/>, a <topology>) and random request pairs, placed on a
// capabilities host and an hwloc host; the checker reads the XML with its own cpulist parser and
// works out what must be there from the draw, not from numaplace. Outputs are checked with
// virt-xml-validate. NUMAPLACE_PROPERTY_SEED changes the run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "plugin/service/place_domain.h"
#include "plugin/sources/hwloc_source.h"
#include "support/test_paths.h"
#include "xml/capabilities_reader.h"
#include "xml/xml_document.h"

namespace numaplace {
namespace {

using Cpus = std::set<std::uint32_t>;
using Attrs = std::map<std::string, std::string>;
constexpr std::uint32_t kVcpus = 8;

// The checker's own cpulist reader ("0-3,5"); the writer never emits '^'.
Cpus parse_list(const std::string& text) {
  Cpus out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto dash = item.find('-');
    const std::uint32_t first = static_cast<std::uint32_t>(std::stoul(item.substr(0, dash)));
    const std::uint32_t last = dash == std::string::npos ? first : static_cast<std::uint32_t>(std::stoul(item.substr(dash + 1)));
    for (std::uint32_t v = first; v <= last; ++v) out.insert(v);
  }
  return out;
}

std::string list_text(const Cpus& cpus) {
  std::string out;
  for (auto v : cpus) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

struct OperatorDomain {
  std::vector<std::pair<Cpus, Attrs>> vcpusched;  // vcpus, the other attributes
  bool locked = false;
  bool nosharepages = false;
  std::optional<Attrs> topology;
};

// Both requests of a pair give the guest a NUMA topology (hw:numa_nodes=1), or neither does:
// numaplace refuses to place a guest it gave NUMA cells as one without (ConflictingConstraint, on
// the <memnode> elements it wrote), which is not what this property is about.
struct Request {
  bool numa = true;                // hw:numa_nodes=1; else no key that gives the guest a topology
  Cpus realtime;                   // empty: no realtime (numa only)
  std::string mask;
  bool locked = false;
  std::optional<std::pair<std::string, std::uint32_t>> topology;  // hw:cpu_<what>, value
  SpecMap specs() const {
    SpecMap specs{{"hw:cpu_policy", realtime.empty() ? "shared" : "dedicated"}};
    if (numa) specs["hw:numa_nodes"] = "1";
    if (!realtime.empty()) {
      specs["hw:cpu_realtime"] = "yes";
      specs["hw:cpu_realtime_mask"] = mask;
    }
    if (locked) {
      specs["hw:locked_memory"] = "true";
      specs["hw:mem_page_size"] = numa ? "small" : "0";  // "0": a page size given, no topology asked
    }
    if (topology) specs["hw:cpu_" + topology->first] = std::to_string(topology->second);
    return specs;
  }
  std::string text() const {
    std::string out;
    for (const auto& [k, v] : specs()) out += k + "=" + v + " ";
    return out;
  }
};

OperatorDomain draw_operator(std::mt19937& rng) {
  OperatorDomain op;
  std::uint32_t v = 0;
  while (v < kVcpus) {
    const std::uint32_t length = 1 + rng() % 4;
    const std::uint32_t last = std::min(kVcpus - 1, v + length - 1);
    if (rng() % 3 == 0) {
      Cpus vcpus;
      for (std::uint32_t i = v; i <= last; ++i) vcpus.insert(i);
      switch (rng() % 3) {
        case 0: op.vcpusched.push_back({vcpus, {{"scheduler", "batch"}}}); break;
        case 1: op.vcpusched.push_back({vcpus, {{"scheduler", "idle"}}}); break;
        default: op.vcpusched.push_back({vcpus, {{"scheduler", "rr"}, {"priority", "5"}}}); break;
      }
    }
    v = last + 1;
  }
  op.locked = rng() % 3 == 0;
  op.nosharepages = rng() % 3 == 0;
  static const std::vector<Attrs> topologies = {
      {{"sockets", "8"}, {"cores", "1"}, {"threads", "1"}},
      {{"sockets", "4"}, {"dies", "1"}, {"cores", "2"}, {"threads", "1"}},
      {{"sockets", "1"}, {"cores", "4"}, {"threads", "2"}}};
  if (rng() % 5 < 2) op.topology = topologies[rng() % topologies.size()];
  return op;
}

Request draw_request(std::mt19937& rng, bool numa) {
  Request r;
  r.numa = numa;
  static const std::vector<std::pair<std::string, Cpus>> masks = {
      {"^0", {1, 2, 3, 4, 5, 6, 7}}, {"^0-1", {2, 3, 4, 5, 6, 7}}, {"^0-3", {4, 5, 6, 7}}, {"^4-7", {0, 1, 2, 3}}};
  if (numa && rng() % 2 == 0) {
    const auto& [mask, vcpus] = masks[rng() % masks.size()];
    r.mask = mask;
    r.realtime = vcpus;
  }
  r.locked = rng() % 3 == 0;
  static const std::vector<std::pair<std::string, std::uint32_t>> topologies = {
      {"sockets", 1}, {"sockets", 2}, {"threads", 2}, {"cores", 4}};
  if (rng() % 2 == 0) r.topology = topologies[rng() % topologies.size()];
  return r;
}

std::string attrs_text(const Attrs& attrs) {
  std::string out;
  for (const auto& [k, v] : attrs) out += " " + k + "='" + v + "'";
  return out;
}

std::string operator_xml(const OperatorDomain& op) {
  std::string xml = "<domain type='test'><name>tuned</name><memory unit='GiB'>4</memory><vcpu>8</vcpu>";
  if (op.locked || op.nosharepages) {
    xml += "<memoryBacking>";
    if (op.nosharepages) xml += "<nosharepages/>";
    if (op.locked) xml += "<locked/>";
    xml += "</memoryBacking>";
  }
  if (!op.vcpusched.empty()) {
    xml += "<cputune>";
    for (const auto& [vcpus, attrs] : op.vcpusched) xml += "<vcpusched vcpus='" + list_text(vcpus) + "'" + attrs_text(attrs) + "/>";
    xml += "</cputune>";
  }
  xml += "<os><type arch='i686'>hvm</type></os>";
  if (op.topology) xml += "<cpu><topology" + attrs_text(*op.topology) + "/></cpu>";
  xml += "<devices/></domain>";
  return xml;
}

Attrs attrs_of(const xmlNode* node) {
  Attrs out;
  for (const auto& [k, v] : xml::attributes_of(node)) out[k] = v;
  return out;
}

// Everything the domain must hold after `request`, worked out from the draw; "" when it does.
std::string check(const std::string& placed, const OperatorDomain& op, const Request& request) {
  auto doc = xml::parse_document(placed, "placed");
  if (!doc) return "unparseable output";
  const xmlNode* root = xmlDocGetRootElement(doc->get());
  std::ostringstream problems;

  std::multiset<std::pair<Cpus, Attrs>> want, got;
  for (const auto& [vcpus, attrs] : op.vcpusched) {
    Cpus kept;
    for (auto v : vcpus) {
      if (!request.realtime.count(v)) kept.insert(v);
    }
    if (!kept.empty()) want.insert({kept, attrs});
  }
  if (!request.realtime.empty()) want.insert({request.realtime, {{"scheduler", "fifo"}, {"priority", "1"}}});
  for (const xmlNode* sched : xml::child_elements(xml::first_child(root, "cputune"), "vcpusched")) {
    Attrs attrs = attrs_of(sched);
    const Cpus vcpus = parse_list(attrs["vcpus"]);
    attrs.erase("vcpus");
    got.insert({vcpus, attrs});
  }
  if (want != got) {
    problems << "<vcpusched>: want";
    for (const auto& [v, a] : want) problems << " [" << list_text(v) << attrs_text(a) << "]";
    problems << ", got";
    for (const auto& [v, a] : got) problems << " [" << list_text(v) << attrs_text(a) << "]";
    problems << "; ";
  }

  const xmlNode* backing = xml::first_child(root, "memoryBacking");
  const std::size_t locked = xml::child_elements(backing, "locked").size();
  const std::size_t nosharepages = xml::child_elements(backing, "nosharepages").size();
  const bool want_locked = op.locked || request.locked || !request.realtime.empty();
  const bool want_nosharepages = op.nosharepages || !request.realtime.empty();
  if (locked != (want_locked ? 1u : 0u)) problems << "<locked/> x" << locked << ", want " << want_locked << "; ";
  if (nosharepages != (want_nosharepages ? 1u : 0u)) {
    problems << "<nosharepages/> x" << nosharepages << ", want " << want_nosharepages << "; ";
  }

  const auto topologies = xml::child_elements(xml::first_child(root, "cpu"), "topology");
  if (request.topology) {
    if (topologies.size() != 1) {
      problems << "no single <topology>; ";
    } else {
      Attrs t = attrs_of(topologies[0]);
      const auto num = [&](const char* k) { return t.count(k) ? std::stoul(t[k]) : 1ul; };
      if (num("sockets") * num("dies") * num("cores") * num("threads") != kVcpus) problems << "<topology> is not 8 vCPUs; ";
      if (num(request.topology->first.c_str()) != request.topology->second) problems << "<topology> ignores the request; ";
    }
  } else if (op.topology) {
    if (topologies.size() != 1 || attrs_of(topologies[0]) != *op.topology) problems << "the operator's <topology> changed; ";
  } else if (!topologies.empty()) {
    problems << "a <topology> nobody asks for: " << xml::serialize_node(topologies[0]) << "; ";
  }
  return problems.str();
}

std::string schema_refusal(const std::string& xml) {
  const std::string path =
      std::filesystem::temp_directory_path() / ("numaplace-tuning-record-" + std::to_string(getpid()) + ".xml");
  std::ofstream(path) << xml;
  const std::string out = path + ".out";
  const int status = std::system(("virt-xml-validate '" + path + "' domain >'" + out + "' 2>&1").c_str());
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(path);
  std::filesystem::remove(out);
  return status == 0 ? "" : "virt-xml-validate: " + text;
}

Result<plugin::PlaceOutcome> place(const HostTopology& host, const std::string& xml, const Request& request) {
  plugin::PlaceRequest place;
  place.domain_xml = xml;
  place.flavor_specs = request.specs();
  return plugin::place_domain(host, place);
}

void run_property(const HostTopology& host, std::uint32_t seed) {
  std::mt19937 rng(seed);
  constexpr int kPairs = 120;
  for (int i = 0; i < kPairs; ++i) {
    const OperatorDomain op = draw_operator(rng);
    const bool numa = rng() % 4 != 0;
    const Request first = draw_request(rng, numa);
    const Request second = draw_request(rng, numa);
    const std::string domain = operator_xml(op);
    const std::string replay = "seed " + std::to_string(seed) + " pair " + std::to_string(i) + "\noperator: " + domain +
                               "\nfirst: " + first.text() + "\nsecond: " + second.text();
    auto placed = place(host, domain, first);
    ASSERT_TRUE(placed.ok()) << replay << "\n" << placed.error().message;
    EXPECT_EQ(check(placed->domain_xml, op, first), "") << replay << "\n" << placed->domain_xml;
    auto again = place(host, placed->domain_xml, second);
    ASSERT_TRUE(again.ok()) << replay << "\n" << again.error().message;
    EXPECT_EQ(check(again->domain_xml, op, second), "") << replay << "\n" << again->domain_xml;
    // The same request once more changes nothing.
    auto same = place(host, again->domain_xml, second);
    ASSERT_TRUE(same.ok()) << replay << "\n" << same.error().message;
    EXPECT_EQ(same->domain_xml, again->domain_xml) << replay;
    if (i % 8 == 0) {
      EXPECT_EQ(schema_refusal(again->domain_xml), "") << replay << "\n" << again->domain_xml;
    }
  }
}

std::uint32_t seed() {
  const char* text = std::getenv("NUMAPLACE_PROPERTY_SEED");
  return text != nullptr ? static_cast<std::uint32_t>(std::stoul(text)) : 20u;
}

TEST(TuningRecord, PlacingAgainHoldsExactlyTheNewRequestAndTheOperatorsOwnOnACapabilitiesHost) {
  auto text = xml::read_text_file(testing::shared_path("samples/libvirt/caps-2cell.xml"), "caps");
  ASSERT_TRUE(text.ok());
  auto host = xml::read_capabilities(*text);
  ASSERT_TRUE(host.ok()) << host.error().message;
  run_property(*host, seed());
}

TEST(TuningRecord, PlacingAgainHoldsExactlyTheNewRequestAndTheOperatorsOwnOnAnHwlocHost) {
  auto host = plugin::load_hwloc_xml(testing::shared_path("samples/hwloc/synth-2pkg-2numa.xml"));
  ASSERT_TRUE(host.ok()) << host.error().message;
  run_property(*host, seed() + 1);
}

// numaplace's own FIFO element, edited by the operator after numaplace wrote it, is the
// operator's from then on and stays; what numaplace added and nobody touched goes.
TEST(TuningRecord, AnElementTheOperatorEditedAfterNumaplaceWroteItStays) {
  auto text = xml::read_text_file(testing::shared_path("samples/libvirt/caps-2cell.xml"), "caps");
  auto host = xml::read_capabilities(*text);
  ASSERT_TRUE(host.ok());
  Request realtime;
  realtime.realtime = {1, 2, 3, 4, 5, 6, 7};
  realtime.mask = "^0";
  auto placed = place(*host, operator_xml({}), realtime);
  ASSERT_TRUE(placed.ok()) << placed.error().message;
  std::string edited = placed->domain_xml;
  const std::string ours = "<vcpusched vcpus=\"1-7\" scheduler=\"fifo\" priority=\"1\"/>";
  ASSERT_NE(edited.find(ours), std::string::npos) << edited;
  edited.replace(edited.find(ours), ours.size(), "<vcpusched vcpus=\"1-7\" scheduler=\"fifo\" priority=\"2\"/>");
  auto again = place(*host, edited, Request{});  // NUMA, nothing else
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_NE(again->domain_xml.find("priority=\"2\""), std::string::npos) << again->domain_xml;
  // The <locked/> and <nosharepages/> numaplace added for realtime are gone.
  EXPECT_EQ(again->domain_xml.find("<locked/>"), std::string::npos) << again->domain_xml;
  EXPECT_EQ(again->domain_xml.find("<nosharepages/>"), std::string::npos) << again->domain_xml;
}

}  // namespace
}  // namespace numaplace
