/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The operator's constraints of a domain about to be placed (placement/lifecycle/operator_constraints.h):
// those numaplace's record keeps when the domain has one (its <vcpupin>, <numatune> ... are then
// numaplace's own output), else read from the domain's elements, the first time it is placed.
// An element numaplace cannot place within is a named error: ConflictingConstraint for
// <vcpu placement='auto'> and <numatune placement='auto'> (numad's choice, which a placement
// would override).
#pragma once

#include <libxml/tree.h>

#include <string>
#include <vector>

#include "placement/model/error.h"
#include "placement/lifecycle/operator_constraints.h"
#include "xml/domain_bindings.h"

namespace numaplace::xml {

// With a record that keeps the elements as numaplace wrote them, an element the operator changed
// since is taken as theirs (with_operator_edits), with a sentence in `edits`.
Result<OperatorConstraints> read_operator_constraints(const xmlDoc* doc, const DomainBindings& bindings,
                                                      const std::string& what, std::vector<std::string>& edits);

// The domain's binding elements as they stand, in the shape of the operator's constraints.
OperatorConstraints constraints_as_written(const DomainBindings& bindings);

}  // namespace numaplace::xml
