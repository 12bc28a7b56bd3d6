# SPDX-License-Identifier: Apache-2.0
# GPU time per iteration (shim/probe/gputime.c): docs/iterations.md, "GPU time".
# No GPU needed: a fake libcuda.so.1 with events whose clock the test
# program advances (tests/fake_cuda/fake_libcuda_events.c), and the CPU
# emulations of cuBLAS and cuBLASLt.
set(FC_GPUTIME_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-gputime)
file(MAKE_DIRECTORY ${FC_GPUTIME_WORK})

add_library(fc_fake_cuda_events SHARED ${FC_TESTS_DIR}/fake_cuda/fake_libcuda_events.c)
set_target_properties(fc_fake_cuda_events PROPERTIES OUTPUT_NAME cuda VERSION 1 SOVERSION 1
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fake_cuda_events)
set(FC_FAKE_CUDA_EVENTS ${CMAKE_CURRENT_BINARY_DIR}/fake_cuda_events/libcuda.so.1)

add_executable(test_gputime ${CMAKE_CURRENT_LIST_DIR}/test_gputime.c ${FC_TESTS_DIR}/iter/fixture_gpt_stream.c)
target_include_directories(test_gputime PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${FC_TESTS_DIR}/iter)
target_link_libraries(test_gputime PRIVATE fc_cublas_emu fc_emu_cublaslt ${CMAKE_DL_LIBS})
add_dependencies(test_gputime fc_fake_cuda_events)

# $1 report, $2 preload, $3 library path, $4 program, $5 mode, $6 fake driver.
# FLOPCOUNT_CUPTI=0: the toolkit's CUPTI would be found and fail against the
# fake driver; its paths are tests/cupti's.
set(FC_GPUTIME_RUN [=[set -e
rm -f "$1"
export LD_LIBRARY_PATH="$3${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ "$5" = nocontext ]; then export FAKE_CUDA_NO_CONTEXT=1; fi
if [ "$5" = markers ]; then export FAKE_CUDA_LEGACY_OK=1; fi
LD_PRELOAD="$2" FLOPCOUNT_OUTPUT="$1" FLOPCOUNT_QUIET=1 FLOPCOUNT_LIBCUDA="$6" FLOPCOUNT_CUPTI=0 \
  FAKE_CUDA_EVENTS_LIB="$6" FAKE_CUDA_STREAM=0x5eed0001 ASAN_OPTIONS=detect_leaks=0 "$4" RUN "$5"
/usr/bin/python3 "$7" "$1" "$5"]=])
foreach(mode auto markers nodriver nocontext)
  add_test(NAME gputime_${mode}
           COMMAND sh -c "${FC_GPUTIME_RUN}" gputime ${FC_GPUTIME_WORK}/${mode}.json "${FC_PRELOAD}"
                   "$<TARGET_FILE_DIR:fc_cublas_emu>:$<TARGET_FILE_DIR:fc_emu_cublaslt>"
                   $<TARGET_FILE:test_gputime> ${mode} ${FC_FAKE_CUDA_EVENTS}
                   ${CMAKE_CURRENT_LIST_DIR}/gputime_check.py)
endforeach()
