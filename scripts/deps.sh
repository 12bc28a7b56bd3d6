#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# deps.sh - install what flopcount needs on Debian 12 (apt, and pip into a
# cache outside the tree), for one of two uses; installs nothing when
# everything is already there.
#   bash scripts/deps.sh demo   # build the command and the library, train the demo (scripts/demo.sh)
#   bash scripts/deps.sh test   # all of that and the test suite's tools (scripts/test.sh; the default)
#   bash scripts/deps.sh bench  # all of test and valgrind (bench/nullgpu_ir.py: instructions per step)
# test also makes the PyTorch CUDA environment the null-GPU tests run
# (label torch_cuda): the newest torch wheel from PyPI with its NVIDIA
# library wheels, in ${FLOPCOUNT_CACHE:-~/.cache/flopcount}/torch-venv
# (about 4.5 GB, 3 to 6 minutes on a fresh machine; kept between runs).
# FLOPCOUNT_TORCH_VENV=0 skips it (those tests then report skipped).
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
# and lintian (the Debian package, scripts/ci/package.sh); python3-venv
# and python3-dev (the torch environment; Inductor's Triton launchers are
# compiled against Python.h)
test=("${demo[@]}" clang libclang-rt-14-dev libcmocka-dev libblas-dev libblas3 openmpi-bin
      libopenmpi-dev patchelf chromium prometheus-node-exporter prometheus protobuf-compiler
      python3-protobuf groff-base man-db dpkg-dev file lintian python3-venv python3-dev)
# bench, besides: valgrind (callgrind, and the client-request header
# bench/step_marker.c includes)
bench=("${test[@]}" valgrind)
case "$set_name" in
demo) pkgs=("${demo[@]}") ;;
test) pkgs=("${test[@]}") ;;
bench) pkgs=("${bench[@]}") ;;
*) echo "usage: deps.sh [demo|test|bench]" >&2; exit 2 ;;
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

# The PyTorch CUDA environment (test and bench). The stamp is written after the
# install and an import check, so an interrupted install is redone.
[ "$set_name" != demo ] && [ "${FLOPCOUNT_TORCH_VENV:-1}" != 0 ] || exit 0
venv=${FLOPCOUNT_CACHE:-$HOME/.cache/flopcount}/torch-venv
if [ ! -f "$venv/.flopcount-ready" ]; then
    echo "deps.sh: installing PyTorch (CUDA wheels) into $venv"
    start=$(date +%s)
    mkdir -p "$(dirname "$venv")"
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check torch numpy
    "$venv/bin/python" -c 'import torch, numpy, triton; print("deps.sh: torch", torch.__version__, "CUDA", torch.version.cuda)'
    touch "$venv/.flopcount-ready"
    echo "deps.sh: PyTorch environment ready in $(( $(date +%s) - start )) s, $(du -sh "$venv" | cut -f1)"
fi
