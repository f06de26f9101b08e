/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A numaplace subcommand: it registers its options on the app and hands back
// the function to run when the user chose it (returning the exit code). The developer-only
// commands (conformance, replay) are numaplace-dev's: tools/numaplace-dev/dev_commands.h.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace numaplace::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command register_place(CLI::App& app);
Command register_topology(CLI::App& app);
Command register_define(CLI::App& app);
Command register_start(CLI::App& app);
Command register_hook(CLI::App& app);
Command register_rank(CLI::App& app);

}  // namespace numaplace::cli
