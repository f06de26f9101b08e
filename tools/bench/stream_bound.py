#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Upper bound on admitted_before_first_refusal for the admission streams, cell by cell.

`numaplace-dev replay` prints a loose bound (what fits by host totals alone). This script asks a
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
--ours FILE, `numaplace-dev replay --json` output) and climbs until k is infeasible. A solve that hits
--time-limit leaves the stream's bound undecided (printed as ">= k, undecided").

--total bounds admitted_total the same way: the most requests of the whole stream that can hold
a place at once, each checked at its own admission against those admitted before it, where a
request may be refused only when it is blocked on every host cell by the usage of the requests
admitted before it (Model._must_admit: the replay's rule that whatever fits is admitted, relaxed
to conditions every refusal implies). Any strategy's run is a solution, so none admits more. A
solve cut off by --time-limit reports HiGHS's proven bound. --any-refusal drops the must-admit
rule (a planner that may refuse anything: much looser, since refusing large requests early
leaves room for many small ones). Every refusal of both Nova runs is checked against the rule
(and every admission against the placement rules) before anything is solved: a rule a real run
breaks is no bound, and the script stops saying so.

Needs Debian's python3-scipy (1.10: HiGHS inside). Run with /usr/bin/python3:
  /usr/bin/python3 tools/bench/stream_bound.py tests/data/conformance/nova/streams.jsonl \
      [--ours replay.jsonl] [--time-limit 120] [--json] [--total [--any-refusal]]
"""
import argparse
import json
import math
import os
import re
import sys
import tempfile

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
    """One host cell as the model sees it. Hosts outside what the model is written for are refused
    (ValueError), since there its rules could be stricter than Nova's and no longer a bound: usage
    already on the host, cores of other than two threads, page sizes other than 4 KiB and 1 GiB."""

    def __init__(self, cell, ratio):
        every = cell["cpus"]
        usage = cell.get("usage", {})
        if usage.get("shared_cpus", 0) or usage.get("pinned_cpus") or usage.get("memory_mib", 0) or \
                any(p.get("used", 0) or p.get("reserved", 0) for p in cell["pages"]):
            raise ValueError(f"host cell {cell['id']} starts with usage; the model counts from an empty host")
        if any(len(core) != 2 for core in cell["siblings"]) or \
                sorted(cpu for core in cell["siblings"] for cpu in core) != sorted(every):
            raise ValueError(f"host cell {cell['id']} has cores of other than two threads; the model assumes two")
        if any(p["size_kib"] not in (4, 1048576) for p in cell["pages"]):
            raise ValueError(f"host cell {cell['id']} has pages other than 4 KiB and 1 GiB")
        # Nova cannot isolate on an SMT host whose shared and dedicated sets differ.
        self.can_isolate = set(cell.get("shared_cpuset", every)) == set(cell.get("dedicated_cpuset", every))
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
    """Whether the guest cell fits the empty host cell, exactly (for the hosts HostCell accepts):
    the placement rules may not place it where this is false, and the must-admit rule may not
    ask for a reason to refuse it where this is true but Nova never could place it."""
    vcpus, memory, kind, policy = cell
    if kind == "large":
        return vcpus <= len(host.shared) and memory <= host.huge_mib and memory % 1024 == 0
    if kind == "dedicated":
        if policy == "isolate" and not host.can_isolate:
            return False
        threads = 2 * vcpus if policy == "isolate" else vcpus
        return threads <= len(host.dedicated) and memory <= host.small_mib
    return vcpus <= len(host.shared) and memory <= host.small_mib


def taken(cell, resource):
    """What one guest cell adds to a host cell's usage (Nova's accounting, numaplace's admit_placement)."""
    vcpus, memory, kind, policy = cell
    if resource == "memory":
        return memory
    if resource == "shared":
        return 0 if kind == "dedicated" else vcpus
    if resource == "pinned":
        return 0 if kind != "dedicated" else (2 * vcpus if policy == "isolate" else vcpus)
    return memory if kind == "large" else 0


def blocking_thresholds(cell, host):
    """{resource: t}: the guest cell cannot be fitted on the host cell once that usage is at least
    t (usages are whole MiB and whole vCPUs); every way the fit can fail there implies one of them.
    Of two reasons on one resource the lower threshold stands for both."""
    thresholds = {}
    for resource, threshold in _blocking_reasons(cell, host):
        thresholds[resource] = min(threshold, thresholds.get(resource, threshold))
    return thresholds


def _blocking_reasons(cell, host):
    vcpus, memory, kind, policy = cell
    if kind == "dedicated":
        yield "memory", math.floor(host.memory - memory) + 1
        yield "pinned", len(host.dedicated) - vcpus + 1
        if policy in ("isolate", "require"):
            cores_needed = vcpus if policy == "isolate" else (vcpus + 1) // 2
            yield "pinned", host.whole_cores - cores_needed + 1
        return
    yield "memory", math.floor(host.ram_ratio * host.memory - memory) + 1
    yield "shared", math.floor(host.cpu_ratio * len(host.shared) - vcpus) + 1
    if kind == "large":
        yield "huge", host.huge_mib - memory + 1


def blocked_everywhere(cells, hosts, usage):
    """Whether the refusal rule of Model._must_admit holds for a request of these guest cells when
    the host cells carry `usage` (per host cell: resource -> amount)."""
    open_cells = 0
    for h, host in enumerate(hosts):
        if not eligible(cells[0], host):
            continue
        if not any(usage[h][resource] >= threshold
                   for resource, threshold in blocking_thresholds(cells[0], host).items()):
            open_cells += 1
    return open_cells == 0 if len(cells) == 1 else open_cells <= 1


class Model:
    """The relaxed placement model of the requests with the indices in `admitted` (ascending):
    one 0/1 column per (guest cell, eligible host cell) and, when `optional`, one 0/1 column per
    request saying whether it is admitted (its guest cells are placed exactly when it is)."""

    def __init__(self, requests, hosts, admitted, optional=False, must_admit=False):
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
        self.width = len(self.columns) + len(self.chosen)
        self.integral = [1] * self.width
        self.column_upper = [1.0] * self.width
        self.rows, self.lower, self.upper = [], [], []
        self.placeable = all(any((c, h) in self.columns for h in range(len(hosts))) or optional
                             for c in range(len(self.cells)))
        if self.placeable:
            self._constrain(hosts, dense_admissions=not must_admit)
            if must_admit:
                self._must_admit(hosts)

    def new_column(self, integral=True, upper=1.0):
        self.integral.append(1 if integral else 0)
        self.column_upper.append(upper)
        self.width += 1
        return self.width - 1

    def add(self, coefficients, low, high):
        self.rows.append(coefficients)
        self.lower.append(low)
        self.upper.append(high)

    def _constrain(self, hosts, dense_admissions=True):
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
        total_memory = self.total_memory = sum(cell[1] for _, cell in cells)
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
            for c, cell in on if dense_admissions else []:
                limit = host.memory if cell[2] == "dedicated" else host.ram_ratio * host.memory
                big = max(0.0, total_memory - limit)
                if big == 0:
                    continue
                row = {columns[(d, h)]: cells[d][1][1] for d, _ in on if d <= c}
                row[columns[(c, h)]] = row[columns[(c, h)]] + big
                self.add(row, -math.inf, limit + big)

    def _must_admit(self, hosts):
        """The replay's rule that a request is refused only when it fits nowhere, relaxed so that
        it stays a bound (optional models only; the memory-at-admission rows of _constrain are
        written here from the same usage columns, sparsely). Usage only grows along a stream and every fit
        check is monotone in it, so a refused request must be blocked, on every host cell it could
        otherwise take, by the usage of the requests admitted before it. Blocked means one of
        these, each implied by every way Nova's fit can fail there (a necessary condition of the
        refusal, never a sufficient one):
          * memory used + its memory > the cell's memory (dedicated) or RAM ratio x memory (shared);
          * shared vCPUs carried + its vCPUs > CPU ratio x shared CPUs (shared, 1 GiB pages);
          * 1 GiB-page memory used + its memory > the cell's 1 GiB pages;
          * pinned pCPUs + its vCPUs > the dedicated set, or, for isolate (require), fewer than
            its vCPUs (half its vCPUs, rounded up) cores left unpinned: the cell's whole
            dedicated cores less its pinned pCPUs, since each pinned pCPU breaks at most one core.
        A 2-cell guest is refused only when at most one cell is not blocked for one of its halves."""
        requests = sorted(self.chosen)
        cells_of = {}
        for c, (index, cell) in enumerate(self.cells):
            cells_of.setdefault(index, []).append(c)
        resources = ("memory", "shared", "pinned", "huge")
        # usage[(h, resource)]: the column holding that usage before the current request.
        usage = {}
        for h in range(len(hosts)):
            for resource in resources:
                usage[(h, resource)] = None  # nothing admitted yet: 0
        for position, index in enumerate(requests):
            if position > 0:
                # Usage before `index` = usage before the previous request + what it took.
                previous = requests[position - 1]
                for h in range(len(hosts)):
                    for resource in resources:
                        row = {}
                        for c in cells_of[previous]:
                            if (c, h) in self.columns:
                                amount = taken(self.cells[c][1], resource)
                                if amount:
                                    row[self.columns[(c, h)]] = -amount
                        before = usage[(h, resource)]
                        if not row and before is None:
                            continue
                        column = self.new_column(integral=False, upper=math.inf)
                        row[column] = 1
                        if before is not None:
                            row[before] = -1
                        self.add(row, 0, 0)
                        usage[(h, resource)] = column
            # Memory at this admission, as in _constrain but from the usage columns (sparse rows).
            for c in cells_of[index]:
                cell = self.cells[c][1]
                for h, host in enumerate(hosts):
                    before = usage[(h, "memory")]
                    if (c, h) not in self.columns or before is None:
                        continue
                    limit = host.memory if cell[2] == "dedicated" else host.ram_ratio * host.memory
                    big = max(0.0, self.total_memory - limit)
                    if big == 0:
                        continue
                    self.add({before: 1, self.columns[(c, h)]: cell[1] + big}, -math.inf, limit + big)
            halves = [self.cells[c][1] for c in cells_of[index]]
            blocked_columns = []
            open_cells = 0
            for h, host in enumerate(hosts):
                if not eligible(halves[0], host):
                    continue  # never here: blocked whatever the usage
                reasons = blocking_thresholds(halves[0], host)
                if any(threshold <= 0 for threshold in reasons.values()):
                    continue  # blocked already: eligible() is looser than this
                open_cells += 1
                indicators = {}
                for resource, threshold in reasons.items():
                    column = usage[(h, resource)]
                    if column is None:
                        continue  # no usage yet: this reason cannot hold
                    flag = self.new_column()
                    self.add({column: 1, flag: -threshold}, 0, math.inf)  # flag => usage >= threshold
                    indicators[flag] = 1
                if len(halves) == 1:
                    indicators[self.chosen[index]] = 1
                    self.add(indicators, 1, math.inf)  # admitted, or blocked here
                else:
                    blocked = self.new_column()
                    row = {flag: -1 for flag in indicators}
                    row[blocked] = 1
                    self.add(row, -math.inf, 0)  # blocked only for a reason
                    blocked_columns.append(blocked)
            if len(halves) > 1 and open_cells > 1:
                row = {column: 1 for column in blocked_columns}
                row[self.chosen[index]] = open_cells
                self.add(row, open_cells - 1, math.inf)  # admitted, or at most one cell open

    def solve(self, objective, lowest, time_limit, log=False):
        width = self.width
        objective = np.concatenate([objective, np.zeros(width - len(objective))])
        lowest = np.concatenate([lowest, np.zeros(width - len(lowest))])
        matrix = lil_matrix((len(self.rows), width))
        for r, coefficients in enumerate(self.rows):
            for column, value in coefficients.items():
                matrix[r, column] = value
        return milp(objective, integrality=np.array(self.integral), bounds=Bounds(lowest, np.array(self.column_upper)),
                    constraints=LinearConstraint(matrix.tocsr(), self.lower, self.upper),
                    options={"time_limit": time_limit, "disp": log})


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


def boundary_host(raw_cell, ratio, cell, host):
    """The host cell `raw_cell` loaded as far as Model._must_admit's rule allows while calling the
    guest cell `cell` unblocked: every usage one below its threshold (usage that no threshold
    counts, as far as the cell allows), pinned pCPUs spread one a core first (the layout that
    leaves the fewest whole cores). A host Nova would refuse the guest on breaks the rule."""
    thresholds = blocking_thresholds(cell, host)
    dedicated = [cpu for core in raw_cell["siblings"] for cpu in core if cpu in host.dedicated]
    spread_first = [core[0] for core in raw_cell["siblings"] if core[0] in host.dedicated] + \
                   [core[1] for core in raw_cell["siblings"] if core[1] in host.dedicated]
    pinned = thresholds.get("pinned", len(dedicated) + 1) - 1
    memory = thresholds.get("memory", math.floor(host.ram_ratio * host.memory) + 1) - 1
    shared = thresholds.get("shared", math.floor(host.cpu_ratio * len(host.shared)) + 1) - 1
    huge = thresholds.get("huge", host.huge_mib + 1) - 1
    out = json.loads(json.dumps(raw_cell))
    out["id"] = 0
    out["distances"] = [10]
    out["usage"] = {"pinned_cpus": sorted(spread_first[:max(0, min(pinned, len(dedicated)))]),
                    "shared_cpus": max(0, shared), "memory_mib": max(0, memory)}
    for pool in out["pages"]:
        if pool["size_kib"] == 1048576:
            pool["used"] = max(0, huge) // 1024
    return {"cells": [out], "allocation_ratio": ratio}


def check_thresholds(numaplace, stream):
    """Every guest cell kind of the stream on every host cell it is eligible for, at the boundary
    host of boundary_host: numaplace's fit (Nova's rules, conformance-tested) must take it.
    Returns the first (request, host cell) it refuses, or None."""
    import subprocess
    ratio = stream["host"]["allocation_ratio"]
    kinds = {}
    for index, request in enumerate(stream["requests"]):
        kinds.setdefault(guest_cells(request)[0], index)
    with tempfile.TemporaryDirectory() as scratch:
        for cell, index in kinds.items():
            vcpus, memory, kind, policy = cell
            lines = []
            for raw in stream["host"]["cells"]:
                host = HostCell(raw, ratio)
                if eligible(cell, host):
                    host_json = boundary_host(raw, ratio, cell, host)
                    host_json["name"] = f"cell-{raw['id']}"
                    lines.append(json.dumps(host_json))
            if not lines:
                continue
            path = os.path.join(scratch, "hosts.jsonl")
            with open(path, "w") as out:
                out.write("\n".join(lines) + "\n")
            specs = ["hw:numa_nodes=1"]
            if kind == "dedicated":
                specs += ["hw:cpu_policy=dedicated", f"hw:cpu_thread_policy={policy}"]
            if kind == "large":
                specs += ["hw:mem_page_size=large"]
            command = [numaplace, "rank", "--hosts", path, "--vcpus", str(vcpus), "--memory", str(memory), "--json"]
            for spec in specs:
                command += ["--spec", spec]
            answer = subprocess.run(command, capture_output=True, text=True)
            if answer.returncode not in (0, 3):
                raise SystemExit(f"check_thresholds: numaplace rank failed: {answer.stderr.strip()}")
            refused = json.loads(answer.stdout)["refused"]
            if refused:
                return index, refused[0]
    return None


def with_stdout_captured(run):
    """(run(), what the C library under it wrote to standard output)."""
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 1)
        try:
            result = run()
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        sink.seek(0)
        return result, sink.read().decode(errors="replace")


def refusals_blocked(requests, hosts, trace):
    """The first request of a real run (trace: per request None or its host cells) refused while
    Model._must_admit's rule says it was not blocked, or None: a rule a real run breaks is no bound."""
    usage = [{resource: 0 for resource in ("memory", "shared", "pinned", "huge")} for _ in hosts]
    for index, host_cells in enumerate(trace):
        cells = guest_cells(requests[index])
        if host_cells is None:
            if not blocked_everywhere(cells, hosts, usage):
                return index
            continue
        for cell, h in zip(cells, host_cells):
            for resource in usage[h]:
                usage[h][resource] += taken(cell, resource)
    return None


def most_admitted(requests, hosts, time_limit, must_admit=True):
    """(best, bound): the most requests of the whole stream that can hold a place at once, each
    checked at its own admission against those admitted before it (the relaxed rules above), as
    found and as proven by the solver; bound == best when solved to optimality. No strategy admits
    more in total: what any strategy admitted holds its place at once at the end of the stream."""
    model = Model(requests, hosts, range(len(requests)), optional=True, must_admit=must_admit)
    objective = np.zeros(len(model.columns) + len(model.chosen))
    for column in model.chosen.values():
        objective[column] = -1  # milp minimises
    # scipy reports HiGHS's proven bound only with a solution; HiGHS's own report always has it.
    result, report = with_stdout_captured(lambda: model.solve(objective, np.zeros(len(objective)), time_limit, log=True))
    logged = re.search(r"Dual bound\s+(\S+)", report)
    proven = float(logged.group(1)) if logged else getattr(result, "mip_dual_bound", None)
    if result.x is None:
        if proven is None or not math.isfinite(proven):
            return None, None
        return None, int(math.floor(-proven + 1e-6))
    best = int(round(-result.fun))
    if result.status == 0:
        return best, best
    if proven is None or not math.isfinite(proven):
        return best, None
    return best, int(math.floor(-proven + 1e-6))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("streams")
    parser.add_argument("--ours", help="numaplace-dev replay --json output: a run's figures, a known feasible start")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per solve (default 120)")
    parser.add_argument("--json", action="store_true", help="one JSON object a line per stream")
    parser.add_argument("--stream", help="only this stream id")
    parser.add_argument("--total", action="store_true",
                        help="bound admitted_total instead: the most requests of the stream that hold a place at once")
    parser.add_argument("--numaplace", help="numaplace binary: check the must-admit rule's thresholds against its fit "
                                            "(every guest cell kind at the boundary of every host cell)")
    parser.add_argument("--any-refusal", action="store_true",
                        help="with --total: let the planner refuse any request, even one that fits (the looser bound)")
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
            unblocked = refusals_blocked(requests, hosts, [None if t is None else [cell["host_cell"] for cell in t]
                                                           for t in trace])
            if unblocked is not None:
                raise SystemExit(f"{stream['id']}: Nova {run} refused request {unblocked}, which the must-admit rule "
                                 "says was not blocked; the rule is stricter than Nova's and would not be a bound")
        if args.numaplace and not args.any_refusal:
            broken = check_thresholds(args.numaplace, stream)
            if broken is not None:
                raise SystemExit(f"{stream['id']}: numaplace refuses request {broken[0]} on {broken[1]['host']} at usage "
                                 "the must-admit rule calls unblocked; the rule is stricter than Nova's and would not "
                                 "be a bound")
        decided = True
        optimal = True
        if args.total:
            best, bound = most_admitted(requests, hosts, args.time_limit, must_admit=not args.any_refusal)
            if bound is not None and bound < k:
                raise SystemExit(f"{stream['id']}: the model admits fewer than {k} requests in all, which a real run "
                                 "admitted; it is stricter than Nova's rules and would not be a bound")
            decided = bound is not None
            optimal = decided and best == bound
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
        record = {"id": stream["id"], "shape": stream["shape"], "bound": k, "decided": decided, "optimal": optimal,
                  "nova_spread": spread, "nova_pack": pack, "ratio_to_better_nova": k / better}
        if stream["id"] in ours:
            record["ours"] = ours[stream["id"]]
        shapes.setdefault(stream["shape"], []).append(record)
        if args.json:
            print(json.dumps(record), flush=True)
        else:
            mark = "" if decided else " (undecided: a solve ran out of time; the figure is what it found)"
            if decided and not optimal:
                mark = (" (what the solver proved before its time ran out; a longer --time-limit may lower it"
                        + ("; here no more than the request count" if k >= len(requests) else "") + ")")
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
              + ("" if decided else " (some undecided: a lower figure than the true bound)")
              + ("" if all(r.get("optimal", True) for r in records) else
                 " (some solves cut off: still bounds, which a longer --time-limit may lower)"))
        if args.goal and decided and mean < args.goal:
            what = "in total" if args.total else "before the first refusal"
            print(f"{'':8} a mean ratio of {args.goal:.2f} {what} is out of reach of any strategy here")


if __name__ == "__main__":
    sys.exit(main())
