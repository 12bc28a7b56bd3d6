# SPDX-License-Identifier: Apache-2.0
# What a user reads is true and plain (issue 38): marked loops without a
# backward, evaluation passes in the summary and the report alike, silence
# from processes that run nothing, configs read at their class's defaults
# (test_clarity.py, from the user's side: the program, the config, the
# command; figures by hand in its header).
find_library(FC_CLARITY_BLAS NAMES blas PATHS /usr/lib/x86_64-linux-gnu REQUIRED)
add_executable(fixture_fwd_loop ${CMAKE_CURRENT_LIST_DIR}/fixture_fwd_loop.c)
target_link_libraries(fixture_fwd_loop PRIVATE ${FC_CLARITY_BLAS} ${CMAKE_DL_LIBS})
add_test(NAME clarity
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_clarity.py "${FC_PRELOAD}"
          $<TARGET_FILE:flopcount_cli> $<TARGET_FILE:fixture_fwd_loop>
          ${CMAKE_SOURCE_DIR}/tests/data/configs ${CMAKE_CURRENT_BINARY_DIR}/work-clarity
          ForwardOnly Silence Configs)
set_tests_properties(clarity PROPERTIES TIMEOUT 300 ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
# cuDNN-only runs on the fake cuDNN of tests/cudnn (its programs and libraries)
add_test(NAME clarity_cudnn
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_clarity.py "${FC_PRELOAD}"
          $<TARGET_FILE:flopcount_cli> $<TARGET_FILE:fixture_fwd_loop>
          ${CMAKE_SOURCE_DIR}/tests/data/configs ${CMAKE_CURRENT_BINARY_DIR}/work-clarity Cudnn)
set_tests_properties(clarity_cudnn PROPERTIES TIMEOUT 300 ENVIRONMENT
  "FC_CUDNN_DIR=${CMAKE_BINARY_DIR}/fake-cudnn;FC_CUDNN_FAKE=$<TARGET_FILE:test_cudnn_fake>;FC_CUDNN_GRAPHS=$<TARGET_FILE:test_cudnn_graphs>;FC_CUDNN_CUPTI=$<TARGET_FILE:fc_fake_cupti>")
