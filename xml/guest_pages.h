/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The page size of each guest cell, from a domain's <memoryBacking><hugepages>, read as libvirt
// reads it: a <page> without a nodeset is the default, the others name the guest cells they back
// (each cell once, each a cell the guest has); a cell no <page> names takes the default, and
// without one small pages; <hugepages/> without a <page> is the host's default huge page size
// (2 MiB on x86). A guest without <cpu><numa> cells has cell 0 alone, so nodeset='0' is its
// default. Every reader of a domain's pages (domain_reader, domain_bindings) uses this one.
#pragma once

#include <libxml/tree.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "placement/model/error.h"

namespace numaplace::xml {

struct GuestPages {
  bool hugepages = false;                              // <memoryBacking><hugepages> present
  std::size_t page_elements = 0;                       // how many <page> elements it has
  std::uint64_t default_page_kib = 0;                  // cells no <page nodeset> names; 0: small pages
  std::map<std::uint32_t, std::uint64_t> page_by_cell; // guest cell -> page size, from <page nodeset>
};

// `root` is the <domain>; `guest_cells` how many <cpu><numa> cells it has. InvalidDomain (naming
// `what`) for a size that is no page size, two defaults, a cell given two pages, or a nodeset
// naming a cell the guest lacks.
Result<GuestPages> read_guest_pages(const xmlNode* root, std::size_t guest_cells, const std::string& what);

// The page size of guest cell `cell` (0: small pages).
std::uint64_t page_of_cell(const GuestPages& pages, std::uint32_t cell);

// The page sizes guest cells 0 to `cells` - 1 use (cell 0 alone when `cells` is 0); 0: small pages.
std::set<std::uint64_t> page_sizes_of_cells(const GuestPages& pages, std::uint32_t cells);

}  // namespace numaplace::xml
