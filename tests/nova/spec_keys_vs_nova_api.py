#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""numaplace's flavor keys against Nova 26's own API validators (Debian's python3-nova), the oracle:

  * every key Nova's API registers in the hw: namespace (hw:numa_cpus.{num} with random indices)
    is known to numaplace.derive: never UnknownSpecKey;
  * random slips of those keys (a letter dropped, doubled, changed or put in; '_' as '-'; two
    letters swapped), kept lowercase and without blanks: when Nova's API refuses the key ("does not
    appear to be a valid extra spec"), numaplace refuses it as UnknownSpecKey, before any other
    check; when Nova's API takes it, numaplace does not call it unknown. Two differences are
    allowed, both Nova's own: its API registers hw:max_cpu_* while its fit reads hw:cpu_max_*, so
    numaplace knows both (and says the first is not read); and its API matches hw:numa_cpus.{num}
    and hw:numa_mem.{num} by a pattern whose dot is not escaped, so it takes hw:numa_cpusx2, which
    its fit never reads: numaplace calls that unknown.

  PYTHONPATH=build/python NUMAPLACE_LIBRARY=build/libnumaplace.so /usr/bin/python3 \\
    tests/nova/spec_keys_vs_nova_api.py [--rounds N] [--seed S]

Exit 0: numaplace agrees with Nova's API on every key; 1: it does not (each printed); 77: Nova is
not installed.
"""
import argparse
import random
import re
import string
import sys

NOVA_FIT_READS = {"hw:cpu_max_sockets", "hw:cpu_max_cores", "hw:cpu_max_threads"}
# What Nova's API pattern takes through its unescaped dot, and Nova's fit does not read.
UNESCAPED_DOT = re.compile(r"hw:numa_(cpus|mem)[^.]\d+")


def nova_api():
    try:
        import logging
        logging.disable(logging.CRITICAL)
        from nova import exception
        from nova.api.validation.extra_specs import validators
    except ImportError as e:
        print(f"skipped: python3-nova is not installed ({e})")
        sys.exit(77)
    validators.load_validators()
    return validators, exception


def nova_refuses_name(validators, exception, key):
    """Whether Nova's API refuses the key's name (a value it refuses is not this test's matter)."""
    try:
        validators.validate(key, "")
    except exception.ValidationError as e:
        return "does not appear to be a valid extra spec" in str(e)
    return False


def numaplace_calls_unknown(numaplace, key):
    try:
        numaplace.derive(8, 4096, {key: ""}, {})
    except numaplace.Error as e:
        return e.name == "UnknownSpecKey", str(e)
    return False, ""


def registered_names(validators, rng):
    names = []
    for name in validators.VALIDATORS:
        if not name.startswith("hw:"):
            continue
        names.append(re.sub(r"\{[a-z_]+\}", lambda _: str(rng.randrange(0, 8)), name))
    return sorted(names)


def slip(rng, key):
    letters = string.ascii_lowercase + "_-"
    head, body = key[:3], key[3:]  # the slips fall after "hw:", in the key's own name
    i = rng.randrange(0, len(body))
    how = rng.randrange(0, 6)
    if how == 0:
        body = body[:i] + body[i + 1:]
    elif how == 1:
        body = body[:i] + body[i] + body[i:]
    elif how == 2:
        body = body[:i] + rng.choice(letters) + body[i + 1:]
    elif how == 3:
        body = body[:i] + rng.choice(letters) + body[i:]
    elif how == 4:
        body = body.replace("_", "-", 1) if "_" in body else body + "-"
    elif i + 1 < len(body):
        body = body[:i] + body[i + 1] + body[i] + body[i + 2:]
    return head + body


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=20261207)
    args = parser.parse_args()
    validators, exception = nova_api()
    import numaplace
    rng = random.Random(args.seed)
    failures = []
    names = registered_names(validators, rng)
    for key in names:
        unknown, message = numaplace_calls_unknown(numaplace, key)
        if unknown:
            failures.append(f"{key}: Nova's API registers it, numaplace says {message}")
    refused = taken = 0
    for _ in range(args.rounds):
        key = slip(rng, rng.choice(names + sorted(NOVA_FIT_READS)))
        if key == "hw:" or key.strip() != key:
            continue
        nova_refuses = nova_refuses_name(validators, exception, key)
        unknown, message = numaplace_calls_unknown(numaplace, key)
        if nova_refuses and not unknown and key not in NOVA_FIT_READS:
            failures.append(f"{key}: Nova's API refuses it, numaplace does not call it unknown ({message or 'taken'})")
        if not nova_refuses and unknown and not UNESCAPED_DOT.fullmatch(key):
            failures.append(f"{key}: Nova's API takes it, numaplace says {message}")
        refused += nova_refuses
        taken += not nova_refuses
    for line in failures[:40]:
        print(line)
    print(f"{len(names)} keys Nova's API registers in hw:, {refused + taken} slips of them "
          f"({refused} Nova refuses, {taken} it takes): {len(failures)} disagreements")
    if refused < args.rounds // 2:
        print("too few slips Nova refuses: the test checked little")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
