// SPDX-License-Identifier: LGPL-2.1-or-later
// keep_guest_view on random domains and random new placements of them (xml/guest_view.h):
// - a placement that changes only host-side bindings (the <vcpu> cpuset/placement attributes,
//   <cputune>, <numatune>, numaplace's record, the cells' distances) and unrelated elements is
//   kept: the result is the original with exactly the new host-side bindings, everything else as
//   the original had it, and distances_differ says whether the <cpu> differed;
// - a placement that changes what the guest sees (vCPU count, memory, <memoryBacking>, guest
//   cells, CPU topology) is GuestViewWouldChange.
// The checker compares subtrees with libxml2's own serialiser after taking the host-side parts
// out of both documents; it does not call the code under test.
#include "xml/guest_view.h"

#include <gtest/gtest.h>
#include <libxml/parser.h>

#include <random>
#include <string>
#include <vector>

#include "xml/xml_document.h"

namespace numaplace::xml {
namespace {

constexpr const char* kRecordNs = "https://numaplace.dev/xmlns/domain/1";  // the record's namespace (docs)

struct Cell {
  std::uint32_t first_cpu = 0;
  std::uint32_t cpus = 1;
  std::uint64_t memory_kib = 1048576;
};

// What the guest sees; each field is drawn, then written the same way into both documents.
struct GuestView {
  std::vector<Cell> cells;
  std::vector<std::vector<int>> distances;  // empty: none written
  bool topology = false;                    // <topology sockets=... cores=... threads='1'>
  bool hugepages = false;
};

// The host side of one placement.
struct HostSide {
  std::string vcpu_cpuset;  // empty: no attribute
  std::string cputune;      // whole element or empty
  std::string numatune;
  std::string record;       // numaplace's record or empty
};

std::uint32_t vcpu_count(const GuestView& view) {
  std::uint32_t n = 0;
  for (const auto& c : view.cells) n += c.cpus;
  return n;
}

std::uint64_t memory_of(const GuestView& view) {
  std::uint64_t n = 0;
  for (const auto& c : view.cells) n += c.memory_kib;
  return n;
}

std::string cpu_element(const GuestView& view) {
  std::string out = "<cpu mode='host-passthrough'>";
  if (view.topology) {
    out += "<topology sockets='" + std::to_string(view.cells.size()) + "' dies='1' cores='" +
           std::to_string(view.cells[0].cpus) + "' threads='1'/>";
  }
  out += "<numa>";
  for (std::size_t i = 0; i < view.cells.size(); ++i) {
    const Cell& c = view.cells[i];
    const std::string cpus = c.cpus == 1 ? std::to_string(c.first_cpu)
                                         : std::to_string(c.first_cpu) + "-" + std::to_string(c.first_cpu + c.cpus - 1);
    out += "<cell id='" + std::to_string(i) + "' cpus='" + cpus + "' memory='" + std::to_string(c.memory_kib) +
           "' unit='KiB'";
    if (view.distances.empty()) {
      out += "/>";
      continue;
    }
    out += "><distances>";
    for (std::size_t j = 0; j < view.cells.size(); ++j) {
      out += "<sibling id='" + std::to_string(j) + "' value='" + std::to_string(view.distances[i][j]) + "'/>";
    }
    out += "</distances></cell>";
  }
  return out + "</numa></cpu>";
}

// `noise`: elements outside the host side that a placement may carry and must not bring along.
std::string domain_xml(const GuestView& view, const HostSide& host, const std::string& operator_metadata,
                       const std::string& noise) {
  std::string out = "<domain type='kvm'><name>vm</name><uuid>4dea22b3-1d52-d8f3-2516-782e98ab3fa0</uuid>"
                    "<description>as the operator wrote it</description>";
  if (!operator_metadata.empty() || !host.record.empty()) out += "<metadata>" + operator_metadata + host.record + "</metadata>";
  out += "<memory unit='KiB'>" + std::to_string(memory_of(view)) + "</memory>";
  if (view.hugepages) out += "<memoryBacking><hugepages><page size='2048' unit='KiB'/></hugepages></memoryBacking>";
  out += "<vcpu placement='static'";
  if (!host.vcpu_cpuset.empty()) out += " cpuset='" + host.vcpu_cpuset + "'";
  out += ">" + std::to_string(vcpu_count(view)) + "</vcpu>" + host.cputune + host.numatune;
  out += "<os><type arch='x86_64'>hvm</type></os>" + cpu_element(view) + noise;
  return out + "<devices><disk type='file' device='disk'><source file='/var/lib/vm.qcow2'/>"
               "<target dev='vda' bus='virtio'/></disk></devices></domain>";
}

GuestView random_view(std::mt19937& rng) {
  GuestView view;
  const std::size_t cells = 1 + rng() % 4;
  std::uint32_t next = 0;
  for (std::size_t i = 0; i < cells; ++i) {
    Cell c;
    c.first_cpu = next;
    c.cpus = 1 + rng() % 4;
    c.memory_kib = (1 + rng() % 8) * 262144;
    next += c.cpus;
    view.cells.push_back(c);
  }
  if (rng() % 2) {
    view.distances.assign(cells, std::vector<int>(cells, 10));
    for (std::size_t i = 0; i < cells; ++i) {
      for (std::size_t j = i + 1; j < cells; ++j) view.distances[i][j] = view.distances[j][i] = 11 + rng() % 30;
    }
  }
  view.topology = rng() % 3 == 0;
  view.hugepages = rng() % 3 == 0;
  return view;
}

HostSide random_host_side(std::mt19937& rng, const GuestView& view, bool with_record) {
  HostSide host;
  const std::uint32_t base = (rng() % 4) * 8;
  if (rng() % 4) host.vcpu_cpuset = std::to_string(base) + "-" + std::to_string(base + 7);
  if (rng() % 4) {
    host.cputune = "<cputune>";
    if (rng() % 2) host.cputune += "<shares>" + std::to_string(1024 * (1 + rng() % 4)) + "</shares>";
    for (std::uint32_t v = 0; v < vcpu_count(view); ++v) {
      host.cputune += "<vcpupin vcpu='" + std::to_string(v) + "' cpuset='" + std::to_string(base + rng() % 8) + "'/>";
    }
    host.cputune += "</cputune>";
  }
  if (rng() % 4) {
    host.numatune = "<numatune><memory mode='strict' nodeset='" + std::to_string(rng() % 4) + "'/>";
    for (std::size_t i = 0; i < view.cells.size(); ++i) {
      host.numatune += "<memnode cellid='" + std::to_string(i) + "' mode='strict' nodeset='" + std::to_string(rng() % 4) + "'/>";
    }
    host.numatune += "</numatune>";
  }
  if (with_record) {
    host.record = std::string("<np:placement xmlns:np='") + kRecordNs + "' version='1'><np:cell guest='0' host='" +
                  std::to_string(rng() % 4) + "'/></np:placement>";
  }
  return host;
}

// One change of what the guest sees, drawn; returns its name.
std::string change_guest_view(std::mt19937& rng, GuestView& view) {
  switch (rng() % 6) {
    case 0: view.cells.back().cpus += 1; return "a cell's vCPUs (and the count)";
    case 1: view.cells.back().memory_kib += 262144; return "a cell's memory (and <memory>)";
    case 2: view.hugepages = !view.hugepages; return "<memoryBacking>";
    case 3: view.topology = !view.topology; return "the CPU topology";
    case 4:
      if (view.cells.size() > 1) {
        view.cells.pop_back();
        if (!view.distances.empty()) {
          view.distances.pop_back();
          for (auto& row : view.distances) row.pop_back();
        }
        return "one cell fewer";
      }
      view.cells.push_back({view.cells.back().first_cpu + view.cells.back().cpus, 1, 262144});
      view.distances.clear();
      return "one cell more";
    default: {
      // Same counts, vCPUs moved between the first two cells.
      if (view.cells.size() > 1 && view.cells[0].cpus > 1) {
        view.cells[0].cpus -= 1;
        view.cells[1].first_cpu -= 1;
        view.cells[1].cpus += 1;
        return "vCPUs moved between cells";
      }
      view.cells[0].memory_kib *= 2;
      return "a cell's memory (and <memory>)";
    }
  }
}

// --- the checker: libxml2 only ---

struct Doc {
  xmlDoc* doc = nullptr;
  explicit Doc(const std::string& text)
      : doc(xmlReadMemory(text.data(), static_cast<int>(text.size()), nullptr, nullptr, XML_PARSE_NONET | XML_PARSE_NOBLANKS)) {}
  ~Doc() { xmlFreeDoc(doc); }
  Doc(const Doc&) = delete;
  Doc& operator=(const Doc&) = delete;
  xmlNode* root() const { return xmlDocGetRootElement(doc); }
};

bool named(const xmlNode* n, const char* name) {
  return n != nullptr && n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, reinterpret_cast<const xmlChar*>(name)) == 0;
}

xmlNode* child(const xmlNode* parent, const char* name) {
  for (xmlNode* c = parent->children; c != nullptr; c = c->next) {
    if (named(c, name)) return c;
  }
  return nullptr;
}

bool is_record(const xmlNode* n) {
  return n->type == XML_ELEMENT_NODE && n->ns != nullptr && xmlStrcmp(n->ns->href, reinterpret_cast<const xmlChar*>(kRecordNs)) == 0;
}

xmlNode* record_of(const xmlNode* root) {
  const xmlNode* metadata = child(root, "metadata");
  if (metadata == nullptr) return nullptr;
  for (xmlNode* c = metadata->children; c != nullptr; c = c->next) {
    if (is_record(c)) return c;
  }
  return nullptr;
}

std::string dump(const xmlNode* node) {
  if (node == nullptr) return "(none)";
  xmlBuffer* buffer = xmlBufferCreate();
  xmlNodeDump(buffer, node->doc, const_cast<xmlNode*>(node), 0, 0);
  std::string out(reinterpret_cast<const char*>(xmlBufferContent(buffer)), static_cast<std::size_t>(xmlBufferLength(buffer)));
  xmlBufferFree(buffer);
  return out;
}

std::string attr(const xmlNode* node, const char* name) {
  if (node == nullptr) return "(no element)";
  xmlChar* value = xmlGetProp(node, reinterpret_cast<const xmlChar*>(name));
  if (value == nullptr) return "(none)";
  std::string out(reinterpret_cast<const char*>(value));
  xmlFree(value);
  return out;
}

void remove(xmlNode* node) {
  if (node == nullptr) return;
  xmlUnlinkNode(node);
  xmlFreeNode(node);
}

// The document less its host side, serialised: what must equal the original's.
std::string guest_side(const Doc& doc) {
  xmlNode* root = doc.root();
  if (xmlNode* vcpu = child(root, "vcpu")) {
    xmlUnsetProp(vcpu, reinterpret_cast<const xmlChar*>("cpuset"));
    xmlUnsetProp(vcpu, reinterpret_cast<const xmlChar*>("placement"));
  }
  remove(child(root, "cputune"));
  remove(child(root, "numatune"));
  remove(record_of(root));
  if (xmlNode* metadata = child(root, "metadata"); metadata != nullptr && metadata->children == nullptr) remove(metadata);
  if (xmlNode* cpu = child(root, "cpu")) {
    if (xmlNode* numa = child(cpu, "numa")) {
      for (xmlNode* cell = numa->children; cell != nullptr; cell = cell->next) remove(child(cell, "distances"));
    }
  }
  return dump(root);
}

TEST(GuestViewProperty, KeepsExactlyTheHostSideOfTheNewPlacementOrRefuses) {
  std::mt19937 rng(20261201);
  int kept_cases = 0;
  int refused_cases = 0;
  for (int iteration = 0; iteration < 3000; ++iteration) {
    const GuestView view = random_view(rng);
    const std::string operator_metadata =
        rng() % 2 ? "<app:owner xmlns:app='https://example.org/app'>team-a</app:owner>" : std::string();
    const HostSide before = random_host_side(rng, view, rng() % 2 == 0);
    const std::string original = domain_xml(view, before, operator_metadata, "");

    GuestView new_view = view;
    if (!new_view.distances.empty() && rng() % 2) {
      for (std::size_t i = 0; i < new_view.cells.size(); ++i) {
        for (std::size_t j = i + 1; j < new_view.cells.size(); ++j) new_view.distances[i][j] = new_view.distances[j][i] = 11 + rng() % 30;
      }
    }
    const bool visible = rng() % 3 == 0;
    const std::string change = visible ? change_guest_view(rng, new_view) : "";
    const HostSide after = random_host_side(rng, new_view, true);
    const std::string noise = rng() % 2 ? "<on_crash>destroy</on_crash>" : "";
    const std::string placed = domain_xml(new_view, after, rng() % 2 ? operator_metadata : "", noise);
    SCOPED_TRACE("iteration " + std::to_string(iteration) + "\noriginal: " + original + "\nplaced: " + placed);

    auto a = parse_document(original, "original");
    auto b = parse_document(placed, "placed");
    ASSERT_TRUE(a.ok() && b.ok());
    auto kept = keep_guest_view(a->get(), b->get(), "domain 'vm'");
    if (visible) {
      ASSERT_FALSE(kept.ok()) << "kept although " << change << " changed: " << kept->domain_xml;
      EXPECT_EQ(kept.error().name, "GuestViewWouldChange") << change;
      ++refused_cases;
      continue;
    }
    ASSERT_TRUE(kept.ok()) << kept.error().name << ": " << kept.error().message;
    ++kept_cases;
    const Doc out(kept->domain_xml);
    const Doc old_doc(original);
    const Doc new_doc(placed);
    ASSERT_NE(out.doc, nullptr) << kept->domain_xml;
    // The host side is the new placement's.
    EXPECT_EQ(attr(child(out.root(), "vcpu"), "cpuset"), attr(child(new_doc.root(), "vcpu"), "cpuset"));
    EXPECT_EQ(attr(child(out.root(), "vcpu"), "placement"), attr(child(new_doc.root(), "vcpu"), "placement"));
    EXPECT_EQ(dump(child(out.root(), "cputune")), dump(child(new_doc.root(), "cputune")));
    EXPECT_EQ(dump(child(out.root(), "numatune")), dump(child(new_doc.root(), "numatune")));
    EXPECT_EQ(dump(record_of(out.root())), dump(record_of(new_doc.root())));
    // The distances as the guest saw them, and said whether they differ.
    EXPECT_EQ(dump(child(out.root(), "cpu")), dump(child(old_doc.root(), "cpu")));
    EXPECT_EQ(kept->distances_differ, dump(child(old_doc.root(), "cpu")) != dump(child(new_doc.root(), "cpu")));
    // Everything else as the original had it (the noise and the placed metadata not brought along).
    const Doc out_again(kept->domain_xml);
    const Doc old_again(original);
    EXPECT_EQ(guest_side(out_again), guest_side(old_again));
  }
  // Both outcomes were drawn often enough to mean something.
  EXPECT_GT(kept_cases, 1500);
  EXPECT_GT(refused_cases, 700);
}

}  // namespace
}  // namespace numaplace::xml
