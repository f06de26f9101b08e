// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/fit/best_assignment.h"

#include <algorithm>
#include <limits>

#include "placement/fit/assignment_bounds.h"

namespace numaplace {
namespace {

class BranchAndBound {
 public:
  BranchAndBound(const AssignmentProblem& problem, FitMatrix live_fits, std::size_t max_nodes)
      : p_(problem),
        live_(std::move(live_fits)),
        guests_(live_.rows()),
        hosts_(problem.order.size()),
        bounds_(problem.host, problem.order, live_, problem.demands),
        chosen_(guests_, 0),
        candidates_(guests_),
        saved_(guests_, FitMatrix(guests_, hosts_)),
        max_nodes_(max_nodes) {
    for (auto& list : candidates_) list.reserve(hosts_);
    distance_.assign(hosts_, std::vector<std::int64_t>(hosts_, 0));
    min_distance_ = std::numeric_limits<std::int64_t>::max();
    for (std::size_t a = 0; a < hosts_; ++a) {
      for (std::size_t b = 0; b < hosts_; ++b) {
        distance_[a][b] = position_distance(p_.host, p_.order, a, b);
        if (a != b) min_distance_ = std::min(min_distance_, distance_[a][b]);
      }
    }
    if (hosts_ < 2) min_distance_ = 0;
  }

  BestAssignment run() {
    BestAssignment out;
    if (bounds_.feasible(0)) search(0, 0, 0);
    out.best = best_;
    out.nodes = nodes_;
    out.capped = capped_;
    if (!best_) out.pci_shortfall = bounds_.last_pci_shortfall();
    return out;
  }

 private:
  std::int64_t added_distance(std::size_t g, std::size_t p) const {
    std::int64_t sum = 0;
    for (std::size_t e = 0; e < g; ++e) sum += distance_[chosen_[e]][p];
    return sum;
  }

  // Upper bound on the remaining score and lower bound on the remaining distance, from guest cell `next`.
  bool remaining_bounds(std::size_t next, std::int64_t* score, std::int64_t* distance) const {
    *score = 0;
    *distance = 0;
    for (std::size_t g = next; g < guests_; ++g) {
      std::int64_t best_score = std::numeric_limits<std::int64_t>::min();
      std::int64_t near = std::numeric_limits<std::int64_t>::max();
      for (std::size_t p = 0; p < hosts_; ++p) {
        if (bounds_.taken(p) || !live_.at(g, p)) continue;
        best_score = std::max(best_score, p_.scores[g][p]);
        near = std::min(near, added_distance(next, p));
      }
      if (near == std::numeric_limits<std::int64_t>::max()) return false;
      *score += best_score;
      *distance += near;
    }
    const auto remaining = static_cast<std::int64_t>(guests_ - next);
    *distance += remaining * (remaining - 1) / 2 * min_distance_;
    return true;
  }

  bool cannot_beat(std::int64_t score_bound, std::int64_t distance_bound) const {
    if (!best_) return false;
    return score_bound < best_->score || (score_bound == best_->score && distance_bound >= best_->distance);
  }

  void search(std::size_t g, std::int64_t score, std::int64_t distance) {
    if (g == guests_) {
      if (cannot_beat(score, distance)) return;
      if (!best_) best_.emplace();
      best_->positions.assign(chosen_.begin(), chosen_.end());  // reuses its capacity after the first
      best_->score = score;
      best_->distance = distance;
      return;
    }
    // Buffers per depth, sized once: the search allocates nothing per node.
    std::vector<Candidate>& candidates = candidates_[g];
    candidates.clear();
    for (std::size_t p = 0; p < hosts_; ++p) {
      if (!bounds_.taken(p) && live_.at(g, p)) candidates.push_back({p, p_.scores[g][p], added_distance(g, p)});
    }
    // Score, then distance, then position (the order the candidates were listed in).
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
      if (a.score != b.score) return a.score > b.score;
      return a.distance != b.distance ? a.distance < b.distance : a.position < b.position;
    });
    FitMatrix& saved = saved_[g];
    for (const Candidate& c : candidates) {
      if (nodes_ >= max_nodes_ && best_) {
        capped_ = true;
        return;
      }
      ++nodes_;
      const std::int64_t next_score = score + c.score;
      const std::int64_t next_distance = distance + c.distance;
      bounds_.take(g, c.position);
      chosen_[g] = c.position;
      // Later guest cells of the same shape take later positions only.
      for (std::size_t later = g + 1; later < guests_; ++later) {
        if (p_.shape_group[later] != p_.shape_group[g]) continue;
        for (std::size_t q = 0; q <= c.position; ++q) {
          saved.set(later, q, live_.at(later, q));
          live_.set(later, q, false);
        }
      }
      std::int64_t rest_score = 0;
      std::int64_t rest_distance = 0;
      if (remaining_bounds(g + 1, &rest_score, &rest_distance) &&
          !cannot_beat(next_score + rest_score, next_distance + rest_distance) && bounds_.feasible(g + 1)) {
        search(g + 1, next_score, next_distance);
      }
      for (std::size_t later = g + 1; later < guests_; ++later) {
        if (p_.shape_group[later] != p_.shape_group[g]) continue;
        for (std::size_t q = 0; q <= c.position; ++q) live_.set(later, q, saved.at(later, q));
      }
      bounds_.release(c.position);
      if (capped_) return;
    }
  }

  struct Candidate {
    std::size_t position;
    std::int64_t score;
    std::int64_t distance;
  };

  const AssignmentProblem& p_;
  FitMatrix live_;  // the fit matrix with this search's masks
  const std::size_t guests_;
  const std::size_t hosts_;
  AssignmentBounds bounds_;
  std::vector<std::size_t> chosen_;
  std::vector<std::vector<Candidate>> candidates_;  // per depth
  std::vector<FitMatrix> saved_;                    // per depth: the entries it masked, as they were
  std::vector<std::vector<std::int64_t>> distance_;
  std::int64_t min_distance_ = 0;
  std::optional<ScoredAssignment> best_;
  std::size_t nodes_ = 0;
  const std::size_t max_nodes_;
  bool capped_ = false;
};

}  // namespace

std::int64_t position_distance(const HostTopology& host, const std::vector<std::size_t>& order, std::size_t a,
                               std::size_t b) {
  if (a == b) return 0;
  const HostCell& from = host.cells[order[a]];
  const std::size_t to = order[b];
  return to < from.distances.size() ? static_cast<std::int64_t>(from.distances[to]) : 0;
}

BestAssignment find_best_assignment(const AssignmentProblem& problem,
                                    const std::vector<std::pair<std::size_t, std::size_t>>& forbidden,
                                    std::size_t max_nodes) {
  FitMatrix live = problem.fits;
  for (const auto& [group, position] : forbidden) {
    for (std::size_t g = 0; g < live.rows(); ++g) {
      if (problem.shape_group[g] == group) live.set(g, position, false);
    }
  }
  BranchAndBound search(problem, std::move(live), max_nodes);
  return search.run();
}

}  // namespace numaplace
