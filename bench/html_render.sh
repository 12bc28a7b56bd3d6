#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# html_render.sh BUILD [RUNS]: how long the --html pages of large inputs
# take to write and to render in headless chromium (bench/README.md).
#
# Inputs from tests/merge/merge_gen: 1,024 rank reports (100 iterations
# each, one missing, one straggler) and one report of 100,000 iterations.
# For each page: the time 'flopcount merge/report --html' takes; the time
# chromium takes to load and lay it out, measured inside the browser (a
# harness page, this script's own, loads the page in an iframe and reads
# performance.now() after forcing layout); and the wall time of a headless
# screenshot of it, less that of an empty page. Medians of RUNS (default 5).
set -euo pipefail
build=$1 runs=${2:-5}
cli=$build/bin/flopcount gen=$build/bin/merge_gen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chrome=(chromium --headless --no-sandbox --disable-gpu --disable-background-networking
        --disable-component-update --disable-sync --no-first-run --hide-scrollbars
        --window-size=1100,2400)

# "median (min-max)" of numbers on stdin, with FORMAT for each.
spread() { sort -g | awk -v f="$1" '{v[NR]=$1} END {printf f " (" f "-" f ")", v[int((NR+1)/2)], v[1], v[NR]}'; }
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }

mkdir -p "$work/ranks" "$work/long"
"$gen" "$work/ranks" --ranks 1024 --missing 77 --straggler 500 --iterations 100
"$gen" "$work/long" --ranks 1 --iterations 100000
echo '<!DOCTYPE html><html><head><title>empty</title></head><body><p>x</p></body></html>' \
    >"$work/empty.html"

# The harness: load PAGE in an iframe, force style and layout of all of it,
# write the milliseconds into the document for --dump-dom to print.
harness() {
    cat >"$work/harness.html" <<EOF
<!DOCTYPE html><html><body><pre id="ms"></pre>
<iframe id="f" style="width:1100px;height:2400px"></iframe>
<script>
const t0 = performance.now();
const f = document.getElementById("f");
f.onload = () => {
  const d = f.contentDocument;
  d.body.getBoundingClientRect(); d.documentElement.scrollHeight;
  document.getElementById("ms").textContent = "ms=" + (performance.now() - t0).toFixed(1);
};
f.src = "$1";
</script></body></html>
EOF
}

in_browser_ms() {
    harness "file://$1"
    "${chrome[@]}" --user-data-dir="$work/p$RANDOM" --allow-file-access-from-files \
        --dump-dom "file://$work/harness.html" 2>/dev/null | sed -n 's/.*ms=\([0-9.]*\).*/\1/p'
}

bench() { # NAME PAGE WRITE-COMMAND...
    local name=$1 page=$2
    shift 2
    local w=() b=() s=() e=()
    for _ in $(seq "$runs"); do
        w+=("$(secs "$@")")
        b+=("$(in_browser_ms "$page")")
        s+=("$(secs "${chrome[@]}" --user-data-dir="$work/p$RANDOM" --screenshot="$work/s.png" "file://$page")")
        e+=("$(secs "${chrome[@]}" --user-data-dir="$work/p$RANDOM" --screenshot="$work/s.png" "file://$work/empty.html")")
    done
    echo "$name: $(stat -c %s "$page") bytes; medians (min-max) of $runs runs:"
    echo "  write          $(printf '%s\n' "${w[@]}" | spread %.2f) s"
    echo "  load+layout    $(printf '%s\n' "${b[@]}" | spread %.0f) ms (inside chromium)"
    echo "  screenshot     $(printf '%s\n' "${s[@]}" | spread %.2f) s (an empty page: $(printf '%s\n' "${e[@]}" | spread %.2f) s)"
}

bench "merge, 1,024 ranks" "$work/ranks.html" "$cli" merge "$work/ranks" --peak-tflops 100 \
    --html "$work/ranks.html"
bench "report, 100,000 iterations" "$work/long.html" "$cli" report "$work/long/rank0.json" \
    --peak-tflops 100 --html "$work/long.html"
