// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace-dev fleet FILE: a fleet (tools/bench/make_fleet.py) replayed with numaplace's rank +
// place and with the model of Nova's scheduler (conformance/fleet_replay.h), their admissions side
// by side. When the file records the real Nova's run (tools/conformance/nova_fleet.py) the model
// must reproduce it request by request; a difference is printed and exits 1. --goals checks issue
// 17's fleet goal: 1.10 x Nova's admissions before the first refusal and in total.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include "conformance/fleet_replay.h"
#include "numaplace-dev/dev_commands.h"
#include "numaplace-dev/fixed_text.h"
#include "numaplace/cli_common.h"
#include "numaplace/rank_flags.h"

namespace numaplace::cli {
namespace {

using conformance::FleetReplay;
using conformance::FleetRun;

constexpr double kFleetGoal = 1.10;

struct FleetCliOptions {
  std::string file;
  RankStrategyFlags strategies;
  bool json = false;
  bool goals = false;
};

double ratio(std::size_t ours, std::size_t theirs) {
  return theirs == 0 ? 1.0 : static_cast<double>(ours) / static_cast<double>(theirs);
}

nlohmann::json run_json(const FleetRun& run) {
  return {{"admitted_before_first_refusal", run.admitted_before_first_refusal},
          {"admitted_total", run.admitted_total},
          {"hosts_used", run.hosts_used}};
}

void print_row(const std::string& label, const FleetRun& run, std::ostream& out) {
  char line[160];
  std::snprintf(line, sizeof line, "%-52s %10zu %9zu %6zu\n", label.c_str(), run.admitted_before_first_refusal,
                run.admitted_total, run.hosts_used);
  out << line;
}

int run_fleet(const FleetCliOptions& o) {
  auto options = rank_options_from_flags(o.strategies);
  if (!options) return report(options.error(), o.json, "numaplace-dev fleet");
  options->keep_placements = true;
  std::ifstream in(o.file);
  if (!in) return report(make_error("CannotRead", "cannot read '" + o.file + "'"), o.json, "numaplace-dev fleet");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const auto fleet = nlohmann::json::parse(text, nullptr, false);
  if (fleet.is_discarded() || !fleet.is_object()) {
    return report(make_error("InvalidFleet", "'" + o.file + "' is not one JSON object (tools/bench/make_fleet.py)"),
                  o.json, "numaplace-dev fleet");
  }
  auto replay = conformance::replay_fleet(fleet, *options);
  if (!replay) return report(make_error(replay.error().name, o.file + ": " + replay.error().message), o.json, "numaplace-dev fleet");
  const FleetReplay& r = *replay;
  const double before = ratio(r.ours.admitted_before_first_refusal, r.nova_model.admitted_before_first_refusal);
  const double total = ratio(r.ours.admitted_total, r.nova_model.admitted_total);
  const bool reproduced = r.first_nova_difference.empty();

  std::ostream& notes = o.json ? std::cerr : std::cout;
  const std::string cells = to_string(options->fit.strategy);
  const std::string hosts = scoring::to_string(options->scoring.strategy);
  if (o.json) {
    nlohmann::json out = {{"id", r.id},
                          {"hosts", r.hosts},
                          {"requests", r.requests},
                          {"strategy", cells},
                          {"host_strategy", hosts},
                          {"numaplace", run_json(r.ours)},
                          {"nova_model", run_json(r.nova_model)},
                          {"ratio_before_first_refusal", before},
                          {"ratio_total", total},
                          {"nova_recorded", nullptr},
                          {"nova_reproduced", nullptr}};
    if (r.nova_recorded) {
      out["nova_recorded"] = run_json(*r.nova_recorded);
      out["nova_reproduced"] = reproduced;
    }
    std::cout << out.dump() << '\n';
  } else {
    std::cout << "numaplace-dev fleet: " << r.id << ", " << r.hosts << " hosts, " << r.requests << " requests\n"
              << "                                                     before first   admitted  hosts\n"
              << "run                                                       refusal   in total   used\n";
    print_row("numaplace rank + place (" + cells + ", " + hosts + ")", r.ours, std::cout);
    print_row("Nova model (NUMATopologyFilter + RAMWeigher)", r.nova_model, std::cout);
    if (r.nova_recorded) print_row("Nova 26 itself (recorded by nova_fleet.py)", *r.nova_recorded, std::cout);
    std::cout << "numaplace / Nova: " << fixed(before, 3) << " before the first refusal, " << fixed(total, 3)
              << " in total\n";
  }
  if (r.nova_recorded) {
    if (reproduced) {
      notes << "the model reproduces the recorded Nova run, request by request\n";
    } else {
      std::cerr << "numaplace-dev fleet: the model does not reproduce the recorded Nova run: "
                << r.first_nova_difference << '\n';
    }
  }
  bool missed = false;
  if (o.goals) {
    for (const auto& [name, value] : {std::pair{"before the first refusal", before}, std::pair{"in total", total}}) {
      if (value >= kFleetGoal) continue;
      missed = true;
      notes << "goal missed: " << name << ": ratio " << fixed(value, 3) << " < " << fixed(kFleetGoal, 2) << '\n';
    }
    if (!missed) notes << "every goal met\n";
  }
  return reproduced && !missed ? 0 : kExitBadInput;
}

}  // namespace

Command register_fleet(CLI::App& app) {
  auto options = std::make_shared<FleetCliOptions>();
  auto* cmd = app.add_subcommand(
      "fleet", "Replay a fleet with numaplace's rank + place and with Nova's scheduler, admissions side by side");
  cmd->add_option("FILE", options->file, "a fleet: one JSON object with hosts and requests (tools/bench/make_fleet.py)")
      ->required()
      ->check(existing_file("FILE"));
  add_strategy_options(cmd, options->strategies.cells, {},
                       "; each host's cells, as place and rank choose them; hosts are scored by its counterpart "
                       "(pack: MostAllocated, ratio: RequestedToCapacityRatio, else LeastAllocated) unless "
                       "--host-strategy says otherwise");
  cmd->add_option("--host-strategy", options->strategies.host_strategy,
                  "how fitting hosts are scored, as rank's: LeastAllocated, MostAllocated, RequestedToCapacityRatio")
      ->check(CLI::IsMember({"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"}));
  cmd->add_flag("--json", options->json,
                "one JSON object: id, hosts, requests, strategy, host_strategy, numaplace, nova_model, "
                "nova_recorded (null when the file has no record), ratio_before_first_refusal, ratio_total, "
                "nova_reproduced");
  cmd->add_flag("--goals", options->goals,
                "also check the fleet goal: numaplace admits at least 1.10 x the model of Nova, before the first "
                "refusal and in total; exit 1 when it does not");
  cmd->footer(
      "Every request, in order, is placed twice on the current state of the fleet: by numaplace (rank's fit\n"
      "and score on every host, exactly as `numaplace rank` with the same flags, the best host taken, then\n"
      "its cells as rank chose them) and by a model of Nova 26's scheduler (the hosts whose Nova fit admits\n"
      "the guest, NUMATopologyFilter; the one with the most free memory, RAMWeigher; ties to the earlier\n"
      "host). An admission is added to its host by Nova's accounting; a request no host takes is refused\n"
      "and the fleet goes on. The table gives each run's admissions before the first refusal, in total, and\n"
      "the hosts in use at the end. A file that records the real Nova's run (nova_fleet.py) is also\n"
      "checked: the model must choose Nova's host for every request. docs/admission-streams.md of the\n"
      "sources says what the figures mean and what was measured.\n"
      "Exit codes: 0 done; 1 bad input, a model that differs from the recorded Nova run, or a missed goal\n"
      "(--goals); 2 usage.\n"
      "Examples:\n"
      "  tools/bench/make_fleet.py tests/data/conformance/nova/streams.jsonl 100 60 17 > fleet.json\n"
      "  numaplace-dev fleet fleet.json\n"
      "  numaplace-dev fleet tests/data/conformance/nova/fleet-16.json --strategy pack --goals");
  return {cmd, [options] { return run_fleet(*options); }};
}

}  // namespace numaplace::cli
