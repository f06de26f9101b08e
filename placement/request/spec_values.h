/* SPDX-License-Identifier: LGPL-2.1-or-later */
// How Nova reads the text of flavor extra specs and image properties, as plain
// functions: Python's int(), oslo's bool_from_string, Nova's CPU spec syntax
// ("0-3,^2,5") and its page-size values ("small", "2048", "2MB", "1GiB").
// Each parser returns a value or a named error (Nova's exception class where Nova
// raises one) and never throws. Used by guest_topology.cpp and its helpers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "placement/model/cpu_set.h"
#include "placement/model/error.h"

namespace numaplace {

// `text` without what Python's str.strip() takes off it (ASCII whitespace and \x1c-\x1f).
std::string_view trim_blanks(std::string_view text);

// Python's int(text): blanks around, an optional sign, decimal digits (single underscores between
// them, as Python allows); nullopt when int() refuses the text or its value does not fit 64 bits.
std::optional<std::int64_t> parse_python_int(std::string_view text);

// Python's int(text) clamped to 64 bits: a number too large for them is INT64_MAX (or INT64_MIN when
// negative), a size out of every range, so that it is refused where Nova refuses the size; nullopt
// when int() refuses the text.
std::optional<std::int64_t> parse_python_int_saturating(std::string_view text);

// The largest memory a guest NUMA node may ask for, in MiB (1 EiB): more than any host has.
inline constexpr std::int64_t kMaxNodeMemoryMib = std::int64_t{1} << 40;

// ImageNUMATopologyMemoryOutOfRange for a node's memory `key` = `value` MiB that no host can hold
// (negative, or over kMaxNodeMemoryMib, or too large for 64 bits), saying which.
Error node_memory_out_of_range(std::string_view key, std::string_view value);

// Python's str(int(text)) == text: no blanks, no '+', no leading zeros (and, as in Python, no
// bound on the number of digits).
bool is_canonical_int(std::string_view text);

// oslo.utils bool_from_string, non-strict: 1/t/true/on/y/yes (any case, blanks around)
// are true; everything else is false.
bool bool_from_string(std::string_view text);

// Nova's parse_cpu_spec; errors are "Invalid" and name `key`.
Result<CpuSet> parse_nova_cpu_spec(std::string_view text, const std::string& key);

// A mask written as "^a,b" means "every vCPU but a and b", otherwise the listed vCPUs
// (hw:cpu_dedicated_mask, hw:cpu_realtime_mask).
Result<CpuSet> parse_vcpu_mask(std::string_view text, std::uint32_t vcpus, const std::string& key);

// A page-size request: symbolic (kPageSizeSmall/Large/Any of guest_topology.h) or
// a size. `kib` is the size in whole KiB (Nova truncates "1536B" to 1); `requested`
// is Nova's truthiness of the unrounded value ("0" is no request at all).
struct PageSizeValue {
  std::int64_t kib = 0;
  bool requested = false;
};
Result<PageSizeValue> parse_page_size(std::string_view text);

}  // namespace numaplace
