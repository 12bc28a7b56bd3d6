# SPDX-License-Identifier: Apache-2.0
# cuDNN backend API (issue 26): shim/cudnn/ (descriptor table, graph walk,
# masks, plans) and shim/hooks/cudnn.c. Built only where the CUDA toolkit
# has cuDNN's headers (the tests build graphs against the real
# cudnn_graph.h; the shim itself needs none).
find_path(FC_CUDNN_INCLUDE cudnn_graph.h PATHS ${FLOPCOUNT_CUDA_INCLUDE} NO_DEFAULT_PATH)
if(NOT FC_CUDNN_INCLUDE)
  message(STATUS "flopcount: no cudnn_graph.h in the CUDA headers; cuDNN tests not built")
  return()
endif()
set(FC_CUDNN_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-cudnn)
set(FC_CUDNN_SHIM_SOURCES
  ${CMAKE_SOURCE_DIR}/shim/cudnn/desc_table.c ${CMAKE_SOURCE_DIR}/shim/cudnn/desc_attrs.c
  ${CMAKE_SOURCE_DIR}/shim/cudnn/graph_walk.c ${CMAKE_SOURCE_DIR}/shim/cudnn/mask_band.c
  ${CMAKE_SOURCE_DIR}/shim/cudnn/plan_exec.c ${CMAKE_SOURCE_DIR}/shim/count/uncounted.c
  ${CMAKE_SOURCE_DIR}/shim/core/lazymem.c)

# The layer on its own, fed the builders' call sequences by a recorder.
add_executable(test_cudnn_walk ${CMAKE_CURRENT_LIST_DIR}/test_cudnn_walk.c
               ${CMAKE_CURRENT_LIST_DIR}/sdpa_build.c ${FC_CUDNN_SHIM_SOURCES})
target_include_directories(test_cudnn_walk PRIVATE ${CMAKE_SOURCE_DIR}/shim ${FLOPCOUNT_CUDA_INCLUDE}
                           ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_cudnn_walk PRIVATE fc_analysis cmocka pthread ${CMAKE_DL_LIBS})
add_test(NAME cudnn_walk COMMAND test_cudnn_walk)

# The real cuDNN 9 of the toolkit (no GPU needed), linked and through
# dlopen + dlsym: every graph's executes fail, the report holds them with
# the FLOPs the shim read off the real descriptors.
find_library(FC_CUDNN_REAL_LIB NAMES libcudnn.so.9 PATHS ${FLOPCOUNT_CUDA_LIBDIR}
             /usr/local/cuda/lib /usr/local/cuda/lib64 NO_DEFAULT_PATH)
if(FC_CUDNN_REAL_LIB)
  get_filename_component(FC_CUDNN_REAL_DIR ${FC_CUDNN_REAL_LIB} DIRECTORY)
  add_executable(test_cudnn_real ${CMAKE_CURRENT_LIST_DIR}/test_cudnn_real.c
                 ${CMAKE_CURRENT_LIST_DIR}/cudnn_cases.c ${CMAKE_CURRENT_LIST_DIR}/sdpa_build.c
                 ${CMAKE_CURRENT_LIST_DIR}/sdpa_linked.c ${FC_TESTS_DIR}/emu/real_symbol.c)
  target_include_directories(test_cudnn_real PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${FC_TESTS_DIR}
                             ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(test_cudnn_real PRIVATE ${FC_CUDNN_REAL_LIB} cmocka PkgConfig::JSONC
                        ${CMAKE_DL_LIBS})
  set_target_properties(test_cudnn_real PROPERTIES BUILD_RPATH ${FC_CUDNN_REAL_DIR})
  # the same program linking no cuDNN: it only ever reaches it through dlopen + dlsym
  add_executable(test_cudnn_real_dl ${CMAKE_CURRENT_LIST_DIR}/test_cudnn_real.c
                 ${CMAKE_CURRENT_LIST_DIR}/cudnn_cases.c ${CMAKE_CURRENT_LIST_DIR}/sdpa_build.c
                 ${FC_TESTS_DIR}/emu/real_symbol.c)
  target_compile_definitions(test_cudnn_real_dl PRIVATE FC_CUDNN_DLOPEN_ONLY)
  target_include_directories(test_cudnn_real_dl PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${FC_TESTS_DIR}
                             ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(test_cudnn_real_dl PRIVATE cmocka PkgConfig::JSONC ${CMAKE_DL_LIBS})
  # $1 report, $2 shim, $3 program, $4 mode, $5 library
  set(FC_CUDNN_RUN [=[set -e
mkdir -p "$(dirname "$1")"
rm -f "$1"
# leaks of the real cuDNN (its engines' cuBLASLt handles) are not the shim's
ASAN_OPTIONS=detect_leaks=0 LD_PRELOAD="$2" FLOPCOUNT_OUTPUT="$1" FLOPCOUNT_QUIET=1 "$3" run "$4" "$5"
"$3" --check "$1"]=])
  add_test(NAME cudnn_real_linked
    COMMAND sh -c "${FC_CUDNN_RUN}" cudnn ${FC_CUDNN_WORK}/real-linked.json "${FC_PRELOAD}"
            $<TARGET_FILE:test_cudnn_real> linked ${FC_CUDNN_REAL_LIB})
  add_test(NAME cudnn_real_dlopen
    COMMAND sh -c "${FC_CUDNN_RUN}" cudnn ${FC_CUDNN_WORK}/real-dlopen.json "${FC_PRELOAD}"
            $<TARGET_FILE:test_cudnn_real_dl> dlopen ${FC_CUDNN_REAL_LIB})
  # twins on the null GPU: cudnnCreate succeeds there and the library works
  # with a live handle; these graphs' plans still do not finalize, so each
  # execute fails as the check expects (docs/nullgpu.md)
  add_test(NAME cudnn_real_linked_nullgpu
    COMMAND sh -c "${FC_CUDNN_RUN}" cudnn ${FC_CUDNN_WORK}/real-linked-nullgpu.json "${FC_PRELOAD}"
            $<TARGET_FILE:test_cudnn_real> linked ${FC_CUDNN_REAL_LIB})
  add_test(NAME cudnn_real_dlopen_nullgpu
    COMMAND sh -c "${FC_CUDNN_RUN}" cudnn ${FC_CUDNN_WORK}/real-dlopen-nullgpu.json "${FC_PRELOAD}"
            $<TARGET_FILE:test_cudnn_real_dl> dlopen ${FC_CUDNN_REAL_LIB})
  foreach(t cudnn_real_linked_nullgpu cudnn_real_dlopen_nullgpu)
    fc_nullgpu_twin(${t} "LD_LIBRARY_PATH=${FC_NULLGPU_LIBS}")
  endforeach()
else()
  message(STATUS "flopcount: no libcudnn.so.9 in the CUDA toolkit; cudnn_real_* not built")
endif()

# The fake cuDNN 9 (built against the real cudnn_graph.h): libcudnn.so.9
# forwarding through dlopen + dlsym to libcudnn_graph.so.9, as the real
# one does; there plans finalize and executes succeed.
set(FC_CUDNN_FAKE_DIR ${CMAKE_BINARY_DIR}/fake-cudnn)
add_library(fc_fake_cudnn_graph SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_cudnn_graph.c)
add_library(fc_fake_cudnn SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_cudnn.c)
target_link_libraries(fc_fake_cudnn PRIVATE ${CMAKE_DL_LIBS} pthread)
set_target_properties(fc_fake_cudnn_graph PROPERTIES OUTPUT_NAME cudnn_graph SOVERSION 9)
set_target_properties(fc_fake_cudnn PROPERTIES OUTPUT_NAME cudnn SOVERSION 9)
foreach(t fc_fake_cudnn_graph fc_fake_cudnn)
  target_include_directories(${t} PRIVATE ${FLOPCOUNT_CUDA_INCLUDE})
  set_target_properties(${t} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${FC_CUDNN_FAKE_DIR})
endforeach()
add_dependencies(fc_fake_cudnn fc_fake_cudnn_graph)

function(fc_cudnn_fake_program name)
  add_executable(${name} ${CMAKE_CURRENT_LIST_DIR}/test_cudnn_fake.c
                 ${CMAKE_CURRENT_LIST_DIR}/cudnn_cases.c ${CMAKE_CURRENT_LIST_DIR}/sdpa_build.c
                 ${FC_TESTS_DIR}/emu/real_symbol.c ${ARGN})
  target_include_directories(${name} PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${FC_TESTS_DIR}
                             ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(${name} PRIVATE cmocka PkgConfig::JSONC ${CMAKE_DL_LIBS})
  add_dependencies(${name} fc_fake_cudnn)
endfunction()
fc_cudnn_fake_program(test_cudnn_fake ${CMAKE_CURRENT_LIST_DIR}/sdpa_linked.c)
target_link_libraries(test_cudnn_fake PRIVATE fc_fake_cudnn)
fc_cudnn_fake_program(test_cudnn_fake_dl)
target_compile_definitions(test_cudnn_fake_dl PRIVATE FC_CUDNN_DLOPEN_ONLY)

set(FC_CUDNN_FAKE_RUN [=[set -e
mkdir -p "$(dirname "$1")"
rm -f "$1"
export LD_LIBRARY_PATH="$6${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# the fake driver's graphs and execs are never destroyed: not leaks of the shim
ASAN_OPTIONS=detect_leaks=0 LD_PRELOAD="$2" FLOPCOUNT_OUTPUT="$1" FLOPCOUNT_QUIET=1 "$3" run $4 $5
"$3" --check "$1"]=])
add_test(NAME cudnn_fake_linked
  COMMAND sh -c "${FC_CUDNN_FAKE_RUN}" cudnn ${FC_CUDNN_WORK}/fake-linked.json "${FC_PRELOAD}"
          $<TARGET_FILE:test_cudnn_fake> linked ${FC_CUDNN_FAKE_DIR}/libcudnn.so.9 ${FC_CUDNN_FAKE_DIR})
add_test(NAME cudnn_fake_dlopen
  COMMAND sh -c "${FC_CUDNN_FAKE_RUN}" cudnn ${FC_CUDNN_WORK}/fake-dlopen.json "${FC_PRELOAD}"
          $<TARGET_FILE:test_cudnn_fake_dl> dlopen ${FC_CUDNN_FAKE_DIR}/libcudnn.so.9 ${FC_CUDNN_FAKE_DIR})

# Their twins: the same programs on the toolkit's real cuDNN 9 on the null
# GPU (a live handle on each operation graph, cudaMalloc'd tensors and
# workspace): every attention graph and the matmul plan, run to the end,
# with the same hand counts; the defence cases (made-up graphs only an
# emulation accepts) are the fake's alone (docs/nullgpu.md). The linked
# program's RUNPATH names the fake; LD_LIBRARY_PATH, ahead of it, the real one.
if(FC_CUDNN_REAL_LIB)
  add_test(NAME cudnn_fake_linked_nullgpu
    COMMAND sh -c "${FC_CUDNN_FAKE_RUN}" cudnn ${FC_CUDNN_WORK}/fake-linked-nullgpu.json "${FC_PRELOAD}"
            $<TARGET_FILE:test_cudnn_fake> linked ${FC_CUDNN_REAL_LIB} ${FC_CUDNN_REAL_DIR})
  add_test(NAME cudnn_fake_dlopen_nullgpu
    COMMAND sh -c "${FC_CUDNN_FAKE_RUN}" cudnn ${FC_CUDNN_WORK}/fake-dlopen-nullgpu.json "${FC_PRELOAD}"
            $<TARGET_FILE:test_cudnn_fake_dl> dlopen ${FC_CUDNN_REAL_LIB} ${FC_CUDNN_REAL_DIR})
  foreach(t cudnn_fake_linked_nullgpu cudnn_fake_dlopen_nullgpu)
    fc_nullgpu_twin(${t} "LD_LIBRARY_PATH=${FC_NULLGPU_LIBS}")
  endforeach()
endif()

# The shim's own copy of the backend numbers, against the real header.
add_executable(test_cudnn_abi ${CMAKE_CURRENT_LIST_DIR}/test_cudnn_abi.c ${FC_CUDNN_SHIM_SOURCES})
target_include_directories(test_cudnn_abi PRIVATE ${CMAKE_SOURCE_DIR}/shim ${FLOPCOUNT_CUDA_INCLUDE})
target_link_libraries(test_cudnn_abi PRIVATE fc_analysis cmocka pthread)
add_test(NAME cudnn_abi COMMAND test_cudnn_abi)

# ... and its numbers from newer cuDNNs (the ones PyTorch's cuDNN 9.26
# sets) against the header of the nvidia-cudnn wheel, when the torch
# environment is there (~/.cache/flopcount/torch-venv; scripts/deps.sh test).
set(FLOPCOUNT_CUDNN_WHEEL_INCLUDE "" CACHE PATH "include folder of the nvidia-cudnn wheel (9.21+)")
set(FC_CUDNN_WHEEL_HINTS ${FLOPCOUNT_CUDNN_WHEEL_INCLUDE})
if(NOT FC_CUDNN_WHEEL_HINTS)
  file(GLOB FC_CUDNN_WHEEL_HINTS
       "$ENV{HOME}/.cache/flopcount/torch-venv/lib/python3*/site-packages/nvidia/cudnn/include")
endif()
find_path(FC_CUDNN_WHEEL_INCLUDE cudnn_graph.h HINTS ${FC_CUDNN_WHEEL_HINTS} NO_DEFAULT_PATH)
if(FC_CUDNN_WHEEL_INCLUDE)
  add_executable(test_cudnn_abi_newer ${CMAKE_CURRENT_LIST_DIR}/test_cudnn_abi_newer.c)
  # the wheel's header first: its cudnn_graph.h, not the toolkit's
  target_include_directories(test_cudnn_abi_newer BEFORE PRIVATE ${FC_CUDNN_WHEEL_INCLUDE})
  target_include_directories(test_cudnn_abi_newer PRIVATE ${CMAKE_SOURCE_DIR}/shim
                             ${FLOPCOUNT_CUDA_INCLUDE})
  add_test(NAME cudnn_abi_newer COMMAND test_cudnn_abi_newer)
else()
  message(STATUS "flopcount: no nvidia-cudnn wheel header; cudnn_abi_newer not built")
endif()

# fork while two threads are in the hooks: the child never waits on the table's lock.
add_executable(test_cudnn_fork ${CMAKE_CURRENT_LIST_DIR}/test_cudnn_fork.c
               ${CMAKE_CURRENT_LIST_DIR}/sdpa_build.c)
target_include_directories(test_cudnn_fork PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_cudnn_fork PRIVATE cmocka pthread ${CMAKE_DL_LIBS})
add_dependencies(test_cudnn_fork fc_fake_cudnn)
add_test(NAME cudnn_fork COMMAND test_cudnn_fork ${FC_CUDNN_FAKE_DIR}/libcudnn.so.9)
set_tests_properties(cudnn_fork PROPERTIES ENVIRONMENT
  "LD_PRELOAD=${FC_PRELOAD};LD_LIBRARY_PATH=${FC_CUDNN_FAKE_DIR};FLOPCOUNT_QUIET=1")

# Plans in CUDA graphs (stream capture, cudnnBackendPopulateCudaGraph) on
# the fake GPU of tests/cupti: counted at each launch of the graph.
add_executable(test_cudnn_graphs ${CMAKE_CURRENT_LIST_DIR}/test_cudnn_graphs.c
               ${CMAKE_CURRENT_LIST_DIR}/cudnn_cases.c ${CMAKE_CURRENT_LIST_DIR}/sdpa_build.c)
target_include_directories(test_cudnn_graphs PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_cudnn_graphs PRIVATE fc_fake_gpu_driver cmocka PkgConfig::JSONC
                      ${CMAKE_DL_LIBS})
add_dependencies(test_cudnn_graphs fc_fake_cudnn fc_fake_cupti)
add_test(NAME cudnn_graphs
  COMMAND sh -c "${FC_CUDNN_FAKE_RUN}" cudnn ${FC_CUDNN_WORK}/graphs.json "${FC_PRELOAD}"
          $<TARGET_FILE:test_cudnn_graphs> ${FC_CUDNN_FAKE_DIR}/libcudnn.so.9 "" ${FC_CUDNN_FAKE_DIR})
set_tests_properties(cudnn_graphs PROPERTIES ENVIRONMENT "FLOPCOUNT_CUPTI=$<TARGET_FILE:fc_fake_cupti>")

# cuDNN calls from a library constructor that runs before the shim's.
add_library(fc_cudnn_ctor SHARED ${CMAKE_CURRENT_LIST_DIR}/fixture_ctor_cudnn.c
            ${CMAKE_CURRENT_LIST_DIR}/cudnn_cases.c ${CMAKE_CURRENT_LIST_DIR}/sdpa_build.c
            ${CMAKE_CURRENT_LIST_DIR}/sdpa_linked.c)
target_include_directories(fc_cudnn_ctor PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(fc_cudnn_ctor PRIVATE fc_fake_cudnn cmocka PkgConfig::JSONC ${CMAKE_DL_LIBS})
# the cases and graph builders come from the library (one copy of their
# globals in the process: ASan's one-definition check)
add_executable(test_cudnn_early ${CMAKE_CURRENT_LIST_DIR}/test_cudnn_early.c)
target_include_directories(test_cudnn_early PRIVATE ${FLOPCOUNT_CUDA_INCLUDE} ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_cudnn_early PRIVATE fc_cudnn_ctor cmocka PkgConfig::JSONC ${CMAKE_DL_LIBS})
add_test(NAME cudnn_early_constructor
  COMMAND sh -c "${FC_CUDNN_FAKE_RUN}" cudnn ${FC_CUDNN_WORK}/early.json "${FC_PRELOAD}"
          $<TARGET_FILE:test_cudnn_early> "" "" ${FC_CUDNN_FAKE_DIR})
