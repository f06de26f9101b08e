// SPDX-License-Identifier: LGPL-2.1-or-later
#include "xml/guest_pages.h"

#include <algorithm>
#include <optional>

#include "placement/model/count_words.h"
#include "placement/model/cpu_set.h"
#include "placement/model/memory_size.h"
#include "xml/xml_document.h"

namespace numaplace::xml {
namespace {

Error invalid(const std::string& what, const std::string& sentence) { return make_error("InvalidDomain", what + ": " + sentence); }

}  // namespace

Result<GuestPages> read_guest_pages(const xmlNode* root, std::size_t guest_cells, const std::string& what) {
  GuestPages out;
  const xmlNode* hugepages = first_child(first_child(root, "memoryBacking"), "hugepages");
  out.hugepages = hugepages != nullptr;
  bool default_given = false;
  for (const xmlNode* page : child_elements(hugepages, "page")) {
    ++out.page_elements;
    auto size = domain_memory_to_kib(attribute(page, "size").value_or(""), attribute(page, "unit").value_or("KiB"),
                                     what + " <hugepages><page size>");
    if (!size) return size.error();
    if (*size == 0) return invalid(what, "<hugepages><page size='0'> is no page size; give the huge page size, like 2048 KiB");
    std::optional<CpuSet> nodeset;
    if (const auto text = attribute(page, "nodeset")) {
      auto cells = parse_cpu_list(*text, what + " <hugepages><page nodeset>");
      if (!cells) return cells.error();
      if (cells->empty()) return invalid(what, "<hugepages><page nodeset> names no guest cell");
      nodeset = std::move(*cells);
    }
    if (guest_cells == 0 && nodeset && *nodeset == CpuSet::range(0, 0)) nodeset.reset();
    if (!nodeset) {
      if (default_given) {
        return invalid(what, "<hugepages> has two <page> elements without a nodeset; give one of them the guest "
                             "cells it is for");
      }
      out.default_page_kib = *size;
      default_given = true;
      continue;
    }
    for (std::uint32_t c : *nodeset) {
      if (c >= guest_cells) {
        return invalid(what, "<hugepages><page nodeset> names guest cell " + std::to_string(c) + ", but the guest has " +
                                 (guest_cells == 0 ? std::string("no <cpu><numa> cells") : count_of(guest_cells, "cell")));
      }
      if (!out.page_by_cell.emplace(c, *size).second) {
        return invalid(what, "<hugepages> gives guest cell " + std::to_string(c) + " two <page> elements; give each "
                             "cell one page size");
      }
    }
  }
  if (out.hugepages && out.page_elements == 0) out.default_page_kib = 2048;  // libvirt leaves it to the kernel
  return out;
}

std::uint64_t page_of_cell(const GuestPages& pages, std::uint32_t cell) {
  const auto it = pages.page_by_cell.find(cell);
  return it != pages.page_by_cell.end() ? it->second : pages.default_page_kib;
}

std::set<std::uint64_t> page_sizes_of_cells(const GuestPages& pages, std::uint32_t cells) {
  std::set<std::uint64_t> sizes;
  for (std::uint32_t cell = 0; cell < std::max<std::uint32_t>(cells, 1); ++cell) sizes.insert(page_of_cell(pages, cell));
  return sizes;
}

}  // namespace numaplace::xml
