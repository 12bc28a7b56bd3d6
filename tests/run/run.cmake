# SPDX-License-Identifier: Apache-2.0
# The run's figures (analysis/run/run_figures.h): the rules by hand, and one
# run's HFU, MFU, recompute and HFU at the mix identical on every path.
add_executable(test_run_figures ${CMAKE_CURRENT_LIST_DIR}/test_run_figures.c)
target_link_libraries(test_run_figures PRIVATE fc_analysis cmocka)
add_test(NAME run_figures COMMAND test_run_figures)

add_test(NAME run_figures_identity
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/figures_identity.py
          ${FC_PRELOAD} $<TARGET_FILE:flopcount_cli> ${CMAKE_CURRENT_BINARY_DIR}/work-run/identity)
if(FLOPCOUNT_SANITIZE STREQUAL "address")
  # The program is a Python interpreter (as report_stats_identity's).
  set_tests_properties(run_figures_identity PROPERTIES ENVIRONMENT
                       "ASAN_OPTIONS=detect_leaks=0:halt_on_error=1")
endif()

# The sections' tables drive their writers and their reader
# (analysis/run/schema_*.h): a key written without a reader fails.
add_executable(test_schema ${CMAKE_CURRENT_LIST_DIR}/test_schema.c)
target_link_libraries(test_schema PRIVATE fc_analysis_io cmocka)
add_test(NAME schema_sections COMMAND test_schema)

# The same for the dtype mix's members and the GPU-side sections.
add_executable(test_schema_gpu ${CMAKE_CURRENT_LIST_DIR}/test_schema_gpu.c)
target_link_libraries(test_schema_gpu PRIVATE fc_analysis_io cmocka)
add_test(NAME schema_gpu_sections COMMAND test_schema_gpu)

# ... the lists' entries ("iterations.list", "shapes") and the sections
# written as one object, by both readers (the tree-free one included).
add_executable(test_schema_lists ${CMAKE_CURRENT_LIST_DIR}/test_schema_lists.c)
target_link_libraries(test_schema_lists PRIVATE fc_analysis_io cmocka)
add_test(NAME schema_lists COMMAND test_schema_lists)

# Every key the shim (and merge --json) writes has a reader, and every key
# a reader asks for is written (schema_keys.py): the fixture programs of
# tests/cupti, tests/moe, tests/cudnn and tests/iter write reports; this program runs
# the command's verbs on them, recording the readers' lookups.
add_executable(schema_keys_reader ${CMAKE_CURRENT_LIST_DIR}/schema_keys_reader.c)
target_link_libraries(schema_keys_reader PRIVATE fc_cli ${CMAKE_DL_LIBS} pthread)
add_test(NAME schema_all_keys
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/schema_keys.py
          ${FC_PRELOAD} $<TARGET_FILE:schema_keys_reader> $<TARGET_FILE:flopcount_cli>
          ${CMAKE_CURRENT_BINARY_DIR}/work-run/keys
          # CUPTI: kernels, hw FLOPs, graphs, launches (tests/cupti/cupti.cmake's hwflops)
          hwflops LD_LIBRARY_PATH=${FC_CUPTI_LIBS} FLOPCOUNT_CUPTI=${FC_FAKE_CUPTI}
          FLOPCOUNT_HW_FLOPS=1 FLOPCOUNT_KERNELS=1 FLOPCOUNT_PEAK_TFLOPS=2.048
          $<TARGET_FILE:test_cupti> hwflops ::
          # grouped GEMMs, their device sizes, the forward profile (moe_device_sizes_on)
          devsizes LD_LIBRARY_PATH=${FC_LT_EMU_DIR} FLOPCOUNT_LIBCUDA=$<TARGET_FILE:fc_fake_libcuda_copy>
          FLOPCOUNT_READ_DEVICE_SIZES=1 FAKE_CUDA_CAPTURING_STREAM=0x99 FLOPCOUNT_CUPTI=0
          $<TARGET_FILE:test_moe_devsizes> RUN on ::
          # cuDNN attention (cudnn_fake_dlopen)
          cudnn LD_LIBRARY_PATH=${FC_CUDNN_FAKE_DIR}
          $<TARGET_FILE:test_cudnn_fake_dl> run dlopen ${FC_CUDNN_FAKE_DIR}/libcudnn.so.9 ::
          # under `flopcount run` on the null GPU: the job's report, the null_gpu
          # note, the detector's repeat check (iter_emu_steady-check)
          job LD_LIBRARY_PATH=$<TARGET_FILE_DIR:fc_cublas_emu>:$<TARGET_FILE_DIR:fc_emu_cublaslt>
          FLOPCOUNT_DETECT_REPEAT=check
          @run --null-gpu h100 -- $<TARGET_FILE:test_iter_emu> RUN steady-check)
set_tests_properties(schema_all_keys PROPERTIES ENVIRONMENT
                     "FC_SANITIZER_RUNTIME=${FC_SANITIZER_RUNTIME};ASAN_OPTIONS=detect_leaks=0")
