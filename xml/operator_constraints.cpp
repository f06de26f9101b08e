// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/operator_constraints.h"

#include "xml/placement_record.h"

namespace numaplace::xml {

OperatorConstraints constraints_as_written(const DomainBindings& bindings) {
  OperatorConstraints constraints;
  constraints.vcpu_cpuset = bindings.threads.vcpu_cpuset;
  constraints.vcpupins = bindings.threads.vcpupins;
  constraints.emulatorpin = bindings.threads.emulatorpin;
  constraints.iothreadpins = bindings.threads.iothreadpins;
  constraints.memory = {bindings.memory.mode, bindings.memory.nodeset};
  for (const auto& [cell, tune] : bindings.memnodes) constraints.memnodes[cell] = {tune.mode, tune.nodeset};
  return constraints;
}

Result<OperatorConstraints> read_operator_constraints(const xmlDoc* doc, const DomainBindings& bindings,
                                                      const std::string& what, std::vector<std::string>& edits) {
  if (has_record(doc)) {
    auto recorded = read_recorded_constraints(doc, what);
    if (!recorded) return recorded.error();
    auto written = read_recorded_written(doc, what);
    if (!written) return written.error();
    if (!*written) return recorded->value_or(OperatorConstraints{});
    return with_operator_edits(recorded->value_or(OperatorConstraints{}), **written, constraints_as_written(bindings),
                               edits);
  }
  const auto numad = [&](const std::string& element) {
    return make_error("ConflictingConstraint",
                      what + ": " + element + " leaves the placement to numad, which numaplace would override; "
                                              "remove placement='auto' to have numaplace place the guest");
  };
  if (bindings.threads.vcpu_placement_auto) return numad("<vcpu placement='auto'>");
  if (bindings.memory.placement_auto) return numad("<numatune><memory placement='auto'>");
  return constraints_as_written(bindings);
}

}  // namespace numaplace::xml
