// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/service/domain_lifecycle.h"

#include "placement/model/ascii_case.h"

#include "plugin/sources/libvirt_api.h"

#include <cstdlib>
#include <memory>
#include <optional>

#include "placement/lifecycle/claims.h"
#include "placement/request/guest_topology.h"
#include "plugin/service/guest_narrowing.h"
#include "plugin/sources/host_config_file.h"
#include "plugin/sources/host_claims.h"
#include "plugin/service/host_lock.h"
#include "plugin/sources/libvirt_connection.h"
#include "plugin/sources/libvirt_domains.h"
#include "plugin/service/place_domain.h"
#include "xml/capabilities_reader.h"
#include "xml/domain_reader.h"
#include "xml/placement_record.h"
#include "xml/xml_document.h"

namespace numaplace::plugin {
namespace {

struct DomainFree {
  void operator()(virDomain* domain) const { loaded_libvirt().virDomainFree(domain); }
};
using DomainHandle = std::unique_ptr<virDomain, DomainFree>;

struct Session {
  std::optional<HostLock> lock;  // none in a dry run, which writes nothing
  LibvirtConnection conn;
  HostTopology host;
  std::vector<DomainXml> domains;
};

// `purpose` ("start vm") is what the lock file says while it is held (host_lock.h).
Result<Session> open_session(const LifecycleOptions& options, bool include_inactive, const std::string& purpose) {
  std::optional<HostLock> lock;
  if (!options.dry_run) {
    auto timeout = default_lock_timeout_seconds();
    if (!timeout) return timeout.error();
    auto taken = HostLock::acquire(options.lock_path.empty() ? default_lock_path() : options.lock_path, *timeout, purpose);
    if (!taken) return taken.error();
    lock.emplace(std::move(*taken));
  }
  auto conn = options.dry_run ? LibvirtConnection::open_read_only(options.uri)
                              : LibvirtConnection::open_read_write(options.uri);
  if (!conn) return conn.error();
  auto caps = conn->capabilities_xml();
  if (!caps) return caps.error();
  auto host = xml::read_capabilities(*caps, "capabilities of '" + options.uri + "'");
  if (!host) return host.error();
  auto config = load_host_config(options.host_config, is_local_uri(options.uri));
  if (!config) return config.error();
  if (*config) {
    if (auto applied = apply_host_config(*host, **config); !applied) return applied.error();
  }
  auto domains = list_domains(*conn, include_inactive);
  if (!domains) return domains.error();
  return Session{std::move(*lock), std::move(*conn), std::move(*host), std::move(*domains)};
}

// Folds into the host the claims that count against a new placement: running guests, and (define)
// defined guests numaplace placed. Every other guest, running or defined, is kept in `others`: a
// new dedicated guest's pCPUs are taken from all of them (narrowing.h). Returns the warnings, or
// RunningGuestsUnknown when a running guest cannot be read (what it holds could be given twice); a
// defined guest that cannot be read is a warning, as its own start places it again.
Result<std::vector<std::string>> fold_claims(Session& session, const std::string& name, const std::string& uuid,
                                             bool count_defined_records, std::vector<GuestClaim>& others) {
  HostClaims claims = read_host_claims(session.domains, session.host, name, uuid, xml::BeyondHost::CountWithin);
  if (auto known = running_guests_known(claims, "");
      !known) {
    return known.error();
  }
  std::vector<GuestClaim> counted;
  for (auto& claim : claims.claims) {
    if (claim.running || (count_defined_records && claim.placed_by_numaplace)) counted.push_back(claim);
  }
  apply_claims(session.host, counted);
  others = std::move(claims.claims);
  for (auto& warning : claims.warnings) warning = "claims not counted: " + warning;
  for (auto& note : claims.notes) claims.warnings.push_back(std::move(note));
  return claims.warnings;
}

CpuSet host_cpus_of(const HostTopology& host) {
  CpuSet cpus;
  for (const auto& cell : host.cells) cpus = cpus.united(cell.cpus);
  return cpus;
}

// Moves the other guests' threads off the new guest's pCPUs before it is defined or started.
Status narrow_others(const Session& session, const PlaceOutcome& placed) {
  if (placed.narrowings.empty()) return Done{};
  return apply_narrowing(session.conn, placed.narrowings, placed.held, host_cpus_of(session.host));
}

Status define_xml(const LibvirtConnection& conn, const std::string& xml, const std::string& name) {
  DomainHandle defined(loaded_libvirt().virDomainDefineXMLFlags(conn.handle(), xml.c_str(), VIR_DOMAIN_DEFINE_VALIDATE));
  if (!defined) {
    return make_error("DefineFailed", "libvirt refused to define '" + name + "': " + last_libvirt_message());
  }
  return Done{};
}

// What a lifecycle call reports of a placement: the cells, the confinement, and how the
// recorded placement was used.
void take_placement(LifecycleOutcome& outcome, PlaceOutcome&& placed) {
  outcome.placement = std::move(placed.placement);
  outcome.confinement = std::move(placed.confinement);
  outcome.replacement = std::move(placed.replacement);
  outcome.narrowings = std::move(placed.narrowings);
  for (auto& warning : placed.warnings) outcome.warnings.push_back(std::move(warning));
}

}  // namespace

Result<LifecycleOutcome> define_domain(const std::string& domain_xml, const std::string& what,
                                       const LifecycleOptions& options) {
  auto doc = xml::parse_document(domain_xml, what);
  if (!doc) return doc.error();
  auto summary = xml::read_domain_summary(doc->get(), what);
  if (!summary) return summary.error();
  const std::string& uuid = summary->uuid;

  auto session = open_session(options, true, "define " + summary->name);
  if (!session) return session.error();
  LifecycleOutcome outcome;
  outcome.name = summary->name;
  std::vector<GuestClaim> others;
  auto folded = fold_claims(*session, summary->name, uuid, true, others);
  if (!folded) return folded.error();
  outcome.warnings = std::move(*folded);

  // What libvirt's define refuses, refused the same way with or without --dry-run: a uuid another
  // domain has under another name, or this name under another uuid.
  if (!uuid.empty()) {
    for (const auto& existing : session->domains) {
      if (existing.uuid.empty() || !equal_without_case(existing.uuid, uuid) || existing.name == summary->name) continue;
      return make_error("DefineFailed", "libvirt would refuse to define '" + summary->name + "': domain '" + existing.name +
                                            "' already has uuid " + existing.uuid +
                                            "; give this guest a uuid of its own (or none, for libvirt to choose)");
    }
    for (const auto& existing : session->domains) {
      if (existing.name != summary->name || existing.uuid.empty() || equal_without_case(existing.uuid, uuid)) continue;
      return make_error("DefineFailed", "libvirt would refuse to define '" + summary->name + "': a domain of that name "
                                            "already exists with uuid " + existing.uuid +
                                            "; give that uuid (or none), or another name");
    }
  }
  // Redefining a guest by name: libvirt wants the existing uuid, which a hand-written XML often lacks.
  std::string text = domain_xml;
  if (uuid.empty()) {
    for (const auto& existing : session->domains) {
      if (existing.name != summary->name || existing.uuid.empty()) continue;
      xmlNode* root = xmlDocGetRootElement(doc->get());
      xmlNode* uuid_node = xmlNewDocNode(doc->get(), nullptr, reinterpret_cast<const xmlChar*>("uuid"),
                                         reinterpret_cast<const xmlChar*>(existing.uuid.c_str()));
      xmlAddNextSibling(xml::first_child(root, "name"), uuid_node);
      text = xml::serialize(doc->get());
    }
  }
  PlaceRequest request{text, what, options.flavor_specs, options.image_props, options.fit, options.floating, {}};
  request.other_guests = &others;
  request.explanation = options.explanation;
  auto placed = place_domain(session->host, request);
  if (!placed) return placed.error();
  outcome.dry_run = options.dry_run;
  outcome.domain_xml = placed->domain_xml;
  if (!options.dry_run) {
    if (auto narrowed = narrow_others(*session, *placed); !narrowed) return narrowed.error();
    if (auto defined = define_xml(session->conn, placed->domain_xml, summary->name); !defined) return defined.error();
  }
  take_placement(outcome, std::move(*placed));
  return outcome;
}

Result<LifecycleOutcome> start_domain(const std::string& name, const LifecycleOptions& options) {
  // libvirt runs the guest's hook while start holds the lock (restore begin, for a guest with a
  // managed save image): the note lets that hook see the lock is held for this very guest.
  auto session = open_session(options, true, start_lock_purpose(name));
  if (!session) return session.error();
  DomainHandle domain(loaded_libvirt().virDomainLookupByName(session->conn.handle(), name.c_str()));
  if (!domain) {
    return make_error("NoSuchDomain", "libvirt at '" + options.uri + "' has no domain named '" + name +
                                          "'; define it first (numaplace define FILE)");
  }
  if (loaded_libvirt().virDomainIsActive(domain.get()) == 1) {
    return make_error("AlreadyRunning", "domain '" + name + "' is already running");
  }
  char* raw = loaded_libvirt().virDomainGetXMLDesc(domain.get(), VIR_DOMAIN_XML_INACTIVE);
  if (raw == nullptr) return make_error("HostUnavailable", "cannot read domain '" + name + "': " + last_libvirt_message());
  std::string domain_xml(raw);
  std::free(raw);
  char uuid[VIR_UUID_STRING_BUFLEN] = {};
  loaded_libvirt().virDomainGetUUIDString(domain.get(), uuid);

  LifecycleOutcome outcome;
  outcome.name = name;
  outcome.dry_run = options.dry_run;
  std::vector<GuestClaim> others;
  auto folded = fold_claims(*session, name, uuid, false, others);
  if (!folded) return folded.error();
  outcome.warnings = std::move(*folded);

  const std::string what = "domain '" + name + "'";
  auto doc = xml::parse_document(domain_xml, what);
  if (!doc) return doc.error();
  // Placed as place would place the domain as it is now: its record is kept where it still holds
  // (place_again), with what the operator changed since and the host configuration counted; only
  // a domain the placement rewrites is defined again.
  {
    PlaceRequest request{domain_xml, what, options.flavor_specs, options.image_props, options.fit, options.floating, {}};
    request.other_guests = &others;
    request.explanation = options.explanation;
    auto placed = place_domain(session->host, request);
    if (!placed) return placed.error();
    const bool rewritten = placed->domain_xml != xml::serialize(doc->get());
    const std::string placed_xml = placed->domain_xml;
    if (rewritten) outcome.domain_xml = placed_xml;
    if (options.dry_run) {
      take_placement(outcome, std::move(*placed));
      outcome.replaced = rewritten;
      return outcome;
    }
    if (auto narrowed = narrow_others(*session, *placed); !narrowed) return narrowed.error();
    take_placement(outcome, std::move(*placed));
    if (rewritten) {
      if (auto defined = define_xml(session->conn, placed_xml, name); !defined) return defined.error();
      outcome.replaced = true;
      domain.reset(loaded_libvirt().virDomainLookupByName(session->conn.handle(), name.c_str()));
      if (!domain) return make_error("NoSuchDomain", "domain '" + name + "' vanished while it was being placed");
    }
  }
  if (options.dry_run) return outcome;
  if (loaded_libvirt().virDomainCreate(domain.get()) != 0) {
    return make_error("StartFailed", "libvirt could not start '" + name + "': " + last_libvirt_message());
  }
  return outcome;
}

}  // namespace numaplace::plugin
