// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace conformance SUITE FILE...: the reference-vector runner.
#include <iostream>
#include <memory>

#include "conformance/runner.h"
#include "conformance/suite.h"
#include "numaplace/command.h"

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
  cmd->footer("Suites:\n" + suites +
              "Prints one line per failing vector and closes with 'N passed, M failed, K skipped';\n"
              "exits 0 only when nothing failed.\n"
              "Examples:\n"
              "  numaplace conformance nova-fit tests/data/conformance/nova/edge.jsonl build/test-data/conformance/nova/fit.jsonl\n"
              "  numaplace conformance nova-fit tests/data/conformance/nova/perf.jsonl --repeat 101");
  cmd->add_option("SUITE", options->suite, "suite name, e.g. nova-fit")->required();
  cmd->add_option("FILE", options->files, "vector files (JSON lines)")->required()->check(CLI::ExistingFile);
  cmd->add_flag("--show-skips", options->run.show_skips, "print a line for every skipped vector too");
  cmd->add_option("--repeat", options->run.repeat,
                  "also run each vector's engine call N times in this process and print its median time "
                  "(\"TIME id: median S s over N runs\"), beside Nova's where the vector records it")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  return {cmd, [options] { return conformance::run_suite(options->suite, options->files, options->run, std::cout, std::cerr); }};
}

}  // namespace numaplace::cli
