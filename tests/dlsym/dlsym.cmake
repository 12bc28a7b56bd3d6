# SPDX-License-Identifier: Apache-2.0
# GEMMs reached through dlopen + dlsym (issue 15): programs that link no
# cuBLAS and load it by handle, as XLA and cuDNN do. Over the CPU emulations
# (two copies of each, from two paths), over the real CUDA 13 libraries, from
# a constructor, and a pass-through check that every other lookup is
# unchanged (the same program run without and under the shim, outputs
# compared).
set(FC_DLSYM_DIR ${CMAKE_BINARY_DIR}/tests/dlsym)
set(FC_DLSYM_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-dlsym)
file(MAKE_DIRECTORY ${FC_DLSYM_WORK})

# Second copies of the emulations: the same code in other files, so the
# dynamic loader maps them as other objects (a symlink would be the same one).
set(FC_DLSYM_CUBLAS_B ${FC_DLSYM_DIR}/copy/libcublas.so.13)
set(FC_DLSYM_LT_B ${FC_DLSYM_DIR}/copy-lt/libcublasLt.so.13)
add_custom_command(OUTPUT ${FC_DLSYM_CUBLAS_B} ${FC_DLSYM_LT_B}
  COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:fc_cublas_emu> ${FC_DLSYM_CUBLAS_B}
  COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:fc_emu_cublaslt> ${FC_DLSYM_LT_B}
  DEPENDS fc_cublas_emu fc_emu_cublaslt
  COMMENT "Second copies of the cuBLAS and cuBLASLt emulations")
add_custom_target(fc_dlsym_copies ALL DEPENDS ${FC_DLSYM_CUBLAS_B} ${FC_DLSYM_LT_B})

# A libcublas.so.13 whose cublasSgemm_v2 calls cublasLtMatmul.
add_library(fc_dlsym_over_lt SHARED ${CMAKE_CURRENT_LIST_DIR}/fixture_cublas_over_lt.c)
target_include_directories(fc_dlsym_over_lt PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
target_link_libraries(fc_dlsym_over_lt PRIVATE fc_emu_cublaslt)
set_target_properties(fc_dlsym_over_lt PROPERTIES OUTPUT_NAME cublas SOVERSION 13
                      LIBRARY_OUTPUT_DIRECTORY ${FC_DLSYM_DIR}/over-lt)

# Constructors that look a GEMM up with dlsym: one linked, one dlopen()ed.
foreach(t fc_dlsym_ctor_linked fc_dlsym_ctor_loaded)
  add_library(${t} SHARED ${CMAKE_CURRENT_LIST_DIR}/fixture_ctor_dlsym.c)
  target_link_libraries(${t} PRIVATE ${CMAKE_DL_LIBS})
endforeach()

# Caller-relative lookups (RTLD_NEXT, RTLD_DEFAULT) and unloading.
add_library(fc_dlsym_next_second SHARED ${CMAKE_CURRENT_LIST_DIR}/fixture_next_second.c)
add_library(fc_dlsym_next_first SHARED ${CMAKE_CURRENT_LIST_DIR}/fixture_next_first.c)
target_link_libraries(fc_dlsym_next_first PRIVATE fc_dlsym_next_second ${CMAKE_DL_LIBS})
add_library(fc_dlsym_scope_dep SHARED ${CMAKE_CURRENT_LIST_DIR}/fixture_scope_dep.c)
add_library(fc_dlsym_scope_top SHARED ${CMAKE_CURRENT_LIST_DIR}/fixture_scope_top.c)
target_link_libraries(fc_dlsym_scope_top PRIVATE fc_dlsym_scope_dep ${CMAKE_DL_LIBS})
add_library(fc_dlsym_unload SHARED ${CMAKE_CURRENT_LIST_DIR}/fixture_unload.c)
foreach(t fc_dlsym_ctor_linked fc_dlsym_ctor_loaded fc_dlsym_next_second fc_dlsym_next_first
          fc_dlsym_scope_dep fc_dlsym_scope_top fc_dlsym_unload)
  set_target_properties(${t} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${FC_DLSYM_DIR})
endforeach()

function(fc_dlsym_program name)
  add_executable(${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.c ${FC_TESTS_DIR}/emu/real_symbol.c)
  target_include_directories(${name} PRIVATE ${FC_TESTS_DIR} ${FLOPCOUNT_CUDA_INCLUDE})
  target_link_libraries(${name} PRIVATE ${ARGN} ${CMAKE_DL_LIBS})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${FC_DLSYM_DIR})
endfunction()
fc_dlsym_program(test_dlsym_emu fc_cublas_check pthread)
add_dependencies(test_dlsym_emu fc_dlsym_copies fc_dlsym_over_lt fc_dlsym_ctor_loaded)
fc_dlsym_program(test_dlsym_early fc_cublas_check fc_dlsym_ctor_linked)
fc_dlsym_program(test_dlsym_passthrough fc_dlsym_next_first)
add_dependencies(test_dlsym_passthrough fc_dlsym_scope_top fc_dlsym_unload)

# Environment of a counting run; report at a path of its own.
function(fc_dlsym_env out name)
  set(${out} "LD_PRELOAD=${FC_PRELOAD}" "FLOPCOUNT_OUTPUT=${FC_DLSYM_WORK}/${name}.json"
             "FLOPCOUNT_QUIET=1" "FC_DLSYM_CTOR_CUBLAS=$<TARGET_FILE:fc_cublas_emu>" PARENT_SCOPE)
endfunction()

find_library(FC_DLSYM_LIBBLAS NAMES blas PATHS /usr/lib/x86_64-linux-gnu REQUIRED)
add_test(NAME dlsym_emu
  COMMAND test_dlsym_emu $<TARGET_FILE:fc_cublas_emu> ${FC_DLSYM_CUBLAS_B}
          $<TARGET_FILE:fc_emu_cublaslt> ${FC_DLSYM_LT_B} $<TARGET_FILE:fc_dlsym_over_lt>
          $<TARGET_FILE:fc_dlsym_ctor_loaded> ${FC_DLSYM_LIBBLAS})
fc_dlsym_env(env dlsym_emu)
set_tests_properties(dlsym_emu PROPERTIES ENVIRONMENT "${env}")

add_test(NAME dlsym_early_constructor COMMAND test_dlsym_early)
fc_dlsym_env(env dlsym_early)
set_tests_properties(dlsym_early_constructor PROPERTIES ENVIRONMENT "${env}")

# The real CUDA 13 libraries, where the toolkit has them (no GPU needed).
find_library(FC_DLSYM_REAL_CUBLAS NAMES libcublas.so.13 PATHS ${FLOPCOUNT_CUDA_LIBDIR}
             NO_DEFAULT_PATH)
find_library(FC_DLSYM_REAL_LT NAMES libcublasLt.so.13 PATHS ${FLOPCOUNT_CUDA_LIBDIR}
             NO_DEFAULT_PATH)
if(FC_DLSYM_REAL_CUBLAS AND FC_DLSYM_REAL_LT)
  fc_dlsym_program(test_dlsym_real fc_cublas_check)
  add_test(NAME dlsym_real_cuda13
    COMMAND test_dlsym_real ${FC_DLSYM_REAL_CUBLAS} ${FC_DLSYM_REAL_LT})
  fc_dlsym_env(env dlsym_real)
  set_tests_properties(dlsym_real_cuda13 PROPERTIES ENVIRONMENT "${env}")
else()
  message(STATUS "flopcount: no libcublas.so.13/libcublasLt.so.13 in ${FLOPCOUNT_CUDA_LIBDIR}; dlsym_real_cuda13 skipped")
endif()

# A Python extension module and the libpython it needs, from the Debian
# interpreter the torch tests use ("-" when there is none).
set(FC_DLSYM_PY - - -)
execute_process(
  COMMAND /usr/bin/python3 -c
    "import sysconfig, _json; print(sysconfig.get_config_var('LIBDIR') + '/' + sysconfig.get_config_var('INSTSONAME') + ';' + _json.__file__ + ';PyInit__json')"
  OUTPUT_VARIABLE fc_dlsym_py OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE fc_dlsym_py_rc
  ERROR_QUIET)
if(fc_dlsym_py_rc EQUAL 0 AND fc_dlsym_py MATCHES "\\.so")
  list(GET fc_dlsym_py 0 fc_dlsym_libpython)
  if(EXISTS ${fc_dlsym_libpython})
    set(FC_DLSYM_PY ${fc_dlsym_py})
  endif()
endif()

# The same lookups without and under the shim: outputs must be identical.
add_test(NAME dlsym_passthrough_unchanged
  COMMAND sh -c [=[set -e
"$1" "$3" "$4" "$5" "$6" "$7" > "$2/plain.txt"
LD_PRELOAD="$8" "$1" "$3" "$4" "$5" "$6" "$7" --under-shim > "$2/shim.txt"
diff -u "$2/plain.txt" "$2/shim.txt"
cat "$2/shim.txt"]=] sh
          $<TARGET_FILE:test_dlsym_passthrough> ${FC_DLSYM_WORK}
          $<TARGET_FILE:fc_dlsym_scope_top> $<TARGET_FILE:fc_dlsym_unload> ${FC_DLSYM_PY}
          "${FC_PRELOAD}")
set_tests_properties(dlsym_passthrough_unchanged PROPERTIES ENVIRONMENT
  "FLOPCOUNT_QUIET=1;FLOPCOUNT_OUTPUT=${FC_DLSYM_WORK}/passthrough.json")

# Python's ctypes, a dlopen + dlsym client (the interpreter is not
# instrumented: in an ASan build its own leaks are not ours to report).
add_test(NAME dlsym_python_ctypes
  COMMAND sh -c [=[set -e
rm -f "$4"
LD_PRELOAD="$1" FLOPCOUNT_OUTPUT="$4" FLOPCOUNT_QUIET=1 /usr/bin/python3 "$2" "$3"
/usr/bin/python3 "$2" --check "$4"]=] sh
          "${FC_PRELOAD}" ${CMAKE_CURRENT_LIST_DIR}/ctypes_sgemm.py
          $<TARGET_FILE:fc_cublas_emu> ${FC_DLSYM_WORK}/ctypes.json)
if(FLOPCOUNT_SANITIZE STREQUAL "address")
  set_tests_properties(dlsym_python_ctypes PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()

# A libflopcount.so rewritten by patchelf (as tests/gpu/prepare.sh installs
# it: RUNPATH $ORIGIN), which moves its .dynamic section: the shim must
# still find the real dlsym, not itself (that was an endless loop).
find_program(FC_DLSYM_PATCHELF patchelf)
if(FC_DLSYM_PATCHELF AND FLOPCOUNT_SANITIZE STREQUAL "")
  add_test(NAME dlsym_patchelf_shim
    COMMAND sh -c [=[set -e
mkdir -p "$2/patchelf"
cp "$1" "$2/patchelf/libflopcount.so"
"$3" --set-rpath '$ORIGIN' "$2/patchelf/libflopcount.so"
# the premise: the dynamic section moved
a=$(readelf -lW "$1" | awk '$1 == "DYNAMIC" {print $3}')
b=$(readelf -lW "$2/patchelf/libflopcount.so" | awk '$1 == "DYNAMIC" {print $3}')
[ "$a" != "$b" ] || { echo "patchelf left .dynamic at $a: nothing tested"; exit 1; }
"$4" "$5" "$6" "$7" "$8" "$9" > "$2/patchelf/plain.txt"
LD_PRELOAD="$2/patchelf/libflopcount.so" "$4" "$5" "$6" "$7" "$8" "$9" --under-shim \
  > "$2/patchelf/shim.txt"
diff -u "$2/patchelf/plain.txt" "$2/patchelf/shim.txt"]=] sh
            $<TARGET_FILE:flopcount> ${FC_DLSYM_WORK} ${FC_DLSYM_PATCHELF}
            $<TARGET_FILE:test_dlsym_passthrough> $<TARGET_FILE:fc_dlsym_scope_top>
            $<TARGET_FILE:fc_dlsym_unload> ${FC_DLSYM_PY})
  set_tests_properties(dlsym_patchelf_shim PROPERTIES TIMEOUT 60
    ENVIRONMENT "FLOPCOUNT_QUIET=1;FLOPCOUNT_OUTPUT=${FC_DLSYM_WORK}/patchelf/report.json")
endif()
