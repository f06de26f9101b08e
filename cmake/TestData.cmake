# SPDX-License-Identifier: LGPL-2.1-or-later
# The data the tests and benchmarks read: tests/data/ of this tree (conformance/ vectors, corpus/,
# samples/; where each file comes from: tests/data/PROVENANCE). Laid out at configure time as
# NUMAPLACE_TEST_DATA_DIR (build/test-data/): every file of tests/data linked there, and each
# NAME.xz decompressed there as NAME (the larger vector files are kept compressed in git).
# -DNUMAPLACE_SHARED_DIR=PATH tests with another directory of the same layout instead (for
# example a newer copy of the vectors).
set(NUMAPLACE_SHARED_DIR "" CACHE PATH
    "Test with this directory (conformance/, corpus/, samples/) instead of the tree's tests/data")
set(NUMAPLACE_TEST_DATA_SOURCE ${PROJECT_SOURCE_DIR}/tests/data)

if(NUMAPLACE_SHARED_DIR)
  get_filename_component(NUMAPLACE_TEST_DATA_DIR "${NUMAPLACE_SHARED_DIR}" ABSOLUTE)
  if(NOT EXISTS "${NUMAPLACE_TEST_DATA_DIR}/conformance/SCHEMA.md")
    message(FATAL_ERROR "NUMAPLACE_SHARED_DIR=${NUMAPLACE_SHARED_DIR} has no conformance/SCHEMA.md: "
                        "it must be laid out like tests/data")
  endif()
  return()
endif()

set(NUMAPLACE_TEST_DATA_DIR ${PROJECT_BINARY_DIR}/test-data)
find_program(NUMAPLACE_XZ xz)
if(NOT NUMAPLACE_XZ)
  message(FATAL_ERROR "xz (Debian: xz-utils) is needed to decompress tests/data/**/*.xz")
endif()
file(GLOB_RECURSE np_data_files RELATIVE ${NUMAPLACE_TEST_DATA_SOURCE} CONFIGURE_DEPENDS
     ${NUMAPLACE_TEST_DATA_SOURCE}/*)
# Laid anew each configure, so that a file removed from tests/data is gone here too.
file(REMOVE_RECURSE ${NUMAPLACE_TEST_DATA_DIR})
foreach(relative IN LISTS np_data_files)
  set(source ${NUMAPLACE_TEST_DATA_SOURCE}/${relative})
  get_filename_component(directory ${NUMAPLACE_TEST_DATA_DIR}/${relative} DIRECTORY)
  file(MAKE_DIRECTORY ${directory})
  if(relative MATCHES "\\.xz$")
    string(REGEX REPLACE "\\.xz$" "" target ${NUMAPLACE_TEST_DATA_DIR}/${relative})
    execute_process(COMMAND ${NUMAPLACE_XZ} -dc ${source} OUTPUT_FILE ${target}.part
                    RESULT_VARIABLE np_xz_result)
    if(NOT np_xz_result EQUAL 0)
      message(FATAL_ERROR "xz -dc ${source} failed (${np_xz_result})")
    endif()
    file(RENAME ${target}.part ${target})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${source})
  else()
    file(CREATE_LINK ${source} ${NUMAPLACE_TEST_DATA_DIR}/${relative} SYMBOLIC)
  endif()
endforeach()
