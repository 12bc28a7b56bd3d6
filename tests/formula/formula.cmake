# SPDX-License-Identifier: Apache-2.0
# Analytic FLOPs (issue 3, part 1): the formula, the HF config reader, the
# shared model flags, and the 'flopcount formula' command line.
set(FC_FORMULA_CONFIGS ${FC_TESTS_DIR}/data/configs)

add_executable(test_formula ${CMAKE_CURRENT_LIST_DIR}/test_formula.c ${CMAKE_SOURCE_DIR}/tools/model_flags.c)
target_link_libraries(test_formula PRIVATE fc_analysis_io fc_analysis cmocka m)
add_test(NAME formula_units COMMAND test_formula)

# The 2025-26 layer kinds, hand-derived vectors (issue 27).
add_executable(test_formula_kinds ${CMAKE_CURRENT_LIST_DIR}/test_formula_kinds.c)
target_link_libraries(test_formula_kinds PRIVATE fc_analysis cmocka)
add_test(NAME formula_kinds COMMAND test_formula_kinds)

add_executable(test_hfconfig ${CMAKE_CURRENT_LIST_DIR}/test_hfconfig.c)
target_link_libraries(test_hfconfig PRIVATE fc_analysis_io fc_analysis cmocka)
target_compile_definitions(test_hfconfig PRIVATE FC_TEST_CONFIGS="${FC_FORMULA_CONFIGS}")
add_test(NAME formula_hfconfig COMMAND test_hfconfig)

# The published configs of the 2025-26 families, and the refusals.
add_executable(test_hfconfig_kinds ${CMAKE_CURRENT_LIST_DIR}/test_hfconfig_kinds.c)
target_link_libraries(test_hfconfig_kinds PRIVATE fc_analysis_io fc_analysis cmocka)
target_compile_definitions(test_hfconfig_kinds PRIVATE FC_TEST_CONFIGS="${FC_FORMULA_CONFIGS}")
add_test(NAME formula_hfconfig_kinds COMMAND test_hfconfig_kinds)

# Configs users brought beyond the shipped ones: each once counted wrong.
add_executable(test_hfconfig_users ${CMAKE_CURRENT_LIST_DIR}/test_hfconfig_users.c)
target_link_libraries(test_hfconfig_users PRIVATE fc_analysis_io fc_analysis cmocka)
target_compile_definitions(test_hfconfig_users PRIVATE FC_TEST_CONFIGS="${FC_FORMULA_CONFIGS}")
add_test(NAME formula_hfconfig_users COMMAND test_hfconfig_users)

# Against Megatron-LM's num_floating_point_operations, difference by term.
add_executable(test_formula_peer ${CMAKE_CURRENT_LIST_DIR}/test_formula_peer.c)
target_link_libraries(test_formula_peer PRIVATE fc_analysis_io fc_analysis cmocka)
target_compile_definitions(test_formula_peer PRIVATE FC_TEST_CONFIGS="${FC_FORMULA_CONFIGS}")
add_test(NAME formula_peer COMMAND test_formula_peer)

# The script reads the JSON with Python's json module (exact big integers).
# /usr/bin/python3 starts in 0.1 s; a pyenv shim first on PATH takes 1.5 s.
if(EXISTS /usr/bin/python3)
  set(FC_FORMULA_PY /usr/bin/python3)
else()
  find_program(FC_FORMULA_PY python3 REQUIRED)
endif()
add_test(NAME formula_cli
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/formula_cli.sh $<TARGET_FILE:flopcount_cli>
          ${FC_FORMULA_CONFIGS} ${CMAKE_CURRENT_BINARY_DIR}/work-formula-cli ${FC_FORMULA_PY})
