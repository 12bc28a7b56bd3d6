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
