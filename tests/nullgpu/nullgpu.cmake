# SPDX-License-Identifier: Apache-2.0
# The null GPU itself (nullgpu/, docs/nullgpu.md), label nullgpu: each
# private export table, the unsupported-entry-point log, fork from a
# threaded process, the real CUDA runtime (shared and static) under the
# shim, each device kind as `flopcount peak` detects it, and the generated
# entry-point list against the installed toolkit. The twins of the tests
# that use the project's emulations are registered beside them
# (fc_nullgpu_twin in tests/CMakeLists.txt).
set(FC_NULLGPU_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-nullgpu)
file(MAKE_DIRECTORY ${FC_NULLGPU_WORK})

add_executable(test_nullgpu_driver ${CMAKE_CURRENT_LIST_DIR}/test_nullgpu_driver.c)
target_include_directories(test_nullgpu_driver PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
target_link_libraries(test_nullgpu_driver PRIVATE nullgpu pthread ${CMAKE_DL_LIBS})
foreach(c cudart hooks tls cls checks integrity ctxid t1734 devext nvrtc greenctx fork)
  add_test(NAME nullgpu_driver_${c} COMMAND test_nullgpu_driver ${c})
  set_tests_properties(nullgpu_driver_${c} PROPERTIES LABELS nullgpu)
endforeach()

# The log: one line for the unsupported entry point however often it is called.
add_test(NAME nullgpu_unsupported_log COMMAND sh -c [=[
log="$2/unsupported.log"; rm -f "$log"
FLOPCOUNT_NULLGPU_LOG="$log" "$1" unsupported || exit 1
n=$(grep -c '^flopcount: nullgpu: cuArrayCreate_v2 not supported$' "$log")
[ "$n" = 1 ] || { echo "FAIL: $n log lines for cuArrayCreate_v2"; cat "$log"; exit 1; }
echo "logged once"]=] sh $<TARGET_FILE:test_nullgpu_driver> ${FC_NULLGPU_WORK})
set_tests_properties(nullgpu_unsupported_log PROPERTIES LABELS nullgpu)

# Each device kind: the name, SMs, capability and peak-table entry flopcount
# detects through the null GPU (peaks: docs/peak.md's table, bf16 dense).
add_test(NAME nullgpu_device_kinds
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/device_kinds.sh $<TARGET_FILE:flopcount_cli>
          ${FC_NULLGPU_DIR}/libcuda.so.1)
set_tests_properties(nullgpu_device_kinds PROPERTIES LABELS nullgpu)

find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_FOUND AND EXISTS ${FLOPCOUNT_CUDA_LIBDIR}/stubs/libcuda.so)
  add_test(NAME nullgpu_entry_points_current
    COMMAND sh -c [=[
"$1" "$2/gen_entry_points.py" "$3" "$4" "$5/entry_points.inc" 2>/dev/null &&
  cmp "$2/entry_points.inc" "$5/entry_points.inc" ||
  { echo "FAIL: nullgpu/entry_points.inc differs from the toolkit's; rerun gen_entry_points.py"; exit 1; }]=]
            sh ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/nullgpu ${FLOPCOUNT_CUDA_INCLUDE}
            ${FLOPCOUNT_CUDA_LIBDIR}/stubs/libcuda.so ${FC_NULLGPU_WORK})
  set_tests_properties(nullgpu_entry_points_current PROPERTIES LABELS nullgpu)
endif()

# The real runtime, shared and static, under the shim: the program's own
# checks, then the launch log (name, grid, block, parameter bytes: 8 + 4 + 4).
# shared_zstd: its fatbin zstd-compressed (--compress-mode=size, as
# PyTorch's cu13 wheels ship every kernel): the parameter bytes read
# through libzstd.
if(FC_NVCC)
  foreach(v shared static shared_zstd)
    set(rt ${v})
    set(zflags)
    if(v STREQUAL "shared_zstd")
      set(rt shared)
      set(zflags --compress-mode=size)
    endif()
    add_custom_command(OUTPUT ${FC_NULLGPU_WORK}/cudart_prog_${v}
      COMMAND ${FC_NVCC} -arch=sm_90 -cudart ${rt} ${zflags} -w -o ${FC_NULLGPU_WORK}/cudart_prog_${v}
              ${CMAKE_CURRENT_LIST_DIR}/cudart_prog.cu
      DEPENDS ${CMAKE_CURRENT_LIST_DIR}/cudart_prog.cu COMMENT "nvcc: the null GPU's runtime program (${v})"
      VERBATIM)
    list(APPEND fc_nullgpu_progs ${FC_NULLGPU_WORK}/cudart_prog_${v})
    add_test(NAME nullgpu_cudart_${v} COMMAND sh -c [=[
w="$2"; rm -f "$w".launches "$w".json
env LD_LIBRARY_PATH="$3" LD_PRELOAD="$4" FLOPCOUNT_OUTPUT="$w".json FLOPCOUNT_QUIET=1 \
  FLOPCOUNT_NULLGPU_LAUNCH_LOG="$w".launches "$1" || exit 1
k=_Z5scalePffi
want="launch $k grid=4,1,1 block=256,1,1 smem=0 params=16
launch $k grid=8,1,1 block=128,1,1 smem=0 params=16
graph $k grid=2,1,1 block=512,1,1 smem=0 params=16
graph $k grid=2,1,1 block=512,1,1 smem=0 params=16"
[ "$(cat "$w".launches)" = "$want" ] || { echo "FAIL: launch log"; cat "$w".launches; exit 1; }
echo "launch log ok"]=] sh ${FC_NULLGPU_WORK}/cudart_prog_${v} ${FC_NULLGPU_WORK}/cudart_${v}
      ${FC_NULLGPU_LIBS} "${FC_PRELOAD}")
    set_tests_properties(nullgpu_cudart_${v} PROPERTIES LABELS nullgpu)
  endforeach()
  add_custom_target(fc_nullgpu_progs ALL DEPENDS ${fc_nullgpu_progs})
endif()

# The real cuBLAS and cuBLASLt, linked, under the shim: the counts of
# real_blas.c's header, worked out by hand.
find_library(FC_NULLGPU_CUBLASLT NAMES libcublasLt.so.13 cublasLt PATHS ${FLOPCOUNT_CUDA_LIBDIR} NO_DEFAULT_PATH)
find_library(FC_NULLGPU_CUDART NAMES libcudart.so.13 cudart PATHS ${FLOPCOUNT_CUDA_LIBDIR} NO_DEFAULT_PATH)
if(FC_REAL_CUBLAS AND FC_NULLGPU_CUBLASLT AND FC_NULLGPU_CUDART)
  add_executable(test_nullgpu_real_blas ${CMAKE_CURRENT_LIST_DIR}/real_blas.c)
  target_include_directories(test_nullgpu_real_blas PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
  target_link_libraries(test_nullgpu_real_blas PRIVATE ${FC_REAL_CUBLAS} ${FC_NULLGPU_CUBLASLT}
                        ${FC_NULLGPU_CUDART})
  add_test(NAME nullgpu_real_blas COMMAND sh -c [=[
rm -f "$2"
env LD_LIBRARY_PATH="$3" LD_PRELOAD="$4" FLOPCOUNT_OUTPUT="$2" FLOPCOUNT_QUIET=1 FLOPCOUNT_CUPTI=0 "$1" || exit 1
/usr/bin/python3 - "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
got = sorted((s["api"], s["m"], s["n"], s["k"], s["batch"], s["calls"], int(s["flops"])) for s in r["shapes"])
want = sorted([("cublasSgemm_v2", 64, 64, 64, 1, 1, 524288), ("cublasSgemm_v2", 64, 64, 64, 1, 1, 524288),
               ("cublasGemmEx", 64, 64, 64, 1, 1, 524288), ("cublasGemmEx", 64, 64, 64, 1, 1, 524288),
               ("cublasSgemmStridedBatched", 32, 32, 32, 4, 1, 262144),
               ("cublasLtMatmul", 128, 256, 64, 1, 1, 4194304)])
t = r["totals"]
if got != want or (t["gemm_calls"], int(t["gemm_flops"])) != (6, 6553600):
    sys.exit("FAIL: counted %s, totals %s" % (got, t))
print("6 GEMMs, 6,553,600 FLOPs, as worked out")
PY]=] sh $<TARGET_FILE:test_nullgpu_real_blas> ${FC_NULLGPU_WORK}/real_blas.json ${FC_NULLGPU_LIBS}
    "${FC_PRELOAD}")
  set_tests_properties(nullgpu_real_blas PROPERTIES LABELS nullgpu)
endif()

# CUPTI on the null GPU fails cleanly: cuptiSubscribe returns an error and
# the process goes on (the toolkit's CUPTI, and the nvidia-cu13 wheel's
# 13.2 when the torch environment is there: it once recursed to a SIGSEGV).
add_executable(test_nullgpu_cupti ${CMAKE_CURRENT_LIST_DIR}/cupti_refused.c)
target_link_libraries(test_nullgpu_cupti PRIVATE ${CMAKE_DL_LIBS})
find_library(FC_NULLGPU_CUPTI_TOOLKIT NAMES libcupti.so.13 PATHS ${FLOPCOUNT_CUDA_LIBDIR}
             ${FLOPCOUNT_CUDA_LIBDIR}/../extras/CUPTI/lib64 NO_DEFAULT_PATH)
file(GLOB FC_NULLGPU_CUPTI_WHEEL
     "$ENV{HOME}/.cache/flopcount/torch-venv/lib/python3*/site-packages/nvidia/cu13/lib/libcupti.so.13")
set(fc_cuptis)
if(FC_NULLGPU_CUPTI_TOOLKIT)
  list(APPEND fc_cuptis toolkit ${FC_NULLGPU_CUPTI_TOOLKIT})
endif()
if(FC_NULLGPU_CUPTI_WHEEL)
  list(GET FC_NULLGPU_CUPTI_WHEEL 0 fc_wheel_cupti)
  list(APPEND fc_cuptis wheel ${fc_wheel_cupti})
endif()
while(fc_cuptis)
  list(POP_FRONT fc_cuptis which lib)
  add_test(NAME nullgpu_cupti_${which} COMMAND sh -c [=[
log="$2/cupti-$3.log"; rm -f "$log"
env LD_LIBRARY_PATH="$4" FLOPCOUNT_NULLGPU_LOG="$log" "$1" "$5" || exit 1
n=$(grep -c 'export table 7cb63f9b.* refused' "$log")
[ "$n" = 0 ] || { echo "FAIL: table 7cb63f9b refused $n times"; exit 1; }
echo "cuptiSubscribe failed cleanly"]=] sh $<TARGET_FILE:test_nullgpu_cupti> ${FC_NULLGPU_WORK}
          ${which} ${FC_NULLGPU_DIR} ${lib})
  set_tests_properties(nullgpu_cupti_${which} PROPERTIES LABELS nullgpu)
endwhile()
