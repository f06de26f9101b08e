#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A fleet: many hosts of the admission streams' shapes and one stream of requests for all of them.

Issue 17 compares numaplace's rank + place with Nova's scheduler over a fleet, not one host. The
hosts are drawn host by host as tools/bench/make_streams.py draws a stream's host (the four shapes in
turn, 1 GiB pages, CPU and RAM ratios, split CPU sets on every other group of four), and the
requests as it draws a stream's (the same kinds in the same proportions, the same sizes), except
that each request is re-drawn until it fits at least one empty host of the fleet (a host drawn at
random for it) rather than one given host. The file is one JSON object:

  {"id": "fleet-SEED-HOSTSxPER", "seed": SEED,
   "hosts": [{"name": "host-000", "shape": "2s-1n", "host": HOST}, ...],   HOST: SCHEMA.md's neutral host
   "requests": [REQUEST, ...]}                                               SCHEMA.md's neutral request

`numaplace-dev fleet FILE` replays it; tools/conformance/nova_fleet.py records what the real Nova
scheduler (python3-nova's fit, its RAMWeigher) does with it.

Usage: tools/bench/make_fleet.py STREAMS_JSONL HOSTS REQUESTS_PER_HOST SEED > fleet.json
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_streams  # noqa: E402


def draw_fleet(templates, hosts, per_host, seed):
    rng = random.Random(seed)
    fleet = []
    for index in range(hosts):
        shape = make_streams.SHAPES[index % len(make_streams.SHAPES)]
        fleet.append({"name": f"host-{index:03d}", "shape": shape,
                      "host": make_streams.draw_host(templates[shape], index, rng)})
    kinds = [(kind, cells) for kind, cells, _ in make_streams.MIX]
    weights = [n for _, _, n in make_streams.MIX]
    requests = []
    for _ in range(hosts * per_host):
        kind, cells = rng.choices(kinds, weights)[0]
        requests.append(make_streams.draw_request(rng.choice(fleet)["host"], kind, cells, rng))
    return {"id": f"fleet-{seed}-{hosts}x{per_host}", "seed": seed, "hosts": fleet, "requests": requests}


def main():
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    source, hosts, per_host, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    if hosts < 1 or per_host < 1:
        raise SystemExit("make_fleet.py: HOSTS and REQUESTS_PER_HOST must be at least 1")
    templates = {}
    with open(source) as lines:
        for line in lines:
            if line.strip():
                stream = json.loads(line)
                templates.setdefault(stream["shape"], stream["host"])
    missing = [shape for shape in make_streams.SHAPES if shape not in templates]
    if missing:
        raise SystemExit(f"make_fleet.py: {source} has no stream of shape {', '.join(missing)}")
    print(json.dumps(draw_fleet(templates, hosts, per_host, seed)))


if __name__ == "__main__":
    main()
