#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Admission streams never recorded, answered by Nova 26 itself and by `numaplace-dev replay`
(ctest nova.stream-differential, label nova).

Draws --count streams with tools/bench/make_streams.py (the recipe of streams.jsonl: its four host
shapes, 1 GiB pages, CPU and RAM ratios, split CPU sets, 200 requests of its mix) from --seed,
places them one request after another with python3-nova's own code, spread and pack
(tools/conformance/nova_stream_differential.py: numa_fit_instance_to_host, and
numa_usage_from_instance_numa after every admission), and has `replay --strategy nova` and
`--strategy nova-pack` reproduce both runs: every stream's figures and every admission's host
cells, page sizes and pinned pCPUs. Exit 0: all reproduced; 1: a difference (printed); 77: no Nova.

  /usr/bin/python3 tests/nova/stream_differential.py build/numaplace-dev STREAMS_JSONL [--count 12] [--seed 2612]
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("numaplace_dev", help="build/numaplace-dev")
    ap.add_argument("streams", help="tests/data/conformance/nova/streams.jsonl (the host shapes drawn from)")
    ap.add_argument("--count", type=int, default=12, help="streams to draw")
    ap.add_argument("--seed", type=int, default=2612)
    args = ap.parse_args()
    try:
        sys.path.insert(0, os.path.join(ROOT, "tools", "conformance"))
        import nova_differential as nd
        nd.nova()
    except (ImportError, SystemExit) as exc:
        print(f"SKIP: Nova cannot be imported ({exc})")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        drawn = os.path.join(tmp, "drawn.jsonl")
        with open(drawn, "w") as out:
            subprocess.run([sys.executable, os.path.join(ROOT, "tools", "bench", "make_streams.py"), args.numaplace_dev,
                            args.streams, str(args.count), str(args.seed)], stdout=out, check=True)
        with open(drawn) as f:
            drawn_count = sum(1 for line in f if line.strip())
        if drawn_count != args.count:
            print(f"FAIL: make_streams.py drew {drawn_count} streams, {args.count} asked")
            return 1
        answered = os.path.join(tmp, "nova.jsonl")
        run = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "conformance", "nova_stream_differential.py"),
                              drawn, "--out", answered, "--jobs", "2", "--numaplace", args.numaplace_dev])
        print(f"{args.count} streams drawn from seed {args.seed}: "
              + ("replay reproduced Nova's spread and pack runs on every one" if run.returncode == 0
                 else f"a difference (exit {run.returncode})"))
        return 0 if run.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
