/* SPDX-License-Identifier: LGPL-2.1-or-later */
// A conformance suite checks one reference vector (a JSON object from
// tests/data/conformance) against numaplace and says pass, fail (with what was
// expected and what we got) or skip (with why). The runner in runner.h reads the
// files, calls the suite per line, and prints the summary.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace numaplace::conformance {

struct VectorOutcome {
  enum class Status { Pass, Fail, Skip };
  Status status = Status::Pass;
  std::string expected;  // on Fail
  std::string got;       // on Fail; on Skip, the reason

  static VectorOutcome pass() { return {}; }
  static VectorOutcome fail(std::string expected, std::string got) {
    return {Status::Fail, std::move(expected), std::move(got)};
  }
  static VectorOutcome skip(std::string why) { return {Status::Skip, {}, std::move(why)}; }
};

using SuiteFunction = VectorOutcome (*)(const nlohmann::json& vector);
// Runs the engine call a vector checks `repeat` times on inputs prepared once and returns
// each run's seconds; nullopt when the vector never reaches the engine (invalid input).
using EngineTiming = std::optional<std::vector<double>> (*)(const nlohmann::json& vector, std::size_t repeat);

struct Suite {
  const char* name;
  const char* what;
  SuiteFunction check;
  EngineTiming time_engine = nullptr;  // null: --repeat times the whole check
};

// Every suite the runner knows, in the order `numaplace conformance --help` lists them.
const std::vector<Suite>& all_suites();

}  // namespace numaplace::conformance
