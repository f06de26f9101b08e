/* SPDX-License-Identifier: LGPL-2.1-or-later */
// numaplace-dev's subcommands, for the project's own checks against reference answers: the
// conformance suites, the replay of Nova's admission streams and of fleets. Built beside numaplace, never
// installed: an operator's numaplace carries only what places guests.
#pragma once

#include "numaplace/command.h"

namespace numaplace::cli {

// conformance SUITE FILE...: runs a suite of reference vectors (tools/conformance/suites.cpp).
Command register_conformance(CLI::App& app);
// replay FILE: Nova's admission streams with a strategy, figures against Nova's.
Command register_replay(CLI::App& app);
// fleet FILE: many hosts and one stream of requests, numaplace's rank + place beside Nova's scheduler.
Command register_fleet(CLI::App& app);

}  // namespace numaplace::cli
