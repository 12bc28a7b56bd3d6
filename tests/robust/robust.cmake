# SPDX-License-Identifier: Apache-2.0
# Robustness (issue 5): thread stress, bad input, signals, exits, dlclose,
# output safety, bitwise-identical PyTorch results, and the fuzz targets
# replayed over their seed corpus. Sanitizer builds run the same tests:
# a preloaded sanitized libflopcount needs the sanitizer runtime first in
# LD_PRELOAD, so FC_ROBUST_PRELOAD carries it. Tests that run /usr/bin/python3
# with torch are labelled "torch" (scripts/ci/sanitizers.sh excludes them).
set(FC_ROBUST_DIR ${CMAKE_BINARY_DIR}/tests/robust)
set(FC_ROBUST_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-robust)
set(FC_ROBUST_PRELOAD "${FC_PRELOAD}")
set(FC_ROBUST_ENV "LD_PRELOAD=${FC_ROBUST_PRELOAD}" "FLOPCOUNT_QUIET=1")
set(FC_ROBUST_SCRIPT_ENV "")
if(FLOPCOUNT_SANITIZE STREQUAL "thread")
  # libunwind's per-thread cache destructor (call sites) crashes inside the
  # TSan runtime when a thread ends (a TSan/libunwind clash, not a race):
  # the TSan runs check the counters with call sites off.
  # die_after_fork=0: the shim starts its drainer thread again in a fork
  # child, which TSan refuses by default; the suppressions: see the file.
  set(fc_tsan "TSAN_OPTIONS=halt_on_error=1:die_after_fork=0:suppressions=${CMAKE_SOURCE_DIR}/scripts/ci/tsan.supp")
  list(APPEND FC_ROBUST_ENV "FLOPCOUNT_CALLSITES=0" "${fc_tsan}")
  set(FC_ROBUST_SCRIPT_ENV "FLOPCOUNT_CALLSITES=0" "${fc_tsan}")
endif()

# The fake BLAS (records its arguments, computes nothing) and a plugin that
# needs it, for the dlclose test.
add_library(fc_fault_blas SHARED ${CMAKE_CURRENT_LIST_DIR}/fixture_fake_blas.c)
add_library(fc_fault_module SHARED ${CMAKE_CURRENT_LIST_DIR}/fixture_plugin.c)
target_link_libraries(fc_fault_module PRIVATE fc_fault_blas)

add_executable(test_fault_stress ${CMAKE_CURRENT_LIST_DIR}/test_fault_stress.c)
target_link_libraries(test_fault_stress PRIVATE fc_fault_blas cmocka pthread ${CMAKE_DL_LIBS})
add_executable(test_fault_input ${CMAKE_CURRENT_LIST_DIR}/test_fault_input.c)
target_link_libraries(test_fault_input PRIVATE fc_fault_blas cmocka ${CMAKE_DL_LIBS})
add_executable(test_fault_dlclose ${CMAKE_CURRENT_LIST_DIR}/test_fault_dlclose.c)
target_link_libraries(test_fault_dlclose PRIVATE cmocka ${CMAKE_DL_LIBS})
add_executable(test_fault_signal ${CMAKE_CURRENT_LIST_DIR}/test_fault_signal.c)
target_link_libraries(test_fault_signal PRIVATE fc_fault_blas)
set(fc_robust_targets fc_fault_blas fc_fault_module test_fault_stress test_fault_input
    test_fault_dlclose test_fault_signal)

find_library(FC_ROBUST_CUBLAS cublas PATHS ${FLOPCOUNT_CUDA_LIBDIR} NO_DEFAULT_PATH)
find_library(FC_ROBUST_CUBLASLT cublasLt PATHS ${FLOPCOUNT_CUDA_LIBDIR} NO_DEFAULT_PATH)
if(FC_ROBUST_CUBLAS AND FC_ROBUST_CUBLASLT)
  add_executable(test_fault_cuda_input ${CMAKE_CURRENT_LIST_DIR}/test_fault_cuda_input.c
                 ${FC_TESTS_DIR}/emu/real_symbol.c)
  target_include_directories(test_fault_cuda_input PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${FC_TESTS_DIR})
  target_link_libraries(test_fault_cuda_input PRIVATE ${FC_ROBUST_CUBLAS} ${FC_ROBUST_CUBLASLT}
                                                      cmocka ${CMAKE_DL_LIBS})
  list(APPEND fc_robust_targets test_fault_cuda_input)
  add_test(NAME fault_cuda_input COMMAND test_fault_cuda_input)
  set_tests_properties(fault_cuda_input PROPERTIES ENVIRONMENT "${FC_ROBUST_ENV}")
endif()

foreach(t ${fc_robust_targets})
  set_target_properties(${t} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${FC_ROBUST_DIR}
                                        LIBRARY_OUTPUT_DIRECTORY ${FC_ROBUST_DIR})
endforeach()

add_test(NAME fault_thread_stress COMMAND test_fault_stress)
add_test(NAME fault_bad_input COMMAND test_fault_input)
add_test(NAME fault_dlclose COMMAND test_fault_dlclose ${FC_ROBUST_DIR})
set_tests_properties(fault_thread_stress fault_bad_input fault_dlclose
                     PROPERTIES ENVIRONMENT "${FC_ROBUST_ENV}")

# Shell drivers: each gets its own work directory (ctest -j runs them at once).
foreach(script signals exits output)
  add_test(NAME fault_${script}
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/fault_${script}.sh ${FC_ROBUST_DIR}
            "${FC_ROBUST_PRELOAD}" ${FC_ROBUST_WORK}/${script})
  if(FC_ROBUST_SCRIPT_ENV)
    set_tests_properties(fault_${script} PROPERTIES ENVIRONMENT "${FC_ROBUST_SCRIPT_ENV}")
  endif()
endforeach()

# The same training step with and without the shim: weights bitwise equal.
add_test(NAME fault_torch_bitwise
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/fault_torch_bitwise.sh
          ${CMAKE_SOURCE_DIR}/bench/e2e_torch.py $<TARGET_FILE:flopcount>
          ${FC_ROBUST_WORK}/torch)
set_tests_properties(fault_torch_bitwise PROPERTIES LABELS torch)

# Fuzz targets, built with gcc and a small main that feeds them every file
# of their seed corpus: the corpus stays a regression suite (and runs under
# ASan/UBSan in the sanitizer build). scripts/ci/fuzz.sh does the fuzzing.
set(FC_FUZZ_DIR ${CMAKE_SOURCE_DIR}/fuzz)
file(GLOB fc_fuzz_targets CONFIGURE_DEPENDS ${FC_FUZZ_DIR}/fuzz_*.c)
foreach(src ${fc_fuzz_targets})
  get_filename_component(name ${src} NAME_WE)
  string(REGEX REPLACE "^fuzz_" "" short ${name})
  set(libs fc_analysis)
  if(short STREQUAL "report_read" OR short STREQUAL "hfconfig")
    set(libs fc_analysis_io fc_analysis)
  endif()
  add_executable(replay_${name} ${src} ${FC_FUZZ_DIR}/replay_main.c)
  target_link_libraries(replay_${name} PRIVATE ${libs})
  set_target_properties(replay_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${FC_ROBUST_DIR})
  add_test(NAME fuzz_corpus_${short}
           COMMAND replay_${name} ${FC_FUZZ_DIR}/corpus/${short})
endforeach()

# The benchmark's correctness claims, at a small size: no allocation by the
# shim after warm-up, exact counts past the shape table, bounded RSS. Its
# timings are not checked here (bench/README.md). Not under sanitizers:
# their runtimes own malloc, which the benchmark interposes to count.
if(NOT FLOPCOUNT_SANITIZE)
  add_test(NAME bench_shim_overhead_check
    COMMAND shim_overhead --check --batch 2000 --rounds 20 --shape-calls 400000 --shapes 40000)
endif()
