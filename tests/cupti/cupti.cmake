# SPDX-License-Identifier: Apache-2.0
# The cupti layer (shim/cupti/): CUDA graphs, kernel timing and hardware
# FLOPs, on a fake GPU - a fake libcuda.so.1 and a fake libcupti.so.13 built
# against the real CUDA 13 headers (fake_gpu.h) - with the GEMMs of the CPU
# emulations of cuBLAS and cuBLASLt; the real libcupti.so.13 of the toolkit
# for the failure path without a driver and for the offline metric choice.
set(FC_CUPTI_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-cupti)
file(MAKE_DIRECTORY ${FC_CUPTI_WORK})
set(FC_CUPTI_COMPAT ${CMAKE_SOURCE_DIR}/shim/cupti/cxx_compat)

add_library(fc_fake_gpu_driver SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_driver.c)
target_include_directories(fc_fake_gpu_driver PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
target_link_libraries(fc_fake_gpu_driver PRIVATE pthread)
set_target_properties(fc_fake_gpu_driver PROPERTIES OUTPUT_NAME cuda VERSION 1 SOVERSION 1
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fake_gpu_driver)

add_library(fc_fake_cupti SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_cupti.c
            ${CMAKE_CURRENT_LIST_DIR}/fake_cupti_pm.c)
target_include_directories(fc_fake_cupti PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${FC_CUPTI_COMPAT})
target_link_libraries(fc_fake_cupti PRIVATE pthread ${CMAKE_DL_LIBS})
set_target_properties(fc_fake_cupti PROPERTIES OUTPUT_NAME cupti VERSION 13 SOVERSION 13
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fake_cupti)
set(FC_FAKE_CUPTI ${CMAKE_CURRENT_BINARY_DIR}/fake_cupti/libcupti.so.13)

add_library(fc_fake_cudart SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_cudart.c)
target_include_directories(fc_fake_cudart PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
target_link_libraries(fc_fake_cudart PRIVATE fc_fake_gpu_driver)
set_target_properties(fc_fake_cudart PROPERTIES OUTPUT_NAME cudart VERSION 13 SOVERSION 13
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fake_cudart)

add_executable(test_cupti ${CMAKE_CURRENT_LIST_DIR}/test_cupti.c ${FC_TESTS_DIR}/iter/fixture_gpt_stream.c)
target_include_directories(test_cupti PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${FC_TESTS_DIR}/iter)
target_link_libraries(test_cupti PRIVATE fc_cublas_emu fc_emu_cublaslt fc_fake_gpu_driver fc_fake_cudart
                      pthread ${CMAKE_DL_LIBS})
add_dependencies(test_cupti fc_fake_cupti)

# $1 report, $2 preload, $3 library path, $4 program, $5 mode, $6 check script,
# $7 check case, $8 the CUPTI library; then VAR=VALUE settings for the run.
set(FC_CUPTI_RUN [=[set -e
r="$1"; preload="$2"; libs="$3"; prog="$4"; mode="$5"; check="$6"; case="$7"; cupti="$8"
shift 8
rm -f "$r" "$r.err" "$r.klog" "$r.truth"
env LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$preload" \
  FLOPCOUNT_OUTPUT="$r" FLOPCOUNT_CUPTI="$cupti" FAKE_CUDA_KERNEL_LOG="$r.klog" \
  FAKE_TRUTH="$r.truth" ASAN_OPTIONS=detect_leaks=0 "$@" "$prog" "$mode" 2> "$r.err" || {
  cat "$r.err"; exit 1; }
/usr/bin/python3 "$check" "$r" "$case"]=])
set(FC_CUPTI_LIBS "$<TARGET_FILE_DIR:fc_cublas_emu>:$<TARGET_FILE_DIR:fc_emu_cublaslt>")

# fc_cupti_case(CASE MODE CUPTI_LIBRARY [VAR=VALUE ...])
function(fc_cupti_case name mode cupti)
  add_test(NAME cupti_${name}
           COMMAND sh -c "${FC_CUPTI_RUN}" cupti ${FC_CUPTI_WORK}/${name}.json "${FC_PRELOAD}"
                   "${FC_CUPTI_LIBS}" $<TARGET_FILE:test_cupti> ${mode}
                   ${CMAKE_CURRENT_LIST_DIR}/cupti_check.py ${name} "${cupti}" FLOPCOUNT_QUIET=0 ${ARGN})
endfunction()

foreach(mode basic interleaved threads forked mixed train)
  fc_cupti_case(graphs_${mode} ${mode} ${FC_FAKE_CUPTI})
endforeach()
fc_cupti_case(kernels kernels ${FC_FAKE_CUPTI} FLOPCOUNT_KERNELS=1 FLOPCOUNT_PEAK_TFLOPS=2.048)
fc_cupti_case(hwflops hwflops ${FC_FAKE_CUPTI} FLOPCOUNT_HW_FLOPS=1 FLOPCOUNT_PEAK_TFLOPS=2.048
              FLOPCOUNT_LOG_EVERY=1)
fc_cupti_case(signal signal ${FC_FAKE_CUPTI} FLOPCOUNT_KERNELS=1)
fc_cupti_case(hw_privileges hwflops ${FC_FAKE_CUPTI} FLOPCOUNT_HW_FLOPS=1 FAKE_CUPTI_PM_RESULT=35)
fc_cupti_case(runtime_cupti runtime ${FC_FAKE_CUPTI})
fc_cupti_case(runtime_off runtime 0 FLOPCOUNT_KERNELS=1)
fc_cupti_case(runtime_missing runtime /nonexistent/libcupti.so.13)
fc_cupti_case(runtime_busy runtime ${FC_FAKE_CUPTI} FAKE_CUPTI_SUBSCRIBE_RESULT=39 FLOPCOUNT_KERNELS=1)
# Graphs through the runtime's graph calls (PyTorch's path): counted at each
# replay by CUPTI's callbacks, and without them - another subscriber holds
# CUPTI (cuptiSubscribe fails), or CUPTI is off - by the runtime's hooks.
fc_cupti_case(rtgraphs_cupti rtgraphs ${FC_FAKE_CUPTI})
fc_cupti_case(rtgraphs_busy rtgraphs ${FC_FAKE_CUPTI} FAKE_CUPTI_SUBSCRIBE_RESULT=39)
fc_cupti_case(rtgraphs_off rtgraphs 0)
# The real CUPTI 13 of the toolkit with no driver behind it (the fake one
# has none of CUPTI's private entry points): cuptiSubscribe fails.
find_file(FC_REAL_CUPTI libcupti.so.13 PATHS ${FLOPCOUNT_CUDA_LIBDIR}
          ${FLOPCOUNT_CUDA_LIBDIR}/../extras/CUPTI/lib64 NO_DEFAULT_PATH)
if(FC_REAL_CUPTI)
  fc_cupti_case(runtime_real runtime ${FC_REAL_CUPTI} FLOPCOUNT_KERNELS=1 FLOPCOUNT_HW_FLOPS=1)
endif()
set_tests_properties(cupti_graphs_threads PROPERTIES TIMEOUT 120)

add_executable(test_cupti_units ${CMAKE_CURRENT_LIST_DIR}/test_cupti_units.c
               ${CMAKE_SOURCE_DIR}/shim/cupti/idmap.c)
target_include_directories(test_cupti_units PRIVATE ${CMAKE_SOURCE_DIR}/shim)
target_link_libraries(test_cupti_units PRIVATE fc_analysis cmocka)
add_test(NAME cupti_units COMMAND test_cupti_units)

# The counter table against the real host API (offline): GA100, GH100, GB100.
# Not under sanitizers: libcupti dlopens libnvperf_host with RTLD_DEEPBIND,
# which the ASan runtime refuses.
if(FC_REAL_CUPTI AND FLOPCOUNT_SANITIZE STREQUAL "")
  add_executable(test_hw_metrics ${CMAKE_CURRENT_LIST_DIR}/test_hw_metrics.c
                 ${CMAKE_SOURCE_DIR}/shim/cupti/hwmetrics.c)
  target_include_directories(test_hw_metrics PRIVATE ${CMAKE_SOURCE_DIR}/shim
                             ${FLOPCOUNT_CUDA_INCLUDE} ${FC_CUPTI_COMPAT})
  target_link_libraries(test_hw_metrics PRIVATE fc_analysis ${CMAKE_DL_LIBS})
  add_test(NAME cupti_hw_metrics_offline COMMAND test_hw_metrics ${FC_REAL_CUPTI})
endif()

# The sections through `flopcount report` and `flopcount merge`.
add_test(NAME cupti_cli COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/cupti_cli.py
         $<TARGET_FILE:flopcount_cli> ${FC_CUPTI_WORK}/hwflops.json ${FC_CUPTI_WORK}/cli)
set_tests_properties(cupti_hwflops PROPERTIES FIXTURES_SETUP cupti_hw_report)
set_tests_properties(cupti_cli PROPERTIES FIXTURES_REQUIRED cupti_hw_report
                     ENVIRONMENT "FC_SANITIZER_RUNTIME=${FC_SANITIZER_RUNTIME}")

# Kernel launches seen through CUPTI's launch callbacks (shim/cupti/launches.c):
# a statically linked runtime's, dlsym'd driver launches (Triton, cuDNN),
# captured ones replayed, and one the shim's hook saw first; CUPTI started by
# the driver's injection (CUDA_INJECTION64_PATH) in a program that runs no GEMM.
add_executable(test_cupti_launch ${CMAKE_CURRENT_LIST_DIR}/test_cupti_launch.c)
target_include_directories(test_cupti_launch PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${FC_TESTS_DIR}/launch)
target_link_libraries(test_cupti_launch PRIVATE fc_fake_gpu_driver fc_fake_cudart ${CMAKE_DL_LIBS})
add_dependencies(test_cupti_launch fc_fake_cupti)
set(FC_CUPTI_LAUNCH_RUN [=[set -e
r="$1"; preload="$2"; prog="$3"; mode="$4"; check="$5"; cupti="$6"; inject="$7"; case="$8"
rm -f "$r" "$r.truth"
env LD_PRELOAD="$preload" FLOPCOUNT_OUTPUT="$r" FLOPCOUNT_CUPTI="$cupti" FAKE_TRUTH="$r.truth" \
  CUDA_INJECTION64_PATH="$inject" FLOPCOUNT_QUIET=1 ASAN_OPTIONS=detect_leaks=0 "$prog" "$mode"
/usr/bin/python3 "$check" "$case" "$r" "$r.truth"]=])
foreach(mode static driver capture dedup hookcapture)
  add_test(NAME cupti_launch_${mode}
           COMMAND sh -c "${FC_CUPTI_LAUNCH_RUN}" launch ${FC_CUPTI_WORK}/launch_${mode}.json
                   "${FC_PRELOAD}" $<TARGET_FILE:test_cupti_launch> ${mode}
                   ${CMAKE_CURRENT_LIST_DIR}/launch_cupti_check.py ${FC_FAKE_CUPTI}
                   $<TARGET_FILE:flopcount> ${mode})
endforeach()
add_test(NAME cupti_launch_noinjection
         COMMAND sh -c "${FC_CUPTI_LAUNCH_RUN}" launch ${FC_CUPTI_WORK}/launch_noinjection.json
                 "${FC_PRELOAD}" $<TARGET_FILE:test_cupti_launch> static
                 ${CMAKE_CURRENT_LIST_DIR}/launch_cupti_check.py ${FC_FAKE_CUPTI} "" noinjection)
