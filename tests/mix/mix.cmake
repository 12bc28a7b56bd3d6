# SPDX-License-Identifier: Apache-2.0
# HFU at the dtype mix: FP8 and BF16 GEMMs in known proportions on the
# cuBLASLt emulation, with the fake driver naming the GPU; every place the
# figure is shown (report JSON and summary, 'flopcount report' text and
# JSON, the live line, the snapshot, Prometheus, merge of two ranks) checked
# against the figure worked out by hand (tests/mix/mix_check.py).
add_executable(mix_emu ${CMAKE_CURRENT_LIST_DIR}/mix_emu.c)
target_include_directories(mix_emu PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(mix_emu PRIVATE fc_emu_cublaslt ${CMAKE_DL_LIBS})
set_target_properties(mix_emu PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_dependencies(mix_emu fc_fake_cuda)

add_test(NAME mix_emu_dtypes
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/mix_check.py "${FC_PRELOAD}"
          $<TARGET_FILE:mix_emu> $<TARGET_FILE:flopcount_cli> $<TARGET_FILE:fc_fake_cuda>
          ${FC_LT_EMU_DIR} ${CMAKE_CURRENT_BINARY_DIR}/work-mix)
set_tests_properties(mix_emu_dtypes PROPERTIES TIMEOUT 300)
