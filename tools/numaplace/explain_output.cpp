// SPDX-License-Identifier: LGPL-2.1-or-later
#include "numaplace/explain_output.h"

#include "placement/model/count_words.h"
#include "placement/fit/strategy.h"

namespace numaplace::cli {
namespace {

std::string mib(std::uint64_t kib) {
  return kib % 1024 == 0 ? std::to_string(kib / 1024) + " MiB" : std::to_string(kib) + " KiB";
}

std::string format_vcpus(double load) {
  std::string text = std::to_string(load);
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

// "web-3 (pCPUs 2-3, 2048 MiB)" for every guest holding something on host cell `id`.
std::vector<std::string> holders_of(const std::vector<GuestClaim>& claims, std::uint32_t id) {
  std::vector<std::string> out;
  for (const auto& claim : claims) {
    for (const auto& cell : claim.cells) {
      if (cell.host_cell != id) continue;
      std::string parts;
      auto add = [&](const std::string& part) { parts += (parts.empty() ? "" : ", ") + part; };
      if (!cell.pinned_cpus.empty()) add("pCPUs " + to_cpu_list(cell.pinned_cpus));
      if (cell.shared_vcpus > 0) add(format_vcpus(cell.shared_vcpus) + (cell.shared_vcpus == 1.0 ? " shared vCPU" : " shared vCPUs"));
      if (cell.memory_kib > 0) add(mib(cell.memory_kib));
      for (const auto& [size, count] : cell.pages) add(std::to_string(count) + " x " + std::to_string(size) + " KiB pages");
      out.push_back(claim.name + (parts.empty() ? "" : " (" + parts + ")"));
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : "; ") + item;
  return text;
}

std::string outline_text(const AssignmentOutline& outline) {
  std::string text;
  for (const auto& [guest, host] : outline.cells) {
    text += (text.empty() ? "" : ", ") + std::string("guest cell ") + std::to_string(guest) + " -> host cell " +
            std::to_string(host);
  }
  return text + " (score " + std::to_string(outline.score) + ", distance sum " + std::to_string(outline.distance) + ")";
}

nlohmann::json outline_json(const std::optional<AssignmentOutline>& outline) {
  if (!outline) return nullptr;
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& [guest, host] : outline->cells) cells.push_back({{"guest_cell", guest}, {"host_cell", host}});
  return {{"cells", cells}, {"score", outline->score}, {"distance_sum", outline->distance}};
}

}  // namespace

void add_strategy_options(CLI::App* cmd, StrategyCliOptions& options, const std::vector<std::string>& also_accepted,
                          const std::string& more_help) {
  std::vector<std::string> accepted{"nova", "spread", "pack", "ratio", "adaptive"};
  accepted.insert(accepted.end(), also_accepted.begin(), also_accepted.end());
  cmd->add_option("--strategy", options.strategy,
                  "how to choose among assignments that fit: adaptive (pack on hosts of three or more cells, "
                  "spread on hosts of one or two), pack (fullest cells, closest together), spread (emptiest cells), "
                  "ratio (--ratio-shape), nova (Nova's first fit); default " + to_string(kDefaultStrategy) + more_help)
      // With more names the {set} CLI11 prints would outgrow a man page's line; the help names them.
      ->check(also_accepted.empty() ? CLI::IsMember(accepted) : CLI::IsMember(accepted).description(""));
  cmd->add_option("--ratio-shape", options.ratio_shape,
                  "with --strategy ratio: UTILIZATION:SCORE points, utilization 0..100 rising, score 0..10, "
                  "e.g. 0:0,50:10,100:0 (default 0:0,100:10)");
  cmd->add_option("--ratio-weights", options.ratio_weights,
                  "weights of the scored strategies, e.g. cpu=1,memory=2 (default cpu=1,memory=1)");
  cmd->add_flag("--pack", options.nova_pack,
                "with --strategy nova: Nova's packing order (fullest host cells first, as Nova's "
                "packing_host_numa_cells_allocation_strategy); alone, it means --strategy nova with that order");
}

Status apply_strategy_options(const StrategyCliOptions& options, FitOptions& fit) {
  auto strategy = options.strategy.empty() ? Result<Strategy>(kDefaultStrategy) : strategy_from_name(options.strategy);
  if (!strategy) return strategy.error();
  fit.strategy = *strategy;
  if (options.nova_pack) {
    // --pack predates --strategy: Nova's packing order, so alone it selects nova.
    if (!options.strategy.empty() && *strategy != Strategy::Nova) {
      return make_error("UsageError", "--pack is Nova's packing order; it goes with --strategy nova, not " +
                                               options.strategy);
    }
    fit.strategy = Strategy::Nova;
    fit.pack_host_cells = true;
  }
  if (!options.ratio_shape.empty()) {
    if (fit.strategy != Strategy::Ratio) {
      return make_error("UsageError", "--ratio-shape goes with --strategy ratio");
    }
    auto shape = parse_ratio_shape(options.ratio_shape);
    if (!shape) return shape.error();
    fit.ratio_shape = std::move(*shape);
  }
  if (!options.ratio_weights.empty()) {
    auto weights = parse_resource_weights(options.ratio_weights);
    if (!weights) return weights.error();
    fit.weights = *weights;
  }
  return Done{};
}

std::string explain_confinement_text(const DefaultPlacement& confinement, const std::string& policy) {
  std::string text = "explain: no NUMA topology requested; the hints of the guest's resources, merged under " +
                     policy + ":\n";
  for (const auto& resource : confinement.resources) {
    text += "  " + resource.resource + ": ";
    if (!resource.hints) {
      text += "no preference (any cells)\n";
      continue;
    }
    if (resource.hints->empty()) {
      text += "no cell can serve it\n";
      continue;
    }
    std::string hints;
    for (const auto& hint : *resource.hints) {
      hints += (hints.empty() ? "" : ", ") + std::string("cells ") +
               (hint.affinity ? hint.affinity->to_nodeset() : std::string("any")) +
               (hint.preferred ? " (preferred)" : "");
    }
    text += hints + "\n";
  }
  if (confinement.cells) {
    text += "chosen: cells " + confinement.cells->to_nodeset() + (confinement.preferred ? " (preferred)" : "") +
            ", CPUs " + to_cpu_list(confinement.cpus) + "\n";
  } else {
    text += "chosen: not confined\n";
  }
  if (!confinement.reason.empty()) text += "why: " + confinement.reason + "\n";
  return text;
}

std::string explain_text(const FitExplanation& e, const std::vector<GuestClaim>& claims) {
  if (!e.filled) return "explain: no fit was computed (the guest asks for no NUMA topology, or kept its placement)\n";
  std::string text = "explain: strategy " + to_string(e.strategy);
  if (e.scoring != e.strategy) {
    text += " (" + to_string(e.scoring) + " on a host of " + count_of(e.host_order.size(), "cell") + ")";
  }
  text += "; host cells in Nova's order:";
  for (auto id : e.host_order) text += " " + std::to_string(id);
  text += "\n";
  std::int64_t current = -1;
  for (const auto& pair : e.pairs) {
    if (static_cast<std::int64_t>(pair.guest_cell) != current) {
      current = pair.guest_cell;
      text += "guest cell " + std::to_string(pair.guest_cell) + ":\n";
    }
    text += "  host cell " + std::to_string(pair.host_cell) + ": ";
    if (pair.fits) {
      text += "fits";
      if (e.strategy != Strategy::Nova) text += ", score " + std::to_string(pair.score);
      text += " (cpu " + std::to_string(pair.cpu_percent) + "%, memory " + std::to_string(pair.memory_percent) +
              "% with it)\n";
    } else {
      text += "cannot: " + pair.reason;
      const auto holders = holders_of(claims, pair.host_cell);
      if (!holders.empty()) text += " [held by " + join(holders) + "]";
      text += "\n";
    }
  }
  if (e.chosen) text += "chosen: " + outline_text(*e.chosen) + "\n";
  if (e.runner_up) text += "runner-up: " + outline_text(*e.runner_up) + "\n";
  text += (e.chosen ? "why: " : "refused: ") + e.verdict + "\n";
  if (e.capped) text += "note: the search stopped at its node cap; the best assignment found is used\n";
  return text;
}

nlohmann::json explain_json(const FitExplanation& e, const std::vector<GuestClaim>& claims) {
  if (!e.filled) return {{"computed", false}};
  nlohmann::json pairs = nlohmann::json::array();
  nlohmann::json rejections = nlohmann::json::array();
  for (const auto& pair : e.pairs) {
    if (pair.fits) {
      pairs.push_back({{"guest_cell", pair.guest_cell},
                       {"host_cell", pair.host_cell},
                       {"fits", true},
                       {"score", pair.score},
                       {"cpu_percent", pair.cpu_percent},
                       {"memory_percent", pair.memory_percent}});
    } else {
      nlohmann::json rejection{{"guest_cell", pair.guest_cell},
                               {"host_cell", pair.host_cell},
                               {"reason", pair.reason},
                               {"held_by", holders_of(claims, pair.host_cell)}};
      rejections.push_back(rejection);
      rejection["fits"] = false;
      pairs.push_back(rejection);
    }
  }
  return {{"computed", true},
          {"strategy", to_string(e.strategy)},
          {"scoring", to_string(e.scoring)},
          {"host_order", e.host_order},
          {"pairs", pairs},
          {"rejections", rejections},
          {"chosen", outline_json(e.chosen)},
          {"runner_up", outline_json(e.runner_up)},
          {"verdict", e.verdict},
          {"search_nodes", e.nodes},
          {"capped", e.capped}};
}

namespace {

// The indexes of the host cell's cache domains the guest cell's pinned vCPUs run in.
std::vector<std::size_t> domains_of(const HostCell& cell, const CellPlacement& placed) {
  std::vector<std::size_t> used;
  for (std::size_t d = 0; d < cell.cache_domains.size(); ++d) {
    for (const auto& [vcpu, pcpu] : placed.pinning) {
      if (cell.cache_domains[d].contains(pcpu)) {
        used.push_back(d);
        break;
      }
    }
  }
  return used;
}

}  // namespace

std::string cache_domains_text(const HostTopology& host, const Placement& placement) {
  std::string text;
  for (const auto& placed : placement.cells) {
    const HostCell* cell = host.find_cell(placed.host_cell);
    if (cell == nullptr || cell->cache_domains.empty() || placed.pinning.empty()) continue;
    const auto used = domains_of(*cell, placed);
    text += "explain: guest cell " + std::to_string(placed.guest_cell) + ": " +
            (used.size() == 1 ? "L3 domain " : "L3 domains ");
    for (std::size_t i = 0; i < used.size(); ++i) {
      text += (i ? ", " : "") + std::to_string(used[i]) + " (cpus " + to_cpu_list(cell->cache_domains[used[i]]) + ")";
    }
    text += " of host cell " + std::to_string(cell->id) + "'s " + std::to_string(cell->cache_domains.size()) + "\n";
  }
  return text;
}

nlohmann::json cache_domains_json(const HostTopology& host, const Placement& placement) {
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& placed : placement.cells) {
    const HostCell* cell = host.find_cell(placed.host_cell);
    if (cell == nullptr || cell->cache_domains.empty() || placed.pinning.empty()) continue;
    cells.push_back({{"guest_cell", placed.guest_cell},
                     {"host_cell", cell->id},
                     {"domains", domains_of(*cell, placed)},
                     {"of", cell->cache_domains.size()}});
  }
  return cells;
}

}  // namespace numaplace::cli
