# SPDX-License-Identifier: Apache-2.0
# 'flopcount report --html' and 'flopcount merge --html' (issue 19): the
# writer's unit tests; the pages' structure and figures read with Python's
# html.parser; and, labelled chromium, the pages rendered by a real browser
# (Debian's chromium, headless: scripts/deps.sh installs it) to DOM and PNG.
add_executable(test_html_writer ${CMAKE_CURRENT_LIST_DIR}/test_html_writer.c)
target_link_libraries(test_html_writer PRIVATE fc_cli cmocka m)
add_test(NAME html_writer COMMAND test_html_writer)

set(FC_HTML_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-html)
foreach(scenario report merge big bad)
  add_test(NAME html_pages_${scenario}
    COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/html_pages.py ${scenario}
            $<TARGET_FILE:merge_gen> $<TARGET_FILE:flopcount_cli> ${FC_HTML_WORK})
endforeach()
set_tests_properties(html_pages_big PROPERTIES TIMEOUT 300)

# A real browser. Skipped (77) when chromium is not installed.
add_test(NAME html_browser_report
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/html_browser.py report
          ${FC_HTML_WORK}/browser-report $<TARGET_FILE:flopcount_cli> $<TARGET_FILE:flopcount>
          ${CMAKE_SOURCE_DIR}/scripts/demo/tiny_gpt.py)
add_test(NAME html_browser_merge
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/html_browser.py merge
          ${FC_HTML_WORK}/browser-merge $<TARGET_FILE:flopcount_cli> $<TARGET_FILE:merge_gen>)
set_tests_properties(html_browser_report PROPERTIES LABELS "chromium;torch" TIMEOUT 300
                     SKIP_RETURN_CODE 77)
set_tests_properties(html_browser_merge PROPERTIES LABELS chromium TIMEOUT 300
                     SKIP_RETURN_CODE 77)
