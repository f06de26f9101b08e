// SPDX-License-Identifier: LGPL-2.1-or-later
// Runs place over every domain of the real-world corpus (libvirt's and virt-manager's
// test data) on the 2-cell sample host, once as is (default placement) and once with
// hw:numa_nodes=2. Each run either yields XML that libvirt's own schema accepts
// (virt-xml-validate, whenever the input was accepted) and in which everything
// numaplace does not own is unchanged, or is refused with a named error. Never a crash.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "plugin/service/place_domain.h"
#include "support/test_paths.h"
#include "xml/capabilities_reader.h"
#include "xml/xml_document.h"

namespace numaplace {
namespace {

using numaplace::testing::shared_path;

bool schema_accepts(const std::string& path) {
  const std::string command = "virt-xml-validate '" + path + "' domain >/dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

// The document with every part numaplace owns taken out, in one canonical serialisation.
std::string without_owned_parts(const std::string& text) {
  auto doc = xml::parse_document(text, "doc");
  if (!doc) return "unparsable: " + doc.error().message;
  xmlNode* root = xmlDocGetRootElement(doc->get());
  auto drop = [](xmlNode* node) {
    if (node == nullptr) return;
    xmlUnlinkNode(node);
    xmlFreeNode(node);
  };
  if (xmlNode* vcpu = xml::first_child(root, "vcpu")) {
    xmlUnsetProp(vcpu, reinterpret_cast<const xmlChar*>("cpuset"));
    xmlUnsetProp(vcpu, reinterpret_cast<const xmlChar*>("placement"));
  }
  if (xmlNode* cputune = xml::first_child(root, "cputune")) {
    for (xmlNode* pin : xml::child_elements(cputune, "vcpupin")) drop(pin);
    for (xmlNode* pin : xml::child_elements(cputune, "emulatorpin")) drop(pin);
    if (xml::child_elements(cputune).empty()) drop(cputune);
  }
  drop(xml::first_child(root, "numatune"));
  // Memory devices' host nodemasks are narrowed to a confinement.
  for (xmlNode* device : xml::child_elements(xml::first_child(root, "devices"), "memory")) {
    drop(xml::first_child(xml::first_child(device, "source"), "nodemask"));
  }
  if (xmlNode* cputune = xml::first_child(root, "cputune")) {
    for (xmlNode* pin : xml::child_elements(cputune, "iothreadpin")) xmlUnsetProp(pin, reinterpret_cast<const xmlChar*>("cpuset"));
  }
  if (xmlNode* backing = xml::first_child(root, "memoryBacking")) {
    drop(xml::first_child(backing, "hugepages"));
    if (xml::child_elements(backing).empty()) drop(backing);
  }
  if (xmlNode* cpu = xml::first_child(root, "cpu")) {
    drop(xml::first_child(cpu, "numa"));
    if (xml::child_elements(cpu).empty() && cpu->properties == nullptr) drop(cpu);
  }
  if (xmlNode* metadata = xml::first_child(root, "metadata")) {
    for (xmlNode* child : xml::child_elements(metadata)) {
      if (xml::is_named(child, "numaplace")) drop(child);
    }
    if (xml::child_elements(metadata).empty()) drop(metadata);
  }
  return xml::serialize(doc->get());
}

TEST(CorpusDomains, EveryDomainIsPlacedValidlyOrRefusedWithAReason) {
  auto caps = xml::read_text_file(shared_path("samples/libvirt/caps-2cell.xml"), "caps");
  HostTopology host = *xml::read_capabilities(*caps);
  const std::string out_path =
      (std::filesystem::temp_directory_path() / ("numaplace-corpus-" + std::to_string(getpid()) + ".xml")).string();
  int placed = 0, refused = 0, files = 0, placed_in_some_mode = 0, not_xml = 0;
  for (const char* dir : {"corpus/libvirt/domains", "corpus/virt-manager/domains"}) {
    for (const auto& entry : std::filesystem::directory_iterator(shared_path(dir))) {
      ++files;
      const std::string name = entry.path().filename().string();
      auto text = xml::read_text_file(entry.path().string(), "corpus domain");
      ASSERT_TRUE(text.ok()) << name;
      const bool input_valid = schema_accepts(entry.path().string());
      bool placed_once = false;
      for (const SpecMap& specs : {SpecMap{}, SpecMap{{"hw:numa_nodes", "2"}}}) {
        plugin::PlaceRequest request;
        request.domain_xml = *text;
        request.domain_name_for_errors = name;
        request.flavor_specs = specs;
        auto outcome = plugin::place_domain(host, request);
        const std::string mode = specs.empty() ? "default placement" : "hw:numa_nodes=2";
        if (!outcome.ok()) {
          ++refused;
          not_xml += specs.empty() && outcome.error().name == "XmlMalformed" ? 1 : 0;
          if (std::getenv("NUMAPLACE_SHOW_REFUSALS") != nullptr) {
            std::cout << "refused " << name << " (" << mode << "): " << outcome.error().name << ": "
                      << outcome.error().message << "\n";
          }
          EXPECT_FALSE(outcome.error().name.empty()) << name << " (" << mode << ")";
          EXPECT_GT(outcome.error().message.size(), 20u) << name << " (" << mode << ")";
          continue;
        }
        ++placed;
        placed_once = true;
        EXPECT_EQ(without_owned_parts(outcome->domain_xml), without_owned_parts(*text))
            << name << " (" << mode << "): something numaplace does not own changed";
        if (input_valid) {
          std::ofstream(out_path) << outcome->domain_xml;
          EXPECT_TRUE(schema_accepts(out_path)) << name << " (" << mode << "): libvirt's schema refuses the output";
        }
      }
      placed_in_some_mode += placed_once ? 1 : 0;
    }
  }
  std::filesystem::remove(out_path);
  std::cout << "corpus: " << files << " domains, " << placed << " placements, " << refused << " refusals, "
            << placed_in_some_mode << " domains placed in some mode\n";
  EXPECT_GT(files, 150);
  // Most well-formed domains place in at least one mode; the others carry what numaplace refuses by
  // name (pins or nodes the 2-cell host lacks, numad placement, per-cell memnodes without a NUMA
  // request). virt-manager's files of several documents are not XML documents at all.
  EXPECT_GT(placed_in_some_mode * 10, (files - not_xml) * 8) << not_xml << " files are not well-formed";
}

}  // namespace
}  // namespace numaplace
