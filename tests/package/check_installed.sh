#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_installed.sh - flopcount as the Debian package installed it, used
# from the installed paths only (scripts/ci/package.sh runs this with a
# clean environment: no build tree on PATH, LD_LIBRARY_PATH or PYTHONPATH).
# Every figure checked is a hand count:
#   - a real PyTorch training with `import flopcount` markers
#     (tests/live/train_child.py: 3,014,656 FLOPs a step, 229,376 an
#     evaluation pass), under `flopcount run -- /usr/bin/python3` and under
#     plain LD_PRELOAD of the installed library, no PYTHONPATH;
#   - a C program built with $(pkg-config --cflags --libs flopcount) calling
#     the marker API (tests/package/marker_prog.c), run bare and under
#     `flopcount run`;
#   - every man page rendered by man -l and groff -ww without a warning, and
#     found by name; bash completion from its installed place; TensorBoard
#     event files written by the installed library.
# usage: check_installed.sh SOURCE_DIR WORKDIR
set -euo pipefail
src=$1
work=$2
fail() {
    echo "check_installed: $*" >&2
    exit 1
}
rm -rf "$work" && mkdir -p "$work"
case ":${PATH}:${LD_LIBRARY_PATH:-}:${PYTHONPATH:-}:" in
*"$src"*) fail "the source or build tree is on PATH, LD_LIBRARY_PATH or PYTHONPATH" ;;
esac

[ "$(command -v flopcount)" = /usr/bin/flopcount ] || fail "flopcount is not /usr/bin/flopcount"
flopcount --version | grep -qx 'flopcount 0.1.0' || fail "flopcount --version"
lib=/usr/lib/x86_64-linux-gnu/libflopcount.so.0
[ -f "$lib" ] || fail "$lib missing"

# the Python module where Debian's python3 finds it by itself
where=$(/usr/bin/python3 -c 'import flopcount; print(flopcount.__file__)')
[ "$where" = /usr/lib/python3/dist-packages/flopcount/__init__.py ] || fail "import flopcount: $where"

# flopcount run gives any interpreter the module (python3 -S: no site, so no
# dist-packages) through LIBDIR/flopcount/python, which holds nothing else
got=$(flopcount run --quiet --output "$work/probe.json" -- /usr/bin/python3 -S -c \
    'import os, flopcount; print(os.environ["PYTHONPATH"], flopcount.__file__)')
want_path=/usr/lib/x86_64-linux-gnu/flopcount/python
[ "$got" = "$want_path $want_path/flopcount/__init__.py" ] || fail "flopcount run's PYTHONPATH: $got"
[ "$(ls "$want_path")" = flopcount ] || fail "$want_path holds more than the module"

# a short training with markers, under flopcount run
per_step=3014656 eval_pass=229376 steps=6 every=2
cfg="{\"markers\": \"module\", \"steps\": $steps, \"eval_every\": $every, \"out\": null}"
flopcount run --quiet --output "$work/train.json" -- /usr/bin/python3 "$src/tests/live/train_child.py" "$cfg"
want=$((steps * per_step + 3 * eval_pass))
/usr/bin/python3 - "$work/train.json" "$want" "$steps" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
want, steps = int(sys.argv[2]), int(sys.argv[3])
got = (r["totals"]["gemm_flops"], r["iterations"]["count"], r["iterations"]["detected_by"])
if got != (want, steps, "marker"):
    sys.exit(f"check_installed: flopcount run training: {got}, want {(want, steps, 'marker')}")
EOF
# the same with plain LD_PRELOAD of the installed library (no PYTHONPATH)
LD_PRELOAD=$lib FLOPCOUNT_OUTPUT="$work/preload.json" FLOPCOUNT_QUIET=1 \
    /usr/bin/python3 "$src/tests/live/train_child.py" "$cfg"
/usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(r["totals"]["gemm_flops"] != int(sys.argv[2]))' \
    "$work/preload.json" "$want" || fail "LD_PRELOAD training: wrong totals"

# a C program on the marker API, built with pkg-config
flags=$(pkg-config --cflags --libs flopcount) || fail "pkg-config --cflags --libs flopcount"
case " $flags " in *" -lflopcount "*) ;; *) fail "pkg-config gives '$flags'" ;; esac
cc -std=c11 -Wall -Wextra -Werror "$src/tests/package/marker_prog.c" $flags -lblas -o "$work/marker_prog"
loaded=$(ldd "$work/marker_prog" | sed -n 's/^[[:space:]]*libflopcount\.so\.0 => \([^ ]*\) .*/\1/p')
[ -n "$loaded" ] && [ "$(realpath "$loaded")" = "$(realpath "$lib")" ] ||
    fail "marker_prog loads '$loaded', not $lib"
FLOPCOUNT_QUIET=1 "$work/marker_prog" | grep -q ' ok$' || fail "marker_prog, linked"
flopcount run --quiet --output "$work/c.json" -- "$work/marker_prog" | grep -q ' ok$' ||
    fail "marker_prog under flopcount run"
/usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(r["totals"]["gemm_flops"] != 15 * 2 * 32 ** 3)' \
    "$work/c.json" || fail "marker_prog's report"

# flopcount env: the installed library, by its real path
line=$(flopcount env) || fail "flopcount env"
case $line in LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libflopcount.so.*) ;; *) fail "flopcount env: $line" ;; esac
[ -f "${line#LD_PRELOAD=}" ] || fail "flopcount env names no file: $line"

# man pages: rendered without a warning, found by name
pages=(/usr/share/man/man1/flopcount.1.gz /usr/share/man/man1/flopcount-{run,report,formula,peak,merge,env}.1.gz
       /usr/share/man/man7/libflopcount.7.gz)
for p in "${pages[@]}"; do
    [ -f "$p" ] || fail "$p missing"
    out=$(MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null) || fail "man -l $p"
    [ -z "$out" ] || fail "man -l $p: $out"
    out=$(zcat "$p" | groff -ww -z -man 2>&1) || fail "groff $p"
    [ -z "$out" ] || fail "groff $p: $out"
    name=$(basename "$p" .gz)
    [ "$(man -w "${name%.*}")" = "$p" ] || fail "man -w ${name%.*}"
done

# bash completion, from where bash-completion looks for it
reply=$(bash --norc -c 'source /usr/share/bash-completion/completions/flopcount
    COMP_WORDS=(flopcount run --tens); COMP_CWORD=2; _flopcount; echo "${COMPREPLY[*]}"')
[ "$reply" = --tensorboard ] || fail "completion of 'flopcount run --tens': '$reply'"

# TensorBoard event files from the installed library, the directory made
flopcount run --quiet --output "$work/tb.json" --tensorboard "$work/tb/x" -- \
    /usr/bin/python3 "$src/tests/live/train_child.py" "$cfg"
ls "$work"/tb/x/pid*/events.out.tfevents.* >/dev/null || fail "no TensorBoard event file"
echo "check_installed: ok (training $want FLOPs, marker_prog, ${#pages[@]} man pages, completion, TensorBoard)"
