// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/tuning_writer.h"

#include <algorithm>
#include <string>

#include "xml/xml_document.h"

namespace numaplace::xml {
namespace {

const xmlChar* X(const char* text) { return reinterpret_cast<const xmlChar*>(text); }

void set_attr(xmlNode* node, const std::string& name, const std::string& value) {
  xmlSetProp(node, X(name.c_str()), X(value.c_str()));
}

void remove_node(xmlNode* node) {
  xmlUnlinkNode(node);
  xmlFreeNode(node);
}

void set_attributes(xmlNode* node, const Attributes& attributes) {
  while (node->properties != nullptr) xmlRemoveProp(node->properties);
  for (const auto& [name, value] : attributes) set_attr(node, name, value);
}

std::optional<std::string> value_of(const Attributes& attributes, const std::string& name) {
  for (const auto& [key, value] : attributes) {
    if (key == name) return value;
  }
  return std::nullopt;
}

// The vCPUs a <vcpusched> names; nullopt when it names none readable (left to libvirt to judge).
std::optional<CpuSet> vcpus_of(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  auto listed = parse_cpu_list(*text, "<vcpusched vcpus>");
  if (!listed) return std::nullopt;
  return *listed;
}

// The attributes other than vcpus, which narrowing leaves as they were.
Attributes without_vcpus(const Attributes& attributes) {
  Attributes out;
  for (const auto& item : attributes) {
    if (item.first != "vcpus") out.push_back(item);
  }
  return out;
}

// An element left with neither attributes nor children means nothing: it goes.
void drop_if_empty(xmlNode* node) {
  if (node != nullptr && node->properties == nullptr && child_elements(node).empty()) remove_node(node);
}

const char* const kTopologyAttributes[] = {"sockets", "dies", "clusters", "cores", "threads"};

}  // namespace

WrittenTuning write_tuning(xmlDoc* doc, const GuestTuning& tuning) {
  WrittenTuning written;
  xmlNode* root = xmlDocGetRootElement(doc);
  if (!tuning.realtime_vcpus.empty()) {
    xmlNode* cputune = ensure_child(root, "cputune", {"vcpu", "vcpus", "iothreads", "iothreadids"});
    for (xmlNode* sched : child_elements(cputune, "vcpusched")) {
      const auto listed = vcpus_of(attribute(sched, "vcpus"));
      if (!listed || !listed->intersects(tuning.realtime_vcpus)) continue;  // another vCPU's: stays
      written.operator_vcpusched.push_back(attributes_of(sched));
      const CpuSet kept = listed->minus(tuning.realtime_vcpus);
      if (kept.empty()) {
        remove_node(sched);
      } else {
        set_attr(sched, "vcpus", to_cpu_list(kept));
      }
    }
    // Recorded by their first vCPU, whatever order the domain lists them in.
    std::sort(written.operator_vcpusched.begin(), written.operator_vcpusched.end(),
              [](const Attributes& a, const Attributes& b) {
                const auto first = [](const Attributes& e) {
                  const auto vcpus = vcpus_of(value_of(e, "vcpus"));  // each recorded one names a vCPU
                  return vcpus && !vcpus->empty() ? vcpus->first() : kMaxCpuId;
                };
                return first(a) < first(b);
              });
    xmlNode* sched = xmlNewChild(cputune, nullptr, X("vcpusched"), nullptr);
    set_attr(sched, "vcpus", to_cpu_list(tuning.realtime_vcpus));
    set_attr(sched, "scheduler", "fifo");
    set_attr(sched, "priority", std::to_string(kRealtimePriority));
    written.vcpusched = tuning.realtime_vcpus;
  }
  if (tuning.locked_memory || tuning.no_shared_pages) {
    xmlNode* backing = ensure_child(root, "memoryBacking", {"memory", "currentMemory", "maxMemory"});
    if (tuning.no_shared_pages && first_child(backing, "nosharepages") == nullptr) {
      xmlNewChild(backing, nullptr, X("nosharepages"), nullptr);
      written.nosharepages = true;
    }
    if (tuning.locked_memory && first_child(backing, "locked") == nullptr) {
      xmlNewChild(backing, nullptr, X("locked"), nullptr);
      written.locked = true;
    }
  }
  if (tuning.cpu_topology) {
    xmlNode* cpu = ensure_child(root, "cpu", {"features", "os", "vcpu", "cputune", "numatune"});
    xmlNode* topology = first_child(cpu, "topology");
    if (topology == nullptr) {
      topology = xmlNewDocNode(doc, nullptr, X("topology"), nullptr);
      if (cpu->children != nullptr) xmlAddPrevSibling(cpu->children, topology); else xmlAddChild(cpu, topology);
    } else {
      written.operator_topology = attributes_of(topology);
    }
    // Written afresh, in libvirt's order, whatever order the domain had them in.
    for (const char* name : kTopologyAttributes) xmlUnsetProp(topology, X(name));
    set_attr(topology, "sockets", std::to_string(tuning.cpu_topology->sockets));
    set_attr(topology, "dies", "1");
    set_attr(topology, "cores", std::to_string(tuning.cpu_topology->cores));
    set_attr(topology, "threads", std::to_string(tuning.cpu_topology->threads));
    written.topology = attributes_of(topology);
  }
  return written;
}

void undo_tuning(xmlDoc* doc, const WrittenTuning& written) {
  xmlNode* root = xmlDocGetRootElement(doc);
  if (xmlNode* cputune = first_child(root, "cputune")) {
    const CpuSet realtime = written.vcpusched.value_or(CpuSet{});
    if (written.vcpusched) {
      for (xmlNode* sched : child_elements(cputune, "vcpusched")) {
        if (vcpus_of(attribute(sched, "vcpus")) == *written.vcpusched &&
            attribute(sched, "scheduler") == "fifo" &&
            attribute(sched, "priority") == std::to_string(kRealtimePriority)) {
          remove_node(sched);
          break;
        }
      }
    }
    for (const Attributes& original : written.operator_vcpusched) {
      const auto vcpus = vcpus_of(value_of(original, "vcpus"));
      if (!vcpus) continue;
      const CpuSet narrowed = vcpus->minus(realtime);
      xmlNode* restored = nullptr;
      for (xmlNode* sched : child_elements(cputune, "vcpusched")) {
        if (!narrowed.empty() && vcpus_of(attribute(sched, "vcpus")) == narrowed &&
            without_vcpus(attributes_of(sched)) == without_vcpus(original)) {
          set_attributes(sched, original);
          restored = sched;
          break;
        }
      }
      if (restored != nullptr) continue;
      // Gone (or changed by the operator since): back only where no <vcpusched> names its vCPUs now.
      bool taken = false;
      for (xmlNode* sched : child_elements(cputune, "vcpusched")) {
        const auto now = vcpus_of(attribute(sched, "vcpus"));
        taken = taken || !now || now->intersects(*vcpus);
      }
      if (!taken) set_attributes(xmlNewChild(cputune, nullptr, X("vcpusched"), nullptr), original);
    }
    if (written.vcpusched || !written.operator_vcpusched.empty()) drop_if_empty(cputune);
  }
  if (xmlNode* backing = first_child(root, "memoryBacking")) {
    if (written.locked) {
      if (xmlNode* locked = first_child(backing, "locked")) remove_node(locked);
    }
    if (written.nosharepages) {
      if (xmlNode* nosharepages = first_child(backing, "nosharepages")) remove_node(nosharepages);
    }
    if (written.locked || written.nosharepages) drop_if_empty(backing);
  }
  if (written.topology) {
    xmlNode* cpu = first_child(root, "cpu");
    xmlNode* topology = first_child(cpu, "topology");
    if (topology != nullptr && attributes_of(topology) == *written.topology) {
      if (written.operator_topology) {
        set_attributes(topology, *written.operator_topology);
      } else {
        remove_node(topology);
        drop_if_empty(cpu);
      }
    }
  }
}

}  // namespace numaplace::xml
