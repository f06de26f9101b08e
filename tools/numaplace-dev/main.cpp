// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace-dev: the developer-only commands (dev_commands.h), with the same conventions as
// numaplace (named errors, --json, exit codes of tools/numaplace/exit_codes.h). Not installed.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "numaplace-dev/dev_commands.h"
#include "numaplace/exit_codes.h"
#include "numaplace_version.h"

int main(int argc, char** argv) {
  CLI::App app{
      "numaplace-dev checks numaplace against reference answers: the conformance suites (vectors\n"
      "produced by running Nova 26, the Kubernetes TopologyManager and scheduler scoring, and the\n"
      "Resource Comparison design) the replay of Nova's admission streams and fleets. A build-tree tool of the\n"
      "project (build/numaplace-dev); it is not installed.",
      "numaplace-dev"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("numaplace-dev ") + NUMAPLACE_VERSION_STRING,
                       "Print the version and exit");
  app.footer(
      "Examples:\n"
      "  numaplace-dev conformance nova-fit tests/data/conformance/nova/edge.jsonl\n"
      "  numaplace-dev replay tests/data/conformance/nova/streams.jsonl --strategy pack\n"
      "  numaplace-dev fleet tests/data/conformance/nova/fleet-16.json\n"
      "Exit codes: see each command's --help.");
  using namespace numaplace::cli;
  std::vector<Command> commands{register_conformance(app), register_replay(app), register_fleet(app)};
  return parse_and_run(app, commands, argc, argv);
}
