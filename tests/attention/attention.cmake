# SPDX-License-Identifier: Apache-2.0
# Fused attention (issues 25, 26): the FLOP arithmetic of analysis/attention.c
# against hand counts and a brute-force count over every (query, key) pair.
add_executable(test_attention_flops ${CMAKE_CURRENT_LIST_DIR}/test_attention_flops.c)
target_link_libraries(test_attention_flops PRIVATE fc_analysis cmocka)
add_test(NAME attention_flops COMMAND test_attention_flops)
