/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Runs the built numaplace binary as a user would, for the CLI tests: its exit
// code, everything it printed on stdout, and everything on stderr.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/test_paths.h"

namespace numaplace::testing {

struct CliRun {
  int exit_code = -1;  // -1: did not exit normally, or could not be started
  std::string out;
  std::string err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// `args` is appended to the binary's path and run by the shell; `env` ("NAME=value ...") goes
// before it; standard input comes from the file `stdin_path` when one is given.
inline CliRun run_binary(const std::string& binary, const std::string& args, const std::string& env = {},
                         const std::string& stdin_path = {}) {
  const std::string err_file =
      std::filesystem::temp_directory_path() / ("numaplace-cli-run-" + std::to_string(getpid()) + ".err");
  std::string command = env + (env.empty() ? "" : " ") + binary + " " + args;
  if (!stdin_path.empty()) command += " < " + stdin_path;
  CliRun result;
  FILE* pipe = popen((command + " 2>" + err_file).c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = slurp(err_file);
  std::filesystem::remove(err_file);
  return result;
}

// numaplace ARGS.
inline CliRun run(const std::string& args, const std::string& env = {}, const std::string& stdin_path = {}) {
  return run_binary(cli_path(), args, env, stdin_path);
}

// numaplace-dev ARGS.
inline CliRun run_dev(const std::string& args) { return run_binary(dev_cli_path(), args); }

// libvirt's built-in test host (2 cells x 8 CPUs, a running guest "test"): named on every command
// line that means it, since without a host flag numaplace reads this machine.
inline const std::string kTestHost = " --connect test:///default";

// The README's worked example: the bundled 8-vCPU, 4 GiB guest and the specs that split it into
// cells of 6 + 2 vCPUs and 3072 + 1024 MiB.
inline const std::string kExample = source_path("examples/guest-8vcpu-4g.xml");
inline const std::string kWorkedSpecs =
    " --spec hw:numa_nodes=2 --spec hw:numa_cpus.0=0,1,2,3,4,5 --spec hw:numa_cpus.1=6,7"
    " --spec hw:numa_mem.0=3072 --spec hw:numa_mem.1=1024";

}  // namespace numaplace::testing
