#include "plugin/place_domain.h"

#include "placement/guest_topology.h"
#include "xml/domain_reader.h"
#include "xml/domain_writer.h"
#include "xml/xml_document.h"

namespace numaplace::plugin {

std::string explain_no_fit(const FitResult& result) {
  std::string text = result.summary;
  for (const auto& rejection : result.rejections) {
    text += "\n  guest cell " + std::to_string(rejection.guest_cell) + " on host cell " +
            std::to_string(rejection.host_cell) + ": " + rejection.reason;
  }
  return text;
}

Result<PlaceOutcome> place_domain(const HostTopology& host, const PlaceRequest& request) {
  auto doc = xml::parse_document(request.domain_xml, request.domain_name_for_errors);
  if (!doc) return doc.error();
  auto summary = xml::read_domain_summary(doc->get(), request.domain_name_for_errors);
  if (!summary) return summary.error();

  GuestRequest guest;
  guest.vcpus = summary->vcpus;
  guest.memory_kib = summary->memory_kib;
  guest.flavor_specs = request.flavor_specs;
  guest.image_props = request.image_props;
  auto topology = derive_guest_topology(guest);
  if (!topology) return topology.error();

  PlaceOutcome outcome;
  if (!topology->has_value()) {
    outcome.domain_xml = xml::serialize(doc->get());
    return outcome;
  }
  FitResult fit = fit_guest(host, **topology, request.fit);
  outcome.rejections = fit.rejections;
  if (!fit.placement) {
    return make_error("NoFit", "guest '" + summary->name + "' (" + std::to_string(summary->vcpus) + " vCPUs, " +
                                   std::to_string(summary->memory_kib / 1024) + " MiB) does not fit this host: " +
                                   explain_no_fit(fit));
  }
  xml::write_placement(doc->get(), host, *fit.placement);
  outcome.placement = std::move(fit.placement);
  outcome.domain_xml = xml::serialize(doc->get());
  return outcome;
}

}  // namespace numaplace::plugin
