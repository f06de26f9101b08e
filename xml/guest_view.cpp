// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/guest_view.h"

#include <memory>

#include "xml/placement_record.h"
#include "xml/xml_document.h"

namespace numaplace::xml {
namespace {

struct NodeFree {
  void operator()(xmlNode* node) const { xmlFreeNode(node); }
};
using NodeHandle = std::unique_ptr<xmlNode, NodeFree>;

void strip_distances(xmlNode* node) {
  for (xmlNode* child = node->children; child != nullptr;) {
    xmlNode* next = child->next;
    if (child->type == XML_ELEMENT_NODE && is_named(child, "distances")) {
      xmlUnlinkNode(child);
      xmlFreeNode(child);
    } else if (child->type == XML_ELEMENT_NODE) {
      strip_distances(child);
    }
    child = next;
  }
}

// <cpu> as the guest sees it, less the cells' distances.
std::string cpu_without_distances(const xmlNode* cpu) {
  if (cpu == nullptr) return {};
  NodeHandle copy(xmlCopyNode(const_cast<xmlNode*>(cpu), 1));
  strip_distances(copy.get());
  return serialize_node(copy.get());
}

xmlNode* numaplace_record(const xmlNode* root) {
  xmlNode* metadata = first_child(root, "metadata");
  if (metadata == nullptr) return nullptr;
  for (xmlNode* child = metadata->children; child != nullptr; child = child->next) {
    if (child->type == XML_ELEMENT_NODE && child->ns != nullptr &&
        std::string(reinterpret_cast<const char*>(child->ns->href)) == kNamespaceUri) {
      return child;
    }
  }
  return nullptr;
}

// Puts a copy of `from` (an element of the placed domain) where `existing` is, or after `after`
// (or at the end of `parent`) when there is none; removes `existing` when `from` is null.
void graft(xmlDoc* doc, xmlNode* parent, xmlNode* existing, const xmlNode* from, xmlNode* after) {
  if (from == nullptr) {
    if (existing != nullptr) {
      xmlUnlinkNode(existing);
      xmlFreeNode(existing);
    }
    return;
  }
  xmlNode* copy = xmlDocCopyNode(const_cast<xmlNode*>(from), doc, 1);
  if (existing != nullptr) {
    xmlReplaceNode(existing, copy);
    xmlFreeNode(existing);
  } else if (after != nullptr) {
    xmlAddNextSibling(after, copy);
  } else {
    xmlAddChild(parent, copy);
  }
}

void copy_attribute(xmlNode* to, const xmlNode* from, const char* name) {
  const auto value = attribute(from, name);
  const auto* key = reinterpret_cast<const xmlChar*>(name);
  if (value) {
    xmlSetProp(to, key, reinterpret_cast<const xmlChar*>(value->c_str()));
  } else {
    xmlUnsetProp(to, key);
  }
}

Error would_change(const std::string& what, const std::string& part) {
  return make_error("GuestViewWouldChange",
                    "placing " + what + " on this host would change " + part +
                        ", which libvirt refuses on migrate and restore (the guest must see the topology it had); "
                        "free room for it as it is, or stop it and place it afresh (numaplace start)");
}

}  // namespace

Result<GuestViewKept> keep_guest_view(const xmlDoc* original, const xmlDoc* placed, const std::string& what) {
  const xmlNode* old_root = xmlDocGetRootElement(original);
  const xmlNode* new_root = xmlDocGetRootElement(placed);
  if (old_root == nullptr || new_root == nullptr) return make_error("XmlMalformed", what + " has no root element");
  const xmlNode* old_vcpu = first_child(old_root, "vcpu");
  const xmlNode* new_vcpu = first_child(new_root, "vcpu");
  if (text_of(old_vcpu) != text_of(new_vcpu)) return would_change(what, "its vCPU count");
  for (const char* part : {"memory", "currentMemory", "maxMemory", "memoryBacking"}) {
    if (serialize_node(first_child(old_root, part)) != serialize_node(first_child(new_root, part))) {
      return would_change(what, std::string("its <") + part + ">");
    }
  }
  const xmlNode* old_cpu = first_child(old_root, "cpu");
  const xmlNode* new_cpu = first_child(new_root, "cpu");
  if (cpu_without_distances(old_cpu) != cpu_without_distances(new_cpu)) {
    return would_change(what, "its <cpu> (guest NUMA cells, their vCPUs and memory, or the CPU topology)");
  }

  std::unique_ptr<xmlDoc, decltype(&xmlFreeDoc)> doc(xmlCopyDoc(const_cast<xmlDoc*>(original), 1), &xmlFreeDoc);
  if (!doc) return make_error("OutOfMemory", "cannot copy " + what);
  xmlNode* root = xmlDocGetRootElement(doc.get());
  xmlNode* vcpu = first_child(root, "vcpu");
  if (vcpu != nullptr && new_vcpu != nullptr) {
    copy_attribute(vcpu, new_vcpu, "cpuset");
    copy_attribute(vcpu, new_vcpu, "placement");
  }
  graft(doc.get(), root, first_child(root, "cputune"), first_child(new_root, "cputune"), vcpu);
  graft(doc.get(), root, first_child(root, "numatune"), first_child(new_root, "numatune"),
        first_child(root, "cputune") != nullptr ? first_child(root, "cputune") : vcpu);
  if (const xmlNode* record = numaplace_record(new_root)) {
    xmlNode* metadata = first_child(root, "metadata");
    if (metadata == nullptr) {
      metadata = xmlNewDocNode(doc.get(), nullptr, reinterpret_cast<const xmlChar*>("metadata"), nullptr);
      xmlAddChild(root, metadata);
    }
    graft(doc.get(), metadata, numaplace_record(root), record, nullptr);
  }
  GuestViewKept kept;
  kept.distances_differ = serialize_node(old_cpu) != serialize_node(new_cpu);
  kept.domain_xml = serialize(doc.get());
  return kept;
}

}  // namespace numaplace::xml
