# SPDX-License-Identifier: LGPL-2.1-or-later
"""The version and _config.py of the pip package (pyproject.toml holds the rest).

The version is project(VERSION) of ../CMakeLists.txt, its only source; in an sdist, which has no
CMakeLists.txt, it is read back from the sdist's own PKG-INFO. The wheel's numaplace/_config.py
names that version and no library path, so the binding loads libnumaplace.so.0 from the system.
"""
import os
import re

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def version():
    cmake = os.path.join(HERE, "..", "CMakeLists.txt")
    if os.path.exists(cmake):
        with open(cmake, encoding="utf-8") as f:
            found = re.search(r"project\(numaplace\s+VERSION\s+([0-9][0-9.]*)", f.read())
    else:
        with open(os.path.join(HERE, "PKG-INFO"), encoding="utf-8") as f:
            found = re.search(r"^Version:\s*(\S+)", f.read(), re.M)
    if not found:
        raise RuntimeError("no numaplace version in ../CMakeLists.txt or PKG-INFO")
    return found.group(1)


class BuildPy(build_py):
    def run(self):
        super().run()
        path = os.path.join(self.build_lib, "numaplace", "_config.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write("# Written by setup.py for the wheel.\nVERSION = %r\nLIBRARY = None\nLIBRARY_RELATIVE = None\n"
                    % version())


setup(version=version(), cmdclass={"build_py": BuildPy})
