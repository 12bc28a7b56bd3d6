# SPDX-License-Identifier: Apache-2.0
# FLOPCOUNT_TENSORBOARD (shim/report/tensorboard*.c, issue 28): event files
# read back with protoc + python3-protobuf (Debian's) and a CRC32C of the
# test's own, the scalars against the JSON report and the hand count of
# fixture_tb_loop.c, a SIGKILLed writer, the run folders, a directory that
# cannot be made. The PyTorch case (formula MFU beside the live line) is
# labelled torch.
add_executable(fixture_tb_loop ${CMAKE_CURRENT_LIST_DIR}/fixture_tb_loop.c)
target_include_directories(fixture_tb_loop PRIVATE ${CMAKE_SOURCE_DIR}/tests/live)
target_link_libraries(fixture_tb_loop PRIVATE ${FC_LIBBLAS} ${CMAKE_DL_LIBS})
set(FC_TB_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-tensorboard)
add_test(NAME tensorboard_events
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_tensorboard.py "${FC_PRELOAD}"
          $<TARGET_FILE:fixture_tb_loop> ${CMAKE_CURRENT_LIST_DIR}/event.proto ${FC_TB_WORK}/c)
set(fc_tb_env "")
if(FLOPCOUNT_SANITIZE STREQUAL "thread")
  # as the process tests (tests/procs/procs.cmake says why): call sites off,
  # the signal handler's report (the SIGTERM case) suppressed
  set(fc_tb_env "FLOPCOUNT_CALLSITES=0"
      "TSAN_OPTIONS=halt_on_error=1:die_after_fork=0:suppressions=${CMAKE_SOURCE_DIR}/scripts/ci/tsan.supp")
endif()
set_tests_properties(tensorboard_events PROPERTIES TIMEOUT 300 ENVIRONMENT "${fc_tb_env}")
add_test(NAME tensorboard_torch
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_tensorboard.py "${FC_PRELOAD}"
          $<TARGET_FILE:fixture_tb_loop> ${CMAKE_CURRENT_LIST_DIR}/event.proto ${FC_TB_WORK}/torch
          $<TARGET_FILE:flopcount_cli> ${CMAKE_SOURCE_DIR}/scripts/demo/tiny_gpt.py)
set_tests_properties(tensorboard_torch PROPERTIES LABELS torch TIMEOUT 900)
