#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Differential tester: numaplace's nova-fit conformance runner against the real Nova.

Generates random nova-fit cases drawn like tests/data/conformance/nova/{fit,edge}.jsonl
(mutating and recombining their hosts and requests, plus fresh random draws), runs
Debian python3-nova's real pipeline on each (ImageMeta.from_dict -> numa_get_constraints
-> get_pci_numa_policy_constraint -> numa_fit_instance_to_host with NUMATopologyLimits and
a PciDeviceStats, fresh objects per case), writes every case with Nova's answer as
`expect` in the neutral schema (with nova_quirks / expect_fixed from a mutation-free
re-run of the same search, as nova/README.md describes), then runs
`numaplace-dev conformance nova-fit` on the file and reports the failures.

Run with Debian's interpreter (python3-nova lives in /usr/lib/python3/dist-packages):

  /usr/bin/python3 tools/conformance/nova_differential.py --count 2000 --seed 1 \
      --out /tmp/diff/round1.jsonl --numaplace build/numaplace-dev
  /usr/bin/python3 tools/conformance/nova_differential.py --validate 300   # harness self-check
  /usr/bin/python3 tools/conformance/nova_differential.py --recheck FILE   # re-run Nova on FILE

--validate N re-runs Nova on N given vectors (all edge vectors plus a sample of fit.jsonl)
and checks the writer reproduces their `expect` exactly (pinning included).
"""
import argparse
import copy
import itertools
import json
import os
import random
import signal
import subprocess
import sys

# The reference vectors as the build lays them out (build/test-data: tests/data with the
# compressed ones decompressed, cmake/TestData.cmake), or under $NUMAPLACE_SHARED_DIR.
CONFORMANCE = os.path.join(
    os.environ.get("NUMAPLACE_SHARED_DIR",
                   os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "test-data")),
    "conformance", "nova")

# --------------------------------------------------------------------------------------
# Nova side
# --------------------------------------------------------------------------------------

_NOVA = {}


def nova():
    if not _NOVA:
        try:
            import nova.conf
            from nova import objects
            from nova.objects import fields
            from nova.virt import hardware
            from nova.pci import stats as pci_stats
            from nova import exception
        except ImportError as error:
            sys.exit(f"nova_differential: cannot import nova ({error}); run with /usr/bin/python3")
        objects.register_all()
        import logging
        logging.disable(logging.CRITICAL)
        nova.conf.CONF([], project="nova", default_config_files=[])
        _NOVA.update(conf=nova.conf.CONF, objects=objects, fields=fields, hardware=hardware,
                     pci_stats=pci_stats, exception=exception)
    return _NOVA


class NovaTimeout(BaseException):  # not swallowed by "except Exception"
    pass


def _alarm(signum, frame):
    raise NovaTimeout()


def network_metadata(where):
    """Nova's NetworkMetadata from a host cell's or a request's "network_metadata" (absent: none)."""
    nm = where.get("network_metadata") or {}
    return nova()["objects"].NetworkMetadata(physnets=set(nm.get("physnets", [])), tunneled=nm.get("tunneled", False))


def build_host(host):
    n = nova()
    objects = n["objects"]
    cells = []
    for c in host["cells"]:
        cpus = set(c["cpus"])
        shared = set(c["shared_cpuset"]) if "shared_cpuset" in c else cpus
        dedicated = set(c["dedicated_cpuset"]) if "dedicated_cpuset" in c else cpus
        usage = c.get("usage", {})
        cells.append(objects.NUMACell(
            id=c["id"],
            cpuset=shared,
            pcpuset=dedicated,
            memory=c["memory_mib"],
            cpu_usage=int(usage.get("shared_cpus", 0)),
            memory_usage=usage.get("memory_mib", 0),
            pinned_cpus=set(usage.get("pinned_cpus", [])),
            siblings=[set(s) for s in c["siblings"]],
            mempages=[objects.NUMAPagesTopology(size_kb=p["size_kib"], total=p["total"], used=p["used"],
                                                reserved=p.get("reserved", 0)) for p in c.get("pages", [])],
            network_metadata=network_metadata(c),
            socket=c.get("socket"),
        ))
    return objects.NUMATopology(cells=cells)


def build_pci_stats(host, topology):
    n = nova()
    objects = n["objects"]
    pools = []  # [(key, count)] in order of first device
    index = {}
    for d in host.get("pci", []):
        if d.get("allocated"):
            continue
        # a device without tags is a plain PCI device to Nova (every pool has a dev_type)
        tags = tuple(sorted((d.get("tags") or {"dev_type": "type-PCI"}).items()))
        key = (d["vendor_id"], d["product_id"], d["numa_node"], tags)
        if key not in index:
            index[key] = len(pools)
            pools.append([key, 0])
        pools[index[key]][1] += 1
    plist = objects.PciDevicePoolList(objects=[
        objects.PciDevicePool(vendor_id=k[0], product_id=k[1], numa_node=k[2], count=cnt,
                              tags=dict(k[3])) for k, cnt in pools])
    return n["pci_stats"].PciDeviceStats(topology, stats=plist)


def build_pci_requests(request, policy):
    objects = nova()["objects"]
    reqs = []
    for r in request.get("pci", []) or []:
        pol = policy or r.get("alias_numa_policy") or "legacy"  # flavor/image policy wins (nova/pci/request.py)
        spec = r["specs"] if "specs" in r else [{"vendor_id": r["vendor_id"], "product_id": r["product_id"]}]
        reqs.append(objects.InstancePCIRequest(count=r["count"], spec=copy.deepcopy(spec),
                                               numa_policy=pol, alias_name="a"))
    return reqs


def guest_topology_json(topo, pci_policy):
    cells = []
    for c in topo.cells:
        ps = c.pagesize if "pagesize" in c else None
        cells.append({"id": c.id, "cpus": sorted(set(c.cpuset) | set(c.pcpuset)), "pcpus": sorted(c.pcpuset),
                      "memory_mib": c.memory, "pagesize": ps if ps else None})
    c0 = topo.cells[0]
    return {"cells": cells, "cpu_policy": c0.cpu_policy, "cpu_thread_policy": c0.cpu_thread_policy,
            "emulator_threads_policy": topo.emulator_threads_policy if "emulator_threads_policy" in topo else None,
            "pci_numa_affinity_policy": pci_policy}


def cell_json(i, cell):
    pcpus = set(cell.pcpuset)
    if not pcpus:
        pinning = None
    else:
        raw = cell.cpu_pinning_raw if cell.obj_attr_is_set("cpu_pinning_raw") else None
        pinning = {str(k): v for k, v in sorted((int(k), v) for k, v in (raw or {}).items())}
    reserved = cell.cpuset_reserved if cell.obj_attr_is_set("cpuset_reserved") else None
    ps = cell.pagesize if "pagesize" in cell else None
    return {"guest_cell": i, "host_cell": cell.id, "guest_cpus": sorted(set(cell.cpuset) | pcpus),
            "memory_mib": cell.memory, "pagesize_kib": ps if ps else None, "pinning": pinning,
            "cpuset_reserved": sorted(reserved) if reserved else None}


def sort_host_cells(host_topology, instance_topology, pci_requests, pci_stats):
    """Nova 26's order of host cells, as numa_fit_instance_to_host sorts them (its documented
    behaviour, written here in this project's own code for the mutation-free reference run)."""
    n = nova()
    fields = n["fields"]
    host_cells = host_topology.cells
    if len(host_topology) > len(instance_topology):
        pack = n["conf"].compute.packing_host_numa_cells_allocation_strategy
        host_cells = sorted(host_cells, reverse=not pack, key=lambda cell: cell.avail_memory)
        if instance_topology.cells[0].cpu_policy in (None, fields.CPUAllocationPolicy.SHARED):
            host_cells = sorted(host_cells, reverse=pack, key=lambda cell: cell.cpu_usage)
        else:
            host_cells = sorted(host_cells, reverse=not pack, key=lambda cell: len(cell.free_pcpus))
        if pci_stats:
            total = {}
            for pool in pci_stats.pools:
                total[pool["numa_node"]] = total.get(pool["numa_node"], 0) + pool["count"]
            if pci_requests:
                host_cells = sorted(host_cells, reverse=True, key=lambda cell: total.get(cell.id, 0))
            else:
                host_cells = sorted(host_cells, key=lambda cell: total.get(cell.id, 0))
    return host_cells


def fit_one(host_cell, pristine_cell, limits, reserved):
    """A single (host cell, guest cell) check starting from a pristine guest cell."""
    n = nova()
    try:
        return n["hardware"]._numa_fit_instance_cell(host_cell, copy.deepcopy(pristine_cell), limits, reserved)
    except n["exception"].MemoryPageSizeNotSupported:
        return None


def mutation_free_fit(host_topology, pristine_topology, limits, pci_requests, pci_stats):
    """Same search as Nova, caches keyed by guest cell index, every check from a pristine cell."""
    objects = nova()["objects"]
    if len(host_topology) < len(pristine_topology):
        return None
    host_cells = sort_host_cells(host_topology, pristine_topology, pci_requests, pci_stats)
    isolated = pristine_topology.emulator_threads_isolated
    results = {}
    for perm in itertools.permutations(host_cells, len(pristine_topology)):
        chosen = []
        for i, (hc, gc) in enumerate(zip(perm, pristine_topology.cells)):
            reserved = 1 if (isolated and i == 0) else 0
            key = (hc.id, i)
            if key not in results:
                results[key] = fit_one(hc, gc, limits, reserved)
            got = results[key]
            if got is None:
                break
            chosen.append(got)
        if len(chosen) != len(perm):
            continue
        if pci_requests and pci_stats and not pci_stats.support_requests(pci_requests, chosen):
            continue
        networks = limits.network_metadata if limits is not None and "network_metadata" in limits else None
        if networks and not nova()["hardware"]._numa_cells_support_network_metadata(host_topology, list(perm), networks):
            continue
        return objects.InstanceNUMATopology(cells=[copy.deepcopy(c) for c in chosen])
    return None


def apply_case_config(conf, case):
    """Sets the case's Nova configuration ("group.name": value) and returns it for clear_case_config."""
    overrides = case.get("config") or {}
    for key, value in overrides.items():
        group, name = key.split(".", 1)
        conf.set_override(name, value, group=group)
    return overrides


def clear_case_config(conf, overrides):
    for key in overrides:
        group, name = key.split(".", 1)
        conf.clear_override(name, group=group)


def flavor_and_image(objects, request):
    """Nova's Flavor and ImageMeta objects for a request of the neutral schema."""
    image = objects.ImageMeta.from_dict({"properties": dict(request.get("image", {}).get("properties", {}))})
    fl = request["flavor"]
    flavor = objects.Flavor(vcpus=fl["vcpus"], memory_mb=fl["memory_mib"], extra_specs=dict(fl.get("extra_specs", {})),
                            name="f", flavorid="f", root_gb=0, ephemeral_gb=0, swap=0)
    return flavor, image


def run_nova(case, quirks=True):
    """Nova's answer for one case, in the neutral schema; raises NovaTimeout."""
    n = nova()
    objects, hardware, conf = n["objects"], n["hardware"], n["conf"]
    req = case["request"]
    overrides = apply_case_config(conf, case)
    try:
        try:
            flavor, image = flavor_and_image(objects, req)
            topo = hardware.numa_get_constraints(flavor, image)
            pci_policy = hardware.get_pci_numa_policy_constraint(flavor, image)
        except Exception as e:  # noqa: BLE001 - every error class is an answer
            return {"kind": "invalid", "error": type(e).__name__, "message": str(e)}
        if topo is None:
            return {"kind": "no_topology"}
        gt = guest_topology_json(topo, pci_policy)
        pristine = copy.deepcopy(topo)
        host = build_host(case["host"])
        ar = case["host"].get("allocation_ratio")
        limits = None if ar is None else objects.NUMATopologyLimits(cpu_allocation_ratio=ar["cpu"],
                                                                   ram_allocation_ratio=ar["ram"])
        if "network_metadata" in req:
            if limits is None:  # Nova reads the ratios from the same limits object
                raise ValueError("a case with network_metadata needs an allocation_ratio")
            limits.network_metadata = network_metadata(req)
        pci_requests = build_pci_requests(req, pci_policy)
        stats = build_pci_stats(case["host"], host)
        fitted = hardware.numa_fit_instance_to_host(host, topo, limits, pci_requests or None, stats)
        if fitted is None:
            expect = {"kind": "no_fit", "guest_topology": gt}
        else:
            expect = {"kind": "fit", "cells": [cell_json(i, c) for i, c in enumerate(fitted.cells)],
                      "guest_topology": gt}
        if not quirks:
            return expect
        # Mutation-free re-run on fresh host / stats objects.
        host2 = build_host(case["host"])
        stats2 = build_pci_stats(case["host"], host2)
        fixed = mutation_free_fit(host2, pristine, limits, build_pci_requests(req, pci_policy) or None, stats2)
        fixed_json = {"kind": "no_fit"} if fixed is None else {
            "kind": "fit", "cells": [cell_json(i, c) for i, c in enumerate(fixed.cells)]}
        q = []
        if fitted is not None:
            by_id = {c.id: c for c in host2.cells}
            isolated = pristine.emulator_threads_isolated
            for i, c in enumerate(fitted.cells):
                hc = by_id.get(c.id)
                if hc is None or fit_one(hc, pristine.cells[i], limits, 1 if (isolated and i == 0) else 0) is None:
                    q.append("chosen_cell_does_not_fit_when_rechecked")
                    break
            for i, c in enumerate(fitted.cells):
                pin = expect["cells"][i]["pinning"]
                if pristine.cells[i].pcpuset and set(int(k) for k in (pin or {})) != set(pristine.cells[i].pcpuset):
                    q.append("dedicated_vcpus_without_pinning")
                    break
            for i, c in enumerate(fitted.cells):
                hc = by_id.get(c.id)
                pin = expect["cells"][i]["pinning"] or {}
                if hc is not None and any(p not in hc.pcpuset for p in pin.values()):
                    q.append("pinning_outside_host_cell")
                    break
            for i, c in enumerate(fitted.cells):
                hc = by_id.get(c.id)
                pin = expect["cells"][i]["pinning"] or {}
                if hc is not None and any(p in hc.pinned_cpus for p in pin.values()):
                    q.append("pinning_onto_used_cpu")
                    break
        if expect["kind"] != fixed_json["kind"]:
            q.append("outcome_differs_from_mutation_free_run")
        elif expect["kind"] == "fit":
            if expect["cells"] != fixed_json["cells"]:
                q.append("placement_differs_from_mutation_free_run")
        if q:
            expect["expect_fixed"] = fixed_json
            expect["nova_quirks"] = sorted(set(q))
        return expect
    finally:
        clear_case_config(conf, overrides)


def run_nova_capped(case, seconds=5.0, quirks=True):
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return run_nova(case, quirks)
    except NovaTimeout:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


# --------------------------------------------------------------------------------------
# Case generation
# --------------------------------------------------------------------------------------

def load_corpus():
    rows = []
    for name in ("fit.jsonl", "edge.jsonl"):
        with open(os.path.join(CONFORMANCE, name)) as f:
            rows += [json.loads(line) for line in f if line.strip()]
    return rows


def cpu_spec(cpus):
    """Compact a1-b1,c form."""
    cpus = sorted(set(cpus))
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(out)


PAGE_SETS = [(4,), (4, 2048), (4, 1048576), (4, 2048, 1048576), ()]
PAGE_WEIGHTS = [1136, 1135, 383, 205, 141]


def random_host(rng):
    ncells = rng.choices([1, 2, 3, 4, 6, 8, 16], [151, 948, 121, 785, 121, 627, 247])[0]
    threads = rng.choices([1, 2, 4], [1164, 1686, 150])[0]
    cores = rng.choice([1, 1, 2, 2, 3, 4, 4, 5, 6, 8, 8, 10, 12, 14, 16, 20, 24, 28, 32])
    if ncells >= 8 and cores > 8:
        cores = rng.choice([1, 2, 4, 8])
    per = cores * threads
    total = per * ncells
    mem = rng.choice([1024, 2048, 4096, 8192, 16384, 32768, 49152, 65536, 131072, 262144])
    pages = rng.choices(PAGE_SETS, PAGE_WEIGHTS)[0]
    ext = rng.random() < 0.2
    layout = rng.choice(["interleave", "adjacent"])  # sibling numbering
    sockets = rng.choice([1, 2, 2, 4])
    ratio = {"cpu": rng.choice([1.0, 2.0, 4.0, 16.0]), "ram": rng.choice([1.0, 1.0, 1.5])}
    busy = rng.random()
    cells = []
    for cid in range(ncells):
        sibs = []
        for core in range(cores):
            if layout == "interleave":
                base = cid * cores + core
                sibs.append([base + t * (total // threads) for t in range(threads)])
            else:
                base = cid * per + core * threads
                sibs.append([base + t for t in range(threads)])
        cpus = sorted(c for s in sibs for c in s)
        cell = {"id": cid, "cpus": cpus, "siblings": sibs, "memory_mib": mem}
        if ext:
            mode = rng.choice(["split", "alldedicated", "allshared", "random"])
            if mode == "split":
                k = rng.randint(0, len(sibs))
                ded = [c for s in sibs[k:] for c in s]
            elif mode == "alldedicated":
                ded = list(cpus)
            elif mode == "allshared":
                ded = []
            else:
                ded = [c for c in cpus if rng.random() < 0.5]
            cell["shared_cpuset"] = sorted(set(cpus) - set(ded))
            cell["dedicated_cpuset"] = sorted(ded)
        plist = []
        mem_kib = mem * 1024
        huge_frac = rng.choice([0, 0.25, 0.5, 0.75]) if len(pages) > 1 else 0
        for sz in pages:
            if sz == 4:
                continue
            share = huge_frac / (len(pages) - 1)
            tot = int(mem_kib * share) // sz
            if sz == 1048576 and tot == 0 and rng.random() < 0.5:
                tot = rng.randint(1, 4)
            plist.append({"size_kib": sz, "total": tot, "used": 0})
        if pages:
            small_total = (mem_kib - sum(p["size_kib"] * p["total"] for p in plist)) // 4
            small_total = max(0, small_total)
            plist.insert(0, {"size_kib": 4, "total": small_total, "used": 0})
        cell_busy = busy * rng.random()
        for p in plist:
            if rng.random() < cell_busy:
                p["used"] = rng.randint(0, p["total"])
            if rng.random() < 0.05:
                p["used"] = p["total"]
        pinnable = cell.get("dedicated_cpuset", cpus)
        pinned = sorted(c for c in pinnable if rng.random() < cell_busy) if rng.random() < 0.7 else []
        if rng.random() < 0.1:
            # whole-core pinning or one thread per core
            pinned = sorted(s[0] for s in sibs if rng.random() < 0.6 and s[0] in pinnable)
        shared_n = len(cell.get("shared_cpuset", cpus))
        cpu_usage = float(rng.randint(0, max(0, int(shared_n * ratio["cpu"] * cell_busy * 1.2))))
        mem_usage = rng.randint(0, int(mem * ratio["ram"] * cell_busy)) if rng.random() < 0.85 else 0
        cell["pages"] = plist
        cell["usage"] = {"shared_cpus": cpu_usage, "pinned_cpus": pinned, "memory_mib": mem_usage}
        cell["socket"] = cid * sockets // ncells
        cell["distances"] = [10 if j == cid else (12 if j * sockets // ncells == cell["socket"] else 21)
                             for j in range(ncells)]
        cells.append(cell)
    host = {"cells": cells, "pci": [], "allocation_ratio": ratio}
    if rng.random() < 0.48:
        host["pci"] = random_pci(rng, ncells)
    return host


PCI_IDS = [("8086", "154d"), ("10de", "1eb8"), ("15b3", "1018")]


def random_multicell_host(rng):
    """random_host drawn again until it has two cells or more (a one-cell host leaves a filter or
    weigher nothing to choose between cells)."""
    while True:
        host = random_host(rng)
        if len(host["cells"]) >= 2:
            return host


def random_pci(rng, ncells):
    devs = []
    n = rng.randint(1, 6)
    for i in range(n):
        v, p = rng.choice(PCI_IDS[:2] if rng.random() < 0.8 else PCI_IDS)
        node = None if rng.random() < 0.25 else rng.randrange(ncells + (1 if rng.random() < 0.05 else 0))
        devs.append({"address": f"0000:3b:00.{i}", "numa_node": node, "vendor_id": v, "product_id": p,
                     "allocated": rng.random() < 0.2})
    return devs


def mutate_host(rng, host):
    host = copy.deepcopy(host)
    for cell in host["cells"]:
        r = rng.random()
        u = cell["usage"]
        pinnable = cell.get("dedicated_cpuset", cell["cpus"])
        if r < 0.2:
            u["pinned_cpus"] = sorted(c for c in pinnable if rng.random() < rng.random())
        elif r < 0.3:
            u["pinned_cpus"] = []
        elif r < 0.4:
            u["pinned_cpus"] = sorted(set(u["pinned_cpus"]) | {rng.choice(pinnable)} if pinnable else u["pinned_cpus"])
        r = rng.random()
        if r < 0.2:
            u["memory_mib"] = rng.randint(0, int(cell["memory_mib"] * host["allocation_ratio"]["ram"]))
        elif r < 0.3:
            u["shared_cpus"] = float(rng.randint(0, 3 * len(cell.get("shared_cpuset", cell["cpus"])) + 1))
        for p in cell["pages"]:
            if rng.random() < 0.2:
                p["used"] = rng.randint(0, p["total"])
    r = rng.random()
    if r < 0.15:
        host["pci"] = random_pci(rng, len(host["cells"]))
    elif r < 0.2:
        host["pci"] = []
    elif r < 0.3 and host["pci"]:
        for d in host["pci"]:
            if rng.random() < 0.3:
                d["allocated"] = not d["allocated"]
    if rng.random() < 0.15:
        host["allocation_ratio"] = {"cpu": rng.choice([1.0, 2.0, 4.0, 16.0]), "ram": rng.choice([1.0, 1.5])}
    if rng.random() < 0.05 and len(host["cells"]) > 1:
        # drop trailing cells
        k = rng.randint(1, len(host["cells"]) - 1)
        host["cells"] = host["cells"][:k]
        ids = {c["id"] for c in host["cells"]}
        for c in host["cells"]:
            c["distances"] = c["distances"][:k]
        for d in host["pci"]:
            if d["numa_node"] is not None and d["numa_node"] not in ids and rng.random() < 0.7:
                d["numa_node"] = None
    return host


def split_counts(total, n, rng):
    """n positive parts (when possible) adding up to total."""
    if total < n:
        return None
    cuts = sorted(rng.sample(range(1, total), n - 1)) if n > 1 else []
    parts, prev = [], 0
    for c in cuts + [total]:
        parts.append(c - prev)
        prev = c
    return parts


def random_request(rng, ncells_hint):
    vcpus = rng.choices([1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 5, 9, 10, 128],
                        [134, 527, 54, 652, 137, 519, 185, 292, 126, 157, 60, 63, 4, 6, 4, 17])[0]
    mem = rng.choices([512, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 65536,
                       131072, 262144, 5120, 3584],
                      [51, 250, 35, 436, 141, 459, 209, 417, 160, 264, 55, 199, 135, 87, 36, 2, 2])[0]
    es, img = {}, {}
    policy = rng.choices([None, "dedicated", "mixed", "shared", "DEDICATED", "bogus"], [30, 40, 15, 9, 1, 1])[0]
    pol_src = "image" if rng.random() < 0.08 else "flavor"
    if policy:
        if pol_src == "flavor":
            es["hw:cpu_policy"] = policy
        else:
            img["hw_cpu_policy"] = policy if policy != "DEDICATED" else "dedicated"
            if rng.random() < 0.2:
                es["hw:cpu_policy"] = rng.choice(["dedicated", "shared", "mixed"])
    if policy in ("dedicated", "mixed", "DEDICATED") or rng.random() < 0.05:
        r = rng.random()
        if r < 0.35:
            es["hw:cpu_thread_policy"] = rng.choices(["isolate", "prefer", "require", "none"], [30, 25, 25, 1])[0]
        elif r < 0.45:
            img["hw_cpu_thread_policy"] = rng.choice(["isolate", "prefer", "require"])
        elif r < 0.55:
            es["trait:HW_CPU_HYPERTHREADING"] = rng.choice(["required", "forbidden"])
    nodes = None
    r = rng.random()
    if r < 0.75:
        nodes = rng.choices([1, 2, 3, 4, 8, 5, 16], [56, 104, 20, 34, 4, 1, 1])[0]
        if ncells_hint and rng.random() < 0.4:
            nodes = rng.randint(1, max(1, ncells_hint))
        if rng.random() < 0.85 and (vcpus % nodes or mem % nodes):
            divisors = [d for d in range(1, min(vcpus, 16) + 1) if vcpus % d == 0 and mem % d == 0]
            nodes = rng.choice(divisors)
        if rng.random() < 0.1:
            img["hw_numa_nodes"] = str(nodes)
        else:
            es["hw:numa_nodes"] = str(nodes)
        if rng.random() < 0.02:
            es["hw:numa_nodes"] = rng.choice(["0", "-1", "two", "1.5", ""])
    n = nodes or 1
    if policy == "mixed" or rng.random() < 0.02:
        mask = set(v for v in range(vcpus) if rng.random() < rng.random())
        if rng.random() < 0.3 and vcpus > 1:
            ex = set(rng.sample(range(vcpus), rng.randint(1, max(1, vcpus // 3))))
            es["hw:cpu_dedicated_mask"] = "^" + cpu_spec(ex)
        elif mask:
            es["hw:cpu_dedicated_mask"] = cpu_spec(mask)
        else:
            es["hw:cpu_dedicated_mask"] = rng.choice(["0", "1", "^0"])
        if rng.random() < 0.1:
            es.pop("hw:cpu_dedicated_mask")
            es["hw:cpu_realtime"] = "yes"
            es["hw:cpu_realtime_mask"] = "^0"
    if rng.random() < 0.03:
        es["hw:cpu_realtime"] = rng.choice(["yes", "true"])
        if rng.random() < 0.8:
            es["hw:cpu_realtime_mask"] = rng.choice(["^0", "0", "^0-1"])
    if rng.random() < (0.15 if policy in ("dedicated", "mixed") else 0.03):
        es["hw:emulator_threads_policy"] = rng.choices(["isolate", "share", "dedicated"], [5, 4, 1])[0]
    r = rng.random()
    if r < 0.35:
        es["hw:mem_page_size"] = rng.choices(
            ["large", "any", "small", "2MB", "1GB", "2048", "1048576", "4", "4KB", "3XB", "big", "huge"],
            [29, 25, 25, 10, 9, 6, 4, 6, 2, 1, 1, 1])[0]
        if rng.random() < 0.05:
            img["hw_mem_page_size"] = rng.choice(["2MB", "1GB", "small", "large", "2048"])
    elif r < 0.38:
        img["hw_mem_page_size"] = rng.choice(["2MB", "1GB", "small", "large", "2048"])
    # explicit cell layout
    if nodes and n > 1 and rng.random() < 0.35 or (nodes == 1 and rng.random() < 0.1):
        cparts = split_counts(vcpus, n, rng)
        mparts = None
        unit = rng.choice([256, 512, 1024])
        if mem % unit == 0:
            mparts = split_counts(mem // unit, n, rng)
        if cparts and mparts:
            perm = list(range(vcpus))
            if rng.random() < 0.3:
                rng.shuffle(perm)
            pos = 0
            src = "image" if rng.random() < 0.05 else "flavor"
            for i in range(n):
                cpus = perm[pos:pos + cparts[i]]
                pos += cparts[i]
                m = mparts[i] * unit
                if src == "flavor":
                    es[f"hw:numa_cpus.{i}"] = cpu_spec(cpus)
                    es[f"hw:numa_mem.{i}"] = str(m)
                else:
                    img[f"hw_numa_cpus.{i}"] = cpu_spec(cpus)
                    img[f"hw_numa_mem.{i}"] = str(m)
            if rng.random() < 0.12:
                # break it
                k = rng.randrange(n)
                how = rng.choice(["dropcpu", "dropmem", "dup", "oor", "mem", "bad", "1G"])
                pre = "hw:numa_" if src == "flavor" else "hw_numa_"
                d = es if src == "flavor" else img
                if how == "dropcpu":
                    d.pop(f"{pre}cpus.{k}", None)
                elif how == "dropmem":
                    d.pop(f"{pre}mem.{k}", None)
                elif how == "dup":
                    d[f"{pre}cpus.{k}"] += ",0"
                elif how == "oor":
                    d[f"{pre}cpus.{k}"] += f",{vcpus}"
                elif how == "mem":
                    d[f"{pre}mem.{k}"] = str(int(d[f"{pre}mem.{k}"]) + 256)
                elif how == "bad":
                    d[f"{pre}cpus.{k}"] = rng.choice(["0,,1-", "0-", "a", "3-1", "^0"])
                else:
                    d[f"{pre}mem.{k}"] = "1G"
    if rng.random() < 0.03:
        es[rng.choice(["resources:PCPU", "resources:VCPU"])] = str(vcpus if rng.random() < 0.7 else vcpus + 1)
    if rng.random() < 0.01:
        es["hw:locked_memory"] = "true"
    pci = []
    if rng.random() < 0.19:
        v, p = rng.choice(PCI_IDS[:2] if rng.random() < 0.9 else PCI_IDS)
        pci.append({"count": rng.choice([1, 1, 1, 2, 3]), "vendor_id": v, "product_id": p})
        if rng.random() < 0.1:
            v, p = rng.choice(PCI_IDS)
            pci.append({"count": 1, "vendor_id": v, "product_id": p})
        r = rng.random()
        if r < 0.45:
            es["hw:pci_numa_affinity_policy"] = rng.choices(["required", "preferred", "legacy", "socket", "strict"],
                                                           [146, 84, 69, 57, 4])[0]
        elif r < 0.6:
            img["hw_pci_numa_affinity_policy"] = rng.choice(["required", "preferred", "legacy", "socket"])
    elif rng.random() < 0.02:
        es["hw:pci_numa_affinity_policy"] = rng.choice(["required", "socket"])
    return {"flavor": {"vcpus": vcpus, "memory_mib": mem, "extra_specs": es}, "image": {"properties": img},
            "pci": pci}


def mutate_request(rng, req, ncells):
    req = copy.deepcopy(req)
    es = req["flavor"]["extra_specs"]
    r = rng.random()
    if r < 0.15:
        es["hw:cpu_policy"] = rng.choice(["dedicated", "mixed", "shared"])
        if es["hw:cpu_policy"] == "mixed" and "hw:cpu_dedicated_mask" not in es:
            es["hw:cpu_dedicated_mask"] = rng.choice(["0", "^0", "1", "0-1"])
    elif r < 0.25:
        es.pop("hw:cpu_thread_policy", None)
        es.pop("trait:HW_CPU_HYPERTHREADING", None)
        if es.get("hw:cpu_policy") in ("dedicated", "mixed") and rng.random() < 0.8:
            es["hw:cpu_thread_policy"] = rng.choice(["isolate", "prefer", "require"])
    elif r < 0.35:
        es["hw:mem_page_size"] = rng.choice(["large", "any", "small", "2MB", "1GB", "2048", "4"])
    elif r < 0.4:
        es.pop("hw:mem_page_size", None)
    elif r < 0.5:
        es["hw:emulator_threads_policy"] = rng.choice(["isolate", "share"])
    elif r < 0.6:
        # scale vcpus/memory together (keeps explicit layouts valid only sometimes)
        if not any(k.startswith("hw:numa_cpus") for k in es):
            f = rng.choice([0.5, 2])
            req["flavor"]["vcpus"] = max(1, int(req["flavor"]["vcpus"] * f))
            req["flavor"]["memory_mib"] = max(256, int(req["flavor"]["memory_mib"] * f))
    elif r < 0.7:
        if not any(k.startswith("hw:numa_cpus") for k in es):
            es["hw:numa_nodes"] = str(rng.randint(1, max(1, ncells)))
    elif r < 0.8:
        v, p = rng.choice(PCI_IDS[:2])
        req["pci"] = [{"count": rng.choice([1, 2]), "vendor_id": v, "product_id": p}]
        es["hw:pci_numa_affinity_policy"] = rng.choice(["required", "preferred", "legacy", "socket"])
    return req


def stress_host(rng):
    """Small, tight hosts: few cpus per cell, SMT, partial pinning, scarce pages, PCI."""
    ncells = rng.choice([1, 2, 2, 3, 4, 4, 6, 8])
    threads = rng.choice([1, 2, 2, 4])
    cores = rng.choice([1, 2, 2, 3, 4])
    per = cores * threads
    total = per * ncells
    mem = rng.choice([1024, 2048, 4096])
    pages = rng.choices(PAGE_SETS, PAGE_WEIGHTS)[0]
    ext = rng.random() < 0.25
    interleave = rng.random() < 0.5
    ratio = {"cpu": rng.choice([1.0, 2.0, 4.0, 16.0]), "ram": rng.choice([1.0, 1.5])}
    sockets = rng.choice([1, 2])
    cells = []
    for cid in range(ncells):
        sibs = []
        for core in range(cores):
            if interleave:
                sibs.append([cid * cores + core + t * (total // threads) for t in range(threads)])
            else:
                sibs.append([cid * per + core * threads + t for t in range(threads)])
        cpus = sorted(c for sb in sibs for c in sb)
        cell = {"id": cid, "cpus": cpus, "siblings": sibs, "memory_mib": mem}
        if ext:
            k = rng.randint(0, cores)
            ded = [c for sb in sibs[k:] for c in sb] if rng.random() < 0.7 else [c for c in cpus if rng.random() < 0.5]
            cell["shared_cpuset"] = sorted(set(cpus) - set(ded))
            cell["dedicated_cpuset"] = sorted(ded)
        plist = []
        mem_kib = mem * 1024
        for sz in pages:
            if sz == 2048:
                plist.append({"size_kib": 2048, "total": rng.choice([0, 64, 128, 256, 512]), "used": 0})
            elif sz == 1048576:
                plist.append({"size_kib": 1048576, "total": rng.choice([0, 1, 1, 2]), "used": 0})
        if pages:
            small = max(0, (mem_kib - sum(p["size_kib"] * p["total"] for p in plist)) // 4)
            plist.insert(0, {"size_kib": 4, "total": small, "used": 0})
        for p in plist:
            if rng.random() < 0.4:
                p["used"] = rng.randint(0, p["total"])
        pinnable = cell.get("dedicated_cpuset", cpus)
        mode = rng.random()
        if mode < 0.3:
            pinned = []
        elif mode < 0.5:
            pinned = [c for c in pinnable if rng.random() < 0.4]
        elif mode < 0.7:
            pinned = [sb[0] for sb in sibs if sb[0] in pinnable and rng.random() < 0.6]
        else:
            pinned = [c for sb in sibs if rng.random() < 0.4 for c in sb if c in pinnable]
        shared_n = len(cell.get("shared_cpuset", cpus))
        cell["pages"] = plist
        cell["usage"] = {"shared_cpus": float(rng.randint(0, int(shared_n * ratio["cpu"]) + 1)) if rng.random() < 0.6 else 0.0,
                         "pinned_cpus": sorted(pinned),
                         "memory_mib": rng.randint(0, mem) if rng.random() < 0.6 else 0}
        cell["socket"] = cid * sockets // ncells
        cell["distances"] = [10 if j == cid else 21 for j in range(ncells)]
        cells.append(cell)
    host = {"cells": cells, "pci": random_pci(rng, ncells) if rng.random() < 0.4 else [], "allocation_ratio": ratio}
    return host


def stress_request(rng, ncells, host=None):
    vcpus = rng.choice([1, 2, 2, 3, 4, 4, 6, 8, 12, 16])
    mem = rng.choice([256, 512, 1024, 1024, 2048, 3072, 4096, 6144, 8192])
    if host is not None and rng.random() < 0.7:
        free = sum(len(c["cpus"]) - len(c["usage"]["pinned_cpus"]) for c in host["cells"])
        vcpus = max(1, min(vcpus, rng.randint(1, max(1, free))))
        mem = max(256, min(mem, 256 * rng.randint(1, max(1, sum(c["memory_mib"] for c in host["cells"]) // 512))))
    es, img = {}, {}
    policy = rng.choice(["dedicated", "dedicated", "mixed", "shared", None])
    if policy:
        es["hw:cpu_policy"] = policy
    if policy in ("dedicated", "mixed"):
        r = rng.random()
        if r < 0.6:
            es["hw:cpu_thread_policy"] = rng.choice(["isolate", "prefer", "require"])
        elif r < 0.7:
            es["trait:HW_CPU_HYPERTHREADING"] = rng.choice(["required", "forbidden"])
        if rng.random() < 0.3:
            es["hw:emulator_threads_policy"] = rng.choice(["isolate", "isolate", "share"])
    nodes = rng.randint(1, max(1, min(ncells + (1 if rng.random() < 0.1 else 0), 8)))
    es["hw:numa_nodes"] = str(nodes)
    if policy == "mixed":
        if vcpus == 1:
            vcpus = 2
        k = rng.randint(1, vcpus - 1) if vcpus > 1 else 1
        es["hw:cpu_dedicated_mask"] = cpu_spec(rng.sample(range(vcpus), k))
    if rng.random() < 0.4:
        es["hw:mem_page_size"] = rng.choice(["large", "any", "small", "2MB", "1GB", "4"])
    if nodes > vcpus:
        vcpus = nodes * rng.choice([1, 2])
    if vcpus % nodes or mem % nodes or rng.random() < 0.4:
        cp = split_counts(vcpus, nodes, rng)
        mp = split_counts(mem // 256, nodes, rng) if mem % 256 == 0 else None
        if cp and mp:
            perm = list(range(vcpus))
            if rng.random() < 0.5:
                rng.shuffle(perm)
            pos = 0
            for i in range(nodes):
                es[f"hw:numa_cpus.{i}"] = cpu_spec(perm[pos:pos + cp[i]])
                pos += cp[i]
                es[f"hw:numa_mem.{i}"] = str(mp[i] * 256)
        elif vcpus % nodes or mem % nodes:
            nodes = rng.choice([d for d in range(1, nodes + 1) if vcpus % d == 0 and mem % d == 0])
            es["hw:numa_nodes"] = str(nodes)
    pci = []
    if rng.random() < 0.3:
        v, p = rng.choice(PCI_IDS[:2])
        pci.append({"count": rng.choice([1, 1, 2, 3]), "vendor_id": v, "product_id": p})
        if rng.random() < 0.2:
            v, p = rng.choice(PCI_IDS[:2])
            pci.append({"count": rng.choice([1, 2]), "vendor_id": v, "product_id": p})
        if rng.random() < 0.7:
            es["hw:pci_numa_affinity_policy"] = rng.choice(["required", "preferred", "legacy", "socket"])
    return {"flavor": {"vcpus": vcpus, "memory_mib": mem, "extra_specs": es}, "image": {"properties": img}, "pci": pci}


STRESS = 0.0
HUGE_ONLY = 0.0  # share of cases whose host cells list no small pages (drawn only when above 0)
NETWORK = 0.0
PMEM = 0.0
PCI_SPECS = 0.0
DEV_TYPES = ["type-PCI", "type-VF", "type-PF", "vdpa"]
PMEM_VALUES = ["SMALL", "SMALL,LARGE", "LARGE, SMALL ,", " ", ",", "", " , ,", "4GB,4GB"]
PHYSNETS = ["physnet0", "physnet1", "physnet2", "physnet3"]


def random_spec(rng, devices):
    """One alternative of a PCI request's spec list: mostly some of one host device's own keys
    (so that it matches that device, and others of its kind), else ids and tags drawn freely."""
    if devices and rng.random() < 0.7:
        d = rng.choice(devices)
        spec = {}
        for key, keep in (("vendor_id", 0.8), ("product_id", 0.7)):
            if rng.random() < keep:
                spec[key] = d[key].upper() if rng.random() < 0.1 else d[key]
        for key, value in d.get("tags", {}).items():
            if rng.random() < 0.5:
                spec[key] = value
        return spec
    v, p = rng.choice(PCI_IDS)
    spec = {}
    if rng.random() < 0.9:
        spec["vendor_id"] = v
    if rng.random() < 0.8:
        spec["product_id"] = p
    if rng.random() < 0.5:
        spec["dev_type"] = rng.choices(DEV_TYPES, [3, 4, 2, 1])[0]
    if rng.random() < 0.25:
        # None: a port on a tunneled network, which asks for a device on no physnet
        spec["physical_network"] = rng.choice(PHYSNETS[:2] + [None])
    if rng.random() < 0.1:
        spec["remote_managed"] = rng.choice(["true", "True", "false"])
    return spec


def add_pci_specs(rng, case):
    """PCI pools with Nova's tags (dev_type on every device, sometimes a physnet, None included, or remote_managed)
    and PCI requests as spec lists (one to three alternatives), so that the spec matching and
    Nova's rules for PFs, VDPA and remote-managed devices decide."""
    host, req = case["host"], case["request"]
    if not host["pci"] or rng.random() < 0.3:
        host["pci"] = random_pci(rng, len(host["cells"]))
    for d in host["pci"]:
        tags = {"dev_type": rng.choices(DEV_TYPES, [3, 4, 2, 1])[0]}
        if rng.random() < 0.4:
            tags["physical_network"] = rng.choice(PHYSNETS[:2] + [None])
        if rng.random() < 0.15:
            tags["remote_managed"] = rng.choice(["true", "false", "True"])
        d["tags"] = tags
    if not req.get("pci"):
        req["pci"] = [{"count": rng.choice([1, 1, 2]), "vendor_id": "", "product_id": ""}]
        if rng.random() < 0.5:
            req["flavor"].setdefault("extra_specs", {})["hw:pci_numa_affinity_policy"] = \
                rng.choice(["required", "preferred", "legacy", "socket"])
    for r in req["pci"]:
        r.pop("vendor_id", None)
        r.pop("product_id", None)
        r["specs"] = [random_spec(rng, host["pci"]) for _ in range(rng.choice([1, 1, 2, 3]))]
    if rng.random() < 0.3:
        req["pci"].append({"count": 1, "specs": [random_spec(rng, host["pci"])]})


def pci_specs_matter(case, expect, timeout):
    """Whether Nova answers `case` otherwise with every device's tags and every spec key beyond the
    ids dropped (plain vendor/product matching)."""
    if not any("specs" in r for r in case["request"].get("pci") or []):
        return False
    plain = copy.deepcopy(case)
    for d in plain["host"]["pci"]:
        d.pop("tags", None)
    for r in plain["request"]["pci"]:
        for spec in r.get("specs", []):
            for key in [k for k in spec if k not in ("vendor_id", "product_id")]:
                spec.pop(key)
    return run_nova_capped(plain, timeout) != expect


def add_networks(rng, case):
    """Network NUMA affinity on the case: physnets and tunneled networks on some host cells (some
    cells without network_metadata at all), and on the request, sometimes a physnet no cell names."""
    host, req = case["host"], case["request"]
    if host.get("allocation_ratio") is None:
        host["allocation_ratio"] = {"cpu": 16.0, "ram": 1.5}
    known = PHYSNETS[:rng.randint(1, len(PHYSNETS))]
    for cell in host["cells"]:
        if rng.random() < 0.2:
            cell.pop("network_metadata", None)
            continue
        cell["network_metadata"] = {"physnets": sorted(p for p in known if rng.random() < 0.3),
                                    "tunneled": rng.random() < 0.3}
    asked = [p for p in PHYSNETS + ["physnet-none"] if rng.random() < 0.3]
    req["network_metadata"] = {"physnets": sorted(asked), "tunneled": rng.random() < 0.4}
    if rng.random() < 0.5 and len(host["cells"]) > 1:
        # fewer guest cells than host cells, so the host cells chosen matter
        es = req["flavor"].setdefault("extra_specs", {})
        if not any(k.startswith("hw:numa_cpus") for k in es):
            es["hw:numa_nodes"] = str(rng.randint(1, max(1, len(host["cells"]) // 2)))
            vc, mem = req["flavor"]["vcpus"], req["flavor"]["memory_mib"]
            n = int(es["hw:numa_nodes"])
            if vc % n or mem % n:
                es["hw:numa_nodes"] = "1"


def gen_case(rng, corpus, idx, prefix):
    r = rng.random()
    if rng.random() < STRESS:
        host = stress_host(rng)
        req = stress_request(rng, len(host["cells"]), host)
    elif r < 0.35:
        host = random_host(rng)
        req = random_request(rng, len(host["cells"]))
    elif r < 0.6:
        base = rng.choice(corpus)
        host = mutate_host(rng, base["host"])
        req = random_request(rng, len(host["cells"])) if rng.random() < 0.5 else \
            mutate_request(rng, rng.choice(corpus)["request"], len(host["cells"]))
    elif r < 0.8:
        a, b = rng.choice(corpus), rng.choice(corpus)
        host = copy.deepcopy(a["host"])
        req = copy.deepcopy(b["request"])
        if rng.random() < 0.5:
            req = mutate_request(rng, req, len(host["cells"]))
    else:
        base = rng.choice(corpus)
        host = mutate_host(rng, base["host"])
        req = mutate_request(rng, base["request"], len(host["cells"]))
    case = {"id": f"{prefix}-{idx:06d}", "host": host, "request": req}
    if rng.random() < NETWORK:
        add_networks(rng, case)
    if rng.random() < PCI_SPECS:
        add_pci_specs(rng, case)
    if rng.random() < PMEM:
        # vPMEM labels (hw:pmem, flavor only): a topology for guests that would otherwise float
        es = req["flavor"].setdefault("extra_specs", {})
        es["hw:pmem"] = rng.choice(PMEM_VALUES)
        if rng.random() < 0.6:
            for key in [k for k in es if k.startswith(("hw:numa_", "hw:cpu_", "hw:mem_page_size"))]:
                es.pop(key)
    if rng.random() < 0.05:
        case["config"] = {"compute.packing_host_numa_cells_allocation_strategy": True}
    if HUGE_ONLY and rng.random() < HUGE_ONLY:
        huge_pages_only(rng, case)
    return case


def huge_pages_only(rng, case):
    """The case's host cells list huge pages and no small ones (Nova's smallest listed pages are then
    what a guest without a page size takes: can_fit_pagesize). A cell's small-page memory becomes
    pages of one of its huge sizes (2 MiB or 1 GiB when it has none), used in the same proportion.
    The request sometimes asks for what such a host meets: no page size, a size it lists, "0" (Nova
    reads it as none), or memory that is not a whole number of 1 GiB or 2 MiB pages."""
    for cell in case["host"]["cells"]:
        pages = cell.get("pages") or []
        huge = [dict(p) for p in pages if p["size_kib"] > 4]
        small = next((p for p in pages if p["size_kib"] == 4), None)
        small_kib = small["total"] * 4 if small else cell["memory_mib"] * 1024
        if not huge:
            huge = [{"size_kib": rng.choice([2048, 1048576]), "total": 0, "used": 0}]
        pool = rng.choice(huge)
        added = small_kib // pool["size_kib"]
        if small and small["total"]:
            pool["used"] += added * small["used"] // small["total"]
        pool["total"] += added
        cell["pages"] = [p for p in huge if p["total"] > 0] or [pool]
    flavor = case["request"]["flavor"]
    es = flavor.setdefault("extra_specs", {})
    image = case["request"].setdefault("image", {}).setdefault("properties", {})
    several = [k for k, v in es.items() if k.startswith("hw:numa_mem.") or (k == "hw:numa_nodes" and str(v) != "1")] + \
        [k for k, v in image.items() if k.startswith("hw_numa_mem.") or (k == "hw_numa_nodes" and str(v) != "1")]
    if rng.random() < 0.5 and not several:
        # One guest cell without a page size, its memory off the pages' grain (1 or 2 MiB more is off
        # 2 MiB and 1 GiB pages, 512 MiB off 1 GiB pages; several cells would split it unevenly,
        # another rule; a page size asked for would be another fit).
        image.pop("hw_mem_page_size", None)
        es.pop("hw:mem_page_size", None)
        es["hw:numa_nodes"] = "1"
        flavor["memory_mib"] = flavor["memory_mib"] + rng.choice([1, 2, 512])
        return
    choice = rng.choice(["keep", "none", "0", "2MB", "1GB", "large", "any", "small"])
    if choice != "keep":
        # The image's own page size goes too: a flavor and image that disagree are another rule.
        image.pop("hw_mem_page_size", None)
        es.pop("hw:mem_page_size", None)
        if choice != "none":
            es["hw:mem_page_size"] = choice


# --------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------

def strip_expect(e):
    return json.loads(json.dumps(e))


def validate(n, seed):
    rng = random.Random(seed)
    edge = [json.loads(l) for l in open(os.path.join(CONFORMANCE, "edge.jsonl"))]
    fit = [json.loads(l) for l in open(os.path.join(CONFORMANCE, "fit.jsonl"))]
    quirky = [r for r in fit if r["expect"].get("nova_quirks")]
    sample = edge + quirky + rng.sample(fit, min(n, len(fit)))
    same = differ = dropped = 0
    for row in sample:
        got = run_nova_capped({k: v for k, v in row.items() if k != "expect"}, 30.0)
        if got is None:
            dropped += 1
            continue
        if strip_expect(got) == row["expect"]:
            same += 1
        else:
            differ += 1
            if differ <= 10:
                print("DIFF", row["id"], "\n  want", json.dumps(row["expect"])[:800], "\n  got ",
                      json.dumps(got)[:800])
    print(f"validate: {same} reproduced exactly, {differ} differ, {dropped} timed out (of {len(sample)})")
    return differ == 0


def run_numaplace(binary, path):
    proc = subprocess.run([binary, "conformance", "nova-fit", path], capture_output=True, text=True)
    return proc.stdout + proc.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="/tmp/diff/cases.jsonl")
    ap.add_argument("--numaplace", help="the numaplace-dev binary (build/numaplace-dev); runs its nova-fit runner on --out")
    ap.add_argument("--validate", type=int, metavar="N", help="re-run Nova on given vectors and compare")
    ap.add_argument("--recheck", metavar="FILE", help="re-run Nova on FILE's cases, print differences")
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--dropped", help="write the cases Nova did not finish within --timeout here (no expect)")
    ap.add_argument("--stress", type=float, default=0.0,
                    help="fraction of cases drawn from small, tight hosts (fitter corner cases)")
    ap.add_argument("--network", type=float, default=0.0,
                    help="fraction of cases given network NUMA affinity (host cells' and request's network_metadata)")
    ap.add_argument("--network-effective", action="store_true",
                    help="write only the cases whose answer the request's network_metadata changes")
    ap.add_argument("--pmem", type=float, default=0.0,
                    help="fraction of cases whose flavor asks for vPMEM (hw:pmem), most without other NUMA keys")
    ap.add_argument("--pci-specs", type=float, default=0.0,
                    help="fraction of cases with tagged PCI pools and PCI requests as spec lists")
    ap.add_argument("--pci-effective", action="store_true",
                    help="write only the cases whose answer the devices' tags change (the same case with "
                         "the tags dropped and each spec's keys other than the ids removed answers otherwise)")
    args = ap.parse_args()
    global STRESS, NETWORK, PMEM, PCI_SPECS
    PCI_SPECS = args.pci_specs
    PMEM = args.pmem
    STRESS = args.stress
    NETWORK = args.network
    nova()
    if args.validate is not None:
        sys.exit(0 if validate(args.validate, args.seed) else 1)
    if args.recheck:
        for line in open(args.recheck):
            row = json.loads(line)
            got = run_nova_capped({k: v for k, v in row.items() if k != "expect"}, args.timeout)
            print(row["id"], "same" if got == row.get("expect") else "DIFF " + json.dumps(got))
        return
    rng = random.Random(args.seed)
    corpus = load_corpus()
    written = dropped = 0
    kinds = {}
    drop_file = open(args.dropped, "w") if args.dropped else None
    with open(args.out, "w") as out:
        for i in range(args.count):
            case = gen_case(rng, corpus, i, f"diff-s{args.seed}")
            expect = run_nova_capped(case, args.timeout)
            if expect is None:
                dropped += 1
                if drop_file:
                    drop_file.write(json.dumps(case) + "\n")
                continue
            if args.network_effective:
                # keep only cases whose answer the network affinity changed
                plain = copy.deepcopy(case)
                plain["request"].pop("network_metadata", None)
                if run_nova_capped(plain, args.timeout) == expect:
                    continue
            if args.pci_effective and not pci_specs_matter(case, expect, args.timeout):
                continue
            case["expect"] = expect
            kinds[expect["kind"]] = kinds.get(expect["kind"], 0) + 1
            if expect.get("nova_quirks"):
                key = "quirk:" + "+".join(expect["nova_quirks"])
                kinds[key] = kinds.get(key, 0) + 1
            out.write(json.dumps(case) + "\n")
            written += 1
    print(f"wrote {written} cases to {args.out} ({dropped} dropped after {args.timeout}s): "
          + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    if args.numaplace:
        text = run_numaplace(args.numaplace, args.out)
        print(text[-20000:])


if __name__ == "__main__":
    main()
