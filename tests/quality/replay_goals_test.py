#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""numaplace-dev replay --goals decides issue 17's goals as they are written, both ways.

The goals: over the streams, the mean of (ours / the better Nova run) is at least 1.05 before the
first refusal and at least 1.15 in total, and our mean intercell distance is no higher than Nova
pack's (over the streams where ours, Nova spread and Nova pack each placed a multi-cell guest).
This script computes that verdict itself, from `replay --json` (our figures per stream) and the
Nova figures recorded in the file, and checks `replay --goals` against it:
1. on the file as it is;
2. on copies whose recorded Nova figures are rewritten so that each goal is met, or missed by one
   request on one stream, alone and together;
3. on 30 copies whose Nova figures and distances are drawn at random around ours (seed 17), so
   that each goal falls either way.
The exit code (0 met, 1 missed) and the named goals must agree with the computed verdict in every
case, and at least one case must pass and each goal must be missed in another (so the check can
fail either way).
Usage: replay_goals_test.py NUMAPLACE_DEV STREAMS.jsonl
"""
import copy
import json
import os
import random
import subprocess
import sys
import tempfile

BEFORE, TOTAL = "admitted_before_first_refusal", "admitted_total"
GOAL_BEFORE, GOAL_TOTAL = 1.05, 1.15
GOALS = ("before the first refusal", "in total", "mean intercell distance")  # as replay names them


def ratio(ours, best):
    """Our figure over the better Nova run's, as replay counts it: 1 where Nova admitted none."""
    return ours / best if best else 1.0


def fail(message):
    print("replay_goals_test: " + message)
    sys.exit(1)


def replay(binary, path, *flags):
    return subprocess.run([binary, "replay", path, *flags], capture_output=True, text=True)


def ours_per_stream(binary, path):
    done = replay(binary, path, "--json")
    if done.returncode != 0:
        fail(f"replay --json exit {done.returncode}: {done.stderr.strip()}")
    return {row["id"]: row for row in map(json.loads, done.stdout.splitlines())}


def expected_misses(streams, ours):
    """The goals missed, by name, computed from the figures alone."""
    before = total = 0.0
    distance_ours = distance_pack = 0.0
    for stream in streams:
        mine, spread, pack = ours[stream["id"]], stream["nova"]["spread"], stream["nova"]["pack"]
        best_before = max(spread[BEFORE], pack[BEFORE])
        best_total = max(spread[TOTAL], pack[TOTAL])
        before += ratio(mine[BEFORE], best_before)
        total += ratio(mine[TOTAL], best_total)
        distances = (mine["mean_intercell_distance"], spread["mean_intercell_distance"],
                     pack["mean_intercell_distance"])
        if None not in distances:
            distance_ours += distances[0]
            distance_pack += distances[2]
    missed = set()
    if before / len(streams) < GOAL_BEFORE:
        missed.add("before the first refusal")
    if total / len(streams) < GOAL_TOTAL:
        missed.add("in total")
    if distance_ours > distance_pack:
        missed.add("mean intercell distance")
    return missed


def check(binary, path, streams, ours, label):
    want = expected_misses(streams, ours)
    done = replay(binary, path, "--goals")
    said = {line[len("goal missed: "):] for line in done.stdout.splitlines() if line.startswith("goal missed: ")}
    named = {goal for goal in GOALS if any(line.startswith(goal) for line in said)}
    if done.returncode != (1 if want else 0):
        fail(f"{label}: exit {done.returncode}, expected {1 if want else 0} (missed: {sorted(want)})")
    if named != want or len(said) != len(want):
        fail(f"{label}: replay names {sorted(said)}, expected {sorted(want)}")
    if not want and "every goal met" not in done.stdout:
        fail(f"{label}: every goal met, but replay does not say so")
    return want


def baselines(streams, ours, before_ratio, total_ratio, pack_distance_above):
    """A copy whose Nova figures make our per-stream ratios about before_ratio and total_ratio.

    Both Nova runs get the same figures: the largest whole count against which our figure still
    reaches the ratio. pack_distance_above puts Nova pack's distance one above (True) or below ours."""
    altered = copy.deepcopy(streams)
    for stream in altered:
        mine = ours[stream["id"]]
        for run in ("spread", "pack"):
            figures = stream["nova"][run]
            figures[BEFORE] = max(1, int(mine[BEFORE] / before_ratio))
            figures[TOTAL] = max(1, int(mine[TOTAL] / total_ratio))
            if mine["mean_intercell_distance"] is not None:
                step = 1.0 if pack_distance_above else -1.0
                figures["mean_intercell_distance"] = mine["mean_intercell_distance"] + (step if run == "pack" else 0.0)
    return altered


def at_the_edge(streams, ours, key, goal):
    """Two copies on either side of the goal on `key`: the Nova figures raised one request at a time
    while the mean ratio stays at or above the goal (just met), and that copy with one more request
    on one stream (just missed)."""
    best = [max(s["nova"]["spread"][key], s["nova"]["pack"][key]) for s in streams]
    mine = [ours[s["id"]][key] for s in streams]

    def mean(figures):
        return sum(ratio(m, b) for m, b in zip(mine, figures)) / len(figures)

    raisable = [index for index, m in enumerate(mine) if m > 0]  # a ratio of 0 stays 0
    if not raisable or mean(best) < goal:
        fail("the starting baselines must meet the goal, and some stream must admit a guest")
    while True:  # raise the stream whose ratio is highest, so every ratio comes down to the goal
        crossing = max(raisable, key=lambda index: ratio(mine[index], best[index]))
        trial = best[:crossing] + [best[crossing] + 1] + best[crossing + 1:]
        if mean(trial) < goal:
            break  # one more request there falls below the goal
        best = trial
    edge = []
    for raise_at in (None, crossing):
        altered = copy.deepcopy(streams)
        for index, stream in enumerate(altered):
            for run in ("spread", "pack"):
                stream["nova"][run][key] = best[index] + (1 if index == raise_at else 0)
        edge.append(altered)
    return edge


def drawn(streams, ours, rng):
    """A copy with each stream's Nova figures drawn around ours: per copy a centre ratio between 0.95
    and 1.25, per stream and run that centre within +-10 %, now and then a run that admitted none;
    distances within 3 of ours. Over many copies the goals fall either way."""
    centre = rng.uniform(0.95, 1.25)
    altered = copy.deepcopy(streams)
    for stream in altered:
        mine = ours[stream["id"]]
        for run in ("spread", "pack"):
            figures = stream["nova"][run]
            for key in (BEFORE, TOTAL):
                none = rng.random() < 0.05
                figures[key] = 0 if none else max(0, round(mine[key] / (centre * rng.uniform(0.9, 1.1))))
            if mine["mean_intercell_distance"] is not None and figures["mean_intercell_distance"] is not None:
                figures["mean_intercell_distance"] = mine["mean_intercell_distance"] + rng.uniform(-3.0, 3.0)
    return altered


def write(scratch, name, streams):
    path = os.path.join(scratch, name)
    with open(path, "w") as out:
        for stream in streams:
            out.write(json.dumps(stream) + "\n")
    return path


def main():
    binary, path = sys.argv[1], sys.argv[2]
    with open(path) as source:
        streams = [json.loads(line) for line in source if line.strip()]
    ours = ours_per_stream(binary, path)
    verdicts = {"the file": check(binary, path, streams, ours, "the file")}
    with tempfile.TemporaryDirectory() as scratch:
        cases = {
            "every goal within reach": baselines(streams, ours, 1.3, 1.3, True),
            "distance above Nova pack's": baselines(streams, ours, 1.3, 1.3, False),
            "admissions below": baselines(streams, ours, 0.9, 0.9, True),
        }
        for key, goal, name in ((BEFORE, GOAL_BEFORE, "before the first refusal"), (TOTAL, GOAL_TOTAL, "in total")):
            ratios = {BEFORE: 1.3, TOTAL: 1.3, key: goal + 0.1}  # the other goal stays well within reach
            start = baselines(streams, ours, ratios[BEFORE], ratios[TOTAL], True)
            met, missed = at_the_edge(start, ours, key, goal)
            cases[f"just met {name}"] = met
            cases[f"one request short {name}"] = missed
        rng = random.Random(17)
        for draw in range(30):
            cases[f"drawn {draw}"] = drawn(streams, ours, rng)
        for label, altered in cases.items():
            verdicts[label] = check(binary, write(scratch, "streams.jsonl", altered), altered, ours, label)
    if not any(not missed for missed in verdicts.values()):
        fail("no case met every goal: the passing branch was never checked")
    for goal in GOALS:
        if not any(goal in missed for missed in verdicts.values()):
            fail(f"no case missed '{goal}': that check was never seen to fail")
    draws = [missed for label, missed in verdicts.items() if label.startswith("drawn ")]
    for goal in GOALS:
        if all(goal in missed for missed in draws) or not any(goal in missed for missed in draws):
            fail(f"the random draws never put '{goal}' on both sides: widen them")
    for label, missed in verdicts.items():
        print(f"ok: {label}: " + ("every goal met" if not missed else "missed " + ", ".join(sorted(missed))))


if __name__ == "__main__":
    main()
