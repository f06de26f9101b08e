#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs Nova 26's own unit tests, unchanged, with numaplace's drop-ins in Nova's place.

Before loading the tests it replaces nova.virt.hardware.numa_fit_instance_to_host and
numa_get_constraints with numaplace.nova's, and nova.scheduler.filters.numa_topology_filter.
NUMATopologyFilter with numaplace.nova.NUMAPlaceFilter; then it loads the test modules from
Debian's python3-nova as `python3 -m unittest MODULE` would and runs them. Nothing of Nova's is
copied or edited: the modules are the installed ones.

Each test's outcome is compared with EXPECTED (tests/nova/expected_failures.txt): a test listed
there (with its reason) must fail, any other must pass. A test that fails unlisted, or passes
while listed, fails the run, and so does a run where fewer tests than the file's
`min-dropin-tests` reached a drop-in (the substitution would then have stopped working).

  PYTHONPATH=build/python NUMAPLACE_LIBRARY=build/libnumaplace.so \\
    /usr/bin/python3 tests/nova/run_nova_tests.py --expected tests/nova/expected_failures.txt

--report prints every failing test with its first error line (to write the list).
Exit 0: as expected; 1: not; 77: Nova or its test dependencies are not installed (skipped).
"""
import argparse
import io
import re
import sys
import time
import unittest

MODULES = ["nova.tests.unit.virt.test_hardware",
           "nova.tests.unit.scheduler.filters.test_numa_topology_filters",
           "nova.tests.unit.compute.test_claims"]


def run_quietly(suite, result):
    """Runs `suite` into `result` with stderr (Nova's logging and warnings) swallowed: the
    outcomes are what count."""
    real_stderr = sys.stderr
    sys.stderr = io.StringIO()
    try:
        suite.run(result)
    finally:
        sys.stderr = real_stderr


def read_expected(path):
    """{test id: reason} and the min-dropin-tests floor."""
    expected, floor = {}, 0
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            found = re.match(r"#\s*min-dropin-tests:\s*(\d+)\s*$", line)
            if found:
                floor = int(found.group(1))
                continue
            if line.startswith("#"):
                continue
            name, sep, reason = line.partition(" # ")
            if not sep or not reason.strip():
                sys.exit(f"{path}:{number}: '{line}' gives no reason ('TEST_ID # why')")
            expected[name.strip()] = reason.strip()
    return expected, floor


class Recorder(unittest.TestResult):
    """Each test's outcome, and whether it reached a drop-in."""

    def __init__(self, counter):
        super().__init__()
        self.counter = counter
        self.outcomes = {}  # id -> (passed, reached, first error line)
        self._start = 0

    def startTest(self, test):
        super().startTest(test)
        self._start = self.counter["calls"]
        self._problem = None

    def _fail(self, test, err):
        text = self._exc_info_to_string(err, test).strip().splitlines()
        self._problem = text[-1] if text else "failed"

    def addError(self, test, err):
        super().addError(test, err)
        self._fail(test, err)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._fail(test, err)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._fail(test, err)

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._problem = "unexpected success"

    def stopTest(self, test):
        super().stopTest(test)
        reached = self.counter["calls"] > self._start
        self.outcomes[test.id()] = (self._problem is None, reached, self._problem)


def substitute(counter):
    from nova.scheduler.filters import numa_topology_filter
    from nova.virt import hardware
    from numaplace import nova as npnova

    def counted(fn):
        def wrapper(*args, **kwargs):
            counter["calls"] += 1
            return fn(*args, **kwargs)
        wrapper.__name__ = fn.__name__
        wrapper.__doc__ = fn.__doc__
        return wrapper

    fit = counted(npnova.numa_fit_instance_to_host)
    npnova.numa_fit_instance_to_host = fit  # the filter calls it through the module
    hardware.numa_fit_instance_to_host = fit
    hardware.numa_get_constraints = counted(npnova.numa_get_constraints)
    # the filter fits through its own host cache (np_fit_hosts), not numa_fit_instance_to_host
    npnova.NUMAPlaceFilter._verdicts = counted(npnova.NUMAPlaceFilter._verdicts)
    numa_topology_filter.NUMATopologyFilter = npnova.NUMAPlaceFilter


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--expected", required=True)
    parser.add_argument("--report", action="store_true", help="print every failure with its first error line")
    parser.add_argument("modules", nargs="*", default=MODULES)
    args = parser.parse_args()
    expected, floor = read_expected(args.expected)
    try:
        import nova.virt.hardware  # noqa: F401
        import nova.test  # noqa: F401  (its fixtures need the test dependencies: docs/nova.md)
    except ImportError as exc:
        print(f"SKIP: Nova's tests cannot be imported ({exc}); ./dev.sh installs python3-nova and its test packages")
        return 77
    counter = {"calls": 0}
    substitute(counter)
    started = time.monotonic()
    suite = unittest.defaultTestLoader.loadTestsFromNames(args.modules)
    result = Recorder(counter)
    run_quietly(suite, result)
    seconds = time.monotonic() - started

    outcomes = result.outcomes
    reached = sorted(t for t, (_, r, _) in outcomes.items() if r)
    passed = [t for t, (ok, _, _) in outcomes.items() if ok]
    failed = {t: why for t, (ok, _, why) in outcomes.items() if not ok}
    reached_passed = [t for t in reached if outcomes[t][0]]
    new_failures = sorted(t for t in failed if t not in expected)
    new_passes = sorted(t for t in expected if t in outcomes and outcomes[t][0])
    missing = sorted(t for t in expected if t not in outcomes)
    print(f"{len(outcomes)} tests of {', '.join(args.modules)} in {seconds:.1f} s: {len(passed)} pass, "
          f"{len(failed)} fail ({len(failed) - len(new_failures)} of them listed in {args.expected})")
    print(f"{len(reached)} tests reached a numaplace drop-in: {len(reached_passed)} pass, "
          f"{len(reached) - len(reached_passed)} fail")
    if args.report:
        for test in sorted(failed):
            print(f"FAILED {test}: {failed[test]}")
    ok = True
    for test in new_failures:
        print(f"NEW FAILURE {test}: {failed[test]}")
        ok = False
    for test in new_passes:
        print(f"NOW PASSES {test} (listed: {expected[test]}); take it off {args.expected}")
        ok = False
    for test in missing:
        print(f"NOT RUN {test} (listed in {args.expected}); Nova's tests changed?")
        ok = False
    if len(reached) < floor:
        print(f"only {len(reached)} tests reached a drop-in, fewer than min-dropin-tests {floor}: "
              "is the substitution still in place?")
        ok = False
    if not outcomes:
        print("no test ran")
        ok = False
    print("ok: as expected" if ok else "FAILED: not as expected")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
