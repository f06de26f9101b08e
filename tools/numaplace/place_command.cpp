// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace place DOMAIN: place one guest and print (or write) its rewritten XML.
#include <iostream>
#include <memory>

#include "numaplace/cli_common.h"
#include "numaplace/command.h"
#include "numaplace/explain_output.h"
#include "numaplace/json_output.h"
#include "plugin/service/place_domain.h"
#include "plugin/service/placement_json.h"
#include "xml/domain_reader.h"
#include "xml/xml_document.h"

namespace numaplace::cli {
namespace {

struct PlaceOptions {
  std::string domain_path;
  std::string output_path;
  std::vector<std::string> specs;
  std::vector<std::string> image_props;
  std::vector<std::string> claims;
  bool include_defined = false;
  bool json = false;
  bool explain = false;
  StrategyCliOptions strategy;
  HostSourceOptions host;
  PolicyCliOptions policy;
  std::vector<std::string> pci;
  bool fresh = false;
};

int run_place(const PlaceOptions& o) {
  auto flavor = parse_pairs(o.specs, "--spec");
  if (!flavor) return report(flavor.error(), o.json);
  auto image = parse_pairs(o.image_props, "--image-prop");
  if (!image) return report(image.error(), o.json);
  auto floating = parse_policy(o.policy);
  if (!floating) return report(floating.error(), o.json);
  auto domain_text = read_input(o.domain_path, "domain XML");
  if (!domain_text) return report(domain_text.error(), o.json);
  const std::string what =
      o.domain_path == "-" ? "domain XML on standard input" : "domain XML '" + o.domain_path + "'";
  auto host = load_host(o.host);
  if (!host) return report(host.error(), o.json);
  std::vector<GuestClaim> claims;
  {
    // The guest being placed must not count against itself.
    auto doc = xml::parse_document(*domain_text, what);
    if (!doc) return report(doc.error(), o.json);
    auto summary = xml::read_domain_summary(doc->get(), what);
    if (!summary) return report(summary.error(), o.json);
    auto folded = fold_claims(*host, o.host, o.claims, o.include_defined, summary->name, summary->uuid);
    if (!folded) return report(folded.error(), o.json);
    claims = std::move(*folded);
  }

  plugin::PlaceRequest request;
  request.domain_xml = std::move(*domain_text);
  request.domain_name_for_errors = what;
  request.flavor_specs = std::move(*flavor);
  request.image_props = std::move(*image);
  request.floating = *floating;
  request.pci_addresses = o.pci;
  request.keep_recorded = !o.fresh;
  request.other_guests = &claims;
  if (auto applied = apply_strategy_options(o.strategy, request.fit); !applied) return report(applied.error(), o.json);
  FitExplanation explanation;
  if (o.explain) request.fit.explanation = &explanation;
  auto outcome = plugin::place_domain(*host, request);
  if (!outcome) {
    if (o.explain && o.json) {
      std::cout << nlohmann::json{{"error", {{"name", outcome.error().name}, {"message", outcome.error().message}}},
                                  {"explanation", explain_json(explanation, claims)}}
                       .dump(2)
                << '\n';
      return exit_code_for(outcome.error());
    }
    if (o.explain) std::cerr << explain_text(explanation, claims);
    return report(outcome.error(), o.json);
  }
  if (o.explain && !o.json) {
    if (outcome->confinement) {
      std::cerr << explain_confinement_text(*outcome->confinement, o.policy.policy);
    } else {
      std::cerr << explain_text(explanation, claims);
    }
  }

  for (const auto& warning : outcome->warnings) std::cerr << "numaplace: warning: " << warning << '\n';
  report_replacement(outcome->replacement);
  report_narrowings(outcome->narrowings, false);
  if (!outcome->placement) {
    if (outcome->confinement && outcome->confinement->cells) {
      std::cerr << "numaplace: no NUMA topology requested; confined to host cells "
                << outcome->confinement->cells->to_nodeset() << " (" << o.policy.policy << ": "
                << outcome->confinement->reason << ")\n";
    } else {
      std::cerr << "numaplace: no NUMA topology requested; the guest is left unconfined\n";
    }
  }
  std::string text = outcome->domain_xml;
  if (o.json) {
    nlohmann::json doc{{"placement", outcome->placement ? to_json(*outcome->placement) : nlohmann::json()},
                       {"confinement", outcome->confinement ? to_json(*outcome->confinement) : nlohmann::json()},
                       {"rejections", to_json(outcome->rejections)},
                       {"replacement", plugin::replacement_json(outcome->replacement)},
                       {"narrowings", plugin::narrowings_json(outcome->narrowings)},
                       {"xml", outcome->domain_xml}};
    if (o.explain) doc["explanation"] = explain_json(explanation, claims);
    text = doc.dump(2) + "\n";
  }
  if (auto written = write_output(o.output_path, text); !written) return report(written.error(), o.json);
  return 0;
}

}  // namespace

Command register_place(CLI::App& app) {
  auto options = std::make_shared<PlaceOptions>();
  auto* place = app.add_subcommand("place", "Place a guest and print its rewritten domain XML");
  place->footer(
      "The guest's vCPUs and memory come from the domain's <vcpu> and <memory>. Keys:\n"
      "  hw:numa_nodes=N      split the guest evenly into N NUMA cells, each on its own host cell\n"
      "  hw:numa_cpus.I=LIST  vCPUs of guest cell I (e.g. 0-5), for asymmetric cells\n"
      "  hw:numa_mem.I=MIB    memory of guest cell I in MiB; every cell needs both keys\n"
      "  hw:cpu_policy=shared|dedicated|mixed, hw:cpu_thread_policy=prefer|isolate|require,\n"
      "  hw:cpu_dedicated_mask, hw:mem_page_size=small|large|any|SIZE, hw:emulator_threads_policy,\n"
      "  hw:pci_numa_affinity_policy: as in OpenStack Nova.\n"
      "Image properties (--image-prop hw_numa_nodes=2 ...) may set a key only where the flavor\n"
      "(--spec) did not. Without --spec/--image-prop the request stored in the domain's numaplace\n"
      "metadata is used; without any NUMA key the guest gets no NUMA topology and is confined as a whole\n"
      "to the host cells --policy chooses (best-effort by default; --policy none prints it unchanged). Example:\n"
      "  numaplace place examples/guest-8vcpu-4g.xml --spec hw:numa_nodes=2 \\\n"
      "      --spec hw:numa_cpus.0=0-5 --spec hw:numa_cpus.1=6,7 \\\n"
      "      --spec hw:numa_mem.0=3072 --spec hw:numa_mem.1=1024");
  place->add_option("DOMAIN", options->domain_path, "domain XML file, or - for standard input")->required();
  add_host_options(place, options->host);
  add_request_options(place, options->specs, options->image_props);
  add_claim_options(place, options->claims, options->include_defined);
  add_policy_options(place, options->policy);
  place->add_flag("--fresh", options->fresh,
                  "ignore the placement recorded in the domain and fit from scratch (by default a domain placed "
                  "before keeps its host cells and pins where they still hold, and only what no longer fits moves)");
  place->add_option("--pci", options->pci,
                    "a host PCI device (domain:bus:slot.function, e.g. 0000:3b:00.0) the guest will be given, "
                    "besides its <hostdev> elements (repeatable); its NUMA node constrains the placement")
      ->allow_extra_args(false);
  place->add_option("-o,--output", options->output_path, "write the XML to this file (atomically) instead of stdout");
  add_strategy_options(place, options->strategy);
  place->add_flag("--explain", options->explain,
                  "say why each host cell can or cannot take each guest cell and why the chosen assignment won "
                  "(on stderr; with --json under \"explanation\")");
  place->add_flag("--json", options->json,
                  "print {placement, confinement, rejections, replacement, narrowings, xml} as JSON (errors too) for "
                  "programs; narrowings: the other guests' threads that would have to leave the pCPUs a dedicated "
                  "guest takes (define and start move them)");
  return {place, [options] { return run_place(*options); }};
}

}  // namespace numaplace::cli
