# SPDX-License-Identifier: Apache-2.0
# The shim's layers (README, "How it is built"): no object of shim/ uses a
# symbol defined in a layer above its own (or in a sibling folder of its
# layer). Read from the objects with nm; --self-test proves the check can fail.
add_test(NAME layers_shim
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_layers.py
          ${CMAKE_BINARY_DIR}/shim/CMakeFiles/flopcount.dir --self-test)

# analysis/ and tools/ in layers too (check_tree.py: base utilities, model
# maths, run, io/probe, render and sums, verbs): nothing upward, no circle
# of files across folders or of more than two, dlopen only in probe/.
add_test(NAME layers_tree
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_tree.py ${CMAKE_BINARY_DIR}
          ${CMAKE_SOURCE_DIR} --self-test)

# Names (check_names.py, CONTRIBUTING.md "Names"): no two headers of one
# name on one include path, no function defined twice, and fci_ (internal
# to a folder: analysis/run, tools/render ...) used only in its folder.
add_test(NAME layers_names
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_names.py ${CMAKE_BINARY_DIR}
          ${CMAKE_SOURCE_DIR} --self-test)
