/* SPDX-License-Identifier: LGPL-2.1-or-later */
// Reading the fields of numaplace's JSON documents (the host schema, the fast fit API's requests)
// alike: each reader checks its value and, on the first problem, throws BadField with where it is
// ("cells[1].cpus[3]: is negative"). The exception never leaves the adapter that reads: each
// document's reader catches it and returns its own named error. Memory is memory_kib, or
// memory_mib converted, at most 1 EiB; CPU ids at most kMaxCpuId, as a list or a cpulist string.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <initializer_list>
#include <string_view>

#include "placement/model/cpu_set.h"
#include "placement/model/network_affinity.h"
#include "placement/model/pci_tag_value.h"

namespace numaplace::plugin::json_fields {

struct BadField {
  std::string message;
};

// `text` parsed as JSON (discarded when it is not JSON), and the first member an object of it
// names twice ("" when none does): nlohmann keeps the last value without a word, so a host whose
// cell gives "pinned_cpus" twice would read as the second; each reader refuses such a document.
struct ParsedJson {
  nlohmann::json value;
  std::string repeated_member;
};
ParsedJson parse_json(std::string_view text);
// "member \"pinned_cpus\" is given twice in one object; give it once".
std::string repeated_member_problem(const std::string& member);

[[noreturn]] void bad(const std::string& where, const std::string& problem);

// The member `name` of `object`, or null when it is absent or JSON null.
const nlohmann::json* field(const nlohmann::json& object, const char* name);

// A whole number from 0 to `max` (a float with no fraction is one).
std::uint64_t unsigned_of(const nlohmann::json& value, const std::string& where, std::uint64_t max);

// A list of CPU ids or a cpulist string ("0-3,8").
CpuSet cpus_of(const nlohmann::json& value, const std::string& where);

// Nova's NetworkMetadata: {"physnets": ["physnet1", ...], "tunneled": true | false}, both
// optional; physnets are non-empty strings of at most 255 bytes without control characters, at
// most 4096 of them, kept sorted without repeats (Nova holds a set).
NetworkAffinity network_of(const nlohmann::json& value, const std::string& where);

// The tags of a PCI device or one spec of a PCI request: an object of at most 64 keys, each
// non-empty, at most 255 bytes, without control characters; a value is a string of the same
// kind, null (Nova's None), or any other JSON value of at most 255 bytes as canonical text.
std::map<std::string, PciTagValue> tag_map_of(const nlohmann::json& value, const std::string& where);

// tag_map_of's inverse: the object it reads back to the same map.
nlohmann::json tag_map_json(const std::map<std::string, PciTagValue>& tags);

// Refuses a member of `object` that is not one of `known` (BadField naming it and the known
// ones): a misspelt field would otherwise be dropped without a word.
void check_members(const nlohmann::json& object, std::initializer_list<std::string_view> known, const std::string& where);

// KiB from memory_kib or memory_mib; neither: 0, or BadField when `required`.
std::uint64_t memory_of(const nlohmann::json& object, const std::string& where, bool required);

}  // namespace numaplace::plugin::json_fields
