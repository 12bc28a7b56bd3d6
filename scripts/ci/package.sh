#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# package.sh - the Debian package, end to end (.ci/run, after the suite):
# built from the project's CMake (cmake/package.cmake), lintian with no
# error (warnings listed), installed with `apt-get install ./flopcount_*.deb`
# (which pulls its dependencies), used from the installed paths only
# (tests/package/check_installed.sh, in a clean environment), then purged,
# and the machine checked clean. Safe to run twice: a flopcount package left
# by an interrupted run is purged first, and the package is purged on any
# exit.
#   bash scripts/ci/package.sh            # build in build-deb/
#   BUILD_DEB=dir bash scripts/ci/package.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$(pwd)
build=${BUILD_DEB:-build-deb}
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

purge() {
    if dpkg-query -W -f='${Status}' flopcount 2>/dev/null | grep -q "ok installed\|config-files"; then
        $SUDO apt-get purge -y -q flopcount >/dev/null
    fi
}
purge
trap purge EXIT

echo "== package: build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
    -DFLOPCOUNT_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
rm -f "$build"/flopcount_*.deb
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/flopcount_*_amd64.deb)
echo "$deb"

echo "== package: lintian"
lintian --fail-on error "$deb" ||
    { echo "package.sh: lintian found errors" >&2; exit 1; }

echo "== package: apt-get install ./$(basename "$deb")"
$SUDO apt-get install -y -q "$(realpath "$deb")" >/dev/null

echo "== package: the installed paths only"
work=$(mktemp -d)
env -i HOME="$HOME" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 TMPDIR="${TMPDIR:-/tmp}" \
    bash tests/package/check_installed.sh "$src" "$work/checks"
rm -rf "$work"

echo "== package: purge"
purge
left=()
for f in /usr/bin/flopcount /usr/lib/x86_64-linux-gnu/libflopcount.so* /usr/lib/x86_64-linux-gnu/flopcount \
    /usr/lib/x86_64-linux-gnu/pkgconfig/flopcount.pc /usr/include/flopcount.h \
    /usr/lib/python3/dist-packages/flopcount /usr/share/doc/flopcount \
    /usr/share/bash-completion/completions/flopcount /usr/share/man/man1/flopcount*.1.gz \
    /usr/share/man/man7/libflopcount.7.gz; do
    [ -e "$f" ] || [ -L "$f" ] && left+=("$f")
done
if [ ${#left[@]} -gt 0 ]; then
    echo "package.sh: left behind after purge: ${left[*]}" >&2
    exit 1
fi
echo "package.sh: ok"
