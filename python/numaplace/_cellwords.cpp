// SPDX-License-Identifier: LGPL-2.1-or-later
// numaplace._cellwords: what numaplace.nova's host cache reads of every Nova host on every pass,
// read in C: the cells as np_host_from_cells' packed words (whole, or as a guest whose vCPUs are all
// floating, or all dedicated, sees them), and the PCI pools.
//
// Contract: cell_words(cells) takes a NUMATopology's cell list (host_topology._obj_cells) and
// returns the packed words of docs/library.md ("Packed host cells") as bytes (native 64-bit
// integers, the cell count first), or None where a cell or page pool does not have every field
// set (`_obj_NAME`), or a field is not an integer that fits 64 bits: the caller then reads the
// cells in Python. The same cells give the same bytes (each CPU set and sibling group sorted, the
// lists in their order), so two hosts whose bytes are equal are the same numaplace host; that is
// what lets numaplace.nova keep a host by these bytes. Unset-like values read as nova.py reads them:
// None sets as empty, None usages and page counts as 0, a None socket as -1. Fields are read as
// attribute access reads `_obj_NAME` (where oslo.versionedobjects keeps a set field), sets as
// frozenset() reads them, lists as iter() does. Only what Python raises
// for a missing or bad field (AttributeError, TypeError, ValueError, OverflowError) becomes None;
// anything else (MemoryError) propagates.
// floating_words(cells) returns the packed words of what Nova's fit of a guest with no dedicated
// vCPUs reads of those cells (nova.virt.hardware._numa_fit_instance_cell's shared branch): each
// cell's id, memory, cpu_usage, memory_usage and page pools as cell_words writes them, and as many
// shared CPUs as its cpuset has (a set's size read without walking it), numbered 0, 1, ... across
// the cells; no socket, no dedicated, pinned or sibling CPUs; about half of cell_words' reading.
// None as for cell_words, for the fields it reads. dedicated_words(cells) is cell_words' words
// without what Nova's fit of a guest whose vCPUs are all dedicated (and its emulator pCPU), under a
// thread policy other than isolate, never reads: no shared CPUs, no shared load (0), no socket (-1).
// Such a guest's verdict on the host a view's words make is its verdict on the whole host
// (CellViewsProperty in tests/unit/plugin/capi/cell_views_test.cpp).
// pool_inputs(pools) takes a PciDeviceStats' pool list and returns what nova.py's _pool_input
// makes of each pool, equal to its list(map(_pool_input, pools)), or None where a pool is not
// exactly a dict with str keys and str or None tag values (Python then reads the pools).
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace {

// An owned reference, released on scope exit.
class Ref {
 public:
  explicit Ref(PyObject* object) : object_(object) {}
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  ~Ref() { Py_XDECREF(object_); }
  PyObject* get() const { return object_; }
  explicit operator bool() const { return object_ != nullptr; }

 private:
  PyObject* object_;
};

// The interned attribute names, made once at module initialisation.
struct Names {
  PyObject* id;
  PyObject* cpuset;
  PyObject* pcpuset;
  PyObject* siblings;
  PyObject* memory;
  PyObject* cpu_usage;
  PyObject* pinned_cpus;
  PyObject* memory_usage;
  PyObject* socket;
  PyObject* mempages;
  PyObject* size_kb;
  PyObject* total;
  PyObject* used;
  PyObject* reserved;
};
Names names;

// Whether the pending exception is one that means "read these cells in Python" (then cleared).
bool cleared_as_unreadable() {
  if (PyErr_ExceptionMatches(PyExc_AttributeError) || PyErr_ExceptionMatches(PyExc_TypeError) ||
      PyErr_ExceptionMatches(PyExc_ValueError) || PyErr_ExceptionMatches(PyExc_OverflowError)) {
    PyErr_Clear();
    return true;
  }
  return false;
}

// The reasons a read stops: the cells are for Python to read, or a Python error propagates.
enum class Stop { Unreadable, Raised };

// A field of an object (owned), as attribute access reads `_obj_NAME`; empty with `stop` set where
// the field is unset. Read with getattr rather than from the object's __dict__: on Python 3.11 and
// later an object keeps its attributes inline until its __dict__ is asked for, and asking makes a
// dict per cell and page pool, which a host never read before paid for twice (making it, then the
// collector walking it): about a third of numaplace.nova's first pass over 1,000 hosts
// (tools/bench/nova_filter.py).
Ref field(PyObject* object, PyObject* name, Stop& stop) {
  PyObject* value = PyObject_GetAttr(object, name);
  if (value == nullptr) stop = cleared_as_unreadable() ? Stop::Unreadable : Stop::Raised;
  return Ref(value);
}

// An integer that fits 64 bits; anything else (a float usage, say: Python's words refuse it too)
// is unreadable.
bool integer_of(PyObject* value, std::int64_t& out, Stop& stop) {
  if (!PyLong_Check(value)) {
    stop = Stop::Unreadable;
    return false;
  }
  int overflow = 0;
  long long read = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow != 0 || (read == -1 && PyErr_Occurred())) {
    stop = (!PyErr_Occurred() || cleared_as_unreadable()) ? Stop::Unreadable : Stop::Raised;
    return false;
  }
  out = read;
  return true;
}

// Reads one field's integer; `none_as` is what None reads as (nullopt: None is unreadable).
bool read_integer(PyObject* object, PyObject* name, std::optional<std::int64_t> none_as, std::int64_t& out,
                  Stop& stop) {
  Ref value(field(object, name, stop));
  if (!value) return false;
  if (value.get() != Py_None) return integer_of(value.get(), out, stop);
  if (!none_as) {
    stop = Stop::Unreadable;
    return false;
  }
  out = *none_as;
  return true;
}

// A sequence whose items PySequence_Fast_ITEMS reads (owned), or empty with `stop` set. A list,
// or a subclass that iterates as one (oslo's CoercedList), is read in place: PySequence_Fast would
// copy a subclass's items into a new list.
Ref items_of(PyObject* sequence, Stop& stop) {
  if (PyList_Check(sequence) && Py_TYPE(sequence)->tp_iter == PyList_Type.tp_iter) {
    Py_INCREF(sequence);
    return Ref(sequence);
  }
  PyObject* items = PySequence_Fast(sequence, "not a sequence");
  if (items == nullptr) stop = cleared_as_unreadable() ? Stop::Unreadable : Stop::Raised;
  return Ref(items);
}

// One set member, appended.
bool append_integer(PyObject* item, std::vector<std::int64_t>& out, Stop& stop) {
  std::int64_t value = 0;
  if (!integer_of(item, value, stop)) return false;
  out.push_back(value);
  return true;
}

// The integers appended from `first` on, sorted and made distinct.
void sort_distinct(std::vector<std::int64_t>& out, std::size_t first_at) {
  auto first = out.begin() + static_cast<std::ptrdiff_t>(first_at);
  if (!std::is_sorted(first, out.end())) std::sort(first, out.end());  // small integers' sets iterate in order
  out.erase(std::unique(first, out.end()), out.end());
}

// Whether `values` is a set or frozenset, or of a subclass (oslo's CoercedSet): its entries are
// read in place, as frozenset(values) reads them (a set's __iter__ is not asked). The last subclass
// seen is remembered (and kept alive): asking whether a type is a set's subclass walks its bases.
bool reads_as_set(PyObject* values) {
  static PyTypeObject* subclass_seen = nullptr;
  PyTypeObject* type = Py_TYPE(values);
  if (type == &PySet_Type || type == &PyFrozenSet_Type || type == subclass_seen) return true;
  if (!PyAnySet_Check(values)) return false;
  Py_INCREF(type);
  Py_XDECREF(subclass_seen);
  subclass_seen = type;
  return true;
}

// The distinct integers of a set or any iterable, sorted, appended to `out`; `count` says how many.
bool append_members(PyObject* values, std::vector<std::int64_t>& out, std::size_t& count, Stop& stop) {
  std::size_t first = out.size();
#if PY_VERSION_HEX < 0x030D0000  // the set table of cpython/setobject.h, read as 3.8-3.12 lay it out
  if (reads_as_set(values)) {
    // The set's table walked in place, as _PySet_NextEntry walks it (a call per slot otherwise;
    // sibling groups are thousands of two-CPU sets per pass). Only this thread runs while it is
    // read: nothing here calls back into Python.
    const auto* set = reinterpret_cast<const PySetObject*>(values);
    for (Py_ssize_t slot = 0; slot <= set->mask; ++slot) {
      PyObject* item = set->table[slot].key;
      if (item != nullptr && item != _PySet_Dummy && !append_integer(item, out, stop)) return false;
    }
    sort_distinct(out, first);
    count = out.size() - first;
    return true;
  }
#endif
  Ref iterator(PyObject_GetIter(values));
  if (!iterator) {
    stop = cleared_as_unreadable() ? Stop::Unreadable : Stop::Raised;
    return false;
  }
  while (PyObject* raw = PyIter_Next(iterator.get())) {
    Ref item(raw);
    if (!append_integer(item.get(), out, stop)) return false;
  }
  if (PyErr_Occurred()) {
    stop = cleared_as_unreadable() ? Stop::Unreadable : Stop::Raised;
    return false;
  }
  sort_distinct(out, first);
  count = out.size() - first;
  return true;
}

// A CPU set field: its count, then its members (None reads as empty, as frozenset(x or ())).
bool append_set_field(PyObject* cell, PyObject* name, std::vector<std::int64_t>& out, Stop& stop) {
  Ref values(field(cell, name, stop));
  if (!values) return false;
  std::size_t count_at = out.size();
  out.push_back(0);
  if (values.get() == Py_None) return true;
  std::size_t count = 0;
  if (!append_members(values.get(), out, count, stop)) return false;
  out[count_at] = static_cast<std::int64_t>(count);
  return true;
}

// A list field: its count, then what `append_items(items, count)` appends for its items (None
// reads as no items, as `x or ()` does in nova.py).
template <typename AppendItems>
bool append_list_field(PyObject* cell, PyObject* name, std::vector<std::int64_t>& out, Stop& stop,
                       AppendItems&& append_items) {
  Ref value(field(cell, name, stop));
  if (!value) return false;
  if (value.get() == Py_None) {
    out.push_back(0);
    return true;
  }
  Ref list(items_of(value.get(), stop));
  if (!list) return false;
  Py_ssize_t count = PySequence_Fast_GET_SIZE(list.get());
  out.push_back(count);
  return append_items(PySequence_Fast_ITEMS(list.get()), count);
}

// The siblings: their count, each group's size, then every group's sorted CPUs in list order.
bool append_siblings(PyObject* cell, std::vector<std::int64_t>& out, Stop& stop) {
  return append_list_field(cell, names.siblings, out, stop, [&](PyObject** items, Py_ssize_t count) {
    std::size_t sizes_at = out.size();
    out.resize(sizes_at + static_cast<std::size_t>(count));
    for (Py_ssize_t i = 0; i < count; ++i) {
      if (items[i] == Py_None) {  // frozenset(None) raises: Python says what
        stop = Stop::Unreadable;
        return false;
      }
      std::size_t size = 0;
      if (!append_members(items[i], out, size, stop)) return false;
      out[sizes_at + static_cast<std::size_t>(i)] = static_cast<std::int64_t>(size);
    }
    return true;
  });
}

// The page pools: their count, then each pool's size, total, used and reserved.
bool append_pages(PyObject* cell, std::vector<std::int64_t>& out, Stop& stop) {
  return append_list_field(cell, names.mempages, out, stop, [&](PyObject** items, Py_ssize_t count) {
    for (Py_ssize_t i = 0; i < count; ++i) {
      std::int64_t size = 0, total = 0, used = 0, reserved = 0;
      PyObject* pool = items[i];
      if (!read_integer(pool, names.size_kb, std::nullopt, size, stop) ||
          !read_integer(pool, names.total, std::nullopt, total, stop) ||
          !read_integer(pool, names.used, 0, used, stop) ||
          !read_integer(pool, names.reserved, 0, reserved, stop))
        return false;
      out.insert(out.end(), {size, total, used, reserved});
    }
    return true;
  });
}

// A CPU set field's size (None: 0): a set's read without walking its table, anything else's as
// the number of its distinct integer members.
bool read_set_size(PyObject* cell, PyObject* name, std::int64_t& out, Stop& stop) {
  Ref values(field(cell, name, stop));
  if (!values) return false;
  if (values.get() == Py_None) {
    out = 0;
    return true;
  }
  if (PyAnySet_Check(values.get())) {
    out = PySet_GET_SIZE(values.get());
    return true;
  }
  std::vector<std::int64_t> members;
  std::size_t count = 0;
  if (!append_members(values.get(), members, count, stop)) return false;
  out = static_cast<std::int64_t>(count);
  return true;
}

// What of a cell is read: all of it, or what Nova's fit of a guest whose vCPUs are all floating,
// or all dedicated, reads of it (the module's contract).
enum class View { Whole, Floating, Dedicated };

// One cell's words as `view` reads it; a floating view numbers its shared CPUs from `next_cpu` on.
bool append_cell(PyObject* cell, View view, std::int64_t& next_cpu, std::vector<std::int64_t>& out, Stop& stop) {
  std::int64_t id = 0, memory = 0, cpu_usage = 0, memory_usage = 0, socket = -1;
  if (!read_integer(cell, names.id, std::nullopt, id, stop) ||
      !read_integer(cell, names.memory, std::nullopt, memory, stop) ||
      (view != View::Dedicated && !read_integer(cell, names.cpu_usage, 0, cpu_usage, stop)) ||
      !read_integer(cell, names.memory_usage, 0, memory_usage, stop) ||
      (view == View::Whole && !read_integer(cell, names.socket, -1, socket, stop)))
    return false;
  out.insert(out.end(), {id, memory, cpu_usage, memory_usage, socket});
  switch (view) {
    case View::Whole:
      if (!append_set_field(cell, names.cpuset, out, stop)) return false;
      break;
    case View::Floating: {
      std::int64_t shared = 0;
      if (!read_set_size(cell, names.cpuset, shared, stop)) return false;
      out.push_back(shared);
      for (std::int64_t i = 0; i < shared; ++i) out.push_back(next_cpu++);
      out.insert(out.end(), {0, 0, 0});  // dedicated CPUs, pinned CPUs, sibling groups: none
      return append_pages(cell, out, stop);
    }
    case View::Dedicated:
      out.push_back(0);  // no shared CPUs
      break;
  }
  return append_set_field(cell, names.pcpuset, out, stop) && append_set_field(cell, names.pinned_cpus, out, stop) &&
         append_siblings(cell, out, stop) && append_pages(cell, out, stop);
}

// What a reader returns once it stops: nullptr to raise the pending error, or None (Python reads).
PyObject* stopped(Stop stop) {
  if (stop == Stop::Raised) return nullptr;
  Py_RETURN_NONE;
}

PyObject* words_as(PyObject* cells, View view) {
  Stop stop = Stop::Unreadable;
  Ref list(items_of(cells, stop));
  if (!list) return stopped(stop);
  Py_ssize_t count = PySequence_Fast_GET_SIZE(list.get());
  PyObject** items = PySequence_Fast_ITEMS(list.get());
  std::vector<std::int64_t> words;
  words.reserve(static_cast<std::size_t>(count) * 64 + 1);
  words.push_back(count);
  std::int64_t next_cpu = 0;
  for (Py_ssize_t i = 0; i < count; ++i) {
    if (!append_cell(items[i], view, next_cpu, words, stop)) return stopped(stop);
  }
  return PyBytes_FromStringAndSize(reinterpret_cast<const char*>(words.data()),
                                   static_cast<Py_ssize_t>(words.size() * sizeof(std::int64_t)));
}

PyObject* cell_words(PyObject*, PyObject* cells) { return words_as(cells, View::Whole); }
PyObject* floating_words(PyObject*, PyObject* cells) { return words_as(cells, View::Floating); }
PyObject* dedicated_words(PyObject*, PyObject* cells) { return words_as(cells, View::Dedicated); }

// The pool keys that are not tags (numaplace.nova's _POOL_NOT_TAGS), and the defaults of the four
// that are read.
struct PoolNames {
  PyObject* vendor_id;
  PyObject* product_id;
  PyObject* numa_node;
  PyObject* count;
  PyObject* devices;
  PyObject* empty;  // "", the ids' default
  PyObject* zero;   // 0, the count's
};
PoolNames pool_names;

bool is_pool_key(PyObject* key) {
  return key == pool_names.vendor_id || key == pool_names.product_id || key == pool_names.numa_node ||
         key == pool_names.count || key == pool_names.devices ||
         PyUnicode_Compare(key, pool_names.vendor_id) == 0 || PyUnicode_Compare(key, pool_names.product_id) == 0 ||
         PyUnicode_Compare(key, pool_names.numa_node) == 0 || PyUnicode_Compare(key, pool_names.count) == 0 ||
         PyUnicode_Compare(key, pool_names.devices) == 0;
}

// A pool's member, or `fallback` (both borrowed).
PyObject* member_or(PyObject* pool, PyObject* key, PyObject* fallback) {
  PyObject* value = PyDict_GetItemWithError(pool, key);
  return value != nullptr ? value : fallback;
}

// One pool as nova.py's _pool_input reads it: (vendor_id, product_id, numa_node, count, the tags as
// (key, value) pairs sorted by key); nullptr with `stop` Unreadable where the pool is not exactly a
// dict, a key is not exactly a str, or a tag's value is neither a str nor None (Python then writes
// it as JSON), so that Python reads it.
PyObject* pool_input(PyObject* pool, Stop& stop) {
  if (!PyDict_CheckExact(pool)) {
    stop = Stop::Unreadable;
    return nullptr;
  }
  Ref tags(PyList_New(0));
  if (!tags) {
    stop = Stop::Raised;
    return nullptr;
  }
  Py_ssize_t position = 0;
  PyObject* key = nullptr;
  PyObject* value = nullptr;
  while (PyDict_Next(pool, &position, &key, &value)) {
    if (!PyUnicode_CheckExact(key)) {
      stop = Stop::Unreadable;
      return nullptr;
    }
    if (is_pool_key(key)) continue;
    if (value != Py_None && !PyUnicode_CheckExact(value)) {
      stop = Stop::Unreadable;
      return nullptr;
    }
    Ref pair(PyTuple_Pack(2, key, value));
    if (!pair || PyList_Append(tags.get(), pair.get()) != 0) {
      stop = Stop::Raised;
      return nullptr;
    }
  }
  // The keys are distinct str, so the pairs sort by key as Python's sorted() sorts them.
  Ref sorted_tags(PyList_Sort(tags.get()) == 0 ? PyList_AsTuple(tags.get()) : nullptr);
  if (!sorted_tags || PyErr_Occurred()) {
    stop = Stop::Raised;
    return nullptr;
  }
  PyObject* out = PyTuple_Pack(5, member_or(pool, pool_names.vendor_id, pool_names.empty),
                               member_or(pool, pool_names.product_id, pool_names.empty),
                               member_or(pool, pool_names.numa_node, Py_None),
                               member_or(pool, pool_names.count, pool_names.zero), sorted_tags.get());
  if (out == nullptr) stop = Stop::Raised;
  return out;
}

PyObject* pool_inputs(PyObject*, PyObject* pools) {
  Stop stop = Stop::Unreadable;
  Ref list(items_of(pools, stop));
  if (!list) return stopped(stop);
  const Py_ssize_t count = PySequence_Fast_GET_SIZE(list.get());
  PyObject** items = PySequence_Fast_ITEMS(list.get());
  Ref out(PyList_New(count));
  if (!out) return nullptr;
  for (Py_ssize_t i = 0; i < count; ++i) {
    PyObject* made = pool_input(items[i], stop);
    if (made == nullptr) return stopped(stop);
    PyList_SET_ITEM(out.get(), i, made);
  }
  Py_INCREF(out.get());
  return out.get();
}

PyMethodDef methods[] = {
    {"cell_words", cell_words, METH_O,
     "cell_words(cells) -> bytes | None: a NUMATopology's cells (its _obj_cells) as np_host_from_cells' "
     "packed words (native int64, sets sorted), or None where a field is unset or not a 64-bit integer."},
    {"floating_words", floating_words, METH_O,
     "floating_words(cells) -> bytes | None: the packed words of the cells as a guest with no dedicated vCPUs sees "
     "them (ids, memory, usage, page pools, the cpuset's size as that many CPUs; nothing dedicated, pinned or "
     "sibling), or None where one of those fields is unset or not a 64-bit integer."},
    {"dedicated_words", dedicated_words, METH_O,
     "dedicated_words(cells) -> bytes | None: the packed words of the cells as a guest whose vCPUs are all "
     "dedicated sees them (cell_words' with no shared CPUs, shared load or socket), or None as cell_words."},
    {"pool_inputs", pool_inputs, METH_O,
     "pool_inputs(pools) -> list | None: a PciDeviceStats' pools as numaplace.nova's _pool_input reads each, "
     "or None where a pool is not a dict of str keys with str or None tag values."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cellwords",
                      "Nova's host cells read in C as numaplace's packed cell words (numaplace.nova's host cache).",
                      -1, methods, nullptr, nullptr, nullptr, nullptr};

bool intern(PyObject*& slot, const char* name) {
  slot = PyUnicode_InternFromString(name);
  return slot != nullptr;
}

}  // namespace

PyMODINIT_FUNC PyInit__cellwords() {
  if (!intern(names.id, "_obj_id") || !intern(names.cpuset, "_obj_cpuset") ||
      !intern(names.pcpuset, "_obj_pcpuset") || !intern(names.siblings, "_obj_siblings") ||
      !intern(names.memory, "_obj_memory") || !intern(names.cpu_usage, "_obj_cpu_usage") ||
      !intern(names.pinned_cpus, "_obj_pinned_cpus") || !intern(names.memory_usage, "_obj_memory_usage") ||
      !intern(names.socket, "_obj_socket") || !intern(names.mempages, "_obj_mempages") ||
      !intern(names.size_kb, "_obj_size_kb") || !intern(names.total, "_obj_total") ||
      !intern(names.used, "_obj_used") || !intern(names.reserved, "_obj_reserved") ||
      !intern(pool_names.vendor_id, "vendor_id") || !intern(pool_names.product_id, "product_id") ||
      !intern(pool_names.numa_node, "numa_node") || !intern(pool_names.count, "count") ||
      !intern(pool_names.devices, "devices") || !intern(pool_names.empty, ""))
    return nullptr;
  pool_names.zero = PyLong_FromLong(0);
  if (pool_names.zero == nullptr) return nullptr;
  return PyModule_Create(&module);
}
