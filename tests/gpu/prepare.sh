#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# prepare.sh PREFIX [BUILD] - the self-contained install prefix that travels
# to the GPU machine (tests/gpu/README.md). Run by `run.sh --prepare`.
#   * builds flopcount (RelWithDebInfo, no tests) in REPO/.gpu/build, or takes
#     an existing build tree BUILD (ctest passes its own), and installs it;
#   * copies in every shared library that ldd shows the CLI, the shim or the
#     copied libraries need beyond glibc, libstdc++ and libgcc (json-c,
#     libunwind, liblzma here), and sets RUNPATH ($ORIGIN, $ORIGIN/../lib) on
#     all of them with patchelf, so nothing is looked up or fetched there;
#   * builds the bring-up program and its tiny BLAS into libexec/flopcount-gpu;
#   * copies tests/gpu (run.sh, checks, programs) into share/flopcount-gpu;
#   * writes share/flopcount-gpu/manifest.json: the source hash (check 00
#     compares it with the tree it runs in), the glibc it needs, the libraries.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
die() { echo "prepare: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: prepare.sh PREFIX [BUILD]"
mkdir -p "$1"
PREFIX=$(cd "$1" && pwd)
BUILD=${2:-}
for tool in cmake cc patchelf ldd objdump python3; do
    command -v "$tool" >/dev/null || die "needs $tool (bash scripts/deps.sh installs it)"
done
case $PREFIX in
"$ROOT"|/|"$ROOT/build"|"$HOME") die "refusing to use $PREFIX as the prefix (it is emptied first)" ;;
esac

if [ -z "$BUILD" ]; then
    BUILD=$ROOT/.gpu/build
    echo "prepare: building flopcount (RelWithDebInfo) in $BUILD"
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLOPCOUNT_TESTS=OFF \
        >"$ROOT/.gpu/configure.log" 2>&1 ||
        { tail -20 "$ROOT/.gpu/configure.log"; die "configure failed"; }
    cmake --build "$BUILD" -j"${FC_JOBS:-2}" >"$ROOT/.gpu/build.log" 2>&1 ||
        { tail -30 "$ROOT/.gpu/build.log"; die "build failed"; }
fi
BUILD=$(cd "$BUILD" && pwd)
[ -f "$BUILD/lib/libflopcount.so" ] && [ -x "$BUILD/bin/flopcount" ] || die "no built flopcount in $BUILD"
if grep -q '^FLOPCOUNT_SANITIZE:STRING=.' "$BUILD/CMakeCache.txt" 2>/dev/null; then
    die "$BUILD is a sanitizer build; the GPU machine needs a plain one"
fi

rm -rf "$PREFIX"
mkdir -p "$PREFIX"
cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
X=$PREFIX/libexec/flopcount-gpu
mkdir -p "$X"
cc -O2 -Wall -Wextra -Werror -fPIC -shared -o "$X/libfcgpu_blas.so" "$HERE/programs/fcgpu_blas.c"
cc -O2 -Wall -Wextra -Werror -o "$X/fcgpu_bringup" "$HERE/programs/bringup.c" -L"$X" -lfcgpu_blas \
    -Wl,-rpath,'$ORIGIN'

# Libraries a GPU machine may lack: everything beyond glibc, libstdc++, libgcc.
system_lib() {
    case $1 in
    linux-vdso.so* | ld-linux*.so* | libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | \
        librt.so.* | libresolv.so.* | libutil.so.* | libmvec.so.* | libanl.so.* | libstdc++.so.* | \
        libgcc_s.so.*) return 0 ;;
    esac
    return 1
}
copied=()
queue=("$PREFIX/bin/flopcount" "$PREFIX/lib/libflopcount.so")
# libunwind is loaded at run time (dlopen at the first call-site unwind), so
# ldd does not show it; the shim's RUNPATH ($ORIGIN) finds this copy.
uw=$(ldconfig -p | awk '$1 == "libunwind.so.8" && !n++ { print $NF }')
[ -n "$uw" ] || die "libunwind.so.8 is not installed here (call sites need it): apt-get install libunwind8"
cp -L "$uw" "$PREFIX/lib/libunwind.so.8"
chmod u+w "$PREFIX/lib/libunwind.so.8"
copied+=(libunwind.so.8)
queue+=("$PREFIX/lib/libunwind.so.8")
while [ ${#queue[@]} -gt 0 ]; do
    f=${queue[0]}
    queue=("${queue[@]:1}")
    while read -r name arrow path _; do
        [ "$arrow" = "=>" ] || continue
        [ "$path" = "not" ] && die "$f needs $name, which is not found here"
        system_lib "$name" && continue
        [ -e "$PREFIX/lib/$name" ] && continue
        cp -L "$path" "$PREFIX/lib/$name"
        chmod u+w "$PREFIX/lib/$name"
        copied+=("$name")
        queue+=("$PREFIX/lib/$name")
    done < <(LD_LIBRARY_PATH='' ldd "$f")
done
patchelf --set-rpath '$ORIGIN/../lib' "$PREFIX/bin/flopcount"
for lib in "$PREFIX/lib/libflopcount.so" "${copied[@]/#/$PREFIX/lib/}"; do
    patchelf --set-rpath '$ORIGIN' "$lib"
done
# Each copied library must now resolve inside the prefix.
for f in "$PREFIX/bin/flopcount" "$PREFIX/lib/libflopcount.so" "$X/fcgpu_bringup"; do
    out=$(LD_LIBRARY_PATH='' ldd "$f")
    for name in "${copied[@]}" libfcgpu_blas.so; do
        line=$(grep -F "$name =>" <<<"$out" || true)
        [ -z "$line" ] || grep -qF "$PREFIX/" <<<"$line" || die "$f resolves $name outside the prefix: $line"
    done
done

glibc=$(for f in "$PREFIX"/bin/* "$PREFIX"/lib/*.so* "$X"/*; do objdump -T "$f" 2>/dev/null; done |
    grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1)

mkdir -p "$PREFIX/share/flopcount-gpu"
tar -C "$HERE" --exclude=__pycache__ -cf - run.sh prepare.sh README.md lib checks programs |
    tar -C "$PREFIX/share/flopcount-gpu" -xf -
commit=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$ROOT" status --porcelain -- analysis shim tools include CMakeLists.txt tests/gpu \
    2>/dev/null | head -1)
FC_M_PREFIX=$PREFIX FC_M_ROOT=$ROOT FC_M_BUILD=$BUILD FC_M_GLIBC=$glibc FC_M_LIBS="${copied[*]}" \
FC_M_COMMIT=$commit FC_M_DIRTY=${dirty:+yes} python3 - <<'EOF'
import json, os, platform, sys, time
sys.path.insert(0, os.path.join(os.environ["FC_M_ROOT"], "tests", "gpu", "lib"))
import fcgpu
e = os.environ
m = {"schema": 1, "source_hash": fcgpu.source_hash(e["FC_M_ROOT"]), "commit": e["FC_M_COMMIT"],
     "dirty": bool(e.get("FC_M_DIRTY")), "build": e["FC_M_BUILD"], "glibc_required": e["FC_M_GLIBC"],
     "libs_copied": e["FC_M_LIBS"].split(), "prepared_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
     "prepared_on": platform.node(), "machine": platform.machine()}
with open(os.path.join(e["FC_M_PREFIX"], "share", "flopcount-gpu", "manifest.json"), "w") as f:
    json.dump(m, f, indent=1, sort_keys=True)
EOF
kib=$(du -sk "$PREFIX" | cut -f1)
echo "prepare: $PREFIX ready: flopcount from ${commit:0:12}${dirty:+ (uncommitted changes)}," \
    "libraries copied: ${copied[*]:-none}; needs glibc >= $glibc; $((kib / 1024)) MiB"
[ "$kib" -le $((60 * 1024)) ] ||
    echo "prepare: warning: over 60 MiB; the device run carries at most 64 MiB" >&2
