// SPDX-License-Identifier: LGPL-2.1-or-later
#include "numaplace/cli_common.h"

#include <cstdio>
#include <cerrno>
#include <cstring>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "placement/model/utf8_text.h"
#include "numaplace/claims_source.h"
#include "numaplace/command.h"
#include "xml/xml_document.h"
#include "plugin/service/json_text.h"

namespace numaplace::cli {

CLI::Validator existing_file(const std::string& option) {
  return CLI::Validator(
      [option](std::string& path) -> std::string {
        const std::string named = option + ": cannot read '" + path + "': ";
        std::error_code ec;
        if (std::filesystem::is_directory(path, ec)) throw UnreadableFile(named + "it is a directory; give a file");
        errno = 0;
        if (std::ifstream in(path, std::ios::binary); !in) {
          throw UnreadableFile(named + (errno != 0 ? std::strerror(errno) : "it cannot be opened"));
        }
        return {};
      },
      "FILE");
}

CLI::Validator whole_number(std::uint64_t least, std::uint64_t most) {
  const std::string range = std::to_string(least) + " to " + std::to_string(most);
  return CLI::Validator(
      [least, most, range](std::string& input) -> std::string {
        std::uint64_t value = 0;
        const char* end = input.data() + input.size();
        const auto [stop, ec] = std::from_chars(input.data(), end, value);
        if (input.empty() || stop != end || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
          return "'" + input + "' is not a whole number; give one from " + range;
        }
        if (ec == std::errc::result_out_of_range || value < least || value > most) {
          return input + " is out of range; give a whole number from " + range;
        }
        return std::string();
      },
      "", "whole number");
}

int report(const Error& error, bool json, std::string_view program) {
  if (json) {
    std::cout << numaplace::plugin::json_text(nlohmann::json{{"error", {{"name", error.name}, {"message", error.message}}}}, 2) << '\n';
  } else {
    std::cerr << program << ": " << error.name << ": " << error.message << '\n';
  }
  return exit_code_for(error);
}

Result<SpecMap> parse_pairs(const std::vector<std::string>& pairs, const char* flag) {
  SpecMap map;
  for (const auto& pair : pairs) {
    auto eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) {
      return make_error("InvalidArgument", std::string(flag) + " '" + pair +
                                                          "' is not KEY=VALUE; for example " + flag +
                                                          (std::string(flag) == "--image-prop" ? " hw_numa_nodes=2" : " hw:numa_nodes=2"));
    }
    std::string key = pair.substr(0, eq);
    if (map.count(key) != 0) {
      return make_error("InvalidArgument", std::string(flag) + " " + key + " is given twice; give it once");
    }
    map[key] = pair.substr(eq + 1);
  }
  return map;
}

Result<std::string> read_input(const std::string& path, const char* what) {
  if (path == "-") {
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    std::string text = buffer.str();
    if (text.size() > xml::kMaxXmlBytes) {
      return make_error("XmlTooLarge", std::string(what) + " on standard input is above the size limit");
    }
    return text;
  }
  return xml::read_text_file(path, what);
}

// Writes the whole text or nothing: a temporary file beside OUT, then rename. OUT that exists and
// is not a regular file (/dev/null, a FIFO, a terminal) is written in place: renaming over it would
// replace the device with a file.
StagedOutput::StagedOutput(StagedOutput&& other) noexcept
    : path_(std::move(other.path_)), target_(std::move(other.target_)), temp_(std::move(other.temp_)),
      text_(std::move(other.text_)) {
  other.temp_.clear();
  other.path_.clear();
}

StagedOutput::~StagedOutput() {
  if (!temp_.empty()) std::remove(temp_.c_str());
}

Result<StagedOutput> StagedOutput::stage(const std::string& path, std::string text) {
  StagedOutput staged;
  staged.path_ = path;
  if (path.empty() || path == "-") {
    staged.text_ = std::move(text);
    return staged;
  }
  std::error_code status_error;
  const auto status = std::filesystem::status(path, status_error);
  if (!status_error && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    if (std::filesystem::is_directory(status)) {
      return make_error("CannotWrite", "cannot write '" + path + "': it is a directory");
    }
    staged.target_ = path;  // a FIFO or device: written in place, at commit
    staged.text_ = std::move(text);
    return staged;
  }
  // A symbolic link is written through, as cp would: the file it names gets the text, the link stays.
  std::string target = path;
  std::error_code link_error;
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(path, link_error))) {
    // The link's own target, followed link by link (a dangling link too: the file it names is
    // made, the link kept), as weakly_canonical alone would stop at a dangling link and replace it.
    std::filesystem::path at = path;
    for (int hops = 0; std::filesystem::is_symlink(std::filesystem::symlink_status(at, link_error)); ++hops) {
      if (hops == 40) return make_error("CannotWrite", "cannot write '" + path + "': too many levels of symbolic links");
      const std::filesystem::path next = std::filesystem::read_symlink(at, link_error);
      if (link_error) return make_error("CannotWrite", "cannot write '" + path + "': " + link_error.message());
      at = next.is_absolute() ? next : at.parent_path() / next;
    }
    target = std::filesystem::weakly_canonical(at, link_error).string();
    if (link_error) return make_error("CannotWrite", "cannot write '" + path + "': " + link_error.message());
  }
  const std::string temp = target + ".numaplace-tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) {
      const int error = errno;  // fopen's, as the stream does not keep it
      const auto directory = std::filesystem::path(target).parent_path();
      std::error_code exists_error;
      const std::string why = !directory.empty() && !std::filesystem::exists(directory, exists_error)
                                  ? "its directory '" + directory.string() + "' does not exist"
                                  : std::string(std::strerror(error));
      return make_error("CannotWrite", "cannot write '" + path + "': " + why);
    }
    out << text;
    out.flush();
    if (!out) {
      const int error = errno;
      std::remove(temp.c_str());
      return make_error("CannotWrite", "cannot write '" + path + "': " + std::strerror(error));
    }
  }
  staged.target_ = target;
  staged.temp_ = temp;
  return staged;
}

Status StagedOutput::commit() {
  if (path_.empty() || path_ == "-") {
    std::cout << text_;
    std::cout.flush();
    return Done{};
  }
  if (temp_.empty()) {
    errno = 0;
    std::ofstream out(target_, std::ios::binary);
    out << text_;
    out.flush();
    if (!out) {
      const int error = errno;  // what the stream's last write or open ran into (ENOSPC on /dev/full)
      return make_error("CannotWrite", "cannot write '" + path_ + "'" +
                                           (error != 0 ? std::string(": ") + std::strerror(error) : std::string()));
    }
    return Done{};
  }
  std::error_code ec;
  // The file replaced keeps its permissions (a 0600 domain file stays 0600).
  const auto existing = std::filesystem::status(target_, ec);
  if (!ec && std::filesystem::is_regular_file(existing)) {
    std::filesystem::permissions(temp_, existing.permissions(), ec);
  }
  ec.clear();
  std::filesystem::rename(temp_, target_, ec);
  if (ec) return make_error("CannotWrite", "cannot write '" + path_ + "': " + ec.message());
  temp_.clear();
  return Done{};
}

Status write_output(const std::string& path, const std::string& text) {
  auto staged = StagedOutput::stage(path, text);
  if (!staged) return staged.error();
  return staged->commit();
}

const char* const kHostSourcesHelp =
    "Host sources (place, topology; one of them, or none for this machine):\n"
    "  (none)                this machine: its libvirt (qemu:///system, read-only) when it answers,\n"
    "                        else hwloc, the running guests then read from libvirt's QEMU status\n"
    "                        files (/run/libvirt/qemu); stderr says which was read\n"
    "  -c, --connect URI     libvirt ('test:///default' is libvirt's built-in test host, 2 cells x 8\n"
    "                        CPUs, no daemon needed): 'virsh capabilities' (cells, CPUs,\n"
    "                        siblings, memory, pages, distances) and every PCI node device\n"
    "                        (virConnectListAllNodeDevices): address, NUMA node, vendor/product,\n"
    "                        class, SR-IOV PF/VF; a device libvirt describes impossibly is left out\n"
    "                        with a warning\n"
    "  --capabilities FILE   a saved 'virsh capabilities' document (no PCI devices unless --nodedev\n"
    "                        adds them)\n"
    "  --hwloc               hwloc on this machine: one cell per NUMA node, CPUs, core siblings,\n"
    "                        memory, page pools, distances, and the PCI devices that matter (NICs,\n"
    "                        disks, GPUs) with the NUMA node they hang off (none when their nearest\n"
    "                        CPU-side object spans several nodes); a word right after a bare\n"
    "                        --hwloc is taken as FILE, so put place's domain before it\n"
    "  --hwloc FILE          the same from an hwloc XML export ('lstopo --of xml FILE'); a file hwloc\n"
    "                        cannot parse is HwlocLoadFailed. hwloc reads in a child process, so an\n"
    "                        export that crashes hwloc, keeps it busy past 60 s or asks for more than\n"
    "                        1 GiB of memory is HwlocLoadFailed too (naming the signal or the limit),\n"
    "                        never a crash of numaplace\n"
    "--nodedev FILE (repeatable, any source) adds the PCI devices of 'virsh nodedev-dumpxml' output or of\n"
    "a libvirt test-driver <node> file; a device already known by address is updated. Non-PCI devices\n"
    "are skipped; a PCI device with an impossible field (bus above 255, function above 7, a junk id) is\n"
    "InvalidNodeDevice, and so is one on a NUMA node the host does not have.\n"
    "--free-memory also counts what the live host reports in use: each cell's used memory is raised to\n"
    "at least its total minus its free memory, from libvirt (virNodeGetCellsFreeMemory) with --connect,\n"
    "from libnuma (numa_node_size64) with a bare --hwloc. It is off by default because the host's own\n"
    "figure counts every process and the page cache, not only guests (claims already count guests\n"
    "exactly), and it never lowers what claims recorded. With a file-based host it is\n"
    "FreeMemoryUnavailable (exit 2). libvirt's test driver reports KiB where the API promises bytes, so\n"
    "on test:///default it shows nearly every cell's memory in use (2046 of 2048 MiB) and\n"
    "place --free-memory there finds no room (exit 3). libvirt itself is loaded only when a command opens\n"
    "a connection (LibvirtUnavailable, exit 4, when libvirt.so.0 cannot be loaded).";

void add_host_options(CLI::App* cmd, HostSourceOptions& host) {
  auto* connect = cmd->add_option("-c,--connect", host.connect_uri,
                                  "libvirt URI to read the host from (default: this machine, qemu:///system "
                                  "when it answers, else hwloc; test:///default is libvirt's built-in test host)");
  auto* caps = cmd->add_option("--capabilities", host.capabilities_file,
                               "read the host from a saved 'virsh capabilities' XML file instead of libvirt")
                   ->check(existing_file("--capabilities"));
  connect->excludes(caps);
  auto* hwloc = cmd->add_option_function<std::vector<std::string>>(
                       "--hwloc",
                       [&host](const std::vector<std::string>& file) {
                         host.hwloc = true;
                         host.hwloc_file = file.empty() ? std::string() : file.front();
                         if (!host.hwloc_file.empty()) {
                           std::string path = host.hwloc_file;
                           (void)existing_file("--hwloc")(path);
                         }
                       },
                       "read the host from hwloc: alone, this machine (a bare --hwloc takes the next word as its FILE, so "
                       "put it last, or after the domain); with FILE, an "
                       "hwloc XML export ('lstopo --of xml FILE'), PCI devices and distances included")
                   ->expected(0, 1)
                   ->allow_extra_args(false);
  hwloc->excludes(connect)->excludes(caps);
  cmd->add_option("--nodedev", host.nodedev_files,
                  "add the PCI devices of a node device XML file ('virsh nodedev-dumpxml', or a test-driver "
                  "<node> file) to the host (repeatable); with --connect they are read from libvirt anyway")
      ->allow_extra_args(false)
      ->check(existing_file("--nodedev"));
  cmd->add_option("--host-config", host.host_config,
                  "the host's configuration (CPU sets for dedicated and floating guests, reserved CPUs, memory and "
                  "huge pages, allocation ratios; docs/accounting.md, \"Host configuration\"); by default "
                  "/etc/numaplace/numaplace.conf (or $NUMAPLACE_CONFIG) when the host is this machine")
      ->check(existing_file("--host-config"));
  cmd->add_flag("--free-memory", host.free_memory,
                "also count memory the live host reports in use: each cell's used memory is raised to at least "
                "its total minus its free memory (libvirt's free memory per cell with --connect, libnuma with "
                "--hwloc for this machine). Off by default: it counts every process and the page cache, not "
                "only guests");
}

std::string format_load(double load) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(load == static_cast<double>(static_cast<long long>(load)) ? 0 : 2) << load;
  return out.str();
}

Result<std::vector<GuestClaim>> read_claims(const HostTopology& host, const HostSourceOptions& source,
                                            const std::vector<std::string>& claim_files, bool include_defined,
                                            const std::string& name, const std::string& uuid,
                                            std::size_t* unread, bool refuse_unknown_running,
                                            std::vector<std::string>* running_unread) {
  ClaimSourceOptions options;
  options.connect_uri = libvirt_uri(source);
  options.status_dir = source.status_dir;
  options.include_defined = include_defined;
  options.claim_files = claim_files;
  options.exclude_name = name;
  options.exclude_uuid = uuid;
  options.refuse_unknown_running = refuse_unknown_running;
  if (include_defined && options.connect_uri.empty()) {
    std::cerr << "numaplace: note: --include-defined counts the defined guests of a libvirt connection; "
                 "this host is read from a file, so only --claim files and running guests count\n";
  }
  auto claims = load_claims(options, host);
  if (!claims) return claims.error();
  // A warning may quote a file name or XML a guest's owner chose: no control byte reaches the terminal.
  for (const auto& warning : claims->warnings) {
    std::cerr << "numaplace: warning: claims not counted: " << printable_text(warning) << '\n';
  }
  for (const auto& note : claims->notes) std::cerr << "numaplace: warning: " << printable_text(note) << '\n';
  if (unread != nullptr) *unread = claims->warnings.size();
  if (running_unread != nullptr) *running_unread = claims->running_unread;
  return std::move(claims->claims);
}

Result<std::vector<GuestClaim>> fold_claims(HostTopology& host, const HostSourceOptions& source,
                                            const std::vector<std::string>& claim_files, bool include_defined,
                                            const std::string& name, const std::string& uuid,
                                            bool refuse_unknown_running, std::vector<std::string>* running_unread) {
  auto claims = read_claims(host, source, claim_files, include_defined, name, uuid, nullptr, refuse_unknown_running,
                            running_unread);
  if (claims) apply_claims(host, *claims);
  return claims;
}

void add_claim_options(CLI::App* cmd, std::vector<std::string>& files, bool& include_defined,
                       std::string& status_dir) {
  cmd->add_option("--status-dir", status_dir,
                  "also count the running guests of libvirt's QEMU status files in DIR (/run/libvirt/qemu: "
                  "what libvirt started, read without asking libvirtd; read by default when this machine's "
                  "libvirt does not answer)")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--claim", files,
                  "domain XML of a guest already on this host (repeatable); with a libvirt host its running "
                  "guests are read as well")
      ->allow_extra_args(false)
      ->check(existing_file("--claim"));
  cmd->add_flag("--include-defined", include_defined,
                "also count defined guests that are not running but were placed by numaplace (their record "
                "reserves their cells)");
}

void add_request_options(CLI::App* cmd, std::vector<std::string>& specs, std::vector<std::string>& image_props) {
  // One value per flag, so that `--spec K=V vm.xml` leaves vm.xml to the positional argument.
  cmd->add_option("--spec", specs, "flavor extra spec KEY=VALUE (repeatable), e.g. hw:numa_nodes=2")
      ->allow_extra_args(false);
  cmd->add_option("--image-prop", image_props, "image property KEY=VALUE (repeatable), e.g. hw_numa_nodes=2")
      ->allow_extra_args(false);
}

CLI::Validator not_empty_file_name() {
  return CLI::Validator(
      [](std::string& input) -> std::string {
        return input.empty() ? "an empty file name; give a file, or leave the option out" : std::string();
      },
      "", "not empty");
}

void add_policy_options(CLI::App* cmd, PolicyCliOptions& options) {
  cmd->add_option("--policy", options.policy,
                  "for a guest without hw:numa_nodes: how its vCPUs', memory's and PCI devices' NUMA hints are "
                  "merged (none = leave it unconfined, best-effort, restricted, single-numa-node)")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "best-effort", "restricted", "single-numa-node"}));
  // Two flags, not CLI11's "!--no-..." negation, which --help shows as "{false}".
  auto* prefer = cmd->add_flag("--prefer-closest", options.prefer_closest,
                               "among equally wide NUMA masks prefer the one whose cells are closest, so that cells of "
                               "one socket (or sub-NUMA cluster) come before cells across sockets (the default, where "
                               "the host reports distances)");
  cmd->add_flag_callback("--no-prefer-closest", [&options] { options.prefer_closest = false; },
                         "among equally wide NUMA masks take the lowest-numbered, as the kubelet does")
      ->excludes(prefer);
}

Result<DefaultPlacementOptions> parse_policy(const PolicyCliOptions& options) {
  auto policy = topology_policy_from_name(options.policy);
  if (!policy) {
    return make_error("InvalidArgument", "--policy '" + options.policy +
                                             "' is not one of none, best-effort, restricted, single-numa-node");
  }
  return DefaultPlacementOptions{*policy, options.prefer_closest};
}

void report_replacement(const plugin::RecordedPlacementUse& use) {
  switch (use.kind) {
    case ReplacementKind::Fresh: return;
    case ReplacementKind::Kept:
      if (use.refreshed.empty()) {
        std::cerr << "numaplace: the recorded placement still holds; kept it unchanged\n";
      } else {
        std::cerr << "numaplace: the recorded placement still holds; kept its host cells and pins (" << use.refreshed
                  << ")\n";
      }
      return;
    case ReplacementKind::Repinned: {
      std::string cells;
      for (auto cell : use.repinned_cells) cells += (cells.empty() ? "" : ", ") + std::to_string(cell);
      std::cerr << "numaplace: re-pinned guest cells " << cells << " on their recorded host cells ("
                << use.why << "); the other cells kept their pins"
                << (use.refreshed.empty() ? std::string() : " (" + use.refreshed + ")") << '\n';
      return;
    }
    case ReplacementKind::Moved:
      std::cerr << "numaplace: the recorded placement no longer fits (" << use.why
                << "); placed afresh\n";
      return;
  }
}

void report_narrowings(const std::vector<Narrowing>& narrowings, NarrowingReport report) {
  if (narrowings.empty()) return;
  switch (report) {
    case NarrowingReport::Moved:
      std::cerr << "numaplace: moved off the pCPUs this guest holds:\n";
      break;
    case NarrowingReport::LeftToLifecycle:
      std::cerr << "numaplace: these threads of other guests must move off the pCPUs this guest holds "
                   "(numaplace define and start move them; until then they would share them):\n";
      break;
    case NarrowingReport::DryRun:
      std::cerr << "numaplace: dry run: these threads of other guests would move off the pCPUs this guest "
                   "holds (nothing moved):\n";
      break;
  }
  for (const auto& narrowing : narrowings) std::cerr << "  " << describe(narrowing) << '\n';
}

}  // namespace numaplace::cli
