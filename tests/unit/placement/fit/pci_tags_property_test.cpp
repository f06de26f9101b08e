// SPDX-License-Identifier: LGPL-2.1-or-later
// Tagged PCI devices and spec-list requests on random hosts: the fit admits a guest exactly when
// some choice of host cells lets Nova's pools serve every request, as this file's own model of
// Nova 26's PciDeviceStats computes it (written from Nova's documented rules, not from the engine:
// pools by ids, tags and node, fewer keys first; each request in turn: spec match, the NUMA
// policy's step, PFs / VDPA / remote-managed devices only when asked for, then devices taken).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "placement/fit/fit.h"
#include "support/topology_builders.h"

namespace numaplace {
namespace {

// A tag or spec value the way Python holds it: a string or None.
using Value = std::optional<std::string>;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct NovaPool {
  std::map<std::string, Value> keys;  // vendor_id, product_id and the tags
  std::optional<std::uint32_t> node;
  std::uint32_t count = 0;
};

Value to_value(const PciTagValue& v) {
  if (v.kind() == PciTagValue::Kind::None) return std::nullopt;
  return v.text();  // only strings and None are drawn here
}

// pci_device_prop_match: every key of one spec equal, strings without case, a missing key None.
bool spec_matches(const NovaPool& pool, const PciSpec& spec) {
  for (const auto& [key, wanted] : spec) {
    auto it = pool.keys.find(key);
    const Value have = it == pool.keys.end() ? std::nullopt : it->second;
    const Value want = to_value(wanted);
    if (have.has_value() != want.has_value()) return false;
    if (have && lower(*have) != lower(*want)) return false;
  }
  return true;
}

// oslo's bool_from_string on a string or None: Python's strip() and lower(), then its true words.
bool truthy(const Value& v) {
  if (!v) return false;
  std::string s = lower(*v);
  const auto blank = [](char c) { return std::isspace(static_cast<unsigned char>(c)) || (c >= 0x1c && c <= 0x1f); };
  while (!s.empty() && blank(s.back())) s.pop_back();
  while (!s.empty() && blank(s.front())) s.erase(s.begin());
  return s == "1" || s == "t" || s == "true" || s == "on" || s == "y" || s == "yes";
}

Value key_of(const NovaPool& p, const char* key) {
  auto it = p.keys.find(key);
  return it == p.keys.end() ? std::nullopt : it->second;
}

std::uint32_t sum(const std::vector<NovaPool*>& pools) {
  std::uint32_t n = 0;
  for (const NovaPool* p : pools) n += p->count;
  return n;
}

// support_requests(requests, numa_cells=the chosen cells), pools copied.
bool nova_serves(const HostTopology& host, const GuestTopology& guest, const std::vector<std::uint32_t>& cells) {
  std::vector<NovaPool> pools;
  for (const auto& d : host.pci) {
    if (d.allocated) continue;
    NovaPool p;
    p.keys["vendor_id"] = d.vendor_id;
    p.keys["product_id"] = d.product_id;
    for (const auto& [k, v] : d.tags) p.keys[k] = to_value(v);
    p.node = d.numa_node;
    auto same = std::find_if(pools.begin(), pools.end(), [&](const NovaPool& q) { return q.keys == p.keys && q.node == p.node; });
    if (same == pools.end()) {
      p.count = 1;
      pools.push_back(p);
    } else {
      ++same->count;
    }
  }
  std::stable_sort(pools.begin(), pools.end(), [](const NovaPool& a, const NovaPool& b) { return a.keys.size() < b.keys.size(); });
  auto on_cells = [&](const NovaPool* p) { return p->node && std::find(cells.begin(), cells.end(), *p->node) != cells.end(); };
  const PciNumaPolicy policy = guest.pci_numa_policy;
  for (const auto& request : guest.pci_requests) {
    std::vector<NovaPool*> matching;
    for (auto& p : pools) {
      if (p.count == 0) continue;
      if (std::any_of(request.specs.begin(), request.specs.end(), [&](const PciSpec& s) { return spec_matches(p, s); })) {
        matching.push_back(&p);
      }
    }
    std::vector<NovaPool*> step;
    for (NovaPool* p : matching) {
      if (on_cells(p)) step.push_back(p);
    }
    if (policy != PciNumaPolicy::Required && sum(step) < request.count) {
      if (policy == PciNumaPolicy::Socket) {
        step.clear();
        const bool sockets = std::all_of(host.cells.begin(), host.cells.end(), [](const HostCell& c) { return c.socket.has_value(); });
        for (NovaPool* p : matching) {
          const HostCell* home = p->node ? host.find_cell(*p->node) : nullptr;
          bool near = false;
          for (auto id : cells) near = near || (sockets && home != nullptr && host.find_cell(id)->socket == home->socket);
          if (near) step.push_back(p);
        }
      } else {
        step.clear();
        for (NovaPool* p : matching) {
          if (on_cells(p) || !p->node) step.push_back(p);
        }
        if (policy == PciNumaPolicy::Preferred && sum(step) < request.count) {
          step = matching;  // those on the cells or without a node first
          std::stable_sort(step.begin(), step.end(), [&](const NovaPool* a, const NovaPool* b) {
            return (on_cells(a) || !a->node) > (on_cells(b) || !b->node);
          });
        }
      }
    }
    auto asks = [&](const char* key, const std::function<bool(const Value&)>& wanted) {
      return std::any_of(request.specs.begin(), request.specs.end(), [&](const PciSpec& s) {
        auto it = s.find(key);
        return wanted(it == s.end() ? Value() : to_value(it->second));
      });
    };
    for (const char* kind : {"type-PF", "vdpa"}) {
      const auto is_kind = [&](const Value& v) { return v && *v == kind; };
      if (!asks("dev_type", is_kind)) std::erase_if(step, [&](NovaPool* p) { return is_kind(key_of(*p, "dev_type")); });
    }
    if (!asks("remote_managed", truthy)) {
      std::erase_if(step, [&](NovaPool* p) { return truthy(key_of(*p, "remote_managed")); });
    }
    if (sum(step) < request.count) return false;
    std::uint32_t left = request.count;
    for (NovaPool* p : step) {
      const std::uint32_t taken = std::min(left, p->count);
      p->count -= taken;
      left -= taken;
    }
  }
  return true;
}

const char* const kDevTypes[] = {"type-PCI", "type-VF", "type-PF", "vdpa"};
const char* const kPhysnets[] = {"physnet0", "physnet1"};

// A tag drawn for a device: absent, one of `values`, or None.
template <std::size_t N>
void maybe_tag(std::mt19937& rng, PciDevice& d, const char* key, const char* const (&values)[N]) {
  const std::uint32_t r = rng() % (N + 3);
  if (r < N) d.tags[key] = values[r];
  if (r == N) d.tags[key] = PciTagValue::none();
}

PciSpec random_spec(std::mt19937& rng, const HostTopology& host) {
  PciSpec spec;
  if (!host.pci.empty() && rng() % 4 != 0) {  // mostly some keys of one device, so that it matches
    const PciDevice& d = host.pci[rng() % host.pci.size()];
    if (rng() % 2) spec["vendor_id"] = rng() % 5 == 0 ? std::string("8086") : d.vendor_id;
    if (rng() % 3 == 0) spec["product_id"] = d.product_id;
    for (const auto& [k, v] : d.tags) {
      if (rng() % 2) spec[k] = v;
    }
    return spec;
  }
  if (rng() % 2) spec["dev_type"] = kDevTypes[rng() % 4];
  if (rng() % 3 == 0) spec["physical_network"] = rng() % 3 == 0 ? PciTagValue::none() : PciTagValue(kPhysnets[rng() % 2]);
  const char* const managed_specs[] = {"True", "false", " yes", "\tTRUE\x1f", "no "};
  if (rng() % 5 == 0) spec["remote_managed"] = managed_specs[rng() % 5];
  return spec;
}

TEST(PciTagsProperty, AGuestFitsExactlyWhenNovasPoolsServeItOnSomeChoiceOfCells) {
  std::mt19937 rng(2612);
  int fits = 0, refusals = 0;
  for (int round = 0; round < 3000; ++round) {
    HostTopology host;
    const std::uint32_t host_cells = 1 + rng() % 4;
    for (std::uint32_t i = 0; i < host_cells; ++i) {
      // Cells far larger than the guest's, so that only the PCI devices decide.
      HostCell cell = testing::flat_cell(i, CpuSet::range(i * 8, i * 8 + 7), 8192 * testing::kMiBInKiB);
      cell.socket = i / 2;
      if (rng() % 8 == 0) cell.socket.reset();
      host.cells.push_back(cell);
    }
    const std::uint32_t devices = rng() % 7;
    for (std::uint32_t k = 0; k < devices; ++k) {
      PciDevice d;
      d.address = "0000:3b:00." + std::to_string(k);
      const std::uint32_t where = rng() % (host_cells + 2);
      if (where < host_cells) d.numa_node = where;
      if (where == host_cells) d.numa_node = host_cells + 3;  // a node without a host cell
      d.vendor_id = rng() % 2 ? "8086" : "15b3";
      d.product_id = rng() % 2 ? "154d" : "1018";
      d.allocated = rng() % 6 == 0;
      d.tags["dev_type"] = kDevTypes[rng() % 4];
      maybe_tag(rng, d, "physical_network", kPhysnets);
      const char* const managed[] = {"true", "false", " True ", "on\n"};
      if (rng() % 3 == 0) maybe_tag(rng, d, "remote_managed", managed);
      host.pci.push_back(d);
    }
    GuestTopology guest;
    const std::uint32_t guest_cells = 1 + rng() % std::min<std::uint32_t>(2, host_cells);
    for (std::uint32_t i = 0; i < guest_cells; ++i) {
      GuestCell cell;
      cell.id = i;
      cell.cpus = CpuSet{i};
      cell.memory_kib = 256 * testing::kMiBInKiB;
      guest.cells.push_back(cell);
    }
    const PciNumaPolicy policies[] = {PciNumaPolicy::Required, PciNumaPolicy::Legacy, PciNumaPolicy::Preferred,
                                      PciNumaPolicy::Socket};
    guest.pci_numa_policy = policies[rng() % 4];
    const std::uint32_t requests = 1 + rng() % 2;
    for (std::uint32_t r = 0; r < requests; ++r) {
      PciRequest request;
      request.count = rng() % 3 == 0 ? 2 : 1;
      const std::uint32_t specs = 1 + rng() % 2;
      for (std::uint32_t s = 0; s < specs; ++s) request.specs.push_back(random_spec(rng, host));
      guest.pci_requests.push_back(request);
    }

    // Every choice of distinct host cells for the guest's cells.
    bool servable = false;
    std::vector<std::uint32_t> ids(host_cells);
    std::iota(ids.begin(), ids.end(), 0);
    do {
      servable = nova_serves(host, guest, std::vector<std::uint32_t>(ids.begin(), ids.begin() + guest_cells));
    } while (!servable && std::next_permutation(ids.begin(), ids.end()));

    FitOptions options;
    options.pack_host_cells = rng() % 2 == 0;
    const FitResult result = fit_guest(host, guest, options);
    ASSERT_EQ(result.placement.has_value(), servable) << "round " << round << ": " << result.summary;
    if (result.placement) {
      ++fits;
      std::vector<std::uint32_t> chosen;
      for (const auto& c : result.placement->cells) chosen.push_back(c.host_cell);
      EXPECT_TRUE(nova_serves(host, guest, chosen)) << "round " << round << ": the cells chosen do not serve it";
    } else {
      ++refusals;
    }
  }
  // Both answers are drawn often, so neither side of the equality is vacuous.
  std::printf("property: %d fits, %d refusals\n", fits, refusals);
  EXPECT_GT(fits, 500);
  EXPECT_GT(refusals, 500);
}

}  // namespace
}  // namespace numaplace
