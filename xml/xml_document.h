/* SPDX-License-Identifier: LGPL-2.1-or-later */
// RAII ownership of a libxml2 document and the one safe way to parse one:
// no network, no entity substitution, no DTD loading, and any document with a
// DOCTYPE refused outright (no XXE, no billion laughs). The text is read as UTF-8
// whatever it declares, so the DOCTYPE check cannot be dodged by another encoding
// (NUL bytes: "XmlUnsupportedEncoding"); nesting deeper than libxml2's limit of 256
// is "XmlTooDeep"; inputs above kMaxXmlBytes are "XmlTooLarge" before parsing.
// Small helpers walk elements and read attributes without leaking libxml2's
// xmlChar* to callers.
#pragma once

#include <libxml/tree.h>

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "placement/model/error.h"

namespace numaplace::xml {

inline constexpr std::size_t kMaxXmlBytes = 32 * 1024 * 1024;

struct DocumentDeleter {
  void operator()(xmlDoc* doc) const { xmlFreeDoc(doc); }
};
using Document = std::unique_ptr<xmlDoc, DocumentDeleter>;

// `what` names the input in error messages ("domain XML 'vm.xml'").
Result<Document> parse_document(std::string_view text, std::string_view what);

// Serialises with two-space indentation and no XML declaration.
std::string serialize(const xmlDoc* doc);
// One element and what it holds, as written (no reindenting); empty for null or on failure.
std::string serialize_node(const xmlNode* node);

std::vector<xmlNode*> child_elements(const xmlNode* parent, std::string_view name = {});
xmlNode* first_child(const xmlNode* parent, std::string_view name);
std::optional<std::string> attribute(const xmlNode* node, std::string_view name);
std::string text_of(const xmlNode* node);
// An element's attributes in document order (name, value).
using Attributes = std::vector<std::pair<std::string, std::string>>;
Attributes attributes_of(const xmlNode* node);
bool is_named(const xmlNode* node, std::string_view name);
// Finds <name> under root, or creates it right after the last existing sibling named in `after`
// (appended when none exists).
xmlNode* ensure_child(xmlNode* root, const char* name, std::initializer_list<const char*> after);

// Reads a whole file, refusing anything above kMaxXmlBytes.
Result<std::string> read_text_file(const std::string& path, std::string_view what);

}  // namespace numaplace::xml
