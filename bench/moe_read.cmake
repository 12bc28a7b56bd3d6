# SPDX-License-Identifier: Apache-2.0
# bench/moe_read_cost: the host cost of the opt-in read of grouped GEMMs'
# device sizes (--read-device-sizes), per call and per landed read, over the
# cuBLASLt emulation and the lagging fake driver of tests/moe (bench/README.md;
# bench/moe_read_cost.sh runs it on and off).
if(TARGET fc_emu_cublaslt AND TARGET fc_fake_libcuda_copy)
  add_executable(moe_read_cost ${CMAKE_CURRENT_LIST_DIR}/moe_read_cost.c)
  target_include_directories(moe_read_cost PRIVATE ${FLOPCOUNT_CUDA_INCLUDE}
                             ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(moe_read_cost PRIVATE fc_emu_cublaslt ${CMAKE_DL_LIBS})
  add_dependencies(moe_read_cost fc_fake_libcuda_copy)
  set_target_properties(moe_read_cost PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
endif()

# bench/moe_read_cutlass: the same on the CUTLASS launch path, a CUTLASS 3
# grouped launch on the null GPU (nvcc-built).
find_program(FC_BENCH_NVCC nvcc HINTS ${FLOPCOUNT_CUDA_LIBDIR}/../bin /usr/local/cuda/bin)
if(FC_BENCH_NVCC)
  set(fc_mrc ${CMAKE_BINARY_DIR}/bench/moe_read_cutlass)
  add_custom_command(OUTPUT ${fc_mrc}
    COMMAND ${FC_BENCH_NVCC} -O2 -arch=sm_80 -cudart shared -w -I${PROJECT_SOURCE_DIR}/include
            -o ${fc_mrc} ${CMAKE_CURRENT_LIST_DIR}/moe_read_cutlass.cu -ldl
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/moe_read_cutlass.cu
    COMMENT "nvcc: bench/moe_read_cutlass" VERBATIM)
  add_custom_target(fc_bench_moe_read_cutlass ALL DEPENDS ${fc_mrc})
endif()
