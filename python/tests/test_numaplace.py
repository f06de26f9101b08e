# SPDX-License-Identifier: LGPL-2.1-or-later
"""Tests of the Python binding against the built library (NUMAPLACE_LIBRARY) and the test data's
samples (NUMAPLACE_TEST_DATA_DIR, default tests/data), run by ctest with Debian's python3."""

import array
import os
import threading
import unittest

import numaplace

SHARED = os.environ.get("NUMAPLACE_TEST_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data"))
SOURCE = os.path.join(os.path.dirname(__file__), "..", "..")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


CAPS_2CELL = read(os.path.join(SHARED, "samples", "libvirt", "caps-2cell.xml"))
CAPS_1CELL = read(os.path.join(SHARED, "samples", "libvirt", "caps-1cell.xml"))
GUEST = read(os.path.join(SOURCE, "examples", "guest-8vcpu-4g.xml"))
WORKED = {"hw:numa_nodes": "2", "hw:numa_cpus.0": "0-5", "hw:numa_cpus.1": "6,7",
          "hw:numa_mem.0": "3072", "hw:numa_mem.1": "1024"}
JSON_HOST = {"cells": [
    {"id": 0, "cpus": [0, 1, 2, 3], "siblings": [[0], [1], [2], [3]], "memory_mib": 4096,
     "usage": {"shared_cpus": 0, "pinned_cpus": [0, 1, 2, 3], "memory_mib": 0}},
    {"id": 1, "cpus": "4-7", "memory_mib": 4096}]}


class PlaceTest(unittest.TestCase):
    def test_capabilities_host(self):
        result = numaplace.place(host=CAPS_2CELL, flavor=WORKED, image={}, domain_xml=GUEST)
        self.assertTrue(result.placed)
        self.assertEqual([c["guest_cell"] for c in result.placement["cells"]], [0, 1])
        self.assertIn("<numatune>", result.xml)
        self.assertIn("rejections", result.explanation)
        self.assertEqual(result.explanation["request"]["flavor"]["hw:numa_nodes"], "2")

    def test_image_properties(self):
        result = numaplace.place(host=CAPS_2CELL, flavor={}, image={"hw_numa_nodes": 2}, domain_xml=GUEST)
        self.assertEqual(len(result.placement["cells"]), 2)

    def test_dict_host_sees_usage(self):
        result = numaplace.place(host=JSON_HOST, flavor={"hw:numa_nodes": "1", "hw:cpu_policy": "dedicated"},
                                 domain_xml=GUEST.replace("<vcpu>8</vcpu>", "<vcpu>2</vcpu>"))
        cell = result.placement["cells"][0]
        self.assertEqual(cell["host_cell"], 1)  # cell 0's pCPUs are all pinned already
        self.assertTrue(set(cell["pinning"].values()) <= {4, 5, 6, 7})

    def test_libvirt_uri(self):
        result = numaplace.place(host="test:///default", flavor=WORKED, domain_xml=GUEST)
        self.assertTrue(result.placed)

    def test_no_topology_returns_xml_unchanged(self):
        result = numaplace.place(host=CAPS_2CELL, domain_xml=GUEST)
        self.assertFalse(result.placed)
        self.assertIn("numaplace-demo", result.xml)

    def test_second_run_uses_metadata(self):
        first = numaplace.place(host=CAPS_2CELL, flavor=WORKED, domain_xml=GUEST)
        again = numaplace.place(host=CAPS_2CELL, domain_xml=first.xml)
        self.assertTrue(again.explanation["request"]["from_metadata"])
        self.assertEqual(again.placement["cells"], first.placement["cells"])

    def test_claims_move_the_guest(self):
        host = numaplace.Host(CAPS_2CELL)
        flavor = {"hw:numa_nodes": "1", "hw:cpu_policy": "dedicated"}
        small = GUEST.replace("<vcpu>8</vcpu>", "<vcpu>16</vcpu>")
        first = host.place(small, flavor=flavor)
        other = first.xml.replace("numaplace-demo", "other-guest")
        host.add_claims([other])
        second = host.place(small, flavor=flavor)
        self.assertNotEqual(first.placement["cells"][0]["host_cell"], second.placement["cells"][0]["host_cell"])
        self.assertEqual(host.to_dict()["cells"][first.placement["cells"][0]["host_cell"]]["usage"]["pinned_cpus"],
                         sorted(first.placement["cells"][0]["pinning"].values()))

    def test_claims_given_to_place_leave_the_callers_host_as_it_was(self):
        host = numaplace.Host(CAPS_2CELL)
        before = host.to_dict()
        flavor = {"hw:numa_nodes": "1", "hw:cpu_policy": "dedicated"}
        other = numaplace.place(host=CAPS_2CELL, flavor=flavor, domain_xml=GUEST).xml.replace("numaplace-demo", "other")
        for _ in range(2):  # the second call counted the claim twice and was refused
            result = numaplace.place(host=host, flavor=flavor, domain_xml=GUEST, claims=[other])
            self.assertTrue(result.placed)
        self.assertEqual(host.to_dict(), before)
        # The copy keeps the Host's own claims as claims: a guest the Host counts is still left out
        # when it is placed again, and keeps its pins, while the claims given move nothing of it.
        first = numaplace.place(host=CAPS_2CELL, flavor=flavor, domain_xml=GUEST)
        holding = numaplace.Host(CAPS_2CELL)
        holding.add_claims([first.xml])
        elsewhere = numaplace.place(host=holding, flavor=flavor, domain_xml=GUEST.replace("numaplace-demo", "other"))
        again = numaplace.place(host=holding, domain_xml=first.xml, claims=[elsewhere.xml])
        self.assertEqual(again.placement["cells"], first.placement["cells"])
        copy = holding.copy()
        copy.release("numaplace-demo")
        self.assertNotEqual(copy.to_dict(), holding.to_dict())

    def test_host_configuration_partitions_the_host(self):
        host = numaplace.Host(CAPS_1CELL)
        host.apply_config("[compute]\ncpu_shared_set = 0-1\ncpu_dedicated_set = 2-7\n[numaplace]\nreserved_cpus = 2\n")
        flavor = {"hw:numa_nodes": "1", "hw:cpu_policy": "dedicated"}
        pinned = host.place(GUEST.replace("<vcpu>8</vcpu>", "<vcpu>2</vcpu>"), flavor=flavor)
        self.assertTrue(set(pinned.placement["cells"][0]["pinning"].values()) <= {3, 4, 5, 6, 7})
        floating = host.place(GUEST.replace("<vcpu>8</vcpu>", "<vcpu>2</vcpu>"), flavor={"hw:numa_nodes": "1"})
        self.assertEqual(floating.placement["cells"][0]["host_cpus"], "0-1")
        with self.assertRaises(numaplace.Error) as bad:
            host.apply_config("[compute]\ncpu_shared_set = 0-3\ncpu_dedicated_set = 3-7\n")
        self.assertEqual(bad.exception.name, "InvalidHostConfig")

    def test_strategy_option(self):
        uneven = {"cells": [{"id": 0, "cpus": "0-7", "memory_mib": 16384},
                            {"id": 1, "cpus": "8-15", "memory_mib": 16384, "usage": {"memory_mib": 12288}}]}
        flavor = {"hw:numa_nodes": "1"}
        nova = numaplace.place(host=uneven, flavor=flavor, domain_xml=GUEST, options={"strategy": "nova"})
        packed = numaplace.place(host=uneven, flavor=flavor, domain_xml=GUEST, options={"strategy": "pack"})
        self.assertEqual(nova.placement["cells"][0]["host_cell"], 0)  # Nova: most free memory first
        self.assertEqual(packed.placement["cells"][0]["host_cell"], 1)  # pack: the fuller cell that fits
        with self.assertRaises(numaplace.Error) as caught:
            numaplace.place(host=uneven, flavor=flavor, domain_xml=GUEST, options={"strategy": "fastest"})
        self.assertEqual(caught.exception.name, "UnknownStrategy")


class VersionTest(unittest.TestCase):
    def test_package_and_library_versions_agree(self):
        self.assertRegex(numaplace.__version__, r"^[0-9]+\.[0-9]+\.[0-9]+$")
        self.assertEqual(numaplace.library_version(), numaplace.__version__)

    def test_the_bare_source_tree_has_the_version_too(self):
        # python/numaplace without the build's _config.py (PYTHONPATH=python, as docs/library.md runs it).
        import subprocess
        import sys
        env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE, "python"), PYTHONDONTWRITEBYTECODE="1")
        out = subprocess.run([sys.executable, "-c", "import numaplace; print(numaplace.__version__)"], env=env,
                             capture_output=True, text=True, check=True).stdout.strip()
        self.assertEqual(out, numaplace.library_version())


class ErrorTest(unittest.TestCase):
    def test_no_fit(self):
        with self.assertRaises(numaplace.Error) as caught:
            numaplace.place(host=CAPS_1CELL, flavor=WORKED, domain_xml=GUEST)
        self.assertEqual(caught.exception.name, "NoFit")
        self.assertIn("does not fit", caught.exception.message)

    def test_bad_request(self):
        with self.assertRaises(numaplace.Error) as caught:
            numaplace.place(host=CAPS_2CELL, flavor={"hw:numa_nodes": "3"}, domain_xml=GUEST)
        self.assertEqual(caught.exception.name, "ImageNUMATopologyAsymmetric")

    def test_malformed_inputs(self):
        for host, xml, name in [("<capabilities>", GUEST, "XmlMalformed"), (CAPS_2CELL, "<domain", "XmlMalformed"),
                                ({"cells": []}, GUEST, "InvalidHostJson"), ("not a host", GUEST, "InvalidArgument"),
                                (CAPS_2CELL, "nul\0byte", "InvalidArgument")]:
            with self.assertRaises(numaplace.Error) as caught:
                numaplace.place(host=host, flavor=WORKED, domain_xml=xml)
            self.assertEqual(caught.exception.name, name, caught.exception.message)

    def test_a_host_json_written_beside_unread_running_guests_is_refused(self):
        # topology --json lists the running guests it could not read; their holdings are missing.
        host = {"cells": [{"id": 0, "cpus": [0, 1], "memory_mib": 4096}],
                "unread_running_guests": ["status file 'web-0.xml' is not well-formed XML"]}
        with self.assertRaises(numaplace.Error) as caught:
            numaplace.Host(host)
        self.assertEqual(caught.exception.name, "RunningGuestsUnknown")
        self.assertIn("web-0.xml", caught.exception.message)
        host["unread_running_guests"] = []
        self.assertEqual(len(numaplace.Host(host).to_dict()["cells"]), 1)

    def test_unknown_option(self):
        with self.assertRaises(numaplace.Error) as caught:
            numaplace.place(host=CAPS_2CELL, flavor=WORKED, domain_xml=GUEST, options={"colour": "blue"})
        self.assertEqual(caught.exception.name, "InvalidArgument")


class ThreadTest(unittest.TestCase):
    def test_one_host_many_threads(self):
        host = numaplace.Host(CAPS_2CELL)
        results, errors = [], []

        def work():
            try:
                for _ in range(20):
                    results.append(host.place(GUEST, flavor=WORKED).placement)
            except Exception as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(results), 80)
        self.assertTrue(all(r == results[0] for r in results))


TWO_CELLS = {"cells": [
    {"id": 0, "cpus": [0, 1, 2, 3], "siblings": [[0, 1], [2, 3]], "memory_mib": 4096},
    {"id": 1, "cpus": [4, 5, 6, 7], "siblings": [[4, 5], [6, 7]], "memory_mib": 4096}],
    "allocation_ratio": {"cpu": 16.0, "ram": 1.0}}


class FitApiTest(unittest.TestCase):
    """The fast fit API: numaplace.derive, Request, Host.fit, Host.fit_claim, fit_hosts, fit_hosts_cells,
    fit_verdicts."""

    def test_derive_is_novas_numa_get_constraints(self):
        topology = numaplace.derive(4, 2048, {"hw:numa_nodes": "2"})
        self.assertEqual([c["cpus"] for c in topology["cells"]], [[0, 1], [2, 3]])
        self.assertEqual([c["memory_mib"] for c in topology["cells"]], [1024, 1024])
        self.assertIsNone(numaplace.derive(4, 2048, {}))
        with self.assertRaises(numaplace.Error) as caught:
            numaplace.derive(4, 2048, {"hw:numa_nodes": "3"})
        self.assertEqual(caught.exception.name, "ImageNUMATopologyAsymmetric")

    def test_sizes_ctypes_would_wrap_are_refused_not_wrapped(self):
        # ctypes wraps 2**32 + 4 to 4: a 4-vCPU guest where 4 billion were asked for.
        for vcpus, memory_mib in [(2 ** 32 + 4, 1024), (4, 2 ** 64 + 1024), (2 ** 64, 1024), (True, 1024)]:
            for make in (lambda: numaplace.derive(vcpus, memory_mib, {"hw:numa_nodes": "1"}),
                         lambda: numaplace.Request(vcpus=vcpus, memory_mib=memory_mib)):
                with self.assertRaises(numaplace.Error) as caught:
                    make()
                self.assertEqual(caught.exception.name, "InvalidArgument", (vcpus, memory_mib))
        # The library's own limit, which the JSON request has too: no vCPU list of billions is built.
        with self.assertRaises(numaplace.Error) as caught:
            numaplace.derive(2 ** 31, 4096, {"hw:numa_nodes": "2"})
        self.assertEqual(caught.exception.name, "InvalidArgument")
        self.assertIn("above 65536", caught.exception.message)
        self.assertEqual(len(numaplace.derive(65536, 4096, {"hw:numa_nodes": "2"})["cells"]), 2)

    def test_bytes_keys_and_values_are_refused_not_renamed(self):
        # str(b"hw:numa_nodes") is "b'hw:numa_nodes'": a key outside hw:, dropped unread.
        for specs in ({b"hw:numa_nodes": "2"}, {"hw:numa_nodes": b"2"}, {1: "2"}):
            for make in (lambda: numaplace.derive(4, 2048, specs),
                         lambda: numaplace.Request(vcpus=4, memory_mib=2048, flavor=specs),
                         lambda: numaplace.derive(4, 2048, {}, specs)):
                with self.assertRaises(numaplace.Error) as caught:
                    make()
                self.assertEqual(caught.exception.name, "InvalidArgument", specs)
                self.assertIn("must be a str", caught.exception.message)
        self.assertEqual(len(numaplace.derive(4, 2048, {"hw:numa_nodes": "2"})["cells"]), 2)
        self.assertEqual(len(numaplace.derive(4, 2048, {}, {"hw_numa_nodes": 2})["cells"]), 2)

    def test_fit_and_no_fit(self):
        host = numaplace.Host(TWO_CELLS)
        request = numaplace.Request(vcpus=4, memory_mib=1024, flavor={"hw:cpu_policy": "dedicated"})
        answer = host.fit(request)
        self.assertEqual(answer["kind"], "fit")
        pins = answer["cells"][0]["pinning"]
        self.assertEqual(sorted(int(v) for v in pins), [0, 1, 2, 3])
        cell_cpus = TWO_CELLS["cells"][answer["cells"][0]["host_cell"]]["cpus"]
        self.assertTrue(set(pins.values()) <= set(cell_cpus))
        too_big = numaplace.Request(vcpus=6, memory_mib=1024, flavor={"hw:cpu_policy": "dedicated"})
        answer = host.fit(too_big)
        self.assertEqual(answer["kind"], "no_fit")
        self.assertEqual(len(answer["rejections"]), 2)
        self.assertEqual(host.fit(numaplace.Request(vcpus=2, memory_mib=512))["kind"], "no_topology")

    def test_novas_memory_rules_under_nova_accounting(self):
        # A huge-page guest's memory counts in the cell's memory usage (Nova's
        # numa_usage_from_instance_numa), so a small-page guest after it may not find room.
        host = numaplace.Host({"cells": [{"id": 0, "cpus": [0, 1, 2, 3], "memory_mib": 4096, "pages": [
            {"size_kib": 4, "total": 524288}, {"size_kib": 1048576, "total": 2}], "usage": {"memory_mib": 500}}],
            "allocation_ratio": {"cpu": 16.0, "ram": 1.0}})
        huge = numaplace.Request(vcpus=1, memory_mib=2048, flavor={"hw:mem_page_size": "1GB"})
        small = numaplace.Request(vcpus=1, memory_mib=2048, flavor={"hw:numa_nodes": "1"})
        self.assertEqual(host.fit(small)["kind"], "fit")
        self.assertEqual(host.fit_claim(huge, "huge")["kind"], "fit")
        self.assertEqual(host.to_dict()["cells"][0]["usage"]["memory_kib"], 2548 * 1024)
        self.assertEqual(host.fit(small)["kind"], "no_fit")  # 2548 + 2048 > 4096 x 1.0
        # A cell listing no small pages: the memory must be a whole number of its smallest pages.
        two_mib = numaplace.Host({"cells": [{"id": 0, "cpus": [0, 1], "memory_mib": 4096,
                                             "pages": [{"size_kib": 2048, "total": 1024}]}]})
        self.assertEqual(two_mib.fit(numaplace.Request(vcpus=1, memory_mib=1024, flavor={"hw:numa_nodes": "1"}))["kind"],
                         "fit")
        self.assertEqual(two_mib.fit(numaplace.Request(vcpus=1, memory_mib=1025, flavor={"hw:numa_nodes": "1"}))["kind"],
                         "no_fit")

    def test_topology_form_and_bad_documents(self):
        host = numaplace.Host(TWO_CELLS)
        request = numaplace.Request(document={"topology": {
            "cells": [{"id": 0, "cpus": [0, 1], "pcpus": [1], "memory_mib": 512}], "cpu_policy": "mixed"}})
        self.assertEqual(request.topology["cells"][0]["pcpus"], [1])
        self.assertEqual(list(host.fit(request)["cells"][0]["pinning"]), ["1"])
        with self.assertRaises(numaplace.Error) as caught:
            numaplace.Request(document={"topology": {"cells": [{"cpus": [0]}]}})
        self.assertEqual(caught.exception.name, "InvalidRequestJson")
        with self.assertRaises(numaplace.Error):
            host.fit(request, options={"colour": "blue"})

    def test_claims_in_place_and_many_hosts(self):
        host, other = numaplace.Host(TWO_CELLS), numaplace.Host(TWO_CELLS)
        request = numaplace.Request(vcpus=4, memory_mib=1024, flavor={"hw:cpu_policy": "dedicated"})
        held = set()
        for name in ("a", "b"):
            answer = host.fit_claim(request, name)
            self.assertEqual(answer["kind"], "fit")
            pins = set(answer["cells"][0]["pinning"].values())
            self.assertFalse(pins & held)
            held |= pins
        self.assertEqual(held, set(range(8)))
        answers = numaplace.fit_hosts([host, other], request)
        self.assertEqual([a["kind"] for a in answers], ["no_fit", "fit"])
        host.release("a")
        self.assertEqual(host.fit(request)["kind"], "fit")
        with self.assertRaises(numaplace.Error) as caught:
            host.release("a")
        self.assertEqual(caught.exception.name, "InvalidArgument")

    def test_verdicts_and_cells_without_answers_agree_with_fit_hosts(self):
        host, full = numaplace.Host(TWO_CELLS), numaplace.Host(TWO_CELLS)
        pinned = numaplace.Request(vcpus=4, memory_mib=1024, flavor={"hw:cpu_policy": "dedicated"})
        full.fit_claim(pinned, "a")
        full.fit_claim(pinned, "b")
        hosts = [host, full, host]
        for request in (pinned, numaplace.Request(vcpus=4, memory_mib=2048, flavor={"hw:numa_nodes": "2"}),
                        numaplace.Request(vcpus=2, memory_mib=512)):
            for options in (None, {"strategy": "nova"}):
                answers = numaplace.fit_hosts(hosts, request, options)
                expected = [None if a["kind"] == "no_fit" else tuple(c["host_cell"] for c in a.get("cells", []))
                            for a in answers]
                self.assertEqual(numaplace.fit_hosts_cells(hosts, request, options), expected)
                self.assertEqual(numaplace.fit_verdicts(hosts, request, options),
                                 bytes(0 if e is None else 1 for e in expected))
        idle, taken = numaplace.fit_hosts_cells([host, full], pinned)
        self.assertIsNone(taken)  # both cells' pCPUs are held by a and b
        self.assertIn(idle, [(0,), (1,)])
        self.assertEqual(numaplace.fit_verdicts([], pinned), b"")
        with self.assertRaises(numaplace.Error) as caught:
            numaplace.fit_verdicts([host], pinned, {"colour": "blue"})
        self.assertEqual(caught.exception.name, "InvalidArgument")

    def test_packed_hosts_are_fitted_as_the_hosts_made_from_their_words(self):
        # numaplace.nova's filter path: the words of two cells (4 CPUs in 2 cores, 4 GiB, of which
        # `used` MiB used), made and fitted in one call, handed back or not.
        def words(used):
            cells = [2]
            for cell, first in ((0, 0), (1, 4)):
                cpus = [first, first + 1, first + 2, first + 3]
                cells += [cell, 4096, 0, used, 0, 4, *cpus, 4, *cpus, 0, 2, 2, 2, *cpus, 1, 4, 1048576, 0, 0]
            return array.array("q", cells).tobytes()
        hosts = [words(0), words(3072), words(0)[:-8], words(1024)]  # the third one word short
        ratios = [16.0, 1.0] * 4
        request = numaplace.Request(vcpus=4, memory_mib=4096, flavor={"hw:numa_nodes": "2"})  # 2 GiB a cell
        expected = []
        for packed in hosts:
            try:
                made = numaplace.Host.from_cells(array.array("q", packed), 16.0, 1.0)
            except numaplace.Error as error:
                self.assertEqual(error.name, "InvalidHostCells")
                expected.append(2)
                continue
            expected.append(numaplace.fit_verdicts([made], request)[0])
        self.assertEqual(expected, [1, 0, 2, 1])
        for keep in (False, True):
            fits, made = numaplace._fit_packed_hosts(hosts, ratios, request, None, keep)
            self.assertEqual(list(fits), expected)
            if keep:
                self.assertEqual([host is None for host in made], [False, False, True, False])
                self.assertEqual(numaplace.fit_verdicts([made[0], made[1], made[3]], request), bytes([1, 0, 1]))
            else:
                self.assertEqual(made, [None] * 4)
        self.assertEqual(numaplace._fit_packed_hosts([], [], request, None, True), (b"", []))
        for bad_words, bad_ratios, name in (([hosts[0][:-3]], [16.0, 1.0], "InvalidHostCells"),
                                            ([hosts[0]], [16.0], "InvalidArgument")):
            with self.assertRaises(numaplace.Error) as caught:
                numaplace._fit_packed_hosts(bad_words, bad_ratios, request, None, False)
            self.assertEqual(caught.exception.name, name)

    def test_network_affinity_moves_the_guest_to_the_cell_of_its_physnet(self):
        cells = [dict(c) for c in TWO_CELLS["cells"]]
        cells[1]["network_metadata"] = {"physnets": ["physnet1"], "tunneled": False}
        host = numaplace.Host(dict(TWO_CELLS, cells=cells))
        self.assertEqual(host.to_dict()["cells"][1]["network_metadata"], {"physnets": ["physnet1"], "tunneled": False})
        flavor = {"hw:cpu_policy": "dedicated"}
        plain = numaplace.Request(vcpus=2, memory_mib=1024, flavor=flavor)
        self.assertEqual(host.fit(plain)["cells"][0]["host_cell"], 0)
        near = numaplace.Request(vcpus=2, memory_mib=1024, flavor=flavor, network_metadata={"physnets": ["physnet1"]})
        self.assertEqual(near.topology["network_metadata"], {"physnets": ["physnet1"], "tunneled": False})
        self.assertEqual(host.fit(near)["cells"][0]["host_cell"], 1)
        self.assertEqual([a["cells"][0]["host_cell"] for a in numaplace.fit_hosts([host], near)], [1])
        document = numaplace.Request(document={"flavor": {"vcpus": 2, "memory_mib": 1024, "extra_specs": flavor},
                                               "network_metadata": {"physnets": ["physnet1"]}})
        self.assertEqual(host.fit(document)["cells"][0]["host_cell"], 1)
        # Cell 1 full: a named no_fit, not a guest away from its network.
        filler = numaplace.Request(vcpus=4, memory_mib=1024, flavor=flavor, network_metadata={"physnets": ["physnet1"]})
        self.assertEqual(host.fit_claim(filler, "filler")["cells"][0]["host_cell"], 1)
        refused = host.fit(near)
        self.assertEqual(refused["kind"], "no_fit")
        self.assertIn("network affinity", refused["summary"])
        with self.assertRaises(numaplace.Error) as caught:
            numaplace.Request(vcpus=2, memory_mib=1024, network_metadata={"physnets": [""]})
        self.assertEqual(caught.exception.name, "InvalidRequestJson")
        with self.assertRaises(numaplace.Error) as caught:
            numaplace.Request(document={"flavor": {"vcpus": 1, "memory_mib": 512}, "network_metadata": {}},
                              network_metadata={"tunneled": True})
        self.assertEqual(caught.exception.name, "InvalidArgument")

class WrongTypesProperty(unittest.TestCase):
    """Every public call, given arguments of the wrong type or out of range (each odd value in each
    argument, then random pairs and triples), answers or raises numaplace.Error: never TypeError, AttributeError,
    ctypes.ArgumentError or UnicodeEncodeError, which a caller written to the docstrings would not
    catch. The check knows nothing of the binding but the exception class."""

    ODD = [None, 0, -1, 2 ** 70, 1.5, float("nan"), True, "", "x", "\ud800", "lone \udc80 surrogate", b"bytes",
           [], [1, 2], ["x"], {}, {"a": object()}, {"cells": [object()]}, {1: 2}, {"hw:numa_nodes": "\ud800"},
           {"cells": "4"}, object(), {1, 2}, (3,), lambda: 0, array.array("q", [1, 2]), "16", 10 ** 400]

    def test_wrong_arguments_raise_only_numaplace_error(self):
        import random
        host = numaplace.Host(TWO_CELLS)
        request = numaplace.Request(vcpus=2, memory_mib=512, flavor={"hw:numa_nodes": "1"})
        words = numaplace.Host.from_cells  # a valid call's arguments are below
        calls = [
            (numaplace.Host, [TWO_CELLS]),
            (words, [array.array("q"), 16.0, 1.5, None, None]),
            (numaplace.Request, [2, 512, {"hw:numa_nodes": "1"}, {}, None, None]),
            (lambda *a: numaplace.Request(document=a[0], network_metadata=a[1]),
             [{"flavor": {"vcpus": 2, "memory_mib": 512}}, None]),
            (numaplace.derive, [2, 512, {"hw:numa_nodes": "1"}, {}]),
            (lambda *a: numaplace.Host(TWO_CELLS).fit(*a), [request, None]),
            (lambda *a: numaplace.Host(TWO_CELLS).fit_claim(*a), [request, "guest", None]),
            (lambda *a: numaplace.Host(TWO_CELLS).release(*a), ["nobody"]),
            (lambda *a: numaplace.Host(TWO_CELLS).add_claims(*a), [[]]),
            (lambda *a: numaplace.Host(TWO_CELLS).apply_config(*a), [""]),
            (lambda *a: numaplace.Host(TWO_CELLS).place(*a), [GUEST, {"hw:numa_nodes": "1"}, {}, None]),
            (numaplace.fit_hosts, [[host], request, None]),
            (numaplace.fit_verdicts, [[host], request, None]),
            (numaplace.fit_hosts_cells, [[host], request, None]),
            (numaplace.place, [CAPS_2CELL, GUEST, {"hw:numa_nodes": "1"}, {}, (), None]),
        ]
        odd = self.ODD + [host, request]  # a live handle of the other kind in the wrong place
        # Every odd value in every argument once, then random pairs and triples.
        draws = [(call, valid, {slot: value}) for call, valid in calls for slot in range(len(valid)) for value in odd]
        rng = random.Random(2026)
        for draw in range(1500):
            call, valid = calls[draw % len(calls)]
            draws.append((call, valid, {slot: rng.choice(odd) for slot in
                                        rng.sample(range(len(valid)), rng.randint(1, min(3, len(valid))))}))
        tried = refused = 0
        for call, valid, replaced in draws:
            args = [replaced.get(slot, value) for slot, value in enumerate(valid)]
            tried += 1
            try:
                call(*args)
            except numaplace.Error as error:
                refused += 1
                self.assertTrue(error.name and error.message, (call, args))
            except Exception as error:  # pylint: disable=broad-except
                self.fail(f"{type(error).__name__} ({error}) from {getattr(call, '__name__', call)}{tuple(args)!r}")
        self.assertGreater(refused, tried // 2)  # the draws do reach the checks


class NovaModuleTest(unittest.TestCase):
    def test_imports_without_nova(self):
        import subprocess
        import sys
        code = ("import sys; sys.modules['nova'] = None\n"
                "import numaplace.nova as n\n"
                "assert callable(n.numa_fit_instance_to_host) and callable(n.numa_get_constraints)\n"
                "try:\n    n.NUMAPlaceFilter\nexcept ImportError:\n    print('lazy')\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip(), "lazy")


if __name__ == "__main__":
    unittest.main()
