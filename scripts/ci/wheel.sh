#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# wheel.sh - the pip wheel end to end (.ci/run):
#   1. built for x86_64 and aarch64 (scripts/wheel/build.sh: zig for glibc
#      2.28, json-c static), `auditwheel show` on both with the tag asserted
#      (manylinux_2_28 or lower) and the highest glibc symbol version of
#      each binary printed;
#   2. each wheel's binaries checked on their architecture
#      (tests/wheel/check_wheel_binaries.py: the shim on the reference BLAS,
#      the command on the reports), aarch64 under qemu-user;
#   3. the x86_64 wheel installed with pip in a fresh venv (Debian's python3
#      with --system-site-packages for its torch) and used with nothing of
#      the build tree on PATH, LD_LIBRARY_PATH or PYTHONPATH: the demo under
#      `flopcount run`, `import flopcount` markers, report, merge, env,
#      python -m flopcount; then pip uninstall, checked clean.
# Needs (installed here when missing): the arm64 architecture in dpkg with
# libblas3:arm64 (the reference BLAS the aarch64 check links) and qemu-user.
#   bash scripts/ci/wheel.sh            # wheels in dist/
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
start=$(date +%s)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
cache=${FLOPCOUNT_CACHE:-$HOME/.cache/flopcount}
tools=$cache/wheel-tools

echo "== wheel: dependencies"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
    $SUDO apt-get update -q >/dev/null
fi
missing=()
for p in qemu-user libblas3:arm64 python3-venv; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    $SUDO apt-get update -q >/dev/null
    $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "== wheel: build x86_64 and aarch64"
rm -f dist/flopcount-*.whl
for arch in x86_64 aarch64; do
    t=$(date +%s)
    bash scripts/wheel/build.sh "$arch" dist >/dev/null
    echo "wheel: $arch built in $(($(date +%s) - t)) s"
done

echo "== wheel: auditwheel show, glibc symbol versions"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for arch in x86_64 aarch64; do
    whl=$(ls dist/flopcount-*-manylinux*_"$arch".whl)
    show=$("$tools/bin/auditwheel" show "$whl")
    tag=$(printf '%s\n' "$show" | tr -s ' \n' ' ' | grep -o "following platform tag: \"[^\"]*\"" |
          grep -o 'manylinux_[0-9]*_[0-9]*_[a-z0-9_]*' | head -1)
    minor=$(printf '%s' "$tag" | sed -n 's/^manylinux_2_\([0-9]*\)_.*/\1/p')
    if [ -z "$minor" ] || [ "$minor" -gt 28 ]; then
        printf '%s\n' "$show"
        echo "wheel.sh: $whl is not manylinux_2_28 or lower (auditwheel: '${tag:-none}')" >&2
        exit 1
    fi
    echo "wheel: $(basename "$whl"): $(stat -c %s "$whl") bytes, auditwheel: $tag"
    mkdir -p "$work/$arch"
    python3 - "$whl" "$work/$arch" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:  # unpacked with the modes (python -m zipfile drops them)
    for info in z.infolist():
        path = z.extract(info, sys.argv[2])
        if info.external_attr >> 16:
            os.chmod(path, (info.external_attr >> 16) & 0o7777)
PY
    for bin in flopcount/bin/flopcount flopcount/lib/libflopcount.so; do
        top=$(readelf -V --wide "$work/$arch/$bin" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
        needed=$(readelf -d "$work/$arch/$bin" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')
        echo "wheel: $arch $bin: highest $top; needs $needed"
        if readelf -d "$work/$arch/$bin" | grep -qi 'NEEDED.*\(cuda\|cublas\|cudnn\|cupti\|json\|unwind\)'; then
            echo "wheel.sh: $bin links a library the wheel must not need" >&2
            exit 1
        fi
    done
done

echo "== wheel: the binaries on their architecture (aarch64 under qemu-user)"
for arch in x86_64 aarch64; do
    t=$(date +%s)
    blas=$work/blas_calls-$arch
    "$cache/zig/$arch-linux-gnu.2.28/cc" -O1 -o "$blas" tests/core/blas_calls.c \
        "/usr/lib/$arch-linux-gnu/libblas.so.3" -Wl,--allow-shlib-undefined
    runner=""
    [ "$arch" = x86_64 ] || runner="qemu-$arch"
    python3 tests/wheel/check_wheel_binaries.py "$work/$arch/flopcount" "$blas" "$work/check-$arch" \
        "$runner" 2>&1 | tail -n 3
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "wheel.sh: the $arch check failed" >&2; exit 1; }
    echo "wheel: $arch binaries checked in $(($(date +%s) - t)) s"
done

echo "== wheel: pip install in a fresh venv"
venv=$work/venv
/usr/bin/python3 -m venv --system-site-packages "$venv"
t=$(date +%s%N)
"$venv/bin/pip" install -q --no-index "$(ls "$root"/dist/flopcount-*-manylinux*_x86_64.whl)"
echo "wheel: pip install took $((($(date +%s%N) - t) / 1000000)) ms"
# Nothing of the build tree: a clean environment, the venv's bin first.
clean=(env -i HOME="$HOME" LANG=C.UTF-8 TMPDIR="${TMPDIR:-/tmp}" PATH="$venv/bin:/usr/bin:/bin")
use=$work/use
mkdir -p "$use"
cp scripts/demo/tiny_gpt.py tests/wheel/train_markers.py "$use/"
# shellcheck disable=SC2016 # expanded by the inner shell
"${clean[@]}" VENV="$venv" bash -euo pipefail -c '
cd "$(dirname "$0")"
[ "$(command -v flopcount)" = "$VENV/bin/flopcount" ] || { echo "flopcount on PATH: $(command -v flopcount)"; exit 1; }
flopcount --version
line=$(flopcount env)
lib=$(realpath "$(python -c "import flopcount._cli as c; print(c.library_path())")")
case $lib in "$(realpath "$VENV")"/*) ;; *) echo "the bundled library is outside the venv: $lib"; exit 1 ;; esac
[ "$line" = "LD_PRELOAD=$lib" ] || { echo "flopcount env: $line"; exit 1; }
echo "== flopcount run -- python tiny_gpt.py (the demo)"
flopcount run --quiet --output demo.json -- python tiny_gpt.py --layers 2 --hidden 64 --heads 4 \
    --vocab 128 --seq 32 --batch 2 --steps 4 --markers
flopcount report demo.json --peak-tflops 1 | head -n 8
echo "== import flopcount (markers, snapshot)"
flopcount run --quiet --output markers.json -- python train_markers.py "$VENV"
echo "== python -m flopcount run; merge"
RANK=0 WORLD_SIZE=2 python -m flopcount run --quiet --output rank0.json -- python train_markers.py "$VENV"
RANK=1 WORLD_SIZE=2 python -m flopcount run --quiet --output rank1.json -- python train_markers.py "$VENV"
flopcount merge --json rank0.json rank1.json >merged.json
python - <<PY
import json
r = json.load(open("demo.json"))
m = json.load(open("merged.json"))
# the demo at l=2 h=64 V=128 s=32 B=2: 72Bslh^2 + 12Bs^2lh + 6BshV per step (REFERENCE.md, tiny)
per_step = 72*2*32*2*64**2 + 12*2*32**2*2*64 + 6*2*32*64*128
assert per_step == 44040192
assert r["totals"]["gemm_flops"] == 4 * per_step, r["totals"]
assert m["totals"]["gemm_flops"] == 2 * 2 * 6 * 2 * 32 * 64 * 64, m["totals"]  # 2 ranks of train_markers.py
print("demo", r["totals"]["gemm_flops"], "FLOPs; merged", m["totals"]["gemm_flops"])
PY
echo "== export \"\$(flopcount env)\" (no run)"
env "$(flopcount env)" FLOPCOUNT_OUTPUT=plain.json python train_markers.py "$VENV" >/dev/null
flopcount report --json plain.json | python -c "import json,sys; t=json.load(sys.stdin)[\"totals\"]; assert t[\"gemm_flops\"] == 2*6*2*32*64*64, t"
' "$use/x"

echo "== wheel: pip uninstall"
"$venv/bin/pip" uninstall -y -q flopcount
left=$(find "$venv" -name 'flopcount*')
if [ -n "$left" ]; then
    echo "wheel.sh: left after pip uninstall: $left" >&2
    exit 1
fi
echo "wheel.sh: ok in $(($(date +%s) - start)) s"
