/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A test's own walk over libxml2 documents, apart from numaplace's readers: property tests read
// what numaplace wrote with this, so that a reader's mistake cannot hide in the check.
#pragma once

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace numaplace::testing {

struct XmlDocFree {
  void operator()(xmlDoc* doc) const { xmlFreeDoc(doc); }
};
using XmlDoc = std::unique_ptr<xmlDoc, XmlDocFree>;

// The document of `text` (blank text nodes dropped), or null when libxml2 refuses it.
inline XmlDoc parse_xml(const std::string& text) {
  return XmlDoc(xmlReadMemory(text.data(), static_cast<int>(text.size()), "domain.xml", nullptr,
                              XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOERROR | XML_PARSE_NOWARNING));
}

inline std::string name_of(const xmlNode* node) { return reinterpret_cast<const char*>(node->name); }

inline std::optional<std::string> attr(const xmlNode* node, const char* name) {
  xmlChar* value = xmlGetProp(node, reinterpret_cast<const xmlChar*>(name));
  if (value == nullptr) return std::nullopt;
  std::string out = reinterpret_cast<const char*>(value);
  xmlFree(value);
  return out;
}

// The element children of `parent` named `name` (none when parent is null).
inline std::vector<xmlNode*> children(const xmlNode* parent, const std::string& name) {
  std::vector<xmlNode*> out;
  if (parent == nullptr) return out;
  for (xmlNode* child = parent->children; child != nullptr; child = child->next) {
    if (child->type == XML_ELEMENT_NODE && name_of(child) == name) out.push_back(child);
  }
  return out;
}

inline xmlNode* child(const xmlNode* parent, const std::string& name) {
  auto all = children(parent, name);
  return all.empty() ? nullptr : all.front();
}

// The first element down the path of names from `from` (null where one is missing).
inline xmlNode* path(xmlNode* from, std::initializer_list<const char*> names) {
  for (const char* name : names) from = child(from, name);
  return from;
}

}  // namespace numaplace::testing
