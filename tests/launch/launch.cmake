# SPDX-License-Identifier: Apache-2.0
# The kernel-launch layer (shim/launch/, hooks/launch.c): the registry,
# family table, mangled-name reader and decoders as units (the parameter
# structs written field by field in params.h); and the real toolchain: a
# program built by nvcc with PyTorch's and flash-attn's kernel names and
# parameter layouts, run on the real CUDA 13 runtime without a GPU (every
# launch fails, after the hooks saw it), on a fake runtime where every
# launch succeeds, and built with -cudart static (not seen: the report says
# so). Skipped, with the reason, when nvcc is not there.
add_executable(test_launch_units ${CMAKE_CURRENT_LIST_DIR}/test_launch_units.c
               ${CMAKE_SOURCE_DIR}/shim/launch/families.c ${CMAKE_SOURCE_DIR}/shim/launch/mangled.c
               ${CMAKE_SOURCE_DIR}/shim/launch/fa2.c ${CMAKE_SOURCE_DIR}/shim/launch/memeff.c
               ${CMAKE_SOURCE_DIR}/shim/launch/registry.c ${CMAKE_SOURCE_DIR}/shim/launch/decoders.c
               ${CMAKE_SOURCE_DIR}/shim/core/diag.c)
target_include_directories(test_launch_units PRIVATE ${CMAKE_SOURCE_DIR}/shim ${CMAKE_SOURCE_DIR}/shim/launch
                           ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_launch_units PRIVATE fc_analysis cmocka m)
add_test(NAME launch_units COMMAND test_launch_units)

add_library(fc_fake_launch_cudart SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_cudart.c)
target_include_directories(fc_fake_launch_cudart PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
target_link_options(fc_fake_launch_cudart PRIVATE
                    -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/fake_cudart.map)
set_target_properties(fc_fake_launch_cudart PROPERTIES OUTPUT_NAME cudart VERSION 13 SOVERSION 13
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fake_launch_cudart)

if(CUDAToolkit_NVCC_EXECUTABLE)
  set(FC_NVCC ${CUDAToolkit_NVCC_EXECUTABLE})
else()
  find_program(FC_NVCC nvcc PATHS /usr/local/cuda/bin)
endif()
set(FC_LAUNCH_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-launch)
file(MAKE_DIRECTORY ${FC_LAUNCH_WORK})
if(FC_NVCC)
  set(fc_prog_src ${CMAKE_CURRENT_LIST_DIR}/prog.cu ${CMAKE_CURRENT_LIST_DIR}/prog_pt27.cu)
  set(fc_prog_dep ${fc_prog_src} ${CMAKE_CURRENT_LIST_DIR}/kernels.cuh ${CMAKE_CURRENT_LIST_DIR}/params.h)
  foreach(rt shared static)
    add_custom_command(OUTPUT ${FC_LAUNCH_WORK}/launch_prog_${rt}
      COMMAND ${FC_NVCC} -arch=sm_80 -cudart ${rt} -w -I${CMAKE_CURRENT_LIST_DIR}
              -o ${FC_LAUNCH_WORK}/launch_prog_${rt} ${fc_prog_src}
      DEPENDS ${fc_prog_dep} COMMENT "nvcc: the launch tests' program (-cudart ${rt})" VERBATIM)
  endforeach()
  add_custom_target(fc_launch_progs ALL DEPENDS ${FC_LAUNCH_WORK}/launch_prog_shared
                    ${FC_LAUNCH_WORK}/launch_prog_static)
  # $1 mode, $2 program, $3 preload, $4 libs ("" none), $5 check, $6 work prefix
  set(FC_LAUNCH_RUN [=[set -e
mode="$1"; prog="$2"; preload="$3"; libs="$4"; check="$5"; w="$6"
rm -f "$w".json "$w".truth "$w".out "$w".plain "$w".log "$w".plainlog
sizes='16flash_fwd_kernelINS_23Flash_fwd_kernel_traitsILi128ELi128ELi64=456;'
sizes="$sizes"'_ZN13pytorch_flash16flash_fwd_kernelINS_23Flash_fwd_kernel_traitsILi64ELi128ELi64=448;'
sizes="$sizes"'44flash_bwd_dq_dk_dv_loop_seqk_parallel_kernelINS_=632;fmha_cutlassF=272;fmha_cutlassB=464'
env LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" FAKE_PARAM_SIZES="$sizes" \
  FAKE_CUDART_LOG="$w".plainlog LD_PRELOAD="${FC_SANITIZER_RUNTIME:-}" ASAN_OPTIONS=detect_leaks=0 \
  "$prog" > "$w".plain
env LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" FAKE_PARAM_SIZES="$sizes" \
  FAKE_CUDART_LOG="$w".log LD_PRELOAD="$preload" FLOPCOUNT_OUTPUT="$w".json FAKE_TRUTH="$w".truth \
  FLOPCOUNT_CUPTI=0 ASAN_OPTIONS=detect_leaks=0 "$prog" > "$w".out
/usr/bin/python3 "$check" "$mode" "$w".json "$w".truth "$w".out "$w".plain "$w".log "$w".plainlog]=])
  add_test(NAME launch_real_runtime
           COMMAND sh -c "${FC_LAUNCH_RUN}" launch real ${FC_LAUNCH_WORK}/launch_prog_shared
                   "${FC_PRELOAD}" "" ${CMAKE_CURRENT_LIST_DIR}/launch_check.py ${FC_LAUNCH_WORK}/real)
  add_test(NAME launch_fake_runtime
           COMMAND sh -c "${FC_LAUNCH_RUN}" launch fake ${FC_LAUNCH_WORK}/launch_prog_shared
                   "${FC_PRELOAD}" $<TARGET_FILE_DIR:fc_fake_launch_cudart>
                   ${CMAKE_CURRENT_LIST_DIR}/launch_check.py ${FC_LAUNCH_WORK}/fake)
  add_test(NAME launch_static_runtime
           COMMAND sh -c "${FC_LAUNCH_RUN}" launch static ${FC_LAUNCH_WORK}/launch_prog_static
                   "${FC_PRELOAD}" "" ${CMAKE_CURRENT_LIST_DIR}/launch_check.py ${FC_LAUNCH_WORK}/static)
  # twins: the real runtime on the null GPU, where launches succeed
  add_test(NAME launch_fake_runtime_nullgpu
           COMMAND sh -c "${FC_LAUNCH_RUN}" launch nullgpu ${FC_LAUNCH_WORK}/launch_prog_shared
                   "${FC_PRELOAD}" "${FC_NULLGPU_LIBS}" ${CMAKE_CURRENT_LIST_DIR}/launch_check.py
                   ${FC_LAUNCH_WORK}/nullgpu)
  add_test(NAME launch_static_runtime_nullgpu
           COMMAND sh -c "${FC_LAUNCH_RUN}" launch static ${FC_LAUNCH_WORK}/launch_prog_static
                   "${FC_PRELOAD}" "${FC_NULLGPU_LIBS}" ${CMAKE_CURRENT_LIST_DIR}/launch_check.py
                   ${FC_LAUNCH_WORK}/static_nullgpu)
  foreach(t launch_fake_runtime_nullgpu launch_static_runtime_nullgpu)
    fc_nullgpu_twin(${t} "FC_SANITIZER_RUNTIME=${FC_SANITIZER_RUNTIME}")
  endforeach()
  # a sanitized build's fake runtime needs its sanitizer's runtime in the
  # run without the shim too
  set_tests_properties(launch_real_runtime launch_fake_runtime launch_static_runtime PROPERTIES
                       ENVIRONMENT "FC_SANITIZER_RUNTIME=${FC_SANITIZER_RUNTIME}")
else()
  add_test(NAME launch_nvcc_programs
           COMMAND sh -c "echo 'launch: skipped: nvcc not found (the real-toolchain launch tests need it)'; exit 77")
  set_tests_properties(launch_nvcc_programs PROPERTIES SKIP_RETURN_CODE 77)
endif()

# A launch through dlsym on the runtime's handle (hooks/dlsym.c answers it
# with the launch hook): counted. b 1, h 4, 256 x 256 causal, d 128: the
# forward's 2 P (d + d) per head with P = 256 * 257 / 2 = 32,896 pairs:
# 4 x 2 x 32,896 x 256 = 67,371,008 FLOPs.
add_executable(test_launch_dlsym ${CMAKE_CURRENT_LIST_DIR}/dlsym_launch.c)
target_include_directories(test_launch_dlsym PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_launch_dlsym PRIVATE ${CMAKE_DL_LIBS})
add_dependencies(test_launch_dlsym fc_fake_launch_cudart)
add_test(NAME launch_dlsym
         COMMAND sh -c "set -e; r=$1; rm -f $r
env LD_PRELOAD=$2 FLOPCOUNT_OUTPUT=$r FLOPCOUNT_QUIET=1 FLOPCOUNT_CUPTI=0 ASAN_OPTIONS=detect_leaks=0 $3 $4 > $r.out
grep -qx hook $r.out
/usr/bin/python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))[\"attention\"]; sys.exit(0 if (a[\"calls\"], int(a[\"flops\"])) == (1, 67371008) else \"counted: %s\" % a)' $r"
                 launch ${FC_LAUNCH_WORK}/dlsym.json "${FC_PRELOAD}" $<TARGET_FILE:test_launch_dlsym>
                 $<TARGET_FILE:fc_fake_launch_cudart>)
