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
