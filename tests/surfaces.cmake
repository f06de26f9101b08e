# Tests of the library's surfaces beyond the unit tests: the INSTALLED library used
# from C and C++ through pkg-config, and the Python binding with Debian's python3.

add_test(NAME install.pkg-config
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/install/install_test.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                 ${NUMAPLACE_SHARED_DIR}/samples/libvirt/caps-2cell.xml ${PROJECT_SOURCE_DIR}/examples/guest-8vcpu-4g.xml)
set_tests_properties(install.pkg-config PROPERTIES LABELS install TIMEOUT 300)

find_program(NUMAPLACE_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NUMAPLACE_PYTHON3)
  add_test(NAME python.binding
           COMMAND ${CMAKE_COMMAND} -E env NUMAPLACE_LIBRARY=$<TARGET_FILE:numaplace>
                   NUMAPLACE_SHARED_DIR=${NUMAPLACE_SHARED_DIR} PYTHONPATH=${PROJECT_SOURCE_DIR}/python
                   PYTHONDONTWRITEBYTECODE=1
                   ${NUMAPLACE_PYTHON3} -m unittest discover -s ${PROJECT_SOURCE_DIR}/python/tests -v)
  set_tests_properties(python.binding PROPERTIES LABELS python TIMEOUT 300)
else()
  message(WARNING "No /usr/bin/python3: the Python binding is not tested")
endif()
