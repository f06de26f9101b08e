#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Times a 2-cell fit from Python: numaplace's fast fit API (numaplace.Host.fit on a host and a
request built once) against Nova's own numa_fit_instance_to_host on the same host and request, in
the same process, and numaplace.nova's drop-in (Nova objects in and out) as well. Prints the
median microseconds per call of each and the ratios.

  NUMAPLACE_LIBRARY=build/libnumaplace.so PYTHONPATH=build/python \
    /usr/bin/python3 tools/bench/fit_api.py [--calls 20000] [--rounds 7] [--dedicated]

The host is tools/bench/fit_api_bench.cpp's: 2 cells of 8 cores x 2 threads, 64 GiB of 4 KiB
pages each, allocation ratios 16 (CPU) and 1.5 (RAM); the guest has 8 vCPUs and 8 GiB over
hw:numa_nodes=2 (with --dedicated: hw:cpu_policy=dedicated). Nova needs Debian's python3-nova
(run with /usr/bin/python3); without it only numaplace's figure is printed. Nova fits onto the
instance cells it is given, so each of its calls gets a fresh copy (obj_clone, not timed); the
numaplace figure includes the ctypes call and json.loads of the answer. Goal: <= 10 us per call.
"""
import argparse
import statistics
import sys
import time

import numaplace


def host_dict():
    cells = []
    for c in range(2):
        cpus = list(range(c * 16, c * 16 + 16))
        cells.append({"id": c, "cpus": cpus, "siblings": [cpus[i:i + 2] for i in range(0, 16, 2)],
                      "memory_mib": 65536, "pages": [{"size_kib": 4, "total": 65536 * 256, "used": 0}],
                      "usage": {"shared_cpus": 0, "pinned_cpus": [], "memory_mib": 0}})
    return {"cells": cells, "allocation_ratio": {"cpu": 16.0, "ram": 1.5}}


def extra_specs(dedicated):
    specs = {"hw:numa_nodes": "2"}
    if dedicated:
        specs["hw:cpu_policy"] = "dedicated"
    return specs


def median_us_batched(call, calls, rounds):
    """Median over `rounds` of the mean time of `calls` back-to-back calls, in microseconds."""
    figures = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        figures.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(figures)


def median_us_fresh(make, call, calls, rounds):
    """As median_us_batched, but every call gets make()'s fresh argument, made outside the clock."""
    figures = []
    for _ in range(rounds):
        total = 0.0
        for _ in range(calls):
            arg = make()
            start = time.perf_counter()
            call(arg)
            total += time.perf_counter() - start
        figures.append(total / calls * 1e6)
    return statistics.median(figures)


def nova_objects(host, dedicated):
    from nova import objects
    from nova.virt import hardware
    objects.register_all()
    cells = []
    for c in host["cells"]:
        cells.append(objects.NUMACell(
            id=c["id"], cpuset=set(c["cpus"]), pcpuset=set(c["cpus"]), memory=c["memory_mib"],
            cpu_usage=0, memory_usage=0, pinned_cpus=set(), siblings=[set(s) for s in c["siblings"]],
            mempages=[objects.NUMAPagesTopology(size_kb=p["size_kib"], total=p["total"], used=p["used"])
                      for p in c["pages"]],
            socket=c["id"]))
    host_topology = objects.NUMATopology(cells=cells)
    flavor = objects.Flavor(vcpus=8, memory_mb=8192, extra_specs=extra_specs(dedicated), root_gb=1,
                            ephemeral_gb=0, swap=0)
    image = objects.ImageMeta.from_dict({"properties": {}})
    instance_topology = hardware.numa_get_constraints(flavor, image)
    limits = objects.NUMATopologyLimits(cpu_allocation_ratio=host["allocation_ratio"]["cpu"],
                                        ram_allocation_ratio=host["allocation_ratio"]["ram"])
    return hardware, host_topology, instance_topology, limits


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20000, help="calls per round for numaplace (Nova: a tenth)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--dedicated", action="store_true", help="hw:cpu_policy=dedicated")
    args = parser.parse_args()

    host_spec = host_dict()
    host = numaplace.Host(host_spec)
    request = numaplace.Request(vcpus=8, memory_mib=8192, flavor=extra_specs(args.dedicated))
    nova_order = {"strategy": "nova"}  # the same question Nova answers: its first fit
    answer = host.fit(request, nova_order)
    if answer["kind"] != "fit" or [c["host_cell"] for c in answer["cells"]] != [0, 1]:
        sys.exit(f"numaplace's answer is not the expected fit on cells 0 and 1: {answer}")
    ours = median_us_batched(lambda: host.fit(request, nova_order), args.calls, args.rounds)
    kind = "dedicated" if args.dedicated else "shared"
    print(f"2-cell {kind} guest on a 2-cell host, median of {args.rounds} rounds")
    print(f"numaplace Host.fit (fast API, host and request built once): {ours:8.2f} us per call")

    try:
        hardware, host_topology, instance_topology, limits = nova_objects(host_spec, args.dedicated)
    except ImportError as exc:
        print(f"Nova not importable ({exc}); run with /usr/bin/python3 and python3-nova for the baseline")
        return
    from numaplace import nova as npnova
    nova_calls = max(1, args.calls // 10)
    fitted = hardware.numa_fit_instance_to_host(host_topology, instance_topology.obj_clone(), limits=limits)
    if fitted is None or [c.id for c in fitted.cells] != [0, 1]:
        sys.exit(f"Nova's answer is not the expected fit on cells 0 and 1: {fitted}")
    theirs = median_us_fresh(instance_topology.obj_clone,
                             lambda t: hardware.numa_fit_instance_to_host(host_topology, t, limits=limits),
                             nova_calls, args.rounds)
    drop_in = median_us_fresh(instance_topology.obj_clone,
                              lambda t: npnova.numa_fit_instance_to_host(host_topology, t, limits=limits),
                              nova_calls, args.rounds)
    print(f"Nova numa_fit_instance_to_host:                              {theirs:8.2f} us per call")
    print(f"numaplace.nova.numa_fit_instance_to_host (Nova objects):     {drop_in:8.2f} us per call")
    print(f"ratio Nova / numaplace fast API: {theirs / ours:.1f}x; Nova / drop-in: {theirs / drop_in:.1f}x")
    print(f"goal <= 10 us per call from Python: {'met' if ours <= 10 else 'NOT met'} ({ours:.2f} us)")


if __name__ == "__main__":
    main()
