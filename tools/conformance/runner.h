/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Runs a conformance suite over JSON-lines files: one line per failing vector
// ("FAIL id: expected ..., got ..."), then the closing line
// "N passed, M failed, K skipped". Returns the process exit code: 0 only when
// nothing failed and at least one vector ran; 2 for unreadable input.
// With repeat N > 0, each vector's engine call (the suite's EngineTiming, else the whole
// check) also runs N times in this process and a line "TIME id: median S s over N runs"
// follows, with Nova's own seconds and the ratio where the vector records them.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace numaplace::conformance {

struct RunOptions {
  bool show_skips = false;
  std::size_t repeat = 0;  // 0: no timing
};

int run_suite(const std::string& suite_name, const std::vector<std::string>& files, const RunOptions& options,
              std::ostream& out, std::ostream& err);

}  // namespace numaplace::conformance
