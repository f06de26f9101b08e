/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Which flavor extra spec and image property keys a request may hold. Known: the NUMA vocabulary
// Nova 26 reads (hw:numa_*, hw:cpu_*, hw:mem_page_size, ... and their hw_ image twins), the other
// keys of Nova's hw: namespace (its API's extra spec validators: hw:watchdog_action, hw:pmu, ...),
// and numaplace's own numaplace:mem_page_size.N. check_keys refuses, as UnknownSpecKey naming the
// key meant where one is near, what would otherwise be silently dropped: a key of the hw: or
// numaplace: namespace that is none of these (Nova's API refuses such an hw: key too), a
// NUMA-looking image property, and a known key written with capitals, blanks or hyphens. Keys of
// other namespaces (resources:, trait:, quota:, hw_rng:, ...) are never refused.
#pragma once

#include <string_view>

#include "placement/model/error.h"
#include "placement/model/guest_request.h"

namespace numaplace {

// numaplace's key for one guest cell's page size: numaplace:mem_page_size.N.
inline constexpr std::string_view kCellPageSizeKey = "numaplace:mem_page_size";

// Whether `key` is `prefix`.N for a decimal N.
bool is_indexed_key(std::string_view key, std::string_view prefix);

// Whether `key` is a key numaplace knows, in either map (a flavor key in the image form, or the
// other way round, is known: the caller says it is not read where it was given).
bool is_known_key(std::string_view key);

// Done, or UnknownSpecKey for the first key of `map` (flavor extra specs or image properties)
// that would be dropped unread as a typo; the message names the known key nearest to it, if any.
Status check_keys(const SpecMap& map);

}  // namespace numaplace
