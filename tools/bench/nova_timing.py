#!/usr/bin/env python3
"""Time Nova's own numa_fit_instance_to_host on the fit benchmark's cases.

Not run in CI. Needs Debian's python3-nova (apt-get install python3-nova), which
provides nova.virt.hardware and nova.objects. Builds the same shapes as
tools/bench/fit_bench.cpp (BM_Fit): host cells of 8 cores x 2 threads, 64 GiB with
60 GiB of 4 KiB pages and four 1 GiB pages; guest cells of 4 vCPUs and 4 GiB;
shared, or dedicated with thread policy require; empty, or near-full (the cells Nova
tries first cannot take a guest cell). Prints one row per case: Nova's median time,
and numaplace's from a Google Benchmark JSON file when given:

  build/numaplace_bench --benchmark_filter=BM_Fit/ --benchmark_format=json > fit.json
  python3 tools/bench/nova_timing.py --numaplace fit.json [--repeat 5] [--max-seconds 60]

Cases Nova takes longer than --max-seconds for are cut off after one run (shown as '>').
"""
import argparse
import json
import statistics
import sys
import time

KIB_PER_GIB = 1024 * 1024
CORES = 8


def import_nova():
    try:
        from nova import objects
        from nova.objects import fields
        from nova.virt import hardware
    except ImportError as error:
        sys.exit(f"nova_timing: cannot import nova ({error}); install Debian's python3-nova")
    objects.register_all()
    return objects, fields, hardware


def host_cell(objects, fields, i, dedicated, near_full, full_cells):
    base = i * 2 * CORES
    cpus = set(range(base, base + 2 * CORES))
    siblings = [{base + c, base + CORES + c} for c in range(CORES)]
    pinned = set()
    cpu_usage = 0
    memory_usage = 0  # MiB
    if near_full:
        if dedicated:
            if i < full_cells:
                pinned = {base + c for c in range(CORES)}  # one lone thread per core free
            else:
                pinned = {base + c for c in range(5)} | {base + CORES + c for c in range(5)}
        elif i < full_cells:
            memory_usage = 95 * 1024
        else:
            cpu_usage = 200
            memory_usage = 32 * 1024
    return objects.NUMACell(
        id=i,
        cpuset=set() if dedicated else cpus,
        pcpuset=cpus if dedicated else set(),
        memory=64 * 1024,
        cpu_usage=cpu_usage,
        memory_usage=memory_usage,
        pinned_cpus=pinned,
        siblings=siblings,
        mempages=[
            objects.NUMAPagesTopology(size_kb=4, total=(60 * KIB_PER_GIB) // 4, used=0),
            objects.NUMAPagesTopology(size_kb=1048576, total=4, used=0),
        ],
        network_metadata=objects.NetworkMetadata(physnets=set(), tunneled=False),
        socket=0,
    )


def make_host(objects, fields, hosts, guests, dedicated, near_full):
    cells = [host_cell(objects, fields, i, dedicated, near_full, hosts - guests) for i in range(hosts)]
    return objects.NUMATopology(cells=cells)


def make_guest(objects, fields, guests, dedicated):
    cells = []
    for i in range(guests):
        cpus = set(range(4 * i, 4 * i + 4))
        cell = objects.InstanceNUMACell(
            id=i,
            cpuset=set() if dedicated else cpus,
            pcpuset=cpus if dedicated else set(),
            memory=4 * 1024,
            cpu_policy=fields.CPUAllocationPolicy.DEDICATED if dedicated else None,
            cpu_thread_policy=fields.CPUThreadAllocationPolicy.REQUIRE if dedicated else None,
        )
        cells.append(cell)
    return objects.InstanceNUMATopology(cells=cells)


def numaplace_times(path):
    if not path:
        return {}
    with open(path) as f:
        doc = json.load(f)
    times = {}
    for b in doc.get("benchmarks", []):
        name = b["name"]
        if not name.startswith("BM_Fit/"):
            continue
        unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
        times[name] = b["real_time"] * unit
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--numaplace", help="Google Benchmark JSON of numaplace_bench --benchmark_filter=BM_Fit/")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--max-seconds", type=float, default=60.0)
    args = parser.parse_args()
    objects, fields, hardware = import_nova()
    ours = numaplace_times(args.numaplace)

    print(f"{'case':<48} {'nova s':>12} {'numaplace s':>12} {'ratio':>10}")
    for dedicated in (0, 1):
        for near_full in (0, 1):
            for hosts in (2, 4, 8, 16):
                for guests in (1, 2, 4, 8):
                    if guests > hosts:
                        continue
                    host = make_host(objects, fields, hosts, guests, dedicated, near_full)
                    guest = make_guest(objects, fields, guests, dedicated)
                    runs = []
                    cut = False
                    for _ in range(args.repeat):
                        start = time.perf_counter()
                        fitted = hardware.numa_fit_instance_to_host(host, guest)
                        runs.append(time.perf_counter() - start)
                        if runs[-1] > args.max_seconds:
                            cut = True
                            break
                    nova_s = statistics.median(runs)
                    name = f"BM_Fit/hosts:{hosts}/guests:{guests}/dedicated:{dedicated}/near_full:{near_full}"
                    mine = ours.get(name)
                    label = f"{hosts}x{guests} {'dedicated' if dedicated else 'shared'} {'near-full' if near_full else 'empty'}"
                    label += "" if fitted else " (no fit)"
                    ratio = f"{nova_s / mine:,.0f}x" if mine else "-"
                    print(f"{label:<48} {('>' if cut else '') + format(nova_s, '.6f'):>12} "
                          f"{format(mine, '.7f') if mine else '-':>12} {ratio:>10}", flush=True)


if __name__ == "__main__":
    main()
