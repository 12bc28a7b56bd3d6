# SPDX-License-Identifier: Apache-2.0
# Iterations, phases, recompute, markers, NVTX, call sites (shim/ring/,
# shim/detect/, shim/hooks/nvtx.c, shim/probe/callsite.c): docs/iterations.md.
set(FC_ITER_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-iter)
file(MAKE_DIRECTORY ${FC_ITER_WORK})

# A sanitized libflopcount needs its sanitizer runtime first in LD_PRELOAD.
set(FC_ITER_PRELOAD "${FC_PRELOAD}")

# The detector's sources, for the programs that link it alone.
set(FC_DETECT_ALONE ${CMAKE_CURRENT_LIST_DIR}/fixture_gpt_stream.c
    ${CMAKE_SOURCE_DIR}/shim/detect/segment.c ${CMAKE_SOURCE_DIR}/shim/detect/phase.c
    ${CMAKE_SOURCE_DIR}/shim/detect/attn_label.c
    ${CMAKE_SOURCE_DIR}/shim/detect/weights.c ${CMAKE_SOURCE_DIR}/shim/detect/repeat.c
    ${CMAKE_SOURCE_DIR}/shim/detect/threads.c ${CMAKE_SOURCE_DIR}/shim/detect/steps.c
    ${CMAKE_SOURCE_DIR}/shim/detect/profile.c ${CMAKE_SOURCE_DIR}/shim/core/lazymem.c)

# The detector alone, fed a GPT training loop's GEMM stream directly.
add_executable(test_iter_detect ${CMAKE_CURRENT_LIST_DIR}/test_iter_detect.c ${FC_DETECT_ALONE})
target_include_directories(test_iter_detect PRIVATE ${CMAKE_SOURCE_DIR}/shim ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(test_iter_detect PRIVATE cmocka fc_analysis)
add_test(NAME iter_detect COMMAND test_iter_detect)

# What the kernel-launch layer gives the detector (test_iter_signals.c):
# optimizer steps (FC_IREC_OPTIM) between micro-batches, and the launching
# thread (forward on one, backward on another; never for CPU calls).
add_executable(test_iter_signals ${CMAKE_CURRENT_LIST_DIR}/test_iter_signals.c ${FC_DETECT_ALONE})
target_include_directories(test_iter_signals PRIVATE ${CMAKE_SOURCE_DIR}/shim ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(test_iter_signals PRIVATE cmocka fc_analysis)
add_test(NAME iter_signals COMMAND test_iter_signals)

# The detector on random training loops (test_iter_random.c): every
# iteration exact or flagged, repeats the same as labelling in full. A
# slice here; the full run (seeds 0-20000, each mode) in docs/iterations.md.
add_executable(test_iter_random ${CMAKE_CURRENT_LIST_DIR}/test_iter_random.c ${FC_DETECT_ALONE})
target_include_directories(test_iter_random PRIVATE ${CMAKE_SOURCE_DIR}/shim ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(test_iter_random PRIVATE fc_analysis)
add_test(NAME iter_random COMMAND test_iter_random 0 1500 1)
add_test(NAME iter_random_check COMMAND test_iter_random 1500 2500 check)
add_test(NAME iter_random_threads COMMAND test_iter_random 2500 3500 1 threads)

# The same loop through the real cuBLAS entry points (cublasGemmEx,
# cublasGemmStridedBatchedEx, cublasLtMatmul) of the CPU emulations, under
# the shim; then --check reads the report (and the model inferred from it). $1 report, $2 preload, $3 library
# path, $4 program, $5 mode, $6 FLOPCOUNT_NVTX_STEP ("" for the default),
# $7 the shim (NVTX injection library). Leak checks off: the emulations and
# NVTX keep handles for the life of the process.
add_executable(test_iter_emu ${CMAKE_CURRENT_LIST_DIR}/test_iter_emu.c ${CMAKE_CURRENT_LIST_DIR}/fixture_gpt_stream.c)
target_include_directories(test_iter_emu PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_iter_emu PRIVATE fc_cublas_emu fc_emu_cublaslt cmocka PkgConfig::JSONC
                      fc_analysis_io fc_analysis ${CMAKE_DL_LIBS} pthread)
set(FC_ITER_RUN [=[set -e
rm -f "$1"
export LD_LIBRARY_PATH="$3${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -n "$6" ]; then export FLOPCOUNT_NVTX_STEP="$6"; fi
LD_PRELOAD="$2" NVTX_INJECTION64_PATH="$7" FLOPCOUNT_OUTPUT="$1" FLOPCOUNT_QUIET=1 \
  ASAN_OPTIONS=detect_leaks=0 "$4" RUN "$5"
"$4" --check "$1" "$5"]=])
# steady-check: the steady run with FLOPCOUNT_DETECT_REPEAT=check (each
# repeat labelled in full as well, and compared).
foreach(mode none full selective markers nvtx nvtx-named threads steady steady-check)
  set(named "")
  if(mode STREQUAL "nvtx-named")
    set(named train_step)
  endif()
  add_test(NAME iter_emu_${mode}
           COMMAND sh -c "${FC_ITER_RUN}" iter_emu ${FC_ITER_WORK}/emu_${mode}.json "${FC_ITER_PRELOAD}"
                   "$<TARGET_FILE_DIR:fc_cublas_emu>:$<TARGET_FILE_DIR:fc_emu_cublaslt>"
                   $<TARGET_FILE:test_iter_emu> ${mode} "${named}" $<TARGET_FILE:flopcount>)
  set(env "")
  if(mode STREQUAL "steady-check")
    list(APPEND env "FLOPCOUNT_DETECT_REPEAT=check")
  endif()
  if(FLOPCOUNT_SANITIZE STREQUAL "thread")
    # libunwind's per-thread cache and the TSan runtime clash when a thread
    # ends (see tests/robust/robust.cmake): call sites off under TSan.
    list(APPEND env "FLOPCOUNT_CALLSITES=0")
  endif()
  if(env)
    set_tests_properties(iter_emu_${mode} PROPERTIES ENVIRONMENT "${env}")
  endif()
  # twin: the real cuBLAS and cuBLASLt on the null GPU, the same checks
  add_test(NAME iter_emu_${mode}_nullgpu
           COMMAND sh -c "${FC_ITER_RUN}" iter_emu ${FC_ITER_WORK}/emu_${mode}_nullgpu.json
                   "${FC_ITER_PRELOAD}" "${FC_NULLGPU_LIBS}" $<TARGET_FILE:test_iter_emu> ${mode}
                   "${named}" $<TARGET_FILE:flopcount>)
  fc_nullgpu_twin(iter_emu_${mode}_nullgpu ${env})
endforeach()

# Real PyTorch (CPU) training runs: recompute none / some layers / all,
# evaluation passes, gradient accumulation, flopcount_step() markers through
# ctypes, the live line. Debian's torch lives in /usr/bin/python3.
foreach(case plain ckpt_some ckpt_all accumulate markers live)
  add_test(NAME iter_torch_${case}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/iter_train.py
                   $<TARGET_FILE:flopcount> ${FC_ITER_WORK}/torch ${case})
  set_tests_properties(iter_torch_${case} PROPERTIES LABELS torch TIMEOUT 300)
endforeach()

# The live line and the summary with the model read off the emulated GPT's
# GEMMs (shim/report/inferred.c on the drainer thread; not torch-labelled,
# so the sanitizer builds run it): formula MFU on the lines once the
# profile is steady, and the model in the summary.
set(FC_ITER_LIVE [=[set -e
export LD_LIBRARY_PATH="$3${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
LD_PRELOAD="$2" FLOPCOUNT_OUTPUT="$1" FLOPCOUNT_LOG_EVERY=1 FLOPCOUNT_PEAK_TFLOPS=1 \
  ASAN_OPTIONS=detect_leaks=0 "$4" RUN none 2>"$1.err"
grep -q "^flopcount: step 4 .* formula MFU [0-9.]*%$" "$1.err" || { cat "$1.err"; exit 1; }
grep -q "^flopcount: inferred model l=2 h=64 a=4 kv=4 d=16 ffn=256 V=128 s=32 B=2, exact from the GEMM shapes; formula MFU [0-9.]*%$" "$1.err" || { cat "$1.err"; exit 1; }]=])
add_test(NAME iter_emu_live
         COMMAND sh -c "${FC_ITER_LIVE}" iter_emu ${FC_ITER_WORK}/emu_live.json "${FC_ITER_PRELOAD}"
                 "$<TARGET_FILE_DIR:fc_cublas_emu>:$<TARGET_FILE_DIR:fc_emu_cublaslt>"
                 $<TARGET_FILE:test_iter_emu>)
if(FLOPCOUNT_SANITIZE STREQUAL "thread")
  set_tests_properties(iter_emu_live PROPERTIES ENVIRONMENT "FLOPCOUNT_CALLSITES=0")
endif()

# Counted fused-attention calls among the GEMMs (FC_IREC_ATTN): labelled
# forward, backward or recompute by their kernel and place.
add_executable(test_iter_attention ${CMAKE_CURRENT_LIST_DIR}/test_iter_attention.c ${FC_DETECT_ALONE})
target_include_directories(test_iter_attention PRIVATE ${CMAKE_SOURCE_DIR}/shim ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(test_iter_attention PRIVATE cmocka fc_analysis)
add_test(NAME iter_attention COMMAND test_iter_attention)
# a detector that scans its buffer per push runs test_attention_alone for hours
set_tests_properties(iter_attention PROPERTIES TIMEOUT 60)
