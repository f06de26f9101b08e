#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Nova's admission streams re-run by the real Nova, for checking `numaplace-dev replay`.

For every stream of FILE (the schema of tests/data/conformance/nova/STREAMS.md: one host and
its requests in order), places the requests one after another with Debian python3-nova's real
code, exactly as STREAMS.md describes, once with `[compute]
packing_host_numa_cells_allocation_strategy = False` ("spread") and once with `= True` ("pack"):

* each request: ImageMeta.from_dict -> numa_get_constraints -> numa_fit_instance_to_host with
  NUMATopologyLimits on fresh Nova objects built from the current host state
  (nova_differential.build_host); the answer used is the mutation-free run of the same search
  (nova_differential.mutation_free_fit, STREAMS.md "Which answer"); Nova's raw answer is
  computed too and `nova_raw_differs` counts the requests where the two differ;
* an admission updates the host with nova.virt.hardware.numa_usage_from_instance_numa; a
  refusal leaves it unchanged and the stream goes on; a fit that takes more than --timeout
  seconds of Nova time is refused and counted in `skipped_slow`.

Each stream is written back (same id, host and requests) with Nova's `nova.spread` and
`nova.pack` RESULT objects (figures and trace) in STREAMS.md's schema, so that
`numaplace-dev replay OUT --strategy nova` / `--strategy nova-pack` can be checked against real Nova
on streams other than the 24 of streams.jsonl (e.g. those of tools/bench/make_streams.py, whose
own "nova" figures come from numaplace itself).

  /usr/bin/python3 tools/conformance/nova_stream_differential.py IN.jsonl --out OUT.jsonl \
      [--jobs 2] [--limit N] [--stream ID]... [--numaplace build/numaplace-dev]
  /usr/bin/python3 tools/conformance/nova_stream_differential.py --validate \
      [tests/data/conformance/nova/streams.jsonl]

--validate re-runs Nova on the streams of the file (default: the test data's streams.jsonl) and checks
that the recorded `nova` results are reproduced exactly (figures and every trace entry); exit 1
otherwise. --numaplace runs `replay OUT --strategy nova` and `--strategy nova-pack` on the output
and prints their differences (exit 1 when there is one).
Run with Debian's interpreter (python3-nova lives in /usr/lib/python3/dist-packages).
"""
import argparse
import copy
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nova_differential as nd  # noqa: E402

NOVA_VERSION = "26.2.2 (python3-nova 2:26.2.2-1~deb12u5)"
RUNS = (("spread", False), ("pack", True))


def nova_topology(request):
    """The guest NUMA topology Nova derives from the request (None: none asked) and its PCI policy."""
    n = nd.nova()
    objects, hardware = n["objects"], n["hardware"]
    flavor, image = nd.flavor_and_image(objects, request)
    return hardware.numa_get_constraints(flavor, image), hardware.get_pci_numa_policy_constraint(flavor, image)


def limits_of(host):
    ar = host.get("allocation_ratio")
    if ar is None:
        return None
    return nd.nova()["objects"].NUMATopologyLimits(cpu_allocation_ratio=ar["cpu"], ram_allocation_ratio=ar["ram"])


def answer_json(topology):
    """Neutral form of a fitted InstanceNUMATopology (None: no fit), for comparing answers."""
    if topology is None:
        return None
    return [nd.cell_json(i, c) for i, c in enumerate(topology.cells)]


def fit_request(host_json, request):
    """One admission decision on the current host: (answer used, raw differs?).

    Both Nova's raw search and the mutation-free re-run start from their own fresh host
    objects and a fresh guest topology, as nova_differential.run_nova does."""
    n = nd.nova()
    limits = limits_of(host_json)
    topo, pci_policy = nova_topology(request)
    if topo is None:
        raise ValueError("request asks for no NUMA topology; every stream request must have one")
    pristine = copy.deepcopy(topo)
    host = nd.build_host(host_json)
    stats = nd.build_pci_stats(host_json, host)
    raw = n["hardware"].numa_fit_instance_to_host(host, topo, limits,
                                                  nd.build_pci_requests(request, pci_policy) or None, stats)
    host2 = nd.build_host(host_json)
    stats2 = nd.build_pci_stats(host_json, host2)
    fixed = nd.mutation_free_fit(host2, pristine, limits, nd.build_pci_requests(request, pci_policy) or None, stats2)
    return fixed, answer_json(raw) != answer_json(fixed)


def fit_request_capped(host_json, request, seconds):
    """fit_request under a wall-time cap: None when Nova did not answer in time."""
    signal.signal(signal.SIGALRM, nd._alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fit_request(host_json, request)
    except nd.NovaTimeout:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def admit(host_json, fitted):
    """The host after admitting `fitted`, by Nova's numa_usage_from_instance_numa, as neutral JSON."""
    n = nd.nova()
    updated = n["hardware"].numa_usage_from_instance_numa(nd.build_host(host_json), fitted)
    out = copy.deepcopy(host_json)
    by_id = {c.id: c for c in updated.cells}
    for cell in out["cells"]:
        nc = by_id[cell["id"]]
        cell["usage"] = {"shared_cpus": float(nc.cpu_usage), "pinned_cpus": sorted(nc.pinned_cpus),
                         "memory_mib": int(nc.memory_usage)}
        pages = {p.size_kb: p for p in nc.mempages}
        for p in cell.get("pages", []):
            p["used"] = int(pages[p["size_kib"]].used)
    return out


def trace_entry(fitted):
    cells = []
    for cell in fitted.cells:
        pcpus = set(cell.pcpuset)
        ps = cell.pagesize if "pagesize" in cell else None
        pinned = None
        if pcpus:
            pinned = sorted(set(cell.cpu_pinning.values())) if cell.obj_attr_is_set("cpu_pinning_raw") and \
                cell.cpu_pinning_raw else []
        cells.append({"host_cell": cell.id, "vcpus": len(set(cell.cpuset) | pcpus), "memory_mib": cell.memory,
                      "pagesize_kib": ps if ps else None, "pinned": pinned})
    return cells


def distance_number(value):
    value = round(value, 4)
    return int(value) if value == int(value) else value


def run_stream_once(stream, pack, timeout):
    """RESULT of STREAMS.md for one run (pack False: Nova's default spread order)."""
    conf = nd.nova()["conf"]
    conf.set_override("packing_host_numa_cells_allocation_strategy", pack, group="compute")
    try:
        host = copy.deepcopy(stream["host"])
        cells_by_id = {c["id"]: pos for pos, c in enumerate(host["cells"])}
        before = None
        total = multi = slow = raw_differs = 0
        distances = []
        trace = []
        for i, request in enumerate(stream["requests"]):
            got = fit_request_capped(host, request, timeout)
            if got is None:
                slow += 1
                fitted = None
            else:
                fitted, differs = got
                raw_differs += int(differs)
            if fitted is None:
                trace.append(None)
                if before is None:
                    before = i
                continue
            host = admit(host, fitted)
            total += 1
            trace.append(trace_entry(fitted))
            if len(fitted.cells) > 1:
                multi += 1
                ids = [c.id for c in fitted.cells]
                pairs = [(a, b) for k, a in enumerate(ids) for b in ids[k + 1:]]
                distances.append(sum(stream["host"]["cells"][cells_by_id[a]]["distances"][cells_by_id[b]]
                                     for a, b in pairs) / len(pairs))
        return {"admitted_before_first_refusal": len(stream["requests"]) if before is None else before,
                "admitted_total": total,
                "mean_intercell_distance": distance_number(sum(distances) / len(distances)) if distances else None,
                "multi_cell_admitted": multi,
                "skipped_slow": slow,
                "nova_raw_differs": raw_differs,
                "trace": trace}
    finally:
        conf.clear_override("packing_host_numa_cells_allocation_strategy", group="compute")


def run_stream(args):
    stream, timeout = args
    nd.nova()
    start = time.monotonic()
    results = {name: run_stream_once(stream, pack, timeout) for name, pack in RUNS}
    out = {k: v for k, v in stream.items() if k not in ("nova", "nova_version")}
    out["nova"] = results
    out["nova_version"] = NOVA_VERSION
    return out, stream.get("nova"), time.monotonic() - start


def compare_results(want, got):
    """Differences between a recorded RESULT and ours (list of text lines)."""
    diffs = []
    for key in ("admitted_before_first_refusal", "admitted_total", "mean_intercell_distance", "multi_cell_admitted",
                "skipped_slow", "nova_raw_differs"):
        if key in want and want[key] != got[key]:
            diffs.append(f"{key}: recorded {want[key]}, Nova now {got[key]}")
    wt = want.get("trace")
    if wt:
        if len(wt) != len(got["trace"]):
            diffs.append(f"trace length: recorded {len(wt)}, Nova now {len(got['trace'])}")
        for i, (a, b) in enumerate(zip(wt, got["trace"])):
            if a != b:
                diffs.append(f"trace[{i}]: recorded {json.dumps(a)}, Nova now {json.dumps(b)}")
                break
    return diffs


def run_replay(numaplace, path, strategy):
    proc = subprocess.run([numaplace, "replay", path, "--strategy", strategy, "--json"], capture_output=True, text=True)
    lines = [line for line in proc.stderr.splitlines() if "does not reproduce" in line]
    return proc.returncode, lines, proc.stderr


def main():
    default_file = os.path.join(nd.CONFORMANCE, "streams.jsonl")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?", default=default_file, help="streams, one JSON object a line")
    ap.add_argument("--out", help="write the streams with real Nova's results here")
    ap.add_argument("--validate", action="store_true", help="check the file's recorded nova results are reproduced")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (streams in parallel)")
    ap.add_argument("--limit", type=int, help="only the first N streams")
    ap.add_argument("--stream", action="append", help="only this stream id (repeatable)")
    ap.add_argument("--timeout", type=float, default=5.0, help="Nova seconds per fit before it counts as refused")
    ap.add_argument("--numaplace", help="numaplace-dev binary: replay --strategy nova / nova-pack on --out")
    args = ap.parse_args()
    if not args.out and not args.validate:
        ap.error("give --out, --validate or both")
    nd.nova()
    streams = [json.loads(line) for line in open(args.file) if line.strip()]
    if args.stream:
        streams = [s for s in streams if s["id"] in set(args.stream)]
    if args.limit is not None:
        streams = streams[:args.limit]
    start = time.monotonic()
    work = [(s, args.timeout) for s in streams]
    if args.jobs > 1:
        pool = multiprocessing.get_context("fork").Pool(args.jobs)
        results = pool.imap(run_stream, work)
    else:
        pool = None
        results = map(run_stream, work)
    bad = 0
    out = open(args.out, "w") if args.out else None
    try:
        for stream, recorded, seconds in results:
            if out:
                out.write(json.dumps(stream) + "\n")
                out.flush()
            figures = "; ".join(f"{name} {r['admitted_before_first_refusal']}/{r['admitted_total']}/"
                                f"{r['mean_intercell_distance']}" + (f" raw_differs {r['nova_raw_differs']}"
                                                                      if r["nova_raw_differs"] else "")
                                + (f" slow {r['skipped_slow']}" if r["skipped_slow"] else "")
                                for name, r in stream["nova"].items())
            line = f"{stream['id']}: {figures} ({seconds:.1f} s)"
            if args.validate:
                diffs = []
                for name, _ in RUNS:
                    want = (recorded or {}).get(name)
                    if want is None:
                        diffs.append(f"{name}: no recorded result")
                        continue
                    if not want.get("trace"):
                        diffs.append(f"{name}: recorded result has no trace")
                    diffs += [f"{name}: {d}" for d in compare_results(want, stream["nova"][name])]
                if diffs:
                    bad += 1
                    line += " DIFFERS\n  " + "\n  ".join(diffs)
                else:
                    line += " reproduced"
            print(line, flush=True)
    finally:
        if pool:
            pool.close()
            pool.join()
        if out:
            out.close()
    print(f"{len(streams)} streams in {time.monotonic() - start:.1f} s with {args.jobs} job(s)", flush=True)
    status = 0
    if args.validate:
        print(f"validate: {len(streams) - bad} of {len(streams)} streams reproduce the recorded nova results exactly")
        status = 1 if bad else 0
    if args.numaplace and args.out:
        for strategy in ("nova", "nova-pack"):
            code, lines, stderr = run_replay(args.numaplace, args.out, strategy)
            print(f"numaplace-dev replay --strategy {strategy}: exit {code}, {len(lines)} streams differ from real Nova")
            for text in lines:
                print("  " + text)
            if code != 0 and not lines:
                print(stderr[-4000:])
            if code != 0:
                status = 1
    sys.exit(status)


if __name__ == "__main__":
    main()
