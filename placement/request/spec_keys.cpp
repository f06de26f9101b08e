// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/request/spec_keys.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "placement/model/ascii_case.h"

namespace numaplace {
namespace {

// Every key of the NUMA vocabulary Nova 26 reads (besides hw:numa_* and hw_numa_*), the CPU
// topology keys included (read by cpu_topology.h, written by the domain writer), and hw:pmem
// (vpmem.h), which gives a guest a NUMA topology.
constexpr std::array kKnownKeys{
    "hw:cpu_policy", "hw:cpu_thread_policy", "hw:cpu_dedicated_mask", "hw:cpu_realtime", "hw:cpu_realtime_mask",
    "hw:mem_page_size", "hw:emulator_threads_policy", "hw:pci_numa_affinity_policy", "hw:locked_memory",
    "hw:cpu_sockets", "hw:cpu_cores", "hw:cpu_threads", "hw:cpu_max_sockets", "hw:cpu_max_cores",
    "hw:cpu_max_threads", "hw:pmem", "hw_cpu_policy", "hw_cpu_thread_policy", "hw_cpu_realtime_mask",
    "hw_mem_page_size", "hw_pci_numa_affinity_policy", "hw_emulator_threads_policy", "hw_locked_memory",
    "hw_cpu_sockets", "hw_cpu_cores", "hw_cpu_threads", "hw_cpu_max_sockets", "hw_cpu_max_cores",
    "hw_cpu_max_threads"};

// The other keys of Nova 26's hw: namespace (its API's extra spec validators), about something
// other than NUMA placement, and the image's hw_mem_encryption. Nova's API registers the CPU
// limits as hw:max_cpu_* while Nova's fit reads hw:cpu_max_*: both are taken, as Nova takes them.
constexpr std::array kOtherHardwareKeys{
    "hw:boot_menu", "hw:ephemeral_encryption", "hw:ephemeral_encryption_format", "hw:hide_hypervisor_id",
    "hw:max_cpu_cores", "hw:max_cpu_sockets", "hw:max_cpu_threads", "hw:mem_encryption", "hw:pmu",
    "hw:serial_port_count", "hw:tpm_model", "hw:tpm_version", "hw:vif_multiqueue_enabled", "hw:viommu_model",
    "hw:watchdog_action", "hw_mem_encryption"};

// The indexed keys, by the name before their ".N".
constexpr std::array kIndexedKeys{"hw:numa_cpus", "hw:numa_mem", "hw_numa_cpus", "hw_numa_mem",
                                  "numaplace:mem_page_size"};

constexpr std::string_view kNumaplacePrefix = "numaplace:";
constexpr std::string_view kHardwareNamespace = "hw:";

bool is_numa_key(std::string_view key) {
  return key == "hw:numa_nodes" || key == "hw_numa_nodes" || is_indexed_key(key, "hw:numa_cpus") ||
         is_indexed_key(key, "hw:numa_mem") || is_indexed_key(key, "hw_numa_cpus") ||
         is_indexed_key(key, "hw_numa_mem");
}

bool in(std::string_view key, const auto& list) {
  return std::any_of(list.begin(), list.end(), [&](const char* k) { return key == k; });
}

bool looks_like_numa_vocabulary(std::string_view key) {
  for (std::string_view prefix : {"hw:numa_", "hw:cpu_", "hw:mem_", "hw:emulator_", "hw:pci_", "hw_numa_", "hw_cpu_",
                                  "hw_mem_", "hw_emulator_", "hw_pci_"}) {
    if (key.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

// The key as Nova spells its keys: no blanks around it, lowercase.
std::string as_nova_spells(std::string_view key) {
  while (!key.empty() && (key.front() == ' ' || key.front() == '\t')) key.remove_prefix(1);
  while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.remove_suffix(1);
  return ascii_lowercase(key);
}

std::string hyphens_as_underscores(std::string key) {
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

// Levenshtein distance, stopping early once every entry of a row exceeds `limit`.
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t limit) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    std::size_t least = row[0];
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
      least = std::min(least, row[j]);
    }
    if (least > limit) return limit + 1;
  }
  return row[b.size()];
}

// The known key nearest to `key` (as Nova spells keys, hyphens read as underscores) within a few
// edits, an indexed key keeping its index; empty when none is that near.
std::string nearest_known_key(std::string_view key) {
  const std::string wanted = hyphens_as_underscores(as_nova_spells(key));
  std::string stem = wanted;
  std::string index;
  if (const auto dot = wanted.rfind('.'); dot != std::string::npos && dot + 1 < wanted.size() &&
                                          std::all_of(wanted.begin() + static_cast<std::ptrdiff_t>(dot) + 1,
                                                      wanted.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    stem = wanted.substr(0, dot);
    index = wanted.substr(dot);
  }
  std::vector<std::string> names;
  if (index.empty()) {
    names.assign(kKnownKeys.begin(), kKnownKeys.end());
    names.insert(names.end(), kOtherHardwareKeys.begin(), kOtherHardwareKeys.end());
    names.insert(names.end(), {"hw:numa_nodes", "hw_numa_nodes"});
  } else {
    names.assign(kIndexedKeys.begin(), kIndexedKeys.end());
  }
  std::string nearest;
  std::size_t best = 0;
  // A known key the slip is the start of (hw:pci_numa_affinity for hw:pci_numa_affinity_policy),
  // when the slip is long enough to mean one.
  if (stem.size() >= 12) {
    for (const std::string& name : names) {
      if (name.size() > stem.size() && name.compare(0, stem.size(), stem) == 0) return name + index;
    }
  }
  for (const std::string& name : names) {
    // A slip per six letters or so, at least two: hw:numanodes and hw:memory_page_size are near,
    // hw:bogus is near nothing.
    const std::size_t limit = std::max<std::size_t>(2, name.size() / 6);
    const std::size_t d = edit_distance(stem, name, limit);
    if (d <= limit && (nearest.empty() || d < best)) {
      nearest = name + index;
      best = d;
    }
  }
  return nearest;
}

// What to do about `key`: the known key nearest to it, else a check of its spelling.
std::string did_you_mean(std::string_view key) {
  const std::string near = nearest_known_key(key);
  return near.empty() ? std::string("check its spelling") : "did you mean '" + near + "'?";
}

}  // namespace

bool is_indexed_key(std::string_view key, std::string_view prefix) {
  if (key.substr(0, prefix.size()) != prefix || key.size() == prefix.size() || key[prefix.size()] != '.') return false;
  std::string_view index = key.substr(prefix.size() + 1);
  return !index.empty() && std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_known_key(std::string_view key) {
  return is_numa_key(key) || in(key, kKnownKeys) || in(key, kOtherHardwareKeys) || is_indexed_key(key, kCellPageSizeKey);
}

// Unknown keys inside the NUMA vocabulary are typos until proven otherwise, and so is a known key
// written with capitals, blanks or hyphens: Nova reads none of them, so the guest would silently
// lose its topology. An unknown hw: key Nova's API refuses, so it is refused here too.
Status check_keys(const SpecMap& map) {
  for (const auto& [key, value] : map) {
    if (is_known_key(key)) continue;
    if (const std::string spelled = as_nova_spells(key); spelled != key && (is_known_key(spelled) || looks_like_numa_vocabulary(spelled))) {
      return make_error("UnknownSpecKey", "'" + key + "' is not a key Nova reads; keys are lowercase without blanks: '" +
                                          spelled + "'");
    }
    if (const std::string underscored = hyphens_as_underscores(key); underscored != key && is_known_key(underscored)) {
      return make_error("UnknownSpecKey", "'" + key + "' is not a key Nova reads; its keys are written with "
                                          "underscores: '" + underscored + "'");
    }
    if (key.substr(0, kNumaplacePrefix.size()) == kNumaplacePrefix) {
      return make_error("UnknownSpecKey", "'" + key + "' is not a numaplace key; " + did_you_mean(key) +
                                          " (known: " + std::string(kCellPageSizeKey) + ".N)");
    }
    if (looks_like_numa_vocabulary(key)) {
      return make_error("UnknownSpecKey", "'" + key + "' is not a known NUMA key; " + did_you_mean(key) +
                                          " (known: hw:numa_nodes, hw:numa_cpus.N, hw:numa_mem.N, "
                                          "hw:cpu_policy, hw:cpu_thread_policy, hw:cpu_dedicated_mask, "
                                          "hw:cpu_realtime(_mask), hw:cpu_sockets, hw:cpu_cores, hw:cpu_threads, "
                                          "hw:cpu_max_*, hw:mem_page_size, hw:locked_memory, "
                                          "hw:emulator_threads_policy, hw:pci_numa_affinity_policy and their hw_ "
                                          "image twins)");
    }
    if (key.substr(0, kHardwareNamespace.size()) == kHardwareNamespace) {
      return make_error("UnknownSpecKey", "'" + key + "' is not a key of Nova's hw: namespace, and Nova's API "
                                          "refuses it too (\"does not appear to be a valid extra spec\"); " +
                                          did_you_mean(key));
    }
  }
  return Done{};
}

}  // namespace numaplace
