// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace: places libvirt guests onto the NUMA cells of a host. Each subcommand
// lives in its own *_command.cpp; this file only assembles and dispatches them.
// Exit codes: 0 done; 1 bad input; 2 usage or unreadable files; 3 does not fit;
// 4 the host could not be read (or locked); 5 libvirt refused the domain.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "numaplace_version.h"

#include "numaplace/cli_common.h"
#include "numaplace/command.h"

int main(int argc, char** argv) {
  CLI::App app{
      "numaplace places libvirt guests onto the NUMA cells of a host: it reads the host and a guest's\n"
      "NUMA wishes (OpenStack-style hw:* flavor extra specs and hw_* image properties), chooses host\n"
      "cells and pCPUs, and rewrites the domain XML with <numatune>, <vcpupin> and <cpu><numa>.",
      "numaplace"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("numaplace ") + NUMAPLACE_VERSION_STRING,
                       "Print numaplace's version and exit");
  app.footer(
      "Every command prints --help with examples; numaplace-COMMAND(1) is the same text as a man page.\n"
      "Errors are one line on stderr naming the error, e.g.\n"
      "  numaplace: NoFit: guest 'web' (8 vCPUs, 4096 MiB) does not fit this host: ...\n"
      "(with --json, {\"error\": {\"name\", \"message\"}} on stdout), and nothing is written when one occurs.\n"
      "Examples:\n"
      "  numaplace place vm.xml --spec hw:numa_nodes=2 > placed.xml\n"
      "  numaplace place vm.xml --capabilities host-caps.xml --spec hw:cpu_policy=dedicated -o placed.xml\n"
      "  numaplace topology --connect qemu:///system\n"
      "  numaplace audit --json\n"
      "  numaplace define vm.xml --spec hw:numa_nodes=1 && numaplace start vm\n"
      "  numaplace rank --hosts hosts/ --vcpus 8 --memory 4096 --spec hw:numa_nodes=2\n"

      "Exit codes: 0 done, 1 bad input or an unwritable output (a named error on stderr), 2 usage or an\n"
      "unreadable file, 3 the guest does not fit, 4 the host could not be read (or the host lock not\n"
      "taken, or libvirt or libnuma not available), 5 libvirt refused the domain (define, start), 6 audit\n"
      "found something. rank: see its page.");

  using namespace numaplace::cli;
  std::vector<Command> commands{register_place(app), register_topology(app), register_define(app),
                                register_start(app), register_hook(app), register_rank(app),
                                register_audit(app)};
  return parse_and_run(app, commands, argc, argv);
}
