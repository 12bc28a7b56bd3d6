# SPDX-License-Identifier: Apache-2.0
# The run's figures (analysis/run/run_figures.h): the rules by hand, and one
# run's HFU, MFU, recompute and HFU at the mix identical on every path.
add_executable(test_run_figures ${CMAKE_CURRENT_LIST_DIR}/test_run_figures.c)
target_link_libraries(test_run_figures PRIVATE fc_analysis cmocka)
add_test(NAME run_figures COMMAND test_run_figures)

add_test(NAME run_figures_identity
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/figures_identity.py
          ${FC_PRELOAD} $<TARGET_FILE:flopcount_cli> ${CMAKE_CURRENT_BINARY_DIR}/work-run/identity)
if(FLOPCOUNT_SANITIZE STREQUAL "address")
  # The program is a Python interpreter (as report_stats_identity's).
  set_tests_properties(run_figures_identity PROPERTIES ENVIRONMENT
                       "ASAN_OPTIONS=detect_leaks=0:halt_on_error=1")
endif()

# The sections' tables drive their writers and their reader
# (analysis/run/schema_*.h): a key written without a reader fails.
add_executable(test_schema ${CMAKE_CURRENT_LIST_DIR}/test_schema.c)
target_link_libraries(test_schema PRIVATE fc_analysis_io cmocka)
add_test(NAME schema_sections COMMAND test_schema)

# The same for the dtype mix's members and the GPU-side sections.
add_executable(test_schema_gpu ${CMAKE_CURRENT_LIST_DIR}/test_schema_gpu.c)
target_link_libraries(test_schema_gpu PRIVATE fc_analysis_io cmocka)
add_test(NAME schema_gpu_sections COMMAND test_schema_gpu)

# ... the lists' entries ("iterations.list", "shapes") and the sections
# written as one object, by both readers (the tree-free one included).
add_executable(test_schema_lists ${CMAKE_CURRENT_LIST_DIR}/test_schema_lists.c)
target_link_libraries(test_schema_lists PRIVATE fc_analysis_io cmocka)
add_test(NAME schema_lists COMMAND test_schema_lists)
