# SPDX-License-Identifier: Apache-2.0
# The installed face of flopcount (issue 28): the man pages (docs/man/)
# against each verb's --help and the library's variables, rendered by groff
# without a warning; bash completion (packaging/bash-completion/) against
# --help, run in a real bash. The Debian package itself is built, installed,
# used and removed by scripts/ci/package.sh (CI, after the suite).
add_test(NAME package_man_pages
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_man.py $<TARGET_FILE:flopcount_cli>
          ${CMAKE_SOURCE_DIR})
add_test(NAME package_bash_completion
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/check_completion.py $<TARGET_FILE:flopcount_cli>
          ${CMAKE_SOURCE_DIR}/packaging/bash-completion/flopcount)
# The header's advice for a program that must run where the library is
# absent (weak declarations, not -lflopcount): bare and preloaded.
add_executable(package_weak_prog ${CMAKE_CURRENT_LIST_DIR}/weak_prog.c)
target_include_directories(package_weak_prog PRIVATE ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(package_weak_prog PRIVATE ${FC_LIBBLAS})
add_test(NAME package_weak_markers_bare COMMAND package_weak_prog)
set_tests_properties(package_weak_markers_bare PROPERTIES PASS_REGULAR_EXPRESSION "^absent\n$")
add_test(NAME package_weak_markers_preloaded COMMAND package_weak_prog)
set_tests_properties(package_weak_markers_preloaded PROPERTIES
  ENVIRONMENT "LD_PRELOAD=${FC_PRELOAD};FLOPCOUNT_QUIET=1"
  PASS_REGULAR_EXPRESSION "^0\\.1\\.0 128\n$")
