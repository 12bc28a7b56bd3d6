#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# deps.sh - install what flopcount needs to build and test on Debian 12
# (apt only). Installs nothing when everything is already there.
set -euo pipefail
# patchelf: tests/gpu/prepare.sh (the prefix carried to a GPU machine); chromium:
# the headless browser of the --html tests (tests/html, label chromium);
# prometheus-node-exporter, prometheus (promtool): tests/live
pkgs=(cmake make gcc clang pkg-config libjson-c-dev libunwind-dev libcmocka-dev
      libblas-dev libblas3 python3-torch openmpi-bin libopenmpi-dev libclang-rt-14-dev
      patchelf chromium prometheus-node-exporter prometheus)
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
