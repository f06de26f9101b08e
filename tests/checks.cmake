# SPDX-License-Identifier: LGPL-2.1-or-later
# Checks of the built tree that need neither GoogleTest nor the test data, labelled `checks` (the
# Debian package build runs these alone: debian/rules), and the install layout (labels install, python).
# Included from the top CMakeLists.txt before tests/, which reuses NUMAPLACE_PYTHON_ENV.

# In the sanitizer build the library carries ASan/UBSan references: Python preloads the runtime
# (and does not report its own interpreter's leaks).
set(NUMAPLACE_PYTHON_ENV)
if(NUMAPLACE_SANITIZE)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    set(asan_runtime_name libclang_rt.asan-x86_64.so)
  else()
    set(asan_runtime_name libasan.so)
  endif()
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${asan_runtime_name}
                  OUTPUT_VARIABLE asan_runtime OUTPUT_STRIP_TRAILING_WHITESPACE)
  list(APPEND NUMAPLACE_PYTHON_ENV LD_PRELOAD=${asan_runtime} ASAN_OPTIONS=detect_leaks=0)
endif()
list(JOIN NUMAPLACE_PYTHON_ENV " " NUMAPLACE_PYTHON_ENV_WORDS)
set(NUMAPLACE_CHECKS ${PROJECT_SOURCE_DIR}/tests/checks)

# One version everywhere (project(VERSION) the only source).
add_test(NAME checks.version
         COMMAND ${CMAKE_COMMAND} -E env "NUMAPLACE_TEST_PYTHON_ENV=${NUMAPLACE_PYTHON_ENV_WORDS}" CC=${CMAKE_C_COMPILER}
                 sh ${NUMAPLACE_CHECKS}/version_check.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}
                 $<TARGET_FILE:numaplace_cli> $<TARGET_FILE:numaplace>)
# libnumaplace.so exports numaplace.h's np_* functions and nothing else.
add_test(NAME checks.abi-symbols
         COMMAND sh ${NUMAPLACE_CHECKS}/abi_symbols.sh $<TARGET_FILE:numaplace> ${PROJECT_SOURCE_DIR}/plugin/capi/include/numaplace.h)
# Man pages and bash completion against the CLI's --help.
add_test(NAME checks.docs
         COMMAND bash ${NUMAPLACE_CHECKS}/docs_check.sh $<TARGET_FILE:numaplace_cli> ${NUMAPLACE_DOCS_DIR})
# Every project source file carries its SPDX licence line; every test data file its provenance.
add_test(NAME checks.spdx COMMAND bash ${PROJECT_SOURCE_DIR}/tools/dev/spdx.sh --check)
add_test(NAME checks.provenance COMMAND bash ${NUMAPLACE_CHECKS}/provenance_check.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(checks.version checks.abi-symbols checks.docs checks.spdx checks.provenance
                     PROPERTIES LABELS checks TIMEOUT 120)

add_test(NAME install.layout
         COMMAND ${CMAKE_COMMAND} -E env "NUMAPLACE_TEST_PYTHON_ENV=${NUMAPLACE_PYTHON_ENV_WORDS}"
                 bash ${NUMAPLACE_CHECKS}/install_layout.sh ${PROJECT_BINARY_DIR})
# Labelled python too: it imports the installed Python package from each install (DESTDIR /usr,
# /usr/local, /opt, a real prefix and a copy of it), loading the library of the same tree.
set_tests_properties(install.layout PROPERTIES LABELS "install;python" TIMEOUT 300)

# The pip package (python/pyproject.toml): sdist and wheel, offline, with Debian's setuptools.
add_test(NAME python.package
         COMMAND ${CMAKE_COMMAND} -E env "NUMAPLACE_TEST_PYTHON_ENV=${NUMAPLACE_PYTHON_ENV_WORDS}"
                 bash ${NUMAPLACE_CHECKS}/python_package.sh ${PROJECT_SOURCE_DIR} $<TARGET_FILE:numaplace>)
set_tests_properties(python.package PROPERTIES LABELS python TIMEOUT 300)
