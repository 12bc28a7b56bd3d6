#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# fault_output.sh - FLOPCOUNT_OUTPUT pointing somewhere bad: a missing
# directory, a path under a regular file, a place even root cannot write,
# a directory, a symbolic link planted by someone else, a name too long.
# Each time: the program runs exactly as without the shim (status 0, same
# output), stderr holds exactly one "flopcount:" line, and no other file is
# created or changed.
#
# usage: fault_output.sh DIR PRELOAD WORK (as fault_signals.sh)
set -u
DIR=$1 PRELOAD=$2 WORK=$3
EXE=$DIR/test_fault_signal
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# bad NAME OUTPUT: run with FLOPCOUNT_OUTPUT=OUTPUT; status, output and
# the single warning line.
bad() {
    name=$1
    env LD_PRELOAD="$PRELOAD" FLOPCOUNT_QUIET=1 FLOPCOUNT_OUTPUT="$2" "$EXE" plain 2 \
        >"$WORK/$name.out" 2>"$WORK/$name.err"
    st=$?
    [ $st = 0 ] || fail "$name: exit status $st"
    [ "$(cat "$WORK/$name.out")" = done ] || fail "$name: program output changed"
    n=$(grep -c '^flopcount: ' "$WORK/$name.err")
    others=$(grep -vc '^flopcount: ' "$WORK/$name.err")
    [ "$n" = 1 ] && [ "$others" = 0 ] ||
        fail "$name: expected one flopcount: line on stderr, got: $(cat "$WORK/$name.err")"
    echo "$name: $(cat "$WORK/$name.err")"
}

bad missing-dir "$WORK/no/such/dir/r.json"
[ ! -e "$WORK/no" ] || fail "missing-dir: a directory was created"

echo data >"$WORK/afile"
bad under-file "$WORK/afile/r.json"
[ "$(cat "$WORK/afile")" = data ] || fail "under-file: the file changed"

if [ -d /sys/kernel ] && ! touch /sys/flopcount-probe 2>/dev/null; then
    bad unwritable /sys/flopcount-test.json # read-only even for root
fi
if [ "$(id -u)" != 0 ]; then # permissions bind only non-root users
    mkdir "$WORK/ro" && chmod 555 "$WORK/ro"
    bad read-only-dir "$WORK/ro/r.json"
    [ -z "$(ls -A "$WORK/ro")" ] || fail "read-only-dir: something was written"
fi

mkdir "$WORK/adir"
bad is-directory "$WORK/adir"
[ -z "$(ls -A "$WORK/adir")" ] || fail "is-directory: something was written inside"

# A symbolic link planted at the report's name, to a file of someone else
# and to a name that does not exist yet: neither may be written through.
echo precious >"$WORK/victim"
ln -s "$WORK/victim" "$WORK/link.json"
bad symlink "$WORK/link.json"
[ "$(cat "$WORK/victim")" = precious ] || fail "symlink: the target was overwritten"
[ -L "$WORK/link.json" ] || fail "symlink: the link was replaced"
ln -s "$WORK/planted-target" "$WORK/dangling.json"
bad dangling-symlink "$WORK/dangling.json"
[ ! -e "$WORK/planted-target" ] || fail "dangling-symlink: the target was created"

long=$(printf "%05000d" 0)
bad too-long "$WORK/$long"

leftovers=$(find "$WORK" -name '*.tmp.*')
[ -z "$leftovers" ] || fail "temporary files left: $leftovers"

if [ $failures -ne 0 ]; then
    echo "fault_output: $failures failure(s)" >&2
    exit 1
fi
echo "fault_output: all cases passed"
