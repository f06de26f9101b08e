// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/request/spec_values.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "placement/model/ascii_case.h"
#include "placement/request/guest_topology.h"
#include "placement/model/text_items.h"

namespace numaplace {

std::string_view trim_blanks(std::string_view s) {
  // Python's str.strip() on ASCII: the C blanks and the separators \x1c-\x1f.
  auto blank = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f'); };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

namespace {

// The digits of int(text) without sign and blanks, or nullopt when int() refuses the text: decimal
// digits, with single underscores between digits (PEP 515).
std::optional<std::string> python_int_digits(std::string_view text, bool* negative) {
  text = trim_blanks(text);
  *negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    *negative = text.front() == '-';
    text.remove_prefix(1);
  }
  std::string digits;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      digits += c;
    } else if (c != '_' || i == 0 || i + 1 == text.size() || text[i + 1] == '_') {
      return std::nullopt;
    }
  }
  if (digits.empty()) return std::nullopt;
  return digits;
}

}  // namespace

std::optional<std::int64_t> parse_python_int(std::string_view text) {
  bool negative = false;
  const auto digits = python_int_digits(text, &negative);
  if (!digits) return std::nullopt;
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(digits->data(), digits->data() + digits->size(), value);
  if (ec != std::errc() || ptr != digits->data() + digits->size()) return std::nullopt;
  return negative ? -value : value;
}

std::optional<std::int64_t> parse_python_int_saturating(std::string_view text) {
  if (auto value = parse_python_int(text)) return value;
  bool negative = false;
  if (!python_int_digits(text, &negative)) return std::nullopt;
  return negative ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
}

Error node_memory_out_of_range(std::string_view key, std::string_view value) {
  value = trim_blanks(value);
  const bool negative = !value.empty() && value.front() == '-';
  return make_error("ImageNUMATopologyMemoryOutOfRange",
                    std::string(key) + " = " + std::string(value) + " MiB " +
                        (negative ? "is negative" : "is more than any host has (at most " +
                                                        std::to_string(kMaxNodeMemoryMib) + " MiB)") +
                        "; give the node's share of the guest's memory in MiB (the nodes' shares add up to it)");
}

bool is_canonical_int(std::string_view text) {
  // Read from the text itself: Python's int has no 64-bit bound, so neither has its str.
  const std::string_view digits = text.substr(text.starts_with('-') ? 1 : 0);
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  return digits.front() != '0' || text == "0";
}

bool bool_from_string(std::string_view text) {
  const std::string lower = ascii_lowercase(trim_blanks(text));
  return lower == "1" || lower == "t" || lower == "true" || lower == "on" || lower == "y" || lower == "yes";
}

Result<CpuSet> parse_nova_cpu_spec(std::string_view text, const std::string& key) {
  CpuSet included;
  CpuSet excluded;
  for (std::string_view item : split_items(text)) {
    std::string_view rule = trim_blanks(item);
    if (!rule.empty()) {
      bool exclude = rule.front() == '^';
      std::string_view body = exclude ? rule.substr(1) : rule;
      std::size_t dash = body.find('-');
      std::optional<std::int64_t> lo;
      std::optional<std::int64_t> hi;
      if (dash == std::string_view::npos) {
        lo = hi = parse_python_int(body);
      } else {
        lo = parse_python_int(body.substr(0, dash));
        hi = parse_python_int(body.substr(dash + 1));
      }
      const char* what = dash != std::string_view::npos ? "range" : exclude ? "exclusion" : "inclusion";
      if (!lo || !hi || *lo < 0 || *hi < 0) {
        return make_error("Invalid", key + ": invalid " + std::string(what) + " expression '" + std::string(rule) +
                                         "'; write vCPU ids and ranges like 0-3,^2,5");
      }
      if (*lo > *hi) {
        return make_error("Invalid", key + ": invalid range expression '" + std::string(rule) +
                                         "': the range runs backwards");
      }
      if (*hi > kMaxCpuId) {
        return make_error("Invalid", key + ": vCPU id " + std::to_string(*hi) + " in '" + std::string(rule) +
                                         "' is above the supported maximum " + std::to_string(kMaxCpuId));
      }
      CpuSet& target = exclude ? excluded : included;
      target = target.united(CpuSet::range(static_cast<std::uint32_t>(*lo), static_cast<std::uint32_t>(*hi)));
    }
  }
  return included.minus(excluded);
}

Result<CpuSet> parse_vcpu_mask(std::string_view text, std::uint32_t vcpus, const std::string& key) {
  std::string spec(text);
  if (!trim_blanks(text).empty() && trim_blanks(text).front() == '^') {
    spec = (vcpus == 0 ? std::string() : "0-" + std::to_string(vcpus - 1)) + "," + spec;
  }
  return parse_nova_cpu_spec(spec, key);
}

namespace {

// oslo strutils.string_to_bytes(text, 'IEC'): ^[-+]?\d*\.?\d+ then an optional
// K/M/G/T with an optional 'i', then a mandatory b, bit or B. Result in bytes, rounded up.
std::optional<double> iec_bytes(std::string_view text) {
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  const std::size_t number_start = i;
  while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
  std::string_view number = text.substr(number_start, i - number_start);
  // \d*\.?\d+ : at most one dot, at least one digit after it (or digits only).
  std::size_t dots = static_cast<std::size_t>(std::count(number.begin(), number.end(), '.'));
  if (number.empty() || dots > 1 || number.back() == '.') return std::nullopt;
  std::string_view unit = text.substr(i);
  double exponent = 0;
  if (!unit.empty() && (unit.front() == 'K' || unit.front() == 'M' || unit.front() == 'G' || unit.front() == 'T')) {
    exponent = unit.front() == 'K' ? 1 : unit.front() == 'M' ? 2 : unit.front() == 'G' ? 3 : 4;
    unit.remove_prefix(1);
    if (!unit.empty() && unit.front() == 'i') unit.remove_prefix(1);
  }
  bool bits = false;
  if (unit == "b" || unit == "bit") {
    bits = true;
  } else if (unit != "B") {
    return std::nullopt;
  }
  double magnitude = std::strtod(std::string(text.substr(0, number_start + number.size())).c_str(), nullptr);
  if (bits) magnitude /= 8;
  magnitude *= std::pow(1024.0, exponent);
  return std::ceil(magnitude);
}

}  // namespace

Result<PageSizeValue> parse_page_size(std::string_view text) {
  if (text == "any") return PageSizeValue{kPageSizeAny, true};
  if (text == "large") return PageSizeValue{kPageSizeLarge, true};
  if (text == "small") return PageSizeValue{kPageSizeSmall, true};
  const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) {
    std::uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || value > (std::uint64_t{1} << 40)) {
      return make_error("MemoryPageSizeInvalid", "Invalid memory page size '" + std::string(text) + "': too large");
    }
    return PageSizeValue{static_cast<std::int64_t>(value), value != 0};
  }
  auto bytes = iec_bytes(text);
  if (bytes && *bytes < 0) {
    return make_error("MemoryPageSizeInvalid", "Invalid memory page size '" + std::string(text) +
                                                   "': a page size cannot be negative");
  }
  if (!bytes || *bytes > 1099511627776.0 * 1024) {
    return make_error("MemoryPageSizeInvalid", "Invalid memory page size '" + std::string(text) +
                                                   "'; use small, large, any, a size in KiB (2048) or with a unit (2MB, 1GB)");
  }
  const double kib = *bytes / 1024.0;
  return PageSizeValue{static_cast<std::int64_t>(kib), kib != 0.0};
}

}  // namespace numaplace
