// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/request/cpu_topology.h"

#include <algorithm>
#include <array>
#include <string>

#include "placement/model/count_words.h"
#include "placement/request/spec_values.h"

namespace numaplace {
namespace {

constexpr std::array kParts{"sockets", "cores", "threads"};

// One value of the request: absent is 0; a whole number of 0 or more otherwise.
Result<std::uint64_t> read_value(const SpecMap& map, const std::string& key) {
  auto it = map.find(key);
  if (it == map.end()) return std::uint64_t{0};
  const auto value = parse_python_int(it->second);
  if (!value || *value < 0) {
    return make_error("ValueError", key + " = '" + it->second +
                                        "' is not a whole number of 0 or more (0 or absent: no preference, no limit)");
  }
  return static_cast<std::uint64_t>(*value);
}

Result<std::array<std::uint64_t, 3>> read_triple(const SpecMap& map, const std::string& prefix) {
  std::array<std::uint64_t, 3> out{};
  for (std::size_t i = 0; i < 3; ++i) {
    auto value = read_value(map, prefix + kParts[i]);
    if (!value) return value.error();
    out[i] = *value;
  }
  return out;
}

bool names_any_key(const SpecMap& map, const std::string& prefix) {
  for (const char* part : kParts) {
    if (map.count(prefix + part) != 0 || map.count(prefix + "max_" + part) != 0) return true;
  }
  return false;
}

std::string wish_text(const CpuTopologyRequest& wish) {
  std::string text;
  const std::array preferred{wish.sockets, wish.cores, wish.threads};
  const std::array limits{wish.max_sockets, wish.max_cores, wish.max_threads};
  for (std::size_t i = 0; i < 3; ++i) {
    if (preferred[i] != 0) text += std::string(text.empty() ? "" : ", ") + kParts[i] + "=" + std::to_string(preferred[i]);
  }
  for (std::size_t i = 0; i < 3; ++i) {
    if (limits[i] != 0) {
      text += std::string(text.empty() ? "" : ", ") + "at most " + std::to_string(limits[i]) + " " + kParts[i];
    }
  }
  return text.empty() ? "no preference" : text;
}

bool within(std::uint64_t value, std::uint64_t limit) { return limit == 0 || value <= limit; }
bool matches(std::uint64_t value, std::uint64_t wanted) { return wanted == 0 || value == wanted; }

// Whether every socket's vCPUs (consecutive ids, `per_socket` of them) lie in one guest cell.
bool sockets_within_cells(const std::vector<int>& cell_of, std::uint32_t per_socket) {
  for (std::size_t first = 0; first < cell_of.size(); first += per_socket) {
    for (std::size_t v = first + 1; v < first + per_socket && v < cell_of.size(); ++v) {
      if (cell_of[v] != cell_of[first]) return false;
    }
  }
  return true;
}

}  // namespace

Result<std::optional<CpuTopologyRequest>> read_cpu_topology_request(const GuestRequest& request) {
  const SpecMap& flavor = request.flavor_specs;
  const SpecMap& image = request.image_props;
  if (!names_any_key(flavor, "hw:cpu_") && !names_any_key(image, "hw_cpu_")) {
    return std::optional<CpuTopologyRequest>{};
  }
  auto flavor_max = read_triple(flavor, "hw:cpu_max_");
  if (!flavor_max) return flavor_max.error();
  auto image_max = read_triple(image, "hw_cpu_max_");
  if (!image_max) return image_max.error();
  std::array<std::uint64_t, 3> limits{};
  for (std::size_t i = 0; i < 3; ++i) {
    if ((*flavor_max)[i] != 0 && (*image_max)[i] > (*flavor_max)[i]) {
      return make_error("ImageVCPULimitsRangeExceeded",
                        std::string("Image property hw_cpu_max_") + kParts[i] + "=" + std::to_string((*image_max)[i]) +
                            " exceeds the flavor's limit hw:cpu_max_" + kParts[i] + "=" +
                            std::to_string((*flavor_max)[i]) + "; lower the image's limit");
    }
    limits[i] = (*image_max)[i] != 0 ? (*image_max)[i] : (*flavor_max)[i];
  }
  auto flavor_preferred = read_triple(flavor, "hw:cpu_");
  if (!flavor_preferred) return flavor_preferred.error();
  auto image_preferred = read_triple(image, "hw_cpu_");
  if (!image_preferred) return image_preferred.error();
  for (const auto* preferred : {&*flavor_preferred, &*image_preferred}) {
    const std::string prefix = preferred == &*flavor_preferred ? "hw:cpu_" : "hw_cpu_";
    for (std::size_t i = 0; i < 3; ++i) {
      if (!within((*preferred)[i], limits[i])) {
        return make_error("ImageVCPUTopologyRangeExceeded",
                          prefix + kParts[i] + "=" + std::to_string((*preferred)[i]) + " exceeds the limit of " +
                              std::to_string(limits[i]) + " " + kParts[i] + "; lower it or raise the limit");
      }
    }
  }
  // Any preferred value on the image replaces all of the flavor's.
  const bool image_prefers = std::any_of(image_preferred->begin(), image_preferred->end(),
                                         [](std::uint64_t v) { return v != 0; });
  const auto& preferred = image_prefers ? *image_preferred : *flavor_preferred;
  CpuTopologyRequest wish;
  wish.sockets = preferred[0];
  wish.cores = preferred[1];
  wish.threads = preferred[2];
  wish.max_sockets = limits[0];
  wish.max_cores = limits[1];
  wish.max_threads = limits[2];
  return std::optional<CpuTopologyRequest>{wish};
}

Result<CpuTopology> best_cpu_topology(std::uint32_t vcpus, const CpuTopologyRequest& wish,
                                      const std::vector<CpuSet>& cells) {
  // Every topology of `vcpus` within the limits, in Nova's order.
  std::vector<CpuTopology> possible;
  for (std::uint32_t sockets = 1; sockets <= vcpus; ++sockets) {
    if (vcpus % sockets != 0 || !within(sockets, wish.max_sockets)) continue;
    const std::uint32_t per_socket = vcpus / sockets;
    for (std::uint32_t cores = 1; cores <= per_socket; ++cores) {
      if (per_socket % cores != 0 || !within(cores, wish.max_cores)) continue;
      const std::uint32_t threads = per_socket / cores;
      if (within(threads, wish.max_threads)) possible.push_back({sockets, cores, threads});
    }
  }
  if (possible.empty()) {
    return make_error("ImageVCPULimitsRangeImpossible",
                      "No CPU topology of " + count_of(vcpus, "vCPU") + " stays within the limits (" +
                          wish_text(wish) + "); raise hw:cpu_max_sockets, _cores or _threads");
  }
  std::stable_sort(possible.begin(), possible.end(), [](const CpuTopology& a, const CpuTopology& b) {
    const std::uint64_t area_a = std::uint64_t{a.sockets} * a.cores, area_b = std::uint64_t{b.sockets} * b.cores;
    if (area_a != area_b) return area_a > area_b;
    if (a.sockets != b.sockets) return a.sockets > b.sockets;
    return a.threads > b.threads;
  });
  std::erase_if(possible, [&](const CpuTopology& t) {
    return !matches(t.sockets, wish.sockets) || !matches(t.cores, wish.cores) || !matches(t.threads, wish.threads);
  });
  if (possible.empty()) {
    return make_error("CpuTopologyUnsatisfiable",
                      "No CPU topology of " + count_of(vcpus, "vCPU") + " has what the request asks (" +
                          wish_text(wish) + "): sockets x cores x threads must be " + std::to_string(vcpus) +
                          "; change the preferred values");
  }
  if (!cells.empty()) {
    std::vector<int> cell_of(vcpus, -1);
    for (std::size_t i = 0; i < cells.size(); ++i) {
      for (std::uint32_t v : cells[i]) {
        if (v < vcpus) cell_of[v] = static_cast<int>(i);
      }
    }
    std::erase_if(possible, [&](const CpuTopology& t) { return !sockets_within_cells(cell_of, t.cores * t.threads); });
    if (possible.empty()) {
      return make_error("CpuTopologyUnsatisfiable",
                        "No CPU topology of " + count_of(vcpus, "vCPU") + " with what the request asks (" +
                            wish_text(wish) + ") keeps each socket's vCPUs within one of the guest's " +
                            count_of(cells.size(), "NUMA cell") +
                            "; ask for more sockets, or for guest cells that hold whole sockets");
    }
  }
  return possible.front();
}

}  // namespace numaplace
