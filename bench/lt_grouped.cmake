# SPDX-License-Identifier: Apache-2.0
# bench/lt_grouped_cost: the cuBLASLt hook's grouped-layout check (one more
# getter per cublasLtMatmul) against the getters it already makes, on the
# real libcublasLt of the toolkit (bench/README.md). Built when there is one.
find_library(FC_BENCH_LT_LIB NAMES cublasLt HINTS ${FLOPCOUNT_CUDA_LIBDIR} /usr/local/cuda/lib64
             NO_DEFAULT_PATH)
if(FC_BENCH_LT_LIB)
  add_executable(lt_grouped_cost ${CMAKE_CURRENT_LIST_DIR}/lt_grouped_cost.c)
  target_include_directories(lt_grouped_cost PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
  target_link_libraries(lt_grouped_cost PRIVATE ${FC_BENCH_LT_LIB})
  get_filename_component(FC_BENCH_LT_DIR ${FC_BENCH_LT_LIB} DIRECTORY)
  set_target_properties(lt_grouped_cost PROPERTIES BUILD_RPATH ${FC_BENCH_LT_DIR}
                        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
endif()
