// SPDX-License-Identifier: LGPL-2.1-or-later
// Property: streams of mixed guests placed one after another, each with the earlier guests'
// domain XML as claims (as `numaplace place --claim` and define do), never double-book the host.
// Hosts are drawn at random (1 to 16 cells, SMT or not, huge page pools, PCI devices), written
// as libvirt capabilities + node device XML or as an hwloc export, with and without a host
// configuration; guests are shared, dedicated (prefer/isolate/require, isolated emulator),
// mixed, huge-page, without NUMA keys, with a PCI device or a DIMM, or hand-written (pinned or
// floating, as other tools write them). After every placement the checker reads every guest's
// XML with libxml2 on its own: its own cpulist parser, what each guest holds worked out from the
// request the test made and the host the test drew (siblings, pools), no numaplace reader. It
// checks: no pCPU held twice (pins, isolate's siblings, isolated emulator pCPUs); no thread of
// any guest on a pCPU another guest holds, and no floating vCPU on its own guest's pins; the host
// configuration's sets and reserved CPUs kept; per host cell, small-page memory of pinned and
// NUMA-less guests within the small pages, all memory within cell x RAM ratio, no guest cell
// larger than its host cell, huge pages within the pools; each PCI device held once.
// NUMAPLACE_PROPERTY_STREAMS and NUMAPLACE_PROPERTY_SEED change the run; a failure prints the
// seed and the stream to replay.
#include <gtest/gtest.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "placement/lifecycle/claims.h"
#include "placement/model/host_config.h"
#include "plugin/sources/host_claims.h"
#include "plugin/sources/host_config_file.h"
#include "plugin/sources/hwloc_source.h"
#include "plugin/service/place_domain.h"
#include "xml/capabilities_reader.h"
#include "xml/domain_writer.h"
#include "xml/nodedev_reader.h"
#include "xml/xml_document.h"

namespace {

using Cpus = std::set<std::uint32_t>;

// ---- The host the test draws (the truth the checker knows) ----

struct TruthCell {
  std::uint32_t id = 0;
  std::vector<std::vector<std::uint32_t>> cores;  // thread siblings
  std::uint64_t memory_kib = 0;
  std::uint64_t small_pages = 0;  // 4 KiB pages
  std::uint64_t pages_2m = 0;
  std::uint64_t pages_1g = 0;
  std::vector<std::uint32_t> distances;
  Cpus cpus() const {
    Cpus out;
    for (const auto& core : cores) out.insert(core.begin(), core.end());
    return out;
  }
};

struct TruthDevice {
  std::string address;  // 0000:bb:00.0
  std::uint32_t node = 0;
  std::uint32_t bus = 0;
};

struct TruthConfig {
  std::optional<Cpus> shared;
  std::optional<Cpus> dedicated;
  Cpus reserved;
  double cpu_ratio = 16.0;
  double ram_ratio = 1.5;
  std::map<std::uint32_t, std::uint64_t> reserved_2m;  // node -> pages
};

struct TruthHost {
  std::vector<TruthCell> cells;
  std::vector<TruthDevice> devices;
  std::optional<TruthConfig> config;
  Cpus all() const {
    Cpus out;
    for (const auto& c : cells) {
      auto cpus = c.cpus();
      out.insert(cpus.begin(), cpus.end());
    }
    return out;
  }
  const TruthCell* cell_of_cpu(std::uint32_t cpu) const {
    for (const auto& c : cells) {
      if (c.cpus().count(cpu)) return &c;
    }
    return nullptr;
  }
  // The thread siblings of `cpu`.
  Cpus core_of(std::uint32_t cpu) const {
    for (const auto& c : cells) {
      for (const auto& core : c.cores) {
        for (auto t : core) {
          if (t == cpu) return Cpus(core.begin(), core.end());
        }
      }
    }
    return {cpu};
  }
  // CPUs dedicated / floating guests may use, as the configuration says (Nova's rules).
  Cpus dedicated_set() const { return configured(config ? config->dedicated : std::nullopt); }
  Cpus shared_set() const { return configured(config ? config->shared : std::nullopt); }
  // A set of the configuration: every CPU when neither set is given, none when only the other is.
  Cpus configured(const std::optional<Cpus>& set) const {
    Cpus out = all();
    if (config && (config->shared || config->dedicated)) out = set.value_or(Cpus{});
    if (config) {
      for (auto r : config->reserved) out.erase(r);
    }
    return out;
  }
  double ram_ratio() const { return config ? config->ram_ratio : 1.5; }
};

std::string list_of(const Cpus& cpus) {
  std::string out;
  for (auto c : cpus) out += (out.empty() ? "" : ",") + std::to_string(c);
  return out;
}

// The checker's own cpulist reader: "0-3,^2,8".
std::optional<Cpus> parse_list(const std::string& text) {
  Cpus in, out;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    bool exclude = !item.empty() && item[0] == '^';
    if (exclude) item.erase(0, 1);
    auto dash = item.find('-');
    char* end = nullptr;
    unsigned long first = std::strtoul(item.c_str(), &end, 10);
    if (end == item.c_str()) return std::nullopt;
    unsigned long last = first;
    if (dash != std::string::npos) last = std::strtoul(item.c_str() + dash + 1, nullptr, 10);
    if (last < first || last > 100000) return std::nullopt;
    for (unsigned long c = first; c <= last; ++c) (exclude ? out : in).insert(static_cast<std::uint32_t>(c));
  }
  for (auto c : out) in.erase(c);
  return in;
}

TruthHost draw_host(std::mt19937& rng) {
  TruthHost host;
  const std::uint32_t cells = 1 + rng() % 16;
  const std::uint32_t cores = 1 + rng() % 6;
  const std::uint32_t threads = rng() % 3 == 0 ? 1 : 2;
  std::uint32_t cpu = 0;
  for (std::uint32_t i = 0; i < cells; ++i) {
    TruthCell cell;
    cell.id = i;
    cell.cores.resize(cores);
    for (std::uint32_t t = 0; t < threads; ++t) {
      for (std::uint32_t c = 0; c < cores; ++c) cell.cores[c].push_back(cpu++);
    }
    cell.memory_kib = (2 + rng() % 15) * 1024ull * 1024;  // 2 to 16 GiB
    cell.pages_2m = rng() % 3 == 0 ? 0 : (rng() % 4) * 256;
    cell.pages_1g = rng() % 3 == 0 ? (1 + rng() % 2) : 0;
    std::uint64_t huge = cell.pages_2m * 2048 + cell.pages_1g * 1048576;
    if (huge + 1048576 > cell.memory_kib) {
      cell.pages_2m = 0;
      cell.pages_1g = 0;
      huge = 0;
    }
    cell.small_pages = (cell.memory_kib - huge) / 4;
    host.cells.push_back(std::move(cell));
  }
  for (auto& cell : host.cells) {
    for (std::uint32_t j = 0; j < cells; ++j) cell.distances.push_back(cell.id == j ? 10 : (cell.id / 2 == j / 2 ? 12 : 21));
  }
  const std::uint32_t devices = rng() % 5;
  for (std::uint32_t d = 0; d < devices; ++d) {
    TruthDevice device;
    device.bus = 0x10 + d * 0x10;
    char address[32];
    std::snprintf(address, sizeof address, "0000:%02x:00.0", device.bus);
    device.address = address;
    device.node = rng() % cells;
    host.devices.push_back(device);
  }
  if (rng() % 2 == 0) {
    TruthConfig config;
    if (rng() % 3 == 0) {
      // A partition: the first core of every cell floats, the rest is pinned.
      Cpus shared, dedicated;
      for (const auto& cell : host.cells) {
        for (std::size_t c = 0; c < cell.cores.size(); ++c) {
          for (auto t : cell.cores[c]) (c == 0 || (cell.cores.size() > 3 && c == 1) ? shared : dedicated).insert(t);
        }
      }
      config.shared = shared;
      if (!dedicated.empty()) config.dedicated = dedicated;
    }
    if (rng() % 2 == 0) config.reserved.insert(0);
    config.cpu_ratio = rng() % 2 == 0 ? 16.0 : 4.0;
    config.ram_ratio = rng() % 2 == 0 ? 1.5 : 1.0;
    for (const auto& cell : host.cells) {
      if (cell.pages_2m > 0 && rng() % 2 == 0) config.reserved_2m[cell.id] = cell.pages_2m / 4;
    }
    host.config = config;
  }
  return host;
}

std::string capabilities_of(const TruthHost& host) {
  std::ostringstream out;
  out << "<capabilities><host><uuid>00000000-0000-0000-0000-0000000000aa</uuid><cpu><arch>x86_64</arch>"
      << "<pages unit='KiB' size='4'/><pages unit='KiB' size='2048'/><pages unit='KiB' size='1048576'/></cpu>"
      << "<topology><cells num='" << host.cells.size() << "'>";
  for (const auto& cell : host.cells) {
    out << "<cell id='" << cell.id << "'><memory unit='KiB'>" << cell.memory_kib << "</memory>"
        << "<pages unit='KiB' size='4'>" << cell.small_pages << "</pages>"
        << "<pages unit='KiB' size='2048'>" << cell.pages_2m << "</pages>"
        << "<pages unit='KiB' size='1048576'>" << cell.pages_1g << "</pages><distances>";
    for (std::size_t j = 0; j < cell.distances.size(); ++j) {
      out << "<sibling id='" << j << "' value='" << cell.distances[j] << "'/>";
    }
    out << "</distances><cpus num='" << cell.cpus().size() << "'>";
    for (const auto& cpu : cell.cpus()) {
      std::size_t core_index = 0;
      for (std::size_t c = 0; c < cell.cores.size(); ++c) {
        for (auto t : cell.cores[c]) core_index = t == cpu ? c : core_index;
      }
      Cpus siblings(cell.cores[core_index].begin(), cell.cores[core_index].end());
      out << "<cpu id='" << cpu << "' socket_id='" << cell.id << "' die_id='0' core_id='" << core_index
          << "' siblings='" << list_of(siblings) << "'/>";
    }
    out << "</cpus></cell>";
  }
  out << "</cells></topology></host></capabilities>";
  return out.str();
}

std::string nodedev_of(const TruthDevice& device) {
  std::ostringstream out;
  out << "<device><name>pci_" << device.address << "</name><capability type='pci'><class>0x020000</class>"
      << "<domain>0</domain><bus>" << device.bus << "</bus><slot>0</slot><function>0</function>"
      << "<product id='0x1572'>X710</product><vendor id='0x8086'>Intel</vendor><numa node='" << device.node
      << "'/></capability></device>";
  return out.str();
}

// hwloc's bitmap syntax: 32-bit words in hex, most significant first, comma separated.
std::string bitmap(const Cpus& bits) {
  const std::uint32_t top = bits.empty() ? 0 : *bits.rbegin();
  std::vector<std::uint32_t> words(top / 32 + 1, 0);
  for (auto b : bits) words[b / 32] |= 1u << (b % 32);
  std::string out;
  for (std::size_t i = words.size(); i-- > 0;) {
    char word[16];
    std::snprintf(word, sizeof word, "0x%08x", words[i]);
    out += (out.empty() ? "" : ",") + std::string(word);
  }
  return out;
}

std::string hwloc_of(const TruthHost& host) {
  std::ostringstream out;
  Cpus nodes;
  for (const auto& c : host.cells) nodes.insert(c.id);
  const auto sets = [](const Cpus& cpus, const Cpus& nodeset) {
    return " cpuset='" + bitmap(cpus) + "' complete_cpuset='" + bitmap(cpus) + "' nodeset='" + bitmap(nodeset) +
           "' complete_nodeset='" + bitmap(nodeset) + "'";
  };
  out << "<?xml version='1.0' encoding='UTF-8'?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n<topology version='2.0'>"
      << "<object type='Machine' os_index='0'" << sets(host.all(), nodes) << " gp_index='1'>";
  int gp = 2;
  for (const auto& cell : host.cells) {
    const Cpus node{cell.id};
    out << "<object type='Package' os_index='" << cell.id << "'" << sets(cell.cpus(), node) << " gp_index='" << gp++
        << "'>";
    out << "<object type='NUMANode' os_index='" << cell.id << "'" << sets(cell.cpus(), node) << " gp_index='" << gp++
        << "' local_memory='" << cell.memory_kib * 1024 << "'><page_type size='4096' count='" << cell.small_pages
        << "'/><page_type size='2097152' count='" << cell.pages_2m << "'/><page_type size='1073741824' count='"
        << cell.pages_1g << "'/></object>";
    for (std::size_t c = 0; c < cell.cores.size(); ++c) {
      Cpus core(cell.cores[c].begin(), cell.cores[c].end());
      out << "<object type='Core' os_index='" << c << "'" << sets(core, node) << " gp_index='" << gp++ << "'>";
      for (auto t : core) out << "<object type='PU' os_index='" << t << "'" << sets({t}, node) << " gp_index='" << gp++ << "'/>";
      out << "</object>";
    }
    for (const auto& device : host.devices) {
      if (device.node != cell.id) continue;
      char bridge[32];
      std::snprintf(bridge, sizeof bridge, "0000:[%02x-%02x]", device.bus, device.bus);
      const int bridge_gp = gp++, device_gp = gp++, osdev_gp = gp++;
      out << "<object type='Bridge' gp_index='" << bridge_gp << "' bridge_type='0-1' depth='0' bridge_pci='" << bridge
          << "'><object type='PCIDev' gp_index='" << device_gp << "' pci_busid='" << device.address
          << "' pci_type='0200 [8086:1572] [8086:1572] 01'><object type='OSDev' gp_index='" << osdev_gp << "' name='eth"
          << device.bus << "' osdev_type='2'/></object></object>";
    }
    out << "</object>";
  }
  // hwloc's length attributes count the characters of the text they describe.
  std::string indexes, values;
  for (const auto& c : host.cells) indexes += std::to_string(c.id) + " ";
  for (const auto& c : host.cells) {
    for (auto d : c.distances) values += std::to_string(d) + " ";
  }
  out << "</object><distances2 type='NUMANode' nbobjs='" << host.cells.size() << "' kind='5' indexing='os'><indexes length='"
      << indexes.size() << "'>" << indexes << "</indexes><u64values length='" << values.size() << "'>" << values
      << "</u64values></distances2></topology>\n";
  // hwloc's own (minimal) XML reader takes attributes in double quotes only.
  std::string text = out.str();
  for (auto& c : text) c = c == '\'' ? '"' : c;
  return text;
}

std::string config_text(const TruthConfig& config) {
  std::ostringstream out;
  out << "[DEFAULT]\ncpu_allocation_ratio = " << config.cpu_ratio << "\nram_allocation_ratio = " << config.ram_ratio << "\n";
  for (const auto& [node, count] : config.reserved_2m) {
    out << "reserved_huge_pages = node:" << node << ",size:2048,count:" << count << "\n";
  }
  out << "[compute]\n";
  if (config.shared) out << "cpu_shared_set = " << list_of(*config.shared) << "\n";
  if (config.dedicated) out << "cpu_dedicated_set = " << list_of(*config.dedicated) << "\n";
  if (!config.reserved.empty()) out << "[numaplace]\nreserved_cpus = " << list_of(config.reserved) << "\n";
  return out.str();
}

// ---- The guests the test asks for ----

enum class Kind { Shared, Dedicated, Mixed, HugePages, NoNuma, HandPinned, HandFloating };

struct GuestAsk {
  Kind kind = Kind::Shared;
  std::string name;
  numaplace::SpecMap specs;
  bool isolate = false;           // hw:cpu_thread_policy=isolate
  bool emulator_isolate = false;  // hw:emulator_threads_policy=isolate
  Cpus dedicated_vcpus;           // the vCPUs that must have a pCPU of their own
  std::string xml;                // as asked (and, once placed, as placed and narrowed since)
};

// ---- The checker's own reading of a domain ----

struct Doc {
  std::unique_ptr<xmlDoc, void (*)(xmlDoc*)> doc{nullptr, xmlFreeDoc};
  std::unique_ptr<xmlXPathContext, void (*)(xmlXPathContext*)> ctx{nullptr, xmlXPathFreeContext};
  explicit Doc(const std::string& text) {
    doc.reset(xmlReadMemory(text.data(), static_cast<int>(text.size()), "d.xml", nullptr, XML_PARSE_NONET));
    if (doc) {
      ctx.reset(xmlXPathNewContext(doc.get()));
      xmlXPathRegisterNs(ctx.get(), reinterpret_cast<const xmlChar*>("np"),
                         reinterpret_cast<const xmlChar*>("https://numaplace.dev/xmlns/domain/1"));
    }
  }
  std::vector<xmlNode*> nodes(const char* path) const {
    std::vector<xmlNode*> out;
    xmlXPathObject* result = xmlXPathEvalExpression(reinterpret_cast<const xmlChar*>(path), ctx.get());
    if (result != nullptr && result->nodesetval != nullptr) {
      for (int i = 0; i < result->nodesetval->nodeNr; ++i) out.push_back(result->nodesetval->nodeTab[i]);
    }
    xmlXPathFreeObject(result);
    return out;
  }
  static std::optional<std::string> attr(xmlNode* node, const char* name) {
    xmlChar* value = xmlGetProp(node, reinterpret_cast<const xmlChar*>(name));
    if (value == nullptr) return std::nullopt;
    std::string out(reinterpret_cast<char*>(value));
    xmlFree(value);
    return out;
  }
  static std::string text(xmlNode* node) {
    xmlChar* value = xmlNodeGetContent(node);
    std::string out = value ? reinterpret_cast<char*>(value) : "";
    xmlFree(value);
    return out;
  }
};

std::uint64_t kib_of(const std::string& value, const std::string& unit) {
  std::uint64_t n = std::strtoull(value.c_str(), nullptr, 10);
  if (unit == "MiB" || unit == "M") return n * 1024;
  if (unit == "GiB" || unit == "G") return n * 1024 * 1024;
  return n;
}

struct Seen {
  std::uint32_t vcpus = 0;
  std::map<std::uint32_t, Cpus> vcpu_sets;  // effective, per vCPU
  Cpus emulator;
  std::map<std::uint32_t, Cpus> pins;       // explicit <vcpupin>
  std::optional<Cpus> emulatorpin;
  struct Memory {
    std::uint32_t node;
    std::uint64_t kib;
    std::uint64_t page_kib;  // 0: small
  };
  std::vector<Memory> memory;
  std::vector<std::uint64_t> cell_sizes;  // every guest cell's memory
  std::vector<std::string> devices;
  std::string problem;                    // a malformed part the checker noticed
};

Seen read_guest(const std::string& xml, const TruthHost& host) {
  Seen seen;
  Doc d(xml);
  if (!d.doc) {
    seen.problem = "not XML";
    return seen;
  }
  auto vcpu = d.nodes("/domain/vcpu");
  seen.vcpus = vcpu.empty() ? 0 : static_cast<std::uint32_t>(std::stoul(Doc::text(vcpu[0])));
  Cpus fallback = host.all();
  if (!vcpu.empty()) {
    if (auto set = Doc::attr(vcpu[0], "cpuset")) fallback = parse_list(*set).value_or(Cpus{});
  }
  for (xmlNode* pin : d.nodes("/domain/cputune/vcpupin")) {
    seen.pins[std::stoul(*Doc::attr(pin, "vcpu"))] = parse_list(*Doc::attr(pin, "cpuset")).value_or(Cpus{});
  }
  for (std::uint32_t v = 0; v < seen.vcpus; ++v) seen.vcpu_sets[v] = seen.pins.count(v) ? seen.pins[v] : fallback;
  auto emulator = d.nodes("/domain/cputune/emulatorpin");
  if (!emulator.empty()) seen.emulatorpin = parse_list(*Doc::attr(emulator[0], "cpuset")).value_or(Cpus{});
  seen.emulator = seen.emulatorpin.value_or(fallback);

  // Memory: page size per guest cell, memnode per guest cell, the guest's nodeset.
  std::map<std::uint32_t, std::uint64_t> page_of;
  std::uint64_t default_page = 0;
  for (xmlNode* page : d.nodes("/domain/memoryBacking/hugepages/page")) {
    const std::uint64_t size = kib_of(*Doc::attr(page, "size"), Doc::attr(page, "unit").value_or("KiB"));
    if (auto cells = Doc::attr(page, "nodeset")) {
      const Cpus listed = parse_list(*cells).value_or(Cpus{});
      for (auto c : listed) page_of[c] = size;
    } else {
      default_page = size;
    }
  }
  std::map<std::uint32_t, Cpus> memnode;
  for (xmlNode* node : d.nodes("/domain/numatune/memnode")) {
    memnode[std::stoul(*Doc::attr(node, "cellid"))] = parse_list(*Doc::attr(node, "nodeset")).value_or(Cpus{});
  }
  std::optional<Cpus> nodeset;
  for (xmlNode* node : d.nodes("/domain/numatune/memory")) {
    if (auto set = Doc::attr(node, "nodeset")) nodeset = parse_list(*set);
  }
  auto page_for = [&](std::uint32_t cell) { return page_of.count(cell) ? page_of[cell] : default_page; };
  auto cells = d.nodes("/domain/cpu/numa/cell");
  std::map<std::uint32_t, std::uint32_t> host_of_cell;
  for (xmlNode* cell : cells) {
    const std::uint32_t id = std::stoul(*Doc::attr(cell, "id"));
    const std::uint64_t kib = kib_of(*Doc::attr(cell, "memory"), Doc::attr(cell, "unit").value_or("KiB"));
    seen.cell_sizes.push_back(kib);
    if (!memnode.count(id) || memnode[id].size() != 1) {
      seen.problem = "guest cell " + std::to_string(id) + " is not bound to exactly one host node";
      continue;
    }
    host_of_cell[id] = *memnode[id].begin();
    seen.memory.push_back({*memnode[id].begin(), kib, page_for(id)});
  }
  std::uint64_t total = 0;
  for (xmlNode* memory : d.nodes("/domain/memory")) total = kib_of(Doc::text(memory), Doc::attr(memory, "unit").value_or("KiB"));
  for (xmlNode* size : d.nodes("/domain/devices/memory[@model='dimm']/target/size")) {
    const std::uint64_t kib = kib_of(Doc::text(size), Doc::attr(size, "unit").value_or("KiB"));
    auto node = d.nodes("/domain/devices/memory[@model='dimm']/target/node");
    const std::uint32_t guest_node = node.empty() ? 0 : std::stoul(Doc::text(node[0]));
    if (!cells.empty()) seen.memory.push_back({host_of_cell[guest_node], kib, page_for(guest_node)});
  }
  if (cells.empty() && nodeset) {
    // A guest without a NUMA topology: its memory where <numatune> binds it; over several cells as
    // numaplace's record splits it, which must name only those cells and add up.
    const std::uint64_t kib = total;  // <memory> holds the devices too
    if (nodeset->size() == 1) {
      seen.memory.push_back({*nodeset->begin(), kib, default_page});
    } else {
      auto record = d.nodes("/domain/metadata/np:numaplace/np:confinement");
      std::uint64_t sum = 0;
      if (!record.empty()) {
        std::stringstream parts(*Doc::attr(record[0], "memory"));
        std::string part;
        while (std::getline(parts, part, ',')) {
          const std::uint32_t node = std::stoul(part.substr(0, part.find(':')));
          const std::uint64_t share = std::stoull(part.substr(part.find(':') + 1));
          if (!nodeset->count(node)) seen.problem = "the record splits memory onto a node the guest is not bound to";
          seen.memory.push_back({node, share, default_page});
          sum += share;
        }
      }
      if (sum != kib) seen.problem = "the record's memory split (" + std::to_string(sum) + " KiB) is not the guest's " + std::to_string(kib);
    }
  }
  for (xmlNode* address : d.nodes("/domain/devices/hostdev/source/address")) {
    char text[32];
    std::snprintf(text, sizeof text, "0000:%02lx:00.0", std::strtoul(Doc::attr(address, "bus")->c_str(), nullptr, 0));
    seen.devices.push_back(text);
  }
  return seen;
}

// What a guest holds for itself, from its request and its XML: the pins of its dedicated vCPUs,
// the isolated emulator pCPU, and under isolate every sibling of those.
Cpus held_by(const GuestAsk& ask, const Seen& seen, const TruthHost& host, std::string& problem) {
  Cpus held;
  for (auto v : ask.dedicated_vcpus) {
    auto pin = seen.pins.find(v);
    if (pin == seen.pins.end() || pin->second.size() != 1) {
      problem = ask.name + ": dedicated vCPU " + std::to_string(v) + " has no pCPU of its own";
      continue;
    }
    held.insert(*pin->second.begin());
  }
  if (ask.emulator_isolate) {
    if (!seen.emulatorpin || seen.emulatorpin->size() != 1 || held.count(*seen.emulatorpin->begin())) {
      problem = ask.name + ": the isolated emulator threads have no pCPU of their own";
    } else {
      held.insert(*seen.emulatorpin->begin());
    }
  }
  if (ask.isolate) {
    Cpus with_siblings;
    for (auto cpu : held) {
      auto core = host.core_of(cpu);
      with_siblings.insert(core.begin(), core.end());
    }
    held = with_siblings;
  }
  return held;
}

std::string check(const TruthHost& host, const std::vector<GuestAsk>& guests) {
  std::vector<Seen> seen;
  std::vector<Cpus> held;
  for (const auto& guest : guests) {
    seen.push_back(read_guest(guest.xml, host));
    if (!seen.back().problem.empty()) return guest.name + ": " + seen.back().problem;
    std::string problem;
    held.push_back(held_by(guest, seen.back(), host, problem));
    if (!problem.empty()) return problem;
  }
  const Cpus reserved = host.config ? host.config->reserved : Cpus{};
  const Cpus dedicated_set = host.dedicated_set();
  const Cpus shared_set = host.shared_set();
  for (std::size_t a = 0; a < guests.size(); ++a) {
    for (auto cpu : held[a]) {
      for (std::size_t b = 0; b < a; ++b) {
        if (held[b].count(cpu)) return "pCPU " + std::to_string(cpu) + " is held by " + guests[a].name + " and " + guests[b].name;
      }
      if (reserved.count(cpu)) return guests[a].name + " holds reserved pCPU " + std::to_string(cpu);
    }
    // Threads: nobody runs on what another holds; floating vCPUs not on their own guest's pins.
    std::vector<std::pair<std::string, Cpus>> threads;
    for (const auto& [v, cpus] : seen[a].vcpu_sets) {
      if (!guests[a].dedicated_vcpus.count(v)) threads.emplace_back("floating vCPU " + std::to_string(v), cpus);
    }
    threads.emplace_back("emulator", seen[a].emulator);
    for (const auto& [what, cpus] : threads) {
      for (std::size_t b = 0; b < guests.size(); ++b) {
        for (auto cpu : cpus) {
          if (held[b].count(cpu) && (b != a || what != "emulator")) {
            return guests[a].name + " " + what + " may run on pCPU " + std::to_string(cpu) + ", which " + guests[b].name + " holds";
          }
          if (reserved.count(cpu)) return guests[a].name + " " + what + " may run on reserved pCPU " + std::to_string(cpu);
        }
      }
      if (host.config && (host.config->shared || host.config->dedicated) && what != "emulator" &&
          guests[a].kind != Kind::HandFloating) {
        for (auto cpu : cpus) {
          if (!shared_set.count(cpu)) return guests[a].name + " " + what + " floats on " + std::to_string(cpu) + ", outside cpu_shared_set";
        }
      }
    }
    for (auto cpu : held[a]) {
      if (!guests[a].isolate && !dedicated_set.count(cpu)) {
        return guests[a].name + " holds pCPU " + std::to_string(cpu) + ", outside the dedicated set";
      }
    }
  }
  // Memory per host cell.
  for (const auto& cell : host.cells) {
    std::uint64_t strict_small = 0, all_small = 0;
    std::map<std::uint64_t, std::uint64_t> pages;
    for (std::size_t g = 0; g < guests.size(); ++g) {
      const bool strict = !guests[g].dedicated_vcpus.empty() || guests[g].kind == Kind::NoNuma;
      for (const auto& m : seen[g].memory) {
        if (m.node != cell.id) continue;
        if (m.page_kib > 4) {
          pages[m.page_kib] += (m.kib + m.page_kib - 1) / m.page_kib;
          continue;
        }
        all_small += m.kib;
        if (strict) strict_small += m.kib;
      }
      for (auto size : seen[g].cell_sizes) {
        if (size > cell.memory_kib && !seen[g].memory.empty()) {
          for (const auto& m : seen[g].memory) {
            if (m.node == cell.id && m.kib == size) {
              return guests[g].name + " has a guest cell of " + std::to_string(size) + " KiB on host cell " +
                     std::to_string(cell.id) + " of " + std::to_string(cell.memory_kib);
            }
          }
        }
      }
    }
    if (strict_small > cell.small_pages * 4) {
      return "host cell " + std::to_string(cell.id) + ": pinned and NUMA-less guests bind " + std::to_string(strict_small) +
             " KiB of small pages, it has " + std::to_string(cell.small_pages * 4);
    }
    if (static_cast<double>(all_small) > static_cast<double>(cell.memory_kib) * host.ram_ratio()) {
      return "host cell " + std::to_string(cell.id) + ": guests bind " + std::to_string(all_small) +
             " KiB, beyond its memory x RAM ratio";
    }
    const std::uint64_t reserved_2m =
        host.config && host.config->reserved_2m.count(cell.id) ? host.config->reserved_2m.at(cell.id) : 0;
    if (pages[2048] > cell.pages_2m - reserved_2m) return "host cell " + std::to_string(cell.id) + ": 2 MiB pages overbooked";
    if (pages[1048576] > cell.pages_1g) return "host cell " + std::to_string(cell.id) + ": 1 GiB pages overbooked";
  }
  std::set<std::string> devices;
  for (std::size_t g = 0; g < guests.size(); ++g) {
    for (const auto& device : seen[g].devices) {
      if (!devices.insert(device).second) return "PCI device " + device + " is held twice (" + guests[g].name + ")";
    }
  }
  return {};
}

// ---- Drawing guests ----

std::string domain_xml(const std::string& name, std::uint32_t vcpus, std::uint64_t memory_kib, const std::string& extra_top,
                       const std::string& devices) {
  std::ostringstream out;
  out << "<domain type='kvm'><name>" << name << "</name><memory unit='KiB'>" << memory_kib << "</memory>" << extra_top
      << "<vcpu>" << vcpus << "</vcpu><os><type>hvm</type></os><devices>" << devices << "</devices></domain>";
  return out.str();
}

// The pCPUs nobody holds yet, as the checker sees it, among `allowed`.
Cpus unheld(const TruthHost& host, const std::vector<GuestAsk>& guests, const Cpus& allowed) {
  Cpus out = allowed;
  for (const auto& guest : guests) {
    Seen seen = read_guest(guest.xml, host);
    std::string problem;
    for (auto cpu : held_by(guest, seen, host, problem)) out.erase(cpu);
  }
  return out;
}

GuestAsk draw_guest(std::mt19937& rng, const TruthHost& host, const std::vector<GuestAsk>& placed, int index) {
  GuestAsk ask;
  ask.name = "g" + std::to_string(index);
  const int roll = static_cast<int>(rng() % 100);
  ask.kind = roll < 20 ? Kind::Shared : roll < 45 ? Kind::Dedicated : roll < 55 ? Kind::Mixed : roll < 65 ? Kind::HugePages
           : roll < 85 ? Kind::NoNuma : roll < 92 ? Kind::HandPinned : Kind::HandFloating;
  const std::uint32_t max_nodes = std::min<std::uint32_t>(3, static_cast<std::uint32_t>(host.cells.size()));
  const std::uint32_t nodes = 1 + rng() % max_nodes;
  std::uint32_t vcpus = nodes * (1 + rng() % 3);
  std::uint64_t memory_kib = nodes * (1 + rng() % 8) * 256ull * 1024;
  std::string devices;
  std::string top;
  if (!host.devices.empty() && rng() % 4 == 0) {
    const auto& device = host.devices[rng() % host.devices.size()];
    // Decimal, as libvirt also accepts it.
    devices += "<hostdev mode='subsystem' type='pci' managed='yes'><source><address domain='0' bus='" +
               std::to_string(device.bus) + "' slot='0' function='0'/></source></hostdev>";
  }
  switch (ask.kind) {
    case Kind::Shared:
      ask.specs = {{"hw:numa_nodes", std::to_string(nodes)}};
      break;
    case Kind::Dedicated: {
      ask.specs = {{"hw:numa_nodes", std::to_string(nodes)}, {"hw:cpu_policy", "dedicated"}};
      const char* policies[] = {"", "prefer", "isolate", "require"};
      const std::string policy = policies[rng() % 4];
      if (!policy.empty()) ask.specs["hw:cpu_thread_policy"] = policy;
      ask.isolate = policy == "isolate";
      if (rng() % 3 == 0) {
        ask.specs["hw:emulator_threads_policy"] = "isolate";
        ask.emulator_isolate = true;
      }
      for (std::uint32_t v = 0; v < vcpus; ++v) ask.dedicated_vcpus.insert(v);
      break;
    }
    case Kind::Mixed:
      vcpus = std::max<std::uint32_t>(vcpus, 2 * nodes);
      ask.specs = {{"hw:numa_nodes", "1"}, {"hw:cpu_policy", "mixed"}, {"hw:cpu_dedicated_mask", "^0"}};
      memory_kib = (1 + rng() % 8) * 256ull * 1024;
      for (std::uint32_t v = 1; v < vcpus; ++v) ask.dedicated_vcpus.insert(v);
      break;
    case Kind::HugePages: {
      const bool gig = rng() % 2 == 0;
      ask.specs = {{"hw:numa_nodes", "1"}, {"hw:mem_page_size", gig ? "1GB" : "2048"}};
      memory_kib = gig ? 1048576 : (1 + rng() % 4) * 256ull * 1024;
      if (rng() % 2 == 0) {
        ask.specs["hw:cpu_policy"] = "dedicated";
        for (std::uint32_t v = 0; v < vcpus; ++v) ask.dedicated_vcpus.insert(v);
      }
      break;
    }
    case Kind::NoNuma:
      vcpus = 1 + rng() % 4;
      memory_kib = (1 + rng() % 24) * 512ull * 1024;
      if (rng() % 3 == 0) {
        // The operator bounded vCPU 0 and the emulator to a few pCPUs anywhere on the host, held by
        // others or not (two or more each: a single pCPU would be a 1:1 pin, which holds it).
        const Cpus all = host.all();
        std::vector<std::uint32_t> pool(all.begin(), all.end());
        auto some = [&] {
          std::shuffle(pool.begin(), pool.end(), rng);
          return Cpus(pool.begin(), pool.begin() + std::min<std::size_t>(pool.size(), 2 + rng() % 3));
        };
        if (pool.size() >= 2) {
          top = "<cputune><vcpupin vcpu='0' cpuset='" + list_of(some()) + "'/><emulatorpin cpuset='" + list_of(some()) +
                "'/></cputune>";
        }
      }
      break;
    case Kind::HandPinned: {
      // Another tool pinned it 1:1 onto pCPUs nobody holds; its memory it left unbound.
      Cpus free = unheld(host, placed, host.dedicated_set());
      if (free.empty()) return draw_guest(rng, host, placed, index);
      vcpus = 1 + rng() % std::min<std::size_t>(3, free.size());
      std::vector<std::uint32_t> pool(free.begin(), free.end());
      std::shuffle(pool.begin(), pool.end(), rng);
      std::string pins;
      Cpus chosen;
      for (std::uint32_t v = 0; v < vcpus; ++v) {
        pins += "<vcpupin vcpu='" + std::to_string(v) + "' cpuset='" + std::to_string(pool[v]) + "'/>";
        chosen.insert(pool[v]);
        ask.dedicated_vcpus.insert(v);
      }
      top = "<cputune>" + pins + "<emulatorpin cpuset='" + list_of(chosen) + "'/></cputune>";
      memory_kib = 512 * 1024;
      break;
    }
    case Kind::HandFloating: {
      Cpus free = unheld(host, placed, host.shared_set());
      if (free.empty()) return draw_guest(rng, host, placed, index);
      std::vector<std::uint32_t> pool(free.begin(), free.end());
      std::shuffle(pool.begin(), pool.end(), rng);
      Cpus chosen(pool.begin(), pool.begin() + 1 + rng() % pool.size());
      vcpus = 1 + rng() % 3;
      memory_kib = 512 * 1024;
      ask.xml = "<domain type='kvm'><name>" + ask.name + "</name><memory unit='KiB'>" + std::to_string(memory_kib) +
                "</memory><vcpu cpuset='" + list_of(chosen) + "'>" + std::to_string(vcpus) +
                "</vcpu><os><type>hvm</type></os><devices/></domain>";
      return ask;
    }
  }
  if (ask.kind == Kind::Shared && rng() % 4 == 0) {
    // A DIMM on guest cell 0, which the host cell of that cell holds too.
    top += "<maxMemory slots='4' unit='KiB'>" + std::to_string(memory_kib * 4) + "</maxMemory>";
    devices += "<memory model='dimm'><target><size unit='KiB'>262144</size><node>0</node></target></memory>";
    memory_kib += 262144;
  }
  ask.xml = domain_xml(ask.name, vcpus, memory_kib, top, devices);
  return ask;
}

std::optional<numaplace::HostTopology> load(const TruthHost& truth, bool as_hwloc, std::string& why) {
  std::optional<numaplace::HostTopology> host;
  if (as_hwloc) {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("numaplace-property-" + std::to_string(getpid()) + ".xml")).string();
    std::ofstream(path) << hwloc_of(truth);
    auto loaded = numaplace::plugin::load_hwloc_xml(path);
    std::filesystem::remove(path);
    if (!loaded) {
      why = loaded.error().message;
      return std::nullopt;
    }
    host = std::move(*loaded);
  } else {
    auto loaded = numaplace::xml::read_capabilities(capabilities_of(truth));
    if (!loaded) {
      why = loaded.error().message;
      return std::nullopt;
    }
    host = std::move(*loaded);
    for (const auto& device : truth.devices) {
      auto read = numaplace::xml::read_pci_node_device(nodedev_of(device));
      if (!read || !*read) {
        why = read ? "no PCI device" : read.error().message;
        return std::nullopt;
      }
      host->pci.push_back(**read);
    }
  }
  if (truth.config) {
    auto config = numaplace::plugin::parse_host_config(config_text(*truth.config), "test configuration");
    if (!config) {
      why = config.error().message;
      return std::nullopt;
    }
    if (auto applied = numaplace::apply_host_config(*host, *config); !applied) {
      why = applied.error().message;
      return std::nullopt;
    }
  }
  return host;
}

std::uint32_t env_or(const char* name, std::uint32_t fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? static_cast<std::uint32_t>(std::strtoul(text, nullptr, 10)) : fallback;
}

TEST(AccountingProperty, StreamsOfMixedGuestsNeverDoubleBookTheHost) {
  const std::uint32_t seed = env_or("NUMAPLACE_PROPERTY_SEED", 20261201);
  const std::uint32_t streams = env_or("NUMAPLACE_PROPERTY_STREAMS", 260);
  const std::set<std::string> refusals{"NoFit",           "WouldStarveGuest", "PciDeviceHeld",
                                       "PolicyRefused",   "ConflictingPin",   "PinningCollision", "ImageNUMATopologyAsymmetric",
                                       "ImageNUMATopologyMemoryOutOfRange", "RequestedVCPUTooHigh"};
  std::map<std::string, int> outcomes;
  int guests_placed = 0, hwloc_hosts = 0, configured = 0, narrowed = 0;
  for (std::uint32_t stream = 0; stream < streams; ++stream) {
    std::mt19937 rng(seed + stream);
    const TruthHost truth = draw_host(rng);
    const bool as_hwloc = rng() % 3 == 0;
    std::string why;
    auto base = load(truth, as_hwloc, why);
    ASSERT_TRUE(base.has_value()) << "seed " << seed + stream << ": the drawn host does not load: " << why;
    hwloc_hosts += as_hwloc ? 1 : 0;
    configured += truth.config ? 1 : 0;
    numaplace::CpuSet host_cpus;
    for (auto cpu : truth.all()) host_cpus.insert(cpu);
    std::vector<GuestAsk> placed;
    const int count = 8 + static_cast<int>(rng() % 16);
    for (int i = 0; i < count; ++i) {
      GuestAsk ask = draw_guest(rng, truth, placed, i);
      if (ask.kind == Kind::HandFloating) {
        placed.push_back(ask);
        ++outcomes["hand-written"];
      } else {
        std::vector<numaplace::plugin::DomainXml> domains;
        for (const auto& g : placed) domains.push_back({g.name, {}, true, g.xml});
        auto claims = numaplace::plugin::read_host_claims(domains, *base);
        ASSERT_TRUE(claims.warnings.empty()) << "seed " << seed + stream << ": " << claims.warnings.front();
        numaplace::HostTopology host = *base;
        numaplace::apply_claims(host, claims.claims);
        numaplace::plugin::PlaceRequest request;
        request.domain_xml = ask.xml;
        request.domain_name_for_errors = ask.name;
        request.flavor_specs = ask.specs;
        request.other_guests = &claims.claims;
        const numaplace::Strategy strategies[] = {numaplace::Strategy::Nova, numaplace::Strategy::Adaptive,
                                                  numaplace::Strategy::Pack, numaplace::Strategy::Spread};
        request.fit.strategy = strategies[rng() % 4];
        const numaplace::TopologyPolicy policies[] = {numaplace::TopologyPolicy::BestEffort, numaplace::TopologyPolicy::None,
                                                      numaplace::TopologyPolicy::Restricted,
                                                      numaplace::TopologyPolicy::SingleNumaNode};
        request.floating.policy = policies[rng() % 4];
        auto outcome = numaplace::plugin::place_domain(host, request);
        if (!outcome) {
          ASSERT_TRUE(refusals.count(outcome.error().name))
              << "seed " << seed + stream << " guest " << i << ": unexpected " << outcome.error().name << ": "
              << outcome.error().message << "\n"
              << ask.xml;
          ++outcomes[outcome.error().name];
          if (std::getenv("NUMAPLACE_PROPERTY_SHOW") != nullptr && outcome.error().name == std::getenv("NUMAPLACE_PROPERTY_SHOW")) {
            std::cout << "seed " << seed + stream << " " << ask.name << ": " << outcome.error().message << "\n";
            if (std::getenv("NUMAPLACE_PROPERTY_DUMP") != nullptr) {
              std::cout << ask.xml << "\n";
              for (const auto& [k, v] : ask.specs) std::cout << "spec " << k << "=" << v << "\n";
              for (const auto& g : placed) std::cout << "---- " << g.name << " kind " << static_cast<int>(g.kind) << "\n" << g.xml << "\n";
            }
          }
          continue;
        }
        ++guests_placed;
        ++outcomes["placed"];
        // What define does to the others: their threads leave the new guest's pCPUs.
        if (!outcome->narrowings.empty()) {
          ++narrowed;
          const numaplace::CpuSet taken = outcome->held;
          for (auto& other : placed) {
            bool named = false;
            for (const auto& n : outcome->narrowings) named = named || n.guest == other.name;
            if (!named) continue;
            auto doc = numaplace::xml::parse_document(other.xml, other.name);
            ASSERT_TRUE(doc.ok());
            numaplace::xml::narrow_threads(doc->get(), taken, host_cpus);
            other.xml = numaplace::xml::serialize(doc->get());
          }
        }
        ask.xml = outcome->domain_xml;
        placed.push_back(ask);
      }
      const std::string broken = check(truth, placed);
      if (!broken.empty() && std::getenv("NUMAPLACE_PROPERTY_DUMP") != nullptr) {
        std::cout << capabilities_of(truth) << "\n" << (truth.config ? config_text(*truth.config) : "") << "\n";
        for (const auto& g : placed) std::cout << "---- " << g.name << " kind " << static_cast<int>(g.kind) << "\n" << g.xml << "\n";
      }
      ASSERT_TRUE(broken.empty()) << "seed " << seed + stream << " (NUMAPLACE_PROPERTY_SEED=" << seed + stream
                                  << " NUMAPLACE_PROPERTY_STREAMS=1), after guest " << i << " (" << placed.back().name
                                  << ", " << (as_hwloc ? "hwloc" : "capabilities") << " host of "
                                  << truth.cells.size() << " cells" << (truth.config ? ", configured" : "")
                                  << "): " << broken << "\n"
                                  << placed.back().xml;
    }
  }
  std::cout << "property: " << streams << " streams (" << hwloc_hosts << " hwloc, " << configured
            << " with a host configuration), " << guests_placed << " guests placed, " << narrowed
            << " placements narrowed others;";
  for (const auto& [what, n] : outcomes) std::cout << " " << what << " " << n;
  std::cout << '\n';
  // Not a vacuous run: thousands placed, every kind of refusal reached only where it should.
  if (streams >= 200) {
    EXPECT_GT(guests_placed, 2000);
    EXPECT_GT(narrowed, 20);
    EXPECT_GT(hwloc_hosts, 40);
  }
}

}  // namespace
