# SPDX-License-Identifier: Apache-2.0
# The renderers (tools/render/): 'report' of one run and 'merge' of that one
# report write the sections they share alike, text and HTML.
add_test(NAME render_same
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/render_same.py $<TARGET_FILE:flopcount_cli>
          ${CMAKE_CURRENT_BINARY_DIR}/work-render)
