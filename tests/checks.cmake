# Checks of the built tree that need neither GoogleTest nor the test data, labelled `checks`.
set(NUMAPLACE_CHECKS ${PROJECT_SOURCE_DIR}/tests/checks)

# libnumaplace.so exports numaplace.h's np_* functions and nothing else.
add_test(NAME checks.abi-symbols
         COMMAND sh ${NUMAPLACE_CHECKS}/abi_symbols.sh $<TARGET_FILE:numaplace> ${PROJECT_SOURCE_DIR}/plugin/include/numaplace.h)
set_tests_properties(checks.abi-symbols PROPERTIES LABELS checks TIMEOUT 120)
