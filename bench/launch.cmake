# SPDX-License-Identifier: Apache-2.0
# bench/launch_overhead: what the launch hooks add to a kernel launch and a
# kernel registration, against a runtime whose entry points return at once
# (bench/noop_cudart.c); its --register-only mode is bench/footprint.py's
# register10k case (bench/README.md).
add_library(fc_noop_cudart SHARED ${CMAKE_CURRENT_LIST_DIR}/noop_cudart.c)
target_include_directories(fc_noop_cudart PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
add_executable(launch_overhead ${CMAKE_CURRENT_LIST_DIR}/launch_overhead.c)
target_include_directories(launch_overhead PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
target_link_libraries(launch_overhead PRIVATE fc_noop_cudart fc_analysis)
target_compile_definitions(launch_overhead PRIVATE FC_BENCH_SHIM="$<TARGET_FILE:flopcount>")
add_dependencies(launch_overhead flopcount)
set_target_properties(launch_overhead fc_noop_cudart PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
