#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""numaplace.nova's drop-ins on Nova's own answers: every nova-fit reference vector (made by running
Nova 26.2.2: tests/data/conformance/nova/README.md) is turned into Nova's objects (Flavor, ImageMeta,
NUMATopology, NUMATopologyLimits, PciDeviceStats, InstancePCIRequest: the builders of
tools/conformance/nova_differential.py, which made the vectors), then run through Nova's pipeline with
the drop-ins in Nova's place: numaplace.nova.numa_get_constraints, Nova's own
get_pci_numa_policy_constraint, numaplace.nova.numa_fit_instance_to_host. The outcome must be the
vector's (expect_fixed where Nova's own answer is inconsistent): the exception class, no topology,
no fit, or a fit on the same host cells with the same page sizes and pinned cells, every pinned
vCPU on a pCPU of its host cell's pcpuset not already pinned.

  PYTHONPATH=build/python NUMAPLACE_LIBRARY=build/libnumaplace.so \\
    /usr/bin/python3 tests/nova/dropin_vectors.py build/test-data/conformance/nova/edge.jsonl ...

Exit 0: every vector agrees; 1: some do not (each printed); 77: Nova is not installed.
"""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "conformance"))


def outcome(nd, npnova, case):
    """The drop-ins' answer for one vector, in the vectors' terms."""
    n = nd.nova()
    objects, hardware, conf = n["objects"], n["hardware"], n["conf"]
    request = case["request"]
    overrides = nd.apply_case_config(conf, case)
    try:
        try:
            flavor, image = nd.flavor_and_image(objects, request)
            topology = npnova.numa_get_constraints(flavor, image)
            pci_policy = hardware.get_pci_numa_policy_constraint(flavor, image)
        except Exception as e:  # noqa: every error class is an answer
            return {"kind": "invalid", "error": type(e).__name__}
        if topology is None:
            return {"kind": "no_topology"}
        host = nd.build_host(case["host"])
        ratio = case["host"].get("allocation_ratio")
        limits = None if ratio is None else objects.NUMATopologyLimits(cpu_allocation_ratio=ratio["cpu"],
                                                                      ram_allocation_ratio=ratio["ram"])
        pci_requests = nd.build_pci_requests(request, pci_policy)
        stats = nd.build_pci_stats(case["host"], host)
        fitted = npnova.numa_fit_instance_to_host(host, topology, limits, pci_requests or None, stats)
        if fitted is None:
            return {"kind": "no_fit"}
        by_id = {c.id: c for c in host.cells}
        cells = []
        for i, cell in enumerate(fitted.cells):
            pinning = cell.cpu_pinning if cell.obj_attr_is_set("cpu_pinning_raw") and cell.cpu_pinning_raw else None
            if pinning:
                host_cell = by_id[cell.id]
                wrong = [p for p in pinning.values() if p not in host_cell.pcpuset or p in host_cell.pinned_cpus]
                if wrong or len(set(pinning.values())) != len(pinning) or set(pinning) != set(cell.pcpuset):
                    return {"kind": "bad_pinning", "cell": i, "pinning": pinning}
            cells.append({"host_cell": cell.id,
                          "pagesize_kib": cell.pagesize if cell.obj_attr_is_set("pagesize") else None,
                          "pinned": bool(pinning)})
        return {"kind": "fit", "cells": cells}
    finally:
        nd.clear_case_config(conf, overrides)


def wanted(case):
    outer = case["expect"]
    expect = outer.get("expect_fixed", outer)
    if expect["kind"] == "invalid":
        return {"kind": "invalid", "error": expect["error"]}
    if expect["kind"] != "fit":
        return {"kind": expect["kind"]}
    return {"kind": "fit", "cells": [{"host_cell": c["host_cell"], "pagesize_kib": c.get("pagesize_kib"),
                                      "pinned": c.get("pinning") is not None} for c in expect["cells"]]}


def main():
    try:
        import nova_differential as nd
        nd.nova()
    except ImportError as exc:
        print(f"SKIP: Nova cannot be imported ({exc})")
        return 77
    from numaplace import nova as npnova
    started = time.monotonic()
    checked, bad = 0, []
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                case = json.loads(line)
                got, want = outcome(nd, npnova, case), wanted(case)
                checked += 1
                if got != want:
                    bad.append((case.get("id"), want, got))
    for case_id, want, got in bad:
        print(f"FAIL {case_id}: expected {json.dumps(want)}, got {json.dumps(got)}")
    print(f"{checked} vectors through numaplace.nova in {time.monotonic() - started:.1f} s: "
          f"{checked - len(bad)} agree with Nova, {len(bad)} do not")
    return 0 if checked and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
