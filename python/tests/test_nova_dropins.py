# SPDX-License-Identifier: LGPL-2.1-or-later
"""numaplace.nova with Nova's objects: the weigher (which Nova's own tests do not cover) and the
filter's limits, on hosts built here. Skipped without python3-nova; Nova's own tests of the
drop-ins run in tests/nova (ctest nova.unit-tests). Skipped too in the sanitizer build's run
(the ASan runtime preloaded): Nova's own C extensions are not what is tested there."""

import os
import types
import unittest

HAVE_NOVA = False
if "asan" not in os.environ.get("LD_PRELOAD", ""):
    try:
        from nova import objects
        objects.register_all()
        HAVE_NOVA = True
    except ImportError:
        pass

from numaplace import nova as npnova


def cell(cell_id, cpus, pinned=()):
    return objects.NUMACell(id=cell_id, cpuset=set(cpus), pcpuset=set(cpus), memory=4096, cpu_usage=0,
                            memory_usage=0, pinned_cpus=set(pinned), siblings=[{c} for c in cpus], mempages=[])


def host_state(cells):
    return types.SimpleNamespace(numa_topology=objects.NUMATopology(cells=cells), cpu_allocation_ratio=16.0,
                                 ram_allocation_ratio=1.0, pci_stats=None, limits={}, host="h", nodename="n")


def dedicated_request(vcpus):
    cells = [objects.InstanceNUMACell(id=0, cpuset=set(), pcpuset=set(range(vcpus)), memory=1024,
                                      cpu_policy="dedicated")]
    return objects.InstanceNUMATopology(cells=cells)


@unittest.skipUnless(HAVE_NOVA, "python3-nova is not installed (or the sanitizer runtime is preloaded)")
class NovaDropInTest(unittest.TestCase):
    def test_fit_pins_onto_free_pcpus_of_the_chosen_cell(self):
        host = objects.NUMATopology(cells=[cell(0, [0, 1, 2, 3], pinned=[0, 1, 2]), cell(1, [4, 5, 6, 7])])
        fitted = npnova.numa_fit_instance_to_host(host, dedicated_request(2))
        self.assertEqual(fitted.cells[0].id, 1)
        self.assertEqual(set(fitted.cells[0].cpu_pinning), {0, 1})
        self.assertTrue(set(fitted.cells[0].cpu_pinning.values()) <= {4, 5, 6, 7})
        self.assertIsNone(npnova.numa_fit_instance_to_host(host, dedicated_request(5)))

    def test_a_page_size_of_0_is_none_as_novas_fit_reads_it(self):
        # hw:mem_page_size=0 passes Nova's API; its fit takes the cell's pagesize 0 as no page size.
        host = objects.NUMATopology(cells=[cell(0, [0, 1, 2, 3])])
        request = objects.InstanceNUMATopology(cells=[objects.InstanceNUMACell(
            id=0, cpuset={0, 1}, pcpuset=set(), memory=1024, pagesize=0, cpu_policy="shared")])
        fitted = npnova.numa_fit_instance_to_host(host, request)
        self.assertIsNotNone(fitted)
        self.assertEqual(fitted.cells[0].id, 0)

    def test_weigher_prefers_the_host_with_more_room(self):
        weigher = npnova.NUMAPlaceWeigher()
        spec = types.SimpleNamespace(numa_topology=dedicated_request(2))
        empty = host_state([cell(0, [0, 1, 2, 3])])
        busy = host_state([cell(0, [0, 1, 2, 3], pinned=[0])])
        full = host_state([cell(0, [0, 1, 2, 3], pinned=[0, 1, 2])])
        w_empty, w_busy, w_full = (weigher._weigh_object(h, spec) for h in (empty, busy, full))
        self.assertAlmostEqual(w_empty, 0.5)  # 2 of 4 pCPUs left free
        self.assertAlmostEqual(w_busy, 0.25)
        self.assertEqual(w_full, 0.0)         # does not fit
        self.assertEqual(weigher._weigh_object(empty, types.SimpleNamespace(numa_topology=None)), 0.0)

    def test_filter_sets_the_limits_it_used(self):
        flt = npnova.NUMAPlaceFilter()
        spec = objects.RequestSpec(numa_topology=dedicated_request(2), flavor=objects.Flavor(extra_specs={}),
                                   image=objects.ImageMeta.from_dict({"properties": {}}), pci_requests=None)
        state = host_state([cell(0, [0, 1, 2, 3])])
        self.assertTrue(flt.host_passes(state, spec))
        self.assertEqual(state.limits["numa_topology"].cpu_allocation_ratio, 16.0)
        full = host_state([cell(0, [0, 1, 2, 3], pinned=[0, 1, 2])])
        self.assertFalse(flt.host_passes(full, spec))
        self.assertNotIn("numa_topology", full.limits)

    def test_network_affinity_chooses_the_cells_near_the_network(self):
        def networked(cell_id, cpus, physnets=(), tunneled=False, pinned=()):
            c = cell(cell_id, cpus, pinned)
            c.network_metadata = objects.NetworkMetadata(physnets=set(physnets), tunneled=tunneled)
            return c

        def network(physnets=(), tunneled=False):
            return objects.NetworkMetadata(physnets=set(physnets), tunneled=tunneled)

        def limits(physnets=(), tunneled=False):
            return objects.NUMATopologyLimits(cpu_allocation_ratio=16.0, ram_allocation_ratio=1.0,
                                              network_metadata=network(physnets, tunneled))

        # Nova's order takes cell 0 (cell 1 has a pinned pCPU), where physnet "blue" is.
        host = objects.NUMATopology(cells=[networked(0, [0, 1, 2, 3], physnets=["blue"]),
                                           networked(1, [4, 5, 6, 7], physnets=["red"], tunneled=True, pinned=[4])])
        blue = npnova.numa_fit_instance_to_host(host, dedicated_request(2), limits=limits(["blue"]))
        self.assertEqual(blue.cells[0].id, 0)
        # "red" and the tunnel are cell 1's: as Nova, the fit goes on to cell 1, which holds the guest.
        red = npnova.numa_fit_instance_to_host(host, dedicated_request(2), limits=limits(["red"]))
        self.assertEqual(red.cells[0].id, 1)
        tunnel = npnova.numa_fit_instance_to_host(host, dedicated_request(2), limits=limits(tunneled=True))
        self.assertEqual(tunnel.cells[0].id, 1)
        # A physnet no cell is affine to asks for no affinity.
        green = npnova.numa_fit_instance_to_host(host, dedicated_request(2), limits=limits(["green"]))
        self.assertEqual(green.cells[0].id, 0)
        # Only cell 1 is near "red", and it cannot hold 4 dedicated vCPUs: no fit, though cell 0 could.
        self.assertIsNone(npnova.numa_fit_instance_to_host(host, dedicated_request(4), limits=limits(["red"])))
        self.assertIsNotNone(npnova.numa_fit_instance_to_host(host, dedicated_request(4), limits=limits(["blue"])))

        # The filter: the same rule, and the limits it sets carry the request's networks.
        flt = npnova.NUMAPlaceFilter()

        def spec(vcpus, physnets):
            return objects.RequestSpec(numa_topology=dedicated_request(vcpus), flavor=objects.Flavor(extra_specs={}),
                                       image=objects.ImageMeta.from_dict({"properties": {}}), pci_requests=None,
                                       network_metadata=network(physnets))

        def state():
            return host_state([networked(0, [0, 1, 2, 3], physnets=["blue"]),
                               networked(1, [4, 5, 6, 7], physnets=["red"], pinned=[4])])

        passing = state()
        self.assertTrue(flt.host_passes(passing, spec(2, ["red"])))
        self.assertEqual(passing.limits["numa_topology"].network_metadata.physnets, {"red"})
        self.assertFalse(flt.host_passes(state(), spec(4, ["red"])))
        self.assertTrue(flt.host_passes(state(), spec(4, ["blue"])))

if __name__ == "__main__":
    unittest.main()
