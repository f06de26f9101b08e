// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/request/page_size.h"

#include <algorithm>
#include <vector>

#include "placement/request/guest_topology.h"
#include "placement/request/spec_keys.h"
#include "placement/model/fit_demands.h"

namespace numaplace {

namespace {

Error forbidden_by_image(const ImageProperties& image, const std::string& key, const std::string& flavor_value) {
  return make_error("MemoryPageSizeForbidden", "Page size " + *image.mem_page_size + " forbidden against '" +
                                                   flavor_value + "': the image may only narrow a flavor's " + key +
                                                   "=any or large");
}

}  // namespace

Result<PageSizeValue> page_size_constraint(const std::string& flavor_value, const std::string& key,
                                           const ImageProperties& image) {
  const bool image_set = image.mem_page_size && !image.mem_page_size->empty();
  auto page = parse_page_size(flavor_value);
  if (!page) return page.error();
  if (image_set) {
    if (page->kib == kPageSizeAny || page->kib == kPageSizeLarge) return parse_page_size(*image.mem_page_size);
    return forbidden_by_image(image, key, flavor_value);
  }
  return *page;
}

Result<PageSizeValue> page_size_constraint(const SpecMap& flavor_specs, const ImageProperties& image) {
  auto it = flavor_specs.find("hw:mem_page_size");
  const bool flavor_set = it != flavor_specs.end() && !it->second.empty();
  const bool image_set = image.mem_page_size && !image.mem_page_size->empty();
  if (!flavor_set) {
    if (image_set) return forbidden_by_image(image, "hw:mem_page_size", "<empty>");
    return PageSizeValue{};
  }
  return page_size_constraint(it->second, "hw:mem_page_size", image);
}

bool names_page_size(const GuestRequest& request) {
  const auto given = [](const SpecMap& specs, const std::string& key) {
    const auto it = specs.find(key);
    return it != specs.end() && !it->second.empty();
  };
  const bool per_cell = std::any_of(request.flavor_specs.begin(), request.flavor_specs.end(), [](const auto& spec) {
    return is_indexed_key(spec.first, kCellPageSizeKey) && !spec.second.empty();
  });
  return per_cell || given(request.flavor_specs, "hw:mem_page_size") || given(request.image_props, "hw_mem_page_size");
}

std::string describe_page_size(std::int64_t request) {
  if (request == kPageSizeSmall) return "small pages";
  if (request == kPageSizeLarge) return "large pages";
  if (request == kPageSizeAny) return "pages of any size";
  return std::to_string(request) + " KiB pages";
}

namespace {

std::string mib_text(std::uint64_t kib) {
  if (kib % 1024 == 0) return std::to_string(kib / 1024) + " MiB";
  return std::to_string(kib) + " KiB";
}

}  // namespace

std::optional<std::uint64_t> choose_page_size(const HostCell& cell, std::int64_t request, std::uint64_t memory_kib,
                                              std::string* why) {
  std::vector<std::uint64_t> sizes;
  for (const auto& pool : cell.pages) {
    if (pool.size_kib > 0) sizes.push_back(pool.size_kib);  // a 0 KiB pool holds nothing (and divides by zero)
  }
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  std::vector<std::uint64_t> candidates;
  if (request == kPageSizeSmall) {
    if (!sizes.empty()) candidates.push_back(sizes.back());
  } else if (request == kPageSizeLarge) {
    if (sizes.size() > 1) candidates.assign(sizes.begin(), sizes.end() - 1);
  } else if (request == kPageSizeAny) {
    candidates = sizes;
  } else if (request > 0) {
    candidates.push_back(static_cast<std::uint64_t>(request));
  }
  std::string tried;
  for (std::uint64_t size : candidates) {
    auto pool = std::find_if(cell.pages.begin(), cell.pages.end(), [&](const PagePool& p) { return p.size_kib == size; });
    if (pool == cell.pages.end()) {
      if (why) *why = "needs " + describe_page_size(request) + ", host cell " + std::to_string(cell.id) + " has none";
      return std::nullopt;
    }
    const std::uint64_t free_kib = pool->free() * size;
    // The cell's memory must be whole pages of this size (a shape, not an amount) and fit in the
    // pool's free pages (fit_demands.h), like every other fit check.
    if (memory_kib % size == 0 &&
        fits_within("pages", static_cast<double>(memory_kib), static_cast<double>(free_kib))) {
      return size;
    }
    tried += (tried.empty() ? "" : "; ") + std::to_string(size) + " KiB pages: " + mib_text(free_kib) + " free" +
             (memory_kib % size != 0 ? " (not a whole number of pages)" : "");
  }
  if (why) {
    if (candidates.empty()) {
      *why = "needs " + describe_page_size(request) + ", host cell " + std::to_string(cell.id) +
             (cell.pages.empty() ? " reports no page sizes" : " has no such page size");
    } else {
      *why = "needs " + mib_text(memory_kib) + " in " + describe_page_size(request) + ", host cell " +
             std::to_string(cell.id) + " has " + tried;
    }
  }
  return std::nullopt;
}

}  // namespace numaplace
