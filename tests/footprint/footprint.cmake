# SPDX-License-Identifier: Apache-2.0
# Footprint (issue 20): a process that runs no GEMM maps, clears, walks and
# starts nothing of the shim's - no thread, no libunwind, peak RSS within
# 1 MiB of the bare program's (test_footprint_idle.c). Memory, not time:
# bench/footprint.py measures the time.
find_library(FC_FOOTPRINT_BLAS NAMES blas PATHS /usr/lib/x86_64-linux-gnu REQUIRED)
add_executable(fixture_idle ${CMAKE_CURRENT_LIST_DIR}/fixture_idle.c)
target_link_libraries(fixture_idle PRIVATE ${FC_FOOTPRINT_BLAS})
add_executable(test_footprint_idle ${CMAKE_CURRENT_LIST_DIR}/test_footprint_idle.c)
add_test(NAME footprint_idle
  COMMAND test_footprint_idle $<TARGET_FILE:fixture_idle> "${FC_PRELOAD}"
          ${CMAKE_CURRENT_BINARY_DIR}/work-footprint)
set(fc_footprint_env "")
if(FLOPCOUNT_SANITIZE STREQUAL "thread")
  # TSan and libunwind clash when a thread ends (tests/robust/robust.cmake)
  set(fc_footprint_env "TSAN_OPTIONS=halt_on_error=1:die_after_fork=0:suppressions=${CMAKE_SOURCE_DIR}/scripts/ci/tsan.supp")
endif()
if(fc_footprint_env)
  set_tests_properties(footprint_idle PROPERTIES ENVIRONMENT "${fc_footprint_env}")
endif()
