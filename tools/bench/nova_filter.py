#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Nova's NUMATopologyFilter and numaplace.nova.NUMAPlaceFilter side by side, in one Python process,
over the same 1,000 hosts for one request: both filters' filter_all over Nova's own HostState
objects, the hosts each passes compared (any disagreement is printed and the exit status is 1),
and the seconds per pass of each with the ratio, for

  - the process's first pass, over another 1,000 hosts (drawn with seed + 1000) that are then
    dropped: both filters' first use in the process (their modules' first calls, the heap grown
    for the first time: about 500 page faults for numaplace's kept words and entries),
  - the first pass over the measured hosts (numaplace's caches cold for them: every host converted
    and read by the library, every PCI pool list written as text), in a process that has run a
    pass before, as a scheduler that has been running has,
  - the steady state over the same, unchanged hosts (median of --rounds passes): the same request
    again (as Nova asks it again for each instance of a multi-instance boot; numaplace's answers
    are kept per host and request), and a new request each pass (8 vCPUs with 512 MiB more
    memory each time: no answer kept, every host fitted again),
  - a pass after --changed of the hosts had their usage changed in place (those hosts converted
    again; the rest from the cache),

for a shared and a dedicated guest of 8 vCPUs and 8 GiB over hw:numa_nodes=2. The time is the
process's CPU time (time.process_time) by default, which other work on the machine disturbs far
less than the wall clock; --clock wall for the wall clock.

  NUMAPLACE_LIBRARY=build/libnumaplace.so PYTHONPATH=build/python \\
    /usr/bin/python3 tools/bench/nova_filter.py [--hosts 1000] [--rounds 3] [--seed 1] [--changed 0.1] [--networks]

--cells-in-python makes numaplace.nova read Nova's cells in Python (as the pip wheel does), not
with numaplace._cellwords (built with the library where python3-dev is installed).

--networks gives the requests network NUMA affinity (physnet0, close to the first cell of every
other host), so both filters check it (numaplace's keeps its hosts with their networks for it).

The hosts are tools/conformance/nova_differential.py's random hosts (random_host, with the one-cell
draws drawn again: 2 to 16 cells, SMT or not, shared and dedicated CPU sets, huge page pools, PCI
pools, random usage and allocation ratios), made into Nova's objects by its build_host and
build_pci_stats and set on nova.scheduler.host_manager.HostState. Nova's filter runs unpatched
(nova.virt.hardware is Nova's own). Needs Debian's python3-nova (run with /usr/bin/python3);
exit 77 without it. Goal (issue 21): numaplace >= 20x faster.
"""
import argparse
import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "conformance"))


CPU_TIME = False


def make_hosts(nd, count, seed):
    from nova.scheduler import host_manager
    rng = random.Random(seed)
    states = []
    cells = []
    while len(states) < count:
        host = nd.random_multicell_host(rng)
        topology = nd.build_host(host)
        state = host_manager.HostState(f"host{len(states)}", f"node{len(states)}", "cell1")
        state.numa_topology = topology
        state.pci_stats = nd.build_pci_stats(host, topology)
        state.cpu_allocation_ratio = host["allocation_ratio"]["cpu"]
        state.ram_allocation_ratio = host["allocation_ratio"]["ram"]
        states.append(state)
        cells.append(len(host["cells"]))
    return states, cells


NETWORKS = False  # --networks: physnet0 close to some hosts' first cell, and asked by every request


def make_spec(nova, dedicated, memory_mib=8192):
    objects, hardware = nova["objects"], nova["hardware"]
    specs = {"hw:numa_nodes": "2"}
    if dedicated:
        specs["hw:cpu_policy"] = "dedicated"
    flavor = objects.Flavor(vcpus=8, memory_mb=memory_mib, extra_specs=specs, name="f", flavorid="f", root_gb=0,
                            ephemeral_gb=0, swap=0)
    image = objects.ImageMeta.from_dict({"properties": {}})
    spec = objects.RequestSpec(flavor=flavor, image=image, numa_topology=hardware.numa_get_constraints(flavor, image),
                               pci_requests=objects.InstancePCIRequests(requests=[]),
                               instance_uuid="4f6c5ab0-5c4e-4e4a-9a43-2f1a1f5d0001")
    if NETWORKS:
        spec.network_metadata = objects.NetworkMetadata(physnets={"physnet0"}, tunneled=False)
    return spec


def add_networks(nova, hosts):
    """--networks: physnet0 close to the first cell of every other host (the rest name none)."""
    for i, state in enumerate(hosts):
        if i % 2 == 0:
            state.numa_topology.cells[0].network_metadata = nova["objects"].NetworkMetadata(
                physnets={"physnet0"}, tunneled=False)


def one_pass(flt, hosts, spec):
    for host in hosts:
        host.limits.pop("numa_topology", None)
    clock = time.process_time if CPU_TIME else time.perf_counter
    start = clock()
    passed = list(flt.filter_all(hosts, spec))
    seconds = clock() - start
    return seconds, {h.host for h in passed}, {h.host: h.limits.get("numa_topology") for h in passed}


def compare(what, hosts, nova_passed, ours_passed, nova_limits, ours_limits):
    bad = 0
    for host in hosts:
        a, b = host.host in nova_passed, host.host in ours_passed
        if a != b:
            bad += 1
            print(f"DISAGREE {what}: {host.host} ({len(host.numa_topology.cells)} cells): "
                  f"Nova {'passes' if a else 'refuses'} it, numaplace {'passes' if b else 'refuses'} it")
        elif a:
            x, y = nova_limits[host.host], ours_limits[host.host]
            if (x.cpu_allocation_ratio, x.ram_allocation_ratio) != (y.cpu_allocation_ratio, y.ram_allocation_ratio):
                bad += 1
                print(f"DISAGREE {what}: {host.host}: limits {x} (Nova) against {y} (numaplace)")
    return bad


def change_in_place(rng, hosts, share):
    """Usage changed in place on `share` of the hosts, as a claim would: a free pCPU pinned, or
    memory and floating vCPU load added, on one cell (the objects kept, their fields set)."""
    changed = rng.sample(hosts, int(len(hosts) * share))
    for state in changed:
        cell = rng.choice(state.numa_topology.cells)
        free = sorted(cell.pcpuset - cell.pinned_cpus)
        if free and rng.random() < 0.5:
            cell.pinned_cpus = cell.pinned_cpus | {rng.choice(free)}
        else:
            cell.memory_usage = cell.memory_usage + rng.choice([1024, 4096, 16384])
            cell.cpu_usage = cell.cpu_usage + rng.choice([1, 4, 8])
    return len(changed)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hosts", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3, help="steady-state passes of each filter (median)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--changed", type=float, default=0.1, help="share of hosts changed before the last pass")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="the process's CPU time (default: steady on a loaded machine) or wall-clock time")
    ap.add_argument("--no-weigher", action="store_true", help="leave out the weighers' comparison")
    ap.add_argument("--networks", action="store_true",
                    help="network NUMA affinity: physnet0 close to the first cell of every other host, "
                         "and every request asks to be close to physnet0")
    ap.add_argument("--cells-in-python", action="store_true",
                    help="numaplace.nova reads Nova's cells in Python (host_inputs), as the pip wheel's "
                         "package does, not with its C reader numaplace._cellwords")
    args = ap.parse_args()
    global CPU_TIME, NETWORKS
    CPU_TIME = args.clock == "cpu"
    NETWORKS = args.networks
    try:
        import nova_differential as nd
        nova = nd.nova()
        from nova.scheduler.filters import numa_topology_filter
    except (ImportError, SystemExit) as exc:
        print(f"SKIP: Nova cannot be imported ({exc})")
        return 77
    import numaplace
    from numaplace import nova as npnova
    numaplace.library_version()  # the library loaded before the clock starts
    if args.cells_in_python:
        npnova._cellwords = None
    reader = "C (numaplace._cellwords)" if npnova._cellwords is not None else "Python (host_inputs)"

    # the process's first pass, on hosts that are then dropped (the row "process's first pass")
    # (a guest of 4 GiB, so that the measured passes' requests are new to the process)
    others, _ = make_hosts(nd, args.hosts, args.seed + 1000)
    if args.networks:
        add_networks(nova, others)
    first_spec = make_spec(nova, False, 4096)
    npnova._pci_texts.clear()
    npnova._pool_texts.clear()
    theirs_first = one_pass(numa_topology_filter.NUMATopologyFilter(), others, first_spec)
    ours_first = one_pass(npnova.NUMAPlaceFilter(), others, first_spec)
    bad = compare("the process's first pass", others, theirs_first[1], ours_first[1], theirs_first[2], ours_first[2])
    del others
    hosts, cells = make_hosts(nd, args.hosts, args.seed)
    if args.networks:
        add_networks(nova, hosts)
    print(f"{len(hosts)} hosts of {min(cells)} to {max(cells)} cells (mean {statistics.mean(cells):.1f}), "
          f"seed {args.seed}; Nova {nova_version()}; {args.clock} time per pass; cells read in {reader}")
    print(f"\nthe process's first pass, over {args.hosts} other hosts (seed {args.seed + 1000}; a shared guest of "
          f"4 GiB): Nova {theirs_first[0] * 1e3:.1f} ms, numaplace {ours_first[0] * 1e3:.1f} ms, "
          f"{theirs_first[0] / ours_first[0]:.1f}x")
    rng = random.Random(args.seed + 1)
    for dedicated in (False, True):
        name = "dedicated" if dedicated else "shared"
        spec = make_spec(nova, dedicated)
        theirs, ours = numa_topology_filter.NUMATopologyFilter(), npnova.NUMAPlaceFilter()
        rows = []
        # the first pass: numaplace's cache is empty for this guest's hosts only on the first guest;
        # for the second guest the hosts are cached, so the cold figure is taken again on fresh
        # host states (the same topologies, new HostState objects: nothing cached for them), and
        # the PCI texts kept by pool and pool list are dropped, as in a process that just started
        if dedicated:
            hosts = [rebuilt(h) for h in hosts]
        npnova._pci_texts.clear()
        npnova._pool_texts.clear()
        nova_s, nova_p, nova_l = one_pass(theirs, hosts, spec)
        ours_s, ours_p, ours_l = one_pass(ours, hosts, spec)
        bad += compare(f"{name}, first pass", hosts, nova_p, ours_p, nova_l, ours_l)
        rows.append(("first pass (numaplace cache cold)", nova_s, ours_s, len(nova_p)))
        for fresh in (False, True):
            nova_t, ours_t = [], []
            for k in range(args.rounds):
                # a new request: the same guest with 512 MiB more memory each pass (its answers uncached)
                asked = make_spec(nova, dedicated, 8192 + 512 * (k + 1)) if fresh else spec
                nova_s, nova_p, nova_l = one_pass(theirs, hosts, asked)
                ours_s, ours_p, ours_l = one_pass(ours, hosts, asked)
                nova_t.append(nova_s)
                ours_t.append(ours_s)
                bad += compare(f"{name}, steady state", hosts, nova_p, ours_p, nova_l, ours_l)
            what = "a new request each pass" if fresh else "the same request again"
            rows.append((f"{what} (median of {args.rounds})", statistics.median(nova_t),
                         statistics.median(ours_t), len(nova_p)))
        n_changed = change_in_place(rng, hosts, args.changed)
        nova_s, nova_p, nova_l = one_pass(theirs, hosts, spec)
        ours_s, ours_p, ours_l = one_pass(ours, hosts, spec)
        bad += compare(f"{name}, after changes", hosts, nova_p, ours_p, nova_l, ours_l)
        rows.append((f"after {n_changed} hosts changed in place", nova_s, ours_s, len(nova_p)))
        print(f"\n{name} guest (8 vCPUs, 8 GiB, hw:numa_nodes=2{', hw:cpu_policy=dedicated' if dedicated else ''}):")
        print(f"  {'pass':<40} {'hosts passed':>12} {'Nova ms':>10} {'numaplace ms':>13} {'ratio':>7}")
        for what, nova_s, ours_s, n in rows:
            print(f"  {what:<40} {n:>12} {nova_s * 1e3:>10.1f} {ours_s * 1e3:>13.1f} {nova_s / ours_s:>6.1f}x")
    if not args.no_weigher:
        weigh(nova, npnova, hosts, args.rounds)
    if bad:
        print(f"\nFAIL: {bad} disagreements between NUMATopologyFilter and NUMAPlaceFilter")
        return 1
    print("\nBoth filters passed the same hosts with the same limits in every pass.")
    return 0


def weigh(nova, npnova, hosts, rounds):
    """Nova's RAMWeigher and NUMAPlaceWeigher, weigh_objects over the same hosts (the last guest's
    host states, after its changes): the first pass (the weigher's hosts not yet kept), the same
    request again and a new request each pass (medians of `rounds`). They weigh different things
    (free RAM; the room the guest leaves on its NUMA cells), so only their times are compared."""
    from nova.scheduler.weights import ram
    from nova.scheduler import weights as nova_weights
    clock = time.process_time if CPU_TIME else time.perf_counter
    weighed = [nova_weights.WeighedHost(h, 0.0) for h in hosts]

    def timed(weigher, spec):
        start = clock()
        weigher.weigh_objects(weighed, spec)
        return clock() - start

    print("\nweighers, weigh_objects over the same hosts (Nova's RAMWeigher weighs free RAM: the ratio is of times only):")
    print(f"  {'pass':<40} {'guest':>9} {'RAMWeigher ms':>14} {'NUMAPlaceWeigher ms':>20} {'NUMAPlace/RAM':>14}")
    for dedicated in (False, True):
        theirs, ours = ram.RAMWeigher(), npnova.NUMAPlaceWeigher()
        spec = make_spec(nova, dedicated)
        rows = [("first pass (numaplace cache cold)", timed(theirs, spec), timed(ours, spec))]
        again = [(timed(theirs, spec), timed(ours, spec)) for _ in range(rounds)]
        rows.append((f"the same request again (median of {rounds})", statistics.median(a for a, _ in again),
                     statistics.median(b for _, b in again)))
        new = []
        for k in range(rounds):
            asked = make_spec(nova, dedicated, 8192 + 256 * (k + 1))
            new.append((timed(theirs, asked), timed(ours, asked)))
        rows.append((f"a new request each pass (median of {rounds})", statistics.median(a for a, _ in new),
                     statistics.median(b for _, b in new)))
        for what, a, b in rows:
            print(f"  {what:<40} {'dedicated' if dedicated else 'shared':>9} {a * 1e3:>14.1f} {b * 1e3:>20.1f} "
                  f"{b / a:>13.0f}x")


def rebuilt(state):
    """A new HostState holding the same topology (copied), PCI pools and ratios."""
    from nova.scheduler import host_manager
    from nova.pci import stats as pci_stats
    fresh = host_manager.HostState(state.host, state.nodename, "cell1")
    fresh.numa_topology = state.numa_topology.obj_clone()
    fresh.pci_stats = pci_stats.PciDeviceStats(fresh.numa_topology, stats=state.pci_stats.to_device_pools_obj())
    fresh.cpu_allocation_ratio = state.cpu_allocation_ratio
    fresh.ram_allocation_ratio = state.ram_allocation_ratio
    return fresh


def nova_version():
    try:
        from nova import version
        return version.version_string()
    except Exception:  # noqa: only for the banner
        return "(version unknown)"


if __name__ == "__main__":
    sys.exit(main())
