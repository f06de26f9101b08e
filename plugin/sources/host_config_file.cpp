// SPDX-License-Identifier: LGPL-2.1-or-later
#include "plugin/sources/host_config_file.h"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "placement/model/memory_size.h"
#include "placement/request/spec_values.h"
#include "xml/xml_document.h"
#include "placement/model/text_items.h"

namespace numaplace::plugin {
namespace {

struct Line {
  std::size_t number = 0;
  std::string value;
};

const std::map<std::string, std::set<std::string>>& known_keys() {
  static const std::map<std::string, std::set<std::string>> keys{
      {"DEFAULT", {"cpu_allocation_ratio", "ram_allocation_ratio", "reserved_huge_pages"}},
      {"compute", {"cpu_dedicated_set", "cpu_shared_set"}},
      {"numaplace", {"reserved_cpus", "reserved_memory", "accounting"}},
  };
  return keys;
}

bool repeatable(const std::string& key) { return key == "reserved_huge_pages" || key == "reserved_memory"; }

// Nova-style "2048", "2MB", "1GB", "1GiB"; plain numbers are KiB.
Result<std::uint64_t> size_kib(std::string_view text, const std::string& what) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  std::string unit(text.substr(digits));
  if (unit.empty()) unit = "KiB";
  // Nova reads KB/MB/GB here as powers of 1024, as page sizes are.
  if (unit == "KB" || unit == "K" || unit == "k") unit = "KiB";
  if (unit == "MB" || unit == "M") unit = "MiB";
  if (unit == "GB" || unit == "G") unit = "GiB";
  return memory_to_kib(text.substr(0, digits), unit, what);
}

// "node:0,size:1GB,count:2" into its fields; every field named in `fields`, each once.
Result<std::map<std::string, std::string>> fields_of(std::string_view text, const std::set<std::string>& fields,
                                                     const std::string& what) {
  std::map<std::string, std::string> out;
  for (std::string_view raw : split_items(text)) {
    const std::string_view item = trim_blanks(raw);
    const std::size_t colon = item.find(':');
    const std::string key(trim_blanks(item.substr(0, colon)));
    if (colon == std::string_view::npos || fields.count(key) == 0 || out.count(key) != 0) {
      std::string names;
      for (const auto& f : fields) names += (names.empty() ? "" : ",") + f + ":VALUE";
      return make_error("InvalidHostConfig", what + " is '" + std::string(text) + "'; write " + names);
    }
    out[key] = std::string(trim_blanks(item.substr(colon + 1)));
  }
  if (out.size() != fields.size()) {
    std::string names;
    for (const auto& f : fields) names += (names.empty() ? "" : ",") + f + ":VALUE";
    return make_error("InvalidHostConfig", what + " is '" + std::string(text) + "'; write " + names);
  }
  return out;
}

Result<std::uint32_t> node_of(const std::string& text, const std::string& what) {
  std::uint32_t node = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), node);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || node > kMaxCpuId) {
    return make_error("InvalidHostConfig", what + ": node '" + text + "' is not a NUMA node number");
  }
  return node;
}

Result<double> ratio_of(const std::string& text, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !(value > 0) || value > 1e6) {
    return make_error("InvalidHostConfig", what + " is '" + text + "'; give a number above 0, e.g. 16.0");
  }
  return value;
}

}  // namespace

Result<HostConfig> parse_host_config(std::string_view text, const std::string& what) {
  HostConfig config;
  config.source = what;
  std::map<std::string, std::vector<Line>> values;  // "section.key"
  std::string section;
  std::size_t number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    ++number;
    const std::string_view line = trim_blanks(raw);
    const std::string where = what + " line " + std::to_string(number);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[') {
      if (line.back() != ']') return make_error("InvalidHostConfig", where + ": '" + std::string(line) + "' is no [section]");
      section = std::string(trim_blanks(line.substr(1, line.size() - 2)));
      if (known_keys().count(section) == 0) {
        return make_error("InvalidHostConfig", where + ": unknown section [" + section +
                                                   "]; numaplace reads [DEFAULT], [compute] and [numaplace]");
      }
      continue;
    }
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      return make_error("InvalidHostConfig", where + ": '" + std::string(line) + "' is not KEY = VALUE");
    }
    const std::string key(trim_blanks(line.substr(0, eq)));
    const std::string value(trim_blanks(line.substr(eq + 1)));
    const std::string in = section.empty() ? "DEFAULT" : section;
    if (known_keys().at(in).count(key) == 0) {
      std::string hint;
      for (const auto& [other, keys] : known_keys()) {
        if (keys.count(key) != 0) hint = "; it belongs in [" + other + "]";
      }
      if (key == "reserved_host_cpus" || key == "reserved_host_memory_mb") {
        hint = "; Nova's " + key + " is an amount for its placement service, not a set of CPUs or a cell's "
               "memory: use [numaplace] reserved_cpus (a CPU list) or reserved_memory (node:N,size:SIZE)";
      }
      return make_error("InvalidHostConfig", where + ": unknown key '" + key + "' in [" + in + "]" + hint);
    }
    auto& lines = values[in + "." + key];
    if (!lines.empty() && !repeatable(key)) {
      return make_error("InvalidHostConfig", where + ": " + key + " is already set on line " +
                                                 std::to_string(lines.front().number) + "; set it once");
    }
    lines.push_back({number, value});
  }

  for (const auto& [name, lines] : values) {
    const std::string key = name.substr(name.find('.') + 1);
    for (const auto& line : lines) {
      const std::string where = what + " line " + std::to_string(line.number) + ": " + key;
      if (key == "cpu_allocation_ratio" || key == "ram_allocation_ratio") {
        auto ratio = ratio_of(line.value, where);
        if (!ratio) return ratio.error();
        (key == "cpu_allocation_ratio" ? config.cpu_allocation_ratio : config.ram_allocation_ratio) = *ratio;
      } else if (key == "cpu_dedicated_set" || key == "cpu_shared_set" || key == "reserved_cpus") {
        // An empty value is no value, as Nova reads its own (`if not CONF.compute.cpu_shared_set`):
        // not an empty set that would leave the host no CPU for guests.
        if (line.value.empty()) continue;
        auto cpus = parse_nova_cpu_spec(line.value, where);
        if (!cpus) return make_error("InvalidHostConfig", cpus.error().message);
        if (key == "reserved_cpus") {
          config.reserved_cpus = *cpus;
        } else {
          (key == "cpu_dedicated_set" ? config.cpu_dedicated_set : config.cpu_shared_set) = *cpus;
        }
      } else if (key == "reserved_huge_pages") {
        auto fields = fields_of(line.value, {"node", "size", "count"}, where);
        if (!fields) return fields.error();
        auto node = node_of(fields->at("node"), where);
        if (!node) return node.error();
        auto size = size_kib(fields->at("size"), where + " size");
        if (!size) return make_error("InvalidHostConfig", size.error().message);
        std::uint64_t count = 0;
        const std::string& text = fields->at("count");
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
        if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
          return make_error("InvalidHostConfig", where + ": count '" + text + "' is not a whole number of pages");
        }
        for (const auto& earlier : config.reserved_huge_pages) {
          if (earlier.node == *node && earlier.size_kib == *size) {
            return make_error("InvalidHostConfig", where + ": node " + std::to_string(*node) + " and size " +
                                                       std::to_string(*size) + " KiB are reserved by an earlier line "
                                                       "too; give each node and page size once, with the whole count");
          }
        }
        config.reserved_huge_pages.push_back({*node, *size, count});
      } else if (key == "reserved_memory") {
        auto fields = fields_of(line.value, {"node", "size"}, where);
        if (!fields) return fields.error();
        auto node = node_of(fields->at("node"), where);
        if (!node) return node.error();
        auto size = size_kib(fields->at("size"), where + " size");
        if (!size) return make_error("InvalidHostConfig", size.error().message);
        for (const auto& earlier : config.reserved_memory) {
          if (earlier.node == *node) {
            return make_error("InvalidHostConfig", where + ": node " + std::to_string(*node) +
                                                       " is reserved by an earlier line too; give each node once, "
                                                       "with the whole size");
          }
        }
        config.reserved_memory.push_back({*node, *size});
      } else if (key == "accounting") {
        if (line.value == "exclusive") {
          config.accounting = Accounting::Exclusive;
        } else if (line.value == "nova") {
          config.accounting = Accounting::Nova;
        } else {
          return make_error("InvalidHostConfig", where + " is '" + line.value +
                                                     "'; use exclusive (the default: pinned pCPUs are nobody else's) "
                                                     "or nova (Nova's own accounting, which lets them overlap)");
        }
      }
    }
  }
  return config;
}

Result<std::optional<HostConfig>> load_host_config(const std::string& path, bool this_machine) {
  std::string file = path;
  bool required = !file.empty();
  if (file.empty() && this_machine) {
    const char* env = std::getenv("NUMAPLACE_CONFIG");
    file = env != nullptr && *env != '\0' ? env : kDefaultHostConfigPath;
    required = env != nullptr && *env != '\0';
  }
  if (file.empty()) return std::optional<HostConfig>{};
  std::error_code ec;
  if (!required && !std::filesystem::exists(file, ec)) return std::optional<HostConfig>{};
  auto text = xml::read_text_file(file, "host configuration");
  if (!text) return text.error();
  auto config = parse_host_config(*text, "host configuration '" + file + "'");
  if (!config) return config.error();
  return std::optional<HostConfig>{std::move(*config)};
}

bool is_local_uri(const std::string& uri) {
  const std::size_t scheme = uri.find("://");
  if (scheme == std::string::npos) return false;
  const std::string driver = uri.substr(0, scheme);
  return driver.rfind("test", 0) != 0 && uri.compare(scheme + 3, 1, "/") == 0;
}

}  // namespace numaplace::plugin
