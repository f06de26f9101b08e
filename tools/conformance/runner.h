// Runs a conformance suite over JSON-lines files: one line per failing vector
// ("FAIL id: expected ..., got ..."), then the closing line
// "N passed, M failed, K skipped". Returns the process exit code: 0 only when
// nothing failed and at least one vector ran; 2 for unreadable input.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace numaplace::conformance {

struct RunOptions {
  bool show_skips = false;
};

int run_suite(const std::string& suite_name, const std::vector<std::string>& files, const RunOptions& options,
              std::ostream& out, std::ostream& err);

}  // namespace numaplace::conformance
