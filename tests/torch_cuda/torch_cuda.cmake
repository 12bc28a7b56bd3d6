# SPDX-License-Identifier: Apache-2.0
# Real PyTorch CUDA on the null GPU (nullgpu/), under flopcount, on every CI
# run (labels nullgpu, torch_cuda; ctest -L torch_cuda runs them alone): the
# checks of tests/gpu that need no real time or hardware counters, with the
# torch wheel scripts/deps.sh test installs in its cached environment, and
# `flopcount run --null-gpu` end to end. The checks that need a real device
# (01 peak, 06 kernels, 07a ncu, 07b hardware FLOPs, 08 overhead) report
# SKIP with that reason. Not in sanitizer builds (an uninstrumented
# interpreter; scripts/ci/sanitizers.sh leaves label torch out anyway).
if(FLOPCOUNT_SANITIZE STREQUAL "")
  set(FC_TORCH_CUDA_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-torch-cuda)
  set(FC_TORCH_CUDA_NG $<TARGET_FILE_DIR:nullgpu>)
  # id:limit (seconds, on 2 busy cores); 05_jax is not here (a JAX check:
  # the environment has PyTorch only)
  foreach(c 02_eager_gemms:240 03_gpt_train:300 09_sdpa:300 10_grad_accum:240 11_dtype_mix:200
            04a_cuda_graphs:200 04b_compile:600 01_peak:60 06_kernels:60 07a_ncu_reference:60
            07b_hw_flops:60 08_overhead:60)
    string(REPLACE ":" ";" c ${c})
    list(GET c 0 id)
    list(GET c 1 limit)
    add_test(NAME torch_cuda_${id}
             COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_check.sh ${FC_TORCH_CUDA_NG}
                     ${FC_GPU_WORK}/prefix ${FC_TORCH_CUDA_WORK} ${id} ${limit})
    set_tests_properties(torch_cuda_${id} PROPERTIES LABELS "nullgpu;torch_cuda"
                         FIXTURES_REQUIRED fc_gpu_prefix SKIP_RETURN_CODE 77 TIMEOUT ${limit})
  endforeach()
  add_test(NAME torch_cuda_run_null_gpu
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/null_gpu_run.py
                   $<TARGET_FILE:flopcount_cli> ${FC_TORCH_CUDA_WORK}/run)
  set_tests_properties(torch_cuda_run_null_gpu PROPERTIES LABELS "nullgpu;torch_cuda"
                       SKIP_RETURN_CODE 77 TIMEOUT 180)
endif()
