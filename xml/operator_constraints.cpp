// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/operator_constraints.h"

#include "xml/placement_record.h"

namespace numaplace::xml {

Result<OperatorConstraints> read_operator_constraints(const xmlDoc* doc, const DomainBindings& bindings,
                                                      const std::string& what) {
  if (has_record(doc)) {
    auto recorded = read_recorded_constraints(doc, what);
    if (!recorded) return recorded.error();
    return recorded->value_or(OperatorConstraints{});
  }
  const auto numad = [&](const std::string& element) {
    return make_error("ConflictingConstraint",
                      what + ": " + element + " leaves the placement to numad, which numaplace would override; "
                                              "remove placement='auto' to have numaplace place the guest");
  };
  if (bindings.threads.vcpu_placement_auto) return numad("<vcpu placement='auto'>");
  if (bindings.memory.placement_auto) return numad("<numatune><memory placement='auto'>");
  OperatorConstraints constraints;
  constraints.vcpu_cpuset = bindings.threads.vcpu_cpuset;
  constraints.vcpupins = bindings.threads.vcpupins;
  constraints.emulatorpin = bindings.threads.emulatorpin;
  constraints.iothreadpins = bindings.threads.iothreadpins;
  constraints.memory = {bindings.memory.mode, bindings.memory.nodeset};
  for (const auto& [cell, tune] : bindings.memnodes) constraints.memnodes[cell] = {tune.mode, tune.nodeset};
  return constraints;
}

}  // namespace numaplace::xml
