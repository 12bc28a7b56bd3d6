# SPDX-License-Identifier: Apache-2.0
# bench/cudnn_overhead: the shim's cost per cudnnBackendExecute of an
# attention plan, over the fake cuDNN of tests/cudnn (bench/README.md).
if(TARGET fc_fake_cudnn)
  add_executable(cudnn_overhead ${CMAKE_CURRENT_LIST_DIR}/cudnn_overhead.c
                 ${CMAKE_SOURCE_DIR}/tests/cudnn/sdpa_build.c)
  target_include_directories(cudnn_overhead PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${CMAKE_SOURCE_DIR}/tests/cudnn)
  target_link_libraries(cudnn_overhead PRIVATE fc_analysis ${CMAKE_DL_LIBS})
  target_compile_definitions(cudnn_overhead PRIVATE FC_BENCH_SHIM="$<TARGET_FILE:flopcount>"
                             FC_BENCH_CUDNN="$<TARGET_FILE:fc_fake_cudnn>")
  add_dependencies(cudnn_overhead flopcount fc_fake_cudnn)
  set_target_properties(cudnn_overhead PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
  # the correctness claim only (no allocation per execute); never a timing. Not
  # under sanitizers: their runtimes own malloc, which the benchmark interposes.
  if(NOT FLOPCOUNT_SANITIZE)
    add_test(NAME bench_cudnn_overhead_check COMMAND cudnn_overhead --batch 2000 --rounds 4 --check)
    set_tests_properties(bench_cudnn_overhead_check PROPERTIES ENVIRONMENT
                         "LD_LIBRARY_PATH=$<TARGET_FILE_DIR:fc_fake_cudnn>;FLOPCOUNT_QUIET=1")
  endif()
endif()
