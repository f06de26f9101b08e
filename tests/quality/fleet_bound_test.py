#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The pooled-resource bound on a fleet's total admissions (tools/bench/fleet_bound.py) is an
upper bound: no run exceeds it, neither Nova's recorded one nor numaplace's under the fleet
command's strategies. It must also say something: below the number of requests on these fleets,
which fill up. Prints the bound against each run.

Usage: fleet_bound_test.py NUMAPLACE_DEV FLEET.json...
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "bench"))
import fleet_bound  # noqa: E402


def main():
    numaplace_dev, files = sys.argv[1], sys.argv[2:]
    failures = 0
    for path in files:
        with open(path) as f:
            fleet = json.load(f)
        bound = fleet_bound.bound(fleet)
        runs = {"nova (recorded)": fleet["nova"]["admitted_total"]}
        for flags in ([], ["--strategy", "spread"], ["--strategy", "pack"]):
            out = subprocess.run([numaplace_dev, "fleet", path, "--json", *flags], check=True, capture_output=True,
                                 text=True).stdout
            runs["numaplace " + (" ".join(flags) or "default")] = json.loads(out)["numaplace"]["admitted_total"]
        for name, total in runs.items():
            verdict = "ok" if total <= bound else "EXCEEDS THE BOUND"
            failures += total > bound
            print(f"{os.path.basename(path)}: {name} admitted {total} in total, bound {bound}: {verdict}")
        if bound >= len(fleet["requests"]):
            print(f"{os.path.basename(path)}: bound {bound} says nothing ({len(fleet['requests'])} requests)")
            failures += 1
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
