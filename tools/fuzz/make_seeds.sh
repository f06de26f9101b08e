#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds the seed corpora of the fuzz harnesses (one directory per entry) from the
# project's test data (tests/data) and the small hand-made seeds in tests/fuzz/seeds/:
#   cpulist       cpus=/cpuset=/nodeset= values of every corpus and sample XML
#   specs         flavor extra specs and image properties of the nova vectors, as key=value lines
#   capabilities  corpus/*/capabilities, samples/libvirt/caps-*
#   nodedev       corpus/*/nodedev, samples/libvirt/nodedev-*, test-driver node files
#   domain        corpus/*/domains, samples/libvirt/domain-*
#   hwloc         samples/hwloc
#   json          a sample of lines of every conformance .jsonl file (one vector a file; NAME.jsonl.xz
#                 is read as NAME.jsonl when that is not there)
#   hook          "OP SUBOP" + a domain (each domain seed under restore/migrate/prepare begin)
#   fitrequest    the requests of the nova vectors (the fit API's flavor/image form), and their
#                 expected guest topologies in its topology form
#   fithost       the hosts of the nova vectors (the fit API's host JSON)
#   hostcells     the same hosts as np_host_from_cells' packed words (fuzz_entries.h's text form)
# Usage: make_seeds.sh OUT_DIR [DATA_DIR]   (DATA_DIR: tests/data's layout; default tests/data itself)
set -euo pipefail
SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$1
SHARED=$(readlink -f "${2:-$SOURCE/tests/data}")
[ -d "$SHARED/corpus" ] || { echo "make_seeds.sh: no corpus under $SHARED" >&2; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT"/{cpulist,specs,capabilities,nodedev,domain,hwloc,json,hook,fitrequest,fithost,hostcells}

copy_all() {  # dest files...
  local dest=$1 f; shift
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$OUT/$dest/$(basename "$(dirname "$f")")-$(basename "$f")"; done
  return 0
}
copy_all capabilities "$SHARED"/corpus/*/capabilities/* "$SHARED"/samples/libvirt/caps-*
copy_all nodedev "$SHARED"/corpus/*/nodedev/* "$SHARED"/samples/libvirt/nodedev-* "$SHARED"/samples/libvirt/testdriver-node-*
copy_all domain "$SHARED"/corpus/*/domains/* "$SHARED"/samples/libvirt/domain-* "$SOURCE"/examples/*.xml
copy_all hwloc "$SHARED"/samples/hwloc/*
for entry in cpulist specs capabilities nodedev domain hwloc json hook fitrequest fithost hostcells; do
  if [ -d "$SOURCE/tests/fuzz/seeds/$entry" ]; then cp "$SOURCE/tests/fuzz/seeds/$entry"/* "$OUT/$entry/"; fi
done

python3 - "$SHARED" "$OUT" <<'PY'
import glob, hashlib, json, lzma, os, re, sys
shared, out = sys.argv[1], sys.argv[2]

def put(entry, text):
    data = text.encode() if isinstance(text, str) else text
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(out, entry, name), "wb") as f:
        f.write(data)

def host_cells_text(host):
    """The host JSON as the hostcells entry's text (docs/library.md, "Packed host cells"), or None
    where it holds what the words cannot say."""
    try:
        words = [len(host["cells"])]
        for cell in host["cells"]:
            usage = cell.get("usage") or {}
            cpus = cell.get("cpus") or []
            shared = cell.get("shared_cpuset", cpus)
            dedicated = cell.get("dedicated_cpuset", cpus)
            socket = cell.get("socket")
            words += [cell["id"], cell["memory_mib"], int(usage.get("shared_cpus") or 0), usage.get("memory_mib") or 0,
                      -1 if socket is None else socket]
            for ids in (shared, dedicated, usage.get("pinned_cpus") or []):
                words += [len(ids)] + list(ids)
            siblings = cell.get("siblings") or []
            words += [len(siblings)] + [len(g) for g in siblings] + [i for g in siblings for i in g]
            pages = cell.get("pages") or []
            words.append(len(pages))
            for p in pages:
                words += [p["size_kib"], p["total"], p.get("used", 0), p.get("reserved", 0)]
        ratio = host.get("allocation_ratio")
        ratios = "nan nan" if ratio is None else "%r %r" % (float(ratio["cpu"]), float(ratio["ram"]))
        networks = [cell.get("network_metadata") for cell in host["cells"]]
        lines = [ratios, " ".join(str(int(w)) for w in words), json.dumps(host.get("pci") or [])]
        if any(n is not None for n in networks):
            lines.append(json.dumps(networks))
        return "\n".join(lines) + "\n"
    except (KeyError, TypeError, ValueError):
        return None

lists = set()
for path in glob.glob(shared + "/corpus/**/*.xml", recursive=True) + glob.glob(shared + "/samples/**/*.xml", recursive=True):
    text = open(path, encoding="utf-8", errors="replace").read()
    lists.update(re.findall(r"""(?:cpus|cpuset|nodeset|siblings)=['"]([^'"]{1,200})['"]""", text))
for value in sorted(lists)[:400]:
    put("cpulist", value)

vectors = glob.glob(shared + "/conformance/**/*.jsonl", recursive=True)
vectors += [p for p in glob.glob(shared + "/conformance/**/*.jsonl.xz", recursive=True) if p[:-3] not in vectors]
for path in sorted(vectors, key=lambda p: p[:-3] if p.endswith(".xz") else p):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        lines = [l for l in f if l.strip()]
    step = max(1, len(lines) // 150)  # about 150 vectors a file
    for line in lines[::step]:
        put("json", line.strip())
        if "/nova/" not in path:
            continue
        vector = json.loads(line)
        request = vector.get("request", {})
        if isinstance(request, dict) and request:
            put("fitrequest", json.dumps(request))
        topology = (vector.get("expect") or {}).get("guest_topology")
        if isinstance(topology, dict):
            put("fitrequest", json.dumps({"topology": topology}))
        if isinstance(vector.get("host"), dict):
            put("fithost", json.dumps(vector["host"]))
            packed = host_cells_text(vector["host"])
            if packed:
                put("hostcells", packed)
        flavor = request.get("flavor", {})
        image = (request.get("image") or {}).get("properties", {})
        def v(x): return x if isinstance(x, str) else json.dumps(x)
        text = "%s %s\n" % (flavor.get("vcpus", 4), flavor.get("memory_mib", 2048))
        text += "".join("%s=%s\n" % (k, v(x)) for k, x in (flavor.get("extra_specs") or {}).items())
        if image:
            text += "--\n" + "".join("%s=%s\n" % (k, v(x)) for k, x in image.items())
        put("specs", text)
PY
# Hook seeds: every domain seed behind one of the operations whose stdin the hook reads.
ops=("restore begin" "migrate begin" "prepare begin")
i=0
for f in "$OUT"/domain/*; do
  { printf '%s\n' "${ops[i % 3]}"; cat "$f"; } >"$OUT/hook/$(basename "$f")"
  i=$((i + 1))
done
for entry in cpulist specs capabilities nodedev domain hwloc json hook fitrequest fithost hostcells; do
  printf '%s %s\n' "$entry" "$(find "$OUT/$entry" -type f | wc -l)"
done
