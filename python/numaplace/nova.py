# SPDX-License-Identifier: LGPL-2.1-or-later
"""Drop-ins for OpenStack Nova 26 (Zed) that answer with numaplace's engine.

    from numaplace import nova as npnova
    topology = npnova.numa_get_constraints(flavor, image_meta)
    fitted = npnova.numa_fit_instance_to_host(host_topology, topology, limits, pci_requests, pci_stats)

    [filter_scheduler]
    available_filters = nova.scheduler.filters.all_filters
    available_filters = numaplace.nova.NUMAPlaceFilter
    enabled_filters = ...,NUMAPlaceFilter        (in place of NUMATopologyFilter)
    weight_classes = nova.scheduler.weights.all_weighers,numaplace.nova.NUMAPlaceWeigher

The functions keep Nova's signatures, return Nova's objects (objects.InstanceNUMATopology with
InstanceNUMACell cells) and raise Nova's exceptions (nova.exception classes, by the name the
engine gives; ValueError where Nova raises it). Importing this module needs no Nova; Nova is
imported on the first call (its objects are what the calls take and give). docs/nova.md says what
Nova's own tests make of them.

How a call maps onto the engine: the host's NUMATopology (cells' cpuset, pcpuset, siblings,
memory, mempages, usage, socket), the limits (allocation ratios, or none) and the PCI pools of
pci_stats become a host in the nova-fit JSON schema (np_host_from_json); the instance topology
becomes the request's "topology" form (np_request_from_json); numaplace fits it (np_fit) and the
answer is written onto the instance cells as Nova writes it: the host cell id, the chosen page
size where one was asked, the pinning of the dedicated vCPUs and the emulator's reserved pCPUs.
Every call builds both again from the objects (they change between calls); a scheduler that
keeps hosts should hold numaplace.Host values and call Host.fit, which is the fast path.
"""

import collections
import json
import threading
from typing import Any, Dict, List, Optional

import numaplace

__all__ = ["numa_get_constraints", "numa_fit_instance_to_host", "NUMAPlaceFilter", "NUMAPlaceWeigher",
           "host_json", "request_json"]

_nova = None  # (objects, exception, fields), imported on first use


def _nova_modules():
    global _nova
    if _nova is None:
        from nova import exception, objects  # noqa: the drop-ins speak Nova's objects
        from nova.objects import fields
        objects.register_all()
        _nova = (objects, exception, fields)
    return _nova


def _raise_as_nova(error: numaplace.Error):
    """Raises the Nova exception named by the engine's error (Nova's class names)."""
    _, exception, _ = _nova_modules()
    if error.name == "ValueError":
        raise ValueError(error.message) from None
    cls = getattr(exception, error.name, None)
    if isinstance(cls, type) and issubclass(cls, exception.NovaException):
        raise cls(message=error.message) from None
    raise error


def _is_set(obj, name: str) -> bool:
    return obj.obj_attr_is_set(name) if hasattr(obj, "obj_attr_is_set") else hasattr(obj, name)


def _get(obj, name: str, default=None):
    """A field's value, `default` when unset, never lazy-loaded. oslo.versionedobjects keeps a set
    field as the attribute _obj_NAME (read directly: obj_attr_is_set lists every field per call)."""
    try:
        return getattr(obj, "_obj_" + name)
    except AttributeError:
        pass
    if hasattr(obj, "obj_attr_is_set"):
        return default
    return getattr(obj, name, default)


# ---- numa_get_constraints ----

def _image_properties(image_meta) -> Dict[str, str]:
    """The hw_* properties of an ImageMeta, written back as Glance holds them (hw_numa_cpus.N)."""
    props = getattr(image_meta, "properties", None)
    out: Dict[str, str] = {}
    if props is None:
        return out
    for name in getattr(props, "fields", {}):
        # hw_* and the traits an image requires (trait:HW_CPU_HYPERTHREADING lands there)
        if not (name.startswith("hw_") or name == "traits_required") or not _is_set(props, name):
            continue
        value = getattr(props, name)
        if value is None:
            continue
        if name in ("hw_numa_cpus", "hw_numa_mem"):
            for i, item in enumerate(value):
                if isinstance(item, (set, frozenset, list, tuple)):
                    out[f"{name}.{i}"] = ",".join(str(c) for c in sorted(item))
                else:
                    out[f"{name}.{i}"] = str(item)
        elif isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif isinstance(value, (set, frozenset, list, tuple)):
            out[name] = ",".join(str(v) for v in sorted(value))
        else:
            out[name] = str(value)
    return out


def _cells_from_topology(topology: Dict[str, Any]):
    objects, _, fields = _nova_modules()
    cpu_policy = topology.get("cpu_policy")
    thread_policy = topology.get("cpu_thread_policy")
    cells = []
    for cell in topology["cells"]:
        pcpus = set(cell["pcpus"])
        cells.append(objects.InstanceNUMACell(
            id=cell["id"], cpuset=set(cell["cpus"]) - pcpus, pcpuset=pcpus,
            memory=cell["memory_kib"] // 1024, pagesize=cell.get("pagesize"),
            cpu_policy=cpu_policy, cpu_thread_policy=thread_policy))
    return objects.InstanceNUMATopology(cells=cells,
                                        emulator_threads_policy=topology.get("emulator_threads_policy"))


def numa_get_constraints(flavor, image_meta):
    """Nova's numa_get_constraints: the InstanceNUMATopology the flavor and image ask for, or None."""
    _nova_modules()
    # As Nova reads them: flavor.get, so an unloaded extra_specs counts as none
    extra_specs = flavor.get("extra_specs", {}) if hasattr(flavor, "get") else getattr(flavor, "extra_specs", {})
    specs = {str(k): str(v) for k, v in (extra_specs or {}).items()}
    try:
        topology = numaplace.derive(int(flavor.vcpus), int(flavor.memory_mb), specs, _image_properties(image_meta))
    except numaplace.Error as error:
        _raise_as_nova(error)
    if topology is None:
        return None
    return _cells_from_topology(topology)


# ---- numa_fit_instance_to_host ----

def _pci_devices(pci_stats) -> List[Dict[str, Any]]:
    """PciDeviceStats pools as free devices: `count` of each (vendor, product, NUMA node)."""
    devices = []
    for i, pool in enumerate(getattr(pci_stats, "pools", None) or []):
        for j in range(int(pool.get("count", 0))):
            devices.append({"address": f"pool{i}-{j}", "numa_node": pool.get("numa_node"),
                            "vendor_id": pool.get("vendor_id", ""), "product_id": pool.get("product_id", ""),
                            "allocated": False})
    return devices


def host_json(host_topology, limits=None, pci_stats=None) -> Dict[str, Any]:
    """A Nova NUMATopology (with its limits and PCI pools) in the nova-fit host schema
    (shared_cpuset / dedicated_cpuset only where they are not all the cell's CPUs)."""
    cells = []
    for cell in host_topology.cells:
        shared = set(_get(cell, "cpuset", set()) or set())
        dedicated = set(_get(cell, "pcpuset", set()) or set())
        cpus = shared | dedicated
        out = {"id": cell.id, "cpus": sorted(cpus),
               "siblings": [sorted(s) for s in (_get(cell, "siblings", []) or [])],
               "memory_mib": int(cell.memory),
               "usage": {"shared_cpus": float(_get(cell, "cpu_usage", 0) or 0),
                         "pinned_cpus": sorted(_get(cell, "pinned_cpus", set()) or set()),
                         "memory_mib": int(_get(cell, "memory_usage", 0) or 0)}}
        if shared != cpus:
            out["shared_cpuset"] = sorted(shared)
        if dedicated != cpus:
            out["dedicated_cpuset"] = sorted(dedicated)
        pages = _get(cell, "mempages", None) or []
        if pages:
            out["pages"] = [{"size_kib": p.size_kb, "total": p.total, "used": _get(p, "used", 0) or 0,
                             "reserved": _get(p, "reserved", 0) or 0} for p in pages]
        socket = _get(cell, "socket", None)
        if socket is not None:
            out["socket"] = socket
        cells.append(out)
    host = {"cells": cells, "pci": _pci_devices(pci_stats) if pci_stats is not None else []}
    if limits is None:
        host["allocation_ratio"] = None
    else:
        host["allocation_ratio"] = {"cpu": float(limits.cpu_allocation_ratio),
                                    "ram": float(limits.ram_allocation_ratio)}
    return host


def _pci_requests(pci_requests) -> List[Dict[str, Any]]:
    out = []
    for request in (getattr(pci_requests, "requests", pci_requests) or []):
        spec = (_get(request, "spec", None) or [{}])[0]
        entry = {"count": int(_get(request, "count", 1) or 1), "vendor_id": spec.get("vendor_id", ""),
                 "product_id": spec.get("product_id", "")}
        policy = _get(request, "numa_policy", None)
        if policy:
            entry["alias_numa_policy"] = policy
        out.append(entry)
    return out


def request_json(instance_topology, pci_requests=None) -> Dict[str, Any]:
    """A Nova InstanceNUMATopology in the request's "topology" form (numaplace.h)."""
    cells = []
    cpu_policy = thread_policy = None
    for i, cell in enumerate(instance_topology.cells):
        shared = set(_get(cell, "cpuset", set()) or set())
        dedicated = set(_get(cell, "pcpuset", set()) or set())
        cpu_policy = cpu_policy or _get(cell, "cpu_policy", None)
        thread_policy = thread_policy or _get(cell, "cpu_thread_policy", None)
        cells.append({"id": i, "cpus": sorted(shared | dedicated), "pcpus": sorted(dedicated),
                      "memory_mib": int(cell.memory), "pagesize": _get(cell, "pagesize", None)})
    if cpu_policy not in ("dedicated", "mixed"):
        for cell in cells:  # a shared guest's cells hold no dedicated vCPUs, whatever pcpuset says
            cell["pcpus"] = []
    topology = {"cells": cells, "cpu_policy": cpu_policy, "cpu_thread_policy": thread_policy,
                "emulator_threads_policy": _get(instance_topology, "emulator_threads_policy", None)}
    request = {"topology": topology}
    pci = _pci_requests(pci_requests)
    if pci:
        request["pci"] = pci
    return request


# Hosts and requests the library has read, by their JSON text: the same text is the same host or
# request (np_fit changes neither), so a scheduler asking about the same host state again, or the
# same guest on many hosts, does not have them read again. A bounded LRU, shared by threads.
_CACHE_SIZE = 256
_hosts: "collections.OrderedDict[str, Any]" = collections.OrderedDict()
_requests: "collections.OrderedDict[str, Any]" = collections.OrderedDict()
_cache_lock = threading.Lock()


def _cached(cache, text: str, make):
    with _cache_lock:
        found = cache.get(text)
        if found is not None:
            cache.move_to_end(text)
            return found
    made = make(text)
    with _cache_lock:
        cache[text] = made
        while len(cache) > _CACHE_SIZE:
            cache.popitem(last=False)
    return made


def _nova_options() -> Dict[str, str]:
    """Nova's first fit (numaplace's strategy nova; its default is its own, adaptive), in the order
    of Nova's [compute] packing_host_numa_cells_allocation_strategy."""
    try:
        from nova import conf
        if conf.CONF.compute.packing_host_numa_cells_allocation_strategy:
            return {"strategy": "nova", "cell_order": "pack"}
    except Exception:  # noqa: without Nova's configuration, Nova's default (spread)
        pass
    return {"strategy": "nova"}


def _apply_answer(instance_topology, answer: Dict[str, Any]):
    """Writes numaplace's answer onto the instance cells as Nova's fit writes them."""
    objects, _, _ = _nova_modules()
    cells = []
    for cell, placed in zip(instance_topology.cells, answer["cells"]):
        if _get(cell, "pagesize", None):
            cell.pagesize = placed["pagesize_kib"]
        if placed["pinning"] is not None:
            cell.pin_vcpus(*[(int(v), p) for v, p in placed["pinning"].items()])
            reserved = placed["cpuset_reserved"]
            cell.cpuset_reserved = set(reserved) if reserved else None
        cell.id = placed["host_cell"]
        cells.append(cell)
    return objects.InstanceNUMATopology(cells=cells,
                                        emulator_threads_policy=_get(instance_topology, "emulator_threads_policy",
                                                                     None))


def _affine_to(cell, physnet: Optional[str]) -> bool:
    """Whether a host cell reports NUMA affinity for `physnet` (None: for tunneled networks)."""
    metadata = _get(cell, "network_metadata", None)
    if metadata is None:
        return False
    if physnet is None:
        return bool(_get(metadata, "tunneled", False))
    return physnet in (_get(metadata, "physnets", None) or ())


def _network_affinity_holds(host_topology, chosen_ids, network_metadata) -> bool:
    """Nova 26's NUMA affinity of networks (limits.network_metadata): a requested physnet, or a
    tunneled network, that some host cell is affine to must be affine to one of the chosen cells.
    numaplace's search does not take it into account yet, so it is checked on the cells chosen and
    a host whose chosen cells break it is refused: never a placement away from the network, at
    the price of refusing a host where another choice of cells would have held it (docs/nova.md)."""
    if not network_metadata:
        return True
    wanted = list(_get(network_metadata, "physnets", None) or ())
    if _get(network_metadata, "tunneled", False):
        wanted.append(None)
    chosen = [cell for cell in host_topology.cells if cell.id in chosen_ids]
    for physnet in wanted:
        if any(_affine_to(cell, physnet) for cell in host_topology.cells) and \
                not any(_affine_to(cell, physnet) for cell in chosen):
            return False
    return True


def numa_fit_instance_to_host(host_topology, instance_topology, limits=None, pci_requests=None, pci_stats=None):
    """Nova's numa_fit_instance_to_host: the InstanceNUMATopology fitted onto the host's cells
    (cell ids set to host cell ids, pinning, page size, reserved pCPUs), or None."""
    if not (host_topology and instance_topology):
        return None
    if len(host_topology.cells) < len(instance_topology.cells):
        return None
    requests = pci_requests if (pci_requests and pci_stats) else None
    host = _cached(_hosts, json.dumps(host_json(host_topology, limits, pci_stats)), numaplace.Host)
    try:
        request = _cached(_requests, json.dumps(request_json(instance_topology, requests)),
                          lambda text: numaplace.Request(document=json.loads(text)))
    except numaplace.Error as error:
        _raise_as_nova(error)
    answer = host.fit(request, _nova_options())
    if answer["kind"] != "fit":
        return None
    network_metadata = _get(limits, "network_metadata", None) if limits is not None else None
    if not _network_affinity_holds(host_topology, {c["host_cell"] for c in answer["cells"]}, network_metadata):
        return None
    return _apply_answer(instance_topology, answer)


# ---- the scheduler's filter and weigher ----

def _base_filter():
    from nova.scheduler import filters
    return filters.BaseHostFilter


def _base_weigher():
    from nova.scheduler import weights
    return weights.BaseHostWeigher


def _make_filter():
    base = _base_filter()

    class NUMAPlaceFilter(base):
        """NUMATopologyFilter with numaplace's fit: host_passes reads the same host_state fields
        (numa_topology, cpu/ram_allocation_ratio, pci_stats) and sets host_state.limits
        ['numa_topology'] when the guest fits, as NUMATopologyFilter does."""

        RUN_ON_REBUILD = False

        def _satisfies_cpu_policy(self, host_state, extra_specs, image_props):
            # dedicated + require needs a host with SMT, checked before the fit as Nova does
            host_topology = host_state.numa_topology
            if not host_topology:
                return True
            if "dedicated" not in (extra_specs.get("hw:cpu_policy"), image_props.get("hw_cpu_policy")):
                return True
            if "require" not in (extra_specs.get("hw:cpu_thread_policy"), image_props.get("hw_cpu_thread_policy")):
                return True
            return bool(host_topology.has_threads)

        def host_passes(self, host_state, spec_obj):
            objects, _, _ = _nova_modules()
            spec_obj = spec_obj.obj_clone()  # the fit writes onto the instance cells
            requested = spec_obj.numa_topology
            host_topology = host_state.numa_topology
            pci_requests = spec_obj.pci_requests
            if pci_requests:
                pci_requests = pci_requests.requests
            if not self._satisfies_cpu_policy(host_state, spec_obj.flavor.extra_specs, spec_obj.image.properties):
                return False
            if requested and host_topology:
                limits = objects.NUMATopologyLimits(cpu_allocation_ratio=host_state.cpu_allocation_ratio,
                                                    ram_allocation_ratio=host_state.ram_allocation_ratio)
                if "network_metadata" in spec_obj and spec_obj.network_metadata:
                    limits.network_metadata = spec_obj.network_metadata  # checked on the cells chosen
                fitted = numa_fit_instance_to_host(host_topology, requested, limits=limits,
                                                   pci_requests=pci_requests, pci_stats=host_state.pci_stats)
                if not fitted:
                    return False
                host_state.limits["numa_topology"] = limits
                return True
            return not requested

    return NUMAPlaceFilter


def _make_weigher():
    base = _base_weigher()

    class NUMAPlaceWeigher(base):
        """Prefers hosts where the guest's NUMA cells leave the most room: the share of free
        pCPUs (pinned guests) or free memory (others) on the host cells numaplace chose, in
        0..1. Hosts where the guest asks for no topology, or does not fit, weigh 0."""

        def weight_multiplier(self, host_state):
            return 1.0

        def _weigh_object(self, host_state, weight_properties):
            requested = getattr(weight_properties, "numa_topology", None)
            host_topology = getattr(host_state, "numa_topology", None)
            if not requested or not host_topology:
                return 0.0
            host = numaplace.Host(host_json(host_topology, None, None))
            try:
                request = numaplace.Request(document=request_json(requested.obj_clone()))
            except numaplace.Error:
                return 0.0
            answer = host.fit(request)
            if answer["kind"] != "fit":
                return 0.0
            cells = {cell.id: cell for cell in host_topology.cells}
            room = []
            for placed in answer["cells"]:
                cell = cells[placed["host_cell"]]
                if placed["pinning"] is not None:
                    total = len(_get(cell, "pcpuset", set()) or set()) or 1
                    free = total - len(_get(cell, "pinned_cpus", set()) or set()) - len(placed["pinning"])
                else:
                    total = int(cell.memory) or 1
                    free = total - int(_get(cell, "memory_usage", 0) or 0) - placed["memory_kib"] // 1024
                room.append(max(0.0, free / total))
            return sum(room) / len(room)

    return NUMAPlaceWeigher


_made: Dict[str, type] = {}


def __getattr__(name: str):
    """NUMAPlaceFilter and NUMAPlaceWeigher are made (over Nova's base classes) on first access."""
    if name in ("NUMAPlaceFilter", "NUMAPlaceWeigher"):
        if name not in _made:
            _made[name] = _make_filter() if name == "NUMAPlaceFilter" else _make_weigher()
        return _made[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
