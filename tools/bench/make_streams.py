#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fresh admission streams drawn the way tests/data/conformance/nova/streams.jsonl was drawn.

The 24 streams of streams.jsonl are few: a strategy tuned on them may only fit them. This script
draws new streams by the recipe STREAMS.md states (the four host shapes, taken cell for cell from
the first stream of each shape in the file; 1 GiB pages on each node with probability 1/2, at
least one node, 25 % or 50 % of its memory; CPU ratio 4 or 16, RAM ratio 1.0 or 1.5; split CPU
sets on streams with (index // 4) % 2 == 1; 200 requests in the exact mix, shuffled, each re-drawn
until it fits the empty host on its own), so strategies can be compared on streams they were not
tuned on. Request sizes follow the file's own distribution (see VCPUS, MEMORY_GIB). The "nova" figures of each stream come from `numaplace-dev replay --strategy nova` and
`--strategy nova-pack`, which reproduce Nova 26.2.2's own runs admission for admission on every
stream of the file (ctests replay.nova, replay.nova-pack); the traces are left empty.

Usage: tools/bench/make_streams.py NUMAPLACE_DEV STREAMS_JSONL COUNT SEED > fresh.jsonl  (build/numaplace-dev)
"""
import copy
import json
import random
import subprocess
import sys
import tempfile

SHAPES = ["2s-1n", "2s-nps4", "2s-snc2", "4s-4n"]
MIX = [("shared", 1, 80), ("shared", 2, 40), ("dedicated", 1, 50), ("dedicated", 2, 20), ("large", 1, 10)]


def draw_host(template, index, rng):
    host = copy.deepcopy(template)
    host["pci"] = []
    host["allocation_ratio"] = {"cpu": rng.choice([4.0, 16.0]), "ram": rng.choice([1.0, 1.5])}
    cells = host["cells"]
    with_huge = [rng.random() < 0.5 for _ in cells]
    if not any(with_huge):
        with_huge[rng.randrange(len(cells))] = True
    split = (index // 4) % 2 == 1
    for cell, huge in zip(cells, with_huge):
        for key in ("dedicated_cpuset", "shared_cpuset"):
            cell.pop(key, None)
        huge_mib = cell["memory_mib"] * rng.choice([25, 50]) // 100 if huge else 0
        huge_mib -= huge_mib % 1024
        cell["pages"] = [{"size_kib": 4, "total": (cell["memory_mib"] - huge_mib) * 256, "used": 0}]
        if huge_mib:
            cell["pages"].append({"size_kib": 1048576, "total": huge_mib // 1024, "used": 0})
        cell["usage"] = {"shared_cpus": 0.0, "pinned_cpus": [], "memory_mib": 0}
        if split:
            cores = sorted(cell["siblings"], key=min)
            half = len(cores) // 2
            cell["dedicated_cpuset"] = sorted(cpu for core in cores[:half] for cpu in core)
            cell["shared_cpuset"] = sorted(cpu for core in cores[half:] for cpu in core)
    return host


def cell_takes(cell, kind, policy, vcpus, memory_mib):
    """Whether an EMPTY host cell holds one guest cell (Nova's rules on an empty cell)."""
    every = cell["cpus"]
    shared = cell.get("shared_cpuset", every)
    dedicated = set(cell.get("dedicated_cpuset", every))
    small_mib = cell["pages"][0]["total"] // 256
    huge_mib = sum(p["total"] * 1024 for p in cell["pages"][1:])
    if kind == "large":
        return vcpus <= len(shared) and memory_mib <= huge_mib
    if memory_mib > small_mib:
        return False
    if kind == "shared":
        return vcpus <= len(shared)
    whole_cores = sum(1 for core in cell["siblings"] if set(core) <= dedicated)
    if policy == "isolate":
        # Nova refuses isolate on an SMT host whose shared and dedicated sets differ.
        return "dedicated_cpuset" not in cell and vcpus <= whole_cores
    if policy == "require":
        return (vcpus + 1) // 2 <= whole_cores
    return vcpus <= len(dedicated)


def fits_empty(host, kind, cells, policy, vcpus, memory_mib):
    per_vcpus, per_memory = vcpus // cells, memory_mib // cells
    taking = sum(1 for cell in host["cells"] if cell_takes(cell, kind, policy, per_vcpus, per_memory))
    return taking >= cells


# Sizes as streams.jsonl has them (STREAMS.md says only "1-16 vCPUs, 1-64 GiB"): vCPUs from the
# usual flavor sizes, memory four times in five from them (GiB) and otherwise any whole GiB. The
# weights are the file's own counts (less the even background for memory), per guest cell count.
VCPUS = {1: ([1, 2, 4, 6, 8, 12, 16], [463, 727, 989, 258, 603, 190, 130]),
         2: ([2, 4, 6, 8, 12, 16], [470, 408, 89, 304, 89, 80])}
MEMORY_GIB = {1: ([1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64], [79, 185, 443, 45, 579, 62, 572, 127, 355, 93, 168]),
              2: ([2, 4, 6, 8, 12, 16, 24, 32, 48, 64], [117, 150, 25, 236, 26, 253, 47, 174, 41, 97])}


def draw_size(rng, cells):
    vcpus = rng.choices(*VCPUS[cells])[0]
    if rng.random() < 0.8:
        memory_gib = rng.choices(*MEMORY_GIB[cells])[0]
    else:
        memory_gib = rng.randrange(cells, 65, cells)
    return vcpus, memory_gib * 1024


def draw_request(host, kind, cells, rng):
    while True:
        vcpus, memory_mib = draw_size(rng, cells)
        specs = {}
        policy = None
        if kind == "dedicated":
            specs["hw:cpu_policy"] = "dedicated"
            policy = rng.choice(["isolate", "require", None, None])
            if policy:
                specs["hw:cpu_thread_policy"] = policy
            if cells == 2:
                specs["hw:numa_nodes"] = "2"
        elif kind == "large":
            specs["hw:mem_page_size"] = "large"
        else:
            specs["hw:numa_nodes"] = str(cells)
        if fits_empty(host, kind, cells, policy, vcpus, memory_mib):
            return {"flavor": {"vcpus": vcpus, "memory_mib": memory_mib, "extra_specs": specs},
                    "image": {"properties": {}}, "pci": []}


def nova_figures(numaplace, streams, strategy):
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl") as out:
        for stream in streams:
            out.write(json.dumps(stream) + "\n")
        out.flush()
        # The placeholder figures differ from the replay's, so it reports differences and exits 1.
        run = subprocess.run([numaplace, "replay", out.name, "--strategy", strategy, "--json"],
                             capture_output=True, text=True)
    rows = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    if len(rows) != len(streams):
        raise SystemExit(f"numaplace-dev replay --strategy {strategy} failed: {run.stderr}")
    return {row["id"]: row for row in rows}


def main():
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    numaplace, source, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    templates = {}
    for line in open(source):
        stream = json.loads(line)
        templates.setdefault(stream["shape"], stream["host"])
    rng = random.Random(seed)
    streams = []
    for index in range(count):
        shape = SHAPES[index % 4]
        host = draw_host(templates[shape], index, rng)
        kinds = [(kind, cells) for kind, cells, n in MIX for _ in range(n)]
        rng.shuffle(kinds)
        requests = [draw_request(host, kind, cells, rng) for kind, cells in kinds]
        placeholder = {"admitted_before_first_refusal": 0, "admitted_total": 0, "mean_intercell_distance": None,
                       "multi_cell_admitted": 0, "trace": []}
        streams.append({"id": f"fresh-{seed}-{index:03d}", "shape": shape, "host": host, "requests": requests,
                        "nova": {"spread": dict(placeholder), "pack": dict(placeholder)},
                        "nova_version": "numaplace-dev replay --strategy nova / nova-pack (reproduces Nova 26.2.2)"})
    for run, strategy in (("spread", "nova"), ("pack", "nova-pack")):
        figures = nova_figures(numaplace, streams, strategy)
        for stream in streams:
            row = figures[stream["id"]]
            stream["nova"][run].update({key: row[key] for key in
                                        ("admitted_before_first_refusal", "admitted_total", "mean_intercell_distance")})
    for stream in streams:
        print(json.dumps(stream))


if __name__ == "__main__":
    main()
