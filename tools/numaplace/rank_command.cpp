// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace rank --hosts DIR|FILE ...: the same fit test on every host, a score per
// fitting host (placement/lifecycle/host_ranking.h), best first; --explain says why each refused
// host was refused. Hosts: capabilities XML or hwloc XML files (by their root element),
// JSON files in the nova host schema (one host, a list, or {"hosts": [...]}; usage
// counts as claimed), JSON-lines files (one host a line); a directory holds such files.
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "numaplace/cli_common.h"
#include "numaplace/explain_output.h"
#include "numaplace/command.h"
#include "numaplace/host_source.h"
#include "numaplace/json_output.h"
#include "numaplace/rank_flags.h"
#include "placement/lifecycle/host_ranking.h"
#include "placement/request/page_size.h"
#include "plugin/sources/host_json.h"
#include "plugin/sources/json_fields.h"
#include "xml/capabilities_reader.h"
#include "xml/domain_reader.h"
#include "xml/placement_record.h"
#include "xml/xml_document.h"
#include "placement/model/text_items.h"
#include "placement/model/utf8_text.h"
#include "plugin/service/json_text.h"

namespace numaplace::cli {
namespace {

namespace fs = std::filesystem;

struct RankCliOptions {
  std::vector<std::string> hosts;
  std::vector<std::string> specs;
  std::vector<std::string> image_props;
  std::string domain_path;
  std::uint32_t vcpus = 0;
  std::uint64_t memory_mib = 0;
  RankStrategyFlags strategies;  // the cells' strategy on each host (place's flags) and the hosts' scoring
  bool explain = false;
  bool json = false;
  std::size_t top = 0;
};

struct NamedHosts {
  std::vector<std::string> names;
  std::vector<HostTopology> hosts;
};

// `name`: the host's name when it gives none; `where`: where it is, for errors ("hosts/a.json",
// "hosts/a.jsonl line 3", "hosts/all.json hosts[2]").
Status add_json_host(NamedHosts& out, const nlohmann::json& host, const std::string& name, const std::string& where) {
  auto topology = plugin::host_from_json(host, "");
  if (!topology) {
    // The reader names the field from the host's root (".cells[0].cpus: ..."); the file comes first.
    const std::string& problem = topology.error().message;
    return make_error(topology.error().name,
                      where + (problem.starts_with('.') ? ": " + problem.substr(1) : problem));
  }
  const auto given = host.find("name");
  out.names.push_back(given != host.end() && given->is_string() ? given->get<std::string>() : name);
  out.hosts.push_back(std::move(*topology));
  return Done{};
}

Status load_json_file(NamedHosts& out, const fs::path& path, const std::string& text) {
  const std::string stem = path.stem().string();
  if (path.extension() == ".jsonl") {
    std::istringstream lines(text);
    std::string line;
    for (std::size_t n = 1; std::getline(lines, line); ++n) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto [parsed, repeated] = plugin::json_fields::parse_json(line);
      const std::string where = path.string() + " line " + std::to_string(n);
      if (parsed.is_discarded()) return make_error("InvalidHostJson", where + " is not JSON");
      if (!repeated.empty()) return make_error("InvalidHostJson", where + ": " + plugin::json_fields::repeated_member_problem(repeated));
      if (auto added = add_json_host(out, parsed, stem + ":" + std::to_string(n), where); !added) return added.error();
    }
    return Done{};
  }
  auto [parsed, repeated] = plugin::json_fields::parse_json(text);
  if (parsed.is_discarded()) return make_error("InvalidHostJson", path.string() + " is not valid JSON");
  if (!repeated.empty()) {
    return make_error("InvalidHostJson", path.string() + ": " + plugin::json_fields::repeated_member_problem(repeated));
  }
  const nlohmann::json* list = &parsed;
  const bool wrapped = parsed.is_object() && parsed.contains("hosts");
  if (wrapped) list = &parsed["hosts"];
  if (!list->is_array()) return add_json_host(out, parsed, stem, path.string());
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    if (auto added = add_json_host(out, (*list)[i], stem + at, path.string() + (wrapped ? " hosts" : " ") + at); !added) {
      return added.error();
    }
  }
  return Done{};
}

// The name of the first element ("capabilities", "topology", "domain" ...), skipping the
// XML declaration and comments.
std::string root_element(const std::string& text) {
  std::size_t at = 0;
  while ((at = text.find('<', at)) != std::string::npos) {
    if (text.compare(at, 4, "<!--") == 0) {
      at = text.find("-->", at);
      if (at == std::string::npos) return {};
      continue;
    }
    if (at + 1 < text.size() && (text[at + 1] == '?' || text[at + 1] == '!')) {
      ++at;
      continue;
    }
    const std::size_t end = text.find_first_of(" \t\r\n/>", at + 1);
    return text.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
  }
  return {};
}

// `in_directory`: a file that is no host (a domain XML beside the hosts) is skipped with a note.
Status load_file(NamedHosts& out, const fs::path& path, bool in_directory) {
  const std::string ext = path.extension().string();
  auto text = xml::read_text_file(path.string(), "host file");
  if (!text) return text.error();
  if (ext == ".json" || ext == ".jsonl") return load_json_file(out, path, *text);
  const std::size_t first = text->find_first_not_of(" \t\r\n");
  if (first != std::string::npos && ((*text)[first] == '{' || (*text)[first] == '[')) {
    return load_json_file(out, path, *text);  // JSON by its content, whatever the file is called
  }
  const std::string root = root_element(*text);
  if (root != "topology" && root != "capabilities") {
    // Text that is no XML at all (UTF-16, a binary, a malformed file) is named as place names it.
    if (auto doc = xml::parse_document(*text, "host file '" + path.string() + "'"); !doc) return doc.error();
    if (in_directory) {
      std::cerr << "numaplace: skipping " << path.string() << ": <" << root << "> is not a host description\n";
      return Done{};
    }
    return make_error("InvalidArgument", "--hosts " + path.string() + " holds <" + root +
                                             ">; a host is virsh capabilities XML, an hwloc export or JSON");
  }
  if (root == "topology") {
    auto host = load_hwloc_isolated(path.string());
    if (!host) return host.error();
    out.names.push_back(path.stem().string());
    out.hosts.push_back(std::move(*host));
    return Done{};
  }
  auto host = xml::read_capabilities(*text, "capabilities file '" + path.string() + "'");
  if (!host) return host.error();
  out.names.push_back(path.stem().string());
  out.hosts.push_back(std::move(*host));
  return Done{};
}

Result<NamedHosts> load_hosts(const std::vector<std::string>& sources) {
  NamedHosts out;
  for (const auto& source : sources) {
    std::error_code ec;
    if (fs::is_directory(source, ec)) {
      std::vector<fs::path> files;
      fs::directory_iterator entries(source, ec);
      // A directory that cannot be listed is not an empty one.
      if (ec) return make_error("CannotRead", "--hosts " + source + ": cannot list the directory (" + ec.message() + ")");
      for (const auto& entry : entries) {
        const std::string ext = entry.path().extension().string();
        if (entry.is_regular_file(ec) && (ext == ".xml" || ext == ".json" || ext == ".jsonl")) files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
      for (const auto& file : files) {
        if (auto loaded = load_file(out, file, true); !loaded) return loaded.error();
      }
    } else if (fs::is_regular_file(source, ec)) {
      if (auto loaded = load_file(out, source, false); !loaded) return loaded.error();
    } else {
      return make_error("CannotRead", "--hosts " + source + " is neither a file nor a directory");
    }
  }
  if (out.hosts.empty()) {
    std::string given;
    for (const auto& source : sources) given += (given.empty() ? "" : ", ") + source;
    return make_error("InvalidArgument", "no hosts found in --hosts " + given +
                                             ": give capabilities or hwloc XML, or JSON hosts (a directory's .xml, "
                                             ".json and .jsonl files are read)");
  }
  // Rows a scheduler tells apart by name: a name twice (a file given twice, two JSON hosts or two
  // files of one name) would rank one host twice or two as one.
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < out.names.size(); ++i) {
    if (auto [at, fresh] = seen.emplace(out.names[i], i); !fresh) {
      return make_error("InvalidArgument", "two hosts are named '" + printable_text(out.names[i]) + "' (hosts " +
                                               std::to_string(at->second + 1) + " and " + std::to_string(i + 1) +
                                               " read); give each host a name of its own (a JSON host's \"name\", "
                                               "or files of different names) and each file once");
    }
  }
  return out;
}

// The operator's binding elements a domain carries ("<vcpu cpuset>, <vcpupin>"), which rank does
// not apply; "" without any.
std::string bound_elements(const xmlDoc* doc) {
  const xmlNode* root = xmlDocGetRootElement(doc);
  std::string found;
  auto note = [&](const std::string& element) { found += (found.empty() ? "" : ", ") + element; };
  for (const xmlNode* node = root != nullptr ? root->children : nullptr; node != nullptr; node = node->next) {
    if (node->type != XML_ELEMENT_NODE) continue;
    const std::string name = reinterpret_cast<const char*>(node->name);
    if (name == "vcpu" && xmlHasProp(node, reinterpret_cast<const xmlChar*>("cpuset")) != nullptr) note("<vcpu cpuset>");
    if (name == "numatune") note("<numatune>");
    if (name == "cputune") {
      for (const xmlNode* pin = node->children; pin != nullptr; pin = pin->next) {
        if (pin->type != XML_ELEMENT_NODE) continue;
        const std::string pin_name = reinterpret_cast<const char*>(pin->name);
        if ((pin_name == "vcpupin" || pin_name == "emulatorpin") && found.find("<" + pin_name + ">") == std::string::npos) {
          note("<" + pin_name + ">");
        }
      }
    }
  }
  return found;
}

// The guest and, for one without a NUMA topology backed by huge pages, their size (KiB).
struct RankedGuest {
  GuestRequest request;
  std::uint64_t floating_page_kib = 0;
};

Result<RankedGuest> guest_request(const RankCliOptions& o) {
  GuestRequest request;
  std::uint64_t floating_page_kib = 0;
  auto flavor = parse_pairs(o.specs, "--spec");
  if (!flavor) return flavor.error();
  auto image = parse_pairs(o.image_props, "--image-prop");
  if (!image) return image.error();
  request.flavor_specs = std::move(*flavor);
  request.image_props = std::move(*image);
  if (!o.domain_path.empty()) {
    auto text = read_input(o.domain_path, "domain XML");
    if (!text) return text.error();
    const std::string what = "domain XML '" + o.domain_path + "'";
    auto doc = xml::parse_document(*text, what);
    if (!doc) return doc.error();
    auto summary = xml::read_domain_summary(doc->get(), what);
    if (!summary) return summary.error();
    request.vcpus = summary->vcpus;
    request.memory_kib = xml::boot_memory_kib(*summary);  // as place sizes the cells: the devices come on top
    // As place: without --spec and --image-prop the request stored in the domain is the guest's.
    if (request.flavor_specs.empty() && request.image_props.empty()) {
      auto stored = xml::read_stored_request(doc->get(), what);
      if (!stored) return stored.error();
      if (*stored) {
        request.flavor_specs = (*stored)->flavor_specs;
        request.image_props = (*stored)->image_props;
        std::cerr << "numaplace: using the request stored in " << what << " (--spec to give another)\n";
        if (!(*stored)->pci_addresses.empty()) {
          std::cerr << "numaplace: note: its PCI devices (" << (*stored)->pci_addresses.size()
                    << ") name one host's addresses and are not checked on the others; place checks them\n";
        }
      }
    }
    // A page size the domain's <memoryBacking> gives every cell is asked for, as place asks for it.
    const bool page_named = names_page_size(request);
    const std::set<std::uint64_t> sizes = xml::page_sizes_of_cells(summary->pages, summary->guest_cells);
    if (!page_named && sizes.size() == 1 && *sizes.begin() > 4) {
      const std::uint64_t size = *sizes.begin();
      auto topology = derive_guest_topology(request);
      if (!topology) return topology.error();
      if (!topology->has_value()) {
        // As place: a guest without NUMA keys is confined to cells holding its pages, not given one
        // cell (which hw:mem_page_size would ask for).
        floating_page_kib = size;
        std::cerr << "numaplace: the <memoryBacking><hugepages> of " << what << " asks for " << size
                  << " KiB pages: ranked on the host's free pages of that size (the request asks for no NUMA topology)\n";
      } else {
        request.flavor_specs["hw:mem_page_size"] = std::to_string(size);
        std::cerr << "numaplace: the <memoryBacking><hugepages> of " << what << " asks for " << size
                  << " KiB pages: ranked as hw:mem_page_size=" << size << "\n";
      }
    } else if (!page_named && sizes.size() > 1) {
      std::cerr << "numaplace: note: the <page> elements of " << what << " give its cells their own page sizes, "
                   "which rank does not check (place does): ask with hw:mem_page_size to have huge pages ranked\n";
    }
    if (auto bound = bound_elements(doc->get()); !bound.empty()) {
      std::cerr << "numaplace: note: the " << bound << " of " << what
                << " are not applied by rank; place keeps the guest within them on the host chosen\n";
    }
  }
  if (o.vcpus > 0) request.vcpus = o.vcpus;
  if (o.memory_mib > 0) request.memory_kib = o.memory_mib * 1024;
  if (request.vcpus == 0 || request.memory_kib == 0) {
    return make_error("UsageError", "say how big the guest is: --vcpus N --memory MIB, or --domain FILE");
  }
  return RankedGuest{std::move(request), floating_page_kib};
}

std::string cells_text(const Placement& placement) {
  std::string text;
  for (const auto& cell : placement.cells) {
    text += (text.empty() ? "" : ", ") + std::string("guest ") + std::to_string(cell.guest_cell) + " -> cell " +
            std::to_string(cell.host_cell);
  }
  return text;
}

// Each refused host on a line of its own, with its cell pairs (--explain) indented under it.
void print_refusals(std::ostream& out, const std::vector<RankedHost>& ranked, const NamedHosts& hosts) {
  for (const auto& r : ranked) {
    if (r.fits) continue;
    out << "  " << printable_text(hosts.names[r.index]) << ": " << r.reason << '\n';
    for (const auto& pair : r.rejections) {
      out << "    guest cell " << pair.guest_cell << " on host cell " << pair.host_cell << ": " << pair.reason << '\n';
    }
  }
}

std::string no_host_fits(std::size_t hosts) {
  return hosts == 1 ? "the one host given cannot take the guest"
                    : "none of the " + std::to_string(hosts) + " hosts given can take the guest";
}

int run_rank(const RankCliOptions& o) {
  auto request = guest_request(o);
  if (!request) return report(request.error(), o.json);
  auto strategies = rank_options_from_flags(o.strategies);
  if (!strategies) return report(strategies.error(), o.json);
  auto hosts = load_hosts(o.hosts);
  if (!hosts) return report(hosts.error(), o.json);

  RankOptions options = *strategies;
  options.explain = o.explain;
  options.floating_page_kib = request->floating_page_kib;
  auto ranked = rank_hosts(hosts->hosts, request->request, options);
  if (!ranked) return report(ranked.error(), o.json);

  std::size_t fitting = 0;
  for (const auto& r : *ranked) fitting += r.fits ? 1 : 0;
  const std::size_t shown = o.top > 0 ? std::min(o.top, fitting) : fitting;
  if (o.json) {
    nlohmann::json fit_list = nlohmann::json::array();
    nlohmann::json refused = nlohmann::json::array();
    for (std::size_t i = 0; i < ranked->size(); ++i) {
      const RankedHost& r = (*ranked)[i];
      const std::string& name = hosts->names[r.index];
      if (r.fits && i < shown) {
        fit_list.push_back({{"rank", i + 1},
                            {"host", name},
                            {"score", r.score},
                            {"placement", r.placement ? to_json(*r.placement) : nlohmann::json()}});
      } else if (!r.fits) {
        nlohmann::json entry{{"host", name}, {"reason", r.reason}};
        if (o.explain) entry["cells"] = to_json(r.rejections);
        refused.push_back(entry);
      }
    }
    nlohmann::json doc{{"strategy", to_string(options.fit.strategy)},
                       {"host_strategy", scoring::to_string(options.scoring.strategy)},
                       {"hosts", hosts->hosts.size()},
                       {"fitting", fitting},
                       {"ranked", fit_list},
                       {"refused", refused}};
    // No host fits: the answer says so as every command's error does, beside the refusals.
    if (fitting == 0) doc["error"] = {{"name", "NoFit"}, {"message", no_host_fits(ranked->size())}};
    std::cout << numaplace::plugin::json_text(doc, 2) << '\n';
  } else if (fitting == 0) {
    // Nothing to rank: no table on stdout, and the refusal on stderr as place's NoFit.
    std::cerr << "numaplace: NoFit: " << no_host_fits(ranked->size()) << (o.explain ? ":" : " (--explain says why)") << '\n';
    if (o.explain) print_refusals(std::cerr, *ranked, *hosts);
  } else {
    // The host column as wide as the longest name shown, so that a long name never runs into its
    // score; names with control characters print them escaped.
    std::size_t width = 4;
    for (std::size_t i = 0; i < shown; ++i) width = std::max(width, printable_text(hosts->names[(*ranked)[i].index]).size());
    std::cout << std::left << std::setw(6) << "rank" << std::setw(static_cast<int>(width + 2)) << "host" << std::setw(7)
              << "score" << "cells\n";
    for (std::size_t i = 0; i < shown; ++i) {
      const RankedHost& r = (*ranked)[i];
      std::cout << std::left << std::setw(6) << i + 1 << std::setw(static_cast<int>(width + 2))
                << printable_text(hosts->names[r.index]) << std::setw(7) << r.score
                << (r.placement ? cells_text(*r.placement) : "(no NUMA topology)") << '\n';
    }
    const std::size_t refused = ranked->size() - fitting;
    if (refused > 0) {
      std::cout << refused << " of " << ranked->size() << " hosts refused" << (o.explain ? ":" : " (--explain says why)")
                << '\n';
      if (o.explain) print_refusals(std::cout, *ranked, *hosts);
    }
  }
  return fitting > 0 ? 0 : kExitNoFit;
}

}  // namespace

Command register_rank(CLI::App& app) {
  auto options = std::make_shared<RankCliOptions>();
  auto* rank = app.add_subcommand("rank", "Rank many hosts for one guest: fit test on each, score, best first");
  rank->footer(
      "Runs place's fit test on every host, scores each host that fits by a kube-scheduler\n"
      "strategy (NodeResourcesFit) on its totals after the guest (CPU: every CPU x 1000 millicores, pinned\n"
      "pCPUs and floating load / CPU ratio requested; memory: the cells' memory and what guests hold), and\n"
      "prints the best first. A guest without a NUMA topology fits a host where place could confine it\n"
      "(its vCPUs within the CPU ratio on the floating pCPUs, its memory physically free in its page size).\n"
      "Hosts (--hosts, repeatable): capabilities or hwloc XML files (told apart by their root element),\n"
      "JSON hosts in the nova-fit schema (one object, a list, or {\"hosts\": [...]}, with usage), .jsonl\n"
      "files (one host a line), or a directory of them (other XML files there are skipped with a note).\n"
      "The guest's size comes from --vcpus and --memory (both together) or from --domain (not with them);\n"
      "neither is a usage error (exit 2). --spec and --image-prop give its NUMA request, as for place;\n"
      "without them a --domain's stored request (its numaplace metadata) is used, and a page size its\n"
      "<memoryBacking><hugepages> gives every cell is asked for when the request names no page size\n"
      "(stderr says so: hw:mem_page_size with a NUMA request, else free pages of the size over the host). Its pins and nodesets\n"
      "(<vcpu cpuset>, <vcpupin>, <emulatorpin>, <numatune>) are not applied: stderr names them, and\n"
      "place keeps the guest within them on the host chosen.\n"
      "Strategies: --strategy, --ratio-shape, --ratio-weights and --pack choose each host's cells as they do\n"
      "for place (default adaptive); the hosts that fit are then scored by the counterpart: pack by\n"
      "MostAllocated, ratio by RequestedToCapacityRatio (the same --ratio-shape), the others by\n"
      "LeastAllocated (spread, Nova's default), with the same --ratio-weights; --host-strategy chooses\n"
      "the host scoring alone (so does --strategy with a host-scoring name, as before).\n"
      "The text output is a table (rank, host, score, the guest cells' host cells), then \"N of M hosts\n"
      "refused\" and, with --explain, why, per guest cell and host cell. When no host fits, stdout is empty\n"
      "and stderr says NoFit (exit 3), with the refusals under --explain. --json prints {\"strategy\" (the\n"
      "cells'), \"host_strategy\", \"hosts\", \"fitting\", \"ranked\": [{\"rank\", \"host\", \"score\", \"placement\"}],\n"
      "\"refused\": [{\"host\", \"reason\", and with --explain \"cells\": [{\"guest_cell\", \"host_cell\",\n"
      "\"reason\"}]}]}, and \"error\": {\"name\": \"NoFit\", \"message\"} beside them when no host fits.\n"
      "Example:\n"
      "  numaplace rank --hosts examples/hosts --hosts tests/data/samples/libvirt/caps-4cell.xml \\\n"
      "      --vcpus 8 --memory 8192 --spec hw:numa_nodes=2 --spec hw:cpu_policy=dedicated --explain\n"
      "Exit codes: 0 some host fits, 3 none does, 1 bad input (a bad host file is named), 2 usage, 4 a host\n"
      "file written beside running guests it could not read (RunningGuestsUnknown: topology --json lists\n"
      "them in \"unread_running_guests\"; write it again once they read).");
  rank->add_option("--hosts", options->hosts, "a host file or a directory of them (repeatable)")
      ->required()
      ->allow_extra_args(false);
  add_request_options(rank, options->specs, options->image_props);
  auto* domain = rank->add_option("--domain", options->domain_path,
                                  "take the guest's vCPUs and memory from this domain XML (instead of --vcpus/--memory)");
  // The ranges are place's: at most xml::kMaxGuestVcpus vCPUs, at most 1 EiB of memory (a negative
  // number is no whole number: CLI11 would wrap it into an unsigned one).
  constexpr std::uint64_t kMaxMemoryMib = std::uint64_t{1} << 40;
  auto* vcpus = rank->add_option("--vcpus", options->vcpus, "the guest's vCPUs (with --memory)")
                    ->check(whole_number(1, xml::kMaxGuestVcpus));
  auto* memory = rank->add_option("--memory", options->memory_mib, "the guest's memory in MiB (with --vcpus)")
                     ->check(whole_number(1, kMaxMemoryMib));
  vcpus->needs(memory);
  memory->needs(vcpus);
  domain->excludes(vcpus)->excludes(memory);
  add_strategy_options(rank, options->strategies.cells, {"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"},
                       "; on each host's cells, as place; hosts are then scored by its counterpart (pack: "
                       "MostAllocated, ratio: RequestedToCapacityRatio, else LeastAllocated) unless --host-strategy "
                       "says otherwise; a host-scoring name here sets only that");
  rank->add_option("--host-strategy", options->strategies.host_strategy,
                   "how fitting hosts are scored: LeastAllocated (spread), MostAllocated (pack), "
                   "RequestedToCapacityRatio (ratio, by --ratio-shape)")
      ->check(CLI::IsMember({"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"}));
  // The flags' names before rank shared place's; kept so that scripts keep working.
  // Each excludes its new name: both given, one would win without a word. Checked once parsing is
  // done rather than with CLI11's excludes(), which would list the hidden name as an empty
  // "Excludes:" in the new name's help.
  rank->add_option("--shape", options->strategies.cells.ratio_shape, "the old name of --ratio-shape")->group("");
  rank->add_flag("--pack-cells", options->strategies.cells.nova_pack, "the old name of --pack")->group("");
  rank->parse_complete_callback([rank] {
    for (const auto& [old_name, new_name] : {std::pair{"--shape", "--ratio-shape"}, std::pair{"--pack-cells", "--pack"}}) {
      if (rank->count(old_name) > 0 && rank->count(new_name) > 0) throw CLI::ExcludesError(old_name, new_name);
    }
  });
  rank->add_flag("--explain", options->explain, "say why each refused host was refused, per guest and host cell");
  rank->add_flag("--json", options->json, "print the ranking as JSON");
  rank->add_option("--top", options->top, "show only the best N hosts (0, the default: all)")
      ->check(whole_number(0, 1000000000));
  return {rank, [options] { return run_rank(*options); }};
}

}  // namespace numaplace::cli
