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

add_test(NAME live_prometheus
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_prometheus.py
          $<TARGET_FILE:flopcount> $<TARGET_FILE:flopcount_cli> ${FC_LIVE_PYDIR}
          ${CMAKE_BINARY_DIR}/tests/core/blas_calls ${FC_LIVE_WORK}/prometheus)
set_tests_properties(live_prometheus PROPERTIES LABELS torch TIMEOUT 600)
