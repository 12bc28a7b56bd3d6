# SPDX-License-Identifier: Apache-2.0
# The forward / backward / recompute split on real PyTorch (CPU), checked
# against each program's own per-phase counter (tests/split/*.py;
# docs/iterations.md, "How sure the split is"): the five program shapes of
# issue 13 and a bounded slice of the randomized property test. The full
# randomized run (200 graphs) and the repeated class runs are commands in
# docs/iterations.md, not ctest entries.

# NVTX for Python: CPU torch has none, so the child opens its NVTX phase
# ranges through this library (the NVTX v3 header implementation).
add_library(fixture_nvtx_py SHARED ${CMAKE_CURRENT_LIST_DIR}/fixture_nvtx_py.c)
target_include_directories(fixture_nvtx_py PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
target_link_libraries(fixture_nvtx_py PRIVATE ${CMAKE_DL_LIBS})
set_target_properties(fixture_nvtx_py PROPERTIES C_VISIBILITY_PRESET hidden)

set(FC_SPLIT_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-split)
file(MAKE_DIRECTORY ${FC_SPLIT_WORK})
set(FC_SPLIT_ENV "FC_NVTX_FIXTURE=$<TARGET_FILE:fixture_nvtx_py>")

# One run of every program of each class, in every mode, in processes
# forked from one that imported torch (--fork: seconds instead of a torch
# import per run); threads: 64 GEMM threads lose nothing, 160 lose some and
# the report says so. The repeated runs in fresh processes (flakiness) are
# the command in docs/iterations.md.
foreach(cls shared frozen gan self)
  add_test(NAME split_class_${cls}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/split_classes.py
                   ${FC_PRELOAD} ${FC_SPLIT_WORK}/${cls} ${cls} --runs 1 --fork)
  set_tests_properties(split_class_${cls} PROPERTIES LABELS torch TIMEOUT 600
                       ENVIRONMENT "${FC_SPLIT_ENV}")
endforeach()
add_test(NAME split_class_threads
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/split_threads.py
                 ${FC_PRELOAD} ${FC_SPLIT_WORK}/threads --runs 1 --threads 64)
add_test(NAME split_class_threads_over
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/split_threads.py
                 ${FC_PRELOAD} ${FC_SPLIT_WORK}/threads-over --runs 1 --threads 160)
set_tests_properties(split_class_threads split_class_threads_over PROPERTIES LABELS torch TIMEOUT 600)

# A bounded, seeded slice of the randomized property test: six graphs,
# automatic (exact or flagged), markers and NVTX ranges (exact).
add_test(NAME split_graphs_slice
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/split_graphs.py
                 ${FC_PRELOAD} ${FC_SPLIT_WORK}/graphs --seeds 1000:1006
                 --modes auto,marked,nvtx --require-exact-marked --fork)
set_tests_properties(split_graphs_slice PROPERTIES LABELS torch TIMEOUT 900
                     ENVIRONMENT "${FC_SPLIT_ENV}")

# The ranges frameworks emit (PyTorch autograd, TransformerEngine) and
# plain forward/backward ranges, read by the shim's NVTX injection, make a
# CPU-BLAS training loop's split exact (test_split_nvtx.c has the FLOPs).
find_library(FC_SPLIT_LIBBLAS NAMES blas PATHS /usr/lib/x86_64-linux-gnu REQUIRED)
add_executable(test_split_nvtx ${CMAKE_CURRENT_LIST_DIR}/test_split_nvtx.c)
target_include_directories(test_split_nvtx PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
target_link_libraries(test_split_nvtx PRIVATE ${FC_SPLIT_LIBBLAS} PkgConfig::JSONC ${CMAKE_DL_LIBS})
foreach(mode torch te plain)
  add_test(NAME split_nvtx_${mode}
           COMMAND sh -c [=[set -e
mkdir -p "$(dirname "$1")"
rm -f "$1"
LD_PRELOAD="$2" NVTX_INJECTION64_PATH="$3" FLOPCOUNT_OUTPUT="$1" FLOPCOUNT_QUIET=1 \
  ASAN_OPTIONS=detect_leaks=0 "$4" RUN "$5"
"$4" --check "$1" "$5"]=] split_nvtx ${FC_SPLIT_WORK}/nvtx_${mode}.json "${FC_PRELOAD}"
                   $<TARGET_FILE:flopcount> $<TARGET_FILE:test_split_nvtx> ${mode})
endforeach()

# The Python module's forward()/backward()/recompute() on a checkpointed GAN.
add_test(NAME split_pymodule
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/split_pymodule.py ${FC_PRELOAD}
                 ${CMAKE_BINARY_DIR}/lib/flopcount/python ${FC_SPLIT_WORK}/pymodule)
set_tests_properties(split_pymodule PROPERTIES LABELS torch TIMEOUT 600)

# nanoGPT's own train.py (issue 29) against its per-phase count, when a
# checkout of github.com/karpathy/nanoGPT is named by FC_NANOGPT_DIR at test
# time (nothing is fetched; without it the test says why and passes): three
# configurations, one run each way here; the 20-run figures are the command
# in docs/iterations.md.
add_test(NAME split_nanogpt
         COMMAND sh -c [=[exec /usr/bin/python3 "$1" "$2" "$3" "${FC_NANOGPT_DIR:-}" "$4" --runs 1]=]
                 split_nanogpt ${CMAKE_CURRENT_LIST_DIR}/split_nanogpt.py $<TARGET_FILE:flopcount_cli>
                 ${FC_PRELOAD} ${FC_SPLIT_WORK}/nanogpt)
set_tests_properties(split_nanogpt PROPERTIES LABELS torch TIMEOUT 900)
