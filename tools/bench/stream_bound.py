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

Needs Debian's python3-scipy (1.10: HiGHS inside). Run with /usr/bin/python3:
  /usr/bin/python3 tools/bench/stream_bound.py ../shared/conformance/nova/streams.jsonl \
      [--ours replay.jsonl] [--time-limit 120] [--json]
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


def all_fit(requests, hosts, admitted, time_limit, placed=None):
    """True, False, or None (undecided within time_limit) for: the requests with the indices in
    `admitted` (ascending) all hold a place at once. `placed` (index -> host cell per guest cell)
    fixes where those requests are."""
    cells = []  # (request index, guest cell)
    for index in admitted:
        for cell in guest_cells(requests[index]):
            cells.append((index, cell))
    if not cells:
        return True
    columns = {}
    for c, (_, cell) in enumerate(cells):
        for h, host in enumerate(hosts):
            if eligible(cell, host):
                columns[(c, h)] = len(columns)
    if any(not any((c, h) in columns for h in range(len(hosts))) for c in range(len(cells))):
        return False
    rows, lower, upper = [], [], []

    def add(coefficients, low, high):
        rows.append(coefficients)
        lower.append(low)
        upper.append(high)

    for c in range(len(cells)):
        add({columns[(c, h)]: 1 for h in range(len(hosts)) if (c, h) in columns}, 1, 1)
    for c in range(1, len(cells)):
        if cells[c][0] == cells[c - 1][0]:
            for h in range(len(hosts)):
                if (c, h) in columns and (c - 1, h) in columns:
                    add({columns[(c, h)]: 1, columns[(c - 1, h)]: 1}, 0, 1)
    total_memory = sum(cell[1] for _, cell in cells)
    for h, host in enumerate(hosts):
        on = [(c, cells[c][1]) for c in range(len(cells)) if (c, h) in columns]
        shared = {columns[(c, h)]: cell[0] for c, cell in on if cell[2] != "dedicated"}
        add(shared, -math.inf, host.cpu_ratio * len(host.shared))
        threads = {columns[(c, h)]: (2 if cell[3] == "isolate" else 1) * cell[0] for c, cell in on if cell[2] == "dedicated"}
        add(threads, -math.inf, len(host.dedicated))
        cores = {columns[(c, h)]: cell[0] if cell[3] == "isolate" else cell[0] // 2
                 for c, cell in on if cell[2] == "dedicated" and cell[3] in ("isolate", "require")}
        add(cores, -math.inf, host.whole_cores)
        large = {columns[(c, h)]: cell[1] for c, cell in on if cell[2] == "large"}
        add(large, -math.inf, host.huge_mib)
        # Whatever came last here was checked against at most RAM ratio x memory; without big-M
        # this row is what lets the LP relaxation see the cell's capacity.
        add({columns[(c, h)]: cell[1] for c, cell in on}, -math.inf, max(1.0, host.ram_ratio) * host.memory)
        # Memory at each admission: everything placed here so far (stream order) plus this cell,
        # within the cell's memory (dedicated) or RAM ratio x memory (shared); big-M when elsewhere.
        for c, cell in on:
            limit = host.memory if cell[2] == "dedicated" else host.ram_ratio * host.memory
            big = max(0.0, total_memory - limit)
            if big == 0:
                continue
            row = {columns[(d, h)]: cells[d][1][1] for d, _ in on if d <= c}
            row[columns[(c, h)]] = row[columns[(c, h)]] + big
            add(row, -math.inf, limit + big)
    matrix = lil_matrix((len(rows), len(columns)))
    for r, coefficients in enumerate(rows):
        for column, value in coefficients.items():
            matrix[r, column] = value
    lowest = np.zeros(len(columns))
    for index, host_cells in (placed or {}).items():
        at = [c for c, (request, _) in enumerate(cells) if request == index]
        for c, h in zip(at, host_cells):
            if (c, h) not in columns:
                return False
            lowest[columns[(c, h)]] = 1
    result = milp(np.zeros(len(columns)), integrality=np.ones(len(columns)), bounds=Bounds(lowest, 1),
                  constraints=LinearConstraint(matrix.tocsr(), lower, upper),
                  options={"time_limit": time_limit, "disp": False})
    if result.status == 0:
        return True
    if result.status == 2:
        return False
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("streams")
    parser.add_argument("--ours", help="numaplace replay --json output: a run's figures, a known feasible start")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per solve (default 120)")
    parser.add_argument("--json", action="store_true", help="one JSON object a line per stream")
    parser.add_argument("--stream", help="only this stream id")
    parser.add_argument("--goal", type=float,
                        help="also say whether a mean ratio to the better Nova run of GOAL is within the bound")
    args = parser.parse_args()
    ours = {}
    if args.ours:
        for line in open(args.ours):
            if line.strip():
                record = json.loads(line)
                ours[record["id"]] = record["admitted_before_first_refusal"]
    shapes = {}
    for line in open(args.streams):
        stream = json.loads(line)
        if args.stream and stream["id"] != args.stream:
            continue
        hosts = [HostCell(cell, stream["host"]["allocation_ratio"]) for cell in stream["host"]["cells"]]
        requests = stream["requests"]
        spread = stream["nova"]["spread"]["admitted_before_first_refusal"]
        pack = stream["nova"]["pack"]["admitted_before_first_refusal"]
        k = max(spread, pack, ours.get(stream["id"], 0))
        # Every guest Nova admitted in either run, on the host cells Nova chose, must fit the model
        # together, or the model is stricter than Nova somewhere and would not be a bound.
        for run in ("spread", "pack"):
            trace = stream["nova"][run]["trace"]
            placed = {i: [cell["host_cell"] for cell in t] for i, t in enumerate(trace) if t is not None}
            if all_fit(requests, hosts, sorted(placed), args.time_limit, placed) is not True:
                raise SystemExit(f"{stream['id']}: the model refuses what Nova {run} admitted, where Nova put it; "
                                 "it is stricter than Nova's rules and would not be a bound")
        if all_fit(requests, hosts, range(k), args.time_limit) is not True:
            raise SystemExit(f"{stream['id']}: the model refuses the first {k} requests, which a real run admitted")
        decided = True
        while k < len(requests):
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
            mark = "" if decided else " (undecided above: a solve ran out of time)"
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
            print(f"{'':8} a mean ratio of {args.goal:.2f} before the first refusal is out of reach of any strategy here")


if __name__ == "__main__":
    sys.exit(main())
