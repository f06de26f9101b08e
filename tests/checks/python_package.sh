#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The pip package of python/ (pyproject.toml, setup.py): an sdist and a wheel build from the tree
# (offline: --no-build-isolation, Debian's setuptools and wheel), a wheel builds from that sdist too
# (its version then read from PKG-INFO), and the installed wheel imports with project(VERSION) as
# __version__ and no library path of its own (it loads libnumaplace.so.0 by its soname).
# Usage: python_package.sh SOURCE_DIR LIBNUMAPLACE_SO
set -euo pipefail
source=$1 lib=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
want=$(sed -n 's/^project(numaplace VERSION \([0-9][0-9.]*\).*/\1/p' "$source/CMakeLists.txt")
# A copy of what the build reads, so that nothing is written into the source tree.
mkdir -p "$work/tree"
cp "$source/CMakeLists.txt" "$work/tree/"
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
echo "ok: sdist $(basename "$sdist"), a wheel from the tree and one from the sdist, both numaplace $want"
