# SPDX-License-Identifier: Apache-2.0
# Mixture-of-experts paths (docs/moe.md): an expert layer trained through
# cuBLAS's grouped GEMM over the emulation (tests/emu/cublas_emu.c), its
# expert GEMMs counted per group and split forward / backward / recompute
# by NVTX ranges, and the experts, their width, top-k, shared expert and
# load imbalance read off the grouped calls (JSON and text report). The
# cuBLASLt MoE tests are in tests/cublaslt.
set(FC_MOE_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-moe)
file(MAKE_DIRECTORY ${FC_MOE_WORK})
add_executable(test_moe_split ${CMAKE_CURRENT_LIST_DIR}/test_moe_split.c)
target_include_directories(test_moe_split PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
target_link_libraries(test_moe_split PRIVATE fc_cublas_emu PkgConfig::JSONC ${CMAKE_DL_LIBS})
set(FC_MOE_SPLIT_RUN [=[set -e
mkdir -p "$(dirname "$1")"
rm -f "$1"
LD_PRELOAD="$2" NVTX_INJECTION64_PATH="$3" LD_LIBRARY_PATH="$5" FLOPCOUNT_OUTPUT="$1" \
  FLOPCOUNT_QUIET=1 ASAN_OPTIONS=detect_leaks=0 "$4" RUN
"$4" --check "$1"
# the text report's lines of the experts, by hand (test_moe_split.c's header)
"$6" report "$1" > "$1.txt"
grep -qF 'grouped experts: experts=3 moe_ffn=12 top_k=2 shared=1 (ffn 16) over 1 MoE layer' "$1.txt"
grep -qF 'load imbalance (max group rows / mean): max 1.200, mean 1.200; group rows 5..8' "$1.txt"
# and laid into the inferred model where its GEMM reader left them unknown
grep -qE '^  experts +3 +exact +grouped calls' "$1.txt"
grep -qE '^  topk +2 +exact +grouped calls: 20 routed rows / 10 tokens' "$1.txt"
grep -qE '^  moe_ffn +12 +exact' "$1.txt"
grep -qE '^  shared_ffn +16 +exact' "$1.txt"
# the experts' load per iteration: 6 steps, 1.2 each (test_moe_split.c's header)
grep -qF 'expert load    max group work / mean, per iteration: 1: 1.200, 2: 1.200, 3: 1.200, 4: 1.200, 5: 1.200, 6: 1.200 (max 1.200 over 6 iterations)' "$1.txt"]=])
add_test(NAME moe_grouped_split
         COMMAND sh -c "${FC_MOE_SPLIT_RUN}" moe ${FC_MOE_WORK}/split.json "${FC_PRELOAD}"
                 $<TARGET_FILE:flopcount> $<TARGET_FILE:test_moe_split> ${FC_CUBLAS_EMU_DIR}
                 $<TARGET_FILE:flopcount_cli>)
# twin: the real cublasSgemmGroupedBatched of the toolkit on the null GPU
add_test(NAME moe_grouped_split_nullgpu
         COMMAND sh -c "${FC_MOE_SPLIT_RUN}" moe ${FC_MOE_WORK}/split_nullgpu.json
                 "${FC_PRELOAD}" $<TARGET_FILE:flopcount> $<TARGET_FILE:test_moe_split>
                 "${FC_NULLGPU_LIBS}" $<TARGET_FILE:flopcount_cli>)
fc_nullgpu_twin(moe_grouped_split_nullgpu)

# The opt-in read of grouped GEMMs' device size arrays (--read-device-sizes):
# cuBLASLt grouped calls over the emulation, a fake driver whose GPU lags
# (fake_libcuda_copy.c), with the option on and off.
add_library(fc_fake_libcuda_copy SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_libcuda_copy.c)
set_target_properties(fc_fake_libcuda_copy PROPERTIES OUTPUT_NAME cuda SOVERSION 1
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fake-cuda-copy)
add_executable(test_moe_devsizes ${CMAKE_CURRENT_LIST_DIR}/test_moe_devsizes.c)
target_include_directories(test_moe_devsizes PRIVATE ${FLOPCOUNT_CUDA_INCLUDE}
                           ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(test_moe_devsizes PRIVATE fc_emu_cublaslt PkgConfig::JSONC ${CMAKE_DL_LIBS})
add_dependencies(test_moe_devsizes fc_fake_libcuda_copy)
foreach(mode on off)
  if(mode STREQUAL "on")
    set(fc_read 1)
  else()
    set(fc_read 0)
  endif()
  add_test(NAME moe_device_sizes_${mode}
           COMMAND sh -c [=[set -e
mkdir -p "$(dirname "$1")"
rm -f "$1"
LD_PRELOAD="$2" LD_LIBRARY_PATH="$4" FLOPCOUNT_LIBCUDA="$5" FLOPCOUNT_READ_DEVICE_SIZES="$7" \
  FAKE_CUDA_CAPTURING_STREAM=0x99 FLOPCOUNT_CUPTI=0 FLOPCOUNT_OUTPUT="$1" \
  ASAN_OPTIONS=detect_leaks=0 "$3" RUN "$6" 2> "$1.err" || { cat "$1.err" >&2; exit 1; }
"$3" --check "$1" "$6"
# the exit summary's expert load: G1, G2 1.5 and G6 1.0 read (test_moe_devsizes.c's
# header): max 1.5, mean 4/3; none without the option
if [ "$6" = on ]; then
  grep -qF 'flopcount: expert load (max group work / mean): max 1.500, mean 1.333 over 3 grouped calls' "$1.err"
else
  ! grep -qF 'expert load' "$1.err"
fi
# the experts' load per iteration in the text (test_moe_devsizes.c's header)
if [ "$6" = on ]; then
  "$8" report "$1" | grep -qF 'expert load    max group work / mean, per iteration: 1: 1.500, 2: 1.000 (max 1.500 over 2 iterations)'
fi]=] moe ${FC_MOE_WORK}/devsizes_${mode}.json "${FC_PRELOAD}"
                   $<TARGET_FILE:test_moe_devsizes> ${FC_LT_EMU_DIR}
                   $<TARGET_FILE:fc_fake_libcuda_copy> ${mode} ${fc_read}
                   $<TARGET_FILE:flopcount_cli>)
endforeach()

# The experts read off grouped calls (analysis/infer_grouped.c) on forward
# profiles written by hand: gated, two layers' imbalance, bounds, unknowns.
add_executable(test_moe_infer_units ${CMAKE_CURRENT_LIST_DIR}/test_moe_infer_units.c)
target_link_libraries(test_moe_infer_units PRIVATE cmocka fc_analysis)
add_test(NAME moe_infer_units COMMAND test_moe_infer_units)

# CUTLASS 3 grouped GEMM launches (torch._grouped_mm's kernel shape) built
# by nvcc with CUTLASS's Params layout written from its public headers, run
# on the null GPU: the group count and problem-shape array read from the
# launch parameters (shim/launch/cutlass_grouped.c), their sizes read from
# the device and counted with the option on, listed only with it off; six
# launches whose parameters do not check out named with the reason.
if(FC_NVCC)
  # v3: CUTLASS 3 GemmUniversal over GroupProblemShape (torch._grouped_mm,
  # six defence launches); v2: CUTLASS 2 GemmGrouped (grouped_gemm, five)
  foreach(v 3 2)
    if(v STREQUAL "3")
      set(fc_cg cutlass_grouped)
    else()
      set(fc_cg cutlass2_grouped)
    endif()
    set(fc_cg_prog ${FC_MOE_WORK}/${fc_cg}_prog)
    add_custom_command(OUTPUT ${fc_cg_prog}
      COMMAND ${FC_NVCC} -arch=sm_80 -cudart shared -w -o ${fc_cg_prog}
              ${CMAKE_CURRENT_LIST_DIR}/${fc_cg}_prog.cu
      DEPENDS ${CMAKE_CURRENT_LIST_DIR}/${fc_cg}_prog.cu
      COMMENT "nvcc: the CUTLASS ${v} grouped launch program" VERBATIM)
    add_custom_target(fc_${fc_cg}_prog ALL DEPENDS ${fc_cg_prog})
    foreach(mode on off)
      if(mode STREQUAL "on")
        set(fc_read 1)
      else()
        set(fc_read 0)
      endif()
      add_test(NAME moe_${fc_cg}_${mode}_nullgpu
               COMMAND sh -c [=[set -e
mkdir -p "$(dirname "$1")"
rm -f "$1"
LD_PRELOAD="$2" LD_LIBRARY_PATH="$4" FLOPCOUNT_READ_DEVICE_SIZES="$6" FLOPCOUNT_CUPTI=0 \
  FLOPCOUNT_OUTPUT="$1" FLOPCOUNT_QUIET=1 ASAN_OPTIONS=detect_leaks=0 "$3"
/usr/bin/python3 "$5" "$1" "$7" "$8"]=] moe ${FC_MOE_WORK}/${fc_cg}_${mode}.json
                       "${FC_PRELOAD}" ${fc_cg_prog} "${FC_NULLGPU_LIBS}"
                       ${CMAKE_CURRENT_LIST_DIR}/cutlass_grouped_check.py ${fc_read} ${mode} ${v})
      fc_nullgpu_twin(moe_${fc_cg}_${mode}_nullgpu)
    endforeach()
  endforeach()
else()
  add_test(NAME moe_cutlass_grouped_nvcc
           COMMAND sh -c "echo 'moe: skipped: nvcc not found (the CUTLASS grouped launch test needs it)'; exit 77")
  set_tests_properties(moe_cutlass_grouped_nvcc PROPERTIES SKIP_RETURN_CODE 77)
endif()

# A cuBLASLt grouped matmul captured into a CUDA graph and replayed: the
# real runtime and the wheel's libcublasLt 13.4 (FC_LT_WHEEL_ONLY,
# tests/cublaslt) on the null GPU; every replay listed, none read.
if(FC_LT_WHEEL_ONLY)
  add_executable(test_moe_lt_capture ${CMAKE_CURRENT_LIST_DIR}/test_moe_lt_capture.c)
  target_include_directories(test_moe_lt_capture PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
  target_link_directories(test_moe_lt_capture PRIVATE ${FLOPCOUNT_CUDA_LIBDIR})
  target_link_libraries(test_moe_lt_capture PRIVATE cudart cublasLt ${CMAKE_DL_LIBS})
  add_test(NAME moe_lt_capture_nullgpu
           COMMAND sh -c [=[set -e
mkdir -p "$(dirname "$1")"
rm -f "$1"
LD_PRELOAD="$2" LD_LIBRARY_PATH="$4" FLOPCOUNT_READ_DEVICE_SIZES=1 FLOPCOUNT_CUPTI=0 \
  FLOPCOUNT_OUTPUT="$1" FLOPCOUNT_QUIET=1 ASAN_OPTIONS=detect_leaks=0 "$3" RUN
/usr/bin/python3 "$5" "$1"]=] moe ${FC_MOE_WORK}/lt_capture.json "${FC_PRELOAD}"
                   $<TARGET_FILE:test_moe_lt_capture> "${FC_LT_WHEEL_ONLY}:${FC_NULLGPU_LIBS}"
                   ${CMAKE_CURRENT_LIST_DIR}/lt_capture_check.py)
  fc_nullgpu_twin(moe_lt_capture_nullgpu)
endif()

# The real torch._grouped_mm (PyTorch's CUTLASS grouped kernel) on the null
# GPU: its launch decoded from the real Params (3 groups); skipped without
# the cached PyTorch CUDA environment.
if(FLOPCOUNT_SANITIZE STREQUAL "")
  add_test(NAME moe_torch_grouped_mm_nullgpu
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/torch_grouped_mm.sh "${FC_PRELOAD}"
                   $<TARGET_FILE_DIR:nullgpu> ${FC_MOE_WORK}/torch_grouped_mm.json
                   $<TARGET_FILE:flopcount_cli>)
  set_tests_properties(moe_torch_grouped_mm_nullgpu PROPERTIES LABELS "nullgpu;torch_cuda"
                       SKIP_RETURN_CODE 77 TIMEOUT 240)
endif()

# An MoE layer whose experts run one by one through cuBLAS (the eager loop of
# Hugging Face MoE blocks), routed on the host, trained 4 AdamW steps in bf16
# with the real PyTorch on the null GPU: every iteration = the hand count and
# FlopCounterMode exactly, and in a 2-layer transformer the inferred model
# reads its experts, top-k and widths (tests/moe/torch_moe_loop.sh's header).
if(FLOPCOUNT_SANITIZE STREQUAL "")
  add_test(NAME moe_torch_expert_loop_nullgpu
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/torch_moe_loop.sh "${FC_PRELOAD}"
                   $<TARGET_FILE_DIR:nullgpu> $<TARGET_FILE:flopcount_cli> ${FC_MOE_WORK}/torch_moe_loop)
  set_tests_properties(moe_torch_expert_loop_nullgpu PROPERTIES LABELS "nullgpu;torch_cuda"
                       SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# PyTorch's prepare_grouped_gemm_data launch (the kernel that fills
# torch._grouped_mm's problem shapes) decoded from kernelParams arrays in
# the 2.15 layout: every GroupMMCommon case's bound and exact count by
# hand, and the defences (shim/launch/grouped_fill.c).
add_executable(test_grouped_fill ${CMAKE_CURRENT_LIST_DIR}/test_grouped_fill.c
               ${PROJECT_SOURCE_DIR}/shim/launch/grouped_fill.c)
target_include_directories(test_grouped_fill PRIVATE ${PROJECT_SOURCE_DIR}/shim/launch)
target_link_libraries(test_grouped_fill PRIVATE cmocka)
add_test(NAME moe_grouped_fill_units COMMAND test_grouped_fill)
