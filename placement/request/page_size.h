/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Memory page sizes. page_size_constraint applies Nova's rules to hw:mem_page_size
// and the image's hw_mem_page_size (the image may only narrow "any" or "large";
// anything else it says is MemoryPageSizeForbidden). choose_page_size picks the
// host page size for one guest cell the way Nova does: small = the smallest size,
// large = every larger size, any = every size, largest first; a size is taken when
// its FREE pages hold the cell exactly (a whole number of pages, no ratio).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "placement/model/error.h"
#include "placement/model/guest_request.h"
#include "placement/model/host_topology.h"
#include "placement/request/image_properties.h"
#include "placement/request/spec_values.h"

namespace numaplace {

Result<PageSizeValue> page_size_constraint(const SpecMap& flavor_specs, const ImageProperties& image);

// The same rules for one flavor value given under `key` (numaplace:mem_page_size.N, a guest
// cell's own page size): the value parsed, the image's hw_mem_page_size narrowing only any or large.
Result<PageSizeValue> page_size_constraint(const std::string& flavor_value, const std::string& key,
                                           const ImageProperties& image);

// The chosen page size in KiB, or nullopt with the reason in *why (when why is not null).
std::optional<std::uint64_t> choose_page_size(const HostCell& cell, std::int64_t request, std::uint64_t memory_kib,
                                              std::string* why);

std::string describe_page_size(std::int64_t request);

// Whether the request names a page size for some guest cell: hw:mem_page_size, the image's
// hw_mem_page_size, or a numaplace:mem_page_size.N (an empty value names none). A domain's
// <hugepages> stands in for the page size only of a request that names none.
bool names_page_size(const GuestRequest& request);

}  // namespace numaplace
