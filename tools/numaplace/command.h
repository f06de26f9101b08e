/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A numaplace subcommand: it registers its options on the app and hands back
// the function to run when the user chose it (returning the exit code). The developer-only
// commands (conformance, replay) are numaplace-dev's: tools/numaplace-dev/dev_commands.h.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "numaplace/exit_codes.h"
#include "plugin/service/json_text.h"

namespace numaplace::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// A file named by an option that cannot be read (missing, a directory, no permission): thrown while
// the command line is parsed (existing_file(), cli_common.h) and reported by parse_and_run as
// CannotRead, exit 2, as an unreadable DOMAIN file is; not a usage error. `what()` names the option.
struct UnreadableFile : CLI::ParseError {
  explicit UnreadableFile(const std::string& message) : CLI::ParseError("UnreadableFile", message, kExitUsage) {}
};

// `code`, or CannotWrite's exit 1 (named on stderr) when standard output could not take all that
// was written to it (a full disk, a closed pipe's reader gone): `numaplace place vm.xml >
// placed.xml` must not say it succeeded when placed.xml is cut short.
inline int with_output_written(int code) {
  std::cout.flush();
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout) {
    const int saved = errno;
    std::cerr << "numaplace: CannotWrite: cannot write to standard output"
              << (saved != 0 ? std::string(": ") + std::strerror(saved) : std::string()) << '\n';
    return kExitBadInput;
  }
  return code;
}

// Parses the command line and runs the one command chosen; a usage error prints CLI11's message
// and is exit 2 (--help and --version exit 0). Output that did not reach standard output is an error.
inline int parse_and_run(CLI::App& app, const std::vector<Command>& commands, int argc, char** argv) {
  // With --json a usage error is the documented {"error": ...} on stdout, as every other error;
  // without, the documented "PROGRAM: UsageError: ..." line on stderr.
  // Only before "--": after it come arguments (the hook's NAME OP SUBOP), never options.
  char** const options_end = std::find_if(argv + 1, argv + argc, [](const char* arg) { return std::string(arg) == "--"; });
  bool json = std::any_of(argv + 1, options_end, [](const char* arg) { return std::string(arg) == "--json"; });
  // A command without --json (the hook: libvirt reads its exit code and stderr) says so, in text.
  std::string no_json_option;
  if (json && argc > 1) {
    for (const auto* sub : app.get_subcommands({})) {
      if (sub->get_name() == argv[1] && sub->get_option_no_throw("--json") == nullptr) {
        json = false;
        no_json_option = app.get_name() + " " + sub->get_name() + " has no --json option";
      }
    }
  }
  std::string known;  // the commands, for the messages below
  std::string chosen;  // the command the first word names, if it names one
  for (const auto* sub : app.get_subcommands({})) {
    if (argc > 1 && sub->get_name() == argv[1]) chosen = sub->get_name();
    known += (known.empty() ? "" : ", ") + sub->get_name();
  }
  auto usage_error = [&](const std::string& message) {
    if (json) {
      std::cout << numaplace::plugin::json_text(nlohmann::json{{"error", {{"name", "UsageError"}, {"message", message}}}}, 2)
                << '\n';
    } else {
      // The help that documents what went wrong: the command's own, when one was given.
      std::cerr << app.get_name() << ": UsageError: " << message << " (" << app.get_name()
                << (chosen.empty() ? "" : " " + chosen) << " --help)\n";
    }
    return with_output_written(kExitUsage);
  };
  // A first word that is no command (a typo: "plac") is named, not reported as a missing command,
  // and so is an option before any command ("numaplace --json place").
  if (argc > 1 && chosen.empty()) {
    const std::string first = argv[1];
    if (first[0] != '-') return usage_error("'" + first + "' is not a command; the commands are " + known);
    if (first != "--help" && first != "-h" && first != "--version") {
      return usage_error("'" + first + "' is not an option of " + app.get_name() + " itself; give the command "
                         "first (" + known + "), then its options");
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const UnreadableFile& e) {
    if (json) {
      std::cout << numaplace::plugin::json_text(nlohmann::json{{"error", {{"name", "CannotRead"}, {"message", e.what()}}}}, 2)
                << '\n';
    } else {
      std::cerr << app.get_name() << ": CannotRead: " << e.what() << '\n';
    }
    return with_output_written(kExitUsage);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return with_output_written(app.exit(e));  // --help, --version
    // CLI11 would list --json among the arguments it did not expect (with a "--" beside it): the
    // option is the one thing wrong to say.
    return usage_error(no_json_option.empty() ? std::string(e.what()) : no_json_option + "; leave it out");
  }
  for (const auto& command : commands) {
    if (command.app->parsed()) return with_output_written(command.run());
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
