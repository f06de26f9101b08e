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
numa_fit_instance_to_host builds both again from the objects on every call (they change between
calls; the same JSON text reuses the library's host or request). NUMAPlaceFilter keeps a
numaplace host per host_state while the fields it is made of are unchanged (the cells' packed
words read in C by numaplace._cellwords where it was built, else host_inputs' copies; compared on
every pass, so a change made in place is seen) and its verdicts
per request (asked of np_fit_hosts_cells, no answer JSON), and reads the spec once per filter_all;
NUMAPlaceWeigher keeps its hosts and weights the same way (docs/nova.md). A scheduler of its own should
hold numaplace.Host values and call Host.fit, which is the fast path.
"""

import array
import collections
import contextlib
import gc
import itertools
import json
import logging
import math
import operator
import threading
import weakref
from typing import Any, Dict, List, Optional, Tuple

import numaplace

try:  # the cells read in C (built with the library: CMake, the Debian package); not in the pip wheel
    from numaplace import _cellwords
except ImportError:
    _cellwords = None

__all__ = ["numa_get_constraints", "numa_fit_instance_to_host", "NUMAPlaceFilter", "NUMAPlaceWeigher",
           "host_json", "request_json"]

_nova = None  # (objects, exception, fields), imported on first use
_LOG = logging.getLogger(__name__)


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

def _read(obj, name: str):
    """A field's value as attribute access gives it (lazy-load or error when unset), read directly
    when set (the common case: oslo.versionedobjects keeps a set field as _obj_NAME)."""
    try:
        return getattr(obj, "_obj_" + name)
    except AttributeError:
        return getattr(obj, name)


# The fields of a host cell (and of its page pools) the nova-fit host JSON is made of, in the order
# host_inputs keeps them; read by attrgetter as oslo.versionedobjects holds set fields (_obj_NAME).
_CELL_FIELDS = ("id", "cpuset", "pcpuset", "siblings", "memory", "cpu_usage", "pinned_cpus", "memory_usage",
                "socket")
_PAGE_FIELDS = ("size_kb", "total", "used", "reserved")
# Read by attribute (attrgetter over `_obj_NAME`), never from a cell's __dict__: on Python 3.11 an
# object keeps its attributes inline until its __dict__ is asked for, and asking makes a dict for
# every cell of a host never read before, which the collection after the pass then walks (with the
# copies, 30-67 ms of a 120-170 ms first pass over tools/bench/nova_filter.py's 1,000 hosts).
_cell_fields = operator.attrgetter(*("_obj_" + name for name in _CELL_FIELDS))
_page_fields = operator.attrgetter(*("_obj_" + name for name in _PAGE_FIELDS))
_cell_pages = operator.attrgetter("_obj_mempages")


def host_inputs(host_topology, limits=None, pci_stats=None) -> tuple:
    """Everything of a Nova host that its nova-fit JSON (host_json) is made of, copied: per cell
    its _CELL_FIELDS (sets as frozensets, the siblings as a new list of frozensets, an unset field
    as its default; id and memory as attribute access gives them); the cells' page pools'
    _PAGE_FIELDS, one list over all cells, with each cell's number of pools; the two allocation
    ratios (None without limits); the PCI pools as _pool_input reads them. host_json_from_inputs is a
    function of this alone, so equal inputs are the same numaplace host; a change made in place to
    any of these fields (a CPU added to the pinned set, a page pool's `used`, a PCI pool's count)
    makes them differ. The filter's host cache relies on that (_inputs_unchanged)."""
    cells, pages, page_counts = [], [], []
    for cell in host_topology.cells:
        fields, cell_pages = _cell_input(cell)
        cells.append(fields)
        page_counts.append(len(cell_pages))
        pages.extend(cell_pages)
    ratios = None if limits is None else (float(limits.cpu_allocation_ratio), float(limits.ram_allocation_ratio))
    return cells, pages, page_counts, ratios, _pci_inputs(pci_stats)


def _cell_input(cell) -> tuple:
    """One host cell's part of host_inputs: (its _CELL_FIELDS copied, its page pools' _PAGE_FIELDS)."""
    try:  # Nova's objects with every field set: read at once
        cell_id, cpuset, pcpuset, siblings, memory, cpu_usage, pinned, memory_usage, socket = _cell_fields(cell)
        cell_pages = _cell_pages(cell)
    except AttributeError:  # a field unset, or not Nova's objects: field by field
        cell_id, memory = _read(cell, "id"), _read(cell, "memory")
        cpuset, pcpuset, siblings = _get(cell, "cpuset", None), _get(cell, "pcpuset", None), _get(cell, "siblings")
        cpu_usage, pinned, memory_usage = _get(cell, "cpu_usage", 0), _get(cell, "pinned_cpus"), _get(cell, "memory_usage", 0)
        socket, cell_pages = _get(cell, "socket", None), _get(cell, "mempages", None)
    copied = (cell_id, _frozen(cpuset), _frozen(pcpuset), _frozen_all(siblings), memory,
              cpu_usage or 0, _frozen(pinned), memory_usage or 0, socket)
    cell_pages = cell_pages or ()
    try:
        page_fields = list(map(_page_fields, cell_pages))
    except AttributeError:
        page_fields = [(_read(p, "size_kb"), _read(p, "total"), _get(p, "used", 0), _get(p, "reserved", 0))
                       for p in cell_pages]
    return copied, [(size, total, used or 0, reserved or 0) for size, total, used, reserved in page_fields]


# The frozensets of host_inputs' copies, one object per distinct set: hosts of one shape share
# their cells' CPU sets and sibling pairs, so the copies of 1,000 hosts hold a fraction of the
# objects (less for the cyclic collector to walk, and the sets the comparison reads stay in the
# CPU's caches). Frozensets are immutable, so sharing one changes nothing a copy says; bounded by
# starting afresh (the sets already shared stay valid).
_frozensets: Dict[frozenset, frozenset] = {}
_FROZENSETS_KEPT = 1 << 16


def _frozen(values) -> frozenset:
    made = frozenset(values or ())
    if len(_frozensets) >= _FROZENSETS_KEPT:
        _frozensets.clear()
    return _frozensets.setdefault(made, made)


def _frozen_all(groups) -> List[frozenset]:
    """[_frozen(group) for group in groups], with no Python call per group (a cell has many
    sibling groups; map runs in C)."""
    made = list(map(frozenset, groups or ()))
    if len(_frozensets) + len(made) > _FROZENSETS_KEPT:
        _frozensets.clear()
    return list(map(_frozensets.setdefault, made, made))


# A pool's keys that are not its tags (Nova flattens PciDevicePool.tags into the pool's dict; a
# compute node's pools also list their "devices").
_POOL_NOT_TAGS = frozenset(("vendor_id", "product_id", "numa_node", "count", "devices"))


def _pool_tag(value):
    """A pool's tag in _pool_input's hashable form: a string or None as it is, any other value as
    ("json", its JSON text), which _pci_devices writes back as the value and no string equals."""
    if value is None or isinstance(value, str):
        return value
    return "json", json.dumps(value, sort_keys=True)


def _pool_input(pool) -> tuple:
    """(vendor_id, product_id, numa_node, count, tags): tags as sorted (key, _pool_tag) pairs, a
    None tag kept (Nova matches it with a spec's None and counts it in the pool's keys)."""
    tags = tuple(sorted((key, _pool_tag(value)) for key, value in pool.items() if key not in _POOL_NOT_TAGS))
    return pool.get("vendor_id", ""), pool.get("product_id", ""), pool.get("numa_node"), pool.get("count", 0), tags


def _pci_inputs(pci_stats):
    """The PCI pools as _pool_input reads each (read in C by numaplace._cellwords where it can:
    every pass reads every host's pools); None without pci_stats."""
    if pci_stats is None:
        return None
    pools = getattr(pci_stats, "pools", None) or ()
    if _cellwords is not None:
        read = _cellwords.pool_inputs(pools)
        if read is not None:
            return read
    return list(map(_pool_input, pools))


def _inputs_unchanged(inputs: tuple, host_topology, ratios, pci_stats) -> bool:
    """Whether host_inputs(host_topology, ratios, pci_stats) would equal `inputs`, read without
    copying: the fields as they are (attrgetter, itemgetter) compared with their copies (a set with
    its frozenset, the siblings list with its list of frozensets), so the comparison runs in C and
    nothing is copied when nothing changed. Exact: True only where every field equals the copy
    host_inputs would make of it; where a field is unset, the whole host_inputs is compared."""
    cells_then, pages_then, page_counts_then, ratios_then, pools_then = inputs
    if ratios != ratios_then or _pci_inputs(pci_stats) != pools_then:
        return False
    try:
        cells = host_topology._obj_cells
        if list(map(_cell_fields, cells)) != cells_then:
            return False
        pages = list(map(_cell_pages, cells))
        return (list(map(len, pages)) == page_counts_then and
                list(map(_page_fields, itertools.chain.from_iterable(pages))) == pages_then)
    except (AttributeError, KeyError, TypeError):  # a field unset (or not Nova's objects): the whole comparison
        return host_inputs(host_topology, None if ratios is None else _Ratios(*ratios), pci_stats) == inputs


def host_json_from_inputs(inputs: tuple) -> Dict[str, Any]:
    """The nova-fit host JSON of host_inputs' value (shared_cpuset / dedicated_cpuset only where
    they are not all the cell's CPUs; each PCI pool as `count` free devices)."""
    cell_inputs, page_inputs, page_counts, ratios, pools = inputs
    cells = []
    start = 0
    for (cell_id, shared, dedicated, siblings, memory, cpu_usage, pinned, memory_usage, socket), count in \
            zip(cell_inputs, page_counts):
        pages = page_inputs[start:start + count]
        start += count
        cpus = shared | dedicated
        out = {"id": cell_id, "cpus": sorted(cpus), "siblings": [sorted(s) for s in siblings],
               "memory_mib": int(memory),
               "usage": {"shared_cpus": float(cpu_usage), "pinned_cpus": sorted(pinned),
                         "memory_mib": int(memory_usage)}}
        if shared != cpus:
            out["shared_cpuset"] = sorted(shared)
        if dedicated != cpus:
            out["dedicated_cpuset"] = sorted(dedicated)
        if pages:
            out["pages"] = [{"size_kib": size, "total": total, "used": used, "reserved": reserved}
                            for size, total, used, reserved in pages]
        if socket is not None:
            out["socket"] = socket
        cells.append(out)
    host = {"cells": cells, "pci": _pci_devices(pools)}
    host["allocation_ratio"] = None if ratios is None else {"cpu": ratios[0], "ram": ratios[1]}
    return host


def _pci_devices(pools) -> List[Dict[str, Any]]:
    """The host schema's "pci" list of host_inputs' PCI pools: each pool as `count` free devices."""
    devices = []
    for i, pool in enumerate(pools or ()):
        devices.extend(_pool_devices(i, pool))
    return devices


def _pool_devices(index: int, pool: tuple) -> List[Dict[str, Any]]:
    """The devices of the index'th pool of a host (_pool_input's form), as _pci_devices lists them."""
    vendor, product, node, count, tags = pool
    devices = []
    for j in range(int(count)):
        device = {"address": f"pool{index}-{j}", "numa_node": node, "vendor_id": vendor, "product_id": product,
                  "allocated": False}
        if tags:
            device["tags"] = {key: json.loads(value[1]) if isinstance(value, tuple) else value for key, value in tags}
        devices.append(device)
    return devices


def _cell_chunk(fields: tuple, pages: list) -> array.array:
    """One cell of np_host_from_cells' packed words (docs/library.md, "Packed host cells"), from
    its _cell_input: the cell host_json_from_inputs writes, without JSON text on either side. An
    array, so that a host's words are joined by copying memory. TypeError or OverflowError where
    a field is not a 64-bit integer (a fractional CPU usage, say)."""
    cell_id, shared, dedicated, siblings, memory, cpu_usage, pinned, memory_usage, socket = fields
    words = [cell_id, memory, cpu_usage, memory_usage, -1 if socket is None else socket, len(shared)]
    put, put_all = words.append, words.extend
    put_all(shared)
    put(len(dedicated))
    put_all(dedicated)
    put(len(pinned))
    put_all(pinned)
    put(len(siblings))
    put_all(map(len, siblings))
    put_all(itertools.chain.from_iterable(siblings))
    put(len(pages))
    for page in pages:
        put_all(page)
    return array.array("q", words)


def _cell_chunks(inputs: tuple) -> Optional[list]:
    """host_inputs' cells, each as its _cell_chunk; None where a field does not fit the words
    (host_of_inputs then reads the host's JSON)."""
    cell_inputs, page_inputs, page_counts = inputs[0], inputs[1], inputs[2]
    chunks, start = [], 0
    try:
        for fields, count in zip(cell_inputs, page_counts):
            chunks.append(_cell_chunk(fields, page_inputs[start:start + count]))
            start += count
    except (TypeError, OverflowError):
        return None
    return chunks


def cell_words(inputs: tuple, chunks: Optional[list] = None) -> Optional[array.array]:
    """host_inputs' cells as np_host_from_cells' packed words: the number of cells, then each
    cell's _cell_chunk (`chunks`, made from the inputs when not given); None where a field does
    not fit the words."""
    if chunks is None:
        chunks = _cell_chunks(inputs)
        if chunks is None:
            return None
    words = array.array("q", (len(inputs[0]),))
    for chunk in chunks:
        words += chunk
    return words


def host_of_inputs(inputs: tuple, chunks: Optional[list] = None, networks: Optional[list] = None):
    """The numaplace.Host of host_inputs' value: from packed cell words (np_host_from_cells), the
    same host as numaplace.Host(host_json_from_inputs(inputs)) at a fraction of the cost (no JSON
    text built or parsed for the cells); read from that JSON instead where the words cannot hold a
    field or the library refuses them, so that a bad host raises what the JSON reader says.
    `networks`: each cell's network affinity as _network_json gives it (None: the host without)."""
    ratios, pools = inputs[3], inputs[4]
    words = cell_words(inputs, chunks)
    if words is not None:
        cpu, ram = (math.nan, math.nan) if ratios is None else ratios
        try:
            return numaplace.Host.from_cells(words, cpu, ram, _pci_text(pools),
                                             None if networks is None else json.dumps(networks))
        except numaplace.Error:
            pass
    host = host_json_from_inputs(inputs)
    if networks is not None:
        for cell, network in zip(host["cells"], networks):
            if network is not None:
                cell["network_metadata"] = network
    return numaplace.Host(host)


def packed_cells(host_topology) -> Optional[bytes]:
    """The host's cells as np_host_from_cells' packed words (native 64-bit integers), read in C by
    numaplace._cellwords: each CPU set and sibling group sorted, so equal cells give equal bytes.
    None without the module, or where a cell or page pool has a field unset or not a 64-bit
    integer (host_inputs then reads the cells in Python)."""
    if _cellwords is None:
        return None
    try:
        cells = host_topology._obj_cells
    except AttributeError:
        return None
    return _cellwords.cell_words(cells)


def host_of_packed(words: bytes, ratios, pools, networks: Optional[list] = None):
    """The numaplace.Host of packed_cells' words with the ratios (None: no limits), the PCI pools
    (_pci_inputs' form) and the cells' network affinity (None: none); None where the library
    refuses the words (the caller then reads the host's JSON, which says why)."""
    cells = array.array("q")
    cells.frombytes(words)
    cpu, ram = (math.nan, math.nan) if ratios is None else ratios
    try:
        return numaplace.Host.from_cells(cells, cpu, ram, _pci_text(pools),
                                         None if networks is None else json.dumps(networks))
    except numaplace.Error:
        return None


# The "pci" JSON text of the last few PCI pool lists (host_inputs' form, as a tuple): hosts of a
# fleet share a few pool lists, and a host changed by a claim mostly keeps its pools.
_pci_texts: "collections.OrderedDict[tuple, str]" = collections.OrderedDict()
# The JSON text of one pool's devices by (its index in the host's list, the pool): a fleet's hosts
# have a few kinds of pool, so a list never seen is mostly made of pools seen before (1,153 pools
# of tools/bench/nova_filter.py's 1,000 hosts are 189 (index, pool) pairs). Bounded by starting
# afresh; read and written without the lock, since a text is a function of its key alone.
_pool_texts: Dict[tuple, str] = {}
_POOL_TEXTS_KEPT = 1 << 14


def _pci_text(pools) -> Optional[str]:
    """json.dumps(_pci_devices(pools)), or None without pools."""
    if not pools:
        return None
    key = tuple(pools)
    with _cache_lock:
        text = _pci_texts.get(key)
    if text is None:
        parts = []
        for item in enumerate(pools):
            part = _pool_texts.get(item)
            if part is None:
                part = json.dumps(_pool_devices(*item))[1:-1]
                if len(_pool_texts) >= _POOL_TEXTS_KEPT:
                    _pool_texts.clear()
                _pool_texts[item] = part
            if part:
                parts.append(part)
        text = "[" + ", ".join(parts) + "]"
        with _cache_lock:
            _pci_texts[key] = text
            while len(_pci_texts) > _CACHE_SIZE:
                _pci_texts.popitem(last=False)
    return text


def _inputs_updated(inputs: tuple, chunks: list, host_topology, ratios, pci_stats) -> Optional[tuple]:
    """host_inputs(host_topology, ratios, pci_stats) and its _cell_chunks, made from the `inputs`
    and `chunks` of the host's last conversion where a cell is unchanged: each cell whose fields
    and page pools, read as they are now, equal its copy keeps its copy and its chunk; the others
    are read again. The same value as host_inputs gives (a cell equal to its copy is what its copy
    says). None where the cells cannot be read that way (then everything is read again)."""
    cells_then, pages_then, counts_then = inputs[0], inputs[1], inputs[2]
    try:
        live_cells = host_topology._obj_cells
        fields_now = list(map(_cell_fields, live_cells))
        pages_now = [list(map(_page_fields, _cell_pages(cell))) for cell in live_cells]
    except (AttributeError, KeyError, TypeError):
        return None
    if len(fields_now) != len(cells_then):
        return None
    cells, pages, counts, new_chunks = [], [], [], []
    start = 0
    for i, cell in enumerate(live_cells):
        count = counts_then[i]
        then_pages = pages_then[start:start + count]
        start += count
        if fields_now[i] == cells_then[i] and pages_now[i] == then_pages:
            fields, cell_pages, chunk = cells_then[i], then_pages, chunks[i]
        else:
            fields, cell_pages = _cell_input(cell)
            try:
                chunk = _cell_chunk(fields, cell_pages)
            except (TypeError, OverflowError):
                return None
        cells.append(fields)
        counts.append(len(cell_pages))
        pages.extend(cell_pages)
        new_chunks.append(chunk)
    ratios = None if ratios is None else (float(ratios[0]), float(ratios[1]))
    return (cells, pages, counts, ratios, _pci_inputs(pci_stats)), new_chunks


def host_json(host_topology, limits=None, pci_stats=None) -> Dict[str, Any]:
    """A Nova NUMATopology (with its limits and PCI pools) in the nova-fit host schema."""
    return host_json_from_inputs(host_inputs(host_topology, limits, pci_stats))


def _pci_requests(pci_requests) -> List[Dict[str, Any]]:
    out = []
    for request in (getattr(pci_requests, "requests", pci_requests) or []):
        specs = _get(request, "spec", None) or []
        entry = {"count": int(_get(request, "count", 1) or 1)}
        if specs:  # Nova's spec list as it is: a device matching any one spec will do
            entry["specs"] = [dict(spec) for spec in specs]
        else:  # no spec: Nova matches no device, nor does an empty vendor and product
            entry.update(vendor_id="", product_id="")
        policy = _get(request, "numa_policy", None)
        if policy:
            entry["alias_numa_policy"] = policy
        out.append(entry)
    return out


def request_json(instance_topology, pci_requests=None, network_metadata=None) -> Dict[str, Any]:
    """A Nova InstanceNUMATopology in the request's "topology" form (numaplace.h), with the
    networks it asks to be close to (network_metadata: Nova's NetworkMetadata, or None)."""
    cells = []
    cpu_policy = thread_policy = None
    for i, cell in enumerate(instance_topology.cells):
        shared = set(_get(cell, "cpuset", set()) or set())
        dedicated = set(_get(cell, "pcpuset", set()) or set())
        cpu_policy = cpu_policy or _get(cell, "cpu_policy", None)
        thread_policy = thread_policy or _get(cell, "cpu_thread_policy", None)
        # Nova's fit reads a page size of 0 (hw:mem_page_size=0, which its API accepts) as none.
        cells.append({"id": i, "cpus": sorted(shared | dedicated), "pcpus": sorted(dedicated),
                      "memory_mib": int(cell.memory), "pagesize": _get(cell, "pagesize", None) or None})
    if cpu_policy not in ("dedicated", "mixed"):
        for cell in cells:  # a shared guest's cells hold no dedicated vCPUs, whatever pcpuset says
            cell["pcpus"] = []
    topology = {"cells": cells, "cpu_policy": cpu_policy, "cpu_thread_policy": thread_policy,
                "emulator_threads_policy": _get(instance_topology, "emulator_threads_policy", None)}
    request = {"topology": topology}
    pci = _pci_requests(pci_requests)
    if pci:
        request["pci"] = pci
    network = _network_json(network_metadata)
    if network is not None:
        request["network_metadata"] = network
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


def _network_json(network_metadata) -> Optional[Dict[str, Any]]:
    """Nova's NetworkMetadata (a request's limits.network_metadata or spec_obj.network_metadata, or
    a host cell's) as the request and host JSON carry it; None when it names no physnet and no
    tunneled network (it then constrains nothing, and the JSON leaves it out)."""
    if network_metadata is None:
        return None
    physnets = sorted(str(p) for p in (_get(network_metadata, "physnets", None) or ()))
    tunneled = bool(_get(network_metadata, "tunneled", False))
    if not physnets and not tunneled:
        return None
    return {"physnets": physnets, "tunneled": tunneled}


def _with_networks(host: Dict[str, Any], host_topology) -> Dict[str, Any]:
    """The host JSON with each cell's network affinity (numaplace's fit applies Nova 26's network
    NUMA affinity itself: docs/library.md)."""
    for cell_json, cell in zip(host["cells"], host_topology.cells):
        network = _network_json(_get(cell, "network_metadata", None))
        if network is not None:
            cell_json["network_metadata"] = network
    return host


def numa_fit_instance_to_host(host_topology, instance_topology, limits=None, pci_requests=None, pci_stats=None):
    """Nova's numa_fit_instance_to_host: the InstanceNUMATopology fitted onto the host's cells
    (cell ids set to host cell ids, pinning, page size, reserved pCPUs), or None."""
    if not (host_topology and instance_topology):
        return None
    if len(host_topology.cells) < len(instance_topology.cells):
        return None
    requests = pci_requests if (pci_requests and pci_stats) else None
    network_metadata = _get(limits, "network_metadata", None) if limits is not None else None
    host = host_json(host_topology, limits, pci_stats)
    if _network_json(network_metadata) is not None:
        host = _with_networks(host, host_topology)
    host = _cached(_hosts, json.dumps(host), numaplace.Host)
    try:
        request = _cached(_requests, json.dumps(request_json(instance_topology, requests, network_metadata)),
                          lambda text: numaplace.Request(document=json.loads(text)))
    except numaplace.Error as error:
        _raise_as_nova(error)
    answer = host.fit(request, _nova_options())
    if answer["kind"] != "fit":
        return None
    if _LOG.isEnabledFor(logging.INFO):
        _log_pinning(host_topology, answer)
    return _apply_answer(instance_topology, answer)


def _free_cores(cell, taken=frozenset()) -> List[List[int]]:
    """The host cell's pCPUs that are free (not pinned, not in `taken`), grouped by thread
    siblings: each group sorted, the groups by their first pCPU; a pCPU in no sibling set is a
    group of its own."""
    free = set(_get(cell, "pcpuset", set()) or set()) - set(_get(cell, "pinned_cpus", set()) or set()) - set(taken)
    groups = []
    for siblings in _get(cell, "siblings", None) or ():
        group = sorted(free & set(siblings))
        if group:
            groups.append(group)
            free -= set(group)
    groups.extend([cpu] for cpu in free)
    return sorted(groups)


def _log_pinning(host_topology, answer) -> None:
    """Nova's INFO lines for a pinned guest cell, in its words, so that what reads a compute
    node's log for them (operators, Nova's own functional tests) finds them with the drop-in fit:
    'Computed NUMA topology CPU pinning: usable pCPUs: ..., vCPUs mapping: ...' and, with pCPUs
    reserved for the emulator, 'Computed NUMA topology reserved pCPUs: ...'. Here "usable pCPUs"
    is the host cell's free pCPUs by core before the guest (Nova's list where the guest may use
    every thread of a core), the mapping (vCPU, pCPU) pairs by vCPU."""
    cells = {_get(cell, "id", None): cell for cell in host_topology.cells}
    for placed in answer["cells"]:
        pinning = placed["pinning"]
        cell = cells.get(placed["host_cell"])
        if pinning is None or cell is None:
            continue
        mapping = sorted((int(vcpu), pcpu) for vcpu, pcpu in pinning.items())
        _LOG.info("Computed NUMA topology CPU pinning: usable pCPUs: %(usable_cores)s, "
                  "vCPUs mapping: %(vcpus_pinning)s",
                  {"usable_cores": _free_cores(cell), "vcpus_pinning": mapping})
        reserved = placed["cpuset_reserved"]
        if reserved:
            _LOG.info("Computed NUMA topology reserved pCPUs: usable pCPUs: %(usable_cores)s, "
                      "reserved pCPUs: %(cpuset_reserved)s",
                      {"usable_cores": _free_cores(cell, [pcpu for _, pcpu in mapping]),
                       "cpuset_reserved": set(reserved)})


# ---- the scheduler's filter and weigher ----

def _base_filter():
    from nova.scheduler import filters
    return filters.BaseHostFilter


def _base_weigher():
    from nova.scheduler import weights
    return weights.BaseHostWeigher


class _Pass:
    """What one filter pass (one spec_obj over many hosts) asks, read from the spec once: the
    requested topology, the SMT pre-check, the network metadata, Nova's fit options and the
    numaplace requests (with and without the PCI requests: Nova passes them only to hosts that
    have pci_stats), made on first use so that a request Nova would refuse raises where Nova's fit
    would, at the first host that has a topology."""

    def __init__(self, spec_obj):
        extra_specs = spec_obj.flavor.extra_specs
        image_props = spec_obj.image.properties
        self.requested = spec_obj.numa_topology
        # dedicated + require needs a host with SMT, checked before the fit as Nova does
        self.needs_threads = (
            "dedicated" in (extra_specs.get("hw:cpu_policy"), image_props.get("hw_cpu_policy")) and
            "require" in (extra_specs.get("hw:cpu_thread_policy"), image_props.get("hw_cpu_thread_policy")))
        pci_requests = spec_obj.pci_requests
        self.pci_requests = pci_requests.requests if pci_requests else pci_requests
        self.network_metadata = spec_obj.network_metadata if "network_metadata" in spec_obj else None
        self.networks = _network_json(self.network_metadata) is not None  # asks to be close to a network
        self.options = _nova_options()
        self.has_topology = bool(self.requested)  # InstanceNUMATopology's truth is its cells', read once
        self.cells = len(self.requested.cells) if self.has_topology else 0
        # Without PCI or networks, a host is read as the guest's CPU policy sees it: a guest of
        # floating vCPUs only, or of dedicated vCPUs only, on words its verdicts are kept by apart.
        reader, self.packed_verdicts = _cell_view(self.requested) if self.has_topology else \
            ("cell_words", _packed_verdicts)
        # the C reader itself, called on the cell list _prepare reads anyway (None: no C reader)
        self.read_words = None if _cellwords is None else getattr(_cellwords, reader)
        self._requests: Dict[bool, Any] = {}

    def request(self, with_pci: bool):
        """(the numaplace.Request, the key of its answers: its JSON text and the options, one str
        so that its hash is computed once)."""
        made = self._requests.get(with_pci)
        if made is None:
            text = json.dumps(request_json(self.requested, self.pci_requests if with_pci else None,
                                           self.network_metadata))
            try:
                request = _cached(_requests, text, lambda t: numaplace.Request(document=json.loads(t)))
            except numaplace.Error as error:
                _raise_as_nova(error)
            made = self._requests[with_pci] = (request, text + "\n" + json.dumps(sorted(self.options.items())))
        return made


def _cell_view(instance_topology):
    """How a guest's hosts are read for its verdicts (a numaplace._cellwords reader's name), and
    where those are kept: floating_words and _floating_verdicts where no cell asks for dedicated
    vCPUs (cpu_policy unset or shared, no pcpuset) and no emulator pCPU is isolated;
    dedicated_words and _dedicated_verdicts where every cell's vCPUs are dedicated (cpu_policy
    dedicated, no cpuset left floating) under a thread policy other than isolate (which compares
    the host cell's cpuset with its pcpuset: Nova's legacy vcpu_pin_set hosts); else the whole
    cells (mixed, isolate). Nova's fit reads no more of a host cell than the view keeps."""
    cells = instance_topology.cells
    policies = {_get(cell, "cpu_policy", None) for cell in cells}
    if policies <= {None, "shared"} and _get(instance_topology, "emulator_threads_policy", None) != "isolate" and \
            not any(_get(cell, "pcpuset", None) for cell in cells):
        return "floating_words", _floating_verdicts
    if policies == {"dedicated"} and all(not (_get(cell, "cpuset", None) or ()) and
                                         _get(cell, "cpu_thread_policy", None) != "isolate" for cell in cells):
        return "dedicated_words", _dedicated_verdicts
    return "cell_words", _packed_verdicts


# The filter's numaplace host per host_state: [host_inputs, numaplace.Host, answers, the host's
# handle, the cells' packed words (_cell_chunks), the host with its networks (_with_networks_entry),
# the packed key]. An entry is made one of two ways: where numaplace._cellwords reads the cells
# (packed_cells), by its key (packed words, ratios, PCI pools) alone, its inputs and chunks None;
# else by host_inputs' copies, its key None. A hit needs what is read now to equal what the host
# was made from, so a host changed in place (or given a new topology, ratios or PCI pools) is made again, never answered from
# the old one. `answers` keeps the verdicts of the last few requests (True: fits) by the request's
# JSON text and the options: np_fit on an unchanged host (the filter never claims on it) gives the
# same answer, and Nova asks the same request of all its hosts again for each instance of a
# multi-instance boot.
# Host states that take no weak reference are kept by id in a bounded map (the inputs check keeps
# that sound too).
class _PerHostState:
    """Entries per host_state: weakly keyed, or, for host states that take no weak reference, by id
    in a bounded map. Callers hold _cache_lock around _found and _keep."""

    def __init__(self):
        self.by_state: "weakref.WeakKeyDictionary[Any, list]" = weakref.WeakKeyDictionary()
        self.by_id: "collections.OrderedDict[int, list]" = collections.OrderedDict()

    def _found(self, host_state) -> Tuple[Optional[list], bool]:
        """(the host state's entry or None, whether it is kept weakly)."""
        try:
            return self.by_state.get(host_state), True
        except TypeError:
            return self.by_id.get(id(host_state)), False

    def _keep(self, host_state, entry: list, weak: bool) -> None:
        if weak:
            self.by_state[host_state] = entry
        else:
            self.by_id[id(host_state)] = entry
            self.by_id.move_to_end(id(host_state))
            while len(self.by_id) > _CACHE_SIZE:
                self.by_id.popitem(last=False)


class _HostCache(_PerHostState):
    """numaplace hosts per host_state: [host_inputs, numaplace.Host, kept answers, the host's
    handle, the cells' packed words, the host with networks, the packed key], made again whenever
    what is read now differs from what the host was made from: the packed key where the cells read
    in C (packed_cells), else host_inputs (the cells that did not change keep their copies and
    words).
    Host states that take no weak reference are kept by id in a bounded map (the inputs check keeps
    that sound too)."""

    def get(self, host_state, host_topology, ratios, pci_stats) -> list:
        with _cache_lock:
            found, weak = self._found(host_state)
        key = _packed_key(host_topology, ratios, pci_stats)
        if found is not None and _entry_unchanged(found, key, host_topology, ratios, pci_stats):
            return found
        # Without the C reader, a host seen before is read again only in the cells that changed
        # (a claim changes one or two); its numaplace host is made again whole, from packed words.
        updated = None if key is not None or found is None or found[4] is None else \
            _inputs_updated(found[0], found[4], host_topology, ratios, pci_stats)
        if found is not None:
            # The old entry let go before the new host is made, so that (unless a pass elsewhere
            # still holds it) its host is freed first and the new one takes its warm memory.
            with _cache_lock:
                if weak:
                    self.by_state.pop(host_state, None)
                else:
                    self.by_id.pop(id(host_state), None)
            found = None
        host = None if key is None else host_of_packed(*key)
        if host is not None:
            entry = [None, host, {}, host._handle.value, None, None, key]
        else:
            if updated is None:
                inputs = host_inputs(host_topology, None if ratios is None else _Ratios(*ratios), pci_stats)
                chunks = _cell_chunks(inputs)
            else:
                inputs, chunks = updated
            host = host_of_inputs(inputs, chunks)
            entry = [inputs, host, {}, host._handle.value, chunks, None, None]
        with _cache_lock:
            self._keep(host_state, entry, weak)
        return entry


def _packed_key(host_topology, ratios, pci_stats) -> Optional[tuple]:
    """What a host made from packed words is made of: (packed_cells, ratios, _pci_inputs); None
    where the cells do not read in C."""
    words = packed_cells(host_topology)
    return None if words is None else (words, ratios, _pci_inputs(pci_stats))


def _entry_unchanged(entry: list, key: Optional[tuple], host_topology, ratios, pci_stats) -> bool:
    """Whether a cache entry is the host as it is now: its packed key equals `key` (the host's
    _packed_key now), or, where the cells do not read in C, its host_inputs equal the fields now."""
    if key is not None:
        return entry[6] == key
    return entry[0] is not None and _inputs_unchanged(entry[0], host_topology, ratios, pci_stats)


_filter_hosts = _HostCache()
_ANSWERS_KEPT = 8


def _with_networks_entry(entry: list, host_topology) -> list:
    """For a request that asks to be close to networks: the entry of the host with its cells'
    network affinity (what the fit then applies), kept in the filter's entry (its slot 5) with the
    cells' network metadata it was made with. `entry` was just checked against the host as it is
    now, so the host with networks needs only its networks compared: a cell's physnets or tunneled
    flag changed (in place or assigned) makes it again; an entry made again after any other
    change starts without one."""
    networks = [_network_json(_get(cell, "network_metadata", None)) for cell in host_topology.cells]
    kept = entry[5]
    if kept is not None and kept[0] == networks:
        return kept[1]
    key = entry[6]
    host = None if key is None else host_of_packed(key[0], key[1], key[2], networks)
    if host is None:
        inputs = entry[0]
        if inputs is None:  # made from packed words: the same host's inputs, read in Python
            ratios = None if key[1] is None else _Ratios(*key[1])
            inputs = host_inputs(host_topology, ratios, None)[:4] + (key[2],)
        host = host_of_inputs(inputs, entry[4], networks)
    made = [entry[0], host, {}, host._handle.value, None, None, None]
    entry[5] = (networks, made)
    return made


def _filter_host(host_state, host_topology, ratios, pci_stats) -> list:
    return _filter_hosts.get(host_state, host_topology, ratios, pci_stats)


class _VerdictCache(_PerHostState):
    """The filter's hosts and verdicts per host_state for requests whose verdict the host's PCI
    pools and networks cannot change (no PCI request, no network affinity asked): [None,
    numaplace.Host, answers, its handle, None, None, packed words, CPU ratio, RAM ratio], in
    _HostCache's entry shape (the key in three slots rather than a tuple: a first pass makes one
    entry per host, and each tuple more is one more object for the collector to walk after the
    pass), the host made from the words alone. An entry has no host until it is asked a second
    request: the hosts of a pass are made and fitted together in np_fit_packed_hosts calls (one
    for the entries asked a first time, whose hosts are freed in the call, one for those asked
    again, whose hosts are kept), which spares a first pass a ctypes call, PCI devices written and
    read, and memory kept, per host. An
    entry holds while the words and ratios read now equal its key, so a host changed in place is
    made and fitted again. Host states that take no weak reference are kept by id in a bounded map."""

    def get(self, host_state, words: bytes, cpu_ratio: float, ram_ratio: float) -> list:
        with _cache_lock:
            found, weak = self._found(host_state)
            if found is not None and found[6] == words and found[7] == cpu_ratio and found[8] == ram_ratio:
                return found
            entry = [None, None, {}, None, None, None, words, cpu_ratio, ram_ratio]
            self._keep(host_state, entry, weak)
            return entry


_packed_verdicts = _VerdictCache()
# The same, keyed by the words of a view (_cell_view): a host state asked both kinds of guest keeps
# both verdicts, and a change a view does not read (a pinned pCPU, for floating guests) keeps its.
_floating_verdicts = _VerdictCache()
_dedicated_verdicts = _VerdictCache()


def _keep_answer(answers: dict, key: str, fits: bool) -> None:
    if len(answers) >= _ANSWERS_KEPT:
        answers.clear()
    answers[key] = fits


def _answer_made(entries: list, request, key: str, options) -> None:
    """Each entry's verdict for the request (kept under `key`), fitted on its kept host in one
    np_fit_hosts_cells call."""
    fits, _, _ = numaplace._fit_hosts_cells([entry[3] for entry in entries], request, options, False)
    for entry, fit in zip(entries, fits):
        _keep_answer(entry[2], key, fit == 1)


@contextlib.contextmanager
def _gc_paused():
    """Python's cyclic garbage collector held off while hosts are converted. Converting a host
    makes many small containers that outlive the call (the cache's copies), and each batch of them
    starts a collection over every object of the process, Nova's host states included: with 1,000
    hosts that was 5 to 10 times the conversion itself (measured: tools/bench/nova_filter.py).
    Reference counting still frees everything; cycles wait until the pass is over. Left alone when
    the collector is already off (the application's choice, or another thread's pass)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class _Ratios:
    """The two ratios NUMATopologyLimits carries, for host_inputs (no oslo object per host)."""
    __slots__ = ("cpu_allocation_ratio", "ram_allocation_ratio")

    def __init__(self, cpu, ram):
        self.cpu_allocation_ratio = cpu
        self.ram_allocation_ratio = ram


def _make_filter():
    base = _base_filter()

    class NUMAPlaceFilter(base):
        """NUMATopologyFilter with numaplace's fit: reads the same host_state fields
        (numa_topology, cpu/ram_allocation_ratio, pci_stats), makes the same SMT pre-check and sets
        host_state.limits['numa_topology'] when the guest fits, as NUMATopologyFilter does.
        filter_all reads the spec once for all hosts; each host_state's numaplace host is kept
        while its inputs (host_inputs) stay equal. Nothing is written onto spec_obj, so it is not
        cloned per host as Nova's filter clones it."""

        RUN_ON_REBUILD = False

        def filter_all(self, filter_obj_list, spec_obj):
            from nova.scheduler import utils
            hosts = list(filter_obj_list)
            if not self.RUN_ON_REBUILD and utils.request_is_rebuild(spec_obj):
                return iter(hosts)
            verdicts = self._verdicts(hosts, _Pass(spec_obj))
            return iter([host for host, passes in zip(hosts, verdicts) if passes])

        def host_passes(self, host_state, spec_obj):
            return self._verdicts([host_state], _Pass(spec_obj))[0]

        def _verdicts(self, hosts, plan):
            """Whether each host passes, as NUMATopologyFilter.host_passes decides: the checks that
            need no fit first, then one np_fit_hosts_cells call per request (with or without PCI)
            over the hosts left whose verdict for it is not kept (numaplace's fit applies the
            network affinity; only the verdict is asked for, no answer is written or parsed), then
            the limits of the hosts that fit."""
            objects, _, _ = _nova_modules()
            verdicts = [False] * len(hosts)
            with _gc_paused():
                pending = self._prepare(hosts, plan, verdicts)
                for with_pci, waiting in pending.items():
                    request, key = plan.request(with_pci)
                    made = [entry for _, entry in waiting if entry[3] is not None and key not in entry[2]]
                    packed = [(i, entry) for i, entry in waiting if entry[3] is None and key not in entry[2]]
                    if made:
                        _answer_made(made, request, key, plan.options)
                    if packed:
                        self._fit_packed(hosts, packed, request, key, plan.options)
                    limits_class = objects.NUMATopologyLimits
                    network_metadata = plan.network_metadata
                    for i, entry in waiting:
                        if not entry[2][key]:
                            continue
                        host_state = hosts[i]
                        limits = limits_class(cpu_allocation_ratio=host_state.cpu_allocation_ratio,
                                              ram_allocation_ratio=host_state.ram_allocation_ratio)
                        if network_metadata:
                            limits.network_metadata = network_metadata
                        host_state.limits["numa_topology"] = limits
                        verdicts[i] = True
                # let go while the collector is still held off: what the pass alone held is freed
                # now, not walked by the first collection after it
                pending = waiting = made = packed = None
            return verdicts

        @staticmethod
        def _fit_packed(hosts, packed, request, key, options):
            """The verdicts of the _packed_verdicts entries `packed` ([(index, entry)]), which have
            no host, in np_fit_packed_hosts calls that make their hosts from the words. A host is
            kept in its entry once it is asked a second request (its entry holds an answer): one
            asked once, as on a first pass, is freed in the call, which spares that pass keeping
            memory it may never use again. A host whose words the library refuses is answered as a
            host made for the filter (_filter_host) is, which says why where it cannot be made."""
            groups = ([(i, entry) for i, entry in packed if not entry[2]], [(i, entry) for i, entry in packed if entry[2]])
            for keep, group in zip((False, True), groups):
                if not group:
                    continue
                ratios = []
                for _, entry in group:
                    ratios += entry[7:9]
                fits, made = numaplace._fit_packed_hosts([entry[6] for _, entry in group], ratios,
                                                         request, options, keep)
                for (i, entry), fit, host in zip(group, fits, made):
                    if host is not None:
                        with _cache_lock:  # the first host kept stays: another pass may be fitting it
                            if entry[3] is None:
                                entry[1], entry[3] = host, host._handle.value
                    if fit == 2:
                        host_state = hosts[i]
                        fallback = _filter_host(host_state, host_state.numa_topology, tuple(entry[7:9]), host_state.pci_stats)
                        if key not in fallback[2]:
                            _answer_made([fallback], request, key, options)
                        fit = 1 if fallback[2][key] else 0
                    _keep_answer(entry[2], key, fit == 1)

        def _prepare(self, hosts, plan, verdicts):
            """The checks that need no fit, and each remaining host's numaplace host (converted only
            when its inputs changed), grouped by request: {with_pci: [(index, entry)]}."""
            objects, _, _ = _nova_modules()
            pending: Dict[bool, list] = {}
            needs_threads, has_topology, cells = plan.needs_threads, plan.has_topology, plan.cells
            # Read once: the loop runs once per host of the pass.
            read_words, verdicts_of, asks_pci = plan.read_words, plan.packed_verdicts.get, bool(plan.pci_requests)
            by_words = read_words is not None and not plan.networks  # no PCI: verdicts by the view's words
            for i, host_state in enumerate(hosts):
                host_topology = host_state.numa_topology
                if needs_threads and host_topology and not host_topology.has_threads:
                    continue
                if not has_topology:
                    verdicts[i] = True
                    continue
                if host_topology is None:
                    continue
                try:  # Nova's NUMATopology: its truth is its number of cells, read without its __len__
                    cell_list = host_topology._obj_cells
                    host_cells = len(cell_list)
                except AttributeError:
                    if not host_topology:
                        continue
                    cell_list = None
                    host_cells = len(host_topology.cells)
                if host_cells < cells:  # also a topology of no cells (cells >= 1 here)
                    continue
                cpu_ratio, ram_ratio = host_state.cpu_allocation_ratio, host_state.ram_allocation_ratio
                try:
                    cpu_ratio, ram_ratio = float(cpu_ratio), float(ram_ratio)
                except (TypeError, ValueError):  # what Nova's filter would raise for them
                    objects.NUMATopologyLimits(cpu_allocation_ratio=cpu_ratio, ram_allocation_ratio=ram_ratio)
                    raise
                pci_stats = host_state.pci_stats
                with_pci = asks_pci and bool(pci_stats)
                waiting = pending.get(with_pci)
                if waiting is None:
                    plan.request(with_pci)  # a request Nova refuses raises here, at the first host with a topology
                    waiting = pending[with_pci] = []
                if by_words and not with_pci and cell_list is not None:
                    words = read_words(cell_list)
                    if words is not None:
                        waiting.append((i, verdicts_of(host_state, words, cpu_ratio, ram_ratio)))
                        continue
                entry = _filter_host(host_state, host_topology, (cpu_ratio, ram_ratio), pci_stats)
                if plan.networks:
                    entry = _with_networks_entry(entry, host_topology)
                waiting.append((i, entry))
            return pending

    return NUMAPlaceFilter


# The weigher's numaplace host per host_state, as the filter's (_filter_hosts) but made without
# limits or PCI pools (the weigher fits the guest as it alone sees the host): [host_inputs,
# numaplace.Host, {request key: weight}, the host's handle], used while the inputs are unchanged.
# A weight is a function of the answer and of host fields the inputs hold (pcpuset, pinned_cpus,
# memory, memory_usage), so it is kept with the host.
_weigher_hosts = _HostCache()


def _weigher_host(host_state, host_topology) -> list:
    return _weigher_hosts.get(host_state, host_topology, None, None)


def _room(host_topology, answer) -> float:
    """The weight of a fit answer: the mean over the guest's host cells of the share left free, of
    pCPUs for a pinned cell, of memory for the others, in 0..1; 0.0 when the guest does not fit."""
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


def _weights(host_states, weight_properties) -> List[float]:
    """NUMAPlaceWeigher's raw weight of each host state: the host kept per host state while its
    inputs are unchanged, the weight per request kept with it, the fits of the others in one
    np_fit_hosts call."""
    weights = [0.0] * len(host_states)
    requested = getattr(weight_properties, "numa_topology", None)
    if not requested:
        return weights
    try:
        text = json.dumps(request_json(requested))
        request = _cached(_requests, text, lambda t: numaplace.Request(document=json.loads(t)))
    except numaplace.Error:
        return weights
    waiting, unanswered = [], []
    with _gc_paused():
        for i, host_state in enumerate(host_states):
            host_topology = getattr(host_state, "numa_topology", None)
            if not host_topology:
                continue
            entry = _weigher_host(host_state, host_topology)
            waiting.append((i, entry))
            if text not in entry[2]:
                unanswered.append((entry, host_topology))
        if unanswered:
            answers = numaplace.fit_hosts([entry[1] for entry, _ in unanswered], request)
            for (entry, host_topology), answer in zip(unanswered, answers):
                if len(entry[2]) >= _ANSWERS_KEPT:
                    entry[2].clear()
                entry[2][text] = _room(host_topology, answer)
        for i, entry in waiting:
            weights[i] = entry[2][text]
    return weights


def _make_weigher():
    base = _base_weigher()

    class NUMAPlaceWeigher(base):
        """Prefers hosts where the guest's NUMA cells leave the most room: the share of free
        pCPUs (pinned guests) or free memory (others) on the host cells numaplace chose, in
        0..1. Hosts where the guest asks for no topology, or does not fit, weigh 0. weigh_objects
        weighs all hosts at once (_weights: a numaplace host kept per host state while it is
        unchanged, one fit call for the hosts not weighed for this request before)."""

        def weight_multiplier(self, host_state):
            return 1.0

        def weigh_objects(self, weighed_obj_list, weight_properties):
            weights = _weights([weighed.obj for weighed in weighed_obj_list], weight_properties)
            # as Nova's base class: a weight stays within minval and maxval where they are set
            if self.minval is not None:
                weights = [max(weight, self.minval) for weight in weights]
            if self.maxval is not None:
                weights = [min(weight, self.maxval) for weight in weights]
            return weights

        def _weigh_object(self, host_state, weight_properties):
            return _weights([host_state], weight_properties)[0]

    return NUMAPlaceWeigher


_made: Dict[str, type] = {}


def __getattr__(name: str):
    """NUMAPlaceFilter and NUMAPlaceWeigher are made (over Nova's base classes) on first access."""
    if name in ("NUMAPlaceFilter", "NUMAPlaceWeigher"):
        if name not in _made:
            _made[name] = _make_filter() if name == "NUMAPlaceFilter" else _make_weigher()
        return _made[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
