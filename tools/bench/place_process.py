#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Time the whole `numaplace place` process on a big host: the CLI's default strategy against
`--strategy nova` (Nova's first fit, the baseline), run alternately in this one process.

Not run in CI. Writes into a temporary directory a synthetic 'virsh capabilities' document of
CELLS NUMA cells (8 cores x 2 threads and 64 GiB each; distances 10 local, 12 within a pair of
cells, 21 elsewhere: the shape of tools/bench/strategy_fit_bench.cpp) and a guest of GUEST_CELLS
cells of 4 vCPUs and 4 GiB (hw:numa_nodes=GUEST_CELLS, dedicated with --dedicated), then runs
`numaplace place GUEST --capabilities CAPS --spec ... -o OUT` REPEAT times per strategy and prints
the median wall time of each and their ratio:

  python3 tools/bench/place_process.py build/numaplace [--cells 64] [--guest-cells 32] [--dedicated]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def capabilities(cells: int) -> str:
    out = ["<capabilities>", "  <host>", "    <cpu>", "      <arch>x86_64</arch>",
           f"      <topology sockets='{cells}' dies='1' cores='8' threads='2'/>",
           "      <pages unit='KiB' size='4'/>", "    </cpu>", "    <topology>", f"      <cells num='{cells}'>"]
    for i in range(cells):
        out += [f"        <cell id='{i}'>", "          <memory unit='KiB'>67108864</memory>",
                "          <pages unit='KiB' size='4'>16777216</pages>", "          <distances>"]
        for j in range(cells):
            d = 10 if i == j else 12 if i // 2 == j // 2 else 21
            out.append(f"            <sibling id='{j}' value='{d}'/>")
        out += ["          </distances>", "          <cpus num='16'>"]
        base = i * 16
        for c in range(8):
            for t in range(2):
                cpu = base + c + 8 * t
                out.append(f"            <cpu id='{cpu}' socket_id='{i}' die_id='0' core_id='{c}' "
                           f"siblings='{base + c},{base + c + 8}'/>")
        out += ["          </cpus>", "        </cell>"]
    out += ["      </cells>", "    </topology>", "  </host>", "</capabilities>", ""]
    return "\n".join(out)


def guest(cells: int) -> str:
    return (f"<domain type='kvm'>\n  <name>place-process-bench</name>\n"
            f"  <memory unit='GiB'>{4 * cells}</memory>\n  <vcpu>{4 * cells}</vcpu>\n"
            "  <os>\n    <type arch='x86_64'>hvm</type>\n  </os>\n  <devices/>\n</domain>\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("numaplace")
    parser.add_argument("--cells", type=int, default=64)
    parser.add_argument("--guest-cells", type=int, default=32)
    parser.add_argument("--dedicated", action="store_true")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        caps = os.path.join(tmp, "caps.xml")
        dom = os.path.join(tmp, "guest.xml")
        with open(caps, "w", encoding="utf-8") as f:
            f.write(capabilities(args.cells))
        with open(dom, "w", encoding="utf-8") as f:
            f.write(guest(args.guest_cells))
        specs = ["--spec", f"hw:numa_nodes={args.guest_cells}"]
        if args.dedicated:
            specs += ["--spec", "hw:cpu_policy=dedicated"]
        runs = {"default": [], "nova": []}
        for _ in range(args.repeat):
            for name, extra in (("default", []), ("nova", ["--strategy", "nova"])):
                out = os.path.join(tmp, f"out-{name}.xml")
                start = time.perf_counter()
                done = subprocess.run([args.numaplace, "place", dom, "--capabilities", caps, *specs, *extra,
                                       "-o", out], capture_output=True, text=True, check=False)
                runs[name].append(time.perf_counter() - start)
                if done.returncode != 0:
                    print(f"numaplace place ({name}) failed: {done.stderr.strip()}", file=sys.stderr)
                    return 1
        default = statistics.median(runs["default"]) * 1000
        nova = statistics.median(runs["nova"]) * 1000
        print(f"{args.cells} host cells x {args.guest_cells} guest cells, "
              f"{'dedicated' if args.dedicated else 'shared'}: default strategy {default:.1f} ms, "
              f"--strategy nova {nova:.1f} ms (median of {args.repeat}), ratio {default / nova:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
