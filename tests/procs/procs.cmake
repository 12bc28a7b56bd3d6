# SPDX-License-Identifier: Apache-2.0
# Processes (issue 10): one report per job through wrappers, launchers, exec
# and fork, under 'flopcount run' and with LD_PRELOAD and one output path;
# and never a hung fork child. C programs here; PyTorch runs labelled torch.
set(FC_PROCS_DIR ${CMAKE_BINARY_DIR}/tests/procs)
set(FC_PROCS_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-procs)

add_executable(procs_gemm ${CMAKE_CURRENT_LIST_DIR}/procs_gemm.c)
target_link_libraries(procs_gemm PRIVATE ${FC_LIBBLAS})
add_library(fc_procs_plugin SHARED ${CMAKE_CURRENT_LIST_DIR}/fixture_gemm_plugin.c)
target_link_libraries(fc_procs_plugin PRIVATE ${FC_LIBBLAS})
add_executable(fork_race ${CMAKE_CURRENT_LIST_DIR}/fork_race.c)
target_link_libraries(fork_race PRIVATE pthread ${CMAKE_DL_LIBS})
foreach(t procs_gemm fc_procs_plugin fork_race)
  set_target_properties(${t} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${FC_PROCS_DIR}
                                        LIBRARY_OUTPUT_DIRECTORY ${FC_PROCS_DIR})
endforeach()

set(fc_procs_env "FC_SANITIZER_RUNTIME=${FC_SANITIZER_RUNTIME}")
if(FLOPCOUNT_SANITIZE STREQUAL "address")
  # sh, timeout and bash are not instrumented: LeakSanitizer has nothing to
  # say about them, and the shim's memory is checked by the C tests.
  # handle_abort: a child fork_race finds hung is sent SIGABRT first, so
  # that its stack is printed.
  list(APPEND fc_procs_env "ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:handle_abort=1")
elseif(FLOPCOUNT_SANITIZE STREQUAL "thread")
  # As the robust tests (tests/robust/robust.cmake says why): call sites off,
  # drainer threads in fork children allowed, the signal-handler report
  # suppressed (a SIGTERM landing in sleep()).
  list(APPEND fc_procs_env "FLOPCOUNT_CALLSITES=0"
       "TSAN_OPTIONS=halt_on_error=1:die_after_fork=0:suppressions=${CMAKE_SOURCE_DIR}/scripts/ci/tsan.supp")
endif()
add_test(NAME procs_tree
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_procs.py ${FC_PROCS_DIR}
          $<TARGET_FILE:flopcount> $<TARGET_FILE:flopcount_cli> ${FC_PROCS_WORK}/tree)
set_tests_properties(procs_tree PROPERTIES ENVIRONMENT "${fc_procs_env}" TIMEOUT 600)

# A thread makes its first GEMMs while the main thread forks: no child may
# hang (each bounded by 20 s). C: another thread holds the loader's
# dl_iterate_phdr lock most of the time, so a child that took it (to
# resolve cgemm_, or to unwind) would hang; PyTorch: the natural case. The
# counts of forks keep the tests to seconds (pinned to one CPU too: 4 x 40
# and 3 x 45 children without a hang, 10 s, 2026-12-01).
add_test(NAME procs_fork_race
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/fork_race.sh c ${FC_PROCS_DIR} "${FC_PRELOAD}" 4 40)
set_tests_properties(procs_fork_race PROPERTIES ENVIRONMENT "${fc_procs_env}" TIMEOUT 900)
add_test(NAME procs_fork_race_torch
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/fork_race.sh torch ${CMAKE_CURRENT_LIST_DIR}/fork_race.py
          "${FC_PRELOAD}" 3 45)
set_tests_properties(procs_fork_race_torch PROPERTIES LABELS torch TIMEOUT 900)

# Real PyTorch CPU training (train.py, hand-counted) behind wrappers, in a
# row, at once, with a fork child and DataLoader workers, two gloo DDP ranks
# from a launcher, SIGTERM to flopcount run.
add_test(NAME procs_torch
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_procs_torch.py
          $<TARGET_FILE:flopcount> $<TARGET_FILE:flopcount_cli> ${FC_PROCS_WORK}/torch
          ${FC_TESTS_DIR}/merge/dist/ddp_train.py)
set_tests_properties(procs_torch PROPERTIES LABELS torch TIMEOUT 900)
