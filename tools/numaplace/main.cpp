// numaplace: places libvirt guests onto the NUMA cells of a host.
// Exit codes: 0 done; 1 bad input (named error on stderr); 2 usage or unreadable
// files; 3 the guest does not fit; 4 the host could not be read.
#include <CLI/CLI.hpp>
#include <libvirt/virterror.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "conformance/runner.h"
#include "numaplace/claims_source.h"
#include "numaplace/host_source.h"
#include "placement/claims.h"
#include "plugin/domain_lifecycle.h"
#include "xml/domain_reader.h"
#include "numaplace/json_output.h"
#include "plugin/place_domain.h"
#include "xml/xml_document.h"

namespace {

using numaplace::Error;

constexpr int kExitBadInput = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNoFit = 3;
constexpr int kExitHost = 4;
constexpr int kExitLibvirtRefused = 5;

int exit_code_for(const Error& error) {
  if (error.name == "NoFit") return kExitNoFit;
  if (error.name == "HostUnavailable" || error.name == "LockTimeout" || error.name == "LockUnavailable") return kExitHost;
  if (error.name == "DefineFailed" || error.name == "StartFailed") return kExitLibvirtRefused;
  if (error.name == "CannotRead") return kExitUsage;
  return kExitBadInput;
}

int report(const Error& error, bool json) {
  if (json) {
    std::cout << nlohmann::json{{"error", {{"name", error.name}, {"message", error.message}}}}.dump(2) << '\n';
  } else {
    std::cerr << "numaplace: " << error.name << ": " << error.message << '\n';
  }
  return exit_code_for(error);
}

numaplace::Result<numaplace::SpecMap> parse_pairs(const std::vector<std::string>& pairs, const char* flag) {
  numaplace::SpecMap map;
  for (const auto& pair : pairs) {
    auto eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) {
      return numaplace::make_error("InvalidArgument", std::string(flag) + " '" + pair +
                                                          "' is not KEY=VALUE; for example " + flag + " hw:numa_nodes=2");
    }
    std::string key = pair.substr(0, eq);
    if (map.count(key) != 0) {
      return numaplace::make_error("InvalidArgument", std::string(flag) + " " + key + " is given twice; give it once");
    }
    map[key] = pair.substr(eq + 1);
  }
  return map;
}

numaplace::Result<std::string> read_input(const std::string& path, const char* what) {
  if (path == "-") {
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    std::string text = buffer.str();
    if (text.size() > numaplace::xml::kMaxXmlBytes) {
      return numaplace::make_error("XmlTooLarge", std::string(what) + " on standard input is above the size limit");
    }
    return text;
  }
  return numaplace::xml::read_text_file(path, what);
}

// Writes the whole text or nothing: a temporary file beside OUT, then rename.
numaplace::Status write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    return numaplace::Done{};
  }
  const std::string temp = path + ".numaplace-tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::remove(temp.c_str());
      return numaplace::make_error("CannotWrite", "cannot write '" + path + "'");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::remove(temp.c_str());
    return numaplace::make_error("CannotWrite", "cannot write '" + path + "': " + ec.message());
  }
  return numaplace::Done{};
}

void add_host_options(CLI::App* cmd, numaplace::cli::HostSourceOptions& host) {
  auto* connect = cmd->add_option("-c,--connect", host.connect_uri,
                                  "libvirt URI to read the host from (default: test:///default, libvirt's "
                                  "built-in test host with 2 cells x 8 CPUs)");
  auto* caps = cmd->add_option("--capabilities", host.capabilities_file,
                               "read the host from a saved 'virsh capabilities' XML file instead of libvirt")
                   ->check(CLI::ExistingFile);
  connect->excludes(caps);
  auto* hwloc = cmd->add_option_function<std::vector<std::string>>(
                       "--hwloc",
                       [&host](const std::vector<std::string>& file) {
                         host.hwloc = true;
                         host.hwloc_file = file.empty() ? std::string() : file.front();
                         if (!host.hwloc_file.empty() && !std::filesystem::is_regular_file(host.hwloc_file)) {
                           throw CLI::ValidationError("--hwloc", "File does not exist: " + host.hwloc_file);
                         }
                       },
                       "read the host from hwloc: alone, this machine (put it after the domain); with FILE, an "
                       "hwloc XML export ('lstopo --of xml FILE'), PCI devices and distances included")
                   ->expected(0, 1)
                   ->allow_extra_args(false);
  hwloc->excludes(connect)->excludes(caps);
  cmd->add_option("--nodedev", host.nodedev_files,
                  "add the PCI devices of a node device XML file ('virsh nodedev-dumpxml', or a test-driver "
                  "<node> file) to the host (repeatable); with --connect they are read from libvirt anyway")
      ->allow_extra_args(false)
      ->check(CLI::ExistingFile);
}

std::string format_load(double load) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(load == static_cast<double>(static_cast<long long>(load)) ? 0 : 2) << load;
  return out.str();
}

// Who holds what, per cell: one line per guest with its pins, load and memory.
void print_holders(const numaplace::HostTopology& host, const std::vector<numaplace::GuestClaim>& claims) {
  if (claims.empty()) return;
  std::cout << "\nguests holding resources:\n";
  for (const auto& claim : claims) {
    std::cout << "  " << claim.name << (claim.running ? "" : " (defined, not running)")
              << (claim.placed_by_numaplace ? " [numaplace record]" : "") << ":";
    for (const auto& cell : claim.cells) {
      if (host.find_cell(cell.host_cell) == nullptr) continue;
      std::cout << " cell " << cell.host_cell << " {";
      std::string sep;
      if (!cell.pinned_cpus.empty()) {
        std::cout << "pinned " << numaplace::to_cpu_list(cell.pinned_cpus);
        sep = ", ";
      }
      if (cell.shared_vcpus > 0) {
        std::cout << sep << "load " << format_load(cell.shared_vcpus);
        sep = ", ";
      }
      if (cell.memory_kib > 0) {
        std::cout << sep << cell.memory_kib / 1024 << " MiB";
        sep = ", ";
      }
      for (const auto& [size, count] : cell.pages) {
        std::cout << sep << count << "x" << size << " KiB pages";
        sep = ", ";
      }
      std::cout << "}";
    }
    if (claim.unbound_memory_kib > 0) std::cout << " unbound " << claim.unbound_memory_kib / 1024 << " MiB";
    if (claim.unbound_vcpus > 0) std::cout << " unbound load " << format_load(claim.unbound_vcpus);
    std::cout << '\n';
  }
}

void print_topology_table(const numaplace::HostTopology& host) {
  std::vector<std::vector<std::string>> rows{{"cell", "cpus", "cores", "memory MiB", "pages (KiB x count)", "distances",
                                              "pinned", "shared load", "used MiB", "pci"}};
  for (const auto& cell : host.cells) {
    std::string pages;
    for (const auto& p : cell.pages) pages += (pages.empty() ? "" : " ") + std::to_string(p.size_kib) + "x" + std::to_string(p.total);
    std::string distances;
    for (auto d : cell.distances) distances += (distances.empty() ? "" : " ") + std::to_string(d);
    rows.push_back({std::to_string(cell.id), numaplace::to_cpu_list(cell.cpus), std::to_string(cell.siblings.size()),
                    std::to_string(cell.memory_kib / 1024), pages.empty() ? "-" : pages,
                    distances.empty() ? "-" : distances,
                    cell.usage.pinned_cpus.empty() ? "-" : numaplace::to_cpu_list(cell.usage.pinned_cpus),
                    format_load(cell.usage.shared_cpus), std::to_string(cell.usage.memory_kib / 1024),
                    numaplace::cli::pci_devices_of_cell(host, cell.id)});
  }
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
  if (std::string pci = numaplace::cli::pci_devices_without_cell(host); pci != "-") {
    std::cout << "pci without NUMA node: " << pci << '\n';
  }
}

// Folds the guests already on the host into its usage: the libvirt host's domains and --claim files.
numaplace::Result<std::vector<numaplace::GuestClaim>> fold_claims(numaplace::HostTopology& host,
                                                                   const numaplace::cli::HostSourceOptions& source,
                                                                   const std::vector<std::string>& claim_files,
                                                                   bool include_defined, const std::string& name,
                                                                   const std::string& uuid) {
  numaplace::cli::ClaimSourceOptions options;
  options.connect_uri = numaplace::cli::libvirt_uri(source);
  options.include_defined = include_defined;
  options.claim_files = claim_files;
  options.exclude_name = name;
  options.exclude_uuid = uuid;
  auto claims = numaplace::cli::load_claims(options, host);
  if (!claims) return claims.error();
  for (const auto& warning : claims->warnings) std::cerr << "numaplace: warning: claims not counted: " << warning << '\n';
  numaplace::apply_claims(host, claims->claims);
  return std::move(claims->claims);
}

void add_claim_options(CLI::App* cmd, std::vector<std::string>& files, bool& include_defined) {
  cmd->add_option("--claim", files,
                  "domain XML of a guest already on this host (repeatable); with a libvirt host its running "
                  "guests are read as well")
      ->allow_extra_args(false)
      ->check(CLI::ExistingFile);
  cmd->add_flag("--include-defined", include_defined,
                "also count defined guests that are not running but were placed by numaplace");
}

void add_request_options(CLI::App* cmd, std::vector<std::string>& specs, std::vector<std::string>& image_props) {
  // One value per flag, so that `--spec K=V vm.xml` leaves vm.xml to the positional argument.
  cmd->add_option("--spec", specs, "flavor extra spec KEY=VALUE (repeatable), e.g. hw:numa_nodes=2")
      ->allow_extra_args(false);
  cmd->add_option("--image-prop", image_props, "image property KEY=VALUE (repeatable), e.g. hw_numa_nodes=2")
      ->allow_extra_args(false);
}

nlohmann::json lifecycle_json(const numaplace::plugin::LifecycleOutcome& outcome) {
  return {{"name", outcome.name},
          {"placement", outcome.placement ? numaplace::cli::to_json(*outcome.placement) : nlohmann::json()},
          {"replaced", outcome.replaced},
          {"warnings", outcome.warnings}};
}

void print_lifecycle(const char* verb, const numaplace::plugin::LifecycleOutcome& outcome) {
  std::cout << verb << " '" << outcome.name << "'";
  if (outcome.placement) {
    std::cout << ":";
    for (const auto& cell : outcome.placement->cells) {
      std::cout << " guest cell " << cell.guest_cell << " -> host cell " << cell.host_cell << " (cpus "
                << numaplace::to_cpu_list(cell.host_cpus) << ")";
    }
  } else {
    std::cout << " (no NUMA request: not confined)";
  }
  if (outcome.replaced) std::cout << " [placed again: its old placement no longer fit]";
  std::cout << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  // libvirt prints every error to stderr by default; numaplace reports them itself.
  virSetErrorFunc(nullptr, [](void*, virErrorPtr) {});

  CLI::App app{
      "numaplace places libvirt guests onto the NUMA cells of a host: it reads the host and a guest's\n"
      "NUMA wishes (OpenStack-style hw:numa_* flavor extra specs and hw_numa_* image properties),\n"
      "chooses host cells, and rewrites the domain XML with <numatune>, <vcpupin> and <cpu><numa>.",
      "numaplace"};
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  numaplace place vm.xml --spec hw:numa_nodes=2 > placed.xml\n"
      "  numaplace place vm.xml --capabilities host-caps.xml --spec hw:numa_nodes=1 -o placed.xml\n"
      "  numaplace topology --connect qemu:///system\n"
      "  numaplace conformance nova-fit ../shared/conformance/nova/fit.jsonl\n"
      "Exit codes: 0 done, 1 bad input, 2 usage, 3 does not fit, 4 host unreadable.");

  // place
  auto* place = app.add_subcommand("place", "Place a guest and print its rewritten domain XML");
  place->footer(
      "The guest's vCPUs and memory come from the domain's <vcpu> and <memory>. Keys:\n"
      "  hw:numa_nodes=N      split the guest evenly into N NUMA cells, each on its own host cell\n"
      "  hw:numa_cpus.I=LIST  vCPUs of guest cell I (e.g. 0-5), for asymmetric cells\n"
      "  hw:numa_mem.I=MIB    memory of guest cell I in MiB; every cell needs both keys\n"
      "Image properties (--image-prop hw_numa_nodes=2 ...) may set a key only where the flavor\n"
      "(--spec) did not. Without any key the guest is printed unchanged. Example:\n"
      "  numaplace place examples/guest-8vcpu-4g.xml --spec hw:numa_nodes=2 \\\n"
      "      --spec hw:numa_cpus.0=0-5 --spec hw:numa_cpus.1=6,7 \\\n"
      "      --spec hw:numa_mem.0=3072 --spec hw:numa_mem.1=1024");
  std::string domain_path;
  std::string output_path;
  std::vector<std::string> specs;
  std::vector<std::string> image_props;
  bool place_json = false;
  bool pack = false;
  numaplace::cli::HostSourceOptions place_host;
  place->add_option("DOMAIN", domain_path, "domain XML file, or - for standard input")->required();
  add_host_options(place, place_host);
  add_request_options(place, specs, image_props);
  std::vector<std::string> place_claims;
  bool place_include_defined = false;
  add_claim_options(place, place_claims, place_include_defined);
  place->add_option("-o,--output", output_path, "write the XML to this file (atomically) instead of stdout");
  place->add_flag("--pack", pack, "try the fullest host cells first (Nova's packing order) instead of the emptiest");
  place->add_flag("--json", place_json, "print {placement, rejections, xml} as JSON (errors too) for programs");

  // topology
  auto* topology = app.add_subcommand("topology", "Show the host's NUMA cells, CPUs, memory and distances");
  numaplace::cli::HostSourceOptions topo_host;
  bool topo_json = false;
  add_host_options(topology, topo_host);
  topology->add_flag("--json", topo_json, "print the host model as JSON");
  std::vector<std::string> topo_claims;
  bool topo_include_defined = false;
  add_claim_options(topology, topo_claims, topo_include_defined);

  // define / start
  auto* define = app.add_subcommand("define", "Place a guest against the host's running guests and define it in libvirt");
  auto* start = app.add_subcommand("start", "Start a defined guest, placing it again first if its placement no longer fits");
  for (auto* cmd : {define, start}) {
    cmd->footer(
        "Runs under a host-wide lock (/run/numaplace/host.lock, or NUMAPLACE_LOCK_FILE), so two numaplace\n"
        "invocations never hand out the same pCPU. Without --spec/--image-prop the request stored in the\n"
        "domain's numaplace metadata is used. define counts running guests and defined guests placed by\n"
        "numaplace; start counts running guests. Exit 5 when libvirt refuses the domain.");
  }
  std::string define_path;
  std::string start_name;
  std::string lifecycle_uri = "qemu:///system";
  std::vector<std::string> lifecycle_specs;
  std::vector<std::string> lifecycle_props;
  bool lifecycle_json_out = false;
  bool lifecycle_pack = false;
  define->add_option("DOMAIN", define_path, "domain XML file, or - for standard input")->required();
  start->add_option("NAME", start_name, "name of a defined domain")->required();
  for (auto* cmd : {define, start}) {
    cmd->add_option("-c,--connect", lifecycle_uri, "libvirt URI to manage (default: qemu:///system)");
    add_request_options(cmd, lifecycle_specs, lifecycle_props);
    cmd->add_flag("--pack", lifecycle_pack, "try the fullest host cells first");
    cmd->add_flag("--json", lifecycle_json_out, "print the outcome (or the error) as JSON");
  }

  // conformance
  auto* conformance = app.add_subcommand("conformance", "Check numaplace against reference vectors (JSON lines)");
  conformance->footer(
      "Suites: nova-fit (nova/edge.jsonl, nova/fit.jsonl), resource-compare (volcano/compare-design.jsonl),\n"
      "k8s-merge (k8s/merge.jsonl), k8s-score (k8s/score.jsonl). Prints one line per failing vector and closes\n"
      "with 'N passed, M failed, K skipped'; exits 0 only when nothing failed.");
  std::string suite;
  std::vector<std::string> files;
  numaplace::conformance::RunOptions run_options;
  conformance->add_option("SUITE", suite, "suite name, e.g. nova-fit")->required();
  conformance->add_option("FILE", files, "vector files (JSON lines)")->required()->check(CLI::ExistingFile);
  conformance->add_flag("--show-skips", run_options.show_skips, "print a line for every skipped vector too");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }

  if (*conformance) {
    return numaplace::conformance::run_suite(suite, files, run_options, std::cout, std::cerr);
  }

  if (*topology) {
    auto host = numaplace::cli::load_host(topo_host);
    if (!host) return report(host.error(), topo_json);
    auto claims = fold_claims(*host, topo_host, topo_claims, topo_include_defined, {}, {});
    if (!claims) return report(claims.error(), topo_json);
    if (topo_json) {
      nlohmann::json doc = numaplace::cli::to_json(*host);
      doc["guests"] = numaplace::cli::to_json(*claims);
      std::cout << doc.dump(2) << '\n';
    } else {
      std::cout << "host: " << numaplace::cli::describe_source(topo_host) << ", " << host->cells.size()
                << " NUMA cells\n";
      print_topology_table(*host);
      print_holders(*host, *claims);
    }
    return 0;
  }

  if (*define || *start) {
    auto flavor = parse_pairs(lifecycle_specs, "--spec");
    if (!flavor) return report(flavor.error(), lifecycle_json_out);
    auto image = parse_pairs(lifecycle_props, "--image-prop");
    if (!image) return report(image.error(), lifecycle_json_out);
    numaplace::plugin::LifecycleOptions options;
    options.uri = lifecycle_uri;
    options.flavor_specs = std::move(*flavor);
    options.image_props = std::move(*image);
    options.fit.pack_host_cells = lifecycle_pack;
    numaplace::Result<numaplace::plugin::LifecycleOutcome> outcome = numaplace::make_error("Unreachable", "");
    if (*define) {
      auto text = read_input(define_path, "domain XML");
      if (!text) return report(text.error(), lifecycle_json_out);
      outcome = numaplace::plugin::define_domain(*text, "domain XML '" + define_path + "'", options);
    } else {
      outcome = numaplace::plugin::start_domain(start_name, options);
    }
    if (!outcome) return report(outcome.error(), lifecycle_json_out);
    for (const auto& warning : outcome->warnings) std::cerr << "numaplace: warning: claims not counted: " << warning << '\n';
    if (lifecycle_json_out) {
      std::cout << lifecycle_json(*outcome).dump(2) << '\n';
    } else {
      print_lifecycle(*define ? "defined" : "started", *outcome);
    }
    return 0;
  }

  // place
  auto flavor = parse_pairs(specs, "--spec");
  if (!flavor) return report(flavor.error(), place_json);
  auto image = parse_pairs(image_props, "--image-prop");
  if (!image) return report(image.error(), place_json);
  auto domain_text = read_input(domain_path, "domain XML");
  if (!domain_text) return report(domain_text.error(), place_json);
  auto host = numaplace::cli::load_host(place_host);
  if (!host) return report(host.error(), place_json);
  {
    // The guest being placed must not count against itself.
    auto doc = numaplace::xml::parse_document(*domain_text, "domain XML '" + domain_path + "'");
    if (!doc) return report(doc.error(), place_json);
    auto summary = numaplace::xml::read_domain_summary(doc->get(), "domain XML '" + domain_path + "'");
    if (!summary) return report(summary.error(), place_json);
    auto claims = fold_claims(*host, place_host, place_claims, place_include_defined, summary->name, summary->uuid);
    if (!claims) return report(claims.error(), place_json);
  }

  numaplace::plugin::PlaceRequest request;
  request.domain_xml = std::move(*domain_text);
  request.domain_name_for_errors = domain_path == "-" ? "domain XML on standard input" : "domain XML '" + domain_path + "'";
  request.flavor_specs = std::move(*flavor);
  request.image_props = std::move(*image);
  request.fit.pack_host_cells = pack;
  auto outcome = numaplace::plugin::place_domain(*host, request);
  if (!outcome) return report(outcome.error(), place_json);

  if (!outcome->placement) {
    std::cerr << "numaplace: the request names no NUMA topology (no hw:numa_nodes); the domain is printed unchanged\n";
  }
  std::string text = outcome->domain_xml;
  if (place_json) {
    nlohmann::json doc{{"placement", outcome->placement ? numaplace::cli::to_json(*outcome->placement) : nlohmann::json()},
                       {"rejections", numaplace::cli::to_json(outcome->rejections)},
                       {"xml", outcome->domain_xml}};
    text = doc.dump(2) + "\n";
  }
  if (auto written = write_output(output_path, text); !written) return report(written.error(), place_json);
  return 0;
}
