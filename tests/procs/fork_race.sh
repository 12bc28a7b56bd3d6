#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# fork_race.sh - runs a fork race RUNS times under the shim (FORKS forks each,
# every child bounded by 20 s): no hung child, every child's GEMMs right.
# usage: fork_race.sh c DIR PRELOAD RUNS FORKS      (fork_race.c)
#        fork_race.sh torch SCRIPT PRELOAD RUNS FORKS (fork_race.py, Debian's torch)
set -u
KIND=$1 WHERE=$2 PRELOAD=$3 RUNS=$4 FORKS=$5
i=0
while [ $i -lt "$RUNS" ]; do
    if [ "$KIND" = c ]; then
        set -- "$WHERE/fork_race" "$WHERE/libfc_procs_plugin.so" "$FORKS" 20
    else
        set -- /usr/bin/python3 "$WHERE" "$FORKS" 20
    fi
    out=$(env LD_PRELOAD="$PRELOAD" FLOPCOUNT_QUIET=1 "$@") || {
        echo "FAIL: run $i: $out" >&2
        exit 1
    }
    echo "run $i: $out"
    i=$((i + 1))
done
echo "fork_race: $RUNS runs, no hung child"
