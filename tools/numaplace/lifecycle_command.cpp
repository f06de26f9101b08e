// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace define FILE / numaplace start NAME: placement in between reading the
// host's claims and defining (or starting) through libvirt, under the host lock.
#include <iostream>
#include <memory>

#include "numaplace/cli_common.h"
#include "numaplace/command.h"
#include "numaplace/explain_output.h"
#include "numaplace/json_output.h"
#include "plugin/service/domain_lifecycle.h"
#include "plugin/service/placement_json.h"
#include "plugin/service/json_text.h"

namespace numaplace::cli {
namespace {

struct LifecycleCliOptions {
  std::string domain_path;  // define
  std::string name;         // start
  std::string uri = "qemu:///system";
  std::vector<std::string> specs;
  std::vector<std::string> image_props;
  bool json = false;
  bool explain = false;
  StrategyCliOptions strategy;
  PolicyCliOptions policy;
  std::string host_config;
  bool dry_run = false;
};

nlohmann::json lifecycle_json(const plugin::LifecycleOutcome& outcome) {
  return {{"name", outcome.name},
          {"placement", outcome.placement ? to_json(*outcome.placement) : nlohmann::json()},
          {"confinement", outcome.confinement ? to_json(*outcome.confinement) : nlohmann::json()},
          {"replacement", plugin::replacement_json(outcome.replacement)},
          {"replaced", outcome.replaced},
          {"narrowings", plugin::narrowings_json(outcome.narrowings)},
          {"warnings", outcome.warnings},
          {"dry_run", outcome.dry_run},
          {"domain_xml", outcome.domain_xml.empty() ? nlohmann::json() : nlohmann::json(outcome.domain_xml)}};
}

// The outcome's line: on stdout, or for a dry run on stderr (its stdout is the domain XML).
void print_lifecycle(bool define, const plugin::LifecycleOutcome& outcome, const std::string& policy) {
  std::ostream& out = outcome.dry_run ? std::cerr : std::cout;
  if (outcome.dry_run) out << "numaplace: dry run: would " << (define ? "define" : "start");
  else out << (define ? "defined" : "started");
  out << " '" << outcome.name << "'";
  if (outcome.placement) {
    out << ":";
    for (const auto& cell : outcome.placement->cells) {
      out << " guest cell " << cell.guest_cell << " -> host cell " << cell.host_cell << " (cpus "
          << to_cpu_list(cell.host_cpus) << ")";
    }
  } else if (outcome.confinement && outcome.confinement->cells) {
    out << " (no NUMA request: confined to host cells " << outcome.confinement->cells->to_nodeset() << ", "
        << policy << ": " << outcome.confinement->reason << ")";
  } else {
    out << " (no NUMA request: not confined)";
  }
  // Why it changed (re-pinned, moved) is report_replacement's line; here only that it was redefined.
  if (outcome.replaced) out << (outcome.dry_run ? " [would be redefined with this placement before starting]"
                                                : " [redefined with this placement before starting]");
  if (outcome.dry_run && !define && outcome.domain_xml.empty()) out << " [its definition stays as it is]";
  out << '\n';
  report_replacement(outcome.replacement);
  report_narrowings(outcome.narrowings, outcome.dry_run ? NarrowingReport::DryRun : NarrowingReport::Moved);
  if (outcome.dry_run) std::cout << outcome.domain_xml;
}

int run_lifecycle(const LifecycleCliOptions& o, bool define) {
  auto flavor = parse_pairs(o.specs, "--spec");
  if (!flavor) return report(flavor.error(), o.json);
  auto image = parse_pairs(o.image_props, "--image-prop");
  if (!image) return report(image.error(), o.json);
  auto floating = parse_policy(o.policy);
  if (!floating) return report(floating.error(), o.json);
  plugin::LifecycleOptions options;
  options.floating = *floating;
  options.uri = o.uri;
  options.host_config = o.host_config;
  options.dry_run = o.dry_run;
  options.flavor_specs = std::move(*flavor);
  options.image_props = std::move(*image);
  if (auto applied = apply_strategy_options(o.strategy, options.fit); !applied) return report(applied.error(), o.json);
  FitExplanation explanation;
  if (o.explain) options.explanation = &explanation;
  Result<plugin::LifecycleOutcome> outcome = make_error("Unreachable", "");
  if (define) {
    auto text = read_input(o.domain_path, "domain XML");
    if (!text) return report(text.error(), o.json);
    outcome = plugin::define_domain(*text, "domain XML '" + o.domain_path + "'", options);
  } else {
    outcome = plugin::start_domain(o.name, options);
  }
  if (!outcome) {
    if (o.explain && o.json) {
      std::cout << numaplace::plugin::json_text(nlohmann::json{{"error", {{"name", outcome.error().name}, {"message", outcome.error().message}}},
                                  {"explanation", explain_json(explanation, {})}}, 2)
                << '\n';
      return exit_code_for(outcome.error());
    }
    if (o.explain) std::cerr << explain_text(explanation, {});
    return report(outcome.error(), o.json);
  }
  if (o.explain && !o.json) std::cerr << explain_text(explanation, {});
  for (const auto& warning : outcome->warnings) std::cerr << "numaplace: warning: " << warning << '\n';
  if (o.json) {
    nlohmann::json doc = lifecycle_json(*outcome);
    if (o.explain) doc["explanation"] = explain_json(explanation, {});
    std::cout << numaplace::plugin::json_text(doc, 2) << '\n';
  } else {
    print_lifecycle(define, *outcome, o.policy.policy);
  }
  return 0;
}

Command register_lifecycle(CLI::App& app, bool define) {
  auto options = std::make_shared<LifecycleCliOptions>();
  auto* cmd = define ? app.add_subcommand("define", "Place a guest against the host's guests and define it in libvirt")
                     : app.add_subcommand("start", "Start a defined guest, placing it again first if its placement no longer fits");
  cmd->footer(
      std::string(
          "Against a libvirt you may manage (-c, default qemu:///system), under a host-wide lock (flock on\n"
          "/run/numaplace/host.lock, or NUMAPLACE_LOCK_FILE), so two numaplace invocations never hand out the\n"
          "same pCPU; the lock is waited for up to 60 s (or NUMAPLACE_LOCK_TIMEOUT s). Under it: read the host\n"
          "and the claims of its guests, place, and define with libvirt's schema validation\n"
          "(VIR_DOMAIN_DEFINE_VALIDATE), and for start also start. define counts running guests and defined\n"
          "guests placed by numaplace; start counts running guests, starts a guest unchanged when its recorded\n"
          "placement still fits, and places and redefines it first when it does not. Redefining a guest by\n"
          "name reuses its uuid. Without --spec/--image-prop the request stored in the domain's numaplace\n"
          "metadata is used. The placement is place's (numaplace-place(1): the keys, what is written, placing\n"
          "again, the operator's constraints); a guest without NUMA keys is confined under --policy\n"
          "(best-effort) as place confines it (\"defined 'vm' (no NUMA request: confined to host cells 0,\n"
          "best-effort: ...)\"; \"not confined\" only under --policy none). When a dedicated guest takes pCPUs\n"
          "other guests float over, their vCPU, emulator and iothread threads are moved off first, live and in\n"
          "their persistent definitions; a guest that would be left with no pCPU refuses the new one\n"
          "(WouldStarveGuest, exit 3).\n"
          "\n"
          "--dry-run reads the same (read-only, without the lock) and places the same, then stops before the\n"
          "first write: nothing is narrowed, defined or started. The domain XML that would be defined goes to\n"
          "stdout (for start only when the guest would be redefined), the outcome's line and the threads that\n"
          "would move to stderr.\n"
          "\n"
          "--json prints {\"name\", \"placement\", \"confinement\", \"replacement\", \"replaced\", \"narrowings\",\n"
          "\"warnings\", \"dry_run\", \"domain_xml\"} (with --explain also \"explanation\"), or {\"error\":\n"
          "{\"name\", \"message\"}}: replacement as for place (start says kept when the recorded placement still\n"
          "fits), replaced whether start redefined (or would redefine) the guest before starting it,\n"
          "narrowings the other guests' threads moved (or would move), domain_xml what was (or would be)\n"
          "defined, null when start keeps the definition as it is.\n"
          "\n"
          "Exit codes: 0 done, 1 bad input, 2 usage or unreadable file, 3 does not fit, 4 host unavailable,\n"
          "lock not taken, or a running guest whose XML cannot be read (RunningGuestsUnknown), 5 libvirt\n"
          "refused the domain.\n"
          "Examples:\n") +
      (define ? "  numaplace define vm.xml --spec hw:numa_nodes=1 --spec hw:cpu_policy=dedicated\n"
                "  numaplace define vm.xml -c test:///default --policy single-numa-node --json\n"
                "  numaplace define vm.xml --dry-run > would-be.xml"
              : "  numaplace start vm\n"
                "  numaplace start vm -c qemu:///system --explain\n"
                "  numaplace start vm --dry-run"));
  if (define) {
    cmd->add_option("DOMAIN", options->domain_path, "domain XML file, or - for standard input")->required();
  } else {
    cmd->add_option("NAME", options->name, "name of a defined domain")->required();
  }
  cmd->add_option("-c,--connect", options->uri, "libvirt URI to manage (default: qemu:///system)");
  cmd->add_option("--host-config", options->host_config,
                  "the host's configuration (docs/accounting.md, \"Host configuration\"); by default "
                  "/etc/numaplace/numaplace.conf (or $NUMAPLACE_CONFIG) for a local libvirt URI")
      ->check(existing_file("--host-config"));
  add_request_options(cmd, options->specs, options->image_props);
  add_strategy_options(cmd, options->strategy);
  cmd->add_flag("--explain", options->explain,
                "say why each host cell can or cannot take each guest cell and why the chosen assignment won "
                "(on stderr; with --json under \"explanation\")");
  add_policy_options(cmd, options->policy);
  cmd->add_flag("--dry-run", options->dry_run,
                "place and print what would be defined and which threads would move, without changing anything");
  cmd->add_flag("--json", options->json, "print the outcome (or the error) as JSON");
  return {cmd, [options, define] { return run_lifecycle(*options, define); }};
}

}  // namespace

Command register_define(CLI::App& app) { return register_lifecycle(app, true); }
Command register_start(CLI::App& app) { return register_lifecycle(app, false); }

}  // namespace numaplace::cli
