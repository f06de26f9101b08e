// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace-dev replay FILE: Nova's admission streams (tests/data/conformance/nova/STREAMS.md)
// replayed with a numaplace strategy, each stream's figures beside Nova's spread and
// pack runs and a perfect packer's bound, then the means and ratios overall and per
// host shape. --strategy nova and nova-pack replay Nova's own choices: there the
// figures (and every admission's host cells, page sizes and pinned pCPUs) must equal
// the recorded ones, and any difference is printed and exits 1.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

#include "conformance/stream_replay.h"
#include "numaplace/cli_common.h"
#include "numaplace-dev/dev_commands.h"
#include "numaplace-dev/fixed_text.h"
#include "numaplace/explain_output.h"

namespace numaplace::cli {
namespace {

using conformance::NovaRun;
using conformance::StreamFigures;
using conformance::StreamReplay;

struct ReplayCliOptions {
  std::string file;
  std::string strategy = "adaptive";
  StrategyCliOptions fit;
  std::vector<std::string> streams;
  bool json = false;
  bool goals = false;
  bool first_refusals = false;
};

std::string distance_text(const std::optional<double>& distance) {
  return distance ? fixed(*distance, 2) : "-";
}

// The file rounds distances to 4 decimals.
bool same_figures(const StreamFigures& a, const StreamFigures& b) {
  const bool same_distance =
      a.mean_intercell_distance.has_value() == b.mean_intercell_distance.has_value() &&
      (!a.mean_intercell_distance || std::abs(*a.mean_intercell_distance - *b.mean_intercell_distance) <= 0.5e-4 + 1e-9);
  return a.admitted_before_first_refusal == b.admitted_before_first_refusal && a.admitted_total == b.admitted_total &&
         same_distance && a.multi_cell_admitted == b.multi_cell_admitted;
}

std::string figures_text(const StreamFigures& f) {
  return std::to_string(f.admitted_before_first_refusal) + " before the first refusal, " +
         std::to_string(f.admitted_total) + " in total, mean intercell distance " +
         distance_text(f.mean_intercell_distance);
}

// Sums over a group of streams, for the closing means and ratios.
struct Totals {
  std::size_t streams = 0;
  double before[4] = {};  // ours, spread, pack, bound
  double total[4] = {};
  double before_gain = 0;  // sum over streams of ours / max(spread, pack)
  double total_gain = 0;
  double before_bound_gain = 0;  // the same for the bound: the most any strategy could gain
  double total_bound_gain = 0;
  double distance_ours = 0, distance_pack = 0, distance_spread = 0;
  std::size_t distance_streams = 0;

  void add(const StreamReplay& r) {
    ++streams;
    const StreamFigures* runs[3] = {&r.ours, &r.nova_spread, &r.nova_pack};
    for (int i = 0; i < 3; ++i) {
      before[i] += static_cast<double>(runs[i]->admitted_before_first_refusal);
      total[i] += static_cast<double>(runs[i]->admitted_total);
    }
    before[3] += static_cast<double>(r.bound.admitted_before_first_refusal);
    total[3] += static_cast<double>(r.bound.admitted_total);
    const auto best_before = std::max(r.nova_spread.admitted_before_first_refusal, r.nova_pack.admitted_before_first_refusal);
    const auto best_total = std::max(r.nova_spread.admitted_total, r.nova_pack.admitted_total);
    before_gain += best_before == 0 ? 1.0 : static_cast<double>(r.ours.admitted_before_first_refusal) / static_cast<double>(best_before);
    total_gain += best_total == 0 ? 1.0 : static_cast<double>(r.ours.admitted_total) / static_cast<double>(best_total);
    before_bound_gain += best_before == 0 ? 1.0
                                          : static_cast<double>(r.bound.admitted_before_first_refusal) /
                                                static_cast<double>(best_before);
    total_bound_gain +=
        best_total == 0 ? 1.0 : static_cast<double>(r.bound.admitted_total) / static_cast<double>(best_total);
    if (r.ours.mean_intercell_distance && r.nova_pack.mean_intercell_distance && r.nova_spread.mean_intercell_distance) {
      ++distance_streams;
      distance_ours += *r.ours.mean_intercell_distance;
      distance_pack += *r.nova_pack.mean_intercell_distance;
      distance_spread += *r.nova_spread.mean_intercell_distance;
    }
  }

  void print(const std::string& label, std::ostream& out) const {
    const double n = static_cast<double>(streams);
    const double d = static_cast<double>(distance_streams);
    out << label << " (" << streams << " streams): before the first refusal " << fixed(before[0] / n, 1)
        << " (Nova spread " << fixed(before[1] / n, 1) << ", pack " << fixed(before[2] / n, 1) << ", bound "
        << fixed(before[3] / n, 1) << "), per-stream ratio to the better Nova run " << fixed(before_gain / n, 3)
        << " (bound " << fixed(before_bound_gain / n, 3) << ")"
        << "; in total " << fixed(total[0] / n, 1) << " (spread " << fixed(total[1] / n, 1) << ", pack "
        << fixed(total[2] / n, 1) << ", bound " << fixed(total[3] / n, 1) << "), ratio " << fixed(total_gain / n, 3)
        << " (bound " << fixed(total_bound_gain / n, 3) << ")";
    if (distance_streams > 0) {
      out << "; mean intercell distance " << fixed(distance_ours / d, 2) << " (spread " << fixed(distance_spread / d, 2)
          << ", pack " << fixed(distance_pack / d, 2) << ")";
    }
    out << '\n';
  }
};

// Issue 17's goals for a strategy of ours, as mean per-stream ratios to the better Nova run:
// at least 1.05 before the first refusal and 1.15 in total; multi-cell guests no farther apart than
// Nova pack's. (Issue 8 asked 1.15 for both; its cell-by-cell bound, 1.097, ruled that out.)
constexpr double kGoalBeforeFirstRefusal = 1.05;
constexpr double kGoalTotal = 1.15;

std::vector<std::string> missed_goals(const Totals& all) {
  const double n = static_cast<double>(all.streams);
  std::vector<std::string> missed;
  if (all.before_gain / n < kGoalBeforeFirstRefusal) {
    missed.push_back("before the first refusal: mean ratio " + fixed(all.before_gain / n, 3) + " < " +
                     fixed(kGoalBeforeFirstRefusal, 3));
  }
  if (all.total_gain / n < kGoalTotal) {
    missed.push_back("in total: mean ratio " + fixed(all.total_gain / n, 3) + " < " + fixed(kGoalTotal, 3));
  }
  if (all.distance_streams > 0 && all.distance_ours > all.distance_pack) {
    const double d = static_cast<double>(all.distance_streams);
    missed.push_back("mean intercell distance " + fixed(all.distance_ours / d, 2) + " > Nova pack's " +
                     fixed(all.distance_pack / d, 2));
  }
  return missed;
}

void print_header(std::ostream& out) {
  out << "                                 before first refusal       admitted in total          mean intercell distance\n"
      << "stream           shape          ours spread  pack bound    ours spread  pack bound    ours spread   pack least\n";
}

void print_row(const StreamReplay& r, std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line, "%-16s %-12s %6zu %6zu %5zu %5zu  %6zu %6zu %5zu %5zu  %6s %6s %6s %5u\n",
                r.id.c_str(), r.shape.c_str(), r.ours.admitted_before_first_refusal,
                r.nova_spread.admitted_before_first_refusal, r.nova_pack.admitted_before_first_refusal,
                r.bound.admitted_before_first_refusal, r.ours.admitted_total, r.nova_spread.admitted_total,
                r.nova_pack.admitted_total, r.bound.admitted_total, distance_text(r.ours.mean_intercell_distance).c_str(),
                distance_text(r.nova_spread.mean_intercell_distance).c_str(),
                distance_text(r.nova_pack.mean_intercell_distance).c_str(), r.bound.least_intercell_distance);
  out << line;
}

int run_replay(const ReplayCliOptions& o) {
  StrategyCliOptions fit_options = o.fit;
  NovaRun reproduce = NovaRun::None;
  if (o.strategy == "nova-pack") {
    fit_options.strategy = "nova";
    fit_options.nova_pack = true;
    reproduce = NovaRun::Pack;
  } else {
    fit_options.strategy = o.strategy;
    if (o.strategy == "nova") reproduce = fit_options.nova_pack ? NovaRun::Pack : NovaRun::Spread;
  }
  FitOptions fit;
  if (auto applied = apply_strategy_options(fit_options, fit); !applied) return report(applied.error(), o.json, "numaplace-dev replay");

  std::ifstream in(o.file);
  if (!in) return report(make_error("CannotRead", "cannot read '" + o.file + "'"), o.json, "numaplace-dev replay");
  std::vector<StreamReplay> replays;
  std::string line;
  std::size_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto stream = nlohmann::json::parse(line, nullptr, false);
    const std::string where = o.file + ":" + std::to_string(line_number);
    if (stream.is_discarded() || !stream.is_object()) {
      return report(make_error("InvalidStream", where + " is not a JSON object (one stream a line, STREAMS.md)"), o.json, "numaplace-dev replay");
    }
    if (!o.streams.empty() &&
        std::find(o.streams.begin(), o.streams.end(), stream.value("id", "")) == o.streams.end()) {
      continue;
    }
    auto replay = conformance::replay_stream(stream, fit, reproduce);
    if (!replay) return report(make_error(replay.error().name, where + ": " + replay.error().message), o.json, "numaplace-dev replay");
    replays.push_back(std::move(*replay));
  }
  if (replays.empty()) {
    return report(make_error("NoStreams", o.streams.empty() ? "'" + o.file + "' holds no stream"
                                                            : "no stream of '" + o.file + "' has the --stream ids given"),
                  o.json, "numaplace-dev replay");
  }

  int differences = 0;
  for (const auto& r : replays) {
    if (reproduce == NovaRun::None) continue;
    const StreamFigures& nova = reproduce == NovaRun::Pack ? r.nova_pack : r.nova_spread;
    if (same_figures(r.ours, nova) && r.first_trace_difference.empty()) continue;
    ++differences;
    std::cerr << "numaplace-dev replay: " << r.id << " does not reproduce Nova's " << o.strategy << " run: Nova "
              << figures_text(nova) << "; numaplace " << figures_text(r.ours)
              << (r.first_trace_difference.empty() ? "" : "; first difference: " + r.first_trace_difference) << '\n';
  }

  Totals all;
  std::map<std::string, Totals> by_shape;
  for (const auto& r : replays) {
    all.add(r);
    by_shape[r.shape].add(r);
  }
  const std::vector<std::string> missed = o.goals ? missed_goals(all) : std::vector<std::string>{};
  // With --json, stdout holds the rows only; what a person should read goes to stderr.
  std::ostream& notes = o.json ? std::cerr : std::cout;
  if (o.json) {
    for (const auto& r : replays) {
      nlohmann::json row = {{"id", r.id},
                            {"admitted_before_first_refusal", r.ours.admitted_before_first_refusal},
                            {"admitted_total", r.ours.admitted_total},
                            {"mean_intercell_distance", nullptr}};
      if (r.ours.mean_intercell_distance) row["mean_intercell_distance"] = *r.ours.mean_intercell_distance;
      std::cout << row.dump() << '\n';
    }
  } else {
    std::cout << "numaplace-dev replay: strategy " << o.strategy << ", " << replays.size() << " streams of " << o.file
              << "\n(bound: what a perfect packer could admit by CPU and memory totals alone; least: the smallest "
                 "distance between two cells)\n";
    print_header(std::cout);
    for (const auto& r : replays) print_row(r, std::cout);
    std::cout << '\n';
    for (const auto& [shape, totals] : by_shape) totals.print("shape " + shape, std::cout);
    all.print("all streams", std::cout);
    if (o.first_refusals) {
      std::cout << "\nfirst refusal per stream (ours):\n";
      for (const auto& r : replays) {
        if (!r.first_refusal) {
          std::cout << r.id << ": none\n";
          continue;
        }
        std::cout << r.id << ": request " << *r.first_refusal << ": " << r.first_refusal_why << '\n';
      }
    }
  }
  if (o.goals) {
    for (const auto& goal : missed) notes << "goal missed: " << goal << '\n';
    if (missed.empty()) notes << "every goal met\n";
  }
  if (reproduce != NovaRun::None) {
    notes << (differences == 0 ? "Nova's figures reproduced on every stream\n"
                               : std::to_string(differences) + " streams differ from Nova's figures\n");
  }
  if (!missed.empty()) return kExitBadInput;
  return differences == 0 ? 0 : kExitBadInput;
}

}  // namespace

Command register_replay(CLI::App& app) {
  auto options = std::make_shared<ReplayCliOptions>();
  auto* cmd = app.add_subcommand(
      "replay", "Replay Nova's admission streams with a numaplace strategy and compare the figures with Nova's");
  cmd->add_option("FILE", options->file, "admission streams, one JSON object a line (conformance/nova/streams.jsonl)")
      ->required()
      ->check(existing_file("FILE"));
  cmd->add_option("--strategy", options->strategy,
                  "adaptive (default: pack on hosts of three or more cells, spread on one or two), pack, spread, "
                  "ratio, or Nova's own choice: nova (spread order) or nova-pack (packing order); nova and "
                  "nova-pack must reproduce the file's Nova figures")
      ->check(CLI::IsMember({"nova", "nova-pack", "spread", "pack", "ratio", "adaptive"}));
  cmd->add_option("--ratio-shape", options->fit.ratio_shape, "with --strategy ratio: UTILIZATION:SCORE points");
  cmd->add_option("--ratio-weights", options->fit.ratio_weights, "weights of the scored strategies, e.g. cpu=1,memory=2");
  cmd->add_option("--stream", options->streams, "replay only the streams with these ids (repeatable)");
  cmd->add_flag("--first-refusals", options->first_refusals,
                "after the table, say per stream which request our strategy refused first and why");
  cmd->add_flag("--json", options->json,
                "one JSON object a line per stream: id, admitted_before_first_refusal, admitted_total, "
                "mean_intercell_distance");
  cmd->add_flag("--goals", options->goals,
                "also check issue 17's quality goals (mean per-stream ratio to the better Nova run at least 1.05 "
                "before the first refusal and 1.15 in total, mean intercell distance no higher than Nova pack's); "
                "exit 1 when one is missed");
  cmd->footer(
      "Each stream is one host and its requests in order (STREAMS.md beside the file): every request is\n"
      "fitted on the current host with the strategy, and an admitted one is added to the host by Nova's\n"
      "accounting (memory always counted, pages used per page size, floating vCPUs as shared load, pins\n"
      "and, for isolate, whole cores); a refused one leaves the host as it was and the stream goes on. The\n"
      "table shows per stream our figures (admitted before the first refusal, admitted in total, mean\n"
      "intercell distance), Nova's spread and pack figures from the file, and an upper bound; the closing\n"
      "lines give means per host shape and overall, and the mean per-stream ratio of ours to the better of\n"
      "Nova's two runs. With --strategy nova or nova-pack every stream's figures and every admission's host\n"
      "cells, page sizes and pinned pCPUs must match the file; a difference is printed with the first\n"
      "request where it occurs. --first-refusals names the request refused first (\"request 5: 1-cell\n"
      "dedicated, 8 vCPUs, 65536 MiB\") and why, host cell by host cell. The figures and what they mean:\n"
      "docs/admission-streams.md of the sources.\n"
      "Exit codes: 0 done; 1 bad input, a stream that does not reproduce Nova (nova, nova-pack) or a missed\n"
      "goal (--goals); 2 usage.\n"
      "Examples:\n"
      "  numaplace-dev replay tests/data/conformance/nova/streams.jsonl\n"
      "  numaplace-dev replay tests/data/conformance/nova/streams.jsonl --strategy nova      # must reproduce Nova\n"
      "  numaplace-dev replay tests/data/conformance/nova/streams.jsonl --stream nova-stream-09 --first-refusals");
  return {cmd, [options] { return run_replay(*options); }};
}

}  // namespace numaplace::cli
