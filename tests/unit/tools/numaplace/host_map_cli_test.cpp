// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace topology --svg / --html, run as a user would: the picture is a well-formed SVG
// document (parsed with libxml2), one element per host pCPU, each holder's name on its pCPUs, pinned
// and floating told apart, and every figure it shows equal to what `topology --json` reports for
// the same host and claims; the HTML page is self-contained; nothing partial is ever written.
#include <gtest/gtest.h>
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "numaplace/markup_writer.h"
#include "placement/model/cpu_set.h"
#include "support/cli_runner.h"
#include "support/test_paths.h"

namespace numaplace {
namespace {

namespace fs = std::filesystem;
using numaplace::testing::CliRun;
using numaplace::testing::run;
using numaplace::testing::shared_path;
using numaplace::testing::slurp;

constexpr const char* kSvgNs = "http://www.w3.org/2000/svg";

// Guests whose names carry every character markup must escape.
constexpr const char* kPinnedName = "web<1> & \"db\"";
constexpr const char* kFloatingName = "batch 'float' & co";

class HostMapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("numaplace-host-map-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    // Pinned on cell 1's pCPUs 8 and 24 (siblings on caps-2cell), holding the SR-IOV PF 0000:3b:00.0.
    write("pinned.xml",
          "<domain type='kvm'><name>web&lt;1&gt; &amp; \"db\"</name><memory unit='MiB'>2048</memory>"
          "<vcpu placement='static'>2</vcpu><cputune><vcpupin vcpu='0' cpuset='8'/><vcpupin vcpu='1' cpuset='24'/>"
          "</cputune><numatune><memory mode='strict' nodeset='1'/></numatune><devices>"
          "<hostdev mode='subsystem' type='pci' managed='yes'><source>"
          "<address domain='0x0000' bus='0x3b' slot='0x00' function='0x0'/></source></hostdev></devices></domain>");
    // Two vCPUs floating over cell 0's pCPUs 2-3 and 18-19.
    write("floating.xml",
          "<domain type='kvm'><name>batch 'float' &amp; co</name><memory unit='MiB'>1024</memory>"
          "<vcpu placement='static' cpuset='2-3,18-19'>2</vcpu>"
          "<numatune><memory mode='strict' nodeset='0'/></numatune></domain>");
    host_args_ = "--capabilities " + shared_path("samples/libvirt/caps-2cell.xml") + " --nodedev " +
                 shared_path("samples/libvirt/nodedev-pci-sriov-pf-numa1.xml") + " --claim " +
                 shared_path("samples/libvirt/domain-testdriver-2cell.xml") + " --claim " + path("pinned.xml") +
                 " --claim " + path("floating.xml");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path(name)) << text; }

  fs::path dir_;
  std::string host_args_;
};

struct DocFree {
  void operator()(xmlDoc* doc) const { xmlFreeDoc(doc); }
};
using Doc = std::unique_ptr<xmlDoc, DocFree>;

Doc parse_svg(const std::string& text) {
  return Doc(xmlReadMemory(text.data(), static_cast<int>(text.size()), "host-map.svg", nullptr,
                           XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING));
}

std::string attribute(xmlNode* node, const char* name) {
  xmlChar* value = xmlGetProp(node, reinterpret_cast<const xmlChar*>(name));
  if (value == nullptr) return {};
  std::string out(reinterpret_cast<const char*>(value));
  xmlFree(value);
  return out;
}

bool has_attribute(xmlNode* node, const char* name) { return xmlHasProp(node, reinterpret_cast<const xmlChar*>(name)) != nullptr; }

std::string text_of(xmlNode* node) {
  xmlChar* value = xmlNodeGetContent(node);
  std::string out(value != nullptr ? reinterpret_cast<const char*>(value) : "");
  xmlFree(value);
  return out;
}

// The nodes an XPath expression finds, with the SVG namespace as prefix s.
std::vector<xmlNode*> select(xmlDoc* doc, const std::string& xpath, xmlNode* context = nullptr) {
  std::vector<xmlNode*> nodes;
  xmlXPathContext* ctx = xmlXPathNewContext(doc);
  xmlXPathRegisterNs(ctx, reinterpret_cast<const xmlChar*>("s"), reinterpret_cast<const xmlChar*>(kSvgNs));
  if (context != nullptr) ctx->node = context;
  xmlXPathObject* result = xmlXPathEvalExpression(reinterpret_cast<const xmlChar*>(xpath.c_str()), ctx);
  if (result != nullptr && result->nodesetval != nullptr) {
    for (int i = 0; i < result->nodesetval->nodeNr; ++i) nodes.push_back(result->nodesetval->nodeTab[i]);
  }
  xmlXPathFreeObject(result);
  xmlXPathFreeContext(ctx);
  return nodes;
}

// The pCPU elements by CPU id; fails the test when one id has two.
std::map<std::uint32_t, xmlNode*> pcpus_of(xmlDoc* doc) {
  std::map<std::uint32_t, xmlNode*> pcpus;
  for (xmlNode* node : select(doc, "//*[@data-cpu]")) {
    const auto cpu = static_cast<std::uint32_t>(std::stoul(attribute(node, "data-cpu")));
    EXPECT_TRUE(pcpus.emplace(cpu, node).second) << "two elements for pCPU " << cpu;
  }
  return pcpus;
}

std::string title_of(xmlDoc* doc, xmlNode* node) {
  auto titles = select(doc, "s:title", node);
  return titles.empty() ? std::string() : text_of(titles.front());
}

TEST_F(HostMapTest, SvgIsAnXmlDocumentRootedInTheSvgNamespace) {
  CliRun r = run("topology " + host_args_ + " --svg -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Doc doc = parse_svg(r.out);
  ASSERT_NE(doc, nullptr) << r.out.substr(0, 400);
  xmlNode* root = xmlDocGetRootElement(doc.get());
  ASSERT_NE(root, nullptr);
  EXPECT_STREQ(reinterpret_cast<const char*>(root->name), "svg");
  ASSERT_NE(root->ns, nullptr);
  EXPECT_STREQ(reinterpret_cast<const char*>(root->ns->href), kSvgNs);
  // The names went through the escaping writer: never raw in the markup.
  EXPECT_EQ(r.out.find("web<1>"), std::string::npos);
  EXPECT_EQ(r.out.find("\"db\""), std::string::npos);
  EXPECT_NE(r.out.find("web&lt;1&gt; &amp; &quot;db&quot;"), std::string::npos);
}

TEST_F(HostMapTest, EveryPcpuIsOneElementWithItsHolderPinnedAndFloatingApart) {
  CliRun svg = run("topology " + host_args_ + " --svg -");
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  CliRun json = run("topology " + host_args_ + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto model = nlohmann::json::parse(json.out);
  Doc doc = parse_svg(svg.out);
  ASSERT_NE(doc, nullptr);
  const auto pcpus = pcpus_of(doc.get());

  std::set<std::uint32_t> host_cpus;
  for (const auto& cell : model["cells"]) {
    for (const auto& cpu : cell["cpus"]) {
      host_cpus.insert(cpu.get<std::uint32_t>());
      ASSERT_TRUE(pcpus.count(cpu.get<std::uint32_t>())) << "no element for pCPU " << cpu;
      EXPECT_EQ(attribute(pcpus.at(cpu.get<std::uint32_t>()), "data-cell"), std::to_string(cell["id"].get<int>()));
    }
  }
  EXPECT_EQ(pcpus.size(), host_cpus.size());

  // Every pCPU a guest pins, as the JSON's guests say, carries that guest's name as pinned.
  std::set<std::uint32_t> pinned;
  std::size_t checked = 0;
  for (const auto& guest : model["guests"]) {
    const std::string name = guest["name"];
    for (const auto& cell : guest["cells"]) {
      const std::string list = cell["pinned_cpus"];
      if (list.empty()) continue;
      auto cpus = parse_cpu_list(list);
      ASSERT_TRUE(cpus.ok());
      for (std::uint32_t cpu : *cpus) {
        EXPECT_EQ(attribute(pcpus.at(cpu), "data-state"), "pinned") << cpu;
        EXPECT_EQ(attribute(pcpus.at(cpu), "data-holder"), name) << cpu;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 6u);
  for (const auto& cell : model["cells"]) {
    for (const auto& cpu : cell["usage"]["pinned_cpus"]) pinned.insert(cpu.get<std::uint32_t>());
  }
  EXPECT_EQ(pinned, (std::set<std::uint32_t>{0, 1, 4, 5, 8, 24}));
  for (std::uint32_t cpu : {0u, 1u, 4u, 5u}) {
    EXPECT_EQ(attribute(pcpus.at(cpu), "data-state"), "pinned") << cpu;
    EXPECT_EQ(attribute(pcpus.at(cpu), "data-holder"), "numa-test") << cpu;
  }
  for (std::uint32_t cpu : {8u, 24u}) {
    EXPECT_EQ(attribute(pcpus.at(cpu), "data-state"), "pinned") << cpu;
    EXPECT_EQ(attribute(pcpus.at(cpu), "data-holder"), kPinnedName) << cpu;
    EXPECT_NE(title_of(doc.get(), pcpus.at(cpu)).find(std::string("pinned by ") + kPinnedName), std::string::npos);
  }
  // The floating guest: hatched, not solid, named on every pCPU it may run on and nowhere else.
  for (std::uint32_t cpu : {2u, 3u, 18u, 19u}) {
    xmlNode* node = pcpus.at(cpu);
    EXPECT_EQ(attribute(node, "data-state"), "floating") << cpu;
    EXPECT_FALSE(has_attribute(node, "data-holder")) << cpu;
    EXPECT_NE(title_of(doc.get(), node).find(std::string("floating: ") + kFloatingName), std::string::npos)
        << title_of(doc.get(), node);
    auto rects = select(doc.get(), "s:rect", node);
    ASSERT_FALSE(rects.empty());
    EXPECT_EQ(attribute(rects.front(), "fill").rfind("url(#float-", 0), 0u) << attribute(rects.front(), "fill");
  }
  auto pinned_rects = select(doc.get(), "s:rect", pcpus.at(8));
  ASSERT_FALSE(pinned_rects.empty());
  EXPECT_EQ(attribute(pinned_rects.front(), "fill").rfind("#", 0), 0u) << "pinned is a solid colour";
  // The rest of the usable pCPUs are free.
  EXPECT_EQ(attribute(pcpus.at(6), "data-state"), "free");
  EXPECT_EQ(attribute(pcpus.at(31), "data-state"), "free");
  // The legend tells the states apart.
  auto legend = select(doc.get(), "//s:g[@class='legend']");
  ASSERT_EQ(legend.size(), 1u);
  EXPECT_NE(text_of(legend.front()).find("pinned"), std::string::npos);
  EXPECT_NE(text_of(legend.front()).find("floating"), std::string::npos);
}

TEST_F(HostMapTest, CellMemoryAndPagesAreWhatTopologyJsonReports) {
  CliRun svg = run("topology " + host_args_ + " --svg -");
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  CliRun json = run("topology " + host_args_ + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto model = nlohmann::json::parse(json.out);
  Doc doc = parse_svg(svg.out);
  ASSERT_NE(doc, nullptr);
  auto cells = select(doc.get(), "//s:g[@class='cell']");
  ASSERT_EQ(cells.size(), model["cells"].size());
  for (const auto& cell : model["cells"]) {
    const std::string id = std::to_string(cell["id"].get<int>());
    auto found = select(doc.get(), "//s:g[@class='cell'][@data-cell='" + id + "']");
    ASSERT_EQ(found.size(), 1u) << "cell " << id;
    xmlNode* node = found.front();
    EXPECT_EQ(attribute(node, "data-memory-kib"), cell["memory_kib"].dump()) << id;
    EXPECT_EQ(attribute(node, "data-used-kib"), cell["usage"]["memory_kib"].dump()) << id;
    EXPECT_EQ(attribute(node, "data-free-kib"), cell["free"]["memory_kib"].dump()) << id;
    // And in MiB in the text a person reads.
    const std::string text = text_of(node);
    EXPECT_NE(text.find(std::to_string(cell["free"]["memory_kib"].get<std::uint64_t>() / 1024) + " MiB free"),
              std::string::npos)
        << text;
    auto pools = select(doc.get(), "s:g[@class='pages']", node);
    ASSERT_EQ(pools.size(), cell["pages"].size()) << id;
    for (std::size_t i = 0; i < pools.size(); ++i) {
      const auto& pool = cell["pages"][i];
      EXPECT_EQ(attribute(pools[i], "data-size-kib"), pool["size_kib"].dump());
      EXPECT_EQ(attribute(pools[i], "data-total"), pool["total"].dump());
      EXPECT_EQ(attribute(pools[i], "data-used"), pool["used"].dump());
      EXPECT_EQ(attribute(pools[i], "data-reserved"), pool["reserved"].dump());
      EXPECT_EQ(attribute(pools[i], "data-free"), cell["free"]["pages"][pool["size_kib"].dump()].dump());
    }
  }
  // The inputs made a difference: memory used on both cells, huge pages used on both.
  EXPECT_EQ(model["cells"][0]["usage"]["memory_kib"], 1024 * 1024);
  EXPECT_EQ(model["cells"][1]["usage"]["memory_kib"], 2048 * 1024);
}

TEST_F(HostMapTest, PciDevicesCarryTheirHolders) {
  CliRun svg = run("topology " + host_args_ + " --svg -");
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  CliRun json = run("topology " + host_args_ + " --json");
  const auto model = nlohmann::json::parse(json.out);
  Doc doc = parse_svg(svg.out);
  ASSERT_NE(doc, nullptr);
  ASSERT_FALSE(model["pci"].empty());
  for (const auto& dev : model["pci"]) {
    const std::string address = dev["address"];
    auto found = select(doc.get(), "//s:g[@class='cell'][@data-cell='" + dev["numa_node"].dump() +
                                       "']//s:g[@class='pci'][@data-pci='" + address + "']");
    ASSERT_EQ(found.size(), 1u) << address;
    EXPECT_EQ(attribute(found.front(), "data-holder"), dev["held_by"].is_null() ? "" : dev["held_by"].get<std::string>());
  }
  EXPECT_EQ(model["pci"][0]["held_by"], kPinnedName);
}

TEST_F(HostMapTest, HtmlIsOneSelfContainedPageWithThePictureAndTheTable) {
  const std::string page = path("host.html");
  CliRun r = run("topology " + host_args_ + " --html " + page);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  const std::string html = slurp(page);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // Nothing fetched: no script, no stylesheet or image from elsewhere, no URL but the SVG namespace.
  for (const char* outside : {"<script", "<link", "<img", "src=", "@import", "https:"}) {
    EXPECT_EQ(html.find(outside), std::string::npos) << outside;
  }
  std::string rest = html;
  for (std::size_t at; (at = rest.find("http://")) != std::string::npos; rest = rest.substr(at + 7)) {
    EXPECT_EQ(rest.compare(at, std::string(kSvgNs).size(), kSvgNs), 0) << rest.substr(at, 60);
  }
  EXPECT_EQ(html.find("web<1>"), std::string::npos);
  htmlDocPtr doc = htmlReadMemory(html.data(), static_cast<int>(html.size()), "host.html", "UTF-8",
                                  HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING);
  ASSERT_NE(doc, nullptr);
  // HTML parsers put the inline SVG's elements in no namespace; find them by name.
  auto count = [&](const std::string& xpath) { return select(doc, xpath).size(); };
  EXPECT_EQ(count("//svg"), 1u);
  EXPECT_EQ(count("//svg//*[@data-cpu]"), 32u);
  EXPECT_EQ(count("//table[@class='cells']//tr"), 3u);  // the header and the two cells
  auto guests = select(doc, "//table[@class='guests']//tr[@data-guest]");
  ASSERT_EQ(guests.size(), 3u);
  std::set<std::string> names;
  for (xmlNode* row : guests) names.insert(attribute(row, "data-guest"));
  EXPECT_TRUE(names.count(kPinnedName));
  EXPECT_TRUE(names.count(kFloatingName));
  xmlFreeDoc(doc);
}

// The property over the bundled hosts: one pCPU element per host CPU that topology --json lists.
TEST(HostMap, OnePcpuElementPerHostCpuOnEveryBundledHost) {
  const std::vector<std::string> hosts = {
      "--capabilities " + shared_path("samples/libvirt/caps-1cell.xml"),
      "--capabilities " + shared_path("samples/libvirt/caps-2cell.xml"),
      "--capabilities " + shared_path("samples/libvirt/caps-4cell.xml"),
      "--capabilities " + shared_path("samples/libvirt/caps-8cell.xml"),
      "--capabilities " + shared_path("samples/libvirt/caps-real-debian12-vm-1cell.xml"),
      "--hwloc " + shared_path("samples/hwloc/synth-1numa.xml"),
      "--hwloc " + shared_path("samples/hwloc/synth-2pkg-2numa.xml"),
      "--hwloc " + shared_path("samples/hwloc/synth-2pkg-4numa-pci-distances.xml"),
      "--hwloc " + shared_path("samples/hwloc/synth-4pkg-8numa.xml"),
      "--hwloc " + shared_path("samples/hwloc/real-debian12-vm-1numa-pci.xml"),
      "--hwloc " + shared_path("samples/hwloc/synth-2pkg-4numa-l3.xml"),
      "--connect test:///default",
  };
  for (const auto& host : hosts) {
    CliRun json = run("topology " + host + " --json");
    ASSERT_EQ(json.exit_code, 0) << host << ": " << json.err;
    const auto model = nlohmann::json::parse(json.out);
    std::set<std::uint32_t> cpus;
    for (const auto& cell : model["cells"]) {
      for (const auto& cpu : cell["cpus"]) cpus.insert(cpu.get<std::uint32_t>());
    }
    CliRun svg = run("topology " + host + " --svg -");
    ASSERT_EQ(svg.exit_code, 0) << host << ": " << svg.err;
    Doc doc = parse_svg(svg.out);
    ASSERT_NE(doc, nullptr) << host;
    const auto pcpus = pcpus_of(doc.get());
    std::set<std::uint32_t> drawn;
    for (const auto& [cpu, node] : pcpus) drawn.insert(cpu);
    EXPECT_EQ(select(doc.get(), "//*[@data-cpu]").size(), cpus.size()) << host;
    EXPECT_EQ(drawn, cpus) << host;
    EXPECT_EQ(select(doc.get(), "//s:g[@class='cell']").size(), model["cells"].size()) << host;
    EXPECT_EQ(select(doc.get(), "//s:g[@class='pci']").size(), model["pci"].size()) << host;
  }
}

// L3 domains: every core of a cell that reports several carries its domain (data-l3), and the cores
// of each domain are those topology --json lists for it.
TEST(HostMap, CoresCarryTheirL3Domain) {
  const std::string host = "--hwloc " + shared_path("samples/hwloc/synth-2pkg-4numa-l3.xml");
  CliRun json = run("topology " + host + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto model = nlohmann::json::parse(json.out);
  CliRun svg = run("topology " + host + " --svg -");
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  Doc doc = parse_svg(svg.out);
  ASSERT_NE(doc, nullptr);
  for (const auto& cell : model["cells"]) {
    const std::string id = std::to_string(cell["id"].get<int>());
    ASSERT_EQ(cell["cache_domains"].size(), 2u);
    for (std::size_t d = 0; d < 2; ++d) {
      std::set<std::uint32_t> drawn;
      for (xmlNode* cpu : select(doc.get(), "//s:g[@class='cell'][@data-cell='" + id + "']//s:g[@class='core'][@data-l3='" +
                                                std::to_string(d) + "']//*[@data-cpu]")) {
        drawn.insert(static_cast<std::uint32_t>(std::stoul(attribute(cpu, "data-cpu"))));
      }
      EXPECT_EQ(drawn, cell["cache_domains"][d].get<std::set<std::uint32_t>>()) << "cell " << id << " domain " << d;
    }
  }
}

TEST_F(HostMapTest, NothingIsWrittenOnError) {
  const std::string svg = path("map.svg");
  // A host that cannot be read: no file at all, not even an empty one.
  CliRun missing = run("topology --capabilities /nonexistent/caps.xml --svg " + svg);
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_FALSE(fs::exists(svg));
  // A directory that does not exist: CannotWrite, and no temporary file left behind.
  CliRun unwritable = run("topology " + host_args_ + " --svg " + path("no/such/dir/map.svg"));
  EXPECT_EQ(unwritable.exit_code, 1);
  EXPECT_NE(unwritable.err.find("CannotWrite"), std::string::npos) << unwritable.err;
  // A file that is there stays as it was when the host cannot be read.
  write("map.svg", "old");
  CliRun bad_claim = run("topology " + host_args_ + " --claim " + path("missing.xml") + " --svg " + svg);
  EXPECT_NE(bad_claim.exit_code, 0);
  EXPECT_EQ(slurp(svg), "old");
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) files += entry.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 3u);  // pinned.xml, floating.xml, map.svg: no temporary file
  // Both to stdout, or with --json: a usage error, no map printed (with --json, the JSON error).
  CliRun both = run("topology " + host_args_ + " --svg - --html -");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(both.out.empty());
  CliRun with_json = run("topology " + host_args_ + " --svg - --json");
  EXPECT_EQ(with_json.exit_code, 2);
  EXPECT_EQ(with_json.out.find("<svg"), std::string::npos) << with_json.out;
  const auto error = nlohmann::json::parse(with_json.out, nullptr, false);
  ASSERT_FALSE(error.is_discarded()) << with_json.out;
  EXPECT_EQ(error["error"]["name"], "UsageError");
}

TEST_F(HostMapTest, SvgAndHtmlFilesTogether) {
  CliRun r = run("topology " + host_args_ + " --svg " + path("a.svg") + " --html " + path("a.html"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(parse_svg(slurp(path("a.svg"))), nullptr);
  EXPECT_NE(slurp(path("a.html")).find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
}

// Claims read from libvirt (test:///default): its guest "test" floats over every pCPU.
TEST(HostMap, LibvirtTestDriverGuestFloatsOverEveryPcpu) {
  CliRun svg = run("topology --connect test:///default --svg -");
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  CliRun json = run("topology --connect test:///default --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto model = nlohmann::json::parse(json.out);
  ASSERT_EQ(model["guests"].size(), 1u);
  const std::string name = model["guests"][0]["name"];
  Doc doc = parse_svg(svg.out);
  ASSERT_NE(doc, nullptr);
  const auto pcpus = pcpus_of(doc.get());
  EXPECT_EQ(pcpus.size(), 16u);
  for (const auto& [cpu, node] : pcpus) {
    EXPECT_EQ(attribute(node, "data-state"), "floating") << cpu;
    EXPECT_NE(title_of(doc.get(), node).find("floating: " + name), std::string::npos) << cpu;
  }
}

// docs/img/host-map.svg (README, docs/host-map.md) is what the command in docs/host-map.md draws
// today; after a change to the map, run that command from the source tree again.
TEST(HostMap, TheDocsPictureIsWhatTheCommandDrawsToday) {
  const std::string c = "tests/data/samples/libvirt/";
  const std::string args = "topology --capabilities " + c + "caps-2cell.xml --nodedev " + c +
                           "nodedev-pci-sriov-pf-numa1.xml --claim " + c +
                           "domain-testdriver-2cell.xml --claim examples/guests/web-pinned.xml"
                           " --claim examples/guests/batch-floating.xml --claim examples/guests/db-isolate.xml --svg -";
  CliRun r = run(args, "cd " + testing::source_path("") + " &&");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out == slurp(testing::source_path("docs/img/host-map.svg")))
      << "docs/img/host-map.svg is stale: run numaplace " << args << " > docs/img/host-map.svg";
}

// The writer itself: whatever the text, the document stays well formed.
TEST(MarkupWriter, EscapesEveryMarkupCharacterAndReplacesWhatXmlForbids) {
  EXPECT_EQ(cli::escape_markup("a<b & \"c\" 'd' >"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39; &gt;");
  EXPECT_EQ(cli::escape_markup(std::string("x\x01y\tz", 5)), "x\xEF\xBF\xBDy\tz");
  EXPECT_EQ(cli::escape_markup("caf\xC3\xA9"), "caf\xC3\xA9");               // UTF-8 kept
  EXPECT_EQ(cli::escape_markup("\xC3"), "\xEF\xBF\xBD");                      // cut sequence
  EXPECT_EQ(cli::escape_markup("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");      // overlong '/'
  EXPECT_EQ(cli::escape_markup("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(cli::shorten("caf\xC3\xA9-au-lait", 4), "caf\xC3\xA9\xE2\x80\xA6");
  EXPECT_EQ(cli::shorten("short", 8), "short");

  cli::MarkupWriter w;
  const std::string hostile = std::string("</text><script>&\"'\xFF\x00", 20);
  w.open("svg").attr("xmlns", kSvgNs).attr("data-x", hostile);
  w.open("text").text(hostile).close();
  w.open("g");  // left open: finish() closes it
  const std::string doc_text = w.finish();
  Doc doc = parse_svg(doc_text);
  ASSERT_NE(doc, nullptr) << doc_text;
  xmlNode* root = xmlDocGetRootElement(doc.get());
  EXPECT_EQ(attribute(root, "data-x"), "</text><script>&\"'\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(select(doc.get(), "//s:text").size(), 1u);
  EXPECT_EQ(select(doc.get(), "//s:script").size(), 0u);
  cli::MarkupWriter html(/*html=*/true);
  html.open("head").open("meta").attr("charset", "utf-8").close().open("title").close();
  EXPECT_EQ(html.finish(), "<head><meta charset=\"utf-8\"><title></title></head>");
}

// A look at the picture: rendered by a headless Chromium when one is installed (skipped otherwise;
// ./dev.sh does not install one). The PNG must come out, of the window's size.
TEST_F(HostMapTest, RendersInAHeadlessBrowser) {
  std::string browser;
  for (const char* candidate : {"/usr/bin/chromium-headless-shell", "/usr/bin/chromium"}) {
    if (fs::exists(candidate)) {
      browser = candidate;
      break;
    }
  }
  if (browser.empty()) GTEST_SKIP() << "no chromium or chromium-headless-shell installed";
  const std::string svg = path("map.svg"), png = path("map.png");
  ASSERT_EQ(run("topology " + host_args_ + " --svg " + svg).exit_code, 0);
  const std::string command = browser + " --headless --no-sandbox --disable-gpu --hide-scrollbars --screenshot=" + png +
                              " --window-size=1400,900 file://" + svg + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const std::string image = slurp(png);
  ASSERT_GT(image.size(), 24u);
  EXPECT_EQ(image.substr(1, 3), "PNG");
  // IHDR: width and height, big-endian, at bytes 16..23.
  auto be32 = [&](std::size_t at) {
    return (static_cast<std::uint32_t>(static_cast<unsigned char>(image[at])) << 24) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(image[at + 1])) << 16) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(image[at + 2])) << 8) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(image[at + 3]));
  };
  EXPECT_EQ(be32(16), 1400u);
  EXPECT_EQ(be32(20), 900u);
}

}  // namespace
}  // namespace numaplace
