# SPDX-License-Identifier: Apache-2.0
# bench/shim_overhead: the shim's cost per intercepted call against a no-op
# BLAS, compared with a naive per-call logger (bench/README.md). The paths
# of the no-op BLAS and of libflopcount.so are compiled in for the build
# tree; --blas and --shim override them.
add_library(fc_noop_blas SHARED ${CMAKE_CURRENT_LIST_DIR}/noop_blas.c)
add_executable(shim_overhead ${CMAKE_CURRENT_LIST_DIR}/shim_overhead.c
                             ${CMAKE_CURRENT_LIST_DIR}/naive_logger.c)
target_link_libraries(shim_overhead PRIVATE fc_analysis ${CMAKE_DL_LIBS} pthread)
target_compile_definitions(shim_overhead PRIVATE
  FC_BENCH_SHIM="$<TARGET_FILE:flopcount>" FC_BENCH_BLAS="$<TARGET_FILE:fc_noop_blas>")
add_dependencies(shim_overhead flopcount fc_noop_blas fc_noop_cublas)
# --api cublas: a no-op libcublas.so.13 in a directory of its own.
add_library(fc_noop_cublas SHARED ${CMAKE_CURRENT_LIST_DIR}/noop_cublas.c)
target_include_directories(fc_noop_cublas PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
set_target_properties(fc_noop_cublas PROPERTIES OUTPUT_NAME cublas SOVERSION 13
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench/noop_cublas)
target_compile_definitions(shim_overhead PRIVATE FC_BENCH_CUBLAS="$<TARGET_FILE:fc_noop_cublas>")
set_target_properties(shim_overhead fc_noop_blas PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
