#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""An upper bound on what any scheduler can admit in total on a fleet (make_fleet.py's files).

Whatever the order, the hosts or the cells chosen, the guests a fleet holds at the end fit its
pooled resources: their memory within the fleet's memory x RAM ratio, a pinned guest's memory
within physical memory (a pinned cell may not overcommit), their pCPUs (dedicated vCPUs, shared
vCPUs over the CPU ratio) within the fleet's CPUs. A guest that once was admitted stays, so the
total admitted is at most the largest set of requests within those pools. Any weighted sum of
the pool constraints holds too, and the most requests within one sum is its smallest items
first; the bound is the least of those counts over a grid of weights. It ignores cells, hosts,
pages and order, so it is loose: a fleet may admit far less, never more.

  tools/bench/fleet_bound.py tests/conformance/nova-fleet-100.json
"""
import json
import sys


def pinned(request):
    specs = request["flavor"].get("extra_specs", {})
    props = request["image"].get("properties", {})
    return specs.get("hw:cpu_policy", props.get("hw_cpu_policy", "shared")) in ("dedicated", "mixed")


def costs(fleet):
    """The pools (memory x ratio, physical memory, CPUs) and each request's take of each."""
    memory = physical = cpus = 0.0
    for entry in fleet["hosts"]:
        host = entry["host"]
        ratio = host.get("allocation_ratio") or {}
        for cell in host["cells"]:
            memory += cell["memory_mib"] * max(1.0, ratio.get("ram", 1.5) or 1.0)
            physical += cell["memory_mib"]
            cpus += len(cell["cpus"])
    takes = []
    for request in fleet["requests"]:
        flavor = request["flavor"]
        is_pinned = pinned(request)
        # A mixed guest pins at least one vCPU; counting one keeps the bound an upper bound.
        dedicated = flavor["vcpus"] if flavor.get("extra_specs", {}).get("hw:cpu_policy") == "dedicated" else (
            1 if is_pinned else 0)
        cpu = dedicated + (flavor["vcpus"] - dedicated) / 16.0
        takes.append((flavor["memory_mib"] / memory, flavor["memory_mib"] / physical if is_pinned else 0.0,
                      cpu / cpus))
    return takes


def most_within(weights):
    total, count = 0.0, 0
    for weight in sorted(weights):
        if total + weight > 1.0 + 1e-12:
            break
        total += weight
        count += 1
    return count


def bound(fleet, steps=20):
    takes = costs(fleet)
    best = len(takes)
    for i in range(steps + 1):
        for j in range(steps + 1 - i):
            a, b = i / steps, j / steps
            c = 1.0 - a - b
            best = min(best, most_within([a * m + b * p + c * u for m, p, u in takes]))
    return best


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        fleet = json.load(f)
    found = bound(fleet)
    line = f"{len(fleet['requests'])} requests on {len(fleet['hosts'])} hosts: at most {found} admitted in total"
    if "nova" in fleet:
        nova = fleet["nova"]["admitted_total"]
        line += f" ({found / nova:.3f} x Nova's {nova})"
    print(line)


if __name__ == "__main__":
    main()
