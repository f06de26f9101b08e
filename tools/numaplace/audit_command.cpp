// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace audit: every guest on the host checked against the host and the others
// (placement/lifecycle/audit.h), each finding with its guests, resource and remedy.
#include <iostream>
#include <memory>

#include "numaplace/cli_common.h"
#include "numaplace/command.h"
#include "numaplace/exit_codes.h"
#include "placement/lifecycle/audit.h"
#include "placement/model/count_words.h"
#include "placement/model/utf8_text.h"
#include "plugin/service/json_text.h"

namespace numaplace::cli {
namespace {

struct AuditOptions {
  HostSourceOptions host;
  std::vector<std::string> claims;
  bool include_defined = false;
  bool json = false;
};

nlohmann::json finding_json(const AuditFinding& finding) {
  return {{"kind", finding_name(finding.kind)},
          {"guests", finding.guests},
          {"resource", finding.resource},
          {"cell", finding.cell ? nlohmann::json(*finding.cell) : nlohmann::json()},
          {"message", finding.message},
          {"remedy", finding.remedy}};
}

int run_audit(const AuditOptions& o) {
  const HostSourceOptions source = with_default_host(o.host);
  auto host = load_host(source);
  if (!host) return report(host.error(), o.json);
  std::size_t unread = 0;
  auto guests = read_claims(*host, source, o.claims, o.include_defined, {}, {}, &unread);
  if (!guests) return report(guests.error(), o.json);
  const std::vector<AuditFinding> findings = audit_host(*host, *guests);
  if (o.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& finding : findings) list.push_back(finding_json(finding));
    std::cout << numaplace::plugin::json_text(nlohmann::json{{"host", describe_source(source)},
                                                             {"guests", guests->size()},
                                                             {"unread", unread},
                                                             {"findings", list}}, 2)
              << '\n';
  } else {
    // A guest that could not be read was not checked: "nothing found" covers only the others.
    std::cout << "audit of " << describe_source(source) << ": " << count_of(guests->size(), "guest")
              << (unread > 0 ? " checked, " + std::to_string(unread) + " not read (warnings above)" : std::string()) << ", "
              << (findings.empty() ? (unread > 0 ? "nothing found among those checked" : "nothing found")
                                   : count_of(findings.size(), "finding")) << '\n';
    for (const auto& finding : findings) {
      // One line each, whatever a guest's name holds (a newline or an escape sequence, libvirt refuses
      // such names but a --claim file need not be libvirt's).
      std::cout << finding_name(finding.kind) << ": " << printable_text(finding.message)
                << "\n  remedy: " << printable_text(finding.remedy) << '\n';
    }
  }
  return findings.empty() ? 0 : kExitFindings;
}

}  // namespace

Command register_audit(CLI::App& app) {
  auto options = std::make_shared<AuditOptions>();
  auto* audit = app.add_subcommand("audit", "Check the guests on a host against the host and each other");
  audit->footer(
      std::string(
          "Reads the host and its guests as place does (running guests of a libvirt host, --claim files,\n"
          "--status-dir; defined guests numaplace placed with --include-defined) and reports, with the guests,\n"
          "the resource and a remedy:\n"
          "  PcpuHeldTwice            a pCPU pinned (or reserved) by two or more guests\n"
          "  FloatsOverHeldPcpu       a thread of one guest may run on a pCPU another holds for its dedicated\n"
          "                           vCPUs (define and start move such threads off; guests started by\n"
          "                           others may not have been)\n"
          "  MemoryExceedsCell        one guest binds more memory to a cell than the cell has\n"
          "  CellMemoryOvercommitted  guests together bind more memory to a cell than it has\n"
          "  HugePagesOvercommitted   guests bind more huge pages of a size to a cell than it has free\n"
          "  VcpusAwayFromMemory      vCPUs that run only on cells holding none of the guest's memory\n"
          "  DeviceHeldTwice          a PCI device passed through to two or more guests\n"
          "  RemoteDevice             a passed-through PCI device on a cell where the guest has neither vCPUs\n"
          "                           nor memory\n"
          "--json prints {\"host\", \"guests\" (how many were checked), \"unread\" (how many could not be read),\n"
          "\"findings\": [{\"kind\", \"guests\", \"resource\", \"cell\", \"message\", \"remedy\"}]}. A domain whose\n"
          "claims cannot be read is a warning on stderr and is not checked: the summary line says how many, and\n"
          "\"nothing found\" then covers only the guests checked (the exit code stays 0).\n"
          "\n") +
      kHostSourcesHelp +
      std::string(
          "\n"
          "\n"
          "Exit codes: 0 nothing found; 6 findings (listed); 1 bad input; 2 usage or an unreadable file; 4 the\n"
          "host could not be read.\n"
          "Examples:\n"
          "  numaplace audit                                       # this machine and its running guests\n"
          "  numaplace audit --connect qemu:///system --include-defined --json\n"
          "  numaplace audit --capabilities host.xml --claim vm1.xml --claim vm2.xml"));
  add_host_options(audit, options->host);
  add_claim_options(audit, options->claims, options->include_defined, options->host.status_dir);
  audit->add_flag("--json", options->json, "print the findings as JSON");
  return {audit, [options] { return run_audit(*options); }};
}

}  // namespace numaplace::cli
