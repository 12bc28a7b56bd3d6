# SPDX-License-Identifier: Apache-2.0
# What the wheel holds (pyproject.toml; scikit-build-core installs into the
# wheel's platlib and adds python/flopcount itself): the command and the
# library inside the package, side by side as in the build tree,
#   flopcount/bin/flopcount      (run by the `flopcount` entry point,
#                                 flopcount/_cli.py, and python -m flopcount)
#   flopcount/lib/libflopcount.so
# so that the command finds the library by ../lib and the library the
# command by ../bin (tools/run_paths.c, shim/report/destination_join.c)
# wherever pip put the package. Nothing else: no header, no man page.
install(TARGETS flopcount_cli RUNTIME DESTINATION flopcount/bin)
install(TARGETS flopcount LIBRARY DESTINATION flopcount/lib)
