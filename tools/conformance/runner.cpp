#include "conformance/runner.h"

#include <fstream>
#include <iostream>

#include "conformance/suite.h"

namespace numaplace::conformance {

int run_suite(const std::string& suite_name, const std::vector<std::string>& files, const RunOptions& options,
              std::ostream& out, std::ostream& err) {
  const Suite* suite = nullptr;
  for (const auto& s : all_suites()) {
    if (suite_name == s.name) suite = &s;
  }
  if (suite == nullptr) {
    err << "numaplace conformance: unknown suite '" << suite_name << "'; known suites:";
    for (const auto& s : all_suites()) err << ' ' << s.name;
    err << '\n';
    return 2;
  }
  std::size_t passed = 0, failed = 0, skipped = 0;
  for (const auto& path : files) {
    std::ifstream in(path);
    if (!in) {
      err << "numaplace conformance: cannot read '" << path << "'\n";
      return 2;
    }
    std::string line;
    std::size_t line_number = 0;
    while (std::getline(in, line)) {
      ++line_number;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      nlohmann::json vector = nlohmann::json::parse(line, nullptr, false);
      if (vector.is_discarded() || !vector.is_object()) {
        err << "numaplace conformance: " << path << ':' << line_number << " is not a JSON object\n";
        return 2;
      }
      std::string id = vector.value("id", path + ":" + std::to_string(line_number));
      VectorOutcome outcome;
      try {
        outcome = suite->check(vector);
      } catch (const nlohmann::json::exception& e) {
        outcome = VectorOutcome::fail("a well-formed vector", std::string("malformed vector: ") + e.what());
      }
      switch (outcome.status) {
        case VectorOutcome::Status::Pass: ++passed; break;
        case VectorOutcome::Status::Skip:
          ++skipped;
          if (options.show_skips) out << "SKIP " << id << ": " << outcome.got << '\n';
          break;
        case VectorOutcome::Status::Fail:
          ++failed;
          out << "FAIL " << id << ": expected " << outcome.expected << ", got " << outcome.got << '\n';
          break;
      }
    }
  }
  out << passed << " passed, " << failed << " failed, " << skipped << " skipped\n";
  return failed == 0 && passed > 0 ? 0 : 1;
}

}  // namespace numaplace::conformance
