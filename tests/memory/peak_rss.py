#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Peak resident memory of `numaplace place --capabilities FILE` on a 16-cell host.

Writes a 16-cell capabilities document (4 sockets x 4 cells, 8 cores x 2 threads and
64 GiB per cell, 2 MiB and 1 GiB pages, distances 10/12/21/32), places
examples/guest-8vcpu-4g.xml on it three ways (8-cell shared, 8-cell dedicated with
thread policy require, 2-cell with 1 GiB pages), and reads each child's peak RSS from
wait4 in peak_rss_probe (a C launcher: a child forked from Python would start from the
interpreter's RSS). Fails when one exceeds the limit (16 MiB) or the placement fails.
Usage: peak_rss.py PEAK_RSS_PROBE NUMAPLACE_BINARY SOURCE_DIR [LIMIT_KIB]"""
import os
import subprocess
import sys
import tempfile

CELLS, SOCKETS, CORES = 16, 4, 8


def distance(a, b):
    if a == b:
        return 10
    sa, sb = a // (CELLS // SOCKETS), b // (CELLS // SOCKETS)
    if sa == sb:
        return 12
    return 21 if (sa - sb) % SOCKETS in (1, SOCKETS - 1) else 32


def capabilities():
    out = ["<capabilities>", "  <host>", "    <uuid>00000000-0000-0000-0000-000000000016</uuid>",
           "    <cpu><arch>x86_64</arch><topology sockets='4' dies='1' cores='32' threads='2'/>",
           "      <pages unit='KiB' size='4'/><pages unit='KiB' size='2048'/><pages unit='KiB' size='1048576'/></cpu>",
           "    <topology>", f"      <cells num='{CELLS}'>"]
    for c in range(CELLS):
        base = c * 2 * CORES
        out += [f"        <cell id='{c}'>", "          <memory unit='KiB'>67108864</memory>",
                "          <pages unit='KiB' size='4'>12582912</pages>",
                "          <pages unit='KiB' size='2048'>2048</pages>",
                "          <pages unit='KiB' size='1048576'>12</pages>", "          <distances>"]
        out += [f"            <sibling id='{o}' value='{distance(c, o)}'/>" for o in range(CELLS)]
        out += ["          </distances>", f"          <cpus num='{2 * CORES}'>"]
        for k in range(CORES):
            a, b = base + k, base + CORES + k
            for cpu in (a, b):
                out.append(f"            <cpu id='{cpu}' socket_id='{c // 4}' die_id='0' core_id='{c * CORES + k}' "
                           f"siblings='{a},{b}'/>")
        out += ["          </cpus>", "        </cell>"]
    out += ["      </cells>", "    </topology>", "  </host>", "</capabilities>"]
    return "\n".join(out) + "\n"


def main():
    probe, binary, source = sys.argv[1], sys.argv[2], sys.argv[3]
    limit = int(sys.argv[4]) if len(sys.argv) > 4 else 16 * 1024
    domain = os.path.join(source, "examples", "guest-8vcpu-4g.xml")
    cases = {
        "8-cell shared": ["--spec", "hw:numa_nodes=8"],
        "8-cell dedicated, require": ["--spec", "hw:numa_nodes=8", "--spec", "hw:cpu_policy=dedicated",
                                      "--spec", "hw:cpu_thread_policy=require"],
        "2-cell, 1 GiB pages": ["--spec", "hw:numa_nodes=2", "--spec", "hw:mem_page_size=1GB"],
    }
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        caps = os.path.join(tmp, "caps-16cell.xml")
        with open(caps, "w") as f:
            f.write(capabilities())
        for name, spec in cases.items():
            argv = [binary, "place", domain, "--capabilities", caps] + spec
            out = subprocess.run([probe] + argv, capture_output=True, text=True)
            code, kib = (int(x) for x in out.stdout.split())
            if code != 0:
                print(f"FAIL {name}: numaplace exited {code}: {out.stderr.strip()}")
                failed = True
                continue
            verdict = "ok" if kib < limit else "OVER"
            failed |= kib >= limit
            print(f"{verdict} {name}: peak RSS {kib} KiB ({kib / 1024:.1f} MiB), limit {limit} KiB")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
