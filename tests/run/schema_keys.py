#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""schema_keys.py - every key a report carries has a reader, and every key
a reader asks for is written: the whole report, not only the sections that
have a field table (test_schema.c checks those tables row by row).

Written: the key paths of real reports, measured - fixture programs run
under libflopcount.so (the cases on the command line: CUPTI kernels, hw
FLOPs and graphs; grouped GEMMs with their device sizes and the forward
profile; cuDNN attention; the repeat check of the detector), and the
merged report `flopcount merge --json` writes of them (a writer too:
`flopcount report` reads it).
Read: the paths the command's readers ask for, measured by
schema_keys_reader.c while `report` (text, --json, --html) and `merge`
(text, --json, --html) run on those reports, and each report goes through
the reference tree reader too (the verbs take the fast path for "shapes"
and "iterations.list").

A path: "iterations.list[].seconds"; an array's elements are "[]"; an
object whose keys are data (API, dtype, class names: MAPS below, and every
object a reader walks member by member) has them as "*": "by_api.*.calls".
A written container counts as read when a key below it is read; a read
path counts as written when it, or a path below it, is written.

Fails with one line per key: "written, no reader: P" or "read, never
written: P", but the keys on ALLOWED below, each with its reason.

usage: schema_keys.py PRELOAD READER CLI WORK CASE...
  CASE: NAME VAR=VALUE... PROGRAM ARG... ::   (the run's LD_PRELOAD and
  FLOPCOUNT_OUTPUT are set here; a case that writes no report fails)
"""
import json
import os
import subprocess
import sys

# Objects whose keys are data, not schema, that no reader walks member by
# member (those a reader walks are found by the measurement): written keys
# below them are collapsed to "*" all the same, so a new API name is not a
# new key.
MAPS = {
    "by_api",
    "by_dtype",
    "attention.by_source",
    "iterations.flops_by_dtype",
    "hw_flops.coverage",
    "hw_flops.totals",
    "hw_flops.iterations.list[].by_type",
}

# Keys allowed to be one-sided, each with why. Keep it short and honest: a
# key that a reader should read and does not is a finding, not an entry.
ALLOWED = {
    # -- written, no flopcount reader: for people and other tools --
}


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


def run_case(preload, work, case):
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
    env.update(LD_PRELOAD=preload, FLOPCOUNT_OUTPUT=out)
    r = subprocess.run(rest[i:], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
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
    reports = [run_case(preload, work, c) for c in split_cases(sys.argv[5:])]

    # the merged report: the command's own writer, read by `report`
    merged = os.path.join(work, "merged.json")
    r = subprocess.run([cli, "merge", *reports, "--json"], stdout=subprocess.PIPE, text=True)
    if r.returncode != 0:
        fail(f"merge --json: exit {r.returncode}")
    with open(merged, "w") as f:
        f.write(r.stdout)

    keys = os.path.join(work, "read.keys")
    if os.path.exists(keys):
        os.remove(keys)
    html = os.path.join(work, "out.html")
    steps = []  # one run of the reader a verb: merge keeps its sums in statics
    for p in reports + [merged]:
        steps += [["tree", p], ["report", p], ["report", p, "--json"],
                  ["report", p, "--html", html]]
    steps += [["merge", *reports], ["merge", *reports, "--json"],
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
    for p in unread:
        if p not in ALLOWED:
            print(f"written, no reader: {p}")
            bad += 1
    for p in unwritten:
        if p not in ALLOWED:
            print(f"read, never written: {p}")
            bad += 1
    stale = sorted(p for p in ALLOWED if p not in unread and p not in unwritten)
    for p in stale:
        print(f"allowed but no longer one-sided (take it off ALLOWED): {p}")
        bad += 1
    print(f"schema_keys: {len(written)} keys written, {len(read)} read, "
          f"{len(unread)} written unread, {len(unwritten)} read unwritten, "
          f"{len(ALLOWED)} allowed, {bad} failing")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
