#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# demo.sh - build flopcount, train a small GPT under `flopcount run`, print
# the report and compare it with the analytic formula of the model the report
# reads off the GEMMs (no model flag); write it as a page too. Installs only
# what that needs (scripts/deps.sh demo); scripts/test.sh the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh demo
# the command and the library only (a build/ configured for the tests
# already keeps its configuration)
if [ ! -f build/CMakeCache.txt ]; then
    cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLOPCOUNT_TESTS=OFF >/dev/null
fi
cmake --build build -j"$(nproc)" --target flopcount flopcount_cli >/dev/null
model=(--layers 4 --hidden 128 --heads 4 --vocab 256 --seq 64 --batch 8)
out=$(mktemp -d)/demo.json
echo "== flopcount run -- /usr/bin/python3 scripts/demo/tiny_gpt.py ${model[*]} --steps 8 --checkpoint 1 --eval-every 4"
build/bin/flopcount run --output "$out" --log-every 2 -- \
    /usr/bin/python3 scripts/demo/tiny_gpt.py "${model[@]}" --steps 8 --checkpoint 1 --eval-every 4
echo
page=${out%.json}.html
# the report takes the peak the live lines used (the run's, in the file):
# one HFU per peak for a reader comparing them
echo "== flopcount report $out --html $page"
build/bin/flopcount report "$out" --html "$page"
echo
echo "== the same report with charts: $page (one file, opens offline in any browser)"
