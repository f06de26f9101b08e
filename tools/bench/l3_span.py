#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""L3 cache domains spanned per guest cell: numaplace's default strategy against Nova's order.

For hosts of 2 cells x 32 cores x 2 threads whose L3 caches (CCXs) hold 4 or 8 cores, a seeded
stream of dedicated guests (1 cell, 2 to 16 vCPUs) is placed one after another with `numaplace
place --capabilities HOST --claim ...` until one does not fit, once with `--strategy nova` (Nova's
pins) and once with the default. Each guest cell's pins are counted against the L3 domains of its
host cell; the table gives the mean domains spanned and the share of guest cells that could have
sat in one domain (vCPUs <= the domain's threads) but span several.

  tools/bench/l3_span.py build/numaplace [--seed N] [--guests N]
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

CELLS, CORES, THREADS = 2, 32, 2


def capabilities(ccx_cores):
    out = ["<capabilities><host><uuid>6c0f6c2e-0000-4000-8000-000000000013</uuid>",
           "<cpu><arch>x86_64</arch></cpu><topology><cells num='%d'>" % CELLS]
    per_cell = CORES * THREADS
    for cell in range(CELLS):
        out.append("<cell id='%d'><memory unit='KiB'>%d</memory><distances>" % (cell, 256 << 20))
        for other in range(CELLS):
            out.append("<sibling id='%d' value='%d'/>" % (other, 10 if other == cell else 21))
        out.append("</distances><cpus num='%d'>" % per_cell)
        for core in range(CORES):
            first = cell * CORES + core
            siblings = "%d,%d" % (first, first + CELLS * CORES)
            for thread in range(THREADS):
                cpu = first + thread * CELLS * CORES
                out.append("<cpu id='%d' socket_id='%d' core_id='%d' siblings='%s'/>" % (cpu, cell, core, siblings))
        out.append("</cpus></cell>")
    out.append("</cells></topology><cache>")
    bank = 0
    for cell in range(CELLS):
        for first in range(0, CORES, ccx_cores):
            cores = [cell * CORES + c for c in range(first, first + ccx_cores)]
            cpus = cores + [c + CELLS * CORES for c in cores]
            out.append("<bank id='%d' level='3' type='both' size='32' unit='MiB' cpus='%s'/>"
                       % (bank, ",".join(map(str, sorted(cpus)))))
            bank += 1
    out.append("</cache></host></capabilities>")
    return "".join(out), ccx_cores * THREADS


def domain_of(cpu, ccx_cores):
    core = cpu % (CELLS * CORES)
    return core // ccx_cores


def run_stream(numaplace, caps_path, strategy, sizes, ccx_cores, work):
    claims, spans, avoidable = [], [], 0
    for i, vcpus in enumerate(sizes):
        guest = os.path.join(work, "%s-%d.xml" % (strategy or "default", i))
        with open(guest, "w") as f:
            f.write("<domain type='kvm'><name>g%d</name><memory unit='MiB'>1024</memory><vcpu>%d</vcpu>"
                    "<os><type arch='x86_64'>hvm</type></os><devices/></domain>" % (i, vcpus))
        cmd = [numaplace, "place", guest, "--capabilities", caps_path, "--spec", "hw:numa_nodes=1",
               "--spec", "hw:cpu_policy=dedicated", "-o", guest]
        if strategy:
            cmd += ["--strategy", strategy]
        for claim in claims:
            cmd += ["--claim", claim]
        if subprocess.run(cmd, capture_output=True).returncode != 0:
            break
        pins = [int(p) for p in re.findall(r'<vcpupin vcpu="\d+" cpuset="(\d+)"', open(guest).read())]
        used = {domain_of(p, ccx_cores) for p in pins}
        spans.append(len(used))
        if len(used) > 1 and vcpus <= ccx_cores * THREADS:
            avoidable += 1
        claims.append(guest)
    return spans, avoidable


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("numaplace")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--guests", type=int, default=40)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    sizes = [rng.choice([2, 2, 4, 4, 6, 8, 8, 12, 16]) for _ in range(args.guests)]
    print("| CCX | strategy | guests placed | mean L3 domains per guest cell | cells spanning domains they fit in one |")
    print("| --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as work:
        for ccx in (4, 8):
            text, _ = capabilities(ccx)
            caps = os.path.join(work, "caps-ccx%d.xml" % ccx)
            with open(caps, "w") as f:
                f.write(text)
            for strategy, label in (("nova", "Nova's order"), (None, "numaplace default")):
                spans, avoidable = run_stream(args.numaplace, caps, strategy, sizes, ccx, work)
                mean = sum(spans) / len(spans) if spans else 0
                print("| %d cores | %s | %d | %.2f | %d |" % (ccx, label, len(spans), mean, avoidable))
    return 0


if __name__ == "__main__":
    sys.exit(main())
