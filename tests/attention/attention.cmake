# SPDX-License-Identifier: Apache-2.0
# Fused attention (issues 25, 26): the FLOP arithmetic of analysis/attention.c
# against hand counts and a brute-force count over every (query, key) pair.
add_executable(test_attention_flops ${CMAKE_CURRENT_LIST_DIR}/test_attention_flops.c)
target_link_libraries(test_attention_flops PRIVATE fc_analysis cmocka)
add_test(NAME attention_flops COMMAND test_attention_flops)

# Counted attention in 'flopcount report' (text, --json), 'flopcount merge'
# and the job report assembled from parts, on reports written by hand.
set(FC_ATTN_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-attention)
foreach(scenario report merge job)
  add_test(NAME attention_${scenario}
    COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/report_attention.py ${scenario}
            $<TARGET_FILE:flopcount_cli> ${FC_ATTN_WORK})
endforeach()

# The --html pages with counted attention: the attention section, its share
# among the headline figures, the waterfall's attention steps; parsed, and
# (label chromium) rendered by headless chromium.
foreach(mode pages browser)
  add_test(NAME attention_html_${mode}
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/html_attention.py ${mode}
            $<TARGET_FILE:flopcount_cli> ${FC_ATTN_WORK})
endforeach()
set_tests_properties(attention_html_browser PROPERTIES LABELS chromium TIMEOUT 300
                     SKIP_RETURN_CODE 77)
