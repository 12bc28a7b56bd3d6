# SPDX-License-Identifier: Apache-2.0
# bench/footprint.py's launcher: runs one command and prints its wall time,
# CPU time and peak RSS (bench/README.md, "Footprint").
add_executable(rusage_run ${CMAKE_CURRENT_LIST_DIR}/rusage_run.c)
set_target_properties(rusage_run PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
