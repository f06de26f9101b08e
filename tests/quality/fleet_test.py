#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""numaplace-dev fleet against a fleet the real Nova scheduled (tools/conformance/nova_fleet.py).

1. The model of Nova's scheduler (NUMATopologyFilter + RAMWeigher) must choose, request by request,
   the host the real Nova 26 chose: exit 0, "nova_reproduced": true, and the model's figures equal
   the recorded ones.
2. The comparison can fail: the same file with one recorded choice moved to another host must exit 1
   and name that request.
3. Bad input: a file that is not JSON, and one without hosts, exit 1 with InvalidFleet and print
   nothing on stdout.
Usage: fleet_test.py NUMAPLACE_DEV FLEET.json [--reproduce-only]   (only 1.: for a large fleet)
"""
import json
import os
import subprocess
import sys
import tempfile


def run(binary, path, *flags):
    return subprocess.run([binary, "fleet", path, *flags], capture_output=True, text=True)


def fail(message):
    print("fleet_test: " + message)
    sys.exit(1)


def main():
    binary, path = sys.argv[1], sys.argv[2]
    reproduce_only = sys.argv[3:] == ["--reproduce-only"]
    with open(path) as source:
        fleet = json.load(source)
    recorded = fleet["nova"]

    done = run(binary, path, "--json")
    if done.returncode != 0:
        fail(f"exit {done.returncode} on the recorded fleet: {done.stderr.strip()}")
    answer = json.loads(done.stdout)
    if answer["nova_reproduced"] is not True:
        fail("the model does not reproduce the recorded Nova run")
    for key in ("admitted_before_first_refusal", "admitted_total"):
        if answer["nova_model"][key] != recorded[key] or answer["nova_recorded"][key] != recorded[key]:
            fail(f"{key}: model {answer['nova_model'][key]}, recorded {recorded[key]}")
    if answer["hosts"] != len(fleet["hosts"]) or answer["requests"] != len(fleet["requests"]):
        fail("hosts or requests miscounted")
    print(f"ok: the model chose Nova's host for all {answer['requests']} requests; numaplace "
          f"{answer['numaplace']['admitted_before_first_refusal']} / {answer['numaplace']['admitted_total']}, Nova "
          f"{recorded['admitted_before_first_refusal']} / {recorded['admitted_total']}")
    if reproduce_only:
        return

    with tempfile.TemporaryDirectory() as scratch:
        moved = json.loads(json.dumps(fleet))
        trace = moved["nova"]["trace"]
        index = next(i for i, host in enumerate(trace) if host is not None)
        trace[index] = (trace[index] + 1) % len(moved["hosts"])
        altered = os.path.join(scratch, "moved.json")
        with open(altered, "w") as out:
            json.dump(moved, out)
        done = run(binary, altered)
        if done.returncode != 1 or f"request {index}:" not in done.stderr:
            fail(f"a moved choice at request {index} was not reported (exit {done.returncode}): {done.stderr.strip()}")
        print(f"ok: a moved choice at request {index} is reported")

        for name, text in (("broken.json", "{\"hosts\": ["), ("empty.json", json.dumps({"hosts": [], "requests": []}))):
            bad = os.path.join(scratch, name)
            with open(bad, "w") as out:
                out.write(text)
            done = run(binary, bad)
            if done.returncode != 1 or "InvalidFleet" not in done.stderr or done.stdout:
                fail(f"{name}: exit {done.returncode}, stdout {done.stdout!r}, stderr {done.stderr.strip()!r}")
        print("ok: bad fleets are InvalidFleet, exit 1, nothing on stdout")


if __name__ == "__main__":
    main()
