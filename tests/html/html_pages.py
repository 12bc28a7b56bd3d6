# SPDX-License-Identifier: Apache-2.0
"""html_pages.py SCENARIO MERGE_GEN FLOPCOUNT WORKDIR

'flopcount report --html' and 'flopcount merge --html' without a browser:
each page must pass the strict html.parser walk (html_check.py), fetch and
run nothing, hold every section, and show every headline figure exactly
as the verb's --json gives it; tables are checked against the input and
against numbers worked out here by hand.

  report  the l=2 h=64 a=4 V=96 s=32 B=2 model with flash attention
          (40,108,032 counted = 43,253,760 - 3,145,728 attention core),
          a path and a command full of < & " ' >
  merge   8 ranks: rank 5 missing, rank 2 twice, rank 6 a straggler,
          rank 1 an outlier
  big     100,000 iterations and 1,024 ranks: bounded pages
  bad     an unwritable --html path: one line, exit 2, nothing else
"""
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import html_check as hc  # noqa: E402

MODEL = ["--layers", "2", "--hidden", "64", "--heads", "4", "--vocab", "96", "--seq", "32",
         "--batch", "2"]
REPORT_SECTIONS = ["headline", "iterations", "phases", "difference", "shapes"]
MERGE_SECTIONS = ["headline", "iterations", "phases", "ranks", "consistency", "shapes"]
G = 2 ** 40  # one synthetic call (merge_gen.h): 2 * 8192^3


def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


def run(cmd, want_rc=0):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if want_rc is not None and r.returncode != want_rc:
        fail(f"{cmd}: exit {r.returncode}, want {want_rc}: {r.stderr}")
    return r


def page(path):
    text = open(path, encoding="utf-8").read()
    root, errors = hc.parse(text)
    if errors:
        fail(f"{path} is not well-formed: {errors[:5]}")
    bad = hc.self_contained(text)
    if bad:
        fail(f"{path} is not self-contained: {bad}")
    return text, root


def need(ok, msg):
    if not ok:
        fail(msg)


def tiny_report(path, flops, command):
    """One process, 4 iterations of `flops` (the first a 2.0 s warm-up, then
    0.5 s each, 0.25 s of nothing after the second)."""
    starts = [0.0, 2.0, 2.75, 3.25]
    secs = [2.0, 0.5, 0.5, 0.5]
    rep = {"schema": 1, "tool": {"name": "flopcount", "version": "0.1.0"},
           "process": {"pid": 7, "command": command, "hostname": "h<1>", "rank": None,
                       "local_rank": None, "world_size": None, "launcher": "none",
                       "fork_child": False},
           "status": "complete", "wall_seconds": 4.0,
           "totals": {"gemm_calls": 40, "gemm_flops": 4 * flops, "failed_calls": 0,
                      "invalid_calls": 0, "unresolved_calls": 0, "distinct_shapes": 1,
                      "overflow_calls": 0},
           "by_api": {"sgemm_": {"calls": 40, "flops": 4 * flops}},
           "by_dtype": {"fp32": {"calls": 40, "flops": 4 * flops}},
           "shapes": [{"api": "sgemm_", "m": 64, "n": 64, "k": flops // (2 * 64 * 64 * 40),
                       "batch": 1, "transa": "N", "transb": "T", "dtype": "fp32",
                       "out_dtype": "fp32", "compute": None, "calls": 40, "flops": 4 * flops,
                       "failed_calls": 0}],
           "iterations": {"count": 4, "detected_by": "marker", "median_seconds": 0.5,
                          "list": [{"index": i + 1, "start_seconds": starts[i],
                                    "seconds": secs[i], "flops": flops,
                                    "forward_flops": flops // 3,
                                    "backward_flops": flops - flops // 3,
                                    "recompute_flops": 0} for i in range(4)]},
           "recompute": {"flops": 0, "fraction": 0.0},
           "utilization": None, "utilization_reason": "no peak"}
    with open(path, "w") as f:
        json.dump(rep, f)
    return rep


def scenario_report(gen, cli, work):
    name = os.path.join(work, 'we<i>rd & "q" \'s.json')
    command = "python train.py --tag '<x>' & echo \"done\""
    rep = tiny_report(name, 40108032, command)
    # the third iteration's split a guess (as the detector marks one)
    rep["iterations"]["list"][2].update(ambiguous=True, ambiguous_reason="a reason")
    rep["iterations"].update(ambiguous_iterations=1, ambiguous_reasons=["a reason"])
    with open(name, "w") as f:
        json.dump(rep, f)
    out = os.path.join(work, "report.html")
    args = [name] + MODEL + ["--peak-tflops", "0.1"]
    j = json.loads(run([cli, "report"] + args + ["--json"]).stdout)
    r = run([cli, "report"] + args + ["--html", out])
    need(r.stderr == "", f"stderr: {r.stderr}")
    text, root = page(out)
    need(hc.sections(root) == REPORT_SECTIONS, f"sections {hc.sections(root)}")
    bad = hc.check_keys(root, j, [
        "measured.hfu", "measured.mfu", "formula.mfu", "recompute_share",
        "measured.seconds_per_iteration", "measured.flops_per_iteration~si", "measured.gpus",
        "measured.peak_source", "totals.gemm_flops", "iterations.count",
        "measured.flops_per_iteration", "measured.recompute_flops_per_iteration",
        "formula.model_flops_per_iteration", "formula.hardware_flops_per_iteration",
        "difference.counted_model_flops_per_iteration"])
    need(not bad, f"figures: {bad}")
    # By hand: HFU = 40108032 / (1e11 x 0.5) = 0.08%; the formula's 43253760 -> 0.087%.
    k = hc.keyed(root)
    need(k["measured.hfu"][0] == "0.08%" and k["formula.mfu"][0] == "0.087%", f"HFU/MFU {k}")
    # The path and the command come back exactly once parsed: escaped, not cut.
    header = next(n for n in root.iter() if n.tag == "header")
    need(header.text().count(name) == 1, f"path not on the page: {header.text()!r}")
    need(command in root.text(), "command not on the page")
    need("<x>" not in text and "<i>rd" not in text, "a name got through unescaped")
    # The waterfall: formula 43253760, - attention core 3145728 = counted 40108032.
    _, rows = hc.table(root, "difference-table")
    want = [["formula's model FLOPs", "43253760"],
            ["attention core (QK^T and attention x V), forward + backward", "3145728"],
            ["counted FLOPs less recompute", "40108032"], ["counted FLOPs", "40108032"]]
    need([r[:2] for r in rows[:4]] == want, f"waterfall rows {rows}")
    need(any(r[0].startswith("(checked, not part of it: first layer") and r[1] == "1572864"
             for r in rows), f"checked terms {rows}")
    # Iterations: every one listed, as the input has it; 2.75 - 2.0 - 0.5 = 0.25 s pause.
    head, rows = hc.table(root, "iter-table")
    need(head[:6] == ["iteration", "time", "FLOPs", "forward", "backward", "recompute"],
         f"iteration head {head}")
    for row, it in zip(rows, rep["iterations"]["list"]):
        want = [str(it["index"]), hc.fmt_seconds(it["seconds"]), str(it["flops"]),
                str(it["forward_flops"]), str(it["backward_flops"]), "0"]
        need(row[:6] == want, f"iteration row {row} != {want}")
    need(rows[1][6] == "then 0.2500 s in no iteration", f"pause note {rows[1]}")
    need(rows[0][6] == "warm-up (not in the median)", f"warm-up note {rows[0]}")
    need(rows[2][6] == "split a guess" and rows[3][6] == "", f"unsure note {rows[2]} {rows[3]}")
    # Phases, summed over 4 iterations.
    _, rows = hc.table(root, "phase-table")
    need(rows[0][:2] == ["forward", str(4 * (40108032 // 3))], f"phase rows {rows}")
    need(rows[-1][:2] == ["all", str(4 * 40108032)], f"phase total {rows}")
    # Shapes: as --json's top_shapes.
    _, rows = hc.table(root, "shape-table")
    for row, s in zip(rows, j["top_shapes"]):
        shape = f"{s['transa']}{s['transb']} m={s['m']} n={s['n']} k={s['k']} batch={s['batch']}"
        want = [s["api"], shape, s["dtype"], str(s["calls"]), hc.fmt_flop(s["flops"]),
                str(s["flops"]), hc.fmt_pct(s["flops"] / j["totals"]["gemm_flops"]), ""]
        need(row == want, f"shape row {row} != {want}")
    # Without iterations, and a merged report read back: the same structure.
    d = os.path.join(work, "ranks")
    os.makedirs(d)
    run([gen, d, "--ranks", "2", "--iterations", "0"])
    other = report_variant(cli, [os.path.join(d, "rank1.json")] + MODEL,
                           os.path.join(work, "noiter.html"),
                           ["totals.gemm_flops", "measured.gpus"])
    need("No iterations listed: no per-iteration chart." in other.text(), "no-iteration note")
    run([gen, d, "--ranks", "2", "--iterations", "6"])
    merged = os.path.join(work, "merged.json")
    with open(merged, "w") as f:
        f.write(run([cli, "merge", d, "--json"]).stdout)
    report_variant(cli, [merged, "--peak-tflops", "100"], os.path.join(work, "merged.html"),
                   ["measured.hfu", "iterations.count", "measured.flops_per_iteration"])
    print("ok: report pages")


def report_variant(cli, args, out, required):
    """report --json and --html in one run; the page against that JSON."""
    j = json.loads(run([cli, "report"] + args + ["--json", "--html", out]).stdout)
    _, root = page(out)
    need(hc.sections(root) == REPORT_SECTIONS, f"{out}: sections {hc.sections(root)}")
    bad = hc.check_keys(root, j, required)
    need(not bad, f"{out}: figures: {bad}")
    return root


def scenario_merge(gen, cli, work):
    d = os.path.join(work, "ranks")
    os.makedirs(d)
    run([gen, d, "--ranks", "8", "--missing", "5", "--duplicate", "2", "--straggler", "6",
         "--outlier", "1", "--iterations", "12"])
    out = os.path.join(work, "merge.html")
    j = json.loads(run([cli, "merge", d, "--peak-tflops", "100", "--json"]).stdout)
    run([cli, "merge", d, "--peak-tflops", "100", "--html", out])
    text, root = page(out)
    need(hc.sections(root) == MERGE_SECTIONS, f"sections {hc.sections(root)}")
    bad = hc.check_keys(root, j, [
        "utilization.hfu", "utilization.mfu", "iterations.median_seconds",
        "iterations.flops_per_iteration~si", "merge.ranks_merged", "utilization.peak_source",
        "totals.gemm_flops", "iterations.count", "iterations.flops_per_iteration"])
    need(not bad, f"figures: {bad}")
    # By hand: 7 ranks of 4 shapes (2^42 per iteration), rank 1 one more of
    # k = 4096 (2^39): 7 * 2^42 + 2^39 per step.
    k = hc.keyed(root)
    need(k["iterations.flops_per_iteration"] == [str(7 * 4 * G + G // 2)], f"{k}")
    warn = [n.text() for n in root.iter() if n.attrs.get("class") == "warn"]
    need("MISSING ranks: 5 (1 of 8)" in warn, f"missing rank not said: {warn}")
    need(any(w.startswith("DUPLICATE rank 2: ") for w in warn), f"duplicate not said: {warn}")
    need(any(w.startswith("straggler: rank 6: median step 0.1500 s vs 0.1000 s") for w in warn),
         f"straggler not said: {warn}")
    _, rows = hc.table(root, "rank-table")
    need(len(rows) == len(j["merge"]["ranks"]) == 7, f"{len(rows)} rank rows")
    for row, r in zip(rows, j["merge"]["ranks"]):
        want = [str(r["rank"]), r["host"], r["status"], str(r["gemm_flops"]), str(r["iterations"]),
                hc.fmt_seconds(r["median_seconds"]), str(r["flops_per_iteration"]),
                hc.fmt_pct(r["hfu"])]
        need(row == want, f"rank row {row} != {want}")
    _, rows = hc.table(root, "group-table")
    groups = j["merge"]["flops_consistency"]["groups"]
    need([r[:2] for r in rows] == [[str(g["flops"]), str(len(g["ranks"]))] for g in groups],
         f"groups {rows}")
    _, rows = hc.table(root, "iter-table")
    for row, it in zip(rows, j["iterations"]["list"]):
        want = [str(it["index"]), hc.fmt_seconds(it["seconds"]), str(it["flops"]),
                str(it["forward_flops"]), str(it["backward_flops"]),
                str(it["recompute_flops"]), str(it["slowest_rank"])]
        need(row[:7] == want, f"step row {row} != {want}")
    need(len(rows) == len(j["iterations"]["list"]) == 10, f"{len(rows)} steps")
    print("ok: merge page")


def scenario_big(gen, cli, work):
    # 100,000 iterations: bins of ceil(100000 / 120) = 834, so 120 bins, the
    # last from 119 x 834 = 99,246 to 99,999 (754); the file stays small, the
    # table's total row keeps the exact sum 100,000 x 2^42.
    d = os.path.join(work, "long")
    os.makedirs(d)
    run([gen, d, "--ranks", "1", "--iterations", "100000"])
    out = os.path.join(work, "long.html")
    t0 = time.monotonic()
    run([cli, "report", os.path.join(d, "rank0.json"), "--html", out])
    t1 = time.monotonic()
    size = os.path.getsize(out)
    text, root = page(out)
    need(size < 400_000, f"100,000 iterations: {size} bytes")
    chart = hc.by_id(root, "iterations")
    rects = sum(1 for n in chart.iter() if n.tag == "rect")
    need(rects == 120, f"{rects} bars in the iteration chart, want 120 bins")
    _, rows = hc.table(root, "iter-table")
    need(len(rows) == 121, f"{len(rows)} bin rows")
    need(rows[0][:2] == ["0-833", "834"] and rows[-2][:2] == ["99246-99999", "754"],
         f"bins {rows[0][:2]} ... {rows[-2][:2]}")
    need(rows[-1][0] == "all" and rows[-1][1] == "100000" and rows[-1][5] == str(100000 * 4 * G),
         f"total row {rows[-1]}")
    # The binned phase chart's table: merge_gen splits each iteration half
    # forward, half backward.
    _, rows = hc.table(root, "phase-bin-table")
    need(len(rows) == 121 and rows[-1][:4] == ["all", str(100000 * 2 * G), str(100000 * 2 * G), "0"],
         f"phase bins: {len(rows)} rows, total {rows[-1]}")
    print(f"ok: 100,000 iterations: {size} bytes, written in {t1 - t0:.2f} s")
    # 1,024 ranks (rank 77 missing): every merged rank has a row.
    d = os.path.join(work, "wide")
    os.makedirs(d)
    run([gen, d, "--ranks", "1024", "--missing", "77", "--straggler", "500",
         "--iterations", "20"])
    out = os.path.join(work, "wide.html")
    t0 = time.monotonic()
    run([cli, "merge", d, "--html", out])
    t1 = time.monotonic()
    size = os.path.getsize(out)
    text, root = page(out)
    _, rows = hc.table(root, "rank-table")
    need(len(rows) == 1023, f"{len(rows)} rank rows")
    need(size < 1_500_000, f"1,024 ranks: {size} bytes")
    print(f"ok: 1,024 ranks: {size} bytes, merged and written in {t1 - t0:.2f} s")


def scenario_bad(gen, cli, work):
    rep = os.path.join(work, "r.json")
    tiny_report(rep, 43253760, "x")
    d = os.path.join(work, "ranks")
    os.makedirs(d)
    run([gen, d, "--ranks", "2", "--iterations", "4"])
    missing = os.path.join(work, "no", "such", "dir", "o.html")
    cases = [(["report", rep, "--html", missing], "cannot write " + missing),
             (["report", rep, "--html", work], "it is a directory"),
             (["report", rep, "--html"], "--html needs an output file name"),
             (["merge", d, "--html", missing], "cannot write " + missing),
             (["merge", d, "--html", work], "it is a directory"),
             (["merge", d, "--html="], "--html needs an output file name")]
    for args, words in cases:
        r = run([cli] + args, want_rc=2)
        lines = r.stderr.splitlines()
        need(len(lines) == 1 and lines[0].startswith(f"flopcount {args[0]}: ") and words in
             lines[0], f"{args}: stderr {r.stderr!r}")
        need(r.stdout == "", f"{args}: printed {r.stdout!r}")
    need(not os.path.exists(os.path.join(work, "no")), "a directory was created")
    leftovers = [f for f in os.listdir(work) if ".tmp." in f]
    need(not leftovers, f"left behind: {leftovers}")
    print("ok: bad --html paths")


def main():
    scenario, gen, cli, work = sys.argv[1:5]
    work = os.path.join(work, scenario)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    {"report": scenario_report, "merge": scenario_merge, "big": scenario_big,
     "bad": scenario_bad}[scenario](gen, cli, work)


if __name__ == "__main__":
    main()
