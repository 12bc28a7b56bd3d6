# SPDX-License-Identifier: Apache-2.0
# Core of the shim on the CPU BLAS, the report writer, `flopcount run`, and
# the issue-2 PyTorch checks. Python drivers run under /usr/bin/python3 (the
# interpreter with Debian's torch), never the python3 first on PATH.
find_library(FC_LIBBLAS NAMES blas PATHS /usr/lib/x86_64-linux-gnu REQUIRED)
set(FC_PY /usr/bin/python3)
set(FC_CORE_DIR ${CMAKE_BINARY_DIR}/tests/core)

add_executable(blas_calls ${CMAKE_CURRENT_LIST_DIR}/blas_calls.c)
target_link_libraries(blas_calls PRIVATE ${FC_LIBBLAS})
add_library(local_plugin SHARED ${CMAKE_CURRENT_LIST_DIR}/local_lib.c)
target_link_libraries(local_plugin PRIVATE ${FC_LIBBLAS})
add_executable(local_main ${CMAKE_CURRENT_LIST_DIR}/local_main.c)
target_link_libraries(local_main PRIVATE ${CMAKE_DL_LIBS})
add_library(early_lib SHARED ${CMAKE_CURRENT_LIST_DIR}/early_lib.c)
target_link_libraries(early_lib PRIVATE ${FC_LIBBLAS})
add_executable(early_main ${CMAKE_CURRENT_LIST_DIR}/early_main.c)
target_link_libraries(early_main PRIVATE early_lib)
foreach(t blas_calls local_plugin local_main early_lib early_main)
  set_target_properties(${t} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${FC_CORE_DIR}
                                        LIBRARY_OUTPUT_DIRECTORY ${FC_CORE_DIR})
endforeach()

add_executable(test_core_units ${CMAKE_CURRENT_LIST_DIR}/test_core_units.c)
target_link_libraries(test_core_units PRIVATE fc_analysis cmocka)
add_test(NAME core_units COMMAND test_core_units)

add_test(NAME core_blas_hooks
  COMMAND ${FC_PY} ${CMAKE_CURRENT_LIST_DIR}/test_core.py ${FC_CORE_DIR}
          $<TARGET_FILE:flopcount> $<TARGET_FILE:flopcount_cli> ${CMAKE_CURRENT_BINARY_DIR}/work-core)
set(fc_core_env "FC_SANITIZER_RUNTIME=${FC_SANITIZER_RUNTIME}")
if(FLOPCOUNT_SANITIZE STREQUAL "address")
  # A fork child's exit-time leak check (LeakSanitizer) can deadlock on the
  # ASan allocator's lock when another thread of the parent (the shim's
  # drainer, starting) was inside the allocator at fork: GCC 12's ASan
  # allocator is not fork-safe the way glibc's malloc is.
  list(APPEND fc_core_env "ASAN_OPTIONS=detect_leaks=0:halt_on_error=1")
endif()
set_tests_properties(core_blas_hooks PROPERTIES ENVIRONMENT "${fc_core_env}" TIMEOUT 300)

add_test(NAME torch_gemm_counts
  COMMAND ${FC_PY} ${CMAKE_CURRENT_LIST_DIR}/gemm_counts.py
          $<TARGET_FILE:flopcount> ${CMAKE_CURRENT_BINARY_DIR}/work-torch-gemm)
set_tests_properties(torch_gemm_counts PROPERTIES LABELS torch)
