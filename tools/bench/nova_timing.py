#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Time Nova's own numa_fit_instance_to_host on the fit benchmark's cases.

Not run in CI. Needs Debian's python3-nova (apt-get install python3-nova), which
provides nova.virt.hardware and nova.objects. Builds the same shapes as
tools/bench/fit_bench.cpp (BM_Fit): host cells of 8 cores x 2 threads, 64 GiB with
60 GiB of 4 KiB pages and four 1 GiB pages; guest cells of 4 vCPUs and 4 GiB;
shared, or dedicated with thread policy require; empty, or near-full (the cells Nova
tries first cannot take a guest cell). Prints one row per case: Nova's median time,
and numaplace's from a Google Benchmark JSON file when given:

  build/numaplace_bench --benchmark_filter=BM_Fit/ --benchmark_format=json > fit.json
  /usr/bin/python3 tools/bench/nova_timing.py --numaplace fit.json [--repeat 5] [--max-seconds 60]

Run it with Debian's interpreter (/usr/bin/python3): python3-nova lives in
/usr/lib/python3/dist-packages, which a pyenv or venv python3 does not see.

Nova gets numaplace's defaults: NUMATopologyLimits with cpu_allocation_ratio 16 and
ram_allocation_ratio 1.5 (HostTopology's AllocationRatio; without limits Nova skips the
shared CPU and RAM limits that make the near-full shared cells full) and
[compute] packing_host_numa_cells_allocation_strategy = False (FitOptions'
pack_host_cells). Host and guest objects are built afresh before every run, outside the
timed region (Nova pins and renumbers the guest cells it is given in place); numaplace's
figure likewise excludes building its topologies. Each answer is checked against what
the shape should give: guest cell i on host cell (cells - guest cells) + i when near-full
(on cell i when empty), and for dedicated cells a pinning onto free whole cores; a row
that disagrees says so.

A run Nova takes longer than --max-seconds for is interrupted (SIGALRM) and shown as
'> N'; the case is not repeated.
"""
import argparse
import json
import signal
import statistics
import sys
import time

KIB_PER_GIB = 1024 * 1024
CORES = 8


def import_nova():
    try:
        import nova.conf
        from nova import objects
        from nova.objects import fields
        from nova.virt import hardware
    except ImportError as error:
        sys.exit(f"nova_timing: cannot import nova ({error}); install Debian's python3-nova "
                 f"and run this with /usr/bin/python3 (this is {sys.executable})")
    objects.register_all()
    # numaplace's FitOptions::pack_host_cells default (also Nova's own default).
    nova.conf.CONF.set_override("packing_host_numa_cells_allocation_strategy", False, group="compute")
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


def make_limits(objects):
    # numaplace's AllocationRatio defaults (Nova's default ratios).
    return objects.NUMATopologyLimits(cpu_allocation_ratio=16.0, ram_allocation_ratio=1.5)


def expected_cells(hosts, guests, near_full):
    full = hosts - guests if near_full else 0
    return [full + i for i in range(guests)]


def check_answer(fitted, host, hosts, guests, dedicated, near_full):
    """None when Nova's answer is what the shape should give, else what is wrong."""
    if fitted is None:
        return "no fit"
    got = [cell.id for cell in fitted.cells]
    want = expected_cells(hosts, guests, near_full)
    if got != want:
        return f"host cells {got}, expected {want}"
    if dedicated:
        by_id = {cell.id: cell for cell in host.cells}
        for cell in fitted.cells:
            hcell = by_id[cell.id]
            pinned = set(cell.cpu_pinning.values())
            if len(pinned) != len(cell.pcpuset) or not pinned <= hcell.free_pcpus:
                return f"cell {cell.id}: pinning {cell.cpu_pinning} not onto free pCPUs"
            if any(pinned & sib and not sib <= pinned for sib in hcell.siblings):
                return f"cell {cell.id}: pinning {cell.cpu_pinning} not onto whole cores (require)"
    return None


class NovaTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise NovaTimeout()


def time_nova(hardware, build, limits, max_seconds):
    """(seconds, answer, host) of one numa_fit_instance_to_host call; seconds None when cut off."""
    host, guest = build()  # fresh objects: Nova pins and renumbers guest cells in place
    signal.setitimer(signal.ITIMER_REAL, max_seconds)
    try:
        start = time.perf_counter()
        fitted = hardware.numa_fit_instance_to_host(host, guest, limits)
        elapsed = time.perf_counter() - start
    except NovaTimeout:
        return None, None, host
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return elapsed, fitted, host


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
    limits = make_limits(objects)
    signal.signal(signal.SIGALRM, _alarm)
    mismatches = 0

    print(f"{'case':<48} {'nova s':>12} {'numaplace s':>12} {'ratio':>13}  nova answer")
    for dedicated in (0, 1):
        for near_full in (0, 1):
            for hosts in (2, 4, 8, 16):
                for guests in (1, 2, 4, 8):
                    if guests > hosts:
                        continue

                    def build():
                        return (make_host(objects, fields, hosts, guests, dedicated, near_full),
                                make_guest(objects, fields, guests, dedicated))

                    runs = []
                    cut = False
                    problem = None
                    answer = "-"
                    for _ in range(args.repeat):
                        elapsed, fitted, host = time_nova(hardware, build, limits, args.max_seconds)
                        if elapsed is None:
                            cut = True
                            break
                        runs.append(elapsed)
                        problem = check_answer(fitted, host, hosts, guests, dedicated, near_full)
                        answer = ("cells " + ",".join(str(c.id) for c in fitted.cells)) if fitted else "no fit"
                        if problem:
                            break
                    name = f"BM_Fit/hosts:{hosts}/guests:{guests}/dedicated:{dedicated}/near_full:{near_full}"
                    mine = ours.get(name)
                    label = f"{hosts}x{guests} {'dedicated' if dedicated else 'shared'} {'near-full' if near_full else 'empty'}"
                    if cut:
                        nova_text = f"> {args.max_seconds:g}"
                        ratio = f"> {args.max_seconds / mine:,.0f}x" if mine else "-"
                        answer = "cut off, not checked"
                    else:
                        nova_s = statistics.median(runs)
                        nova_text = format(nova_s, ".6f")
                        ratio = f"{nova_s / mine:,.0f}x" if mine else "-"
                    if problem:
                        mismatches += 1
                        answer += f"  MISMATCH: {problem}"
                    print(f"{label:<48} {nova_text:>12} "
                          f"{format(mine, '.7f') if mine else '-':>12} {ratio:>13}  {answer}", flush=True)
    if mismatches:
        print(f"nova_timing: {mismatches} case(s) where Nova's answer differs from the shape's", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
