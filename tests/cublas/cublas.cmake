# SPDX-License-Identifier: Apache-2.0
# cuBLAS hooks (shim/hooks/cublas_gemm.c, shim/hooks/cublas_batched.c): a CPU emulation
# of libcublas.so.13, test programs run through it under LD_PRELOAD of the
# shim, and tests against the real libcublas.so.13 (no GPU needed: there
# every call fails with NOT_INITIALIZED, which must come back unchanged).
set(FC_CUBLAS_EMU_DIR ${CMAKE_BINARY_DIR}/emu)
set(FC_CUBLAS_TEST_DIR ${CMAKE_BINARY_DIR}/tests/cublas)
find_library(FC_REAL_CUBLAS NAMES libcublas.so.13 cublas PATHS ${FLOPCOUNT_CUDA_LIBDIR}
             NO_DEFAULT_PATH)

# The emulation carries the real library's soname and symbol version, so
# programs linked with it hold versioned references (cublasSgemm_v2@
# libcublas.so.13) exactly as with the real one.
set(FC_CUBLAS_EMU_MAP ${CMAKE_CURRENT_BINARY_DIR}/cublas_emu.map)
file(WRITE ${FC_CUBLAS_EMU_MAP} "libcublas.so.13 { global: cublas*; fc_emu_cublas_*; local: *; };\n")
add_library(fc_cublas_emu SHARED ${FC_TESTS_DIR}/emu/cublas_emu.c)
target_include_directories(fc_cublas_emu PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
target_link_libraries(fc_cublas_emu PRIVATE m)
target_link_options(fc_cublas_emu PRIVATE -Wl,--version-script=${FC_CUBLAS_EMU_MAP})
set_target_properties(fc_cublas_emu PROPERTIES OUTPUT_NAME cublas SOVERSION 13
                      LIBRARY_OUTPUT_DIRECTORY ${FC_CUBLAS_EMU_DIR}
                      LINK_DEPENDS ${FC_CUBLAS_EMU_MAP})

add_library(fc_cublas_check STATIC ${CMAKE_CURRENT_LIST_DIR}/cublas_check.c
            ${FC_TESTS_DIR}/emu/real_symbol.c)
target_include_directories(fc_cublas_check PUBLIC ${FC_TESTS_DIR} ${CMAKE_SOURCE_DIR}/include
                           ${FLOPCOUNT_CUDA_INCLUDE})
target_link_libraries(fc_cublas_check PUBLIC cmocka PkgConfig::JSONC m ${CMAKE_DL_LIBS})

# Environment of a test run under the shim; report at a path of its own.
function(fc_cublas_env out name libdir)
  set(${out} "LD_PRELOAD=${FC_PRELOAD}"
             "LD_LIBRARY_PATH=${libdir}"
             "FLOPCOUNT_OUTPUT=${FC_CUBLAS_TEST_DIR}/${name}.json"
             "FLOPCOUNT_QUIET=1" PARENT_SCOPE)
endfunction()

# A test program: fc_cublas_test(NAME [LIBS lib...]); fc_cublas_add_test runs
# it under the shim with the cuBLAS of LIBDIR.
function(fc_cublas_test name)
  cmake_parse_arguments(T "" "" "LIBS" ${ARGN})
  add_executable(test_cublas_${name} ${CMAKE_CURRENT_LIST_DIR}/test_cublas_${name}.c)
  target_link_libraries(test_cublas_${name} PRIVATE fc_cublas_check ${T_LIBS})
  set_target_properties(test_cublas_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${FC_CUBLAS_TEST_DIR})
endfunction()
function(fc_cublas_add_test name exe libdir)
  add_test(NAME cublas_${name} COMMAND ${exe} ${ARGN})
  fc_cublas_env(env cublas_${name} ${libdir})
  set_tests_properties(cublas_${name} PROPERTIES ENVIRONMENT "${env}")
endfunction()

# Through the emulation: results, statuses and exact counts of every hook;
# twins through the real libcublas.so.13 on the null GPU (same counts).
foreach(t gemm batched threads)
  fc_cublas_test(${t} LIBS fc_cublas_emu pthread)
  fc_cublas_add_test(${t} test_cublas_${t} ${FC_CUBLAS_EMU_DIR})
  add_test(NAME cublas_${t}_nullgpu COMMAND test_cublas_${t})
  fc_cublas_env(env cublas_${t}_nullgpu ${FC_NULLGPU_LIBS})
  fc_nullgpu_twin(cublas_${t}_nullgpu ${env})
endforeach()

# No real function anywhere: every soname the shim tries is a stub without GEMMs.
set(FC_CUBLAS_STUB_DIR ${CMAKE_BINARY_DIR}/emu-stub)
add_library(fc_cublas_stub SHARED ${CMAKE_CURRENT_LIST_DIR}/fixture_stub_cublas.c)
target_include_directories(fc_cublas_stub PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
set_target_properties(fc_cublas_stub PROPERTIES OUTPUT_NAME cublas SOVERSION 13
                      LIBRARY_OUTPUT_DIRECTORY ${FC_CUBLAS_STUB_DIR})
add_custom_command(TARGET fc_cublas_stub POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E create_symlink libcublas.so.13 ${FC_CUBLAS_STUB_DIR}/libcublas.so.12
  COMMAND ${CMAKE_COMMAND} -E create_symlink libcublas.so.13 ${FC_CUBLAS_STUB_DIR}/libcublas.so.11)
fc_cublas_test(missing)
add_dependencies(test_cublas_missing fc_cublas_stub)
fc_cublas_add_test(missing test_cublas_missing ${FC_CUBLAS_STUB_DIR})

# Dimensions beyond 32 bits: a cuBLAS whose GEMMs succeed without arithmetic.
set(FC_CUBLAS_NOP_DIR ${CMAKE_BINARY_DIR}/emu-nop)
add_library(fc_cublas_nop SHARED ${CMAKE_CURRENT_LIST_DIR}/fixture_nop_cublas.c)
target_include_directories(fc_cublas_nop PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
set_target_properties(fc_cublas_nop PROPERTIES OUTPUT_NAME cublas SOVERSION 13
                      LIBRARY_OUTPUT_DIRECTORY ${FC_CUBLAS_NOP_DIR})
fc_cublas_test(big LIBS fc_cublas_nop)
fc_cublas_add_test(big test_cublas_big ${FC_CUBLAS_NOP_DIR})

# Called from a library dlopen()ed RTLD_LOCAL (a Python extension's case).
fc_cublas_test(local LIBS ${CMAKE_DL_LIBS})
add_library(fc_cublas_local_emu SHARED ${CMAKE_CURRENT_LIST_DIR}/fixture_local_lib.c)
target_link_libraries(fc_cublas_local_emu PRIVATE fc_cublas_emu)
set(FC_CUBLAS_LOCAL_LIBS fc_cublas_local_emu)
fc_cublas_add_test(local_emu test_cublas_local ${FC_CUBLAS_EMU_DIR}
                   $<TARGET_FILE:fc_cublas_local_emu> emu)

# The real libcublas.so.13 (no GPU needed), where the toolkit has it.
if(FC_REAL_CUBLAS)
  fc_cublas_test(real LIBS ${FC_REAL_CUBLAS} ${CMAKE_DL_LIBS})
  fc_cublas_add_test(real test_cublas_real ${FLOPCOUNT_CUDA_LIBDIR})
  add_library(fc_cublas_local_real SHARED ${CMAKE_CURRENT_LIST_DIR}/fixture_local_lib.c)
  target_link_libraries(fc_cublas_local_real PRIVATE ${FC_REAL_CUBLAS})
  list(APPEND FC_CUBLAS_LOCAL_LIBS fc_cublas_local_real)
  fc_cublas_add_test(local_real test_cublas_local ${FLOPCOUNT_CUDA_LIBDIR}
                     $<TARGET_FILE:fc_cublas_local_real> real)
else()
  message(STATUS "flopcount: no libcublas.so.13 in ${FLOPCOUNT_CUDA_LIBDIR}; real-cuBLAS tests skipped")
endif()
foreach(l ${FC_CUBLAS_LOCAL_LIBS})
  target_include_directories(${l} PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
  set_target_properties(${l} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${FC_CUBLAS_TEST_DIR})
endforeach()

# The emulated cublasGemmEx reaches cublasSgemm_v2 through the PLT (a
# JUMP_SLOT relocation), so the shim sees the nested call: what
# test_cublas_gemm's nested case relies on.
add_test(NAME cublas_emu_nests_through_plt
  COMMAND sh -c "readelf -rW \"$1\" | grep -q 'JUMP_SLOT.* cublasSgemm_v2@'" sh
          $<TARGET_FILE:fc_cublas_emu>)
