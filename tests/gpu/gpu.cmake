# SPDX-License-Identifier: Apache-2.0
# The GPU validation run (tests/gpu/README.md) as far as it goes without a GPU:
#   gpu_prepare        installs this build into a prefix as `run.sh --prepare` does for the GPU machine
#   gpu_dry_run        run.sh --dry-run on it: script syntax, bring-up from the prefix, every check's
#                      SKIP path, every check's logic on synthetic reports, a hanging and a crashing
#                      check, the summary's shape
#   gpu_rehearsal_cpu  check 03's whole logic on Debian's CPU torch (skipped without it)
# Not in sanitizer builds: the GPU machine gets a plain build.
if(FLOPCOUNT_SANITIZE STREQUAL "")
  set(FC_GPU_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-gpu)
  add_test(NAME gpu_prepare
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run.sh --prepare ${FC_GPU_WORK}/prefix
                   --from-build ${CMAKE_BINARY_DIR})
  set_tests_properties(gpu_prepare PROPERTIES FIXTURES_SETUP fc_gpu_prefix LABELS "gpu;cheap" TIMEOUT 120)
  add_test(NAME gpu_dry_run
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run.sh --dry-run --prefix ${FC_GPU_WORK}/prefix
                   --out ${FC_GPU_WORK}/dry-run)
  set_tests_properties(gpu_dry_run PROPERTIES FIXTURES_REQUIRED fc_gpu_prefix LABELS "gpu;cheap" TIMEOUT 300)
  add_test(NAME gpu_rehearsal_cpu
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run.sh --rehearse-cpu --prefix ${FC_GPU_WORK}/prefix
                   --out ${FC_GPU_WORK}/rehearsal)
  set_tests_properties(gpu_rehearsal_cpu PROPERTIES FIXTURES_REQUIRED fc_gpu_prefix LABELS "gpu;torch"
                       SKIP_RETURN_CODE 77 TIMEOUT 400)
endif()
