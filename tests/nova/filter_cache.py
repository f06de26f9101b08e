#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""NUMAPlaceFilter's host cache never answers from a stale host (ctest nova.filter-cache).

The filter keeps a numaplace host per host_state and its answers per request, used again while
the host's inputs (numaplace.nova.host_inputs) are unchanged. Checked here:
  - directed: a guest that fits exactly is refused once one more pCPU is pinned by set.add (the
    set changed in place, no attribute assigned), passes again when it is discarded; the same for
    memory usage, a page pool's `used`, a PCI pool's count, a cell dropped from the cells list,
    the allocation ratio, and a cell's network affinity (for a request close to a network); a host state given a new but equal topology keeps its cached host;
  - directed, requests without PCI or networks (answered from packed words: the view of the cells
    a guest of floating or of dedicated vCPUs sees, or the whole cells): a host is made and freed
    on its host state's first request, kept from the second on (the host its JSON makes as the
    view sees it, fitted again for a third), and made again after a change in place; a change the
    view does not read (a pCPU pinned, for floating guests) keeps the verdicts;
  - property: random hosts (tools/conformance/nova_differential.py's random_host, as Nova objects)
    changed in place at random (every field host_inputs reads, sets and lists mutated without
    assignment as well as fields assigned), after each change the filter's verdict for random
    requests equals a reference made apart from the cache: a new numaplace.Host read from
    host_json of the host as it is now and np_fit on it; the cached host (made from packed cell
    words, only the changed cells packed again) equals that host, as np_host_to_json writes both;
    and whenever host_json changed, the cache's own check (_inputs_unchanged) says so; the packed
    verdicts' key (the view's words and the ratios) changes exactly when what the view reads,
    written apart here from Nova's objects (view_of), changes;
  - the weigher: NUMAPlaceWeigher keeps its hosts and weights the same way; through random changes
    in place, weigh_objects over 40 random hosts equals a weight computed apart (a fresh host,
    np_fit, the free share of the chosen cells), the first time and from the weights kept.
Exit 77 without Nova.
"""
import collections
import json
import os
import random
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "conformance"))

try:
    import nova_differential as nd
    NOVA = nd.nova()
    from nova.scheduler import host_manager
except (ImportError, SystemExit):
    NOVA = None

import numaplace
from numaplace import nova as npnova


def host_state(topology, cpu_ratio=4.0, ram_ratio=1.0, pools=None):
    objects = NOVA["objects"]
    state = host_manager.HostState("h", "n", "c")
    state.numa_topology = topology
    state.cpu_allocation_ratio, state.ram_allocation_ratio = cpu_ratio, ram_ratio
    plist = objects.PciDevicePoolList(objects=[
        objects.PciDevicePool(vendor_id=v, product_id=p, numa_node=n, count=c, tags={"dev_type": "type-PCI"})
        for v, p, n, c in (pools or [])])
    state.pci_stats = NOVA["pci_stats"].PciDeviceStats(topology, stats=plist)
    return state


def small_host(pinned=()):
    """Two cells of 4 CPUs (2 cores x 2 threads), 4 GiB of 4 KiB pages each, some pCPUs pinned."""
    objects = NOVA["objects"]
    cells = []
    for c in range(2):
        cpus = set(range(4 * c, 4 * c + 4))
        cells.append(objects.NUMACell(
            id=c, cpuset=set(cpus), pcpuset=set(cpus), memory=4096, cpu_usage=0, memory_usage=0,
            pinned_cpus={p for p in pinned if p in cpus}, siblings=[{4 * c, 4 * c + 1}, {4 * c + 2, 4 * c + 3}],
            mempages=[objects.NUMAPagesTopology(size_kb=4, total=4096 * 256, used=0, reserved=0)],
            network_metadata=objects.NetworkMetadata(physnets=set(), tunneled=False), socket=0))
    return objects.NUMATopology(cells=cells)


def spec(vcpus, memory_mib, extra_specs, pci=None):
    objects, hardware = NOVA["objects"], NOVA["hardware"]
    flavor = objects.Flavor(vcpus=vcpus, memory_mb=memory_mib, extra_specs=dict(extra_specs), name="f", flavorid="f",
                            root_gb=0, ephemeral_gb=0, swap=0)
    image = objects.ImageMeta.from_dict({"properties": {}})
    requests = [objects.InstancePCIRequest(count=c, spec=[{"vendor_id": v, "product_id": p}], alias_name="a",
                                           numa_policy="legacy") for v, p, c in (pci or [])]
    return objects.RequestSpec(flavor=flavor, image=image, numa_topology=hardware.numa_get_constraints(flavor, image),
                               pci_requests=objects.InstancePCIRequests(requests=requests),
                               instance_uuid="4f6c5ab0-5c4e-4e4a-9a43-2f1a1f5d0002")


def reference(state, spec_obj):
    """Whether the guest fits, from a numaplace host read now from the host as it is (no cache)."""
    limits = NOVA["objects"].NUMATopologyLimits(cpu_allocation_ratio=state.cpu_allocation_ratio,
                                               ram_allocation_ratio=state.ram_allocation_ratio)
    if not spec_obj.numa_topology:
        return True
    if len(state.numa_topology.cells) < len(spec_obj.numa_topology.cells):
        return False
    requests = spec_obj.pci_requests.requests if spec_obj.pci_requests else None
    host = numaplace.Host(json.dumps(npnova.host_json(state.numa_topology, limits, state.pci_stats)))
    request = numaplace.Request(document=npnova.request_json(spec_obj.numa_topology,
                                                             requests if requests and state.pci_stats else None))
    return host.fit(request, {"strategy": "nova"})["kind"] == "fit"


@unittest.skipUnless(NOVA, "python3-nova is not installed")
class DirectedInvalidation(unittest.TestCase):
    def setUp(self):
        self.flt = npnova.NUMAPlaceFilter()

    def passes(self, state, spec_obj):
        return [h for h in self.flt.filter_all([state], spec_obj)] == [state]

    def test_a_pcpu_pinned_in_place_refuses_then_frees(self):
        state = host_state(small_host(pinned={0, 1, 4, 5}))
        guest = spec(4, 2048, {"hw:numa_nodes": "2", "hw:cpu_policy": "dedicated"})  # 2 pCPUs per cell: exactly
        self.assertTrue(self.passes(state, guest))
        state.numa_topology.cells[1].pinned_cpus.add(6)  # in place: no attribute assigned
        self.assertFalse(self.passes(state, guest))
        self.assertFalse(reference(state, guest))
        state.numa_topology.cells[1].pinned_cpus.discard(6)
        self.assertTrue(self.passes(state, guest))

    def test_usage_pages_cells_ratio_and_pci_changes_are_seen(self):
        state = host_state(small_host(), pools=[("8086", "154d", 0, 1)])
        guest = spec(4, 8192, {"hw:numa_nodes": "2"})  # 4 GiB per cell: all of each cell's memory
        self.assertTrue(self.passes(state, guest))
        state.numa_topology.cells[0].memory_usage = 1
        self.assertFalse(self.passes(state, guest))
        state.numa_topology.cells[0].memory_usage = 0
        self.assertTrue(self.passes(state, guest))
        small = spec(4, 8192, {"hw:numa_nodes": "2", "hw:mem_page_size": "small"})  # all 4 KiB pages of each cell
        self.assertTrue(self.passes(state, small))
        state.numa_topology.cells[1].mempages[0].used = 1  # a page pool changed in place
        self.assertFalse(self.passes(state, small))
        self.assertFalse(reference(state, small))
        state.numa_topology.cells[1].mempages[0].used = 0
        self.assertTrue(self.passes(state, small))
        dropped = state.numa_topology.cells.pop()  # the cells list changed in place
        self.assertFalse(self.passes(state, guest))
        state.numa_topology.cells.append(dropped)
        self.assertTrue(self.passes(state, guest))
        floating = spec(8, 1024, {"hw:numa_nodes": "2"})  # 4 vCPUs per cell of 4 CPUs: needs ratio >= 1
        state.numa_topology.cells[0].cpu_usage = 4
        self.assertTrue(self.passes(state, floating))   # 8 of 16 at ratio 4
        state.cpu_allocation_ratio = 1.0
        self.assertFalse(self.passes(state, floating))
        state.cpu_allocation_ratio = 4.0
        with_nic = spec(2, 1024, {"hw:numa_nodes": "1", "hw:pci_numa_affinity_policy": "required"},
                        pci=[("8086", "154d", 1)])
        self.assertTrue(self.passes(state, with_nic))
        state.pci_stats.pools[0]["count"] = 0  # a PCI pool drained in place
        self.assertFalse(self.passes(state, with_nic))
        self.assertFalse(reference(state, with_nic))

    def test_a_cells_network_affinity_changed_in_place_is_seen(self):
        objects = NOVA["objects"]
        state = host_state(small_host())
        state.numa_topology.cells[1].memory_usage = 4096  # the guest's 2 GiB fit cell 0 only
        guest = spec(2, 2048, {"hw:numa_nodes": "1"})
        guest.network_metadata = objects.NetworkMetadata(physnets={"physnet1"}, tunneled=False)
        cells = state.numa_topology.cells
        def same_as_its_json():  # the kept host with networks is the host its JSON makes
            made = numaplace.Host(npnova._with_networks(npnova.host_json(state.numa_topology, _limits(state),
                                                                          state.pci_stats), state.numa_topology))
            self.assertEqual(npnova._filter_hosts.by_state[state][5][1][1].to_dict(), made.to_dict())

        cells[0].network_metadata.physnets.add("physnet1")  # the network is close to cell 0
        self.assertTrue(self.passes(state, guest))
        self.assertTrue(self.passes(state, guest))  # the second pass from the kept host with networks
        same_as_its_json()
        kept = npnova._filter_hosts.by_state[state][5][1]
        cells[0].network_metadata.physnets.discard("physnet1")  # in place: now close to cell 1 only
        cells[1].network_metadata.physnets.add("physnet1")
        self.assertFalse(self.passes(state, guest))
        self.assertIsNot(npnova._filter_hosts.by_state[state][5][1], kept)
        same_as_its_json()
        cells[1].network_metadata.tunneled = True  # a change that does not matter to this guest
        self.assertFalse(self.passes(state, guest))
        same_as_its_json()
        cells[1].network_metadata.physnets.clear()
        cells[0].network_metadata.physnets.add("physnet1")
        self.assertTrue(self.passes(state, guest))
        cells[0].memory_usage = 3000  # any other change: the host and its networks made again
        self.assertFalse(self.passes(state, guest))
        plain = spec(2, 2048, {"hw:numa_nodes": "1"})  # without networks the cached host without them
        self.assertFalse(self.passes(state, plain))
        cells[0].memory_usage = 0
        self.assertTrue(self.passes(state, plain))

    def test_an_equal_new_topology_keeps_the_cached_host(self):
        # A request without PCI or networks is answered from packed words: its verdicts are kept
        # per host state under the words of its view (floating or dedicated vCPUs), which an equal
        # topology keeps, and which a change the view does not read keeps too.
        state = host_state(small_host(pinned={0}))
        floating = spec(2, 1024, {"hw:numa_nodes": "1"})
        dedicated = spec(2, 1024, {"hw:numa_nodes": "1", "hw:cpu_policy": "dedicated"})
        caches = (npnova._floating_verdicts, npnova._dedicated_verdicts)
        self.assertTrue(self.passes(state, floating))
        self.assertTrue(self.passes(state, dedicated))
        self.assertNotIn(state, npnova._filter_hosts.by_state)  # no library host made for it
        for cache in caches:
            self.assertIs(state in cache.by_state, npnova._cellwords is not None)
        if npnova._cellwords is None:  # the pip wheel's package: every request uses the hosts below
            return
        kept = [cache.by_state[state] for cache in caches]
        state.numa_topology = small_host(pinned={0})  # what HostState.update does with an unchanged host
        self.assertTrue(self.passes(state, floating))
        self.assertTrue(self.passes(state, dedicated))
        for cache, entry in zip(caches, kept):
            self.assertIs(cache.by_state[state], entry)
        state.numa_topology = small_host(pinned={0, 1})  # a pCPU more pinned: only the dedicated view reads it
        self.assertTrue(self.passes(state, floating))
        self.assertTrue(self.passes(state, dedicated))
        self.assertIs(npnova._floating_verdicts.by_state[state], kept[0])
        self.assertIsNot(npnova._dedicated_verdicts.by_state[state], kept[1])
        # A request with a PCI request is fitted on the host made with its PCI devices, kept the same way.
        pooled = host_state(small_host(pinned={0}), pools=[("8086", "154d", 0, 1)])
        with_nic = spec(2, 1024, {"hw:numa_nodes": "1"}, pci=[("8086", "154d", 1)])
        self.assertTrue(self.passes(pooled, with_nic))
        cached = npnova._filter_hosts.by_state[pooled][1]
        pooled.numa_topology = small_host(pinned={0})
        self.assertTrue(self.passes(pooled, with_nic))
        self.assertIs(npnova._filter_hosts.by_state[pooled][1], cached)
        pooled.numa_topology = small_host(pinned={0, 1})
        self.assertTrue(self.passes(pooled, with_nic))
        self.assertIsNot(npnova._filter_hosts.by_state[pooled][1], cached)

    @unittest.skipIf(npnova._cellwords is None, "answers from packed words need numaplace._cellwords")
    def test_a_packed_host_is_kept_from_its_second_request_and_made_again_when_it_changes(self):
        state = host_state(small_host(pinned={0}), pools=[("8086", "154d", 0, 1)])
        dedicated = {"hw:cpu_policy": "dedicated"}
        first = spec(2, 1024, {"hw:numa_nodes": "1", **dedicated})
        second = spec(4, 2048, {"hw:numa_nodes": "2", **dedicated})
        self.assertTrue(self.passes(state, first))
        entry = npnova._dedicated_verdicts.by_state[state]
        self.assertIsNone(entry[3])  # asked once: made and freed in the call
        self.assertTrue(self.passes(state, second))
        self.assertIsNotNone(entry[3])  # asked again: kept
        kept = entry[1]
        # the kept host is the host its JSON makes as dedicated guests see it: no PCI devices (none
        # of its requests has any), no shared CPUs, shared load or socket
        as_json = npnova.host_json(state.numa_topology, _limits(state), None)
        for cell in as_json["cells"]:
            cell["cpus"] = cell["dedicated_cpuset"] = sorted(cell.get("dedicated_cpuset", cell["cpus"]))
            cell["shared_cpuset"] = []
            cell["usage"]["shared_cpus"] = 0
            cell.pop("socket", None)
        self.assertEqual(kept.to_dict(), numaplace.Host(as_json).to_dict())
        third = spec(4, 8192, {"hw:numa_nodes": "2", **dedicated})  # all of both cells' memory
        self.assertTrue(self.passes(state, third))  # fitted on the kept host
        self.assertIs(npnova._dedicated_verdicts.by_state[state][1], kept)
        state.numa_topology.cells[0].memory_usage = 1  # in place: a new entry, the host made again
        self.assertFalse(self.passes(state, third))
        self.assertFalse(reference(state, third))
        self.assertIsNot(npnova._dedicated_verdicts.by_state[state], entry)
        state.numa_topology.cells[0].memory_usage = 0
        self.assertTrue(self.passes(state, third))


def words_key(reader, state):
    """The key a host state's packed verdicts are kept by: the view's words and the ratios."""
    return (getattr(npnova._cellwords, reader)(state.numa_topology._obj_cells),
            (float(state.cpu_allocation_ratio), float(state.ram_allocation_ratio)))


def view_of(reader, state):
    """What a view of the host reads (numaplace._cellwords' reader of that name), written here from
    Nova's objects: the key of the verdicts kept under the view must change exactly when this does."""
    def pages(cell):
        return [(p.size_kb, p.total, p.used or 0, p.reserved or 0) for p in cell.mempages or ()]
    cells = []
    for cell in state.numa_topology.cells:
        if reader == "floating_words":
            cells.append((cell.id, cell.memory, cell.cpu_usage or 0, cell.memory_usage or 0, len(cell.cpuset or ()),
                          pages(cell)))
        else:
            whole = (cell.cpu_usage or 0, sorted(cell.cpuset or ()), cell.socket) if reader == "cell_words" else ()
            cells.append((cell.id, cell.memory, cell.memory_usage or 0, sorted(cell.pcpuset or ()),
                          sorted(cell.pinned_cpus or ()), [sorted(core) for core in cell.siblings or ()], pages(cell),
                          whole))
    return (float(state.cpu_allocation_ratio), float(state.ram_allocation_ratio)), cells


def mutate(rng, state):
    """One random change in place (or assignment) to a field host_inputs reads; returns its name."""
    topology = state.numa_topology
    cell = rng.choice(topology.cells)
    kind = rng.choice(["pin_add", "pin_assign", "pin_clear", "cpu_usage", "memory_usage", "page_used",
                       "page_reserved", "cpuset", "pcpuset", "siblings", "memory", "socket", "cells",
                       "ratio", "pci", "nothing"])
    cpus = sorted(cell.cpuset | cell.pcpuset)
    if kind == "pin_add" and cpus:
        cell.pinned_cpus.add(rng.choice(sorted(cell.pcpuset) or cpus))
    elif kind == "pin_assign":
        cell.pinned_cpus = {c for c in cell.pcpuset if rng.random() < 0.5}
    elif kind == "pin_clear":
        cell.pinned_cpus.clear()
    elif kind == "cpu_usage":
        cell.cpu_usage = rng.randint(0, 4 * len(cpus) + 1)
    elif kind == "memory_usage":
        cell.memory_usage = rng.randint(0, cell.memory)
    elif kind == "page_used" and cell.mempages:
        page = rng.choice(cell.mempages)
        page.used = rng.randint(0, page.total)
    elif kind == "page_reserved" and cell.mempages:
        page = rng.choice(cell.mempages)
        page.reserved = rng.randint(0, page.total)
    elif kind == "cpuset" and cell.cpuset:
        cell.cpuset.discard(rng.choice(sorted(cell.cpuset)))
    elif kind == "pcpuset" and cell.pcpuset:
        cell.pcpuset.discard(rng.choice(sorted(cell.pcpuset)))
    elif kind == "siblings" and cell.siblings:
        core = rng.choice(cell.siblings)
        if len(core) > 1:
            core.discard(max(core))
    elif kind == "memory":
        cell.memory = max(256, cell.memory // 2)
    elif kind == "socket":
        cell.socket = (cell.socket or 0) + 1
    elif kind == "cells" and len(topology.cells) > 1:
        topology.cells.pop()
    elif kind == "ratio":
        state.ram_allocation_ratio = rng.choice([0.5, 1.0, 1.5])
    elif kind == "pci" and state.pci_stats.pools:
        state.pci_stats.pools[0]["count"] = max(0, state.pci_stats.pools[0]["count"] - 1)
    else:
        kind = "nothing"
    return kind


@unittest.skipUnless(NOVA, "python3-nova is not installed")
class RandomInvalidation(unittest.TestCase):
    def test_verdicts_follow_the_host_through_random_changes(self):
        rng = random.Random(21)
        flt = npnova.NUMAPlaceFilter()
        steps = changed_seen = packed_checked = 0
        views_changed = collections.Counter()
        for _ in range(60):
            host = nd.random_multicell_host(rng)
            topology = nd.build_host(host)
            state = host_state(topology, host["allocation_ratio"]["cpu"], host["allocation_ratio"]["ram"])
            state.pci_stats = nd.build_pci_stats(host, topology)
            for _ in range(12):
                request = nd.random_request(rng, len(host["cells"]))
                request["flavor"]["extra_specs"].pop("hw:pci_numa_affinity_policy", None)
                try:
                    guest = spec(request["flavor"]["vcpus"], request["flavor"]["memory_mib"],
                                 request["flavor"]["extra_specs"])
                except Exception:  # noqa: a request Nova refuses asks nothing of the cache
                    continue
                before = json.dumps(npnova.host_json(topology, _limits(state), state.pci_stats))
                self.assertEqual(flt.host_passes(state, guest), reference(state, guest), msg=before)
                ratios = (float(state.cpu_allocation_ratio), float(state.ram_allocation_ratio))
                entry = npnova._filter_host(state, topology, ratios, state.pci_stats)  # the host as it is now
                key_before = reader = view_before = None
                if guest.numa_topology and npnova._cellwords is not None:  # the words this guest's verdicts are kept by
                    reader = npnova._cell_view(guest.numa_topology)[0]
                    key_before = words_key(reader, state)
                    view_before = view_of(reader, state)
                kind = mutate(rng, state)
                topology = state.numa_topology
                after = json.dumps(npnova.host_json(topology, _limits(state), state.pci_stats))
                if after != before:
                    changed_seen += 1
                    self.assertFalse(entry_unchanged(entry, state),
                                     msg=f"{kind} changed the host but the cache did not see it")
                elif kind == "nothing":
                    self.assertTrue(entry_unchanged(entry, state))
                if key_before is not None:  # the packed verdicts' key (the view's words, the ratios) follows the view
                    seen = view_of(reader, state) != view_before
                    self.assertEqual(words_key(reader, state) != key_before, seen,
                                     msg=f"{kind}: the {reader} view {'changed' if seen else 'did not change'}")
                    packed_checked += 1
                    views_changed[reader] += seen
                self.assertEqual(flt.host_passes(state, guest), reference(state, guest), msg=f"after {kind}")
                # the cached host (made from packed words, the unchanged cells' words kept) is the
                # host its JSON makes, as the library writes both back
                ratios = (float(state.cpu_allocation_ratio), float(state.ram_allocation_ratio))
                cached = npnova._filter_host(state, topology, ratios, state.pci_stats)[1]
                self.assertEqual(cached.to_dict(), numaplace.Host(json.loads(after)).to_dict(), msg=f"after {kind}")
                steps += 1
        self.assertGreater(steps, 400)
        self.assertGreater(changed_seen, 200)
        if npnova._cellwords is not None:  # the C reader's run answers from packed words
            self.assertGreater(packed_checked, 300)
            for reader in ("floating_words", "dedicated_words", "cell_words"):  # each view seen changing
                self.assertGreater(views_changed[reader], 10, msg=str(views_changed))


def entry_unchanged(entry, state):
    """The cache's own check of an entry against the host state as it is now."""
    ratios = (float(state.cpu_allocation_ratio), float(state.ram_allocation_ratio))
    topology = state.numa_topology
    return npnova._entry_unchanged(entry, npnova._packed_key(topology, ratios, state.pci_stats), topology, ratios,
                                   state.pci_stats)


class WithoutTheCReader:
    """Runs a test class's tests with numaplace._cellwords unavailable (the pip wheel's package),
    the cells read by host_inputs in Python; the caches start empty either way."""

    def setUp(self):
        self._kept = npnova._cellwords
        npnova._cellwords = None
        npnova._filter_hosts.__init__()
        npnova._packed_verdicts.__init__()
        npnova._weigher_hosts.__init__()

    def tearDown(self):
        npnova._cellwords = self._kept
        npnova._filter_hosts.__init__()
        npnova._packed_verdicts.__init__()
        npnova._weigher_hosts.__init__()


@unittest.skipUnless(NOVA, "python3-nova is not installed")
class RandomInvalidationInPython(WithoutTheCReader, RandomInvalidation):
    pass


def reference_weight(state, spec_obj):
    """NUMAPlaceWeigher's weight written apart from it: a numaplace host read now from the host as
    it is (no limits, no PCI), the default fit, then the mean share left free on the chosen cells
    (pCPUs of a pinned cell, memory of the others)."""
    if not spec_obj.numa_topology:
        return 0.0
    topology = state.numa_topology
    host = numaplace.Host(json.dumps(npnova.host_json(topology, None, None)))
    answer = host.fit(numaplace.Request(document=npnova.request_json(spec_obj.numa_topology)))
    if answer["kind"] != "fit":
        return 0.0
    shares = []
    for placed in answer["cells"]:
        cell = next(c for c in topology.cells if c.id == placed["host_cell"])
        if placed["pinning"] is not None:
            total = max(1, len(cell.pcpuset))
            shares.append(max(0.0, (total - len(cell.pinned_cpus) - len(placed["pinning"])) / total))
        else:
            total = max(1, cell.memory)
            shares.append(max(0.0, (total - cell.memory_usage - placed["memory_kib"] // 1024) / total))
    return sum(shares) / len(shares)


def drop_field(rng, topology):
    """Unsets one field of a random cell or page pool (as an object made without it); its name."""
    cell = rng.choice(topology.cells)
    if cell.mempages and rng.random() < 0.3:
        target, name = rng.choice(cell.mempages), rng.choice(["size_kb", "total", "used", "reserved"])
    else:
        target = cell
        name = rng.choice(["id", "cpuset", "pcpuset", "siblings", "memory", "cpu_usage", "pinned_cpus",
                           "memory_usage", "socket", "mempages"])
    if hasattr(target, "_obj_" + name):
        delattr(target, "_obj_" + name)
    return name


@unittest.skipUnless(NOVA, "python3-nova is not installed")
class CellWordsReader(unittest.TestCase):
    """numaplace._cellwords against the reference made apart from it: host_json of the same Nova
    objects (read in Python) through the JSON reader."""

    def test_the_c_reader_is_there_when_it_was_built(self):
        if os.environ.get("NUMAPLACE_CELLWORDS_BUILT") == "1":
            self.assertIsNotNone(npnova._cellwords, "the build made numaplace._cellwords but it does not import")
        elif npnova._cellwords is None:
            self.skipTest("numaplace._cellwords was not built (no python3-dev)")

    def test_packed_cells_make_the_host_the_json_makes(self):
        if npnova._cellwords is None:
            self.skipTest("numaplace._cellwords was not built")
        rng = random.Random(23)
        read = changed = unset = 0
        for _ in range(150):
            host = nd.random_multicell_host(rng)
            topology = nd.build_host(host)
            state = host_state(topology, host["allocation_ratio"]["cpu"], host["allocation_ratio"]["ram"])
            for _ in range(6):
                before_json = json.dumps(npnova.host_json(topology, None, None))
                words = npnova.packed_cells(topology)
                self.assertIsNotNone(words, msg=before_json)
                made = npnova.host_of_packed(words, None, None)
                self.assertIsNotNone(made, msg=before_json)
                self.assertEqual(made.to_dict(), numaplace.Host(before_json).to_dict(), msg=before_json)
                read += 1
                kind = mutate(rng, state)
                topology = state.numa_topology
                if json.dumps(npnova.host_json(topology, None, None)) != before_json:
                    changed += 1
                    self.assertNotEqual(npnova.packed_cells(topology), words,
                                        msg=f"{kind} changed the host but not its packed words")
            # a field unset: not read in C (Python reads it, with its defaults or its error)
            name = drop_field(rng, topology)
            self.assertIsNone(npnova.packed_cells(topology), msg=f"{name} unset")
            unset += 1
        self.assertGreater(changed, 300)
        self.assertEqual(read, 900)
        self.assertEqual(unset, 150)

    def test_values_the_words_cannot_hold_are_left_to_python(self):
        if npnova._cellwords is None:
            self.skipTest("numaplace._cellwords was not built")
        rng = random.Random(24)
        for value in (1.5, 2 ** 63, -2 ** 63 - 1, "3", None):
            topology = nd.build_host(nd.random_multicell_host(rng))
            cell = topology.cells[0]
            vars(cell)["_obj_memory"] = value  # past the field's coercion, as a foreign object could hold it
            self.assertIsNone(npnova.packed_cells(topology), msg=repr(value))
        topology = nd.build_host(nd.random_multicell_host(rng))
        vars(topology.cells[0])["_obj_cpuset"] = {0, "1"}
        self.assertIsNone(npnova.packed_cells(topology))
        vars(topology.cells[0])["_obj_cpuset"] = set()
        vars(topology.cells[0])["_obj_siblings"] = [None]
        self.assertIsNone(npnova.packed_cells(topology))

    def test_pci_pools_read_as_the_python_reader_reads_them(self):
        """pool_inputs on random pool lists: where every pool is a dict of str keys whose tags are
        str or None it answers, and equals nova.py's _pool_input of each pool (the same objects for
        the ids, node and count; the tags sorted); anything else it leaves to Python (None)."""
        if npnova._cellwords is None:
            self.skipTest("numaplace._cellwords was not built (no python3-dev)")
        rng = random.Random(4242)
        keys = ["vendor_id", "product_id", "numa_node", "count", "devices", "dev_type", "physical_network",
                "Zeta", "alpha", "\u00e9t\u00e9", "a", "parent_ifname", "remote_managed"]
        values = ["8086", "type-PF", "", "physnet1", None, "\u00fc", 3, True, 1.5, ["x"], {"k": "v"}]
        answered = left = 0
        for _ in range(3000):
            pools = []
            for _ in range(rng.randint(0, 4)):
                pool = {key: rng.choice(values) for key in rng.sample(keys, rng.randint(0, len(keys)))}
                if rng.random() < 0.03:
                    pool[7] = "not a str key"
                if rng.random() < 0.02:
                    pool = collections.OrderedDict(pool)
                pools.append(pool)
            got = npnova._cellwords.pool_inputs(pools)
            readable = all(type(pool) is dict and all(type(key) is str for key in pool) and
                           all(value is None or type(value) is str
                               for key, value in pool.items() if key not in npnova._POOL_NOT_TAGS)
                           for pool in pools)
            if not readable:
                self.assertIsNone(got)
                left += 1
                continue
            self.assertIsNotNone(got, pools)
            want = list(map(npnova._pool_input, pools))
            self.assertEqual(got, want)
            for mine, theirs in zip(got, want):
                for a, b in zip(mine[:4], theirs[:4]):
                    self.assertIs(type(a), type(b))
            answered += 1
        self.assertGreater(answered, 300)
        self.assertGreater(left, 300)

    def test_containers_read_as_the_python_reader_reads_them(self):
        """Sets and lists of other types than oslo's (a frozenset, a tuple with repeats, a list
        subclass iterating in its own order, a set subclass whose __iter__ lies, which frozenset()
        does not ask) give the host the Python reader's JSON gives."""
        if npnova._cellwords is None:
            self.skipTest("numaplace._cellwords was not built")

        class Backwards(list):
            def __iter__(self):
                return iter(list(list.__iter__(self))[::-1])

        class Lying(set):
            def __iter__(self):
                return iter(())

        rng = random.Random(25)
        kinds = (frozenset, tuple, lambda v: tuple(v) + tuple(v), Lying)
        checked = 0
        for _ in range(40):
            topology = nd.build_host(nd.random_multicell_host(rng))
            fields = vars(rng.choice(topology.cells))
            for name in ("_obj_cpuset", "_obj_pcpuset", "_obj_pinned_cpus"):
                fields[name] = rng.choice(kinds)(sorted(fields[name]))
            fields["_obj_siblings"] = Backwards(rng.choice(kinds)(sorted(g)) for g in fields["_obj_siblings"])
            words = npnova.packed_cells(topology)
            self.assertIsNotNone(words)
            want = numaplace.Host(json.dumps(npnova.host_json(topology, None, None))).to_dict()
            self.assertEqual(npnova.host_of_packed(words, None, None).to_dict(), want)
            checked += 1
        self.assertEqual(checked, 40)


@unittest.skipUnless(NOVA, "python3-nova is not installed")
class WeigherCache(unittest.TestCase):
    def test_weights_follow_the_host_through_random_changes(self):
        """The weigher's kept hosts and weights, through random changes in place, weigh as a
        weight made afresh; weigh_objects over many hosts gives each host's own weight."""
        from nova.scheduler import weights as nova_weights
        rng = random.Random(22)
        weigher = npnova.NUMAPlaceWeigher()
        states, steps, positive = [], 0, 0
        for _ in range(40):
            host = nd.random_multicell_host(rng)
            topology = nd.build_host(host)
            states.append(host_state(topology, host["allocation_ratio"]["cpu"], host["allocation_ratio"]["ram"]))
        for _ in range(30):
            request = nd.random_request(rng, 2)
            request["flavor"]["extra_specs"].pop("hw:pci_numa_affinity_policy", None)
            try:
                guest = spec(request["flavor"]["vcpus"], request["flavor"]["memory_mib"],
                             request["flavor"]["extra_specs"])
            except Exception:  # noqa: a request Nova refuses has nothing to weigh
                continue
            for _ in range(2):  # the second time from the weights kept
                got = weigher.weigh_objects([nova_weights.WeighedHost(s, 0.0) for s in states], guest)
                want = [reference_weight(s, guest) for s in states]
                for g, w in zip(got, want):
                    self.assertAlmostEqual(g, w, places=12)
                positive += sum(1 for w in want if w > 0)
            for state in rng.sample(states, 8):
                mutate(rng, state)
            steps += 1
        self.assertGreater(steps, 15)
        self.assertGreater(positive, 100)


class PciText(unittest.TestCase):
    """numaplace.nova's "pci" text of a host's PCI pools, made from the texts of pools seen before
    (_pool_texts) and of whole lists (_pci_texts): read back, every pool is its `count` devices,
    named pool{INDEX}-{J}, with the pool's ids, node and tags (None kept, other values as JSON),
    whether its pieces came from the caches or not."""

    def test_random_pool_lists_read_back_as_their_devices(self):
        rng = random.Random(2027)
        kinds = [{"dev_type": "type-PF", "physical_network": "physnet1"}, {"dev_type": "type-VF"},
                 {"dev_type": "type-PCI", "physical_network": None}, {"trusted": True, "numbers": [1, 2]}, {}]
        seen = []
        checked = 0
        for _ in range(400):
            pools = []
            for _ in range(rng.randint(1, 4)):
                if seen and rng.random() < 0.5:
                    pool = rng.choice(seen)
                else:
                    pool = {"vendor_id": rng.choice(["8086", "15b3"]), "product_id": rng.choice(["154d", "1017"]),
                            "numa_node": rng.choice([None, 0, 1, 3]), "count": rng.randint(0, 3)}
                    pool.update(rng.choice(kinds))
                    seen.append(pool)
                pools.append(pool)
            inputs = list(map(npnova._pool_input, pools))
            devices = json.loads(npnova._pci_text(inputs))
            want = []
            for i, pool in enumerate(pools):
                tags = {k: v for k, v in pool.items() if k not in ("vendor_id", "product_id", "numa_node", "count")}
                for j in range(pool["count"]):
                    device = {"address": f"pool{i}-{j}", "numa_node": pool["numa_node"],
                              "vendor_id": pool["vendor_id"], "product_id": pool["product_id"], "allocated": False}
                    if tags:
                        device["tags"] = tags
                    want.append(device)
            self.assertEqual(devices, want)
            checked += len(want)
        self.assertGreater(checked, 1000)
        self.assertIsNone(npnova._pci_text([]))


def _limits(state):
    return NOVA["objects"].NUMATopologyLimits(cpu_allocation_ratio=state.cpu_allocation_ratio,
                                             ram_allocation_ratio=state.ram_allocation_ratio)


@unittest.skipUnless(NOVA, "python3-nova is not installed")
class WeigherCacheInPython(WithoutTheCReader, WeigherCache):
    pass


if __name__ == "__main__":
    if NOVA is None:
        print("SKIP: Nova cannot be imported")
        sys.exit(77)
    unittest.main(verbosity=1)
