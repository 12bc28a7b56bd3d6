# SPDX-License-Identifier: Apache-2.0
# The Debian package, from this build's install rules (cmake/install.cmake):
#   cmake -S . -B build-deb -DCMAKE_INSTALL_PREFIX=/usr -DFLOPCOUNT_TESTS=OFF
#   cmake --build build-deb && (cd build-deb && cpack -G DEB)
# gives build-deb/flopcount_VERSION_amd64.deb (scripts/ci/package.sh builds,
# installs, checks and removes it). Dependencies: dpkg-shlibdeps reads
# them off the ELF files (libc, json-c for the command); libunwind is added
# by hand, since the shim loads libunwind.so.8 at run time for call sites
# and links nothing of it. The shared library gets a shlibs file
# (packaging/debian/shlibs.in) and the ldconfig trigger (triggers); the
# Python module is byte-compiled and cleaned as dh_python3 does (postinst,
# prerm, postrm).
set(FLOPCOUNT_MAINTAINER "flopcount developers <dev@flopcount.invalid>" CACHE STRING
    "Maintainer field of the Debian package")

if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  # Debian's copyright and changelog, where lintian looks for them.
  install(FILES ${CMAKE_SOURCE_DIR}/packaging/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
  set(fc_changelog ${CMAKE_BINARY_DIR}/changelog.gz)
  add_custom_command(OUTPUT ${fc_changelog}
                     COMMAND gzip -9n -c ${CMAKE_SOURCE_DIR}/packaging/debian/changelog > ${fc_changelog}
                     DEPENDS ${CMAKE_SOURCE_DIR}/packaging/debian/changelog)
  add_custom_target(fc_changelog ALL DEPENDS ${fc_changelog})
  install(FILES ${fc_changelog} DESTINATION ${CMAKE_INSTALL_DOCDIR})
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME flopcount)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${FLOPCOUNT_MAINTAINER})
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "measured HFU and MFU of a training job, with no code change")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "flopcount counts every GEMM a process runs through cuBLAS, cuBLASLt or a
CPU BLAS (an LD_PRELOAD library, libflopcount.so), finds the training
iterations, recompute and evaluation passes in the stream of calls, and
reports measured hardware FLOPs utilization next to the formula's model
FLOPs utilization, with the gap explained.

This package has the flopcount command (run, report, formula, peak, merge),
the library, its header and pkg-config file for the marker API, the Python
module, man pages and bash completion.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libunwind8")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3")
# The shlibs file written here, not by CPack (the same line); CPack writes
# maintainer scripts calling ldconfig unless given its own (the trigger does
# that here).
configure_file(${CMAKE_SOURCE_DIR}/packaging/debian/shlibs.in ${CMAKE_BINARY_DIR}/debian/shlibs @ONLY)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_SOURCE_DIR}/packaging/debian/postinst ${CMAKE_SOURCE_DIR}/packaging/debian/prerm
    ${CMAKE_SOURCE_DIR}/packaging/debian/postrm ${CMAKE_SOURCE_DIR}/packaging/debian/triggers
    ${CMAKE_BINARY_DIR}/debian/shlibs)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
