# SPDX-License-Identifier: Apache-2.0
# The build as users run it and what the wheel adds to the command:
# `flopcount env` and `python -m flopcount` (cli_env); a Release build with
# the default options (build_release_default, label build: a whole build,
# minutes). The wheel itself is built and checked by scripts/ci/wheel.sh.
add_test(NAME cli_env
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_env_verb.py $<TARGET_FILE:flopcount_cli>
          $<TARGET_FILE:flopcount> ${CMAKE_BINARY_DIR}/lib/flopcount/python
          ${CMAKE_CURRENT_BINARY_DIR}/work-cli-env)
if(NOT FLOPCOUNT_SANITIZE STREQUAL "")
  # One case runs the (sanitized) command with LD_PRELOAD=libm.so.6, which
  # ASan refuses unless its runtime comes first: that check is ASan's own.
  set_tests_properties(cli_env PROPERTIES ENVIRONMENT "ASAN_OPTIONS=verify_asan_link_order=0")
endif()
add_test(NAME build_release_default
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/release_default_build.sh ${CMAKE_SOURCE_DIR}
          ${CMAKE_CURRENT_BINARY_DIR}/release-default)
set_tests_properties(build_release_default PROPERTIES LABELS build TIMEOUT 1800)
