# SPDX-License-Identifier: LGPL-2.1-or-later
"""numaplace for Python compute drivers: ctypes over the C ABI of libnumaplace.

    import numaplace
    result = numaplace.place(host=caps_xml, flavor={"hw:numa_nodes": "2"},
                             image={}, domain_xml=domain_xml)
    result.xml          # the rewritten domain XML
    result.placement    # dict: which host cell and pCPUs each guest cell got
    result.explanation  # dict: the request used and every rejected (guest cell, host cell)

The fast fit API, without domain XML (a scheduler's question "does this guest fit this host"):

    host = numaplace.Host(host_dict)                       # built once
    request = numaplace.Request(vcpus=4, memory_mib=4096, flavor={"hw:numa_nodes": "2"})
    request.topology                                       # Nova's numa_get_constraints, as a dict
    host.fit(request)      # {"kind": "fit", "cells": [...]} | {"kind": "no_fit", ...} | {"kind": "no_topology"}
    numaplace.fit_hosts([h1, h2], request)                 # one answer per host
    host.fit_claim(request, "guest-name")                  # the compute claim: fit and hold it
    host.release("guest-name")                             # and give it back

numaplace.nova holds drop-ins for Nova 26's numa_get_constraints, numa_fit_instance_to_host and
NUMATopologyFilter (docs/nova.md).

`host` is a `virsh capabilities` XML string, an hwloc XML export string, a dict in
the nova-fit host schema (cells, usage, pci, allocation_ratio), a libvirt URI
("qemu:///system"), or a numaplace.Host loaded once and reused. Failures raise
numaplace.Error with .name (stable kind such as "NoFit"), .status and the message.

The library is NUMAPLACE_LIBRARY if set, else the one installed with this package: first at its
path relative to this directory (_config.LIBRARY_RELATIVE, written by `cmake --install`: the
library of the same prefix, also when the prefix was installed into a DESTDIR or moved), then at
its absolute installed path (_config.LIBRARY); else libnumaplace.so.0 from the system's library
path (the Debian package and the wheel record no path and always load it so). No compiler is
needed; nothing here keeps global state besides the loaded library.
numaplace.__version__ is the package's version (the library's: library_version()).
"""

import array
import ctypes
import json
import math
import os
import threading
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Tuple, Union

__all__ = ["Error", "Host", "Request", "Result", "derive", "fit_hosts", "fit_hosts_cells", "fit_verdicts", "place",
           "library_version"]

SONAME = "libnumaplace.so.0"

try:  # written by the build (build/python), `cmake --install` or the wheel's build
    from . import _config
except ImportError:  # the bare source tree
    _config = None
if getattr(_config, "VERSION", None) is not None:
    __version__ = _config.VERSION
else:
    def __getattr__(name: str) -> Any:
        # The bare source tree has no _config: the version is the library's, read when asked for.
        if name == "__version__":
            return library_version()
        raise AttributeError(f"module 'numaplace' has no attribute {name!r}")
_INSTALLED_LIBRARY = getattr(_config, "LIBRARY", None)
_INSTALLED_LIBRARY_RELATIVE = getattr(_config, "LIBRARY_RELATIVE", None)

NP_OK = 0
NP_LIBVIRT_RUNNING_CLAIMS = 1


class Error(Exception):
    """A numaplace failure: .name is the stable kind, .status the C status code."""

    def __init__(self, name: str, message: str, status: int):
        super().__init__(message)
        self.name = name
        self.message = message
        self.status = status

    def __str__(self) -> str:
        return f"{self.name}: {self.message}"


class Result(NamedTuple):
    placement: Dict[str, Any]
    xml: str
    explanation: Dict[str, Any]
    placed: bool


class _Pair(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("value", ctypes.c_char_p)]


_lib = None
_lib_lock = threading.Lock()
# Host.fit's calls, bound once (_load sets the first two).
_np_fit = _np_string_free = None
_byref, _string_at, _loads = ctypes.byref, ctypes.string_at, json.loads


def _installed_library() -> str:
    """The library this package was installed with (module docstring), else the soname."""
    if _INSTALLED_LIBRARY_RELATIVE:
        beside = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                               _INSTALLED_LIBRARY_RELATIVE))
        if os.path.exists(beside):
            return beside
    installed = _INSTALLED_LIBRARY
    if installed and (os.sep not in installed or os.path.exists(installed)):
        return installed
    return SONAME


def _load() -> ctypes.CDLL:
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        path = os.environ.get("NUMAPLACE_LIBRARY") or _installed_library()
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            raise Error("LibraryNotFound", f"cannot load the numaplace library '{path}': {exc}; "
                        "install it or set NUMAPLACE_LIBRARY to its path", -1) from None
        P = ctypes.POINTER
        host_p, result_p, error_p = ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p
        out_host, out_result, out_error = P(host_p), P(result_p), P(error_p)
        sigs = {
            "np_version": (ctypes.c_char_p, []),
            "np_error_status": (ctypes.c_int, [error_p]),
            "np_error_name": (ctypes.c_char_p, [error_p]),
            "np_error_message": (ctypes.c_char_p, [error_p]),
            "np_error_free": (None, [error_p]),
            "np_host_from_capabilities_xml": (ctypes.c_int, [ctypes.c_char_p, out_host, out_error]),
            "np_host_from_hwloc_xml": (ctypes.c_int, [ctypes.c_char_p, out_host, out_error]),
            "np_host_from_hwloc_file": (ctypes.c_int, [ctypes.c_char_p, out_host, out_error]),
            "np_host_from_this_machine": (ctypes.c_int, [out_host, out_error]),
            "np_host_from_json": (ctypes.c_int, [ctypes.c_char_p, out_host, out_error]),
            "np_host_from_cells": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_double,
                                                  ctypes.c_double, ctypes.c_char_p, ctypes.c_char_p, out_host,
                                                  out_error]),
            "np_host_from_libvirt": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_uint, out_host, out_error]),
            "np_host_to_json": (ctypes.c_int, [host_p, P(ctypes.c_void_p), out_error]),
            "np_host_copy": (ctypes.c_int, [host_p, out_host, out_error]),
            "np_string_free": (None, [ctypes.c_void_p]),
            "np_host_free": (None, [host_p]),
            "np_host_add_claims": (ctypes.c_int, [host_p, P(ctypes.c_char_p), ctypes.c_size_t, out_error]),
            "np_host_apply_config": (ctypes.c_int, [host_p, ctypes.c_char_p, out_error]),
            "np_place": (ctypes.c_int, [host_p, ctypes.c_char_p, P(_Pair), ctypes.c_size_t, P(_Pair),
                                        ctypes.c_size_t, P(_Pair), ctypes.c_size_t, out_result, out_error]),
            "np_result_xml": (ctypes.c_char_p, [result_p]),
            "np_result_placement_json": (ctypes.c_char_p, [result_p]),
            "np_result_explanation_json": (ctypes.c_char_p, [result_p]),
            "np_result_placed": (ctypes.c_int, [result_p]),
            "np_result_free": (None, [result_p]),
            "np_derive": (ctypes.c_int, [ctypes.c_uint, ctypes.c_ulonglong, P(_Pair), ctypes.c_size_t, P(_Pair),
                                         ctypes.c_size_t, P(ctypes.c_void_p), out_error]),
            "np_request_from_json": (ctypes.c_int, [ctypes.c_char_p, P(ctypes.c_void_p), out_error]),
            "np_request_from_specs": (ctypes.c_int, [ctypes.c_uint, ctypes.c_ulonglong, P(_Pair), ctypes.c_size_t,
                                                     P(_Pair), ctypes.c_size_t, P(ctypes.c_void_p), out_error]),
            "np_request_topology_json": (ctypes.c_char_p, [ctypes.c_void_p]),
            "np_request_free": (None, [ctypes.c_void_p]),
            "np_fit": (ctypes.c_int, [host_p, ctypes.c_void_p, P(_Pair), ctypes.c_size_t, P(ctypes.c_void_p),
                                      out_error]),
            "np_fit_hosts": (ctypes.c_int, [P(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_void_p, P(_Pair),
                                            ctypes.c_size_t, P(ctypes.c_void_p), out_error]),
            "np_fit_hosts_cells": (ctypes.c_int, [P(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_void_p, P(_Pair),
                                                  ctypes.c_size_t, ctypes.c_char_p, P(ctypes.c_longlong),
                                                  ctypes.c_size_t, out_error]),
            "np_fit_packed_hosts": (ctypes.c_int, [P(ctypes.c_char_p), P(ctypes.c_size_t), ctypes.c_void_p,
                                                   ctypes.c_size_t, ctypes.c_void_p, P(_Pair), ctypes.c_size_t,
                                                   ctypes.c_char_p, ctypes.c_void_p, out_error]),
            "np_request_cell_count": (ctypes.c_size_t, [ctypes.c_void_p]),
            "np_fit_claim": (ctypes.c_int, [host_p, ctypes.c_void_p, ctypes.c_char_p, P(_Pair), ctypes.c_size_t,
                                            P(ctypes.c_void_p), out_error]),
            "np_host_release": (ctypes.c_int, [host_p, ctypes.c_char_p, out_error]),
        }
        for name, (restype, argtypes) in sigs.items():
            fn = getattr(lib, name)
            fn.restype = restype
            fn.argtypes = argtypes
        global _np_fit, _np_string_free
        _np_fit, _np_string_free = lib.np_fit, lib.np_string_free
        _lib = lib
        return lib


def library_version() -> str:
    return _load().np_version().decode()


def _check(lib: ctypes.CDLL, status: int, error: ctypes.c_void_p) -> None:
    if status == NP_OK:
        return
    if error.value:
        name = lib.np_error_name(error).decode("utf-8", "replace")
        message = lib.np_error_message(error).decode("utf-8", "replace")
        lib.np_error_free(error)
        raise Error(name, message, status)
    raise Error("Unknown", f"numaplace failed with status {status}", status)


def _take(lib: ctypes.CDLL, out: ctypes.c_void_p) -> Any:
    """The JSON of a string the library allocated, freed."""
    try:
        return json.loads(ctypes.string_at(out))
    finally:
        lib.np_string_free(out)


def _text(value: str, what: str) -> bytes:
    if not isinstance(value, str):
        raise Error("InvalidArgument", f"{what} must be a str, not {type(value).__name__}", 1)
    if "\0" in value:
        raise Error("InvalidArgument", f"{what} contains a NUL character", 1)
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as problem:  # a lone surrogate, which UTF-8 cannot hold
        raise Error("InvalidArgument", f"{what} is not text UTF-8 can hold (character {problem.start + 1}: "
                    f"{value[problem.start]!r}); give valid Unicode text", 1) from None


def _json_text(value: Any, what: str) -> bytes:
    """`value` as the JSON text the C ABI reads; what JSON cannot hold (an object(), a set, a
    key that is not a string or number) is numaplace.Error, not json's TypeError."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError) as problem:
        raise Error("InvalidArgument", f"{what} cannot be written as JSON ({problem}); give dicts, lists, "
                    "strings, numbers, booleans and None only", 1) from None
    return _text(text, what)


def _mapping(value: Any, what: str) -> Mapping:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise Error("InvalidArgument", f"{what} must be a dict (a mapping of keys to values), not "
                    f"{type(value).__name__}", 1)
    return value


def _ratio(value: Any, what: str) -> float:
    """An allocation ratio as the C double it is passed as."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Error("InvalidArgument", f"{what} must be a number (NaN for no limit), not {type(value).__name__}", 1)
    try:
        return float(value)
    except OverflowError:
        raise Error("InvalidArgument", f"{what} {value} is too large for a ratio", 1) from None


def _handle_of(value: Any, kind: type, what: str) -> ctypes.c_void_p:
    """The library handle of a Host or Request; anything else is numaplace.Error."""
    handle = getattr(value, "_handle", None) if isinstance(value, kind) else None
    if handle is None or not handle.value:
        raise Error("InvalidArgument", f"{what} must be a numaplace.{kind.__name__}, not {type(value).__name__}", 1)
    return handle


def _listed(values: Any, what: str) -> list:
    if isinstance(values, (str, bytes)):
        raise Error("InvalidArgument", f"{what} must be a list, not a single {type(values).__name__}", 1)
    try:
        return list(values)
    except TypeError:
        raise Error("InvalidArgument", f"{what} must be a list (or another iterable), not "
                    f"{type(values).__name__}", 1) from None


def _pairs(mapping: Optional[Mapping[str, Any]], what: str):
    items = list(_mapping(mapping, what).items())
    array = (_Pair * max(1, len(items)))()
    keep = []
    for i, (key, value) in enumerate(items):
        # str() of bytes is "b'...'": a bytes key would become another key, dropped unread.
        if not isinstance(key, str):
            raise Error("InvalidArgument", f"{what} key {key!r} must be a str, not {type(key).__name__}", 1)
        if isinstance(value, (bytes, bytearray)):
            raise Error("InvalidArgument", f"{what}[{key!r}] must be a str (or a number), not {type(value).__name__}", 1)
        if isinstance(value, bool):
            value = "true" if value else "false"
        k, v = _text(key, f"{what} key"), _text(str(value), f"{what}[{key!r}]")
        keep += [k, v]
        array[i].key, array[i].value = k, v
    return array, len(items), keep


_OPTION_CACHE: Dict[Any, Any] = {}
_OPTION_CACHE_SIZE = 64


def _fit_pairs(options: Optional[Mapping[str, Any]]):
    """_pairs for the options of the fit calls, converted once per distinct set: a scheduler asks
    with the same few options millions of times (the converted arrays are only read)."""
    if type(options) is not dict:  # the common case checked without the ABC's isinstance
        options = _mapping(options, "options")
    try:
        key = tuple(options.items())
        hit = _OPTION_CACHE.get(key)
    except TypeError:  # an unhashable value: convert every time
        return _pairs(options, "options")
    if hit is None:
        hit = _pairs(options, "options")
        if len(_OPTION_CACHE) >= _OPTION_CACHE_SIZE:
            _OPTION_CACHE.clear()
        _OPTION_CACHE[key] = hit
    return hit


class Host:
    """A host model held by the library; reuse one for many placements (thread-safe)."""

    def __init__(self, source: Union[str, Mapping[str, Any]], running_claims: bool = True):
        self._lib = _load()
        self._handle = ctypes.c_void_p()
        error = ctypes.c_void_p()
        lib = self._lib
        if isinstance(source, Mapping):
            status = lib.np_host_from_json(_json_text(source, "host"), ctypes.byref(self._handle),
                                           ctypes.byref(error))
        elif isinstance(source, str):
            text = source.lstrip()
            if text.startswith("<"):
                is_hwloc = "<topology" in text and "<capabilities" not in text
                load = lib.np_host_from_hwloc_xml if is_hwloc else lib.np_host_from_capabilities_xml
                status = load(_text(source, "host"), ctypes.byref(self._handle), ctypes.byref(error))
            elif text.startswith("{"):
                status = lib.np_host_from_json(_text(source, "host"), ctypes.byref(self._handle), ctypes.byref(error))
            elif "://" in text or text.startswith(("qemu:", "test:")):
                flags = NP_LIBVIRT_RUNNING_CLAIMS if running_claims else 0
                status = lib.np_host_from_libvirt(_text(text, "host"), flags, ctypes.byref(self._handle),
                                                  ctypes.byref(error))
            else:
                raise Error("InvalidArgument", "host must be capabilities or hwloc XML, JSON, a dict, "
                            "or a libvirt URI such as qemu:///system", 1)
        else:
            raise Error("InvalidArgument", f"host must be a str or a dict, not {type(source).__name__}", 1)
        _check(lib, status, error)

    @classmethod
    def from_cells(cls, words, cpu_ratio: float = math.nan, ram_ratio: float = math.nan,
                   pci: Optional[str] = None, networks: Optional[str] = None) -> "Host":
        """np_host_from_cells: the host of packed cell words (an array.array('q'), or any sequence
        of integers; docs/library.md gives the words), the allocation ratios (both NaN: no limits),
        the host schema's "pci" list as JSON text (None: no devices) and the cells' network
        metadata as the text of a JSON list, an entry per cell, null or the schema's object (None:
        no cell has any). Bad words raise numaplace.Error InvalidHostCells."""
        lib = _load()
        cpu_ratio, ram_ratio = _ratio(cpu_ratio, "cpu_ratio"), _ratio(ram_ratio, "ram_ratio")
        if not isinstance(words, array.array) or words.typecode != "q":
            try:
                words = array.array("q", words)
            except (TypeError, OverflowError, ValueError) as problem:  # ValueError: bytes of another length
                raise Error("InvalidHostCells", f"packed host cells must be 64-bit integers ({problem})",
                            2) from None  # NP_ERR_INVALID_INPUT
        # the array's own buffer, by address (a ctypes array type per length would cost more than the
        # call); `words` stays referenced until the call returns
        address, count = words.buffer_info()
        host = cls.__new__(cls)
        host._lib = lib
        host._handle = ctypes.c_void_p()
        error = ctypes.c_void_p()
        status = lib.np_host_from_cells(address if count else None, count, cpu_ratio, ram_ratio,
                                        None if pci is None else _text(pci, "pci"),
                                        None if networks is None else _text(networks, "networks"),
                                        ctypes.byref(host._handle), ctypes.byref(error))
        _check(lib, status, error)
        return host

    @classmethod
    def _adopt(cls, lib: ctypes.CDLL, handle: int) -> "Host":
        """The Host that owns (and frees) the library's host `handle`."""
        host = cls.__new__(cls)
        host._lib = lib
        host._handle = ctypes.c_void_p(handle)
        return host

    def copy(self) -> "Host":
        """np_host_copy: a Host that is this one as it is now, claims included; changing either
        afterwards leaves the other as it was."""
        handle, error = ctypes.c_void_p(), ctypes.c_void_p()
        _check(self._lib, self._lib.np_host_copy(self._handle, ctypes.byref(handle), ctypes.byref(error)), error)
        return Host._adopt(self._lib, handle.value)

    def add_claims(self, domain_xmls: Iterable[str]) -> None:
        """Counts what these already-placed guests hold (all or nothing). A guest the host counts
        already (same name or uuid), or given twice, is InvalidClaim: release() it to count it anew."""
        texts = [_text(x, "claim domain XML") for x in _listed(domain_xmls, "domain_xmls")]
        array = (ctypes.c_char_p * max(1, len(texts)))(*texts)
        error = ctypes.c_void_p()
        _check(self._lib, self._lib.np_host_add_claims(self._handle, array, len(texts), ctypes.byref(error)), error)

    def apply_config(self, config_text: str) -> None:
        """Applies a host configuration (numaplace.conf's text: cpu_dedicated_set, cpu_shared_set,
        reserved_cpus, allocation ratios, ...); a bad value raises numaplace.Error and changes nothing."""
        error = ctypes.c_void_p()
        _check(self._lib, self._lib.np_host_apply_config(self._handle, _text(config_text, "host configuration"),
                                                         ctypes.byref(error)), error)

    def to_dict(self) -> Dict[str, Any]:
        out = ctypes.c_void_p()
        error = ctypes.c_void_p()
        _check(self._lib, self._lib.np_host_to_json(self._handle, ctypes.byref(out), ctypes.byref(error)), error)
        try:
            return json.loads(ctypes.string_at(out).decode())
        finally:
            self._lib.np_string_free(out)

    def place(self, domain_xml: str, flavor: Optional[Mapping[str, Any]] = None,
              image: Optional[Mapping[str, Any]] = None, options: Optional[Mapping[str, Any]] = None) -> Result:
        lib = self._lib
        specs, n_specs, keep1 = _pairs(flavor, "flavor")
        props, n_props, keep2 = _pairs(image, "image")
        opts, n_opts, keep3 = _pairs(options, "options")
        result = ctypes.c_void_p()
        error = ctypes.c_void_p()
        status = lib.np_place(self._handle, _text(domain_xml, "domain_xml"), specs, n_specs, props, n_props, opts,
                              n_opts, ctypes.byref(result), ctypes.byref(error))
        del keep1, keep2, keep3
        _check(lib, status, error)
        try:
            return Result(placement=json.loads(lib.np_result_placement_json(result).decode()),
                          xml=lib.np_result_xml(result).decode(),
                          explanation=json.loads(lib.np_result_explanation_json(result).decode()),
                          placed=bool(lib.np_result_placed(result)))
        finally:
            lib.np_result_free(result)

    def fit(self, request: "Request", options: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """np_fit: where `request` fits on this host with every claim it holds, as a dict with
        "kind" "fit" (and "cells"), "no_fit" (and "summary", "rejections") or "no_topology".
        The hot path of a scheduler: kept to one ctypes call, one copy and one json.loads."""
        out = ctypes.c_void_p()
        error = ctypes.c_void_p()
        # An exact type test (tens of ns on a scheduler's hot path); a Host or anything else with a
        # _handle must not reach np_fit as a request
        handle = request._handle if type(request) is Request else _handle_of(request, Request, "request")
        if options:
            opts, n_opts, keep = _fit_pairs(options)
            status = _np_fit(self._handle, handle, opts, n_opts, _byref(out), _byref(error))
            del keep
        else:
            status = _np_fit(self._handle, handle, None, 0, _byref(out), _byref(error))
        if status:
            _check(self._lib, status, error)
        text = _string_at(out)
        _np_string_free(out)
        return _loads(text)

    def fit_claim(self, request: "Request", guest_name: str,
                  options: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """np_fit_claim, the compute claim: np_fit, and when it fits what the guest holds is added
        to this host as guest `guest_name`."""
        lib = self._lib
        out = ctypes.c_void_p()
        error = ctypes.c_void_p()
        opts, n_opts, keep = _fit_pairs(options)
        status = lib.np_fit_claim(self._handle, _handle_of(request, Request, "request"),
                                  _text(guest_name, "guest_name"), opts, n_opts,
                                  ctypes.byref(out), ctypes.byref(error))
        del keep
        _check(lib, status, error)
        return _take(lib, out)

    def release(self, guest_name: str) -> None:
        """np_host_release: gives back what guest `guest_name` holds (its claims, by name)."""
        error = ctypes.c_void_p()
        _check(self._lib, self._lib.np_host_release(self._handle, _text(guest_name, "guest_name"),
                                                    ctypes.byref(error)), error)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle is not None and handle.value:
            self._lib.np_host_free(handle)
            self._handle = None


class Request:
    """A request read and interpreted once (np_request_from_json / np_request_from_specs), to fit
    on many hosts. Either vcpus, memory_mib, flavor (extra specs) and image (properties), derived
    with Nova's numa_get_constraints (errors by Nova's class names, e.g. .name ==
    "ImageNUMATopologyAsymmetric"); or `document`, a dict in the request schema of numaplace.h
    (its "flavor" form, or its "topology" form, an instance topology taken as given).
    `network_metadata` ({"physnets": [...], "tunneled": bool}, Nova's limits.network_metadata):
    the networks of the guest's ports, so that the chosen host cells are close to them where the
    host's cells say which are; with `document` it goes into the document (which must not have one)."""

    def __init__(self, vcpus: Optional[int] = None, memory_mib: Optional[int] = None,
                 flavor: Optional[Mapping[str, Any]] = None, image: Optional[Mapping[str, Any]] = None,
                 document: Optional[Mapping[str, Any]] = None,
                 network_metadata: Optional[Mapping[str, Any]] = None):
        self._lib = lib = _load()
        self._handle = ctypes.c_void_p()
        error = ctypes.c_void_p()
        if network_metadata is not None:
            if document is None:
                if not _sizes_in_range(vcpus, memory_mib):
                    raise Error("InvalidArgument", "vcpus and memory_mib must be positive integers (vcpus below 2**32, "
                        "memory_mib below 2**64)", 1)
                document = {"flavor": {"vcpus": vcpus, "memory_mib": memory_mib, "extra_specs": dict(_mapping(flavor, "flavor"))},
                            "image": {"properties": dict(_mapping(image, "image"))}}
                vcpus = memory_mib = flavor = image = None
            elif not isinstance(document, Mapping) or "network_metadata" in document:
                raise Error("InvalidArgument", "give network_metadata either in document or as the argument", 1)
            document = dict(document, network_metadata=network_metadata)
        if document is not None:
            if vcpus is not None or memory_mib is not None or flavor or image:
                raise Error("InvalidArgument", "give either document or vcpus/memory_mib/flavor/image", 1)
            status = lib.np_request_from_json(_json_text(document, "request"), ctypes.byref(self._handle),
                                              ctypes.byref(error))
        else:
            if not _sizes_in_range(vcpus, memory_mib):
                raise Error("InvalidArgument", "vcpus and memory_mib must be positive integers (vcpus below 2**32, "
                        "memory_mib below 2**64)", 1)
            specs, n_specs, keep1 = _pairs(flavor, "flavor")
            props, n_props, keep2 = _pairs(image, "image")
            status = lib.np_request_from_specs(vcpus, memory_mib, specs, n_specs, props, n_props,
                                               ctypes.byref(self._handle), ctypes.byref(error))
            del keep1, keep2
        _check(lib, status, error)
        self.topology = json.loads(lib.np_request_topology_json(self._handle))

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle is not None and handle.value:
            self._lib.np_request_free(handle)
            self._handle = None


def _sizes_in_range(vcpus, memory_mib) -> bool:
    """Whether vcpus and memory_mib are whole numbers the C ABI takes as they are: ctypes would
    wrap 2**32 + 4 vCPUs to 4 without a word."""
    return (isinstance(vcpus, int) and isinstance(memory_mib, int) and not isinstance(vcpus, bool)
            and not isinstance(memory_mib, bool) and 0 < vcpus < 2 ** 32 and 0 < memory_mib < 2 ** 64)


def derive(vcpus: int, memory_mib: int, flavor: Optional[Mapping[str, Any]] = None,
           image: Optional[Mapping[str, Any]] = None) -> Optional[Dict[str, Any]]:
    """np_derive, Nova's numa_get_constraints: the guest topology as a dict, None when the request
    asks for none; a bad request raises numaplace.Error named by Nova's exception class."""
    lib = _load()
    if not _sizes_in_range(vcpus, memory_mib):
        raise Error("InvalidArgument", "vcpus and memory_mib must be positive integers (vcpus below 2**32, "
                        "memory_mib below 2**64)", 1)
    specs, n_specs, keep1 = _pairs(flavor, "flavor")
    props, n_props, keep2 = _pairs(image, "image")
    out = ctypes.c_void_p()
    error = ctypes.c_void_p()
    status = lib.np_derive(vcpus, memory_mib, specs, n_specs, props, n_props, ctypes.byref(out), ctypes.byref(error))
    del keep1, keep2
    _check(lib, status, error)
    return _take(lib, out)


def fit_hosts(hosts: Iterable[Host], request: Request,
              options: Optional[Mapping[str, Any]] = None) -> list:
    """np_fit_hosts: np_fit on every host, one answer per host in their order."""
    lib = _load()
    handles = _host_handles(hosts)
    array = (ctypes.c_void_p * max(1, len(handles)))(*handles)
    opts, n_opts, keep = _fit_pairs(options)
    out = ctypes.c_void_p()
    error = ctypes.c_void_p()
    status = lib.np_fit_hosts(array, len(handles), _handle_of(request, Request, "request"), opts, n_opts,
                              ctypes.byref(out),
                              ctypes.byref(error))
    del keep
    _check(lib, status, error)
    return _take(lib, out)


def fit_verdicts(hosts: Iterable[Host], request: Request, options: Optional[Mapping[str, Any]] = None) -> bytes:
    """np_fit_hosts_cells without the cells: one byte per host, 1 where the guest fits (or asks for
    no topology), 0 where it does not; the same fit as fit_hosts, no answer written or parsed."""
    return _fit_hosts_cells(_host_handles(hosts), request, options, False)[0]


def fit_hosts_cells(hosts: Iterable[Host], request: Request,
                    options: Optional[Mapping[str, Any]] = None) -> List[Optional[tuple]]:
    """np_fit_hosts_cells: per host the host cell ids the guest cells took, in guest cell order
    (a tuple; () when the request asks for no topology), or None where the guest does not fit."""
    verdicts, cells, per_host = _fit_hosts_cells(_host_handles(hosts), request, options, True)
    return [tuple(cells[i * per_host:(i + 1) * per_host]) if fit else None for i, fit in enumerate(verdicts)]


def _host_handles(hosts: Iterable[Host]) -> List[int]:
    """The library handles of `hosts` (the integers of Host._handle); anything else is numaplace.Error."""
    return [_handle_of(h, Host, f"hosts[{i}]").value for i, h in enumerate(_listed(hosts, "hosts"))]


def _fit_hosts_cells(handles: list, request: Request, options, with_cells: bool):
    """np_fit_hosts_cells over host handles (the integers of Host._handle): (the verdicts as bytes,
    the host cells as a list or None, the guest cells per host)."""
    lib = _load()
    request_handle = _handle_of(request, Request, "request")
    count = len(handles)
    array = (ctypes.c_void_p * max(1, count))(*handles)
    opts, n_opts, keep = _fit_pairs(options)
    verdicts = ctypes.create_string_buffer(max(1, count))
    per_host = lib.np_request_cell_count(request_handle) if with_cells else 0
    cells = (ctypes.c_longlong * max(1, count * per_host))() if with_cells else None
    error = ctypes.c_void_p()
    status = lib.np_fit_hosts_cells(array, count, request_handle, opts, n_opts, verdicts, cells,
                                    count * per_host, ctypes.byref(error))
    del keep
    _check(lib, status, error)
    return verdicts.raw[:count], (cells[:count * per_host] if with_cells else None), per_host


def _fit_packed_hosts(words: List[bytes], ratios: List[float], request: Request, options,
                      keep: bool) -> Tuple[bytes, List[Optional[Host]]]:
    """np_fit_packed_hosts: (a verdict byte per host: 1 fits, 0 does not, 2 words the library
    refuses; with `keep` the hosts made, None where refused, else None for each) for hosts given as
    packed cell words (`words[i]`, native 64-bit integers as bytes, handed over in place) with the
    allocation ratios ratios[2 * i] and ratios[2 * i + 1] (NaN, NaN: no limits): numaplace.nova's
    filter, which makes the hosts it has no host of and their verdicts in one call."""
    lib = _load()
    request_handle = _handle_of(request, Request, "request")
    count = len(words)
    lengths = list(map(len, words))
    if any(length & 7 for length in lengths):
        raise Error("InvalidHostCells", "packed host cells must be whole 64-bit words", 2)
    word_counts = (ctypes.c_size_t * max(1, count))(*[length >> 3 for length in lengths])
    ratio_array = array.array("d", ratios)
    if len(ratio_array) != 2 * count:
        raise Error("InvalidArgument", f"{count} hosts need {2 * count} ratios, not {len(ratio_array)}", 1)
    if count == 0:
        return b"", []
    texts = (ctypes.c_char_p * count)(*words)
    made = (ctypes.c_void_p * count)() if keep else None
    opts, n_opts, options_kept = _fit_pairs(options)
    verdicts = ctypes.create_string_buffer(count)
    error = ctypes.c_void_p()
    status = lib.np_fit_packed_hosts(texts, word_counts, ratio_array.buffer_info()[0], count,
                                     request_handle, opts, n_opts, verdicts, made, ctypes.byref(error))
    del options_kept
    _check(lib, status, error)
    if made is None:
        return verdicts.raw, [None] * count
    return verdicts.raw, [None if handle is None else Host._adopt(lib, handle) for handle in made]


def place(host: Union[str, Mapping[str, Any], Host], domain_xml: str, flavor: Optional[Mapping[str, Any]] = None,
          image: Optional[Mapping[str, Any]] = None, claims: Iterable[str] = (),
          options: Optional[Mapping[str, Any]] = None) -> Result:
    """Places the guest of `domain_xml` on `host` with the flavor's extra specs and the image's
    properties (or, when both are empty, the request recorded in the domain's metadata). `claims`
    count against a copy of a Host given: the caller's Host is left as it was."""
    claims = _listed(claims, "claims")
    if not isinstance(host, Host):
        host = Host(host)
    elif claims:
        host = host.copy()
    if claims:
        host.add_claims(claims)
    return host.place(domain_xml, flavor=flavor, image=image, options=options)
