# SPDX-License-Identifier: Apache-2.0
# merge_bench: 'flopcount merge' on 1,024 synthetic rank reports, end to end.
# A build target only (not a test): run build/bin/merge_bench to see the time.
add_executable(merge_bench merge_bench.c ${CMAKE_SOURCE_DIR}/tests/merge/merge_gen.c)
target_compile_definitions(merge_bench PRIVATE FC_GEN_NO_MAIN
                           FC_FLOPCOUNT_EXE="$<TARGET_FILE:flopcount_cli>")
target_include_directories(merge_bench PRIVATE ${CMAKE_SOURCE_DIR}/tests/merge)
target_link_libraries(merge_bench PRIVATE fc_analysis)
add_dependencies(merge_bench flopcount_cli)
