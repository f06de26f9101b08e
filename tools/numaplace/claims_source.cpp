// SPDX-License-Identifier: LGPL-2.1-or-later
#include "numaplace/claims_source.h"

#include "placement/model/utf8_text.h"
#include "plugin/sources/libvirt_connection.h"
#include "plugin/sources/libvirt_domains.h"
#include "plugin/sources/status_claims.h"
#include "xml/xml_document.h"

namespace numaplace::cli {

Result<plugin::HostClaims> load_claims(const ClaimSourceOptions& options, const HostTopology& host) {
  std::vector<plugin::DomainXml> domains;
  if (!options.connect_uri.empty()) {
    auto conn = plugin::LibvirtConnection::open_read_only(options.connect_uri);
    if (!conn) return conn.error();
    auto listed = plugin::list_domains(*conn, options.include_defined);
    if (!listed) return listed.error();
    domains = std::move(*listed);
  }
  std::vector<std::string> status_warnings;
  if (!options.status_dir.empty()) {
    plugin::StatusScan scan = plugin::read_status_dir(options.status_dir);
    for (auto& domain : scan.domains) domains.push_back(std::move(domain));
    status_warnings = plugin::status_warnings_except(scan, options.exclude_name);
  }
  plugin::HostClaims claims = plugin::read_host_claims(domains, host, options.exclude_name, options.exclude_uuid,
                                                       xml::BeyondHost::CountWithin);
  for (auto& warning : status_warnings) {
    claims.running_unread.push_back(warning);
    claims.warnings.push_back(std::move(warning));
  }
  if (options.refuse_unknown_running) {
    if (auto known = plugin::running_guests_known(claims, "`numaplace topology` shows what is read");
        !known) {
      return known.error();
    }
  }
  // Files the user named must read; a broken one is an error, not a warning. A guest counted
  // already (the host's own, or another file's) would be counted twice: its pCPUs held twice,
  // its pages taken twice, and audit finding it in conflict with itself.
  std::vector<std::string> origins(claims.claims.size(), "the host's guests");
  for (const auto& path : options.claim_files) {
    auto text = xml::read_text_file(path, "claim domain XML");
    if (!text) return text.error();
    plugin::HostClaims from_file = plugin::read_host_claims({{path, {}, true, std::move(*text)}}, host,
                                                            options.exclude_name, options.exclude_uuid);
    if (!from_file.warnings.empty()) {
      return make_error("InvalidClaim", "--claim " + path + ": " + from_file.warnings.front());
    }
    for (auto& claim : from_file.claims) {
      if (const auto i = counted_already(claim, claims.claims)) {
        return make_error("InvalidClaim", "--claim " + path + ": " + same_guest_text(claim, claims.claims[*i]) +
                                              " is counted already (" + origins[*i] + "); give each guest once");
      }
      claims.claims.push_back(std::move(claim));
      origins.push_back("--claim " + path);
    }
  }
  if (options.include_defined) {
    // Defined guests hold a reservation only when numaplace placed them.
    std::erase_if(claims.claims, [](const GuestClaim& c) { return !c.running && !c.placed_by_numaplace; });
  }
  return claims;
}

}  // namespace numaplace::cli
