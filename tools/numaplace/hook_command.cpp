// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace hook qemu NAME OP SUBOP [EXTRA]: libvirt's QEMU hook (tools/hooks/qemu).
// libvirt waits for the hook and treats a non-zero exit as failure of the operation,
// and uses stdout as the new domain XML only on "migrate begin" and "restore begin".
//   migrate begin, restore begin: a guest carrying a numaplace request in its metadata
//     is placed again for THIS host (hwloc, or --capabilities/--hwloc FILE) around the
//     guests running here (libvirt's status files, never a call into libvirtd, which
//     would deadlock); the new XML is printed. A guest without a numaplace request
//     passes unchanged (no output). When it cannot be placed, the hook refuses: a
//     guest started on pins another guest holds would silently lose its isolation.
//   prepare begin: refuses a guest whose pinned pCPUs are held by a running guest.
//   anything else: exit 0 at once, stdin unread, nothing printed.
// Safety: no input crashes it (errors are messages, exit 1); a time limit (alarm,
// --timeout, default 10 s, NUMAPLACE_HOOK_TIMEOUT) ends it with a refusal; the file
// /etc/numaplace/hook-disabled or NUMAPLACE_HOOK_DISABLED=1 makes every operation pass.
// The decision itself is plugin/service/qemu_hook.h (fuzzed by tests/fuzz/fuzz_hook.cpp); this file
// reads stdin, loads the host and the status files, and prints the verdict.
#include <unistd.h>

#include <charconv>
#include <csignal>
#include <cstring>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "numaplace/cli_common.h"
#include "numaplace/command.h"
#include "numaplace/host_source.h"
#include "plugin/service/domain_lifecycle.h"
#include "plugin/service/host_lock.h"
#include "plugin/service/qemu_hook.h"
#include "placement/model/utf8_text.h"
#include "plugin/sources/status_claims.h"

namespace numaplace::cli {
namespace {

constexpr unsigned kDefaultTimeoutSeconds = 10;
constexpr unsigned kMaxTimeoutSeconds = 3600;
constexpr int kHookRefused = 1;

struct HookOptions {
  std::string driver;
  std::vector<std::string> args;  // NAME OP SUBOP [EXTRA...]
  std::string capabilities_file;
  std::string hwloc_file;
  std::string status_dir = plugin::kQemuStatusDir;
  std::string disabled_file = "/etc/numaplace/hook-disabled";
  unsigned timeout = 0;  // 0: NUMAPLACE_HOOK_TIMEOUT or the default
};

extern "C" void on_timeout(int) {
  static const char message[] =
      "numaplace hook: timed out; the operation is refused. Disable the hook with "
      "'touch /etc/numaplace/hook-disabled' if this persists\n";
  // Only async-signal-safe calls here.
  ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
  (void)ignored;
  _exit(kHookRefused);
}

bool disabled(const HookOptions& o) {
  const char* env = std::getenv("NUMAPLACE_HOOK_DISABLED");
  if (env != nullptr && std::string(env) != "" && std::string(env) != "0") return true;
  std::error_code ec;
  return !o.disabled_file.empty() && std::filesystem::exists(o.disabled_file, ec);
}

// --timeout, else NUMAPLACE_HOOK_TIMEOUT, else the default. A variable that is no number of
// seconds from 1 to the maximum is an error (strtoul read "abc" as unset and "-5" as an hour).
Result<unsigned> timeout_seconds(const HookOptions& o) {
  if (o.timeout > 0) return std::min(o.timeout, kMaxTimeoutSeconds);
  const char* env = std::getenv("NUMAPLACE_HOOK_TIMEOUT");
  if (env == nullptr || *env == '\0') return kDefaultTimeoutSeconds;
  unsigned value = 0;
  const char* end = env + std::strlen(env);
  const auto [stop, ec] = std::from_chars(env, end, value);
  if (ec != std::errc() || stop != end || value < 1 || value > kMaxTimeoutSeconds) {
    return make_error("InvalidArgument", "NUMAPLACE_HOOK_TIMEOUT '" + printable_text(env) +
                                             "' is not a whole number of seconds from 1 to " +
                                             std::to_string(kMaxTimeoutSeconds) + "; fix it, or unset it for the "
                                             "default of " + std::to_string(kDefaultTimeoutSeconds) + " s");
  }
  return value;
}

// This host as the CLI's other commands read it (host_source.h): a capabilities file when given,
// else hwloc (an export, or this machine); never libvirt, which waits for the hook.
HostSourceOptions host_source_of(const HookOptions& o) {
  HostSourceOptions host;
  host.capabilities_file = o.capabilities_file;
  host.hwloc = o.capabilities_file.empty();
  host.hwloc_file = o.hwloc_file;
  return host;
}

int run_hook(const HookOptions& o) {
  if (disabled(o)) return 0;
  if (o.driver != "qemu" || o.args.size() < 3) return 0;  // not ours to judge
  plugin::HookInput input{o.args[0], o.args[1], o.args[2], {}};
  if (!plugin::hook_reads_input(input.op, input.subop)) return 0;

  std::signal(SIGALRM, on_timeout);
  const Result<unsigned> timeout = timeout_seconds(o);
  alarm(timeout ? *timeout : kDefaultTimeoutSeconds);
  const std::string operation = input.op == "prepare" ? "start (prepare begin)" : input.op + " " + input.subop;
  auto refuse = [&](const Error& error) {
    // One line, which libvirt shows in its error: a message of several (a NoFit's per-cell
    // reasons) is joined with "; ".
    std::string message;
    std::size_t start = 0;
    while (start <= error.message.size()) {
      const std::size_t end = std::min(error.message.find('\n', start), error.message.size());
      const std::size_t text = error.message.find_first_not_of(' ', start);
      if (text < end) message += (message.empty() ? "" : "; ") + error.message.substr(text, end - text);
      start = end + 1;
    }
    std::cerr << "numaplace hook: refusing " << operation << " of guest '" << input.guest << "': " << error.name
              << ": " << message << '\n';
    return kHookRefused;
  };
  try {
    if (!timeout) return refuse(timeout.error());
    auto text = read_input("-", "domain XML");
    if (!text) return refuse(text.error());
    input.domain_xml = std::move(*text);
    // Placing again hands out pCPUs: under the host lock, as define and start, within the time limit.
    // A start of this very guest holds it while libvirt runs this hook (a managed save restored),
    // and then the lock is held on this operation's behalf.
    std::optional<plugin::HostLock> lock;
    if (plugin::hook_places_again(input.op, input.subop)) {
      auto taken = plugin::HostLock::acquire(plugin::default_lock_path(), static_cast<int>(*timeout),
                                             "hook " + input.op + " " + input.guest,
                                             plugin::start_lock_purpose(input.guest));
      if (!taken) return refuse(taken.error());
      lock.emplace(std::move(*taken));
    }
    // Without the running guests' status files the hook would take every pCPU for free; libvirt's
    // QEMU driver keeps that directory whenever it runs, so its absence is a refusal, not an idle host.
    if (std::error_code ec; plugin::hook_places_again(input.op, input.subop) &&
                            !std::filesystem::is_directory(o.status_dir, ec)) {
      return refuse(make_error("CannotRead", "the status directory of running guests '" + o.status_dir +
                                                 "' is not a directory, so the pCPUs and memory they hold are "
                                                 "unknown; give --status-dir, or check libvirt's QEMU driver"));
    }
    plugin::HookSources sources;
    sources.host = [&o] { return load_host(host_source_of(o)); };
    // A running guest the hook cannot read holds pCPUs it cannot see: it cannot decide.
    sources.running = [&o, &input]() -> Result<std::vector<plugin::DomainXml>> {
      std::error_code ec;
      if (!std::filesystem::is_directory(o.status_dir, ec)) {
        return make_error("CannotRead", "the status directory of running guests '" + o.status_dir +
                                            "' is not a directory, so the pCPUs and memory they hold are unknown; give "
                                            "--status-dir, or check libvirt's QEMU driver");
      }
      plugin::StatusScan scan = plugin::read_status_dir(o.status_dir);
      if (const auto warnings = plugin::status_warnings_except(scan, input.guest); !warnings.empty()) {
        return make_error("RunningGuestsUnknown", "a running guest's status cannot be read (" + warnings.front() +
                                                      "), so what it holds is unknown; make it readable to the hook (libvirt's status files are "
                                                      "root's) or stop that guest, or switch the hook off (docs/hook.md)");
      }
      return std::move(scan.domains);
    };
    plugin::HookVerdict verdict = plugin::decide_qemu_hook(input, sources);
    for (const auto& warning : verdict.warnings) std::cerr << "numaplace hook: warning: " << warning << '\n';
    if (verdict.refused) return refuse(verdict.refusal);
    for (const auto& narrowing : verdict.unnarrowed) {
      std::cerr << "numaplace hook: warning: " << describe(narrowing)
                << " still reaches the pCPUs guest '" << input.guest
                << "' takes; the hook cannot re-pin it while libvirt waits (start guests with numaplace start, "
                   "which narrows them)\n";
    }
    if (verdict.new_xml.empty()) return 0;
    alarm(0);  // all or nothing from here: the XML is written whole
    std::cout << verdict.new_xml;
    std::cout.flush();
    return std::cout ? 0 : kHookRefused;
  } catch (const std::exception& e) {
    return refuse(make_error("InternalError", e.what()));
  } catch (...) {
    return refuse(make_error("InternalError", "unknown failure"));
  }
}

}  // namespace

Command register_hook(CLI::App& app) {
  auto options = std::make_shared<HookOptions>();
  auto* hook = app.add_subcommand("hook", "Run as libvirt's hook (installed as /etc/libvirt/hooks/qemu.d/numaplace)");
  hook->footer(
      "libvirt runs /etc/libvirt/hooks/qemu.d/numaplace NAME OP SUBOP EXTRA with the domain XML on stdin;\n"
      "that script (tools/hooks/qemu) runs 'numaplace hook qemu -- NAME OP SUBOP EXTRA'. libvirt waits for\n"
      "it, treats any non-zero exit as failure of the operation, and takes stdout as the new XML only on\n"
      "migrate begin and restore begin.\n"
      "  migrate begin, restore begin: a guest carrying a numaplace request in its metadata is placed\n"
      "    again for this host, moving only what must move (a guest whose pins are still free keeps them;\n"
      "    one whose pCPUs another guest took meanwhile is re-pinned on the same host cells): the host from\n"
      "    hwloc, the guests running here from libvirt's status files (/run/libvirt/qemu/*.xml,\n"
      "    <domstatus>), never a call back into libvirtd (it would deadlock). The new XML goes to stdout.\n"
      "    A guest numaplace did not place passes unchanged (no output)\n"
      "  prepare begin: refuse a guest whose pinned pCPUs a running guest holds (exit 1, PinningCollision)\n"
      "  anything else: pass (exit 0 at once, stdin unread, no output)\n"
      "When it cannot decide, on migrate begin, restore begin and prepare begin the hook refuses (exit 1,\n"
      "one line on stderr, which libvirt shows in its error): unreadable XML, a guest that no longer fits,\n"
      "a host hwloc cannot read, or the time limit. Starting the guest anyway would put two dedicated\n"
      "guests on one pCPU without anyone noticing. A running guest it cannot count is such a case too (a\n"
      "status file it cannot read or parse: RunningGuestsUnknown; pins on CPUs gone offline are counted\n"
      "within the host, with a warning). Only numaplace-placed guests are\n"
      "refused for what the hook cannot read; on prepare begin others are refused only for a collision with\n"
      "a running guest's pins. Running guests' threads that still reach the pCPUs a restored guest\n"
      "takes are named on stderr: the hook may not call libvirt to re-pin them (numaplace start does).\n"
      "Switch it off at once: touch /etc/numaplace/hook-disabled (or NUMAPLACE_HOOK_DISABLED=1 in\n"
      "libvirtd's environment), and every operation passes untouched. Time limit: 10 s by default\n"
      "(--timeout S, or NUMAPLACE_HOOK_TIMEOUT), then a refusal. --capabilities, --hwloc, --status-dir and\n"
      "--disabled-file are for tests. Installing: docs/hook.md and docs/install.md of the sources.\n"
      "Example (a test host and status directory):\n"
      "  numaplace hook qemu --capabilities caps.xml --status-dir ./status -- vm1 restore begin - < vm1.xml\n"
      "  echo garbage | numaplace hook qemu -- vm migrate begin -; echo \"exit $?\"   # XmlMalformed, exit 1");
  hook->add_option("DRIVER", options->driver, "the hook's driver; only qemu acts, others pass")->required();
  hook->add_option("ARGS", options->args, "NAME OP SUBOP [EXTRA] as libvirt gives them");
  hook->add_option("--capabilities", options->capabilities_file,
                   "read this host from a saved capabilities file instead of hwloc (for tests)");
  hook->add_option("--hwloc", options->hwloc_file, "read this host from an hwloc XML export instead of the machine");
  hook->add_option("--status-dir", options->status_dir,
                   "where libvirt keeps the status XML of running guests (default /run/libvirt/qemu)");
  hook->add_option("--timeout", options->timeout,
                   "give up (refusing the operation) after SECONDS, 1 to 3600 (default 10, or "
                   "NUMAPLACE_HOOK_TIMEOUT)")
      ->check(whole_number(1, kMaxTimeoutSeconds));
  hook->add_option("--disabled-file", options->disabled_file,
                   "when this file exists every operation passes (default /etc/numaplace/hook-disabled)");
  return {hook, [options] { return run_hook(*options); }};
}

}  // namespace numaplace::cli
