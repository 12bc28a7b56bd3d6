# SPDX-License-Identifier: Apache-2.0
# What `cmake --install` (and the Debian package, cmake/package.cmake)
# puts where, by GNUInstallDirs: the command in bin/, libflopcount.so.0 and
# its links in the library directory (lib/x86_64-linux-gnu under /usr),
# flopcount.h, flopcount.pc (pkg-config), the Python module, the man pages
# (gzip -9n), bash completion, and the docs.

install(TARGETS flopcount_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS flopcount LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${CMAKE_SOURCE_DIR}/include/flopcount.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# pkg-config --cflags --libs flopcount: what a C program calling the marker
# API (flopcount_step, flopcount_snapshot_get, ...) needs.
configure_file(${CMAKE_CURRENT_LIST_DIR}/flopcount.pc.in ${CMAKE_BINARY_DIR}/flopcount.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/flopcount.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The Python module: where Debian's python3 finds it without PYTHONPATH
# when the prefix is /usr (lib/python3/dist-packages), else beside the
# library. `flopcount run` puts LIBDIR/flopcount/python on PYTHONPATH for
# any interpreter (a venv's, conda's): under /usr that directory holds only
# a link to the module in dist-packages.
set(fc_py_private ${CMAKE_INSTALL_LIBDIR}/flopcount/python)
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(fc_py_default lib/python3/dist-packages)
else()
  set(fc_py_default ${fc_py_private})
endif()
set(FLOPCOUNT_PYTHON_DIR ${fc_py_default} CACHE STRING
    "Where the Python module is installed, relative to the prefix")
install(DIRECTORY ${CMAKE_SOURCE_DIR}/python/flopcount DESTINATION ${FLOPCOUNT_PYTHON_DIR}
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
if(NOT FLOPCOUNT_PYTHON_DIR STREQUAL fc_py_private)
  file(RELATIVE_PATH fc_py_link ${CMAKE_INSTALL_PREFIX}/${fc_py_private}
       ${CMAKE_INSTALL_PREFIX}/${FLOPCOUNT_PYTHON_DIR}/flopcount)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/install-links)
  file(CREATE_LINK ${fc_py_link} ${CMAKE_BINARY_DIR}/install-links/flopcount SYMBOLIC)
  install(FILES ${CMAKE_BINARY_DIR}/install-links/flopcount DESTINATION ${fc_py_private})
endif()

# Man pages: docs/man/*.1 and *.7, compressed as Debian wants them.
file(GLOB fc_man_pages CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/man/*.[17])
set(fc_man_gz)
foreach(page ${fc_man_pages})
  get_filename_component(name ${page} NAME)
  string(REGEX REPLACE ".*\\.([0-9])$" "\\1" section ${name})
  set(gz ${CMAKE_BINARY_DIR}/man/${name}.gz)
  add_custom_command(OUTPUT ${gz} COMMAND gzip -9n -c ${page} > ${gz} DEPENDS ${page}
                     COMMENT "man page ${name}")
  list(APPEND fc_man_gz ${gz})
  install(FILES ${gz} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/man)
add_custom_target(fc_man_pages ALL DEPENDS ${fc_man_gz})

install(FILES ${CMAKE_SOURCE_DIR}/packaging/bash-completion/flopcount
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        PATTERN "man" EXCLUDE)
install(TARGETS nullgpu LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/flopcount/nullgpu) # flopcount run --null-gpu
