# SPDX-License-Identifier: Apache-2.0
# bench/dlsym_overhead: the cost of one dlsym lookup without and under the
# shim (bench/README.md). Paths of libflopcount.so and of the no-op BLAS
# (bench/shim.cmake) are compiled in; --shim and --blas override them.
add_executable(dlsym_overhead ${CMAKE_CURRENT_LIST_DIR}/dlsym_overhead.c)
target_link_libraries(dlsym_overhead PRIVATE fc_analysis ${CMAKE_DL_LIBS})
target_compile_definitions(dlsym_overhead PRIVATE
  FC_BENCH_SHIM="$<TARGET_FILE:flopcount>" FC_BENCH_BLAS="$<TARGET_FILE:fc_noop_blas>")
add_dependencies(dlsym_overhead flopcount fc_noop_blas)
set_target_properties(dlsym_overhead PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
