# SPDX-License-Identifier: Apache-2.0
# fault_lib.sh - what tests/robust/fault_signals.sh and tests/robust/fault_exits.sh share,
# sourced by both after they take their arguments: DIR (test_fault_signal
# and libfc_fault_blas.so), PRELOAD (LD_PRELOAD for the shim, sanitizer
# runtime first if any), WORK (scratch directory, emptied here).
EXE=$DIR/test_fault_signal
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
failures=0
pid=
# A case that fails half-way must not leave its program running (ctest
# would wait for it forever: it holds the output pipe).
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null' EXIT
# JSON checks: Debian's interpreter starts fast; any python3 will do.
JSONPY=/usr/bin/python3
[ -x "$JSONPY" ] || JSONPY=python3

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# json FILE EXPR: EXPR (Python, over the parsed report r) must hold.
json() {
    "$JSONPY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2" 2>/dev/null ||
        fail "$1: expected $2; got: $(head -c 600 "$1" 2>/dev/null || echo '(no file)')"
}
