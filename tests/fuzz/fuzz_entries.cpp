// SPDX-License-Identifier: LGPL-2.1-or-later
#include "fuzz/fuzz_entries.h"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "conformance/suite.h"
#include "placement/model/cpu_set.h"
#include "placement/fit/fit.h"
#include "placement/request/guest_topology.h"
#include "plugin/service/fit_json.h"
#include "plugin/sources/host_cells.h"
#include "plugin/sources/host_json.h"
#include "plugin/sources/hwloc_source.h"
#include "plugin/service/place_domain.h"
#include "plugin/service/qemu_hook.h"
#include "xml/capabilities_reader.h"
#include "xml/domain_claims.h"
#include "xml/domain_reader.h"
#include "xml/nodedev_reader.h"
#include "xml/xml_document.h"

namespace numaplace::fuzz {
namespace {

// The fixed host every domain and spec is placed on: 2 cells x 4 CPUs (2 cores x 2 threads),
// 4 GiB each with a 2 MiB page pool, distances 10/21.
HostTopology two_cell_host() {
  HostTopology host;
  for (std::uint32_t c = 0; c < 2; ++c) {
    HostCell cell;
    cell.id = c;
    cell.cpus = CpuSet::range(4 * c, 4 * c + 3);
    cell.shared_cpus = cell.cpus;
    cell.dedicated_cpus = cell.cpus;
    cell.siblings = {CpuSet{4 * c, 4 * c + 1}, CpuSet{4 * c + 2, 4 * c + 3}};
    cell.memory_kib = 4 * 1024 * 1024;
    cell.pages = {PagePool{4, 1024 * 1024, 0, 0}, PagePool{2048, 512, 0, 0}};
    cell.socket = c;
    cell.distances = c == 0 ? std::vector<std::uint32_t>{10, 21} : std::vector<std::uint32_t>{21, 10};
    host.cells.push_back(std::move(cell));
  }
  return host;
}

const HostTopology& fixed_host() {
  static const HostTopology host = two_cell_host();
  return host;
}

Error invariant_broken(const std::string& what) {
  // A broken invariant is a bug, not a refusal: abort so that the fuzzer reports it.
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what.c_str());
  std::abort();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\r' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

Outcome cpulist(std::string_view data) {
  auto set = parse_cpu_list(data, "fuzzed cpulist");
  if (!set) return set.error();
  const std::string canonical = to_cpu_list(*set);
  if (set->empty()) return std::nullopt;  // "0,^0" parses to nothing; nothing to round-trip
  auto again = parse_cpu_list(canonical, "canonical cpulist");
  if (!again || !(*again == *set)) invariant_broken("to_cpu_list does not round-trip '" + canonical + "'");
  return std::nullopt;
}

Outcome specs(std::string_view data) {
  GuestRequest request;
  request.vcpus = 4;
  request.memory_kib = 2048 * 1024;
  bool image = false;
  bool first = true;
  std::size_t start = 0;
  while (start <= data.size()) {
    std::size_t end = data.find('\n', start);
    if (end == std::string_view::npos) end = data.size();
    std::string_view line = trim(data.substr(start, end - start));
    start = end + 1;
    if (first && !line.empty() && line.find('=') == std::string_view::npos && line != "--") {
      // "vcpus memory_mib": size the guest (kept small enough for the fit to stay quick).
      unsigned long vcpus = 0, memory_mib = 0;
      const std::string size(line);
      if (std::sscanf(size.c_str(), "%lu %lu", &vcpus, &memory_mib) == 2) {
        request.vcpus = static_cast<std::uint32_t>(vcpus % 1025);
        request.memory_kib = static_cast<std::uint64_t>(memory_mib % (1u << 24)) * 1024;
      }
    } else if (line == "--") {
      image = true;
    } else if (auto eq = line.find('='); eq != std::string_view::npos) {
      (image ? request.image_props : request.flavor_specs)[std::string(line.substr(0, eq))] =
          std::string(line.substr(eq + 1));
    }
    first = false;
    if (end == data.size()) break;
  }
  auto topology = derive_guest_topology(request);
  if (!topology) return topology.error();
  if (!*topology) return std::nullopt;
  FitResult fit = fit_guest(fixed_host(), **topology);
  if (!fit.placement) return make_error("NoFit", fit.summary);
  return std::nullopt;
}

Outcome capabilities_xml(std::string_view data) {
  auto host = xml::read_capabilities(data, "fuzzed capabilities XML");
  if (!host) return host.error();
  return std::nullopt;
}

Outcome nodedev_xml(std::string_view data) {
  auto one = xml::read_pci_node_device(data, "fuzzed node device XML");
  auto many = xml::read_node_devices(data, "fuzzed node device XML");
  if (!many) return many.error();
  if (!one) return one.error();
  return std::nullopt;
}

Outcome domain_xml(std::string_view data) {
  const HostTopology& host = fixed_host();
  auto doc = xml::parse_document(data, "fuzzed domain XML");
  if (!doc) return doc.error();
  auto summary = xml::read_domain_summary(doc->get(), "fuzzed domain XML");
  auto claim = xml::read_guest_claim(doc->get(), host, "fuzzed domain XML");
  if (claim) {
    HostTopology used = host;
    (void)apply_claims(used, {*claim});
  }
  plugin::PlaceRequest request;
  request.domain_xml = std::string(data);
  request.domain_name_for_errors = "fuzzed domain XML";
  auto from_metadata = plugin::place_domain(host, request);  // the request stored in the domain, if any
  request.flavor_specs = {{"hw:numa_nodes", "1"}};
  auto placed = plugin::place_domain(host, request);
  if (placed) {
    // The rewritten document must read back (claims and all) and place again.
    auto again_doc = xml::parse_document(placed->domain_xml, "rewritten domain XML");
    if (!again_doc) invariant_broken("place_domain wrote XML it cannot read: " + again_doc.error().message);
    auto again_claim = xml::read_guest_claim(again_doc->get(), host, "rewritten domain XML");
    if (!again_claim) invariant_broken("claims of the rewritten domain unreadable: " + again_claim.error().message);
    request.domain_xml = placed->domain_xml;
    auto again = plugin::place_domain(host, request);
    if (!again) invariant_broken("placing the rewritten domain again failed: " + again.error().message);
  }
  if (!summary) return summary.error();
  if (!claim) return claim.error();
  if (!placed) return placed.error();
  if (!from_metadata) return from_metadata.error();
  return std::nullopt;
}

Outcome hwloc_xml(std::string_view data) {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir != nullptr ? dir : "/tmp") + "/numaplace-fuzz-hwloc-" + std::to_string(getpid()) + ".xml";
  }();
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return make_error("CannotWrite", "cannot write " + path);
  std::fwrite(data.data(), 1, data.size(), file);
  std::fclose(file);
  auto host = plugin::load_hwloc_xml(path);
  std::remove(path.c_str());
  if (!host) return host.error();
  return std::nullopt;
}

Outcome json_vector(std::string_view data) {
  nlohmann::json vector = nlohmann::json::parse(data, nullptr, false);
  if (vector.is_discarded() || !vector.is_object()) return make_error("NotJsonObject", "not a JSON object");
  Outcome outcome;
  for (const auto& suite : conformance::all_suites()) {
    try {
      (void)suite.check(vector);
    } catch (const nlohmann::json::exception& e) {
      if (!outcome) outcome = make_error("MalformedVector", std::string(suite.name) + ": " + e.what());
    }
  }
  return outcome;
}

Outcome hook_stdin(std::string_view data) {
  const std::size_t newline = std::min(data.find('\n'), data.size());
  const std::string first_line(trim(data.substr(0, newline)));
  const std::size_t space = first_line.find(' ');
  plugin::HookInput input;
  input.guest = "fuzzed";
  input.op = first_line.substr(0, space);
  input.subop = space == std::string::npos ? "" : first_line.substr(space + 1);
  input.domain_xml = std::string(data.substr(std::min(newline + 1, data.size())));
  plugin::HookSources sources;
  sources.host = [] { return Result<HostTopology>(fixed_host()); };
  sources.running = []() -> Result<std::vector<plugin::DomainXml>> {
    static const char* const kPinned =
        "<domain type='kvm'><name>running-pinned</name><memory unit='MiB'>512</memory><vcpu>2</vcpu>"
        "<cputune><vcpupin vcpu='0' cpuset='0'/><vcpupin vcpu='1' cpuset='1'/></cputune>"
        "<numatune><memory mode='strict' nodeset='0'/></numatune><os><type>hvm</type></os></domain>";
    return std::vector<plugin::DomainXml>{{"running-pinned", "", true, kPinned}};
  };
  plugin::HookVerdict verdict = plugin::decide_qemu_hook(input, sources);
  if (verdict.refused) {
    if (verdict.refusal.name.empty()) invariant_broken("a refusal without an error name");
    return verdict.refusal;
  }
  if (!verdict.new_xml.empty()) {
    auto doc = xml::parse_document(verdict.new_xml, "hook output");
    if (!doc) invariant_broken("the hook printed XML that does not parse: " + doc.error().message);
    if (!xml::read_domain_summary(doc->get(), "hook output")) invariant_broken("the hook printed a non-domain");
  }
  return std::nullopt;
}

namespace {

// An answer text of the fit API must be a JSON object saying which kind of answer it is.
void check_answer_text(const std::string& text) {
  const auto answer = nlohmann::json::parse(text, nullptr, false);
  if (answer.is_discarded() || !answer.is_object() || !answer.contains("kind")) {
    invariant_broken("a fit answer that is not a JSON object with a kind: " + text);
  }
}

}  // namespace

Outcome fit_request_json(std::string_view data) {
  auto request = plugin::fit_request_from_json_text(data);
  if (!request) return request.error();
  if (!request->has_value()) return std::nullopt;
  const nlohmann::json written = plugin::guest_topology_json(*request);
  auto again = plugin::fit_request_from_json(nlohmann::json{{"topology", written}});
  if (!again) invariant_broken("a topology written as JSON does not read back: " + again.error().message);
  if (plugin::guest_topology_json(*again) != written) {
    invariant_broken("a topology read back differs: " + written.dump() + " -> " + plugin::guest_topology_json(*again).dump());
  }
  check_answer_text(plugin::fit_answer_text(fit_guest(fixed_host(), **request)));
  return std::nullopt;
}

namespace {

// What every accepted host must keep: written as JSON it reads back to the same host, and a
// 1-cell guest of 1 vCPU and 1 GiB gets an answer that is a JSON object with a "kind".
void check_accepted_host(const HostTopology& host) {
  const nlohmann::json written = plugin::host_to_json(host);
  auto again = plugin::host_from_json(written);
  if (!again) invariant_broken("a host written as JSON does not read back: " + again.error().message);
  const nlohmann::json reread = plugin::host_to_json(*again);
  if (reread != written) {
    invariant_broken("a host read back differs: " + nlohmann::json::diff(written, reread).dump() + " (written: " +
                     written.dump() + ")");
  }
  GuestTopology guest;
  GuestCell cell;
  cell.id = 0;
  cell.cpus = CpuSet{0};
  cell.memory_kib = 1024 * 1024;
  guest.cells.push_back(cell);
  check_answer_text(plugin::fit_answer_text(fit_guest(host, guest)));
}

// The next line of `data` (without its newline), or nullopt at the end.
std::optional<std::string_view> next_line(std::string_view& data) {
  if (data.empty()) return std::nullopt;
  const std::size_t end = data.find('\n');
  const std::string_view line = data.substr(0, end);
  data.remove_prefix(end == std::string_view::npos ? data.size() : end + 1);
  return line;
}

Error not_packed_words(const std::string& why) {
  return make_error("NotPackedWords", "fuzz input for packed host cells: " + why);
}

}  // namespace

Outcome fit_host_json(std::string_view data) {
  auto host = plugin::host_from_json_text(data);
  if (!host) return host.error();
  check_accepted_host(*host);
  return std::nullopt;
}

Outcome host_cells_words(std::string_view data) {
  const auto ratios_line = next_line(data);
  const auto words_line = next_line(data);
  if (!ratios_line || !words_line) return not_packed_words("a ratios line and a words line are needed");
  const std::string ratios_text(*ratios_line);
  char* end = nullptr;
  const double cpu_ratio = std::strtod(ratios_text.c_str(), &end);
  if (end == ratios_text.c_str()) return not_packed_words("line 1 is not two ratios");
  const char* rest = end;
  const double ram_ratio = std::strtod(rest, &end);
  if (end == rest || !trim(std::string_view(end)).empty()) return not_packed_words("line 1 is not two ratios");
  std::vector<std::int64_t> words;
  std::string_view text = *words_line;
  while (true) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r')) text.remove_prefix(1);
    if (text.empty()) break;
    std::int64_t word = 0;
    const auto [stop, status] = std::from_chars(text.data(), text.data() + text.size(), word);
    if (status != std::errc() || (stop != text.data() + text.size() && *stop != ' ' && *stop != '\t' && *stop != '\r')) {
      return not_packed_words("line 2 holds a word that is not a 64-bit integer");
    }
    words.push_back(word);
    text.remove_prefix(static_cast<std::size_t>(stop - text.data()));
  }
  const std::string_view pci = next_line(data).value_or(std::string_view());
  const std::string_view networks = next_line(data).value_or(std::string_view());
  auto host = plugin::host_from_cells(words, cpu_ratio, ram_ratio, pci, networks);
  if (!host) return host.error();
  check_accepted_host(*host);
  return std::nullopt;
}

Outcome run(std::string_view harness, std::string_view data) {
  if (harness == "cpulist") return cpulist(data);
  if (harness == "specs") return specs(data);
  if (harness == "capabilities") return capabilities_xml(data);
  if (harness == "nodedev") return nodedev_xml(data);
  if (harness == "domain") return domain_xml(data);
  if (harness == "hwloc") return hwloc_xml(data);
  if (harness == "json") return json_vector(data);
  if (harness == "hook") return hook_stdin(data);
  if (harness == "fitrequest") return fit_request_json(data);
  if (harness == "fithost") return fit_host_json(data);
  if (harness == "hostcells") return host_cells_words(data);
  return make_error("UnknownHarness", "no fuzz entry named '" + std::string(harness) + "'");
}

}  // namespace numaplace::fuzz

// hwloc 2.9 leaks a few objects when it abandons a malformed XML export; that is hwloc's, not
// ours, and would otherwise stop every fuzz run of the hwloc entry (and its regression test).
extern "C" const char* __lsan_default_suppressions() { return "leak:libhwloc.so\n"; }
