# SPDX-License-Identifier: Apache-2.0
# Live figures where users look: the Python module `flopcount` (python/)
# and FLOPCOUNT_PROMETHEUS (shim/report/prometheus.c), on real PyTorch CPU
# training runs; the snapshot struct's compatibility with version-1
# callers. The Prometheus test starts Debian's prometheus-node-exporter on
# 127.0.0.1 and runs promtool (scripts/deps.sh installs both).
set(FC_LIVE_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-live)
set(FC_LIVE_PYDIR ${CMAKE_BINARY_DIR}/lib/flopcount/python)

add_executable(test_snapshot_abi ${CMAKE_CURRENT_LIST_DIR}/test_snapshot_abi.c)
target_include_directories(test_snapshot_abi PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(test_snapshot_abi PRIVATE cmocka ${FC_LIBBLAS} ${CMAKE_DL_LIBS})
add_test(NAME live_snapshot_abi COMMAND test_snapshot_abi)
set_tests_properties(live_snapshot_abi PROPERTIES ENVIRONMENT
  "LD_PRELOAD=${FC_PRELOAD};RANK=5;FLOPCOUNT_QUIET=1;FLOPCOUNT_OUTPUT=;ASAN_OPTIONS=detect_leaks=0")

add_test(NAME live_python_module
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_python_module.py
          $<TARGET_FILE:flopcount> $<TARGET_FILE:flopcount_cli> ${FC_LIVE_PYDIR} ${CMAKE_COMMAND}
          ${CMAKE_BINARY_DIR} ${FC_LIVE_WORK}/python)
set_tests_properties(live_python_module PROPERTIES LABELS torch TIMEOUT 600)

add_executable(fixture_gemm_loop ${CMAKE_CURRENT_LIST_DIR}/fixture_gemm_loop.c)
target_include_directories(fixture_gemm_loop PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(fixture_gemm_loop PRIVATE ${FC_LIBBLAS} ${CMAKE_DL_LIBS})

# node-exporter scraping two ranks of a PyTorch training, and `flopcount run
# --prometheus`: torch (no sanitizer run)
add_test(NAME live_prometheus
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_prometheus.py
          $<TARGET_FILE:flopcount> $<TARGET_FILE:flopcount_cli> ${FC_LIVE_PYDIR}
          ${CMAKE_BINARY_DIR}/tests/core/blas_calls ${FC_LIVE_WORK}/prometheus
          Prometheus.test_node_exporter_scrapes_two_ranks Prometheus.test_flopcount_run_option)
set_tests_properties(live_prometheus PROPERTIES LABELS torch TIMEOUT 600)
# The writer on the CPU BLAS (bad values, no file without GEMMs, promtool),
# which the sanitizer builds run too; the dashboard's series.
add_test(NAME live_prometheus_blas
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_prometheus.py
          "${FC_PRELOAD}" $<TARGET_FILE:flopcount_cli> ${FC_LIVE_PYDIR}
          ${CMAKE_BINARY_DIR}/tests/core/blas_calls ${FC_LIVE_WORK}/prometheus-blas
          Prometheus.test_periodic_and_final_under_load Prometheus.test_bad_directory Prometheus.test_bad_period_keeps_the_default
          Prometheus.test_process_without_gemm_writes_nothing Prometheus.test_dashboard_reads_what_is_written)
set_tests_properties(live_prometheus_blas PROPERTIES TIMEOUT 300
  ENVIRONMENT "FC_GEMM_LOOP=$<TARGET_FILE:fixture_gemm_loop>")

# Counted fused attention on the live line (" attn N%") and in the
# Prometheus file (flopcount_attention_*_total by source), from hand-made
# shapes; promtool checks the text when it is installed.
file(MAKE_DIRECTORY ${FC_LIVE_WORK})
add_executable(test_attention_figures ${CMAKE_CURRENT_LIST_DIR}/test_attention_figures.c
               ${CMAKE_SOURCE_DIR}/shim/report/live_attention.c
               ${CMAKE_SOURCE_DIR}/shim/report/prom_attention.c
               ${CMAKE_SOURCE_DIR}/shim/count/attn_table.c ${CMAKE_SOURCE_DIR}/shim/core/lazymem.c)
target_include_directories(test_attention_figures PRIVATE ${CMAKE_SOURCE_DIR}/shim
                           ${CMAKE_SOURCE_DIR}/shim/report ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(test_attention_figures PRIVATE cmocka fc_analysis)
add_test(NAME live_attention_figures
  COMMAND sh -c "\"$1\" \"$2\" && { ! command -v promtool >/dev/null || promtool check metrics < \"$2\"; }"
          sh $<TARGET_FILE:test_attention_figures> ${FC_LIVE_WORK}/attention.prom)
# The live line's rate unit (analysis/rate.c): GFLOP/s, TFLOP/s, PFLOP/s at
# their boundaries (issue 28).
add_executable(test_rate ${CMAKE_CURRENT_LIST_DIR}/test_rate.c)
target_link_libraries(test_rate PRIVATE fc_analysis cmocka)
add_test(NAME live_rate_units COMMAND test_rate)
# What a new user met first (issue 28): missing --prometheus/--tensorboard
# directories made or refused with the reason, the live line's unit, one
# FLOPCOUNT_OUTPUT holding the whole job under plain LD_PRELOAD (joined at
# each writer's end), a SIGKILLed writer between two others.
add_test(NAME live_frictions
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_frictions.py "${FC_PRELOAD}"
          $<TARGET_FILE:flopcount_cli> $<TARGET_FILE:fixture_gemm_loop> ${FC_LIVE_WORK}/frictions)
set_tests_properties(live_frictions PROPERTIES TIMEOUT 300)
