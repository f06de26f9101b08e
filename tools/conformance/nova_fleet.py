#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the real Nova scheduler does with a fleet (tools/bench/make_fleet.py), recorded in the file.

For every request of the fleet, in order, as Nova 26 (Debian python3-nova) schedules it with its
NUMATopologyFilter and its default weigher for memory:

* the filter: on every host, numa_get_constraints and the fit of nova_stream_differential.py (the
  mutation-free run of numa_fit_instance_to_host's search, STREAMS.md "Which answer") on fresh Nova
  objects built from the host's current state, with the host's NUMATopologyLimits;
* the weigher: Nova's own RAMWeigher through Nova's HostWeightHandler over the hosts that pass, each
  with free_ram_mb = its cells' memory less what its guests hold (ram_weight_multiplier 1.0: the
  host with the most free memory wins; ties go to the earlier host, as Nova's stable sort keeps the
  order hosts came in); host_subset_size 1: the best host is taken;
* the claim: the chosen host's usage is updated by numa_usage_from_instance_numa; a request no host
  passes is refused and the fleet goes on.

The file is written back with "nova": {"admitted_before_first_refusal", "admitted_total",
"trace": [host index | null, ...], "nova_version"}, which `numaplace-dev fleet FILE` checks its
own model of Nova's scheduler against, request by request.

  /usr/bin/python3 tools/conformance/nova_fleet.py FLEET.json --out RECORDED.json [--limit N]
"""
import argparse
import copy
import json
import os
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nova_differential as nd  # noqa: E402
import nova_stream_differential as nsd  # noqa: E402


def nova_fit(host_json, topology):
    """Nova's fit of one guest topology on one host's current state (None: the filter refuses it)."""
    host = nd.build_host(host_json)
    return nd.mutation_free_fit(host, copy.deepcopy(topology), nsd.limits_of(host_json), None, None)


def free_ram_mb(host_json):
    return sum(cell["memory_mib"] - cell.get("usage", {}).get("memory_mib", 0) for cell in host_json["cells"])


def best_host(passing, hosts):
    """Nova's RAMWeigher over the passing host indices: the index of the best host."""
    from nova.scheduler import weights
    from nova.scheduler.weights import ram
    states = [types.SimpleNamespace(index=i, host=f"host-{i:03d}", nodename=f"host-{i:03d}",
                                   free_ram_mb=free_ram_mb(hosts[i]), aggregates=[]) for i in passing]
    weighed = weights.HostWeightHandler().get_weighed_objects([ram.RAMWeigher()], states, None)
    return weighed[0].obj.index


def schedule(fleet, limit):
    nd.nova()
    hosts = [copy.deepcopy(entry["host"]) for entry in fleet["hosts"]]
    trace, before, total, refused = [], 0, 0, False
    requests = fleet["requests"][:limit] if limit else fleet["requests"]
    started = time.monotonic()
    for number, request in enumerate(requests):
        topology, _ = nsd.nova_topology(request)
        if topology is None:
            raise SystemExit(f"nova_fleet.py: request {number} asks for no NUMA topology; a fleet's requests must")
        fits = {i: nova_fit(host, topology) for i, host in enumerate(hosts)}
        passing = [i for i, fitted in fits.items() if fitted is not None]
        if not passing:
            trace.append(None)
            refused = True
            continue
        chosen = best_host(passing, hosts)
        hosts[chosen] = nsd.admit(hosts[chosen], fits[chosen])
        trace.append(chosen)
        total += 1
        if not refused:
            before += 1
        if number % 100 == 99:
            print(f"nova_fleet.py: {number + 1} of {len(requests)} requests, {total} admitted, "
                  f"{time.monotonic() - started:.0f} s", file=sys.stderr)
    return {"admitted_before_first_refusal": before, "admitted_total": total, "trace": trace,
            "nova_version": nsd.NOVA_VERSION}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("fleet")
    parser.add_argument("--out", required=True)
    parser.add_argument("--limit", type=int, default=0, help="schedule only the first N requests (and keep only them)")
    args = parser.parse_args()
    with open(args.fleet) as source:
        fleet = json.load(source)
    if args.limit:
        fleet["requests"] = fleet["requests"][:args.limit]
    fleet["nova"] = schedule(fleet, args.limit)
    with open(args.out, "w") as out:
        json.dump(fleet, out)
        out.write("\n")
    print(f"nova_fleet.py: Nova admitted {fleet['nova']['admitted_before_first_refusal']} before the first refusal, "
          f"{fleet['nova']['admitted_total']} in total, of {len(fleet['requests'])} requests", file=sys.stderr)


if __name__ == "__main__":
    main()
