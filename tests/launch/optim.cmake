# SPDX-License-Identifier: Apache-2.0
# Optimizer steps and the launching thread, end to end (docs/iterations.md):
# optim_prog.cu trains fixture_gpt_stream.c's GPT through the cuBLAS
# emulation and launches optimizer kernels under PyTorch's and apex's
# mangled names on the fake runtime (tests/launch); optim_check.py checks
# each report against the split worked out from the shapes. Cases: ARGS of
# optim_prog, then BY COUNT MICRO RECOMPUTE THREADS EVALS.
if(FC_NVCC)
  set(fc_optim_prog ${FC_LAUNCH_WORK}/optim_prog)
  add_custom_command(OUTPUT ${fc_optim_prog}
    COMMAND ${FC_NVCC} -arch=sm_80 -cudart shared -w -I${CMAKE_SOURCE_DIR}/tests/iter
            -I${FLOPCOUNT_CUDA_INCLUDE} -o ${fc_optim_prog} ${CMAKE_CURRENT_LIST_DIR}/optim_prog.cu
            ${CMAKE_SOURCE_DIR}/tests/iter/fixture_gpt_stream.c -L${FC_CUBLAS_EMU_DIR} -lcublas -lpthread
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/optim_prog.cu ${CMAKE_SOURCE_DIR}/tests/iter/fixture_gpt_stream.c
            ${CMAKE_SOURCE_DIR}/tests/iter/fixture_gpt_stream.h fc_cublas_emu
    COMMENT "nvcc: the optimizer-step program" VERBATIM)
  add_custom_target(fc_optim_prog ALL DEPENDS ${fc_optim_prog})
  set(FC_OPTIM_RUN [=[set -e
prog="$1"; preload="$2"; libs="$3"; check="$4"; w="$5"; shift 5
i=0
while [ $# -ge 11 ]; do
  i=$((i + 1))
  rm -f "$w$i".json
  env LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$preload" \
    FLOPCOUNT_OUTPUT="$w$i".json FLOPCOUNT_QUIET=1 FLOPCOUNT_CUPTI=0 ASAN_OPTIONS=detect_leaks=0 \
    "$prog" "$1" "$2" "$3" "$4" "$5" > /dev/null
  /usr/bin/python3 "$check" "$w$i".json "$6" "$7" "$8" "$9" "${10}" "${11}"
  echo "case $i ($1 $2 $3 $4 $5): ok"
  shift 11
done]=])
  set(fc_optim_cases
                   # accumulation 1, 3, 8; clip, LR fill, zero_grad both ways, evaluation
                   1 6 adamw czfle 0   optimizer 6 1 0 off 2
                   3 6 adamw czfle 0   optimizer 6 3 0 off 2
                   8 4 sgd cze 0       optimizer 4 8 0 off 2
                   # _foreach_* in every forward and loss, an EMA after the step
                   3 5 adamw cFE 0     optimizer 5 3 0 off 0
                   8 4 apex cFEt 0     optimizer 4 8 0 on 0
                   # no optimizer kernels after the backward: the automatic cut
                   3 6 none Fz 0       auto 18 1 0 off 0
                   # the backward on autograd's thread, the first layer recomputed
                   1 8 sgd te 1        optimizer 8 1 1 on 2
                   3 6 apex cet 1      optimizer 6 3 1 on 2
                   # forward and backward on one thread
                   3 6 adamw ce 1      optimizer 6 3 1 off 2)
  add_test(NAME launch_optim_steps
           COMMAND sh -c "${FC_OPTIM_RUN}" optim ${fc_optim_prog} "${FC_PRELOAD}"
                   "$<TARGET_FILE_DIR:fc_fake_launch_cudart>:${FC_CUBLAS_EMU_DIR}"
                   ${CMAKE_CURRENT_LIST_DIR}/optim_check.py ${FC_LAUNCH_WORK}/optim ${fc_optim_cases})
  # twin: the real runtime and libcublas.so.13 on the null GPU
  add_test(NAME launch_optim_steps_nullgpu
           COMMAND sh -c "${FC_OPTIM_RUN}" optim ${fc_optim_prog} "${FC_PRELOAD}" "${FC_NULLGPU_LIBS}"
                   ${CMAKE_CURRENT_LIST_DIR}/optim_check.py ${FC_LAUNCH_WORK}/optim_nullgpu
                   ${fc_optim_cases})
  fc_nullgpu_twin(launch_optim_steps_nullgpu)
endif()
