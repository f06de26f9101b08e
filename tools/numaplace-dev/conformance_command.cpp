// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace-dev conformance SUITE FILE...: the reference-vector runner.
#include <iostream>
#include <memory>

#include "conformance/runner.h"
#include "conformance/suite.h"
#include "numaplace-dev/dev_commands.h"
#include "numaplace/cli_common.h"

namespace numaplace::cli {

Command register_conformance(CLI::App& app) {
  struct Options {
    std::string suite;
    std::vector<std::string> files;
    conformance::RunOptions run;
  };
  auto options = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("conformance", "Check numaplace against reference vectors (JSON lines)");
  std::string suites;
  for (const auto& suite : conformance::all_suites()) suites += std::string("  ") + suite.name + ": " + suite.what + "\n";
  cmd->footer(std::string(
                  "Checks numaplace against reference vectors (tests/data/conformance, described in SCHEMA.md there).\n"
                  "Prints one line per failing vector (\"FAIL id: expected ..., got ...\") and closes with\n"
                  "'N passed, M failed, K skipped'; exits 0 only when nothing failed (1: a vector failed, or a line is\n"
                  "not a JSON object, InvalidVector; 2: an unknown suite or a file that cannot be read). With nova-fit the kind, the\n"
                  "error class and the derived guest topology must match; a fit must land on the same host cells with\n"
                  "the same page size as Nova chose, and the pinning must be valid (each dedicated vCPU on its own free\n"
                  "pCPU of the cell's dedicated set, thread policy and emulator reservation honoured; Nova's exact\n"
                  "vCPU-to-pCPU order follows Python set order and is not compared). Where a vector carries\n"
                  "expect_fixed (a Nova bug), that is what is matched.\n"
                  "--repeat N also runs each vector's engine call N times in the same process (for nova-fit: fit_guest\n"
                  "on the vector's host and guest, prepared once; for the other suites the whole check) and prints\n"
                  "\"TIME id: median S s over N runs\", with Nova's own seconds and the ratio where the vector records\n"
                  "them (nova_seconds in nova/perf.jsonl). Start-up and JSON reading are not in the figure.\n"
                  "\n"
                  "Suites:\n") +
              suites +
              "Examples:\n"
              "  numaplace-dev conformance nova-fit tests/data/conformance/nova/edge.jsonl build/test-data/conformance/nova/fit.jsonl\n"
              "  numaplace-dev conformance nova-fit tests/data/conformance/nova/perf.jsonl --repeat 101");
  cmd->add_option("SUITE", options->suite, "suite name, e.g. nova-fit")->required();
  cmd->add_option("FILE", options->files, "vector files (JSON lines)")->required()->check(existing_file("FILE"));
  cmd->add_flag("--show-skips", options->run.show_skips, "print a line for every skipped vector too");
  cmd->add_option("--repeat", options->run.repeat,
                  "also run each vector's engine call N times in this process and print its median time "
                  "(\"TIME id: median S s over N runs\"), beside Nova's where the vector records it")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  return {cmd, [options] { return conformance::run_suite(options->suite, options->files, options->run, std::cout, std::cerr); }};
}

}  // namespace numaplace::cli
