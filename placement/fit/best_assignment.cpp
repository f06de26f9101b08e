// SPDX-License-Identifier: LGPL-2.1-or-later
#include "placement/fit/best_assignment.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <tuple>
#include <utility>

#include "placement/fit/assignment_bounds.h"
#include "placement/fit/group_matching.h"
#include "placement/fit/stable_insertion_sort.h"

namespace numaplace {
namespace {

struct Candidate {
  std::size_t position;
  std::int64_t score;
  std::int64_t distance;
};

// What one level computes once for all its children.
struct Level {
  std::vector<char> tried;        // per twin class: a position of it was tried here
  std::vector<char> open;         // free and open to some guest cell from this level on
  std::vector<std::int64_t> low;  // per open position: its m nearest open distances (m: see near_sums)
  std::vector<std::int64_t> low1; // ... its m + 1 nearest
  std::vector<std::int64_t> mth;  // ... its m-th nearest
  std::vector<std::size_t> seen;  // ... how many open positions it has besides itself, up to m + 1
  bool sums_ready = false;
  void reset(std::size_t n) {
    tried.assign(n, 0);
    open.assign(n, 0);
    low.assign(n, 0);
    low1.assign(n, 0);
    mth.assign(n, 0);
    seen.assign(n, 0);
    sums_ready = false;
  }
};

// Everything a search sizes per call, kept per thread between calls: a ranking searches once per
// fitting host, and these were most of its allocations. Every container is set again (assign,
// resize, clear) before it is read, so a search sees nothing of the one before; only capacity
// stays. One search at a time per thread (nothing in a search starts another); a search that
// finds the buffers in use takes fresh ones.
struct SearchBuffers {
  FitMatrix live;
  std::vector<std::size_t> chosen;
  std::vector<std::vector<Candidate>> candidates;
  std::vector<FitMatrix> saved;
  std::vector<Level> levels;
  std::vector<std::int64_t> distance;
  std::vector<std::size_t> near;
  std::vector<std::int64_t> near_distance;
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> groups_at;
  std::vector<std::int64_t> acc;
  std::vector<std::size_t> twin;
  std::vector<std::size_t> twin_firsts;
  std::vector<std::size_t> after;
  std::vector<std::int64_t> values;
  std::vector<char> in_child;
  std::vector<std::int64_t> share;
  std::vector<std::int64_t> cuts;
  std::vector<char> eligible;
  std::vector<char> best_score_positions;
  std::vector<std::size_t> seed_at;
  std::vector<char> seed_used;
  std::vector<std::int64_t> seed_near;
  std::vector<std::size_t> other_at;
  std::vector<char> other_used;
  std::vector<std::int64_t> other_near;
  GroupMatching matching;
  bool in_use = false;
};

// The branch and bound. Its order of candidates (per guest cell: score, distance to the cells
// chosen, position) is the documented tie-break, and it only ever replaces the best so far by
// a strictly better assignment; everything below only leaves out subtrees that cannot hold a
// strictly better one, so the answer is the first best assignment in that order, exactly:
//  - twin positions: two positions whose swap changes nothing (same fit and score for every
//    guest cell, same distance to every other position, no PCI or network demand) are interchangeable;
//    at one level only the first of each class is tried (a later twin's subtree mirrors, at
//    equal value, an assignment of the earlier twin's subtree, which is searched first);
//  - score: per shape group still to place, the sum of its best scores over the positions its
//    next cell may still take (exact when one group remains); with several groups, also the best
//    placement of every group on distinct positions (group_matching.h), which that sum can exceed
//    by counting one position for two groups;
//  - score and distance together, as score x weight - distance (weight: more than any distance
//    sum): per open position its score less its distance share, the pairs with chosen cells
//    exactly and each pair among the cells still to place at least half of each end's nearest
//    open distances (computed once per level, adjusted per child in O(1) a position); per
//    shape group the best of those; when the values could overflow, the distance part alone
//    where the score bound ties;
//  - matching, PCI and networks: AssignmentBounds::feasible, or, with one shape group left and
//    no PCI or network demand, the count of positions the group may still take.
class BranchAndBound {
 public:
  // `buffers.live` holds the fit matrix with the caller's masks; the rest is sized here.
  BranchAndBound(const AssignmentProblem& problem, SearchBuffers& buffers, std::size_t max_nodes)
      : p_(problem),
        live_(buffers.live),
        guests_(live_.rows()),
        hosts_(problem.order.size()),
        bounds_(problem.host, problem.order, live_, problem.demands, problem.networks),
        chosen_(buffers.chosen),
        candidates_(buffers.candidates),
        saved_(buffers.saved),
        levels_(buffers.levels),
        distance_(buffers.distance),
        near_(buffers.near),
        near_distance_(buffers.near_distance),
        groups_at_(buffers.groups_at),
        acc_(buffers.acc),
        twin_(buffers.twin),
        twin_firsts_(buffers.twin_firsts),
        after_(buffers.after),
        values_(buffers.values),
        in_child_(buffers.in_child),
        share_(buffers.share),
        cuts_(buffers.cuts),
        eligible_(buffers.eligible),
        best_score_positions_(buffers.best_score_positions),
        seed_at_(buffers.seed_at),
        seed_used_(buffers.seed_used),
        seed_near_(buffers.seed_near),
        other_at_(buffers.other_at),
        other_used_(buffers.other_used),
        other_near_(buffers.other_near),
        matching_(buffers.matching),
        max_nodes_(max_nodes) {
    chosen_.assign(guests_, 0);
    candidates_.resize(guests_);
    saved_.resize(guests_);
    for (auto& matrix : saved_) matrix.reset(guests_, hosts_);
    levels_.resize(guests_);
    acc_.assign(hosts_, 0);
    twin_.assign(hosts_, 0);
    for (auto& list : candidates_) list.reserve(hosts_);
    for (auto& level : levels_) level.reset(hosts_);
    values_.reserve(hosts_);
    in_child_.assign(hosts_, 0);
    distance_.assign(hosts_ * hosts_, 0);
    bool symmetric = true;
    for (std::size_t a = 0; a < hosts_; ++a) {
      for (std::size_t b = 0; b < hosts_; ++b) distance_[a * hosts_ + b] = position_distance(p_.host, p_.order, a, b);
    }
    near_.resize(hosts_ * (hosts_ ? hosts_ - 1 : 0));
    for (std::size_t a = 0; a < hosts_; ++a) {
      std::size_t* list = near_.data() + a * (hosts_ - 1);
      std::size_t i = 0;
      for (std::size_t b = 0; b < hosts_; ++b) {
        if (b != a) list[i++] = b;
        if (dist(a, b) != dist(b, a)) symmetric = false;
      }
      stable_insertion_sort(list, list + (hosts_ - 1), [&](std::size_t x, std::size_t y) { return dmin(a, x) < dmin(a, y); });
    }
    near_distance_.resize(near_.size());
    for (std::size_t a = 0; a < hosts_; ++a) {
      for (std::size_t i = 0; i + 1 < hosts_; ++i) {
        near_distance_[a * (hosts_ - 1) + i] = dmin(a, near_[a * (hosts_ - 1) + i]);
      }
    }
    // Shape groups still to place from each guest cell on: (first cell left, cells left).
    groups_at_.resize(guests_ + 1);
    for (auto& groups : groups_at_) groups.clear();
    for (std::size_t next = 0; next < guests_; ++next) {
      for (std::size_t g = next; g < guests_; ++g) {
        auto it = std::find_if(groups_at_[next].begin(), groups_at_[next].end(),
                               [&](const auto& e) { return p_.shape_group[e.first] == p_.shape_group[g]; });
        if (it == groups_at_[next].end()) {
          groups_at_[next].emplace_back(g, 1);
        } else {
          ++it->second;
        }
      }
    }
    find_twins(symmetric && unconstrained());
    after_.assign(guests_, 0);
    // AssignmentBounds::feasible runs below the root unless one shape group and no PCI or network demand.
    mask_matrix_ = !unconstrained() ||
                   std::any_of(p_.shape_group.begin(), p_.shape_group.end(), [](std::size_t s) { return s != 0; });
    share_.assign(hosts_, 0);
    cuts_.assign(guests_, 0);
    eligible_.assign(hosts_, 0);
    best_score_positions_.assign(hosts_, 0);
    choose_weight();
    if (combined_ && symmetric && unconstrained()) seed_floor();
  }

  BestAssignment run() {
    BestAssignment out;
    if (bounds_.feasible(0)) search(0, 0, 0);
    if (!best_ && capped_ && seed_ready_) {
      best_.emplace();
      best_->positions.assign(seed_at_.begin(), seed_at_.end());
      best_->score = seed_score_;
      best_->distance = seed_distance_;
    }
    out.best = std::move(best_);
    out.nodes = nodes_;
    out.capped = capped_;
    if (!out.best) {
      out.pci_shortfall = bounds_.last_pci_shortfall();
      out.network_shortfall = bounds_.last_network_shortfall();
    }
    return out;
  }

 private:
  std::int64_t dist(std::size_t a, std::size_t b) const { return distance_[a * hosts_ + b]; }
  // No PCI or network demand: whether an assignment is valid depends on its pairs alone.
  bool unconstrained() const { return p_.demands.empty() && p_.networks.empty(); }
  // Whether guest cell g (not yet placed) may take position p: it fits, is not forbidden, and p
  // comes after every position its shape group took so far.
  bool open_to(std::size_t g, std::size_t p) const { return p >= after_[p_.shape_group[g]] && live_.at(g, p); }
  std::size_t first_open(std::size_t g) const { return after_[p_.shape_group[g]]; }  // loops over p start there
  std::int64_t dmin(std::size_t a, std::size_t b) const { return std::min(dist(a, b), dist(b, a)); }

  // Classes of interchangeable positions (twin_[p]: the first position of p's class). On a
  // symmetric distance matrix "p and q may be swapped" is an equivalence, so comparing with
  // each class's first position is enough.
  void find_twins(bool allowed) {
    std::vector<std::size_t>& firsts = twin_firsts_;
    firsts.clear();
    for (std::size_t q = 0; q < hosts_; ++q) {
      twin_[q] = q;
      if (!allowed) continue;
      for (std::size_t p : firsts) {
        if (swappable(p, q)) {
          twin_[q] = p;
          break;
        }
      }
      if (twin_[q] == q) firsts.push_back(q);
    }
  }

  // The weight that makes score x weight - distance order assignments as (score, distance) do:
  // one more than the largest distance sum. combined_ stays false when the values could overflow.
  void choose_weight() {
    std::int64_t farthest = 0;
    for (std::int64_t d : distance_) farthest = std::max(farthest, d);
    std::int64_t top_score = 0;
    for (std::size_t g = 0; g < guests_; ++g) {
      for (std::size_t p = 0; p < hosts_; ++p) {
        if (live_.at(g, p)) top_score = std::max(top_score, p_.scores[g][p] < 0 ? -p_.scores[g][p] : p_.scores[g][p]);
      }
    }
    const auto k = static_cast<std::int64_t>(guests_);
    constexpr std::int64_t kRoom = std::numeric_limits<std::int64_t>::max() / 8;
    if (farthest > kRoom / (k * k + 1)) return;
    weight_ = farthest * (k * (k - 1) / 2) + 1;
    if ((top_score + 1) * (k + 1) > kRoom / weight_) return;
    combined_ = true;
  }

  bool swappable(std::size_t p, std::size_t q) const {
    for (std::size_t g = 0; g < guests_; ++g) {
      if (live_.at(g, p) != live_.at(g, q)) return false;
      if (live_.at(g, p) && p_.scores[g][p] != p_.scores[g][q]) return false;
    }
    for (std::size_t x = 0; x < hosts_; ++x) {
      if (x != p && x != q && dist(p, x) != dist(q, x)) return false;
    }
    return true;
  }

  bool cannot_beat(std::int64_t score_bound, std::int64_t distance_bound) const {
    if (combined_) return weight_ * score_bound - distance_bound < threshold();
    if (!best_) return false;
    return score_bound < best_->score || (score_bound == best_->score && distance_bound >= best_->distance);
  }

  // With combined_: the least value (score x weight - distance) a subtree must be able to reach
  // to be searched: more than the best found, and at least the floor (seed_floor), which
  // some assignment reaches, so that the first best assignment in the search's order is never
  // left out (a subtree that can only tie with the floor is still searched).
  std::int64_t threshold() const {
    std::int64_t t = floor_;
    if (best_) t = std::max(t, weight_ * best_->score - best_->distance + 1);
    return t;
  }

  // A value some valid assignment reaches, found fast, as the floor: each guest cell in turn
  // takes its best position by value (score x weight less the distance to the cells before; where
  // that runs into a dead end, Nova's first fit instead), then single moves of one guest cell to
  // a free position it fits are made while one raises the value. Without PCI or network demands
  // and on symmetric distances only (where an assignment's value does not depend on the order of
  // its cells, so sorting each shape group's positions into the search's increasing order keeps
  // it).
  void seed_floor() {
    std::vector<std::size_t>& at = seed_at_;
    std::vector<char>& used = seed_used_;
    std::vector<std::int64_t>& near = seed_near_;  // per position: its distance to every cell placed
    at.assign(guests_, 0);
    used.assign(hosts_, 0);
    near.assign(hosts_, 0);
    std::int64_t value = 0;
    for (std::size_t g = 0; g < guests_; ++g) {
      std::size_t pick = hosts_;
      std::int64_t pick_value = 0;
      for (std::size_t p = 0; p < hosts_; ++p) {
        if (used[p] || !live_.at(g, p)) continue;
        const std::int64_t v = weight_ * p_.scores[g][p] - near[p];
        if (pick == hosts_ || v > pick_value) {
          pick = p;
          pick_value = v;
        }
      }
      if (pick == hosts_) {  // the greedy ran into a dead end: start from Nova's first fit instead
        if (!start_from_first_fit()) return;
        value = adopt_start();
        break;
      }
      at[g] = pick;
      used[pick] = 1;
      value += pick_value;
      for (std::size_t q = 0; q < hosts_; ++q) near[q] += dist(pick, q);
    }
    improve_by_moves(value);
    // A second start: the groups' best-scoring placement (GroupMatching), improved the same way,
    // which the greedy can miss when groups compete for the best positions; the better is kept.
    if (groups_at_[0].size() > 1) {
      other_at_ = at;
      other_used_ = used;
      other_near_ = near;
      const std::int64_t greedy_value = value;
      if (start_from_best_scores()) {
        value = adopt_start();
        improve_by_moves(value);
      }
      if (value <= greedy_value) {
        at = other_at_;
        used = other_used_;
        near = other_near_;
        value = greedy_value;
      }
    }
    floor_ = value;
    // The floor's assignment, each shape group's positions sorted into the search's increasing
    // order (its value unchanged on symmetric distances): the answer of a search capped before it
    // found one of its own, so that the cap bounds every search that has a floor.
    for (std::size_t g = 0; g < guests_; ++g) {
      for (std::size_t later = g + 1; later < guests_; ++later) {
        if (p_.shape_group[later] == p_.shape_group[g] && at[later] < at[g]) std::swap(at[g], at[later]);
      }
    }
    std::tie(seed_score_, seed_distance_) = totals_of(at);
    seed_ready_ = true;
  }

  // seed_used_ and seed_near_ for the assignment in seed_at_; its value.
  std::int64_t adopt_start() {
    std::fill(seed_used_.begin(), seed_used_.end(), 0);
    std::fill(seed_near_.begin(), seed_near_.end(), 0);
    for (std::size_t e = 0; e < guests_; ++e) {
      seed_used_[seed_at_[e]] = 1;
      for (std::size_t q = 0; q < hosts_; ++q) seed_near_[q] += dist(seed_at_[e], q);
    }
    const auto [score, distance] = totals_of(seed_at_);
    return weight_ * score - distance;
  }

  // Single moves of one guest cell to a free position it fits, made while one raises `value`, on
  // seed_at_, seed_used_ and seed_near_.
  void improve_by_moves(std::int64_t& value) {
    std::vector<std::size_t>& at = seed_at_;
    std::vector<char>& used = seed_used_;
    std::vector<std::int64_t>& near = seed_near_;
    for (int pass = 0; pass < 16; ++pass) {
      bool moved = false;
      for (std::size_t g = 0; g < guests_; ++g) {
        const std::size_t from = at[g];
        const std::int64_t here = weight_ * p_.scores[g][from] - near[from];
        std::size_t to = hosts_;
        std::int64_t gain = 0;
        for (std::size_t q = 0; q < hosts_; ++q) {
          if (used[q] || !live_.at(g, q)) continue;
          const std::int64_t there = weight_ * p_.scores[g][q] - (near[q] - dist(from, q));
          if (there - here > gain) {
            to = q;
            gain = there - here;
          }
        }
        if (to == hosts_) continue;
        used[from] = 0;
        used[to] = 1;
        at[g] = to;
        value += gain;
        for (std::size_t q = 0; q < hosts_; ++q) near[q] += dist(to, q) - dist(from, q);
        moved = true;
      }
      if (!moved) break;
    }
  }

  // seed_at_ as the best-scoring placement of the shape groups on distinct positions (each
  // group's positions to its cells in order); false when there is none or a cell does not fit
  // where its group was put.
  bool start_from_best_scores() {
    const auto placed = best_completion(0, [&](std::size_t first, std::size_t p) { return live_.at(first, p); },
                                        [&](std::size_t first, std::size_t p) { return p_.scores[first][p]; });
    if (placed.kind != Completion::Value) return false;
    const auto& groups = groups_at_[0];
    for (std::size_t i = 0; i < groups.size(); ++i) {
      std::size_t p = 0;
      for (std::size_t g = 0; g < guests_; ++g) {
        if (p_.shape_group[g] != p_.shape_group[groups[i].first]) continue;
        while (p < hosts_ && matching_.group_at(p) != i) ++p;
        if (p == hosts_ || !live_.at(g, p)) return false;
        seed_at_[g] = p++;
      }
    }
    return true;
  }

  // A complete assignment's score and distance (pairs in guest cell order), as the search sums them.
  std::pair<std::int64_t, std::int64_t> totals_of(const std::vector<std::size_t>& at) const {
    std::int64_t score = 0;
    std::int64_t distance = 0;
    for (std::size_t g = 0; g < guests_; ++g) {
      score += p_.scores[g][at[g]];
      for (std::size_t e = 0; e < g; ++e) distance += dist(at[e], at[g]);
    }
    return {score, distance};
  }

  // seed_at_ as the first assignment in Nova's order (AssignmentBounds::run, its
  // positions given back afterwards); false when there is none.
  bool start_from_first_fit() {
    if (!bounds_.run(0)) return false;
    for (std::size_t g = 0; g < guests_; ++g) seed_at_[g] = bounds_.chosen()[g];
    for (std::size_t g = 0; g < guests_; ++g) bounds_.release(seed_at_[g]);
    return true;
  }

  // Positions free and open to a guest cell from `next` on, as flags into `out`.
  void mark_open(std::size_t next, std::vector<char>& out) const {
    std::fill(out.begin(), out.end(), 0);
    for (const auto& [first, count] : groups_at_[next]) {
      for (std::size_t p = first_open(first); p < hosts_; ++p) {
        if (!bounds_.taken(p) && live_.at(first, p)) out[p] = 1;
      }
    }
  }

  // At level g (its positions open as level.open): per open position the sums of its m and m+1
  // nearest other open positions (m = cells left after a child, minus one).
  void near_sums(std::size_t g, Level& level) const {
    const std::size_t m = guests_ - g - 2;
    for (std::size_t p = 0; p < hosts_; ++p) {
      if (!level.open[p]) continue;
      const std::size_t* list = near_.data() + p * (hosts_ - 1);
      const std::int64_t* list_distance = near_distance_.data() + p * (hosts_ - 1);
      std::int64_t sum = 0;
      std::size_t found = 0;
      for (std::size_t i = 0; i + 1 < hosts_ && found <= m; ++i) {
        if (!level.open[list[i]]) continue;
        const std::int64_t d = list_distance[i];
        sum += d;
        ++found;
        if (found == m) {
          level.low[p] = sum;
          level.mth[p] = d;
        }
      }
      level.low1[p] = sum;
      level.seen[p] = found;
    }
    level.sums_ready = true;
  }

  // Whether the child where guest cell g took position c (already taken, masks applied, acc_
  // updated) may hold a strictly better assignment; `score` and `distance` are its totals so far.
  bool child_may_win(std::size_t g, std::size_t c, std::int64_t score, std::int64_t distance) {
    const std::size_t next = g + 1;
    const std::size_t left = guests_ - next;
    if (left == 0) return !cannot_beat(score, distance) && bounds_.feasible(next);
    std::int64_t score_bound = score;
    std::size_t group_index = 0;
    for (const auto& [first, count] : groups_at_[next]) {
      values_.clear();
      const std::vector<std::int64_t>& row = p_.scores[first];
      for (std::size_t p = first_open(first); p < hosts_; ++p) {
        if (!bounds_.taken(p) && live_.at(first, p)) values_.push_back(row[p]);
      }
      if (values_.size() < count) return false;
      std::nth_element(values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(count - 1), values_.end(),
                       std::greater<>());
      for (std::size_t i = 0; i < count; ++i) score_bound += values_[i];
      cuts_[group_index++] = values_[count - 1];  // the least score this group's best completion takes
    }
    const std::int64_t group_score_bound = score_bound;  // what top_score_bound's cuts are taken against
    bool best_score_only = false;  // several groups, and only their best placement's score can do
    if (groups_at_[next].size() > 1) {
      // The groups on distinct positions: no completion scores more (nor places every cell when
      // there is no such placement).
      const auto placed = best_completion(next, [&](std::size_t first, std::size_t p) {
        return !bounds_.taken(p) && open_to(first, p);
      }, [&](std::size_t first, std::size_t p) { return p_.scores[first][p]; });
      if (placed.kind == Completion::None) return false;
      if (placed.kind == Completion::Value) {
        score_bound = std::min(score_bound, score + placed.value);
        best_score_only = combined_ && weight_ * (score_bound - 1) - distance < threshold();
        if (best_score_only) mark_best_score_positions(next);
      }
    }
    if (cannot_beat(score_bound, distance)) return false;
    const bool bounded = combined_ ? (best_ || floor_ > kNoFloor) : (best_ && score_bound == best_->score);
    if (bounded) {
      Level& level = levels_[g];
      if (!level.sums_ready) near_sums(g, level);
      mark_open(next, in_child_);
      const std::size_t m = left - 1;
      // Twice each open position's share of the distance: its pairs with the cells chosen, and
      // half of its pairs among the cells left, at least.
      for (std::size_t p = 0; p < hosts_; ++p) {
        if (!in_child_[p]) continue;
        std::int64_t pairs = 0;  // sum of p's m nearest among the child's open positions, at least
        if (m > 0 && level.seen[p] > m) {
          const std::int64_t x = dmin(p, c);  // c was open at level g and is not any more
          pairs = x <= level.mth[p] ? level.low1[p] - x : level.low[p];
        }
        share_[p] = 2 * acc_[p] + pairs;
      }
      if (combined_) {
        // Score and distance as one value, score x weight - distance (the weight exceeds any
        // distance sum, so it orders as score first, then distance): per group left, its cells'
        // best values over the positions open to it. Twice the value, to stay in integers.
        std::int64_t twice = 2 * (weight_ * score - distance);
        for (const auto& [first, count] : groups_at_[next]) {
          values_.clear();
          const std::vector<std::int64_t>& row = p_.scores[first];
          for (std::size_t p = first_open(first); p < hosts_; ++p) {
            if (in_child_[p] && live_.at(first, p)) values_.push_back(2 * weight_ * row[p] - share_[p]);
          }
          if (values_.size() < count) return false;
          std::nth_element(values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(count - 1), values_.end(),
                           std::greater<>());
          for (std::size_t i = 0; i < count; ++i) twice += values_[i];
        }
        if (groups_at_[next].size() > 1) {
          // The same values with every group on distinct positions.
          const auto placed = best_completion(next, [&](std::size_t first, std::size_t p) {
            return in_child_[p] && open_to(first, p);
          }, [&](std::size_t first, std::size_t p) { return 2 * weight_ * p_.scores[first][p] - share_[p]; });
          if (placed.kind == Completion::None) return false;
          if (placed.kind == Completion::Value) twice = std::min(twice, 2 * (weight_ * score - distance) + placed.value);
        }
        // The child's best value is at most twice / 2 (rounded down); it must reach the threshold.
        if (twice < 2 * threshold()) return false;
        if (best_score_only) {
          // Only a completion of the groups' best total score can do: the positions some such
          // completion takes, and those every one takes, from the matching's prices.
          std::copy(best_score_positions_.begin(), best_score_positions_.end(), eligible_.begin());
          if (!eligible_positions_reach(next, score_bound, distance)) return false;
        }
        if (!top_score_bound(next, group_score_bound, distance)) return false;
        if (groups_at_[next].size() > 1) {
          // Several groups may each count the same cheap position above; the score bound and the
          // `left` smallest shares of distinct positions bound the value too.
          values_.clear();
          for (std::size_t p = 0; p < hosts_; ++p) {
            if (in_child_[p]) values_.push_back(share_[p]);
          }
          if (values_.size() < left) return false;
          std::nth_element(values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(left - 1), values_.end());
          std::int64_t apart = 2 * (weight_ * score_bound - distance);
          for (std::size_t i = 0; i < left; ++i) apart -= values_[i];
          if (apart < 2 * threshold()) return false;
        }
      } else {
        values_.clear();
        for (std::size_t p = 0; p < hosts_; ++p) {
          if (in_child_[p]) values_.push_back(share_[p]);
        }
        if (values_.size() < left) return false;
        std::nth_element(values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(left - 1), values_.end());
        std::int64_t twice = 0;
        for (std::size_t i = 0; i < left; ++i) twice += values_[i];
        if (distance + (twice + 1) / 2 >= best_->distance) return false;
      }
    }
    if (groups_at_[next].size() == 1 && unconstrained()) return true;  // the count above is the matching
    return bounds_.feasible(next);
  }

  // The best total of `value(first, p)` over placements of the shape groups left at `next` (a
  // group by its first cell) on distinct positions with `allowed(first, p)`: None when there is
  // no such placement, Unbounded when a value is too large for GroupMatching (no bound then).
  struct Completion {
    enum Kind { Value, None, Unbounded } kind;
    std::int64_t value;
  };
  template <typename Allowed, typename ValueOf>
  Completion best_completion(std::size_t next, Allowed allowed, ValueOf value) {
    const auto& groups = groups_at_[next];
    matching_.reset(groups.size(), hosts_);
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const std::size_t first = groups[i].first;
      matching_.set_items(i, groups[i].second);
      for (std::size_t p = first_open(first); p < hosts_; ++p) {
        if (allowed(first, p) && !matching_.allow(i, p, value(first, p))) return {Completion::Unbounded, 0};
      }
    }
    const std::optional<std::int64_t> best = matching_.best();
    if (!best) return {hosts_ + groups.size() > GroupMatching::kMaxSize ? Completion::Unbounded : Completion::None, 0};
    return {Completion::Value, *best};
  }

  // Right after best_completion placed the groups left at `next` by score alone: per position, 2
  // when every best-scoring placement of them takes it, 1 when some may, else 0 (the matching's
  // prices, group_matching.h), into best_score_positions_.
  void mark_best_score_positions(std::size_t next) {
    const auto& groups = groups_at_[next];
    matching_.price();
    for (std::size_t p = 0; p < hosts_; ++p) {
      char mark = 0;
      for (std::size_t i = 0; i < groups.size() && mark == 0; ++i) mark = matching_.may_take_at_best(i, p) ? 1 : 0;
      if (mark != 0 && matching_.used_by_every_best(p)) mark = 2;
      best_score_positions_[p] = mark;
    }
  }

  // With a threshold no completion short of the score bound reaches: every shape group left
  // must take its own best scores (score_bound is the sum of each group's best), so a group
  // takes only positions scoring at least its cut score (cuts_), and must take those scoring
  // more; distinct groups cannot both need one position. The distance share of each position is
  // then bounded over the positions some group may take (its m nearest among them, exactly),
  // which the general bound cannot see. False: the child cannot reach the threshold. In the
  // child's state (in_child_ marked).
  bool top_score_bound(std::size_t next, std::int64_t score_bound, std::int64_t distance) {
    const std::int64_t need = threshold();
    if (weight_ * (score_bound - 1) - distance >= need) return true;  // a lower score could still do
    const auto& groups = groups_at_[next];
    for (std::size_t p = 0; p < hosts_; ++p) {
      eligible_[p] = 0;
      if (!in_child_[p]) continue;
      int forced_by = 0;
      for (std::size_t i = 0; i < groups.size(); ++i) {
        const std::size_t first = groups[i].first;
        if (!open_to(first, p) || p_.scores[first][p] < cuts_[i]) continue;
        eligible_[p] = 1;
        if (p_.scores[first][p] > cuts_[i]) ++forced_by;
      }
      if (forced_by > 1) return false;  // two groups would both need p
      if (forced_by == 1) eligible_[p] = 2;
    }
    return eligible_positions_reach(next, score_bound, distance);
  }

  // With eligible_ marked over the child's open positions (1: a completion reaching the threshold
  // may take it, 2: every such completion takes it) and such completions scoring at most
  // `score_bound`: whether one can reach the threshold, each position's distance share bounded
  // by its m nearest eligible positions. In the child's state.
  bool eligible_positions_reach(std::size_t next, std::int64_t score_bound, std::int64_t distance) {
    const std::int64_t need = threshold();
    const std::size_t left = guests_ - next;
    const std::size_t m = left - 1;
    std::size_t forced_count = 0;
    for (std::size_t p = 0; p < hosts_; ++p) forced_count += eligible_[p] == 2 ? 1 : 0;
    if (forced_count > left) return false;
    std::int64_t forced = 0;
    values_.clear();
    for (std::size_t p = 0; p < hosts_; ++p) {
      if (!eligible_[p]) continue;
      const std::size_t* list = near_.data() + p * (hosts_ - 1);
      const std::int64_t* list_distance = near_distance_.data() + p * (hosts_ - 1);
      std::int64_t pairs = 0;
      std::size_t found = 0;
      for (std::size_t i = 0; i + 1 < hosts_ && found < m; ++i) {
        if (!eligible_[list[i]]) continue;
        pairs += list_distance[i];
        ++found;
      }
      const std::int64_t share = 2 * acc_[p] + pairs;
      if (eligible_[p] == 2) {
        forced += share;
      } else {
        values_.push_back(share);
      }
    }
    if (forced_count + values_.size() < left) return false;
    const std::size_t optional = left - forced_count;
    if (optional > 0) {
      std::nth_element(values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(optional - 1), values_.end());
      for (std::size_t i = 0; i < optional; ++i) forced += values_[i];
    }
    const std::int64_t twice = 2 * (weight_ * score_bound - distance) - forced;
    return twice >= 2 * need;
  }

  void search(std::size_t g, std::int64_t score, std::int64_t distance) {
    if (g == guests_) {
      if (cannot_beat(score, distance)) return;  // (with combined_, a leaf reaching the floor passes)
      if (!best_) best_.emplace();
      best_->positions.assign(chosen_.begin(), chosen_.end());  // reuses its capacity after the first
      best_->score = score;
      best_->distance = distance;
      return;
    }
    // Buffers per depth, sized once: the search allocates nothing per node.
    std::vector<Candidate>& candidates = candidates_[g];
    candidates.clear();
    for (std::size_t p = first_open(g); p < hosts_; ++p) {
      if (!bounds_.taken(p) && live_.at(g, p)) candidates.push_back({p, p_.scores[g][p], acc_[p]});
    }
    // Score, then distance, then position (the order the candidates were listed in).
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
      if (a.score != b.score) return a.score > b.score;
      return a.distance != b.distance ? a.distance < b.distance : a.position < b.position;
    });
    Level& level = levels_[g];
    std::fill(level.tried.begin(), level.tried.end(), 0);
    level.sums_ready = false;
    if (guests_ - g >= 2) mark_open(g, level.open);
    FitMatrix& saved = saved_[g];
    for (const Candidate& c : candidates) {
      if (level.tried[twin_[c.position]]) continue;  // a twin tried before covers it
      level.tried[twin_[c.position]] = 1;
      if (nodes_ >= max_nodes_ && (best_ || seed_ready_)) {
        capped_ = true;
        return;
      }
      ++nodes_;
      const std::int64_t next_score = score + c.score;
      const std::int64_t next_distance = distance + c.distance;
      bounds_.take(g, c.position);
      chosen_[g] = c.position;
      for (std::size_t q = 0; q < hosts_; ++q) acc_[q] += dist(c.position, q);
      // Later guest cells of the same shape take later positions only: open_to reads after_,
      // AssignmentBounds the masked matrix (kept only where it is called below the root).
      const std::size_t group = p_.shape_group[g];
      const std::size_t after_before = after_[group];
      after_[group] = c.position + 1;
      for (std::size_t later = g + 1; later < guests_ && mask_matrix_; ++later) {
        if (p_.shape_group[later] != group) continue;
        for (std::size_t q = 0; q <= c.position; ++q) {
          saved.set(later, q, live_.at(later, q));
          live_.set(later, q, false);
        }
      }
      if (child_may_win(g, c.position, next_score, next_distance)) search(g + 1, next_score, next_distance);
      for (std::size_t later = g + 1; later < guests_ && mask_matrix_; ++later) {
        if (p_.shape_group[later] != group) continue;
        for (std::size_t q = 0; q <= c.position; ++q) live_.set(later, q, saved.at(later, q));
      }
      after_[group] = after_before;
      for (std::size_t q = 0; q < hosts_; ++q) acc_[q] -= dist(c.position, q);
      bounds_.release(c.position);
      if (capped_) return;
    }
  }

  const AssignmentProblem& p_;
  FitMatrix& live_;  // the fit matrix with this search's masks
  const std::size_t guests_;
  const std::size_t hosts_;
  AssignmentBounds bounds_;
  // In SearchBuffers, reused from search to search on a thread:
  std::vector<std::size_t>& chosen_;
  std::vector<std::vector<Candidate>>& candidates_;  // per depth
  std::vector<FitMatrix>& saved_;                    // per depth: the entries it masked, as they were
  std::vector<Level>& levels_;                       // per depth
  std::vector<std::int64_t>& distance_;              // [a * hosts + b], position to position
  std::vector<std::size_t>& near_;                   // per position: the others, nearest first
  std::vector<std::int64_t>& near_distance_;         // ... and their distances (the smaller way)
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>>& groups_at_;
  std::vector<std::int64_t>& acc_;                   // per position: its distance from the cells chosen
  std::vector<std::size_t>& twin_;                   // per position: the first position of its class
  std::vector<std::size_t>& twin_firsts_;            // scratch of find_twins
  std::vector<std::size_t>& after_;                  // per shape group: the first position it may still take
  std::vector<std::int64_t>& values_;                // scratch of the bounds
  std::vector<char>& in_child_;                      // scratch: positions open at the child
  std::vector<std::int64_t>& share_;                 // scratch: per open position, twice its distance share
  std::vector<std::int64_t>& cuts_;                  // per group left: see top_score_bound
  std::vector<char>& eligible_;                      // scratch of top_score_bound: 1 may, 2 must be taken
  std::vector<char>& best_score_positions_;          // see mark_best_score_positions
  std::vector<std::size_t>& seed_at_;                // scratch of seed_floor
  std::vector<char>& seed_used_;
  std::vector<std::int64_t>& seed_near_;
  std::vector<std::size_t>& other_at_;               // scratch of seed_floor: the greedy's start, kept
  std::vector<char>& other_used_;
  std::vector<std::int64_t>& other_near_;
  GroupMatching& matching_;                          // scratch of the bounds with several groups left
  bool mask_matrix_ = true;                          // live_ carries the masks too (see open_to)
  std::int64_t weight_ = 1;                         // see choose_weight
  static constexpr std::int64_t kNoFloor = std::numeric_limits<std::int64_t>::min();
  std::int64_t floor_ = kNoFloor;                   // see seed_floor
  bool seed_ready_ = false;                         // seed_at_ holds the floor's assignment
  std::int64_t seed_score_ = 0;
  std::int64_t seed_distance_ = 0;
  bool combined_ = false;
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
  thread_local SearchBuffers shared;
  SearchBuffers own;  // only when the thread's buffers are in use (no search starts another today)
  SearchBuffers& buffers = shared.in_use ? own : shared;
  buffers.in_use = true;
  struct Release {
    SearchBuffers& b;
    ~Release() { b.in_use = false; }
  } release{buffers};
  buffers.live = problem.fits;  // a copy into kept storage
  for (const auto& [group, position] : forbidden) {
    for (std::size_t g = 0; g < buffers.live.rows(); ++g) {
      if (problem.shape_group[g] == group) buffers.live.set(g, position, false);
    }
  }
  BranchAndBound search(problem, buffers, max_nodes);
  return search.run();
}

}  // namespace numaplace
