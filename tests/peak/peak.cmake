# SPDX-License-Identifier: Apache-2.0
# Peak table, local-device detection (against a fake libcuda.so.1), the CPU
# estimate and `flopcount peak`. Nothing here needs a GPU.

# The fake driver gets the real SONAME but lives in its own directory, far
# from build/lib, so nothing finds it unless FLOPCOUNT_LIBCUDA names it.
set(FC_FAKE_CUDA_DIR ${CMAKE_CURRENT_BINARY_DIR}/fake_cuda)
add_library(fc_fake_cuda SHARED ${FC_TESTS_DIR}/fake_cuda/fake_libcuda.c)
set_target_properties(fc_fake_cuda PROPERTIES OUTPUT_NAME cuda VERSION 1 SOVERSION 1
                                              LIBRARY_OUTPUT_DIRECTORY ${FC_FAKE_CUDA_DIR})
# The same source without cuDeviceGetName: a driver flopcount cannot use.
add_library(fc_fake_cuda_partial SHARED ${FC_TESTS_DIR}/fake_cuda/fake_libcuda.c)
target_compile_definitions(fc_fake_cuda_partial PRIVATE FAKE_CUDA_PARTIAL)
set_target_properties(fc_fake_cuda_partial PROPERTIES OUTPUT_NAME cuda VERSION 1 SOVERSION 1
                                                      LIBRARY_OUTPUT_DIRECTORY ${FC_FAKE_CUDA_DIR}/partial)
set(FC_FAKE_CUDA ${FC_FAKE_CUDA_DIR}/libcuda.so.1)
set(FC_FAKE_CUDA_PARTIAL ${FC_FAKE_CUDA_DIR}/partial/libcuda.so.1)

add_executable(test_peak ${CMAKE_CURRENT_LIST_DIR}/test_peak.c)
target_link_libraries(test_peak PRIVATE fc_analysis cmocka)
add_test(NAME peak_table COMMAND test_peak ${CMAKE_CURRENT_BINARY_DIR}/work-peak)

add_executable(test_device ${CMAKE_CURRENT_LIST_DIR}/test_device.c)
target_link_libraries(test_device PRIVATE fc_probe fc_analysis cmocka)
add_dependencies(test_device fc_fake_cuda fc_fake_cuda_partial)
add_test(NAME peak_device COMMAND test_device)
set_tests_properties(peak_device PROPERTIES
  ENVIRONMENT "FLOPCOUNT_LIBCUDA=${FC_FAKE_CUDA};FAKE_CUDA_PARTIAL_LIB=${FC_FAKE_CUDA_PARTIAL}")

add_test(NAME peak_cli
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/peak_cli.sh $<TARGET_FILE:flopcount_cli> ${FC_FAKE_CUDA}
          ${CMAKE_CURRENT_BINARY_DIR}/work-peak-cli)
