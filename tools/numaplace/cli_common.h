/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What every numaplace subcommand shares: exit codes, error reporting (text or
// JSON), KEY=VALUE parsing, all-or-nothing output, and the host/claims/request
// options with the code that turns them into a host with its claims folded in.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "numaplace/host_source.h"
#include "placement/lifecycle/claims.h"
#include "placement/lifecycle/default_placement.h"
#include "placement/model/error.h"
#include "placement/model/guest_request.h"
#include "placement/model/host_topology.h"
#include "plugin/service/place_domain.h"
#include "numaplace/exit_codes.h"

namespace numaplace::cli {

// The exit code of `error`'s kind (exit_codes.h).
inline int exit_code_for(const Error& error) { return exit_code_for(error.kind); }

// A file `option` names must be readable: otherwise parsing stops with UnreadableFile (command.h),
// reported as CannotRead (exit 2) naming the option, the path and why ("it is a directory", errno).
CLI::Validator existing_file(const std::string& option);
// Prints the error (stderr as "PROGRAM: Name: message", or a JSON object on stdout) and returns its
// exit code; `program` is what stderr names ("numaplace-dev replay" for the developer commands).
int report(const Error& error, bool json, std::string_view program = "numaplace");

Result<SpecMap> parse_pairs(const std::vector<std::string>& pairs, const char* flag);
// A file, or "-" for standard input; bounded in size.
Result<std::string> read_input(const std::string& path, const char* what);
// The whole text or nothing: stdout, or a temporary file beside `path` renamed over it.
Status write_output(const std::string& path, const std::string& text);

// write_output in two steps, so that several files are written all or none: stage writes the
// text to a temporary file beside `path` (nothing for stdout, a FIFO or a device, which commit
// writes in place), commit renames it over `path`; a staged output not committed leaves no trace.
class StagedOutput {
 public:
  static Result<StagedOutput> stage(const std::string& path, std::string text);
  Status commit();
  StagedOutput(StagedOutput&& other) noexcept;
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;
  StagedOutput& operator=(StagedOutput&&) = delete;
  ~StagedOutput();

 private:
  StagedOutput() = default;
  std::string path_, target_, temp_, text_;
};

// The check of a count option: a whole number from `least` to `most`, written in digits (no sign,
// no blanks, no exponent). Its message says which of those the word is not, where CLI11's Range
// calls any word "not in range" and an unsigned option would take "-1" as a huge number.
CLI::Validator whole_number(std::uint64_t least, std::uint64_t most);

// The check of an output file option: an empty name is a usage error, not "the option left out"
// (which writes to stdout, or the table instead of a picture).
CLI::Validator not_empty_file_name();

void add_host_options(CLI::App* cmd, HostSourceOptions& host);
// What add_host_options' flags read, for the footers of the commands that take them.
extern const char* const kHostSourcesHelp;
void add_claim_options(CLI::App* cmd, std::vector<std::string>& files, bool& include_defined, std::string& status_dir);
void add_request_options(CLI::App* cmd, std::vector<std::string>& specs, std::vector<std::string>& image_props);

// The guests already on the host: the libvirt host's domains (or its status files) and --claim
// files, leaving out the guest named `name` / `uuid` (the one being placed). Domains whose claims
// cannot be read are warnings on stderr, counted in *unread when it is given.
Result<std::vector<GuestClaim>> read_claims(const HostTopology& host, const HostSourceOptions& source,
                                            const std::vector<std::string>& claim_files, bool include_defined,
                                            const std::string& name, const std::string& uuid,
                                            std::size_t* unread = nullptr, bool refuse_unknown_running = false,
                                            std::vector<std::string>* running_unread = nullptr);
// read_claims, folded into the host's usage; `refuse_unknown_running` for a placement (ClaimSourceOptions);
// `running_unread`, when given, receives why each running guest that could not be read was not.
Result<std::vector<GuestClaim>> fold_claims(HostTopology& host, const HostSourceOptions& source,
                                            const std::vector<std::string>& claim_files, bool include_defined,
                                            const std::string& name, const std::string& uuid,
                                            bool refuse_unknown_running,
                                            std::vector<std::string>* running_unread = nullptr);

std::string format_load(double load);

// --policy none|best-effort|restricted|single-numa-node and --prefer-closest, for guests without a
// NUMA topology; parse_policy turns the text into options (InvalidArgument on an unknown name).
struct PolicyCliOptions {
  std::string policy = "best-effort";
  bool prefer_closest = true;  // the placement's default (default_placement.h)
};
void add_policy_options(CLI::App* cmd, PolicyCliOptions& options);
Result<DefaultPlacementOptions> parse_policy(const PolicyCliOptions& options);

// How the placement recorded in the domain was used, for the person at the terminal (stderr;
// nothing for a fresh placement).
void report_replacement(const plugin::RecordedPlacementUse& use);

// What became of the other guests' threads a dedicated guest's pCPUs take: moved (define, start),
// left for define/start to move (place, which writes only a file), or not moved by a dry run.
enum class NarrowingReport { Moved, LeftToLifecycle, DryRun };
// One line each on stderr; nothing when there are none.
void report_narrowings(const std::vector<Narrowing>& narrowings, NarrowingReport report);

}  // namespace numaplace::cli
