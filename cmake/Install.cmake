# SPDX-License-Identifier: LGPL-2.1-or-later
# What `cmake --install` puts where, like a system package (GNUInstallDirs throughout):
#   bin/numaplace, lib*/libnumaplace.so.0 (+ the .so link), include/numaplace{,_version}.h{,pp},
#   lib*/pkgconfig/numaplace.pc, share/man/man1/numaplace*.1, share/bash-completion/completions/numaplace,
#   the Python package (Debian's python3 imports it: <prefix>/lib/python3/dist-packages), and the
#   libvirt QEMU hook under sysconfdir (/etc for --prefix /usr, as GNUInstallDirs says).
# The prefix may be given only at install time (cmake --install build --prefix /usr), so the
# places that depend on it (sysconfdir, the Python directory, the library path the Python package
# records) are worked out then, by cmake/InstallExtras.cmake.in.
include(GNUInstallDirs)

install(TARGETS numaplace
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT library NAMELINK_COMPONENT development)
install(TARGETS numaplace_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
install(FILES plugin/capi/include/numaplace.h plugin/capi/include/numaplace.hpp ${PROJECT_BINARY_DIR}/include/numaplace_version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development)
# numaplace.pc finds its prefix relative to itself, so an install under any --prefix works.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  file(RELATIVE_PATH NUMAPLACE_PC_TO_PREFIX "${CMAKE_INSTALL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH NUMAPLACE_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
endif()
configure_file(plugin/capi/numaplace.pc.in ${PROJECT_BINARY_DIR}/numaplace.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/numaplace.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT development)

# Man pages and bash completion, made at build time from the built CLI's --help texts (one
# source for both: tools/man/cli_docs.py).
find_program(NUMAPLACE_PYTHON3_FOR_DOCS python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT NUMAPLACE_PYTHON3_FOR_DOCS)
  find_program(NUMAPLACE_PYTHON3_FOR_DOCS python3 REQUIRED)
endif()
set(NUMAPLACE_DOCS_DIR ${PROJECT_BINARY_DIR}/docs-generated)
add_custom_command(
  OUTPUT ${NUMAPLACE_DOCS_DIR}/stamp
  COMMAND ${NUMAPLACE_PYTHON3_FOR_DOCS} ${PROJECT_SOURCE_DIR}/tools/man/cli_docs.py
          --cli $<TARGET_FILE:numaplace_cli> --out ${NUMAPLACE_DOCS_DIR}
  COMMAND ${CMAKE_COMMAND} -E touch ${NUMAPLACE_DOCS_DIR}/stamp
  DEPENDS numaplace_cli ${PROJECT_SOURCE_DIR}/tools/man/cli_docs.py
  COMMENT "Man pages and bash completion from numaplace --help")
add_custom_target(numaplace_docs ALL DEPENDS ${NUMAPLACE_DOCS_DIR}/stamp)
install(DIRECTORY ${NUMAPLACE_DOCS_DIR}/man1 DESTINATION ${CMAKE_INSTALL_MANDIR} COMPONENT cli)
install(FILES ${NUMAPLACE_DOCS_DIR}/bash-completion/numaplace
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT cli)

# The libvirt QEMU hook (tools/hooks/qemu), with the installed numaplace as the binary it tries
# first. libvirt >= 6.5 runs every executable of <sysconfdir>/libvirt/hooks/qemu.d/ (after
# hooks/qemu, each one's XML output the next one's input), so the hook goes there as `numaplace`
# and never replaces an operator's own hooks/qemu. With an older libvirt it goes beside, to
# share/numaplace/hooks/qemu, and the install says how to enable it. NUMAPLACE_HOOK_DIR (absolute,
# or relative to the install prefix) puts it elsewhere.
set(NUMAPLACE_HOOK_DIR "" CACHE PATH "Install the libvirt QEMU hook here instead of <sysconfdir>/libvirt/hooks/qemu.d")
if(LIBVIRT_VERSION VERSION_GREATER_EQUAL 6.5)
  set(NUMAPLACE_LIBVIRT_HOOKS_D ON)
else()
  set(NUMAPLACE_LIBVIRT_HOOKS_D OFF)
endif()

# The Python package (python/numaplace, ctypes over the C ABI). Its _config.py, written at install
# time, holds the version and the installed library's path. NUMAPLACE_PYTHON_DIR (absolute, or
# relative to the prefix) overrides where; by default <prefix>/lib/python3/dist-packages, which
# Debian's /usr/bin/python3 reads for /usr, and lib/python3.X/dist-packages for /usr/local, which
# is where it reads there.
set(NUMAPLACE_PYTHON_DIR "" CACHE PATH "Install the Python package here instead of <prefix>/lib/python3/dist-packages")
set(NUMAPLACE_PYTHON_LIBRARY "" CACHE STRING
    "The library the installed Python package loads (default: the installed libnumaplace.so.0's path; a bare soname searches the system's path)")
find_program(NUMAPLACE_PYTHON3_FOR_INSTALL python3 PATHS /usr/bin NO_DEFAULT_PATH)
set(NUMAPLACE_PYTHON3_VERSION 3)
if(NUMAPLACE_PYTHON3_FOR_INSTALL)
  execute_process(COMMAND ${NUMAPLACE_PYTHON3_FOR_INSTALL} -c "import sys; print('%d.%d' % sys.version_info[:2])"
                  OUTPUT_VARIABLE NUMAPLACE_PYTHON3_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
file(GLOB NUMAPLACE_PYTHON_SOURCES CONFIGURE_DEPENDS python/numaplace/*.py)
# The same package in the build tree (build/python), its _config.py naming the built library:
# what the python.* tests import.
foreach(source IN LISTS NUMAPLACE_PYTHON_SOURCES)
  get_filename_component(name ${source} NAME)
  configure_file(${source} ${PROJECT_BINARY_DIR}/python/numaplace/${name} COPYONLY)
endforeach()
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/python/numaplace/_config.py CONTENT
"# Generated by CMake (cmake/Install.cmake) for the build tree.
VERSION = \"${PROJECT_VERSION}\"
LIBRARY = \"$<TARGET_FILE:numaplace>\"
LIBRARY_RELATIVE = None
")

include(${CMAKE_CURRENT_LIST_DIR}/PythonCellWords.cmake)

list(FILTER NUMAPLACE_PYTHON_SOURCES EXCLUDE REGEX "/_config\\.py$")
list(JOIN NUMAPLACE_PYTHON_SOURCES "\" \"" NUMAPLACE_PYTHON_SOURCES_QUOTED)
set(NUMAPLACE_PYTHON_SOURCES_QUOTED "\"${NUMAPLACE_PYTHON_SOURCES_QUOTED}\"")
configure_file(cmake/InstallExtras.cmake.in ${PROJECT_BINARY_DIR}/InstallExtras.cmake @ONLY)
install(SCRIPT ${PROJECT_BINARY_DIR}/InstallExtras.cmake ALL_COMPONENTS)
