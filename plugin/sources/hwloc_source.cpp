// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/sources/hwloc_source.h"

#include <hwloc.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "placement/model/host_consistency.h"
#include "xml/xml_document.h"
#include "placement/model/text_items.h"

namespace numaplace::plugin {
namespace {

struct TopologyDestroy {
  void operator()(hwloc_topology* topology) const { hwloc_topology_destroy(topology); }
};
using Topology = std::unique_ptr<hwloc_topology, TopologyDestroy>;

struct BitmapFree {
  void operator()(hwloc_bitmap_s* bitmap) const { hwloc_bitmap_free(bitmap); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapFree>;

Error load_failed(const std::string& what, const std::string& reason) {
  return make_error("HwlocLoadFailed", "hwloc could not load " + what + ": " + reason);
}

// Whether a page size in bytes is one a host pool can have: a whole number of KiB.
bool whole_kib_pages(std::uint64_t bytes) { return bytes >= 1024 && bytes % 1024 == 0; }

std::string pages_not_in_kib(const std::string& node, const std::string& count, const std::string& bytes) {
  return "NUMA node " + node + " reports " + count + " pages of " + bytes +
         " bytes; a page size is a whole number of KiB (4096, 2097152, ...): the XML is damaged or hand-edited, "
         "export it again with lstopo";
}

std::string errno_reason(int error) {
  return error != 0 ? std::string(std::strerror(error)) : std::string("hwloc gave no reason");
}

Result<Topology> new_topology(const std::string& what) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return load_failed(what, errno_reason(errno));
  Topology topology(raw);
  // numaplace needs cells, CPUs and PCI devices with their locality. The GPU-API components
  // (X displays, OpenCL and vendor runtimes) add nothing to that, are slow to start in a libvirt
  // hook, and their libraries leak on unload; they are left out. Not every hwloc build has them
  // all, so a name it does not know is not an error.
  for (const char* component : {"gl", "opencl", "cuda", "nvml", "rsmi", "levelzero"}) {
    (void)hwloc_topology_set_components(topology.get(), HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, component);
  }
  // Keep the PCI devices and OS devices that matter (NICs, GPUs, disks), drop the rest.
  if (hwloc_topology_set_io_types_filter(topology.get(), HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0) {
    return load_failed(what, "cannot enable PCI discovery: " + errno_reason(errno));
  }
  return topology;
}

// The ids set in an hwloc bitmap, refusing the infinite and the absurd.
Result<CpuSet> cpus_of(hwloc_const_bitmap_t bitmap, const std::string& what) {
  CpuSet set;
  if (bitmap == nullptr) return set;
  if (hwloc_bitmap_weight(bitmap) < 0) return load_failed(what, "an infinite cpuset");
  for (int id = hwloc_bitmap_first(bitmap); id >= 0; id = hwloc_bitmap_next(bitmap, id)) {
    if (static_cast<unsigned>(id) > kMaxCpuId) {
      return load_failed(what, "CPU " + std::to_string(id) + " is above " + std::to_string(kMaxCpuId));
    }
    set.insert(static_cast<std::uint32_t>(id));
  }
  return set;
}

std::string hex(unsigned value, int digits) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%0*x", digits, value);
  return buffer;
}

PciDevice pci_device(hwloc_topology_t topology, hwloc_obj_t obj) {
  const auto& attr = obj->attr->pcidev;
  PciDevice dev;
  dev.address = hex(attr.domain, 4) + ":" + hex(attr.bus, 2) + ":" + hex(attr.dev, 2) + "." + hex(attr.func, 1);
  dev.vendor_id = hex(attr.vendor_id, 4);
  dev.product_id = hex(attr.device_id, 4);
  dev.class_id = hex(attr.class_id, 4);
  const hwloc_obj_t ancestor = hwloc_get_non_io_ancestor_obj(topology, obj);
  if (ancestor != nullptr && ancestor->nodeset != nullptr && hwloc_bitmap_weight(ancestor->nodeset) == 1) {
    dev.numa_node = static_cast<std::uint32_t>(hwloc_bitmap_first(ancestor->nodeset));
  }
  return dev;
}

// Fills each cell's distances from hwloc's NUMA latency matrix, when it has one.
void read_distances(hwloc_topology_t topology, HostTopology& host) {
  unsigned count = 1;
  hwloc_distances_s* matrix = nullptr;
  if (hwloc_distances_get_by_type(topology, HWLOC_OBJ_NUMANODE, &count, &matrix, HWLOC_DISTANCES_KIND_MEANS_LATENCY,
                                  0) != 0 ||
      count == 0 || matrix == nullptr) {
    return;
  }
  auto release = [topology](hwloc_distances_s* m) { hwloc_distances_release(topology, m); };
  std::unique_ptr<hwloc_distances_s, decltype(release)> owned(matrix, release);
  std::map<std::uint32_t, unsigned> index_of;  // NUMA os_index -> matrix index
  for (unsigned i = 0; i < matrix->nbobjs; ++i) index_of[matrix->objs[i]->os_index] = i;
  for (auto& cell : host.cells) {
    cell.distances.clear();
    const auto from = index_of.find(cell.id);
    for (const auto& other : host.cells) {
      const auto to = index_of.find(other.id);
      std::uint64_t value = other.id == cell.id ? 10 : 20;  // as the capabilities reader fills a gap
      if (from != index_of.end() && to != index_of.end()) value = matrix->values[from->second * matrix->nbobjs + to->second];
      cell.distances.push_back(static_cast<std::uint32_t>(std::min<std::uint64_t>(value, UINT32_MAX)));
    }
  }
}

Result<HostTopology> to_host(hwloc_topology_t topology, const std::string& what) {
  HostTopology host;
  const int nodes = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE);
  if (nodes <= 0) return load_failed(what, "the topology has no NUMA node");
  // A CPU belongs to the most local NUMA node whose cpuset holds it. hwloc gives a node attached
  // above the CPUs (GPU or CXL memory on a Machine or Package, HBM beside DDR) the cpuset of where it
  // is attached, though the kernel lists those CPUs on the nodes below (the other node is CPU-less):
  // a node keeps only the CPUs of no node with a smaller cpuset, and of nodes with the same cpuset
  // the lowest OS index keeps them.
  std::vector<std::pair<unsigned, CpuSet>> localities;
  for (int i = 0; i < nodes; ++i) {
    const hwloc_obj_t node = hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    auto cpus = cpus_of(node->cpuset, what + ", NUMA node " + std::to_string(node->os_index));
    if (!cpus) return cpus.error();
    localities.emplace_back(node->os_index, std::move(*cpus));
  }
  for (int i = 0; i < nodes; ++i) {
    const hwloc_obj_t node = hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    if (node->os_index == HWLOC_UNKNOWN_INDEX || node->os_index > kMaxCpuId) {
      return load_failed(what, "NUMA node " + std::to_string(i) + " has no usable OS index");
    }
    HostCell cell;
    cell.id = node->os_index;
    const CpuSet& locality = localities[static_cast<std::size_t>(i)].second;
    cell.cpus = locality;
    for (const auto& [other, cpus] : localities) {
      if (other == node->os_index || cpus.empty() || !cpus.is_subset_of(locality)) continue;
      if (cpus != locality || other < node->os_index) cell.cpus = cell.cpus.minus(cpus);
    }
    const std::string where = what + ", NUMA node " + std::to_string(cell.id);
    for (std::uint32_t cpu : cell.cpus) {
      const hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topology, cpu);
      const hwloc_obj_t core = pu != nullptr ? hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_CORE, pu) : nullptr;
      CpuSet group{cpu};
      if (core != nullptr) {
        auto core_cpus = cpus_of(core->cpuset, where);
        if (!core_cpus) return core_cpus.error();
        group = core_cpus->intersected(cell.cpus).united(group);
      }
      if (std::find(cell.siblings.begin(), cell.siblings.end(), group) == cell.siblings.end()) cell.siblings.push_back(group);
    }
    std::sort(cell.siblings.begin(), cell.siblings.end(), [](const CpuSet& a, const CpuSet& b) { return a.first() < b.first(); });
    cell.shared_cpus = cell.cpus;
    cell.dedicated_cpus = cell.cpus;

    const auto& memory = node->attr->numanode;
    // hwloc reads local_memory="-1" as 2^64 - 1 bytes: refused here, as what it is, rather than
    // later as a host JSON field out of range.
    constexpr std::uint64_t kMaxMemoryBytes = std::uint64_t{1} << 60;  // 1 EiB, the host JSON's limit
    if (memory.local_memory > kMaxMemoryBytes) {
      return load_failed(what, "NUMA node " + std::to_string(cell.id) + " reports " + std::to_string(memory.local_memory) +
                                   " bytes of local memory, more than any machine has (at most 2^60); the XML is "
                                   "damaged or hand-edited (a negative local_memory?): export it again with lstopo");
    }
    cell.memory_kib = memory.local_memory / 1024;
    for (unsigned p = 0; p < memory.page_types_len; ++p) {
      const std::uint64_t page_bytes = memory.page_types[p].size;
      // A pool numaplace cannot express in KiB is refused rather than dropped (its pages would
      // vanish from the host) or rounded (its pages would be counted at another size); an entry
      // with no pages holds nothing either way.
      if (!whole_kib_pages(page_bytes)) {
        if (memory.page_types[p].count == 0) continue;
        return load_failed(what, pages_not_in_kib(std::to_string(cell.id), std::to_string(memory.page_types[p].count),
                                                  std::to_string(page_bytes)));
      }
      PagePool pool;
      pool.size_kib = memory.page_types[p].size / 1024;
      pool.total = memory.page_types[p].count;
      cell.pages.push_back(pool);
    }
    if (const auto twice = sort_page_pools(cell.pages)) {
      return load_failed(what, "NUMA node " + std::to_string(cell.id) + " reports page size " + std::to_string(*twice) +
                                   " KiB more than once");
    }

    const hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_PACKAGE, node);
    if (package != nullptr && package->os_index != HWLOC_UNKNOWN_INDEX) cell.socket = package->os_index;
    host.cells.push_back(std::move(cell));
  }
  std::sort(host.cells.begin(), host.cells.end(), [](const HostCell& a, const HostCell& b) { return a.id < b.id; });
  std::vector<CpuSet> l3;
  const int caches = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_L3CACHE);
  for (int i = 0; i < caches; ++i) {
    const hwloc_obj_t cache = hwloc_get_obj_by_type(topology, HWLOC_OBJ_L3CACHE, static_cast<unsigned>(i));
    auto cpus = cpus_of(cache->cpuset, what + ", L3 cache " + std::to_string(i));
    if (!cpus) return cpus.error();
    l3.push_back(std::move(*cpus));
  }
  assign_cache_domains(host, l3);
  read_distances(topology, host);
  for (hwloc_obj_t obj = hwloc_get_next_pcidev(topology, nullptr); obj != nullptr; obj = hwloc_get_next_pcidev(topology, obj)) {
    host.pci.push_back(pci_device(topology, obj));
  }
  // In the caller's process (the C ABI), as after the CLI's child: the same contradictions refused.
  if (auto consistent = check_host_consistency(host, what); !consistent) return consistent.error();
  if (auto devices = check_pci_device_nodes(host, what); !devices) return devices.error();
  return host;
}

// Whether `value` is a bitmap as hwloc writes one: "0xf...f" (all set), or comma-separated
// words "0x" + 1 to 16 hex digits, optionally after "0xf...f," (infinite above them).
bool hwloc_bitmap_text(std::string_view value) {
  constexpr std::string_view kInfinite = "0xf...f";
  if (value == kInfinite) return true;
  if (value.substr(0, kInfinite.size() + 1) == std::string(kInfinite) + ",") value.remove_prefix(kInfinite.size() + 1);
  for (std::string_view word : split_items(value)) {
    if (word.size() < 3 || word.size() > 18 || word[0] != '0' || word[1] != 'x') return false;
    for (char c : word.substr(2)) {
      if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    }
  }
  return true;
}

// An attribute's value as a decimal of at most `max_digits` digits (and nothing else), or nullopt
// (no attribute, an empty value, a sign, blanks or more digits); 19 digits always fit 64 bits.
std::optional<std::uint64_t> decimal_attribute(const std::optional<std::string>& text, std::size_t max_digits) {
  if (!text || text->empty() || text->size() > max_digits ||
      !std::all_of(text->begin(), text->end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoull(*text);
}

// A <page_type> that holds pages of a size that is not a whole number of KiB, as the reason it is
// refused, or nullopt. Read before hwloc, which leaves out an entry whose size reads as 0 (a size of
// "0" or of text that is not a number) and so would lose its pages without a word.
std::optional<std::string> page_type_problem(const xmlNode* page_type) {
  const auto size_text = xml::attribute(page_type, "size");
  const auto count_text = xml::attribute(page_type, "count");
  const auto count = decimal_attribute(count_text, 19);
  if (count == 0) return std::nullopt;
  const auto size = decimal_attribute(size_text, 19);
  if (size && count && whole_kib_pages(*size)) return std::nullopt;
  const auto node = page_type->parent != nullptr ? xml::attribute(page_type->parent, "os_index") : std::nullopt;
  return pages_not_in_kib(node.value_or("?").substr(0, 16), count_text.value_or("(no count)").substr(0, 24),
                          "'" + size_text.value_or("").substr(0, 24) + "'");
}

// The first value of a *set="..." attribute (cpuset, complete_nodeset, ...) that is not a bitmap
// hwloc writes, or nullopt. hwloc 2.9 asserts (aborts the process) on some malformed ones, such
// as a leading comma, so they are refused before hwloc reads the export.
std::optional<std::string> malformed_bitmap(std::string_view text) {
  for (std::size_t at = text.find("set="); at != std::string_view::npos; at = text.find("set=", at + 4)) {
    if (at == 0 || !(std::islower(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_')) continue;
    const std::size_t open = at + 4;
    if (open >= text.size() || (text[open] != '"' && text[open] != '\'')) continue;
    const std::size_t close = text.find(text[open], open + 1);
    if (close == std::string_view::npos) return std::string(text.substr(open, 40));
    const std::string_view value = text.substr(open + 1, close - open - 1);
    if (!hwloc_bitmap_text(value)) return std::string(value.substr(0, 64));
  }
  return std::nullopt;
}

// hwloc 2.9 trusts an export's sets: an <object> without one of them (a cpuset but no
// complete_cpuset, a Machine without a nodeset, ...), or a set that is not a bitmap, crashes or
// aborts inside hwloc_topology_load. The export is therefore read first with numaplace's own safe libxml2
// parser, which sees attribute names and values exactly as hwloc's libxml2 backend will (a
// look at the bytes would take "Hcomplete_cpuset" for "complete_cpuset"), and such objects
// are refused. The one DOCTYPE hwloc writes names its DTD by SYSTEM id and is never loaded;
// any other DOCTYPE is refused. Exports are UTF-8; anything else is refused by the parser.
Status check_export_shape(std::string text, const std::string& what) {
  if (const std::size_t doctype = text.find("<!DOCTYPE"); doctype != std::string::npos) {
    const std::size_t end = text.find('>', doctype);
    const std::string_view declared = std::string_view(text).substr(doctype, end == std::string::npos ? end : end + 1 - doctype);
    if (declared != "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">" && declared != "<!DOCTYPE topology SYSTEM \"hwloc.dtd\">") {
      return make_error("XmlForbiddenConstruct", what + " declares a DOCTYPE other than the one hwloc writes "
                                                        "(<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">); numaplace refuses it");
    }
    text.replace(doctype, declared.size(), declared.size(), ' ');
  }
  auto doc = xml::parse_document(text, what);
  if (!doc && doc.error().name == "XmlMalformed") doc = xml::parse_document(text, "the export");
  if (!doc && doc.error().name != "XmlMalformed") return doc.error();
  const xmlNode* root = doc ? xmlDocGetRootElement(doc->get()) : nullptr;
  if (!xml::is_named(root, "topology")) {
    const std::string why = doc ? "its root element is not <topology>" : doc.error().message;
    return load_failed(what, "it is not a well-formed hwloc XML export (" + why + "); write one with 'lstopo --of xml FILE'");
  }
  // hwloc starts from the root object it expects: one Machine (System in hwloc 1 exports).
  const auto roots = xml::child_elements(root, "object");
  const auto root_type = roots.size() == 1 ? xml::attribute(roots.front(), "type") : std::nullopt;
  if (root_type != "Machine" && root_type != "System") {
    return load_failed(what, "its <topology> does not hold exactly one root <object type=\"Machine\">, as every hwloc "
                             "export does (write one with 'lstopo --of xml FILE')");
  }
  std::vector<const xmlNode*> pending{root};
  // hwloc sizes a distance matrix as nbobjs x nbobjs in 32 bits: an nbobjs of 65537 wraps to a
  // small buffer that hwloc then reads far beyond. A matrix relates objects of the export, so it
  // has no more rows than the export has objects.
  std::size_t objects = 0;
  std::uint64_t widest_matrix = 0;
  while (!pending.empty()) {
    const xmlNode* node = pending.back();
    pending.pop_back();
    for (const xmlNode* child : xml::child_elements(node)) pending.push_back(child);
    if (xml::is_named(node, "distances2") || xml::is_named(node, "distances2hetero") || xml::is_named(node, "distances")) {
      const auto rows = xml::attribute(node, "nbobjs");
      const auto value = decimal_attribute(rows, 10);
      if (!value) {
        return load_failed(what, "a <" + std::string(reinterpret_cast<const char*>(node->name)) + "> has the nbobjs '" +
                                     rows.value_or("").substr(0, 32) + "'; hwloc writes the number of objects it relates");
      }
      widest_matrix = std::max(widest_matrix, *value);
      continue;
    }
    if (xml::is_named(node, "page_type")) {
      if (const auto problem = page_type_problem(node)) return load_failed(what, *problem);
      continue;
    }
    if (!xml::is_named(node, "object")) continue;
    ++objects;
    const auto type = xml::attribute(node, "type");
    const bool io_or_misc = type == "Bridge" || type == "PCIDev" || type == "OSDev" || type == "Misc";
    for (const char* set : {"cpuset", "complete_cpuset", "nodeset", "complete_nodeset"}) {
      if (!io_or_misc && !xml::attribute(node, set)) {
        return load_failed(what, "a " + type.value_or("typeless") + " object has no " + set +
                                     "; hwloc writes cpuset, complete_cpuset, nodeset and complete_nodeset for every "
                                     "object but I/O and Misc ones (write an export with 'lstopo --of xml FILE')");
      }
    }
    if (type == "PU" || type == "NUMANode") {
      // Without an os_index hwloc gives the object index 2^32 - 1 and sets that bit in a
      // bitmap: half a gigabyte and seconds of work for a few kilobytes of input.
      const auto index = xml::attribute(node, "os_index");
      const auto value = decimal_attribute(index, 5);
      const bool usable = value && *value <= kMaxCpuId;
      if (!usable) {
        return load_failed(what, "a " + *type + " object has " +
                                     (index ? "the os_index '" + index->substr(0, 32) + "'" : std::string("no os_index")) +
                                     "; hwloc writes one from 0 to " + std::to_string(kMaxCpuId) + " for every " + *type);
      }
    }
    for (const xmlAttr* attr = node->properties; attr != nullptr; attr = attr->next) {
      const std::string_view name = reinterpret_cast<const char*>(attr->name);
      if (!name.ends_with("set")) continue;
      const auto value = xml::attribute(node, name);
      if (value && !hwloc_bitmap_text(*value)) {
        return load_failed(what, "the " + std::string(name) + " '" + value->substr(0, 64) +
                                     "' is not an hwloc bitmap (comma-separated 0x words, as 'lstopo --of xml' writes)");
      }
    }
    // An object's set lies within its complete set (hwloc 2.9 crashes on a Machine whose cpuset
    // is infinite and whose complete_cpuset is not). The texts are bitmaps by now, which is what
    // hwloc_bitmap_sscanf needs.
    for (const auto& [set, complete] : {std::pair{"cpuset", "complete_cpuset"}, std::pair{"nodeset", "complete_nodeset"}}) {
      const auto part = xml::attribute(node, set);
      const auto whole = xml::attribute(node, complete);
      if (!part || !whole) continue;
      Bitmap part_bits(hwloc_bitmap_alloc());
      Bitmap whole_bits(hwloc_bitmap_alloc());
      if (!part_bits || !whole_bits) return make_error("OutOfMemory", "cannot allocate a bitmap to check " + what);
      if (hwloc_bitmap_sscanf(part_bits.get(), part->c_str()) != 0 ||
          hwloc_bitmap_sscanf(whole_bits.get(), whole->c_str()) != 0 ||
          !hwloc_bitmap_isincluded(part_bits.get(), whole_bits.get())) {
        return load_failed(what, "a " + type.value_or("typeless") + " object's " + set + " '" + part->substr(0, 64) +
                                     "' is not within its " + complete + " '" + whole->substr(0, 64) +
                                     "'; hwloc writes every set within its complete set");
      }
    }
  }
  if (widest_matrix > objects) {
    return load_failed(what, "a distance matrix relates " + std::to_string(widest_matrix) + " objects, but the export has " +
                                 std::to_string(objects) + "; the export is damaged: write one with 'lstopo --of xml FILE'");
  }
  return Done{};
}

// hwloc says only EINVAL about an export it cannot parse; say what that means.
std::string xml_reason(int error) {
  if (error != EINVAL) return errno_reason(error);
  return "it is not a well-formed hwloc XML export (hwloc: " + errno_reason(error) +
         "); write one with 'lstopo --of xml FILE'";
}

Result<HostTopology> load(Topology topology, const std::string& what, bool from_xml) {
  errno = 0;
  if (hwloc_topology_load(topology.get()) != 0) {
    const int error = errno;
    return load_failed(what, from_xml ? xml_reason(error) : errno_reason(error));
  }
  return to_host(topology.get(), what);
}

}  // namespace

Result<HostTopology> load_hwloc_live() {
  // With HWLOC_XMLFILE set, hwloc reads that export instead of the machine; it gets the same
  // checks as any export, or a crafted one would crash hwloc here.
  if (const char* file = std::getenv("HWLOC_XMLFILE"); file != nullptr && *file != '\0') return load_hwloc_xml(file);
  const std::string what = "the topology of this machine";
  auto topology = new_topology(what);
  if (!topology) return topology.error();
  return load(std::move(*topology), what, false);
}

Result<HostTopology> load_hwloc_xml(const std::string& path) {
  const std::string what = "hwloc XML '" + path + "'";
  // A file that cannot be read is CannotRead, as from every other surface (the CLI checks its
  // options' files first): nothing hwloc could load was there.
  auto text = xml::read_text_file(path, "hwloc XML");
  if (!text) return text.error();
  // hwloc parses the export itself; entities are never part of one.
  if (text->find("<!ENTITY") != std::string::npos) {
    return make_error("XmlForbiddenConstruct", what + " declares entities; hwloc exports never do, numaplace refuses it");
  }
  if (auto refused = check_export_shape(*text, what); !refused) return refused.error();
  if (auto bad = malformed_bitmap(*text)) {
    return load_failed(what, "the set attribute '" + *bad +
                                 "' is not an hwloc bitmap (comma-separated 0x words, as 'lstopo --of xml' writes)");
  }
  auto topology = new_topology(what);
  if (!topology) return topology.error();
  errno = 0;
  if (hwloc_topology_set_xmlbuffer(topology->get(), text->c_str(), static_cast<int>(text->size() + 1)) != 0) {
    return load_failed(what, xml_reason(errno));
  }
  return load(std::move(*topology), what, true);
}

}  // namespace numaplace::plugin
