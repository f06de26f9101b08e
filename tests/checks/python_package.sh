#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The pip package of python/ (pyproject.toml, setup.py): an sdist and a wheel build from the tree
# (offline: --no-build-isolation, Debian's setuptools and wheel), a wheel builds from that sdist too
# (its version then read from PKG-INFO), and the installed wheel imports with project(VERSION) as
# __version__ and no library path of its own (it loads libnumaplace.so.0 by its soname, or
# NUMAPLACE_LIBRARY). The wheel's and the sdist's contents are listed and checked: the wheel is
# py3-none-any and holds numaplace/__init__.py, numaplace/nova.py, numaplace/_config.py and its dist-info (with
# LICENSE, python/LICENSE being a link to the tree's), nothing else (no library, tests or bytecode).
# Usage: python_package.sh SOURCE_DIR LIBNUMAPLACE_SO
set -euo pipefail
source=$1 lib=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
want=$(sed -n 's/^project(numaplace VERSION \([0-9][0-9.]*\).*/\1/p' "$source/CMakeLists.txt")
# A copy of what the build reads, so that nothing is written into the source tree.
mkdir -p "$work/tree"
cp "$source/CMakeLists.txt" "$source/LICENSE" "$work/tree/"
cp -r "$source/python" "$work/tree/python"
rm -rf "$work/tree/python/tests" "$work/tree/python"/numaplace/__pycache__ "$work/tree/python/numaplace/_config.py"
cd "$work/tree/python"
pip=(/usr/bin/python3 -m pip --disable-pip-version-check --no-input)
/usr/bin/python3 -c 'from setuptools import build_meta as b; import sys; print(b.build_sdist(sys.argv[1]))' "$work/dist" >"$work/sdist.log"
sdist=$(ls "$work"/dist/numaplace-"$want".tar.gz) || { echo "no sdist numaplace-$want.tar.gz"; ls "$work/dist"; exit 1; }
"${pip[@]}" wheel --no-deps --no-build-isolation --no-index -w "$work/wheels" . >"$work/wheel.log" 2>&1 ||
  { cat "$work/wheel.log"; exit 1; }
mkdir "$work/from-sdist" && tar -xzf "$sdist" -C "$work/from-sdist"
(cd "$work/from-sdist/numaplace-$want" && "${pip[@]}" wheel --no-deps --no-build-isolation --no-index \
   -w "$work/wheels-from-sdist" . >"$work/wheel2.log" 2>&1) || { cat "$work/wheel2.log"; exit 1; }
# contents ARCHIVE: its member names, sorted.
contents() {
  /usr/bin/python3 -c 'import sys, tarfile, zipfile
a = sys.argv[1]
names = zipfile.ZipFile(a).namelist() if a.endswith(".whl") else [m.name + "/" * m.isdir() for m in tarfile.open(a).getmembers()]
print("\n".join(sorted(names)))' "$1"
}
wheel=$work/wheels/numaplace-$want-py3-none-any.whl
[ -f "$wheel" ] || { echo "no wheel numaplace-$want-py3-none-any.whl: $(ls "$work/wheels")"; exit 1; }
echo "== $(basename "$wheel")"
contents "$wheel" | tee "$work/wheel.list"
info=numaplace-$want.dist-info
for member in numaplace/__init__.py numaplace/nova.py numaplace/_config.py "$info/LICENSE" "$info/METADATA" "$info/WHEEL" "$info/RECORD" "$info/top_level.txt"; do
  grep -qx "$member" "$work/wheel.list" || { echo "the wheel lacks $member"; exit 1; }
done
extra=$(grep -v -x -e numaplace/__init__.py -e numaplace/nova.py -e numaplace/_config.py -e "$info/.*" "$work/wheel.list" || true)
[ -z "$extra" ] || { echo "the wheel holds more than the package: $extra"; exit 1; }
/usr/bin/python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1]); info = sys.argv[2]
wheel = z.read(info + "/WHEEL").decode(); meta = z.read(info + "/METADATA").decode()
assert "Root-Is-Purelib: true" in wheel and "Tag: py3-none-any" in wheel, wheel
assert "Name: numaplace" in meta and "Version: " + sys.argv[3] in meta, meta
config = z.read("numaplace/_config.py").decode()
assert "LIBRARY = None" in config and "VERSION = %r" % sys.argv[3] in config, config
' "$wheel" "$info" "$want" || { echo "the wheel's WHEEL, METADATA or _config.py is not as expected"; exit 1; }
echo "== $(basename "$sdist")"
contents "$sdist" | tee "$work/sdist.list"
top=numaplace-$want
for member in "$top/PKG-INFO" "$top/LICENSE" "$top/pyproject.toml" "$top/setup.py" "$top/README.md" "$top/numaplace/__init__.py" "$top/numaplace/nova.py"; do
  grep -qx "$member" "$work/sdist.list" || { echo "the sdist lacks $member"; exit 1; }
done
! grep -E '(_config\.py|\.so(\.|$)|__pycache__|/tests/)' "$work/sdist.list" || { echo "the sdist holds a build product or the tests"; exit 1; }
for wheel in "$work"/wheels/numaplace-"$want"-*.whl "$work"/wheels-from-sdist/numaplace-"$want"-*.whl; do
  [ -f "$wheel" ] || { echo "no wheel of version $want: $(ls "$work"/wheels*)"; exit 1; }
  target=$(mktemp -d "$work/site.XXXX")
  "${pip[@]}" install --no-deps --no-index --target "$target" "$wheel" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; exit 1; }
  (cd "$work" && env -u NUMAPLACE_LIBRARY ${NUMAPLACE_TEST_PYTHON_ENV:-} PYTHONPATH="$target" PYTHONDONTWRITEBYTECODE=1 \
     LD_LIBRARY_PATH="$(dirname "$lib")" /usr/bin/python3 -c '
import sys, numaplace, numaplace._config as c
assert numaplace.__file__.startswith(sys.argv[1]), numaplace.__file__
assert numaplace.__version__ == sys.argv[2], (numaplace.__version__, sys.argv[2])
assert c.LIBRARY is None, c.LIBRARY
assert numaplace.library_version() == sys.argv[2], numaplace.library_version()
' "$target" "$want") || { echo "the wheel $(basename "$wheel") does not import as numaplace $want"; exit 1; }
done
# Without the library on the loader's path: NUMAPLACE_LIBRARY names it; with neither (and none
# installed on this system), numaplace.Error LibraryNotFound says so.
(cd "$work" && env ${NUMAPLACE_TEST_PYTHON_ENV:-} PYTHONPATH="$target" PYTHONDONTWRITEBYTECODE=1 NUMAPLACE_LIBRARY="$lib" \
   /usr/bin/python3 -c 'import sys, numaplace; assert numaplace.library_version() == sys.argv[1]' "$want") ||
  { echo "the wheel does not load NUMAPLACE_LIBRARY=$lib"; exit 1; }
if ! /sbin/ldconfig -p | grep -q 'libnumaplace\.so\.0 '; then
  (cd "$work" && env -u NUMAPLACE_LIBRARY -u LD_LIBRARY_PATH PYTHONPATH="$target" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -c '
import numaplace
try:
    numaplace.library_version()
except numaplace.Error as e:
    assert e.name == "LibraryNotFound" and "NUMAPLACE_LIBRARY" in e.message, e
else:
    raise AssertionError("loaded a library")') || { echo "the wheel without a library does not raise LibraryNotFound"; exit 1; }
fi
echo "ok: sdist $(basename "$sdist"), a wheel from the tree and one from the sdist, both numaplace $want"
