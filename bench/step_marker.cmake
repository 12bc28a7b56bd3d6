# SPDX-License-Identifier: Apache-2.0
# bench/step_marker: the step edges that bench/nullgpu_step.py --marker
# gives callgrind (valgrind's client requests: its header comes with
# Debian's valgrind package, `bash scripts/deps.sh bench`); skipped when the
# header is missing (bench/nullgpu_ir.py then says so).
include(CheckIncludeFile)
check_include_file(valgrind/callgrind.h FC_HAVE_CALLGRIND_H)
if(FC_HAVE_CALLGRIND_H)
  add_library(fc_step_marker SHARED ${CMAKE_CURRENT_LIST_DIR}/step_marker.c)
  set_target_properties(fc_step_marker PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
endif()
