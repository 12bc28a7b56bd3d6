#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""schema_keys.py - every key a report carries has a reader, and every key
a reader asks for is written: the whole report, not only the sections that
have a field table (test_schema.c checks those tables row by row).

Written: the key paths of real reports, measured - fixture programs run
under libflopcount.so (the cases on the command line: CUPTI kernels, hw
FLOPs and graphs; grouped GEMMs with their device sizes and the forward
profile; cuDNN attention; a job under `flopcount run --null-gpu` with the
detector's repeat check: the job's report is the command's writing), and
the merged report `flopcount merge --json` writes of them (a writer too:
`flopcount report` reads it).
Read: the paths the command's readers ask for, measured by
schema_keys_reader.c while `report` (text, --json, --html, with a peak
and a model) and `merge` (text, --json, --html) run on those reports and
`run` assembles its job's report, and each report goes through
the reference tree reader too (the verbs take the fast path for "shapes"
and "iterations.list").

A path: "iterations.list[].seconds"; an array's elements are "[]"; an
object whose keys are data (API, dtype, class names: MAPS below, and every
object a reader walks member by member) has them as "*": "by_api.*.calls".
A written container counts as read when a key below it is read; a read
path counts as written when it, or a path below it, is written.

Fails with one line per key: "written, no reader: P" or "read, never
written: P", but the keys on ALLOWED below, each with its reason, and
those on KNOWN_GAPS (a reader should read them; printed, not failed);
and for an entry of either list that no longer matches anything.
SCHEMA_KEYS_ALL=1 in the environment lists every one-sided key.

usage: schema_keys.py PRELOAD READER CLI WORK CASE...
  CASE: NAME VAR=VALUE... PROGRAM ARG... ::   (the run's LD_PRELOAD and
  FLOPCOUNT_OUTPUT are set here; a case that writes no report fails), or
  NAME VAR=VALUE... @run RUN-OPTION... -- PROGRAM ARG... ::  (under
  `flopcount run` - the reader's - which writes the job's report)
"""
import json
import os
import subprocess
import sys

# Objects whose keys are data, not schema, that no reader walks member by
# member (those a reader walks - by_api, by_dtype, attention.by_source,
# iterations.flops_by_dtype, hw_flops.coverage, hw_flops.totals - are found
# by the measurement): their keys are collapsed to "*" all the same, so a
# new dtype name is not a new key.
MAPS = {
    "hw_flops.iterations.list[].by_type",
}

# Keys allowed to be one-sided, each with why; an entry covers the path and
# every path below it. Keep it short and honest.
ALLOWED = {
    # -- written for people and other tools; no flopcount reader needs them --
    "callsites.method": "how frames were taken, for people",
    "callsites.top[]": "the reader counts the call sites; their frames are for people",
    "callsites.unattributed_flops": "for people, beside the call sites",
    "cupti.kernels": "CUPTI's set-up, for people (cupti.status / reason are read)",
    "cupti.kernels_reason": "CUPTI's set-up, for people",
    "cupti.library": "CUPTI's set-up, for people",
    "cupti.version": "CUPTI's set-up, for people",
    "launch": "the launch hooks' diagnostics (registrations, decode counts), for people",
    "iterations.detector": "the detector's diagnostics, for people",
    "iterations.gpu_timing": "how GPU time was taken, for people",
    "graphs.execs": "one row a graph exec, for people (the reader reads the sums)",
    "graphs.more_execs": "rows of graphs.execs left out, for people",
    "hw_flops.trigger": "how the counters were sampled, for people",
    "hw_flops.metrics": "the counters used, for people",
    "hw_flops.validated_on_hardware": "for people",
    "hw_flops.iterations.list": "per iteration, for people (the reader reads the medians)",
    "kernels.iterations.list": "per iteration, for people (the reader reads the medians)",
    "kernels.gemm_unknown_shape": "kernels whose GEMM had no shape, for people",
    "kernels.more_shapes": "rows of kernels.shapes left out, for people",
    "merge": "merge --json's per-rank tables and checks, for other tools; report of a "
             "merged report shows its sums",
    "process.hosts": "merge --json: the hosts, for other tools",
    "job.assembled": "flopcount run's job: how its report was put together, for people",
    "job.exit_status": "the job's exit, for people (the reader reads job.ended)",
    "job.forwarded_signal": "for people, beside job.ended",
    "job.pid": "for people",
    "job.unreadable_parts": "for people (the reader reads job.incomplete)",
    "processes[].file": "each process's part, for people",
    "utilization.achieved_flops_per_second": "the shim's own figures, for people; readers "
                                             "compute them again (analysis/run/run_figures)",
    "utilization.hardware_flops_per_iteration": "as utilization.achieved_flops_per_second",
    "utilization.model_flops_per_iteration": "as utilization.achieved_flops_per_second",
    "utilization.ideal_seconds": "as utilization.achieved_flops_per_second",
    "utilization.seconds": "as utilization.achieved_flops_per_second",
    "utilization.mfu_ambiguous": "as utilization.achieved_flops_per_second",
    "utilization.mix[].seconds_at_peak": "as utilization.achieved_flops_per_second",
    "utilization.mix[].training_flops": "as utilization.achieved_flops_per_second",
    # -- read, written only in cases the fixtures here do not make --
    "attention.shapes[].layout": "FlashAttention decoded from a launch's parameters "
                                 "(shim/report/attention_json.c; tests/launch)",
    "attention.shapes[].overflow": "a shape whose count saturated (attention_json.c)",
    "shapes[].overflow": "a shape whose count saturated (shim/report/report.c)",
    "forward_profile.gemms[].kind": "attention in the forward profile (profile_json.c)",
    "forward_profile.gemms[].unresolved": "a profile GEMM of unknown shape (profile_json.c)",
    "utilization.mix_reason": "no dtype mix (tests/clarity)",
    "totals.processes": "a job of several processes with GEMMs (tools/job)",
    "iterations.list[].gpu_seconds": "an iteration timed on the GPU (CUPTI kernels inside "
                                     "markers: tests/gputime)",
    "iterations.list[].slowest_rank": "merge --json's step of two or more ranks (tests/merge)",
}

# Keys a reader should read and does not (or that are computed twice): the
# test passes over them, printing each, until a reader takes them.
KNOWN_GAPS = {
    "forward_profile.grouped_experts": "the shim's reading of the experts; the command "
                                       "reads them again from the GEMMs (analysis/"
                                       "infer_grouped.c): one figure computed twice",
    "forward_profile.gemms[].dtype": "the forward profile's dtype is not read",
    "uncounted[].read_from_device": "grouped GEMMs' sizes read from the device: neither "
                                    "report nor merge reads them (only the iterations' "
                                    "grouped_imbalance)",
    "iterations.micro_batches": "not read (iterations.micro_batch is)",
    "iterations.ambiguous_recompute_iterations": "not read (report --json counts the steady "
                                                 "ones again from the list)",
    "inferred_model.reason": "merge --json writes why no model was inferred; report does "
                             "not read it",
    "world_size": "merge --json's world size at the top; report reads process.world_size",
}


def covered(p, table):
    """The entry of table that covers path p (it or a path above it)."""
    for a in table:
        if p == a or p.startswith(a + ".") or p.startswith(a + "["):
            return a
    return None


# a model for report's formula side (what it reads with one)
MODEL = ["--layers", "2", "--hidden", "64", "--heads", "4", "--vocab", "128", "--seq", "16",
         "--batch", "2"]


def fail(msg):
    print(f"schema_keys: {msg}")
    sys.exit(1)


def split_cases(args):
    cases, cur = [], []
    for a in args:
        if a == "::":
            if cur:
                cases.append(cur)
            cur = []
        else:
            cur.append(a)
    if cur:
        cases.append(cur)
    return cases


def run_case(preload, reader, keys, work, case):
    name, rest = case[0], case[1:]
    out = os.path.join(work, name + ".json")
    env = dict(os.environ, FLOPCOUNT_QUIET="1", FAKE_CUDA_KERNEL_LOG=out + ".klog",
               FAKE_TRUTH=out + ".truth", ASAN_OPTIONS="detect_leaks=0")
    i = 0
    while i < len(rest) and "=" in rest[i] and not rest[i].startswith("/"):
        k, v = rest[i].split("=", 1)
        if k == "LD_LIBRARY_PATH" and env.get(k):
            v = v + ":" + env[k]
        env[k] = v
        i += 1
    for suffix in ("", ".klog", ".truth"):
        if os.path.exists(out + suffix):
            os.remove(out + suffix)
    cmd = rest[i:]
    if cmd[0] == "@run":  # the command's run, in the reader: the job's assembly
        # (tools/job) reads the parts, then writes the job's report
        cmd = [reader, keys, "run", "--quiet", "--output", out, *cmd[1:]]
        if os.environ.get("FC_SANITIZER_RUNTIME"):  # a sanitized shim: its runtime first,
            env["LD_PRELOAD"] = os.environ["FC_SANITIZER_RUNTIME"]  # where run keeps it
    else:
        env.update(LD_PRELOAD=preload, FLOPCOUNT_OUTPUT=out)
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0 or not os.path.exists(out):
        fail(f"case {name}: exit {r.returncode}, report {os.path.exists(out)}\n{r.stderr[-2000:]}")
    return out


def paths_of(o, at, out):
    """Every key path of the JSON value o (containers included)."""
    if isinstance(o, dict):
        for k, v in o.items():
            p = f"{at}.{k}" if at else k
            out.add(p)
            paths_of(v, p, out)
    elif isinstance(o, list):
        for v in o:
            paths_of(v, at + "[]", out)


def collapse(path, maps):
    """path with each key below an object of maps made "*"."""
    done = ""
    for seg in path.split("."):
        key, brackets = (seg.split("[", 1) + [""])[:2]
        brackets = "[" + brackets if brackets else ""
        if done in maps:
            key = "*"
        seg = key + brackets
        done = f"{done}.{seg}" if done else seg
    return done


def main():
    preload, reader, cli, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    keys = os.path.join(work, "read.keys")
    if os.path.exists(keys):
        os.remove(keys)
    reports = [run_case(preload, reader, keys, work, c) for c in split_cases(sys.argv[5:])]

    # the merged report: the command's own writer, read by `report`
    merged = os.path.join(work, "merged.json")
    r = subprocess.run([cli, "merge", *reports, "--json"], stdout=subprocess.PIPE, text=True)
    if r.returncode != 0:
        fail(f"merge --json: exit {r.returncode}")
    with open(merged, "w") as f:
        f.write(r.stdout)

    html = os.path.join(work, "out.html")
    steps = []  # one run of the reader a verb: merge keeps its sums in statics
    for p in reports + [merged]:
        steps += [["tree", p], ["report", p], ["report", p, "--json"],
                  ["report", p, "--html", html], ["report", p, "--peak-tflops", "100", *MODEL]]
    steps += [["merge", *reports], ["merge", *reports, "--json", "--peak-tflops", "100"],
              ["merge", *reports, "--html", html]]
    for step in steps:
        r = subprocess.run([reader, keys, *step], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        if r.returncode != 0:
            fail(f"reader {' '.join(step)}: exit {r.returncode}\n{r.stderr[-2000:]}")
    with open(keys) as f:
        read_raw = {line.rstrip("\n") for line in f if line.strip()}

    # objects a reader walks member by member hold data keys
    maps = set(MAPS) | {p[:-2] for p in read_raw if p.endswith(".*")}
    maps = {collapse(m, maps) for m in maps}
    read = {collapse(p, maps) for p in read_raw}

    written = set()
    for p in reports + [merged]:
        with open(p) as f:
            raw = set()
            paths_of(json.load(f), "", raw)
        written |= {collapse(q, maps) for q in raw}

    def below(p, s):
        return any(q.startswith(p + ".") or q.startswith(p + "[]") for q in s)

    unread = sorted(p for p in written
                    if p not in read and not below(p, read) and f"{p}.*" not in read)
    unwritten = sorted(p for p in read
                       if p not in written and not below(p, written) and not p.endswith(".*"))
    bad = 0
    used, gaps = set(), {}
    for what, paths in (("written, no reader", unread), ("read, never written", unwritten)):
        for p in paths:
            a = covered(p, ALLOWED) or covered(p, KNOWN_GAPS)
            if a is None:
                print(f"{what}: {p}")
                bad += 1
            else:
                used.add(a)
                if os.environ.get("SCHEMA_KEYS_ALL"):  # every one-sided key, with its entry
                    print(f"{'gap' if a in KNOWN_GAPS else 'allowed'}, {what}: {p} [{a}]")
                if a in KNOWN_GAPS:
                    gaps[a] = (what, gaps.get(a, (what, 0))[1] + 1)
    for a, (what, n) in sorted(gaps.items()):
        print(f"known gap, {what}: {a} ({n} key{'s' if n > 1 else ''}): {KNOWN_GAPS[a]}")
    # FLOPCOUNT_CALLSITES=0 (the TSan build's runs: scripts/ci/sanitizers.sh)
    # leaves out the call sites' frames: their entries may then go unused
    off = ("callsites.",) if os.environ.get("FLOPCOUNT_CALLSITES") == "0" else ()
    for a in sorted((set(ALLOWED) | set(KNOWN_GAPS)) - used):
        if off and a.startswith(off):
            continue
        print(f"allowed but no longer one-sided (take it off the list): {a}")
        bad += 1
    print(f"schema_keys: {len(written)} keys written, {len(read)} read; "
          f"{len(unread)} written unread, {len(unwritten)} read unwritten; "
          f"{len(ALLOWED)} allowed, {len(KNOWN_GAPS)} known gaps; {bad} failing")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
