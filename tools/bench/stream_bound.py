#!/usr/bin/python3
"""Upper bound on admitted_before_first_refusal for the admission streams, cell by cell.

`numaplace replay` prints a loose bound (what fits by host totals alone). This script asks a
sharper question of every stream in streams.jsonl: what is the largest k such that the first k
requests can all be placed on the host AT ONCE, guest cell by host cell, under a relaxation of
Nova's fit rules (STREAMS.md, README "How Nova chooses")? No strategy, not even one that knows
the whole stream in advance, admits more than k before its first refusal, since every one of the
first k requests must then hold its place together with the others.

The relaxation keeps only rules Nova certainly enforces, so the bound stays a bound:
  * each guest cell on exactly one host cell, the two cells of a 2-cell guest on different ones;
  * every cell without a page size: memory <= the cell's total small pages (not free ones);
  * shared cells: vCPUs <= the cell's shared CPUs, the cell's shared vCPUs <= CPU ratio x shared
    CPUs, and at the admission of every shared cell the memory of the cells placed so far (in
    stream order) <= RAM ratio x memory;
  * 1 GiB-page cells: their memory in free 1 GiB pages, plus the shared rules above;
  * dedicated cells: pinned threads (isolate: whole cores, 2 threads a vCPU) <= the dedicated
    set; whole free cores for isolate (one a vCPU) and require (floor(vCPUs / 2)) <= the
    dedicated set's cores; at the admission of every dedicated cell the memory placed so far
    <= the cell's memory (no overcommit).
Rules left out (exact pinning under each thread policy) only make the bound looser.

Each k is a mixed-integer feasibility problem solved with HiGHS (scipy.optimize.milp). The bound
starts from the best figure a real run reached (Nova's spread or pack, or numaplace's from
--ours FILE, `numaplace replay --json` output) and climbs until k is infeasible. A solve that hits
--time-limit leaves the stream's bound undecided (printed as ">= k, undecided").

--total bounds admitted_total the same way: the most requests of the whole stream that can hold
a place at once, every request optional, each checked at its own admission against those admitted
before it (a planner that may refuse anything; what any strategy admitted holds its place at the
end, so none admits more). A solve cut off by --time-limit reports HiGHS's proven bound.

Needs Debian's python3-scipy (1.10: HiGHS inside). Run with /usr/bin/python3:
  /usr/bin/python3 tools/bench/stream_bound.py ../shared/conformance/nova/streams.jsonl \
      [--ours replay.jsonl] [--time-limit 120] [--json] [--total]
"""
import argparse
import json
import math
import sys

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import lil_matrix


def guest_cells(request):
    """Guest cells of a request: (vcpus, memory_mib, kind, thread_policy); kind is shared, large or dedicated."""
    flavor = request["flavor"]
    specs = flavor["extra_specs"]
    unknown = set(specs) - {"hw:numa_nodes", "hw:cpu_policy", "hw:cpu_thread_policy", "hw:mem_page_size"}
    if unknown or request["image"]["properties"] or request["pci"]:
        raise ValueError(f"request outside the stream mix this bound models: {request}")
    count = int(specs.get("hw:numa_nodes", "1"))
    if specs.get("hw:cpu_policy") == "dedicated":
        kind = "dedicated"
    elif specs.get("hw:mem_page_size") == "large":
        kind = "large"
    else:
        kind = "shared"
    policy = specs.get("hw:cpu_thread_policy", "prefer")
    vcpus, memory = flavor["vcpus"], flavor["memory_mib"]
    if vcpus % count or memory % count:
        raise ValueError(f"request does not split evenly: {request}")
    return [(vcpus // count, memory // count, kind, policy) for _ in range(count)]


class HostCell:
    def __init__(self, cell, ratio):
        every = cell["cpus"]
        self.shared = cell.get("shared_cpuset", every)
        self.dedicated = set(cell.get("dedicated_cpuset", every))
        self.whole_cores = sum(1 for core in cell["siblings"] if set(core) <= self.dedicated)
        self.memory = cell["memory_mib"]
        small = min(cell["pages"], key=lambda p: p["size_kib"])
        self.small_mib = small["total"] * small["size_kib"] // 1024
        self.huge_mib = sum(p["total"] * p["size_kib"] // 1024 for p in cell["pages"] if p["size_kib"] == 1048576)
        self.cpu_ratio = ratio["cpu"]
        self.ram_ratio = ratio["ram"]


def eligible(cell, host):
    vcpus, memory, kind, policy = cell
    if kind == "large":
        return vcpus <= len(host.shared) and memory <= host.huge_mib
    if kind == "dedicated":
        threads = 2 * vcpus if policy == "isolate" else vcpus
        return threads <= len(host.dedicated) and memory <= host.small_mib
    return vcpus <= len(host.shared) and memory <= host.small_mib


class Model:
    """The relaxed placement model of the requests with the indices in `admitted` (ascending):
    one 0/1 column per (guest cell, eligible host cell) and, when `optional`, one 0/1 column per
    request saying whether it is admitted (its guest cells are placed exactly when it is)."""

    def __init__(self, requests, hosts, admitted, optional=False):
        self.cells = []  # (request index, guest cell)
        for index in admitted:
            for cell in guest_cells(requests[index]):
                self.cells.append((index, cell))
        self.columns = {}
        for c, (_, cell) in enumerate(self.cells):
            for h, host in enumerate(hosts):
                if eligible(cell, host):
                    self.columns[(c, h)] = len(self.columns)
        self.chosen = {}  # request index -> its "admitted" column (optional models)
        if optional:
            for index in admitted:
                self.chosen[index] = len(self.columns) + len(self.chosen)
        self.rows, self.lower, self.upper = [], [], []
        self.placeable = all(any((c, h) in self.columns for h in range(len(hosts))) or optional
                             for c in range(len(self.cells)))
        if self.placeable:
            self._constrain(hosts)

    def add(self, coefficients, low, high):
        self.rows.append(coefficients)
        self.lower.append(low)
        self.upper.append(high)

    def _constrain(self, hosts):
        cells, columns = self.cells, self.columns
        for c in range(len(cells)):
            row = {columns[(c, h)]: 1 for h in range(len(hosts)) if (c, h) in columns}
            if self.chosen:
                row[self.chosen[cells[c][0]]] = -1  # placed exactly when its request is admitted
                self.add(row, 0, 0)
            else:
                self.add(row, 1, 1)
        for c in range(1, len(cells)):
            if cells[c][0] == cells[c - 1][0]:
                for h in range(len(hosts)):
                    if (c, h) in columns and (c - 1, h) in columns:
                        self.add({columns[(c, h)]: 1, columns[(c - 1, h)]: 1}, 0, 1)
        total_memory = sum(cell[1] for _, cell in cells)
        for h, host in enumerate(hosts):
            on = [(c, cells[c][1]) for c in range(len(cells)) if (c, h) in columns]
            shared = {columns[(c, h)]: cell[0] for c, cell in on if cell[2] != "dedicated"}
            self.add(shared, -math.inf, host.cpu_ratio * len(host.shared))
            threads = {columns[(c, h)]: (2 if cell[3] == "isolate" else 1) * cell[0]
                       for c, cell in on if cell[2] == "dedicated"}
            self.add(threads, -math.inf, len(host.dedicated))
            cores = {columns[(c, h)]: cell[0] if cell[3] == "isolate" else cell[0] // 2
                     for c, cell in on if cell[2] == "dedicated" and cell[3] in ("isolate", "require")}
            self.add(cores, -math.inf, host.whole_cores)
            large = {columns[(c, h)]: cell[1] for c, cell in on if cell[2] == "large"}
            self.add(large, -math.inf, host.huge_mib)
            # Whatever came last here was checked against at most RAM ratio x memory; without big-M
            # this row is what lets the LP relaxation see the cell's capacity.
            self.add({columns[(c, h)]: cell[1] for c, cell in on}, -math.inf, max(1.0, host.ram_ratio) * host.memory)
            # Memory at each admission: everything placed here so far (stream order) plus this cell,
            # within the cell's memory (dedicated) or RAM ratio x memory (shared); big-M when elsewhere.
            for c, cell in on:
                limit = host.memory if cell[2] == "dedicated" else host.ram_ratio * host.memory
                big = max(0.0, total_memory - limit)
                if big == 0:
                    continue
                row = {columns[(d, h)]: cells[d][1][1] for d, _ in on if d <= c}
                row[columns[(c, h)]] = row[columns[(c, h)]] + big
                self.add(row, -math.inf, limit + big)

    def solve(self, objective, lowest, time_limit):
        width = len(self.columns) + len(self.chosen)
        matrix = lil_matrix((len(self.rows), width))
        for r, coefficients in enumerate(self.rows):
            for column, value in coefficients.items():
                matrix[r, column] = value
        return milp(objective, integrality=np.ones(width), bounds=Bounds(lowest, 1),
                    constraints=LinearConstraint(matrix.tocsr(), self.lower, self.upper),
                    options={"time_limit": time_limit, "disp": False})


def all_fit(requests, hosts, admitted, time_limit, placed=None):
    """True, False, or None (undecided within time_limit) for: the requests with the indices in
    `admitted` (ascending) all hold a place at once. `placed` (index -> host cell per guest cell)
    fixes where those requests are."""
    model = Model(requests, hosts, admitted)
    if not model.cells:
        return True
    if not model.placeable:
        return False
    lowest = np.zeros(len(model.columns))
    for index, host_cells in (placed or {}).items():
        at = [c for c, (request, _) in enumerate(model.cells) if request == index]
        for c, h in zip(at, host_cells):
            if (c, h) not in model.columns:
                return False
            lowest[model.columns[(c, h)]] = 1
    result = model.solve(np.zeros(len(model.columns)), lowest, time_limit)
    if result.status == 0:
        return True
    if result.status == 2:
        return False
    return None


def most_admitted(requests, hosts, time_limit):
    """(best, bound): the most requests of the whole stream that can hold a place at once, each
    checked at its own admission against those admitted before it (the relaxed rules above), as
    found and as proven by the solver; bound == best when solved to optimality. No strategy admits
    more in total: what any strategy admitted holds its place at once at the end of the stream."""
    model = Model(requests, hosts, range(len(requests)), optional=True)
    objective = np.zeros(len(model.columns) + len(model.chosen))
    for column in model.chosen.values():
        objective[column] = -1  # milp minimises
    result = model.solve(objective, np.zeros(len(objective)), time_limit)
    if result.x is None:
        return None, None
    best = int(round(-result.fun))
    proven = getattr(result, "mip_dual_bound", None)
    if result.status == 0:
        return best, best
    if proven is None or not math.isfinite(proven):
        return best, None
    return best, int(math.floor(-proven + 1e-6))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("streams")
    parser.add_argument("--ours", help="numaplace replay --json output: a run's figures, a known feasible start")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per solve (default 120)")
    parser.add_argument("--json", action="store_true", help="one JSON object a line per stream")
    parser.add_argument("--stream", help="only this stream id")
    parser.add_argument("--total", action="store_true",
                        help="bound admitted_total instead: the most requests of the stream that hold a place at once")
    parser.add_argument("--goal", type=float,
                        help="also say whether a mean ratio to the better Nova run of GOAL is within the bound")
    args = parser.parse_args()
    ours = {}
    if args.ours:
        for line in open(args.ours):
            if line.strip():
                record = json.loads(line)
                ours[record["id"]] = record["admitted_total" if args.total else "admitted_before_first_refusal"]
    shapes = {}
    for line in open(args.streams):
        stream = json.loads(line)
        if args.stream and stream["id"] != args.stream:
            continue
        hosts = [HostCell(cell, stream["host"]["allocation_ratio"]) for cell in stream["host"]["cells"]]
        requests = stream["requests"]
        figure = "admitted_total" if args.total else "admitted_before_first_refusal"
        spread = stream["nova"]["spread"][figure]
        pack = stream["nova"]["pack"][figure]
        k = max(spread, pack, ours.get(stream["id"], 0))
        # Every guest Nova admitted in either run, on the host cells Nova chose, must fit the model
        # together, or the model is stricter than Nova somewhere and would not be a bound.
        for run in ("spread", "pack"):
            trace = stream["nova"][run]["trace"]
            placed = {i: [cell["host_cell"] for cell in t] for i, t in enumerate(trace) if t is not None}
            if all_fit(requests, hosts, sorted(placed), args.time_limit, placed) is not True:
                raise SystemExit(f"{stream['id']}: the model refuses what Nova {run} admitted, where Nova put it; "
                                 "it is stricter than Nova's rules and would not be a bound")
        decided = True
        if args.total:
            best, bound = most_admitted(requests, hosts, args.time_limit)
            if bound is not None and bound < k:
                raise SystemExit(f"{stream['id']}: the model admits fewer than {k} requests in all, which a real run "
                                 "admitted; it is stricter than Nova's rules and would not be a bound")
            decided = bound is not None
            k = bound if decided else max(k, best or 0)
        elif all_fit(requests, hosts, range(k), args.time_limit) is not True:
            raise SystemExit(f"{stream['id']}: the model refuses the first {k} requests, which a real run admitted")
        while not args.total and k < len(requests):
            fits = all_fit(requests, hosts, range(k + 1), args.time_limit)
            if fits is None:
                decided = False
                break
            if not fits:
                break
            k += 1
        better = max(spread, pack)
        record = {"id": stream["id"], "shape": stream["shape"], "bound": k, "decided": decided,
                  "nova_spread": spread, "nova_pack": pack, "ratio_to_better_nova": k / better}
        if stream["id"] in ours:
            record["ours"] = ours[stream["id"]]
        shapes.setdefault(stream["shape"], []).append(record)
        if args.json:
            print(json.dumps(record), flush=True)
        else:
            mark = "" if decided else " (undecided: a solve ran out of time; the figure is what it found)"
            print(f"{record['id']:16} {record['shape']:8} spread {spread:3} pack {pack:3} "
                  f"ours {record.get('ours', '-'):>3}  bound {k:3}  bound / better Nova {record['ratio_to_better_nova']:.3f}{mark}",
                  flush=True)
    if args.json:
        return
    every = [r for records in shapes.values() for r in records]
    for name, records in list(shapes.items()) + [("all", every)]:
        mean = sum(r["ratio_to_better_nova"] for r in records) / len(records)
        decided = all(r["decided"] for r in records)
        print(f"{name:8} {len(records):2} streams: mean bound / better Nova {mean:.3f}"
              + ("" if decided else " (some undecided: a lower figure than the true bound)"))
        if args.goal and decided and mean < args.goal:
            what = "in total" if args.total else "before the first refusal"
            print(f"{'':8} a mean ratio of {args.goal:.2f} {what} is out of reach of any strategy here")


if __name__ == "__main__":
    sys.exit(main())
