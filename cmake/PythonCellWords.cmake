# SPDX-License-Identifier: LGPL-2.1-or-later
# numaplace._cellwords (python/numaplace/_cellwords.cpp): the CPython extension that reads Nova's
# host cells in C for numaplace.nova's host cache. Built for /usr/bin/python3 (the interpreter the
# Python package is installed for and tested with) into the build tree's package (build/python/
# numaplace), installed beside the package's modules. Optional: without Python's headers
# (python3-dev) or with NUMAPLACE_PYTHON_CELLWORDS=OFF the package reads the cells in Python, the
# same hosts, slower (docs/nova.md). Sets NUMAPLACE_CELLWORDS_MODULE to the built module's path
# (empty when not built) for the install script.
option(NUMAPLACE_PYTHON_CELLWORDS "Build numaplace._cellwords, the Python package's C reader of Nova's cells" ON)
set(NUMAPLACE_CELLWORDS_MODULE "")
if(NUMAPLACE_PYTHON_CELLWORDS AND NUMAPLACE_PYTHON3_FOR_INSTALL)
  set(Python3_EXECUTABLE ${NUMAPLACE_PYTHON3_FOR_INSTALL})
  find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
  if(Python3_Development.Module_FOUND)
    Python3_add_library(numaplace_cellwords MODULE WITH_SOABI python/numaplace/_cellwords.cpp)
    set_target_properties(numaplace_cellwords PROPERTIES OUTPUT_NAME _cellwords
                          LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/python/numaplace
                          CXX_VISIBILITY_PRESET hidden)
    get_target_property(np_cellwords_suffix numaplace_cellwords SUFFIX)
    set(NUMAPLACE_CELLWORDS_MODULE ${PROJECT_BINARY_DIR}/python/numaplace/_cellwords${np_cellwords_suffix})
  else()
    message(WARNING "No Python 3 development headers (python3-dev): numaplace.nova reads Nova's cells in Python")
  endif()
endif()
