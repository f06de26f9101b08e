// SPDX-License-Identifier: LGPL-2.1-or-later
// Suite resource-compare: the nine comparisons of the Resource Comparison design
// with zero/infinity defaults, for each vector of volcano/compare-design.jsonl.
#include <string>

#include "conformance/suite.h"
#include "placement/model/resource_vector.h"

namespace numaplace::conformance {
namespace {

ResourceVector resource_vector_from_json(const nlohmann::json& object) {
  ResourceVector vector;
  for (const auto& [name, amount] : object.items()) vector.set(name, amount.get<double>());
  return vector;
}

}  // namespace

VectorOutcome check_resource_compare(const nlohmann::json& vector) {
  const ResourceVector left = resource_vector_from_json(vector.at("l"));
  const ResourceVector right = resource_vector_from_json(vector.at("r"));
  const std::string default_name = vector.at("default").get<std::string>();
  if (default_name != "zero" && default_name != "infinity") {
    return VectorOutcome::skip("unknown default \"" + default_name + "\"");
  }
  const MissingDimension missing = default_name == "zero" ? MissingDimension::Zero : MissingDimension::Infinity;

  const std::pair<const char*, bool> answers[] = {
      {"Less", left.less(right, missing)},
      {"LessEqual", left.less_equal(right, missing)},
      {"LessPartly", left.less_partly(right, missing)},
      {"LessEqualPartly", left.less_equal_partly(right, missing)},
      {"Equal", left.equal(right, missing)},
      {"Greater", left.greater(right, missing)},
      {"GreaterEqual", left.greater_equal(right, missing)},
      {"GreaterPartly", left.greater_partly(right, missing)},
      {"GreaterEqualPartly", left.greater_equal_partly(right, missing)},
  };
  const nlohmann::json& expect = vector.at("expect");
  std::string wanted;
  std::string got;
  for (const auto& [name, answer] : answers) {
    if (!expect.contains(name)) continue;
    const bool expected = expect.at(name).get<bool>();
    if (expected != answer) {
      wanted += std::string(wanted.empty() ? "" : ", ") + name + "=" + (expected ? "true" : "false");
      got += std::string(got.empty() ? "" : ", ") + name + "=" + (answer ? "true" : "false");
    }
  }
  if (!wanted.empty()) return VectorOutcome::fail(wanted, got);
  return VectorOutcome::pass();
}

}  // namespace numaplace::conformance
