#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs Nova 26's functional NUMA server tests on fakelibvirt, plain and with numaplace's drop-ins.

The tests are Debian python3-nova's nova.tests.functional.libvirt.test_numa_servers, unchanged:
servers are booted through Nova's API, conductor, scheduler (with Debian's python3-placement in
process) and a libvirt compute service over fakelibvirt. They run twice, each run in a process of
its own (the substitution is process-wide):

- plain: Nova as installed, nothing substituted;
- dropins: the scheduler's NUMATopologyFilter replaced by numaplace.nova.NUMAPlaceFilter (loaded
  through [filter_scheduler] available_filters and put in its place in enabled_filters, as
  docs/nova.md sets nova.conf up), and nova.virt.hardware.numa_fit_instance_to_host /
  numa_get_constraints replaced by numaplace.nova's, so the API's constraints, the scheduler's
  consume_from_request and the compute host's claim all use numaplace's fit.

The tests probe the NUMA filter by mocking NUMATopologyFilter.host_passes and counting its calls;
NUMAPlaceFilter makes no per-host host_passes calls (it answers all hosts in filter_all), so in
the dropins run the probe is moved to NUMAPlaceFilter.filter_all (observe_filter).

Each test's outcome in each run is compared with EXPECTED (tests/nova/functional_expected_failures.txt):
`TEST_ID # [RUNS] why`, RUNS being `both`, `dropins` or `plain` (the runs it fails in), optionally
`TEST_ID ~ REGEX # [RUNS] why`, where REGEX must be found in the failure's traceback (so a test
listed for one reason that fails for another is caught). A test that fails unlisted, passes while
listed, or fails for an unlisted reason fails the run, and so does a drop-in run where fewer tests
than `min-dropin-tests` reached a drop-in.

Two things the runner sets up that Nova's tests leave to the environment: eventlet's monkey
patching before anything else is imported (nova/tests/functional/__init__.py does it on import,
too late when the runner has imported oslo modules first), and [wsgi] api_paste_config pointing at
Debian's /usr/share/nova-common/api-paste.ini (nova-common), set after Nova's ConfFixture has set
its own default (a path inside dist-packages that Debian does not ship).

  PYTHONPATH=build/python NUMAPLACE_LIBRARY=build/libnumaplace.so \\
    /usr/bin/python3 tests/nova/run_nova_functional.py --expected tests/nova/functional_expected_failures.txt

Exit 0: as expected; 1: not; 77: Nova, placement or api-paste.ini are not installed (skipped).
"""
import argparse
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

MODULE = "nova.tests.functional.libvirt.test_numa_servers"
API_PASTE = "/usr/share/nova-common/api-paste.ini"
RUNS = ("plain", "dropins")


def missing_prerequisite():
    """Why the tests cannot run here, or None. Checked without importing Nova (the parent process
    only spawns the runs)."""
    for module, package in (("nova", "python3-nova"), ("placement", "python3-placement"),
                            ("wsgi_intercept", "python3-wsgi-intercept"), ("oslotest", "python3-oslotest")):
        if importlib.util.find_spec(module) is None:
            return f"Python module {module} is not installed (Debian package {package})"
    # by file: importing nova.tests.functional would monkey-patch this process with eventlet
    nova_dirs = importlib.util.find_spec("nova").submodule_search_locations or []
    if not any(os.path.isfile(os.path.join(d, *MODULE.split(".")[1:]) + ".py") for d in nova_dirs):
        return f"Nova's functional tests ({MODULE}) are not installed (python3-nova)"
    if not os.path.isfile(API_PASTE):
        return f"{API_PASTE} is missing (Debian package nova-common)"
    return None


def read_expected(path):
    """{test id: (runs that fail, traceback regex or None, reason)} and the min-dropin-tests floor,
    from run_nova_tests.read_expected's `TEST_ID # reason` lines."""
    import run_nova_tests as unit
    lines, floor = unit.read_expected(path)
    expected = {}
    for name, reason in lines.items():
        test, sep, pattern = name.partition(" ~ ")
        found = re.match(r"\[(both|dropins|plain)\]\s*(.+)$", reason)
        if not found:
            sys.exit(f"{path}: {test}: the reason must start with [both], [dropins] or [plain] (the runs it fails in)")
        runs = set(RUNS) if found.group(1) == "both" else {found.group(1)}
        expected[test.strip()] = (runs, re.compile(pattern.strip()) if sep else None, found.group(2))
    return expected, floor


# ---------------------------------------------------------------------------------------------
# One run, in its own process.

def child(run, names, out_path):
    import nova.monkey_patch  # noqa: F401  (before any oslo or urllib3 import: see the docstring)
    import unittest
    import run_nova_tests as unit

    counter = {"calls": 0}
    configure(run, counter)

    class TimedRecorder(unit.Recorder):
        """Recorder with each test's seconds and whole traceback (the expected regex is matched there)."""

        def startTest(self, test):
            self._began = time.monotonic()
            self._trace = ""
            self._skipped = None
            self._kinds = {k: v for k, v in counter.items() if k != "calls"}
            super().startTest(test)

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            self._skipped = reason

        def _fail(self, test, err):
            super()._fail(test, err)
            self._trace += self._exc_info_to_string(err, test)

        def stopTest(self, test):
            super().stopTest(test)
            passed, reached, problem = self.outcomes[test.id()]
            self.outcomes[test.id()] = {"passed": passed, "reached": reached, "problem": problem,
                                        "skipped": self._skipped,
                                        "trace": self._trace, "seconds": time.monotonic() - self._began,
                                        "kinds": sorted(k for k, v in counter.items()
                                                        if k != "calls" and v > self._kinds.get(k, 0))}

    suite = unittest.defaultTestLoader.loadTestsFromNames(names)
    result = TimedRecorder(counter)
    unit.run_quietly(suite, result)
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(result.outcomes, f)
    # Nova's services leave threads and greenthreads behind that can keep the interpreter from
    # exiting (a whole-module run under unittest.main sat at 16 % CPU after "OK"); the outcomes
    # are written, so leave at once.
    sys.stdout.flush()
    os._exit(0)


def configure(run, counter):
    """The run's set-up: api-paste.ini for both; for dropins, numaplace's filter and fit in Nova's place."""
    from nova.tests.fixtures import conf as conf_fixture
    conf_set_up = conf_fixture.ConfFixture.setUp

    def set_up(self):
        conf_set_up(self)
        # An override, not a default: fixtures after this one set the default again (ApiPasteV21Fixture).
        # The fixture's conf.reset() at clean-up takes it off.
        self.conf.set_override("api_paste_config", API_PASTE, group="wsgi")
        if run == "dropins":
            self.conf.set_default("available_filters", ["nova.scheduler.filters.all_filters",
                                                        "numaplace.nova.NUMAPlaceFilter"],
                                  group="filter_scheduler")

    conf_fixture.ConfFixture.setUp = set_up
    if run != "dropins":
        return
    import run_nova_tests as unit
    from nova.scheduler import host_manager
    from nova.scheduler.filters import numa_topology_filter
    # substitute() also replaces the class in Nova's filter module, which the unit tests import
    # directly; here the scheduler loads filters by name, and the tests look NUMATopologyFilter up
    # by that name (and mock its host_passes), so Nova's class stays where it is and the scheduler
    # is told to use NUMAPlaceFilter instead, as nova.conf would tell it.
    nova_filter = numa_topology_filter.NUMATopologyFilter
    unit.substitute(counter)
    numa_topology_filter.NUMATopologyFilter = nova_filter
    # Which drop-ins each test reached, as Nova's code calls them (the API's constraints, the
    # scheduler's filter, the fit of consume_from_request and of the compute claim).
    from nova.virt import hardware
    from numaplace import nova as npnova
    tally(counter, hardware, "numa_get_constraints", "constraints")
    tally(counter, hardware, "numa_fit_instance_to_host", "fit")
    tally(counter, npnova.NUMAPlaceFilter, "_verdicts", "filter")
    load_filters = host_manager.HostManager._load_filters

    def enabled_filters(self):
        return ["NUMAPlaceFilter" if name == "NUMATopologyFilter" else name for name in load_filters(self)]

    host_manager.HostManager._load_filters = enabled_filters
    observe_filter()


def tally(counter, owner, name, kind):
    """owner.name counts its calls in counter[kind] as well."""
    called = getattr(owner, name)

    def wrapper(*args, **kwargs):
        counter[kind] = counter.get(kind, 0) + 1
        return called(*args, **kwargs)

    wrapper.__name__, wrapper.__doc__ = called.__name__, called.__doc__
    setattr(owner, name, wrapper)


def observe_filter():
    """The tests' probe on the NUMA filter, moved to the filter in use.

    NUMAServersTestBase.setUp wraps NUMATopologyFilter.host_passes in a mock (`self.mock_filter`)
    and the tests assert whether it was called, how often and with which spec. NUMAPlaceFilter
    answers all hosts in filter_all and never calls host_passes per host, so here `mock_filter` is
    replaced by a plain Mock that NUMAPlaceFilter.filter_all calls once per host it is given, with
    (host_state, spec_obj): the calls Nova's BaseHostFilter.filter_all would make of host_passes,
    under the same rebuild rule (BaseHostFilter._filter_one). It records the inputs only; the
    verdicts are NUMAPlaceFilter's own."""
    from unittest import mock
    from nova.scheduler import utils
    from nova.tests.functional.libvirt import test_numa_servers
    from numaplace import nova as npnova
    probe = {"mock": None}
    filter_all = npnova.NUMAPlaceFilter.filter_all

    def observed(self, filter_obj_list, spec_obj):
        hosts = list(filter_obj_list)
        if probe["mock"] is not None and (self.RUN_ON_REBUILD or not utils.request_is_rebuild(spec_obj)):
            for host_state in hosts:
                probe["mock"](host_state, spec_obj)
        return filter_all(self, hosts, spec_obj)

    npnova.NUMAPlaceFilter.filter_all = observed
    base = test_numa_servers.NUMAServersTestBase
    base_set_up = base.setUp

    def set_up(self):
        base_set_up(self)
        self.mock_filter = probe["mock"] = mock.Mock(name="NUMAPlaceFilter.filter_all per host")
        self.addCleanup(probe.update, mock=None)

    base.setUp = set_up


# ---------------------------------------------------------------------------------------------
# The two runs and their comparison with the list.

def run_all(runs, names, jobs):
    """{run: {test: outcome}}, {run: seconds}: each run a child process, `jobs` at a time."""
    outcomes, seconds, waiting, started = {}, {}, list(runs), {}

    def stop(signum, _frame):  # a ctest timeout: take the runs down too, then go
        for proc, _, _ in started.values():
            proc.kill()
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    with tempfile.TemporaryDirectory(prefix="numaplace-nova-functional-") as tmp:
        while waiting or started:
            while waiting and len(started) < jobs:
                run = waiting.pop(0)
                out = os.path.join(tmp, run + ".json")
                proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", run,
                                         "--out", out, *names])
                started[run] = (proc, out, time.monotonic())
            for run, (proc, out, began) in list(started.items()):
                if proc.poll() is None:
                    continue
                del started[run]
                seconds[run] = time.monotonic() - began
                if proc.returncode != 0 or not os.path.exists(out):
                    print(f"the {run} run exited with {proc.returncode} and recorded no outcomes")
                    outcomes[run] = None
                    continue
                with open(out, encoding="utf-8") as f:
                    outcomes[run] = json.load(f)
            time.sleep(0.2)
    return outcomes, seconds


def compare(run, outcomes, expected, floor, report):
    """Prints the run's figures and what is not as listed; True when all is as listed."""
    failed = {t: o for t, o in outcomes.items() if not o["passed"]}
    reached = [t for t, o in outcomes.items() if o["reached"]]
    spent = sum(o["seconds"] for o in outcomes.values())
    skipped = [t for t, o in outcomes.items() if o["skipped"] is not None]
    print(f"{run}: {len(outcomes)} tests in {spent:.1f} s of tests: {len(outcomes) - len(failed) - len(skipped)} pass, "
          f"{len(failed)} fail, {len(skipped)} skipped by Nova" + (f"; {len(reached)} reached a drop-in, "
                                   f"{sum(outcomes[t]['passed'] for t in reached)} of them pass"
                                   if run == "dropins" else ""))
    if run == "dropins":
        for kind in ("constraints", "filter", "fit"):
            print(f"{run}: {sum(kind in o['kinds'] for o in outcomes.values())} tests reached the drop-in {kind}")
    ok = True
    for test in sorted(outcomes):
        outcome = outcomes[test]
        if report:
            word = "FAIL" if not outcome["passed"] else "ok  " if outcome["skipped"] is None else "skip"
            print(f"  {word} {outcome['seconds']:6.1f} s {test}"
                  + (f" [{' '.join(outcome['kinds'])}]" if outcome["kinds"] else "")
                  + ("" if outcome["passed"] else f": {outcome['problem']}")
                  + (f" ({outcome['skipped']})" if outcome["skipped"] is not None else ""))
        runs, pattern, reason = expected.get(test, (set(), None, ""))
        if run in runs:
            if outcome["passed"]:
                print(f"{run}: NOW PASSES {test} (listed: {reason}); take it off the list")
                ok = False
            elif pattern and not pattern.search(outcome["trace"]):
                print(f"{run}: FAILS OTHERWISE {test}: {outcome['problem']} (listed for /{pattern.pattern}/: {reason})")
                ok = False
        elif not outcome["passed"]:
            print(f"{run}: NEW FAILURE {test}: {outcome['problem']}")
            if report:
                print(outcome["trace"])
            ok = False
    if run == "dropins" and len(reached) < floor:
        print(f"{run}: only {len(reached)} tests reached a drop-in, fewer than min-dropin-tests {floor}: "
              "is the substitution still in place?")
        ok = False
    if not outcomes:
        print(f"{run}: no test ran")
        ok = False
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--expected", help="the expected failures (required but with --child)")
    parser.add_argument("--runs", default="plain,dropins", help="which runs, comma-separated (plain, dropins)")
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time (each a process)")
    parser.add_argument("--report", action="store_true", help="print every test's outcome and seconds, and the traceback of each unlisted failure")
    parser.add_argument("--child", choices=RUNS, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("tests", nargs="*", default=[MODULE],
                        help=f"test names as unittest takes them (default: {MODULE})")
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.tests, args.out)
    if not args.expected:
        parser.error("--expected is required")
    expected, floor = read_expected(args.expected)
    runs = [r.strip() for r in args.runs.split(",") if r.strip()]
    for run in runs:
        if run not in RUNS:
            parser.error(f"--runs: '{run}' is neither plain nor dropins")
    why = missing_prerequisite()
    if why:
        print(f"SKIP: Nova's functional tests cannot run: {why}; ./dev.sh installs what they need")
        return 77
    outcomes, seconds = run_all(runs, args.tests, max(1, args.jobs))
    ok = True
    for run in runs:
        if outcomes[run] is None:
            ok = False
            continue
        print(f"{run}: process {seconds[run]:.1f} s")
        ok = compare(run, outcomes[run], expected, floor, args.report) and ok
    if all(outcomes[r] is not None for r in runs):
        ran = set().union(*(outcomes[r] for r in runs))
        for test in sorted(t for t in expected if t not in ran and any(t == n or t.startswith(n + ".") for n in args.tests)):
            print(f"NOT RUN {test} (listed); Nova's tests changed?")
            ok = False
    print("ok: as expected" if ok else "FAILED: not as expected")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
