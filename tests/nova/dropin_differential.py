#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A seeded random differential of numaplace.nova's drop-ins against Nova 26 itself (ctest
nova.dropin-differential, label nova).

Each case is drawn by tools/conformance/nova_differential.py's generator (gen_case: random hosts
with cells, SMT siblings, shared/dedicated CPU sets, pinned CPUs, page pools, usage, allocation
ratios and PCI pools; random flavors and images with hw:numa_nodes, hw:numa_cpus.N/mem.N,
cpu_policy, thread policy, mem_page_size, emulator threads, realtime, PCI requests and policies,
Nova's packing option; a --pci-specs share with Nova's pool tags and PCI requests as spec lists; a --stress share from its small, tight hosts;
a --huge-only share whose host cells list huge pages and no small ones, with requests for memory
that is not a whole number of those pages and hw:mem_page_size=0). Nova answers it with its
own pipeline (nova_differential.run_nova: numa_get_constraints, get_pci_numa_policy_constraint,
numa_fit_instance_to_host) and, where its answer is inconsistent (a chosen cell that does not fit
when checked again, dedicated vCPUs left unpinned, pins outside the cell or on used pCPUs: its
fit-cache quirks), with its own search run again without mutation (expect_fixed). The drop-ins
answer it through Nova's objects (tests/nova/dropin_vectors.py's outcome).

Agreement, as tests/nova/dropin_vectors.py checks it against the recorded vectors:
  - a request Nova refuses: the same exception class;
  - no NUMA topology asked: no topology;
  - no fit: no fit;
  - a fit: the same host cell for each guest cell, the same page size, the same cells pinned, and
    every pin on a pCPU of the chosen cell's pcpuset that was not pinned already, each pCPU once,
    every dedicated vCPU pinned. Which pCPU a vCPU gets is not compared: Nova takes them in Python
    set order (docs/DESIGN-NOTES.md).
Where Nova is inconsistent, the answer must be expect_fixed's. The filters are compared too:
each case's host as a HostState and its request as a RequestSpec, through Nova's NUMATopologyFilter
and NUMAPlaceFilter (host_passes): the same verdict (where Nova's fit is inconsistent: whether its
mutation-free re-run fits). A case Nova does not answer within
--timeout seconds (its permutation walk on many cells) is not compared and is counted.

Known differences are listed in KNOWN_DIFFERENCES below, each with its reason; a case that differs
is matched against them (a predicate on the case and both answers) and reported as expected; any
other difference fails the run. Exit 0: no unexpected difference; 1: some (printed with the case
as JSON, to add to tests/conformance/nova-differential.jsonl once fixed); 77: no Nova.

  NUMAPLACE_LIBRARY=build/libnumaplace.so PYTHONPATH=build/python NUMAPLACE_SHARED_DIR=build/test-data \\
    /usr/bin/python3 tests/nova/dropin_differential.py [--count 400] [--seed 26] [--stress 0.3] [--budget 30]
"""
import argparse
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "conformance"))
sys.path.insert(0, HERE)

# (name, reason, predicate(case, nova_answer, dropin_answer) -> bool). None are known today: every
# difference the generator has found was fixed in the engine (tests/conformance/nova-differential.jsonl)
# or is outside what it draws (vPMEM, network affinity: docs/nova.md).
KNOWN_DIFFERENCES = []


def filter_verdicts(nd, npnova, case, want):
    """Nova's NUMATopologyFilter and NUMAPlaceFilter on the case as a scheduler sees it: a HostState
    with the case's host (its own objects for each filter), a RequestSpec with Nova's own topology
    and PCI requests. None where the filters are not asked (a request Nova refuses at the API, a
    host without allocation ratios). Returns (Nova's verdict, numaplace's, the verdict wanted):
    wanted is Nova's own, or where Nova's fit is inconsistent whether its mutation-free re-run fits."""
    from nova.scheduler import host_manager
    from nova.scheduler.filters import numa_topology_filter
    n = nd.nova()
    objects, hardware, conf = n["objects"], n["hardware"], n["conf"]
    ratio = case["host"].get("allocation_ratio")
    if want["kind"] == "invalid" or ratio is None:
        return None
    overrides = nd.apply_case_config(conf, case)
    try:
        flavor, image = nd.flavor_and_image(objects, case["request"])
        policy = hardware.get_pci_numa_policy_constraint(flavor, image)

        def run(flt):
            topology = nd.build_host(case["host"])
            state = host_manager.HostState("h", "n", "c")
            state.numa_topology = topology
            state.pci_stats = nd.build_pci_stats(case["host"], topology)
            state.cpu_allocation_ratio, state.ram_allocation_ratio = ratio["cpu"], ratio["ram"]
            spec = objects.RequestSpec(
                flavor=flavor, image=image, numa_topology=hardware.numa_get_constraints(flavor, image),
                pci_requests=objects.InstancePCIRequests(requests=nd.build_pci_requests(case["request"], policy)),
                instance_uuid="4f6c5ab0-5c4e-4e4a-9a43-2f1a1f5d0003")
            return flt.host_passes(state, spec)

        nova_verdict = run(numa_topology_filter.NUMATopologyFilter())
        ours = run(npnova.NUMAPlaceFilter())
    finally:
        nd.clear_case_config(conf, overrides)
    wanted = nova_verdict if not case["expect"].get("nova_quirks") else want["kind"] in ("fit", "no_topology")
    return nova_verdict, ours, wanted


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=400, help="cases to draw")
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--stress", type=float, default=0.3, help="share of cases on small, tight hosts")
    ap.add_argument("--timeout", type=float, default=2.0, help="seconds Nova gets per case")
    ap.add_argument("--budget", type=float, default=30.0,
                    help="stop drawing after this many seconds (the cases done so far are the run)")
    ap.add_argument("--min-cases", type=int, default=150, help="fewer compared cases than this fails the run")
    ap.add_argument("--pci-specs", type=float, default=0.2,
                    help="share of cases with tagged PCI pools and PCI requests as spec lists")
    ap.add_argument("--huge-only", type=float, default=0.15,
                    help="share of cases whose host cells list huge pages and no small ones")
    ap.add_argument("--no-filter", action="store_true", help="leave out the filters' comparison")
    args = ap.parse_args()
    try:
        import nova_differential as nd
        nd.nova()
    except (ImportError, SystemExit) as exc:
        print(f"SKIP: Nova cannot be imported ({exc})")
        return 77
    import dropin_vectors
    from numaplace import nova as npnova

    nd.STRESS = args.stress
    nd.PCI_SPECS = args.pci_specs
    nd.HUGE_ONLY = args.huge_only
    rng = random.Random(args.seed)
    corpus = nd.load_corpus()
    started = time.monotonic()
    kinds, quirks = {}, 0
    compared = timed_out = filtered = 0
    expected, unexpected = [], []
    for i in range(args.count):
        if time.monotonic() - started > args.budget:
            break
        case = nd.gen_case(rng, corpus, i, f"dropin-s{args.seed}")
        nova_answer = nd.run_nova_capped(case, args.timeout)
        if nova_answer is None:
            timed_out += 1
            continue
        case["expect"] = nova_answer
        quirks += bool(nova_answer.get("nova_quirks"))
        want = dropin_vectors.wanted(case)
        got = dropin_vectors.outcome(nd, npnova, case)
        compared += 1
        kinds[want["kind"]] = kinds.get(want["kind"], 0) + 1
        if not args.no_filter:
            verdicts = filter_verdicts(nd, npnova, case, want)
            if verdicts is not None:
                filtered += 1
                if verdicts[1] != verdicts[2]:
                    got = dict(got, filter=verdicts[1])
                    want = dict(want, filter=verdicts[2])
        if got == want:
            continue
        known = [name for name, _, applies in KNOWN_DIFFERENCES if applies(case, want, got)]
        (expected if known else unexpected).append((case, want, got, known))
    seconds = time.monotonic() - started
    for case, want, got, known in expected:
        print(f"EXPECTED {case['id']} ({', '.join(known)}): Nova {json.dumps(want)}, drop-ins {json.dumps(got)}")
    for case, want, got, _ in unexpected:
        print(f"DIFFER {case['id']}: Nova {json.dumps(want)}, drop-ins {json.dumps(got)}")
        print(f"  case: {json.dumps(case)}")
    print(f"{compared} random cases compared in {seconds:.1f} s (seed {args.seed}, stress {args.stress}): "
          + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
          + f"; {filtered} of them through both filters too"
          + f"; {quirks} where Nova's own answer is inconsistent (compared with its mutation-free re-run); "
          f"{timed_out} not answered by Nova within {args.timeout} s; "
          f"{len(expected)} known differences, {len(unexpected)} unexpected")
    if compared < args.min_cases:
        print(f"FAIL: only {compared} cases compared (at least {args.min_cases} wanted): the machine is too busy "
              f"or --budget too small")
        return 1
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
