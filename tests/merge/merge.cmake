# SPDX-License-Identifier: Apache-2.0
# Report reader, 'flopcount report' and 'flopcount merge' (issues 4 and 6).
add_executable(test_report_read ${CMAKE_CURRENT_LIST_DIR}/test_report_read.c)
target_link_libraries(test_report_read PRIVATE fc_analysis_io cmocka)
add_test(NAME report_read COMMAND test_report_read)
# Counted fused attention: "attention", "uncounted", totals.attention_*,
# attention_excess_flops, the forward profile's attention entries.
add_executable(test_report_read_attn ${CMAKE_CURRENT_LIST_DIR}/test_report_read_attn.c)
target_link_libraries(test_report_read_attn PRIVATE fc_analysis_io cmocka)
add_test(NAME report_read_attn COMMAND test_report_read_attn)
# The fast path of shapes and iterations.list against the json-c reader.
add_executable(test_report_fast ${CMAKE_CURRENT_LIST_DIR}/test_report_fast.c)
target_link_libraries(test_report_fast PRIVATE fc_analysis_io cmocka)
add_test(NAME report_fast COMMAND test_report_fast)
# The sum of N runs (analysis/run/run_sum.h) that merge and job share.
add_executable(test_run_sum ${CMAKE_CURRENT_LIST_DIR}/test_run_sum.c)
target_link_libraries(test_run_sum PRIVATE fc_analysis cmocka)
add_test(NAME run_sum COMMAND test_run_sum)

# Synthetic per-rank reports (also used by bench/merge_bench.c).
add_executable(merge_gen ${CMAKE_CURRENT_LIST_DIR}/merge_gen.c)
target_link_libraries(merge_gen PRIVATE fc_analysis)

set(FC_MERGE_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-merge)
foreach(scenario ranks1024 outlier stages noiter aligned errors)
  add_test(NAME merge_${scenario}
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/merge_synthetic.sh ${scenario}
            $<TARGET_FILE:merge_gen> $<TARGET_FILE:flopcount_cli> ${FC_MERGE_WORK}
            ${FC_TESTS_DIR}/data/reports)
endforeach()

# Real multi-rank runs: torch.distributed DDP over gloo started the way
# torchrun starts ranks (Debian's torch, /usr/bin/python3), and Open MPI.
add_test(NAME merge_ddp_2ranks
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/dist/run_ddp.py 2
          $<TARGET_FILE:flopcount> $<TARGET_FILE:flopcount_cli> ${FC_MERGE_WORK})
add_test(NAME merge_ddp_4ranks_uneven
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/dist/run_ddp.py 4
          $<TARGET_FILE:flopcount> $<TARGET_FILE:flopcount_cli> ${FC_MERGE_WORK} --batch-last 12)
set_tests_properties(merge_ddp_2ranks merge_ddp_4ranks_uneven PROPERTIES LABELS torch TIMEOUT 200)
add_test(NAME merge_mpirun
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/merge_mpirun.sh "${FC_PRELOAD}"
          $<TARGET_FILE:flopcount_cli> ${FC_MERGE_WORK} ${CMAKE_CURRENT_LIST_DIR}/dist)
set_tests_properties(merge_mpirun PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 150)
if(FLOPCOUNT_SANITIZE STREQUAL "address")
  # The ranks are Python interpreters, whose own allocations LeakSanitizer
  # reports at exit; the shim's memory is checked by the C tests.
  set_tests_properties(merge_mpirun PROPERTIES ENVIRONMENT
                       "ASAN_OPTIONS=detect_leaks=0:halt_on_error=1")
endif()

# 'flopcount report': measured against the formula, the gap explained.
foreach(scenario exact flash unexplained recompute ranks split guessed noiter errors)
  add_test(NAME report_${scenario}
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/merge_report.sh ${scenario}
            $<TARGET_FILE:merge_gen> $<TARGET_FILE:flopcount_cli> ${FC_MERGE_WORK})
endforeach()
add_test(NAME report_tiny_gpt
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/dist/report_tiny_gpt.py
          $<TARGET_FILE:flopcount> $<TARGET_FILE:flopcount_cli> ${FC_MERGE_WORK}/tiny-gpt
          ${CMAKE_SOURCE_DIR}/scripts/demo/tiny_gpt.py)
set_tests_properties(report_tiny_gpt PROPERTIES LABELS torch TIMEOUT 200)

# One rank's medians are identical in its own report, `report` and `merge`
# (analysis/stats.h), on an even number of steady iterations.
add_test(NAME report_stats_identity
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/stats_identity.py
          ${FC_PRELOAD} $<TARGET_FILE:flopcount_cli> ${FC_MERGE_WORK}/stats-identity)
if(FLOPCOUNT_SANITIZE STREQUAL "address")
  # The program is a Python interpreter (as merge_mpirun's ranks).
  set_tests_properties(report_stats_identity PROPERTIES ENVIRONMENT
                       "ASAN_OPTIONS=detect_leaks=0:halt_on_error=1")
endif()
