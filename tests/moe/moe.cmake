# SPDX-License-Identifier: Apache-2.0
# Mixture-of-experts paths (docs/moe.md): an expert layer trained through
# cuBLAS's grouped GEMM over the emulation (tests/emu/cublas_emu.c), its
# expert GEMMs counted per group and split forward / backward / recompute
# by NVTX ranges. The cuBLASLt MoE tests are in tests/cublaslt.
set(FC_MOE_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-moe)
add_executable(test_moe_split ${CMAKE_CURRENT_LIST_DIR}/test_moe_split.c)
target_include_directories(test_moe_split PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
target_link_libraries(test_moe_split PRIVATE fc_cublas_emu PkgConfig::JSONC ${CMAKE_DL_LIBS})
add_test(NAME moe_grouped_split
         COMMAND sh -c [=[set -e
mkdir -p "$(dirname "$1")"
rm -f "$1"
LD_PRELOAD="$2" NVTX_INJECTION64_PATH="$3" LD_LIBRARY_PATH="$5" FLOPCOUNT_OUTPUT="$1" \
  FLOPCOUNT_QUIET=1 ASAN_OPTIONS=detect_leaks=0 "$4" RUN
"$4" --check "$1"]=] moe ${FC_MOE_WORK}/split.json "${FC_PRELOAD}" $<TARGET_FILE:flopcount>
                 $<TARGET_FILE:test_moe_split> ${FC_CUBLAS_EMU_DIR})
