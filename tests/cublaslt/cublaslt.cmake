# SPDX-License-Identifier: Apache-2.0
# cuBLASLt hook (shim/hooks/cublaslt.c): tests through a CPU emulation of
# libcublasLt.so.13, against the real CUDA library (no GPU needed), and with
# no cublasLtMatmul to be found at all.
#
# Each counting test runs its program twice in one sh script: under the shim
# (FLOPCOUNT_OUTPUT set), then with --check on the report it wrote.
set(FC_LT_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-lt)
set(FC_LT_EMU_DIR ${CMAKE_BINARY_DIR}/emu-lt)
set(FC_LT_STUB_DIR ${CMAKE_BINARY_DIR}/emu-lt-missing)

# The emulation: libcublasLt.so.13 (+ libcublasLt.so) in its own directory.
add_library(fc_emu_cublaslt SHARED ${FC_TESTS_DIR}/emu/cublaslt_emu.c)
# The same without cublasLtMatmul, for the "real function missing" case.
add_library(fc_emu_cublaslt_missing SHARED ${FC_TESTS_DIR}/emu/cublaslt_emu.c)
target_compile_definitions(fc_emu_cublaslt_missing PRIVATE FC_EMU_LT_NO_MATMUL)
# Versioned like the real library (cublasLtMatmul@libcublasLt.so.13), so the
# test programs hold the same versioned references the shim must interpose.
set(FC_LT_EMU_MAP ${CMAKE_CURRENT_BINARY_DIR}/cublaslt_emu.map)
file(WRITE ${FC_LT_EMU_MAP} [=[libcublasLt.so.13 {
  global: cublasLt*; fc_emu_lt_*;
  local: *;
};
]=])
foreach(t fc_emu_cublaslt fc_emu_cublaslt_missing)
  target_include_directories(${t} PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
  target_link_options(${t} PRIVATE -Wl,--version-script=${FC_LT_EMU_MAP})
  set_property(TARGET ${t} APPEND PROPERTY LINK_DEPENDS ${FC_LT_EMU_MAP})
  set_target_properties(${t} PROPERTIES OUTPUT_NAME cublasLt SOVERSION 13
                                        C_VISIBILITY_PRESET hidden)
endforeach()
set_target_properties(fc_emu_cublaslt PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${FC_LT_EMU_DIR})
set_target_properties(fc_emu_cublaslt_missing PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${FC_LT_STUB_DIR})

function(fc_lt_program name)
  add_executable(${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.c ${CMAKE_CURRENT_LIST_DIR}/lt_check.c
                 ${FC_TESTS_DIR}/emu/real_symbol.c)
  target_include_directories(${name} PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${CMAKE_CURRENT_LIST_DIR} ${FC_TESTS_DIR})
  target_link_libraries(${name} PRIVATE ${ARGN} cmocka PkgConfig::JSONC ${CMAKE_DL_LIBS})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${FC_LT_WORK})
endfunction()

fc_lt_program(test_cublaslt_emu fc_emu_cublaslt)
fc_lt_program(test_cublaslt_missing fc_emu_cublaslt_missing)

# $1 report, $2 shim, $3 LD_LIBRARY_PATH ("" for none), $4 program.
set(FC_LT_RUN
  [=[set -e
mkdir -p "$(dirname "$1")"
rm -f "$1"
if [ -n "$3" ]
then export LD_LIBRARY_PATH="$3${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
LD_PRELOAD="$2" FLOPCOUNT_OUTPUT="$1" FLOPCOUNT_QUIET=1 FC_LT_UNDER_SHIM=1 "$4"
"$4" --check "$1"]=])

# The emulated calls alone (results right without the shim) ...
add_test(NAME cublaslt_emu_plain COMMAND test_cublaslt_emu)
set_tests_properties(cublaslt_emu_plain PROPERTIES ENVIRONMENT "LD_LIBRARY_PATH=${FC_LT_EMU_DIR}")
# ... and under it: same results, exact counts in the report.
add_test(NAME cublaslt_emu_counts
  COMMAND sh -c "${FC_LT_RUN}" lt ${FC_LT_WORK}/emu.json "${FC_PRELOAD}" ${FC_LT_EMU_DIR}
          $<TARGET_FILE:test_cublaslt_emu>)

# twin: the same program and report check through the real libcublasLt.so.13
# on the null GPU (statuses and counts; results are not computed there)
add_test(NAME cublaslt_emu_counts_nullgpu
  COMMAND sh -c "${FC_LT_RUN}" lt ${FC_LT_WORK}/emu_nullgpu.json "${FC_PRELOAD}" "${FC_NULLGPU_LIBS}"
          $<TARGET_FILE:test_cublaslt_emu>)
fc_nullgpu_twin(cublaslt_emu_counts_nullgpu)

add_test(NAME cublaslt_missing_real
  COMMAND sh -c "${FC_LT_RUN}" lt ${FC_LT_WORK}/missing.json "${FC_PRELOAD}"
          ${FC_LT_STUB_DIR} $<TARGET_FILE:test_cublaslt_missing>)
set_tests_properties(cublaslt_missing_real PROPERTIES SKIP_RETURN_CODE 77)

# The real library, when the CUDA toolkit has one.
find_library(FC_LT_REAL_LIB NAMES cublasLt
             HINTS ${FLOPCOUNT_CUDA_LIBDIR} /usr/local/cuda/lib64 NO_DEFAULT_PATH)
if(FC_LT_REAL_LIB)
  fc_lt_program(test_cublaslt_real ${FC_LT_REAL_LIB})
  get_filename_component(FC_LT_REAL_DIR ${FC_LT_REAL_LIB} DIRECTORY)
  set_target_properties(test_cublaslt_real PROPERTIES BUILD_RPATH ${FC_LT_REAL_DIR})
  add_test(NAME cublaslt_real_lib
    COMMAND sh -c "${FC_LT_RUN}" lt ${FC_LT_WORK}/real.json "${FC_PRELOAD}" ""
            $<TARGET_FILE:test_cublaslt_real>)
else()
  message(STATUS "flopcount: no libcublasLt in the CUDA toolkit; cublaslt_real_lib not built")
endif()
