#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# deps.sh - install what flopcount needs on Debian 12 (apt only), for one of
# two uses; installs nothing when everything is already there.
#   bash scripts/deps.sh demo   # build the command and the library, train the demo (scripts/demo.sh)
#   bash scripts/deps.sh test   # all of that and the test suite's tools (scripts/test.sh; the default)
set -euo pipefail
set_name=${1:-test}
# demo: the build (libc6-dev: only a Recommends of gcc; json-c, libunwind:
# the CMake configuration asks for both) and Debian's PyTorch for the demo's
# training (its own BLAS comes with it)
demo=(cmake make gcc libc6-dev pkg-config libjson-c-dev libunwind-dev python3-torch)
# test, besides: clang and libclang-rt (fuzzing, sanitizers); cmocka; the
# reference BLAS the C tests call; Open MPI (distributed runs); patchelf
# (tests/gpu/prepare.sh); chromium (the --html pages, label chromium);
# prometheus-node-exporter and prometheus (promtool): tests/live;
# protobuf-compiler and python3-protobuf (the TensorBoard files read back,
# tests/tensorboard); groff-base and man-db (the man pages); dpkg-dev, file
# and lintian (the Debian package, scripts/ci/package.sh)
test=("${demo[@]}" clang libclang-rt-14-dev libcmocka-dev libblas-dev libblas3 openmpi-bin
      libopenmpi-dev patchelf chromium prometheus-node-exporter prometheus protobuf-compiler
      python3-protobuf groff-base man-db dpkg-dev file lintian)
case "$set_name" in
demo) pkgs=("${demo[@]}") ;;
test) pkgs=("${test[@]}") ;;
*) echo "usage: deps.sh [demo|test]" >&2; exit 2 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "deps.sh: installing ${missing[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -q
    # The prometheus packages start their daemons on install where nothing
    # stops it; the tests start their own node-exporter on a loopback port.
    norc=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        norc=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$norc" >/dev/null && $SUDO chmod +x "$norc"
    fi
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
    [ -z "$norc" ] || $SUDO rm -f "$norc"
fi
if [ ! -f /usr/local/cuda/include/cublasLt.h ]; then
    echo "deps.sh: the CUDA toolkit headers (/usr/local/cuda/include) are needed to build" >&2
    exit 1
fi
