// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/xml_document.h"

#include <libxml/parser.h>
#include <libxml/xmlsave.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace numaplace::xml {
namespace {

struct ParserContextDeleter {
  void operator()(xmlParserCtxt* ctxt) const { xmlFreeParserCtxt(ctxt); }
};

struct BufferDeleter {
  void operator()(xmlBuffer* buffer) const { xmlBufferFree(buffer); }
};

// libxml2's message on one line: its further lines ("Bytes: 0xE9 ...") joined with "; ".
std::string trim_message(const char* message) {
  std::string text = message != nullptr ? message : "unknown parse error";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (std::size_t at; (at = text.find('\n')) != std::string::npos;) text.replace(at, 1, "; ");
  return text;
}

const char* as_chars(const xmlChar* text) { return reinterpret_cast<const char*>(text); }

}  // namespace

Result<Document> parse_document(std::string_view text, std::string_view what) {
  const std::string name(what);
  if (text.size() > kMaxXmlBytes) {
    return make_error("XmlTooLarge", name + " is " + std::to_string(text.size()) + " bytes; the limit is " +
                                         std::to_string(kMaxXmlBytes) + " bytes");
  }
  if (text.find("<!DOCTYPE") != std::string_view::npos || text.find("<!ENTITY") != std::string_view::npos) {
    return make_error("XmlForbiddenConstruct", name + " declares a DOCTYPE or entities; libvirt's and hwloc's XML need neither, "
                                                      "and numaplace refuses them so that no entity is ever expanded");
  }
  // The DOCTYPE check above reads bytes, so the document must be read as UTF-8 whatever it
  // declares: a UTF-16 (or UTF-7, ...) document would hide its DOCTYPE from that check.
  if (text.find('\0') != std::string_view::npos) {
    return make_error("XmlUnsupportedEncoding", name + " contains NUL bytes (UTF-16 or UTF-32?); libvirt's and hwloc's XML "
                                                       "is UTF-8, and numaplace reads nothing else");
  }
  std::unique_ptr<xmlParserCtxt, ParserContextDeleter> ctxt(xmlNewParserCtxt());
  if (!ctxt) return make_error("OutOfMemory", "cannot allocate an XML parser for " + name);
  // No XML_PARSE_HUGE: libxml2 keeps its limits (nesting depth 256, text node and name sizes).
  const int options = XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                      XML_PARSE_NOCDATA | XML_PARSE_IGNORE_ENC;
  Document doc(xmlCtxtReadMemory(ctxt.get(), text.data(), static_cast<int>(text.size()), nullptr, "UTF-8", options));
  if (!doc || !ctxt->wellFormed) {
    const xmlError* error = xmlCtxtGetLastError(ctxt.get());
    if (error != nullptr && error->message != nullptr && std::string_view(error->message).starts_with("Excessive depth")) {
      return make_error("XmlTooDeep", name + " nests elements deeper than libxml2's limit of 256 at line " +
                                          std::to_string(error->line) + "; libvirt's and hwloc's XML never nest that deep");
    }
    std::string where = error != nullptr ? " at line " + std::to_string(error->line) : "";
    // libxml2 2.9 names it XML_ERR_INVALID_CHAR with this text, later ones XML_ERR_INVALID_ENCODING.
    if (error != nullptr && (error->code == XML_ERR_INVALID_ENCODING ||
                             (error->message != nullptr && std::string_view(error->message).find("not proper UTF-8") !=
                                                               std::string_view::npos))) {
      return make_error("XmlUnsupportedEncoding", name + " is not UTF-8" + where + " (" + trim_message(error->message) +
                                                      "); libvirt's and hwloc's XML is UTF-8, and numaplace reads "
                                                      "nothing else "
                                                      "whatever the document declares: convert it (iconv -t UTF-8)");
    }
    return make_error("XmlMalformed", name + " is not well-formed XML" + where + ": " +
                                          trim_message(error != nullptr ? error->message : nullptr));
  }
  if (doc->intSubset != nullptr || doc->extSubset != nullptr) {
    return make_error("XmlForbiddenConstruct", name + " declares a DOCTYPE; numaplace refuses it");
  }
  if (xmlDocGetRootElement(doc.get()) == nullptr) {
    return make_error("XmlMalformed", name + " has no root element");
  }
  // XInclude is never processed (no XML_PARSE_XINCLUDE), but an <xi:include> kept in the output
  // would be processed by whoever reads it next, or refused by libvirt: refused here instead.
  for (const xmlNode* node = xmlDocGetRootElement(doc.get()); node != nullptr;) {
    if (node->type == XML_ELEMENT_NODE && node->ns != nullptr && node->ns->href != nullptr) {
      const std::string_view href(reinterpret_cast<const char*>(node->ns->href));
      if (href == "http://www.w3.org/2001/XInclude" || href == "http://www.w3.org/2003/XInclude") {
        return make_error("XmlForbiddenConstruct", name + " holds an XInclude element (<" +
                                                       std::string(reinterpret_cast<const char*>(node->name)) +
                                                       ">); numaplace refuses XInclude: give the included text inline");
      }
    }
    // Depth first, without recursion: a deeply nested document must not exhaust the stack.
    if (node->children != nullptr && node->type == XML_ELEMENT_NODE) {
      node = node->children;
      continue;
    }
    while (node != nullptr && node->next == nullptr) node = node->parent;
    if (node != nullptr) node = node->next;
    if (node != nullptr && node->type == XML_DOCUMENT_NODE) break;
  }
  return doc;
}

std::string serialize(const xmlDoc* doc) {
  std::unique_ptr<xmlBuffer, BufferDeleter> buffer(xmlBufferCreate());
  xmlSaveCtxt* save = xmlSaveToBuffer(buffer.get(), "UTF-8", XML_SAVE_FORMAT | XML_SAVE_NO_DECL);
  xmlSaveDoc(save, const_cast<xmlDoc*>(doc));
  xmlSaveClose(save);
  return std::string(as_chars(xmlBufferContent(buffer.get())), static_cast<std::size_t>(xmlBufferLength(buffer.get())));
}

std::string serialize_node(const xmlNode* node) {
  if (node == nullptr) return {};
  std::unique_ptr<xmlBuffer, BufferDeleter> buffer(xmlBufferCreate());
  if (!buffer || xmlNodeDump(buffer.get(), node->doc, const_cast<xmlNode*>(node), 0, 0) < 0) return {};
  return std::string(as_chars(xmlBufferContent(buffer.get())), static_cast<std::size_t>(xmlBufferLength(buffer.get())));
}

bool is_named(const xmlNode* node, std::string_view name) {
  return node != nullptr && node->type == XML_ELEMENT_NODE && name == as_chars(node->name);
}

std::vector<xmlNode*> child_elements(const xmlNode* parent, std::string_view name) {
  std::vector<xmlNode*> out;
  if (parent == nullptr) return out;
  for (xmlNode* child = parent->children; child != nullptr; child = child->next) {
    if (child->type != XML_ELEMENT_NODE) continue;
    if (name.empty() || name == as_chars(child->name)) out.push_back(child);
  }
  return out;
}

xmlNode* first_child(const xmlNode* parent, std::string_view name) {
  if (parent == nullptr) return nullptr;
  for (xmlNode* child = parent->children; child != nullptr; child = child->next) {
    if (is_named(child, name)) return child;
  }
  return nullptr;
}

xmlNode* ensure_child(xmlNode* root, const char* name, std::initializer_list<const char*> after) {
  if (xmlNode* existing = first_child(root, name)) return existing;
  xmlNode* node = xmlNewDocNode(root->doc, nullptr, reinterpret_cast<const xmlChar*>(name), nullptr);
  xmlNode* anchor = nullptr;
  for (const char* candidate : after) {
    if (xmlNode* found = first_child(root, candidate)) anchor = found;
  }
  if (anchor != nullptr) {
    xmlAddNextSibling(anchor, node);
  } else {
    xmlAddChild(root, node);
  }
  return node;
}

Attributes attributes_of(const xmlNode* node) {
  Attributes out;
  for (const xmlAttr* a = node != nullptr ? node->properties : nullptr; a != nullptr; a = a->next) {
    xmlChar* value = xmlNodeGetContent(reinterpret_cast<const xmlNode*>(a));
    out.emplace_back(reinterpret_cast<const char*>(a->name), value != nullptr ? reinterpret_cast<const char*>(value) : "");
    xmlFree(value);
  }
  return out;
}

std::optional<std::string> attribute(const xmlNode* node, std::string_view name) {
  if (node == nullptr) return std::nullopt;
  const std::string key(name);
  xmlChar* value = xmlGetNoNsProp(node, reinterpret_cast<const xmlChar*>(key.c_str()));
  if (value == nullptr) return std::nullopt;
  std::string out(as_chars(value));
  xmlFree(value);
  return out;
}

std::string text_of(const xmlNode* node) {
  if (node == nullptr) return {};
  xmlChar* value = xmlNodeGetContent(node);
  if (value == nullptr) return {};
  std::string out(as_chars(value));
  xmlFree(value);
  return out;
}

Result<std::string> read_text_file(const std::string& path, std::string_view what) {
  const std::string named = std::string(what) + " '" + path + "'";
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::is_directory(status)) {
    return make_error("CannotRead", "cannot read " + named + ": it is a directory; give a file");
  }
  const auto too_large = [&](const std::string& size) {
    return make_error("XmlTooLarge", named + " is " + size + " bytes; the limit is " + std::to_string(kMaxXmlBytes) +
                                         " bytes");
  };
  if (!ec && std::filesystem::is_regular_file(status)) {
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxXmlBytes) return too_large(std::to_string(size));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("CannotRead", "cannot open " + named + ": " + std::strerror(errno));
  // Read to the end rather than trusting a size: pipes, devices and /proc files report none.
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxXmlBytes) return too_large("more than " + std::to_string(kMaxXmlBytes));
  }
  if (in.bad()) return make_error("CannotRead", "cannot read " + named);
  return text;
}

}  // namespace numaplace::xml
