/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Sentences for --explain: why a merged hint won, or why none did.
#pragma once

#include <string>

#include "placement/hints/hint_merger.h"

namespace numaplace {

std::string explain_merged_hint_choice(const MergedHintChoice& choice, const NumaInfo& numa, MaskOrder order);

}  // namespace numaplace
