/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A numaplace subcommand: it registers its options on the app and hands back
// the function to run when the user chose it (returning the exit code). The developer-only
// commands (conformance, replay) are numaplace-dev's: tools/numaplace-dev/dev_commands.h.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

#include "numaplace/exit_codes.h"

namespace numaplace::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// Parses the command line and runs the one command chosen; a usage error prints CLI11's message
// and is exit 2 (--help and --version exit 0).
inline int parse_and_run(CLI::App& app, const std::vector<Command>& commands, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  for (const auto& command : commands) {
    if (command.app->parsed()) return command.run();
  }
  return kExitUsage;
}

Command register_place(CLI::App& app);
Command register_topology(CLI::App& app);
Command register_define(CLI::App& app);
Command register_start(CLI::App& app);
Command register_hook(CLI::App& app);
Command register_rank(CLI::App& app);
Command register_audit(CLI::App& app);

}  // namespace numaplace::cli
