// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/service/qemu_hook.h"

#include <exception>
#include <map>

#include "placement/lifecycle/claims.h"
#include "plugin/sources/host_claims.h"
#include "plugin/service/place_domain.h"
#include "xml/guest_view.h"
#include "xml/domain_claims.h"
#include "xml/domain_reader.h"
#include "xml/placement_record.h"
#include "xml/xml_document.h"

namespace numaplace::plugin {
namespace {

HookVerdict refuse(Error error, std::vector<std::string> warnings = {}) {
  HookVerdict verdict;
  verdict.refused = true;
  verdict.refusal = std::move(error);
  verdict.warnings = std::move(warnings);
  return verdict;
}

// The claims of the guests running here, leaving out the guest itself; RunningGuestsUnknown when
// one cannot be read or counted on this host: placing or passing around a guest whose holdings are
// unknown could give its pCPUs away twice.
Result<std::vector<GuestClaim>> running_claims(const HookSources& sources, const HostTopology& host,
                                               const xml::DomainSummary& self, std::vector<std::string>& notes) {
  auto running = sources.running();
  if (!running) return running.error();
  // A running guest's pins on CPUs gone offline since (SMT turned off) still leave what it holds
  // here known: counted within the host, and said.
  HostClaims claims = read_host_claims(*running, host, self.name, self.uuid, xml::BeyondHost::CountWithin);
  for (auto& note : claims.notes) notes.push_back(std::move(note));
  if (auto known = running_guests_known(claims, "or switch the hook off (docs/hook.md)");
      !known) {
    return known.error();
  }
  return std::move(claims.claims);
}

// The domain libvirt passed, parsed, with its summary.
struct PassedDomain {
  std::string what;
  xml::Document doc;
  xml::DomainSummary summary;
};

Result<PassedDomain> read_passed_domain(const HookInput& input) {
  std::string what = "domain XML of '" + input.guest + "'";
  auto doc = xml::parse_document(input.domain_xml, what);
  if (!doc) return doc.error();
  auto summary = xml::read_domain_summary(doc->get(), what);
  if (!summary) return summary.error();
  return PassedDomain{std::move(what), std::move(*doc), std::move(*summary)};
}

HookVerdict place_again(const HookInput& input, const HookSources& sources) {
  auto passed = read_passed_domain(input);
  if (!passed) return refuse(passed.error());
  const auto& [what, doc, summary] = *passed;
  auto stored = xml::read_stored_request(doc.get(), what);
  if (!stored) return refuse(stored.error());
  if (!*stored) return {};  // not placed by numaplace: libvirt keeps its XML

  auto host = sources.host();
  if (!host) return refuse(host.error());
  HookVerdict verdict;
  auto running = running_claims(sources, *host, summary, verdict.warnings);
  if (!running) return refuse(running.error(), std::move(verdict.warnings));
  const std::vector<GuestClaim>& others = *running;
  apply_claims(*host, others);
  PlaceRequest request;
  request.domain_xml = input.domain_xml;
  request.domain_name_for_errors = what;
  request.other_guests = &others;
  auto outcome = place_domain(*host, request);
  if (!outcome) return refuse(outcome.error(), std::move(verdict.warnings));
  // libvirt compares the guest's view on migrate and restore: only host-side bindings may change.
  auto placed = xml::parse_document(outcome->domain_xml, what);
  if (!placed) return refuse(placed.error(), std::move(verdict.warnings));
  auto kept = xml::keep_guest_view(doc.get(), placed->get(), what);
  if (!kept) return refuse(kept.error(), std::move(verdict.warnings));
  if (kept->distances_differ) {
    verdict.warnings.push_back("the host cells chosen for '" + summary.name +
                               "' are at other distances than its guest cells show; the guest keeps the distances "
                               "it had (libvirt refuses a changed guest topology on " + input.op + ")");
  }
  verdict.new_xml = std::move(kept->domain_xml);
  // libvirt waits on the hook, which may not call back into it: the running guests whose threads
  // float over the pCPUs this guest now takes are named for the operator, not re-pinned.
  verdict.unnarrowed = std::move(outcome->narrowings);
  return verdict;
}

HookVerdict check_pins(const HookInput& input, const HookSources& sources) {
  auto passed = read_passed_domain(input);
  if (!passed) return refuse(passed.error());
  const auto& [what, doc, summary] = *passed;
  // A guest numaplace did not place is refused only for a collision it is known to have: what the
  // hook cannot read about it or the running guests lets it pass, with a warning, as libvirt would.
  auto stored = xml::read_stored_request(doc.get(), what);
  const bool ours = !stored || stored->has_value();
  HookVerdict verdict;
  const auto cannot_decide = [&](Error error) {
    if (ours) return refuse(std::move(error));
    verdict.warnings.push_back("passed without a check of its pins: " + error.name + ": " + error.message);
    return verdict;
  };
  auto host = sources.host();
  if (!host) return cannot_decide(host.error());
  auto claim = xml::read_guest_claim(doc.get(), *host, what);
  if (!claim) return cannot_decide(claim.error());
  bool pins_anything = false;
  for (const auto& cell : claim->cells) pins_anything = pins_anything || !cell.pinned_cpus.empty();
  if (!pins_anything) return {};
  auto running = running_claims(sources, *host, summary, verdict.warnings);
  if (!running) return cannot_decide(running.error());
  const auto collisions = pinning_collisions(*claim, *running);
  if (collisions.empty()) return verdict;
  std::map<std::string, CpuSet> by_holder;
  for (const auto& [pcpu, holder] : collisions) by_holder[holder].insert(pcpu);
  std::string held;
  for (const auto& [holder, pcpus] : by_holder) {
    held += (held.empty() ? "" : ", ") + std::string("pCPUs ") + to_cpu_list(pcpus) + " (held by '" + holder + "')";
  }
  return refuse(make_error("PinningCollision", "its dedicated vCPUs are pinned to " + held +
                                                   "; place it again for this host (numaplace place/define) first"),
                std::move(verdict.warnings));
}

}  // namespace

bool hook_reads_input(const std::string& op, const std::string& subop) {
  return subop == "begin" && (op == "migrate" || op == "restore" || op == "prepare");
}

bool hook_places_again(const std::string& op, const std::string& subop) {
  return subop == "begin" && (op == "migrate" || op == "restore");
}

HookVerdict decide_qemu_hook(const HookInput& input, const HookSources& sources) {
  if (!hook_reads_input(input.op, input.subop)) return {};
  try {
    return input.op == "prepare" ? check_pins(input, sources) : place_again(input, sources);
  } catch (const std::exception& e) {
    return refuse(make_error("InternalError", e.what()));
  } catch (...) {
    return refuse(make_error("InternalError", "unknown failure"));
  }
}

}  // namespace numaplace::plugin
