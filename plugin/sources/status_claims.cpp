// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/sources/status_claims.h"

#include <libxml/tree.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "xml/xml_document.h"

namespace numaplace::plugin {

Result<DomainXml> domain_from_status(std::string_view text, const std::string& what) {
  auto doc = xml::parse_document(text, what);
  if (!doc) return doc.error();
  xmlNode* root = xmlDocGetRootElement(doc->get());
  xmlNode* domain = xml::is_named(root, "domain") ? root : xml::first_child(root, "domain");
  if (!xml::is_named(root, "domstatus") && !xml::is_named(root, "domain")) {
    return make_error("NotDomainStatus", what + " is neither a libvirt <domstatus> nor a <domain> document");
  }
  if (domain == nullptr) return make_error("NotDomainStatus", what + " holds no <domain>");
  DomainXml out;
  out.running = true;
  if (xmlNode* name = xml::first_child(domain, "name")) out.name = xml::text_of(name);
  if (xmlNode* uuid = xml::first_child(domain, "uuid")) out.uuid = xml::text_of(uuid);
  out.xml = xml::serialize_node(domain);
  if (out.xml.empty()) return make_error("NotDomainStatus", what + ": its <domain> could not be written out");
  return out;
}

StatusScan read_status_dir(const std::string& dir) {
  StatusScan scan;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return scan;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".xml") continue;
    std::error_code kind;
    if (entry.is_regular_file(kind)) {
      files.push_back(entry.path());
    } else if (kind && kind != std::errc::no_such_file_or_directory) {
      // A link to nothing is no guest's status (libvirt writes regular files); one that cannot be
      // followed (no permission, a loop) may be a running guest's: unread, not skipped.
      scan.warnings.push_back("status file '" + entry.path().string() + "' cannot be read: " + kind.message());
      scan.unread_guests.push_back(entry.path().stem().string());
    }
  }
  if (ec) {
    scan.warnings.push_back("cannot list '" + dir + "': " + ec.message());
    scan.unread_guests.emplace_back();
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    const std::string what = "status file '" + path.string() + "'";
    const auto unread = [&](const Error& why) {
      scan.warnings.push_back(why.message);
      scan.unread_guests.push_back(path.stem().string());
    };
    auto text = xml::read_text_file(path.string(), "status file");
    if (!text) {
      // libvirt removes a stopped guest's status file: one gone since the listing is not running.
      if (std::error_code gone; !std::filesystem::exists(path, gone) && !gone) continue;
      unread(text.error());
      continue;
    }
    auto domain = domain_from_status(*text, what);
    if (!domain) {
      unread(domain.error());
      continue;
    }
    scan.domains.push_back(std::move(*domain));
  }
  return scan;
}

std::vector<std::string> status_warnings_except(const StatusScan& scan, const std::string& name) {
  std::vector<std::string> warnings;
  for (std::size_t i = 0; i < scan.warnings.size(); ++i) {
    if (!name.empty() && i < scan.unread_guests.size() && scan.unread_guests[i] == name) continue;
    warnings.push_back(scan.warnings[i]);
  }
  return warnings;
}

}  // namespace numaplace::plugin
