// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace topology: the host's cells, CPUs, memory, pages, distances, PCI
// devices, and who holds what, as a table, JSON, or a host map (SVG, HTML: host_map.h).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

#include "numaplace/cli_common.h"
#include "numaplace/command.h"
#include "numaplace/host_map.h"
#include "numaplace/json_output.h"
#include "numaplace/topology_table.h"
#include "placement/model/count_words.h"
#include "placement/model/utf8_text.h"
#include "placement/lifecycle/default_placement.h"
#include "plugin/sources/host_json.h"
#include "plugin/service/json_text.h"

namespace numaplace::cli {
namespace {

struct TopologyOptions {
  HostSourceOptions host;
  std::vector<std::string> claims;
  bool include_defined = false;
  bool json = false;
  std::string svg_file;   // --svg FILE ("-": stdout)
  std::string html_file;  // --html FILE ("-": stdout)
};

// Who holds what, per cell: one line per guest with its pins, load and memory.
void print_holders(const HostTopology& host, const std::vector<GuestClaim>& claims) {
  if (claims.empty()) return;
  std::cout << "\nguests holding resources:\n";
  for (const auto& claim : claims) {
    const std::string holdings = describe_holdings(host, claim);
    std::cout << "  " << printable_text(claim.name) << (claim.running ? "" : " (defined, not running)")
              << (claim.placed_by_numaplace ? " [numaplace record]" : "") << ":" << (holdings.empty() ? "" : " ")
              << holdings << '\n';
  }
}

void print_topology_table(const HostTopology& host) {
  const auto rows = topology_rows(host);
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      std::cout << row[i];
      if (i + 1 < row.size()) std::cout << std::string(widths[i] - row[i].size() + 2, ' ');
    }
    std::cout << '\n';
  }
  if (std::string pci = pci_devices_without_cell(host); pci != "-") {
    std::cout << "pci without NUMA node: " << pci << '\n';
  }
}

int run_topology(const TopologyOptions& o) {
  if (o.svg_file == "-" && o.html_file == "-") {
    return report(make_error("UsageError", "--svg - and --html - would both write to stdout; give one of them a file"),
                  false);
  }
  // One file for both (by any spelling of its path, a link included) would hold only the second.
  if (!o.svg_file.empty() && !o.html_file.empty() && o.svg_file != "-" && o.html_file != "-") {
    std::error_code ec;
    const auto svg = std::filesystem::weakly_canonical(o.svg_file, ec);
    const auto html = std::filesystem::weakly_canonical(o.html_file, ec);
    if (o.svg_file == o.html_file || (!ec && svg == html)) {
      return report(make_error("UsageError", "--svg " + o.svg_file + " and --html " + o.html_file +
                                                 " name one file; give each its own"),
                    false);
    }
  }
  const HostSourceOptions source = with_default_host(o.host);
  auto host = load_host(source);
  if (!host) return report(host.error(), o.json);
  std::vector<std::string> running_unread;
  auto claims = fold_claims(*host, source, o.claims, o.include_defined, {}, {}, false, &running_unread);
  if (!claims) return report(claims.error(), o.json);
  if (!o.svg_file.empty() || !o.html_file.empty()) {
    // Each document is built whole in memory, then written at once (a temporary file renamed).
    const std::string title = describe_source(source);
    // Both files staged first, then both renamed into place: a failure leaves neither written.
    std::vector<StagedOutput> staged;
    for (const auto& [file, make] : {std::pair{o.svg_file, &host_map_svg}, std::pair{o.html_file, &host_map_html}}) {
      if (file.empty()) continue;
      auto one = StagedOutput::stage(file, make(*host, *claims, title));
      if (!one) return report(one.error(), false);
      staged.push_back(std::move(*one));
    }
    for (auto& one : staged) {
      if (auto written = one.commit(); !written) return report(written.error(), false);
    }
  } else if (o.json) {
    nlohmann::json doc = plugin::host_to_json(*host);
    doc["guests"] = to_json(*claims);
    // What those guests hold is missing from the usage above: a reader of this document must know.
    if (!running_unread.empty()) doc["unread_running_guests"] = running_unread;
    std::cout << numaplace::plugin::json_text(doc, 2) << '\n';
  } else {
    std::cout << "host: " << describe_source(source) << ", " << count_of(host->cells.size(), "NUMA cell") << "\n";
    print_topology_table(*host);
    print_holders(*host, *claims);
  }
  return 0;
}

}  // namespace

Command register_topology(CLI::App& app) {
  auto options = std::make_shared<TopologyOptions>();
  auto* topology = app.add_subcommand("topology", "Show the host's NUMA cells, CPUs, memory and distances");
  topology->footer(
      std::string(
          "The table has a row per host cell: its CPUs, cores, memory, page pools (free/total pages per size\n"
          "in KiB), distances, and who holds what: held pCPUs (pins, isolate's siblings, isolated emulator\n"
          "pCPUs), free pCPUs, shared load (floating vCPUs), used MiB, free MiB (small pages a strict binding\n"
          "may still take) and its PCI devices, each device's holder in [...]. The list of guests holding\n"
          "resources follows, per guest and cell: pinned pCPUs, pCPUs held idle, floating load, memory and\n"
          "pages, and its PCI devices. With a libvirt host its running guests are read (defined ones placed by\n"
          "numaplace with --include-defined); --claim adds domain XML files by hand.\n"
          "\n"
          "--json prints the host model: cells (id, cpus, siblings, memory_kib, pages, distances,\n"
          "shared_cpuset, dedicated_cpuset, usage, and under \"free\" what a new guest could still get:\n"
          "dedicated_cpus to pin, floating_cpus to float on, memory_kib a strict binding may take, free pages\n"
          "per size), pci (address, numa_node, vendor_id, product_id, class_id, is_pf, parent_pf, allocated,\n"
          "held_by: the guest whose <hostdev> holds it), accounting, allocation_ratio, unbound_memory_kib, and\n"
          "guests (name, uuid, running, placed_by_numaplace, cells, pci_devices, unbound_memory_kib,\n"
          "unbound_vcpus); an error is {\"error\": {\"name\", \"message\"}}. The cells' CPU lists are arrays\n"
          "of ids (an empty one is []); the guests' cells give theirs as cpulist strings (\"0-3,8\", \"\" when\n"
          "empty). It is the host JSON that rank --hosts and the library (np_host_from_json)\n"
          "read back, the guests' use already in each cell's usage (\"free\" and \"guests\" are ignored there).\n"
          "Running guests that could not be read are listed in \"unread_running_guests\" (their use is missing),\n"
          "and a host JSON with any is refused where it is read back (RunningGuestsUnknown).\n"
          "\n"
          "--svg FILE draws the same host model as a picture: each cell with its cores (thread siblings\n"
          "grouped) and threads, every pCPU coloured by the guest holding it (pinned: solid; held idle:\n"
          "dotted; floating vCPUs that may run there: hatched, grey when several guests float there; free:\n"
          "white; the host's own: grey), a legend and a key of the guests' colours, each cell's memory\n"
          "(used, free for a strict binding, huge page pools) and page pools, and its PCI devices with their\n"
          "holders. Each pCPU is an element with data-cpu, data-state and data-holder, for programs. --html\n"
          "FILE writes a self-contained page (no script, nothing fetched) with the picture, the table and the\n"
          "guests' holdings. '-' is stdout; a file is written whole or not at all (a temporary file, then a\n"
          "rename). Both may be given (two files); neither with --json.\n"
          "\n") +
      kHostSourcesHelp +
      std::string(
          "\n"
          "\n"
          "Exit codes: 0 done; 1 bad input (a named error on stderr); 2 usage or an unreadable file (and\n"
          "FreeMemoryUnavailable); 4 the host could not be read (or libvirt or libnuma not available).\n"
          "Examples:\n"
          "  numaplace topology                                  # this machine (stderr says how it was read)\n"
          "  numaplace topology --connect test:///default         # libvirt's built-in test host\n"
          "  numaplace topology --capabilities tests/data/samples/libvirt/caps-4cell.xml\n"
          "  numaplace topology --capabilities tests/data/samples/libvirt/caps-2cell.xml \\\n"
          "      --claim tests/data/samples/libvirt/domain-testdriver-2cell.xml\n"
          "  numaplace topology --hwloc tests/data/samples/hwloc/synth-2pkg-4numa-pci-distances.xml \\\n"
          "      --nodedev tests/data/samples/libvirt/nodedev-pci-gpu-numa3.xml --json\n"
          "  numaplace topology --capabilities tests/data/samples/libvirt/caps-2cell.xml \\\n"
          "      --nodedev tests/data/samples/libvirt/nodedev-pci-gpu-numa3.xml   # InvalidNodeDevice: node 3\n"
          "  numaplace topology --capabilities tests/data/samples/libvirt/caps-2cell.xml \\\n"
          "      --claim tests/data/samples/libvirt/domain-testdriver-2cell.xml --svg host.svg --html host.html\n"
          "  numaplace topology --connect qemu:///system --include-defined"));
  add_host_options(topology, options->host);
  auto* json = topology->add_flag("--json", options->json, "print the host model as JSON");
  auto* svg = topology->add_option("--svg", options->svg_file,
                                   "write the host map as an SVG picture to FILE ('-': stdout) instead of the table");
  svg->type_name("FILE")->check(not_empty_file_name());
  auto* html = topology->add_option("--html", options->html_file,
                                    "write the host map as a self-contained HTML page (the SVG and the table) to FILE "
                                    "('-': stdout)");
  html->type_name("FILE")->check(not_empty_file_name());
  svg->excludes(json);
  html->excludes(json);
  add_claim_options(topology, options->claims, options->include_defined, options->host.status_dir);
  return {topology, [options] { return run_topology(*options); }};
}

}  // namespace numaplace::cli
