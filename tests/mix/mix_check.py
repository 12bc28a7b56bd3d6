# SPDX-License-Identifier: Apache-2.0
"""mix_check.py SHIM MIX_EMU FLOPCOUNT FAKE_LIBCUDA LT_EMU_DIR WORKDIR

HFU at the dtype mix, worked out here by hand and compared with every place
flopcount shows it. tests/mix/mix_emu.c runs 8 iterations of TN 64x64x64
GEMMs through the cuBLASLt emulation (2 x 64^3 = 524,288 FLOPs each, P
below) on a GPU the fake driver names:

  fp8mix   H100 SXM: 3 FP8 E4M3 + 1 FP8 E5M2 + 2 BF16 GEMMs per iteration
  nofp8    A100 SXM: 1 FP8 E4M3 + 3 BF16 (the A100 has no FP8 peak)
  bf16     H100 SXM: 3 BF16 only (the mix is HFU, to the bit)
  merge    fp8mix as rank 0 beside 1 E4M3 + 3 BF16 as rank 1
  merge_devices  ranks on different GPUs: H100 + A100 with FP8 on both
           (unknown: the A100 has no FP8 peak), H100 + B200 both in BF16
           (unknown: two BF16 figures, shown with the reason), H100 FP8
           only + A100 BF16 only (each dtype at its own device's peak)
  merge_hand  ranks with FLOPCOUNT_PEAK_TFLOPS=500: BF16 + FP8 (unknown),
           BF16 + BF16 (the given figure, one dtype)

Peaks from the data sheets, sparse figures halved (docs/peak.md): H100 SXM
FP8 3958* -> 1978.9 TFLOP/s (E4M3 and E5M2 alike), BF16 1979* -> 989.4;
A100 BF16 624* -> 312 and no FP8; HGX B200 FP8 9P* -> 4500, BF16 4.5P* ->
2250. The time is measured: each check takes it from the figure's own
source (the report's median, the snapshot's, the Prometheus file's) and
the FLOPs and peaks from here: hfu_mix = sum_d F_d / (peak_d x seconds).
"""
import json
import os
import re
import shutil
import subprocess
import sys

SHIM, PROG, CLI, FAKE, LTDIR, WORK = sys.argv[1:7]
P = 2 * 64 ** 3
STEPS = 8
TF = 1e12
H100 = {"fp8_e4m3": 1978.9 * TF, "fp8_e5m2": 1978.9 * TF, "bf16": 989.4 * TF}
B200 = {"fp8_e4m3": 4500 * TF, "fp8_e5m2": 4500 * TF, "bf16": 2250 * TF}
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def close(a, b, rel=1e-12):
    return a is not None and b is not None and abs(a - b) <= rel * abs(b)


def hand(flops_by_dtype, peaks, seconds, gpus=1):
    """sum_d F_d / (gpus x peak_d x seconds)."""
    return sum(f / (gpus * peaks[d] * seconds) for d, f in flops_by_dtype.items())


def fmt_pct(v):
    """fci_fmt_pct (tools/render/render_fmt.c)."""
    if v is None:
        return "n/a"
    return "%.2g%%" % (v * 100) if v != 0 and abs(v) < 0.001 else "%.1f%%" % (v * 100)


def run(name, counts, gpu, extra=None):
    """One program run under the shim: its report, stderr, snapshot, Prometheus samples."""
    d = os.path.join(WORK, name)
    os.makedirs(os.path.join(d, "prom"))
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("FLOPCOUNT_", "FAKE_CUDA_")) and k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    env.update({"LD_PRELOAD": SHIM, "LD_LIBRARY_PATH": LTDIR, "FLOPCOUNT_OUTPUT": os.path.join(d, "r.json"),
                "FLOPCOUNT_LIBCUDA": FAKE, "FAKE_CUDA_NAME": gpu, "FLOPCOUNT_CUPTI": "0",
                "FLOPCOUNT_LOG_EVERY": "1", "FLOPCOUNT_PROMETHEUS": os.path.join(d, "prom"),
                "MIX_SNAPSHOT": os.path.join(d, "snap.json")})
    env.update(extra or {})
    p = subprocess.run([PROG] + [str(c) for c in counts] + [str(STEPS)], env=env, capture_output=True,
                       text=True, timeout=120)
    if p.returncode != 0:
        print(p.stderr, file=sys.stderr)
        raise SystemExit("mix_emu %s exited %d" % (name, p.returncode))
    with open(os.path.join(d, "r.json")) as f:
        rep = json.load(f)
    with open(os.path.join(d, "snap.json")) as f:
        snap = json.load(f)
    proms = os.listdir(os.path.join(d, "prom"))
    check(len(proms) == 1, "%s: one Prometheus file, got %s" % (name, proms))
    with open(os.path.join(d, "prom", proms[0])) as f:
        prom = prom_samples(f.read())
    return rep, p.stderr, snap, prom, os.path.join(d, "r.json")


def prom_samples(text):
    """{name: {dtype label or None: value}} of the text format."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-z_]+)\{(.*)\} (\S+)$', line)
        dt = re.search(r'dtype="([^"]*)"', m.group(2))
        key = dt.group(1) if dt and m.group(1) != "flopcount_peak_flops" else None
        out.setdefault(m.group(1), {})[key] = float(m.group(3))
    return out


def cli(*args, rc=0):
    p = subprocess.run([CLI] + list(args), capture_output=True, text=True, timeout=60)
    check(p.returncode == rc, "flopcount %s: exit %d (%s)" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout


def per_iteration(counts):
    e4, e5, bf = counts
    f = {"fp8_e4m3": e4 * P, "fp8_e5m2": e5 * P, "bf16": bf * P}
    return {d: v for d, v in f.items() if v}


def check_json(name, rep, counts, peaks, device, dtype):
    f = per_iteration(counts)
    it, u = rep["iterations"], rep["utilization"]
    # the mix is the training calls': the evaluation pass's fp32 GEMM is not in it
    check(it["flops_by_dtype"] == {d: STEPS * v for d, v in f.items()},
          "%s: flops_by_dtype %s" % (name, it["flops_by_dtype"]))
    check(rep["by_dtype"]["fp32"]["flops"] == 1024, "%s: the evaluation GEMM's 2*8^3 in by_dtype" % name)
    check(u["hardware_flops_per_iteration"] == sum(f.values()), "%s: FLOPs per iteration" % name)
    check(u["device"] == device and u["peak_source"] == "device" and u["dtype"] == dtype,
          "%s: peak %s %s %s" % (name, u["device"], u["peak_source"], u["dtype"]))
    t = u["seconds"]
    check(close(u["hfu"], sum(f.values()) / (u["peak_flops"] * t)), "%s: hfu" % name)
    shares = [(d, v / sum(f.values())) for d, v in sorted(f.items(), key=lambda x: (-x[1], x[0]))]
    got = [(x["dtype"], x["share"]) for x in u["mix"]]
    check([g[0] for g in got] == [s[0] for s in shares] and all(close(g[1], s[1], 1e-15) for g, s in zip(got, shares)),
          "%s: mix shares %s, want %s" % (name, got, shares))
    return f, t


def fp8mix():
    counts = (3, 1, 2)
    rep, err, snap, prom, path = run("fp8mix", counts, "NVIDIA H100 80GB HBM3")
    f, t = check_json("fp8mix", rep, counts, H100, "NVIDIA H100 80GB HBM3", "fp8_e4m3")
    u = rep["utilization"]
    want = hand(f, H100, t)
    # 3P and P at 1978.9, 2P at 989.4: above HFU at the fp8 peak (6P at 1978.9)
    check(close(u["hfu_mix"], want), "fp8mix: JSON hfu_mix %r, by hand %r" % (u["hfu_mix"], want))
    check(u["hfu_mix"] > u["hfu"], "fp8mix: the bf16 third takes twice the time: hfu_mix > hfu")
    check(close(u["ideal_seconds"], sum(v / H100[d] for d, v in f.items())), "fp8mix: ideal_seconds")
    for x in u["mix"]:
        check(x["peak_flops"] == H100[x["dtype"]], "fp8mix: %s peak %r" % (x["dtype"], x["peak_flops"]))
        check(close(x["seconds_at_peak"], f[x["dtype"]] / H100[x["dtype"]]), "fp8mix: seconds_at_peak")
    # the summary line on stderr
    m = re.search(r"^flopcount: HFU \S+ MFU \S+ of 1979 TFLOP/s \(fp8_e4m3 peak, device: NVIDIA H100 80GB HBM3\); "
                  r"HFU at the dtype mix (\S+)% \(fp8_e4m3 50\.0%, bf16 33\.3%, fp8_e5m2 16\.7%\)$", err, re.M)
    check(m is not None and close(float(m.group(1)), 100 * want, 5e-3), "fp8mix: summary line\n" + err[-1500:])
    # the live lines: iteration i's own time from the report's list
    lines = re.findall(r"^flopcount: step (\d+) \S+ s \S+ \S+/s HFU \S+ \(fp8_e4m3\) mix (\S+)% MFU ", err, re.M)
    check(len(lines) >= STEPS - 1, "fp8mix: live lines %r" % lines)
    secs = {x["index"]: x["seconds"] for x in rep["iterations"]["list"]}
    for step, pct in lines:
        check(close(float(pct), 100 * hand(f, H100, secs[int(step)]), 6e-3),  # 3 digits
              "fp8mix: live mix %s%% at step %s, by hand %.4g%%" % (pct, step, 100 * hand(f, H100, secs[int(step)])))
    # the snapshot, against its own median
    check(snap["version"] == 3 and snap["flags"] & 0x40 and snap["mix_count"] == 3, "fp8mix: snapshot %r" % snap)
    check(close(snap["hfu_mix"], hand(f, H100, snap["median_iteration_seconds"])), "fp8mix: snapshot hfu_mix")
    check([(x["dtype"], x["peak_flops"]) for x in snap["mix"]] ==
          [("fp8_e4m3", H100["fp8_e4m3"]), ("bf16", H100["bf16"]), ("fp8_e5m2", H100["fp8_e5m2"])],
          "fp8mix: snapshot terms %r" % snap["mix"])
    check(all(close(x["share"], s, 1e-15) for x, s in zip(snap["mix"], (1 / 2, 1 / 3, 1 / 6))), "fp8mix: snapshot shares")
    # Prometheus, against its own iteration seconds
    ps = prom["flopcount_iteration_seconds"][None]
    check(close(prom["flopcount_hfu_mix_ratio"][None], hand(f, H100, ps)), "fp8mix: flopcount_hfu_mix_ratio")
    check(prom["flopcount_flops_share_ratio"].keys() == {"fp8_e4m3", "fp8_e5m2", "bf16"} and
          all(close(prom["flopcount_flops_share_ratio"][d], v / (6 * P), 1e-15) for d, v in f.items()),
          "fp8mix: flopcount_flops_share_ratio %r" % prom["flopcount_flops_share_ratio"])
    check(prom["flopcount_dtype_peak_flops"] == H100, "fp8mix: flopcount_dtype_peak_flops")
    # 'flopcount report': text and JSON, with the report's peaks, B200's, and one given peak
    j = json.loads(cli("report", path, "--json"))["measured"]
    want = hand(f, H100, j["seconds_per_iteration"])
    check(close(j["hfu_mix"], want), "fp8mix: report --json hfu_mix")
    text = cli("report", path)
    check(("  HFU at mix     %s   each dtype's FLOPs at its own dense peak: fp8_e4m3 50.0%% at 1978.9 "
           "TFLOP/s, bf16 33.3%% at 989.4 TFLOP/s, fp8_e5m2 16.7%% at 1978.9 TFLOP/s\n" % fmt_pct(want)) in text,
          "fp8mix: report text\n" + text)
    check("peak from the report: 1979 TFLOP/s (fp8_e4m3), NVIDIA H100 80GB HBM3" in text, "fp8mix: HFU named by its dtype")
    j = json.loads(cli("report", path, "--gpu", "B200", "--json"))["measured"]
    check(close(j["hfu"], 6 * P / (4500 * TF * j["seconds_per_iteration"])), "fp8mix: --gpu B200 hfu (fp8 peak)")
    check(close(j["hfu_mix"], hand(f, B200, j["seconds_per_iteration"])), "fp8mix: --gpu B200 hfu_mix")
    j = json.loads(cli("report", path, "--peak-tflops", "1000", "--json"))["measured"]
    check(j["hfu_mix"] is None and j["mix_reason"].startswith("one peak given (--peak-tflops) for FLOPs of 3 dtypes")
          and all(x["peak_flops"] is None for x in j["mix"]), "fp8mix: --peak-tflops refuses the mix: %r" % j)
    page = os.path.join(WORK, "fp8mix.html")
    cli("report", path, "--html", page)
    with open(page) as fh:
        html = fh.read()
    table = html[html.find('id="mix-table"'):]
    table = table[:table.find("</table>")]
    rows = re.findall(r'<tr><td>([a-z0-9_]+)</td><td class="n">([0-9.]+%)</td>.*?<td class="n">([0-9.]+)</td>', table)
    check('data-k="measured.hfu_mix">%s<' % fmt_pct(hand(f, H100, json.loads(cli("report", path, "--json"))
                                                           ["measured"]["seconds_per_iteration"])) in html and
          rows == [("fp8_e4m3", "50.0%", "1978.9"), ("bf16", "33.3%", "989.4"), ("fp8_e5m2", "16.7%", "1978.9")],
          "fp8mix: the page's mix card and table %r" % rows)


def nofp8():
    counts = (1, 0, 3)
    rep, err, snap, prom, path = run("nofp8", counts, "NVIDIA A100-SXM4-80GB")
    check_json("nofp8", rep, counts, None, "NVIDIA A100-SXM4-80GB", "bf16")
    u = rep["utilization"]
    why = "no published fp8_e4m3 peak for A100-SXM"
    check(u["peak_flops"] == 312 * TF and u["hfu_mix"] is None and u["mix_reason"] == why, "nofp8: JSON %r" % u)
    check([(x["dtype"], x["peak_flops"]) for x in u["mix"]] == [("bf16", 312 * TF), ("fp8_e4m3", None)],
          "nofp8: terms %r" % u["mix"])
    check(re.search(r"HFU at the dtype mix n/a \(bf16 75\.0%, fp8_e4m3 25\.0%\): " + why + "$", err, re.M),
          "nofp8: summary\n" + err[-800:])
    check(re.search(r"^flopcount: step \d+ .* HFU \S+ \(bf16\) mix n/a MFU ", err, re.M), "nofp8: live line")
    check(not snap["flags"] & 0x40 and snap["hfu_mix"] == 0 and snap["mix_reason"] == why and
          snap["mix"][1] == {"dtype": "fp8_e4m3", "share": 0.25, "peak_flops": 0}, "nofp8: snapshot %r" % snap)
    check("flopcount_hfu_mix_ratio" not in prom and prom["flopcount_dtype_peak_flops"] == {"bf16": 312 * TF} and
          prom["flopcount_flops_share_ratio"] == {"bf16": 0.75, "fp8_e4m3": 0.25}, "nofp8: Prometheus %r" % prom)
    text = cli("report", path)
    check("  HFU at mix     n/a   %s (bf16 75.0%% at 312 TFLOP/s, fp8_e4m3 25.0%% (no peak))\n" % why in text,
          "nofp8: report text\n" + text)
    # the same run as if on an H100: every dtype has a peak there
    j = json.loads(cli("report", path, "--gpu", "h100", "--json"))["measured"]
    check(close(j["hfu_mix"], hand(per_iteration(counts), H100, j["seconds_per_iteration"])), "nofp8: --gpu h100")


def bf16():
    """One dtype: HFU at the mix is HFU, to the last bit, everywhere."""
    rep, err, snap, prom, path = run("bf16", (0, 0, 3), "NVIDIA H100 80GB HBM3")
    u = rep["utilization"]
    check(u["dtype"] == "bf16" and u["hfu_mix"] == u["hfu"] and u["mix"][0]["share"] == 1, "bf16: JSON %r" % u)
    check(close(u["hfu"], 3 * P / (989.4 * TF * u["seconds"])), "bf16: hfu by hand")
    check(snap["hfu_mix"] == snap["hfu"] and snap["flags"] & 0x40, "bf16: snapshot")
    check(prom["flopcount_hfu_mix_ratio"][None] == prom["flopcount_hfu_ratio"][None], "bf16: Prometheus")
    check(not re.search(r" mix ", "\n".join(l for l in err.splitlines() if " step " in l)),
          "bf16: the live line gives no mix for one dtype")
    for extra in ([], ["--gpu", "B200", "--dtype", "bf16"], ["--peak-tflops", "100"]):
        j = json.loads(cli("report", path, "--json", *extra))["measured"]
        check(j["hfu_mix"] == j["hfu"], "bf16: report --json %s: %r vs %r" % (extra, j["hfu_mix"], j["hfu"]))


def merge():
    ranks = [run("rank%d" % r, c, "NVIDIA H100 80GB HBM3", {"RANK": str(r), "WORLD_SIZE": "2"})[4]
             for r, c in ((0, (3, 1, 2)), (1, (1, 0, 3)))]
    # the cluster: per step 4P E4M3, 1P E5M2, 5P BF16 on two GPUs; the two
    # ranks' single peaks differ (fp8 and bf16 dominant), each dtype's do not
    both = {"fp8_e4m3": 4 * P, "fp8_e5m2": P, "bf16": 5 * P}
    m = json.loads(cli("merge", *ranks, "--json"))
    u, t = m["utilization"], m["iterations"]["median_seconds"]
    check(m["iterations"]["flops_per_iteration"] == 10 * P and
          m["iterations"]["flops_by_dtype"] == {d: STEPS * v for d, v in both.items()}, "merge: FLOPs %r" % m["iterations"])
    check(u["hfu"] is None and close(u["hfu_mix"], hand(both, H100, t, 2)), "merge: cluster mix %r" % u)
    check([(x["dtype"], x["share"]) for x in u["mix"]] == [("bf16", 0.5), ("fp8_e4m3", 0.4), ("fp8_e5m2", 0.1)],
          "merge: shares %r" % u["mix"])
    text = cli("merge", *ranks)
    check(("  HFU at mix       %s   each dtype's FLOPs at its own dense peak: bf16 50.0%%" % fmt_pct(hand(both, H100, t, 2)))
          in text, "merge: text\n" + text)
    g = json.loads(cli("merge", *ranks, "--gpu", "B200", "--json"))["utilization"]
    check(close(g["hfu_mix"], hand(both, B200, t, 2)) and close(g["hfu"], 10 * P / (2 * 2250 * TF * t)),
          "merge: --gpu B200 (bf16 the main dtype) %r" % g)
    out = os.path.join(WORK, "merged.json")
    with open(out, "w") as f:
        f.write(cli("merge", *ranks, "--json"))
    j = json.loads(cli("report", out, "--json"))["measured"]
    check(close(j["hfu_mix"], hand(both, H100, j["seconds_per_iteration"], 2)), "merge: report of the merged file %r" % j)


def merge_devices():
    """Ranks on GPUs of different kinds: each dtype's FLOPs need the peak of
    the device they ran on, never another rank's."""
    def ranks(name, specs):
        return [run("%s%d" % (name, r), c, gpu, {"RANK": str(r), "WORLD_SIZE": "2"})[4]
                for r, (c, gpu) in enumerate(specs)]
    a100 = "NVIDIA A100-SXM4-80GB"
    # H100 (3 E4M3, 1 E5M2, 2 BF16) beside an A100 running 3 E4M3 + 1 BF16:
    # the A100 has no FP8 peak, so its report has no utilization at all (its
    # dominant dtype has no peak); the H100's FP8 figure must not stand in
    # for the A100's FP8 FLOPs.
    files = ranks("devfp8", [((3, 1, 2), "NVIDIA H100 80GB HBM3"), ((3, 0, 1), a100)])
    u = json.loads(cli("merge", *files, "--json"))["utilization"]
    check(u["hfu_mix"] is None and "fp8_e4m3" in u["mix_reason"] and "A100" in u["mix_reason"],
          "merge H100 + A100 with FP8: the mix is unknown, got %r" % u)
    text = cli("merge", *files)
    check("HFU at mix       n/a   NVIDIA A100 SXM4 has no dense fp8_e4m3 figure" in text,
          "merge H100 + A100 with FP8: text\n" + text)
    # the A100's report alone: no single peak and no mix, each said
    text = cli("report", files[1])
    check("HFU at mix     n/a   NVIDIA A100 SXM4 has no dense fp8_e4m3 figure" in text,
          "report of the A100 rank with FP8: text\n" + text)
    # H100 and B200 both ran BF16, at 989.4 and 2250: no one BF16 figure,
    # and the ranks' single peaks differ too (fp8 1978.9, bf16 2250); the
    # unknown mix is still shown with its reason
    files = ranks("devbf16", [((3, 1, 2), "NVIDIA H100 80GB HBM3"), ((0, 0, 3), "NVIDIA B200")])
    u = json.loads(cli("merge", *files, "--json")).get("utilization")
    check(u is not None and u["hfu_mix"] is None and "different bf16 peaks" in u["mix_reason"],
          "merge H100 + B200: the mix unknown with its reason, got %r" % u)
    check("HFU at mix       n/a   the reports give different bf16 peaks" in cli("merge", *files),
          "merge H100 + B200: text says why the mix is unknown")
    page = os.path.join(WORK, "devbf16.html")
    cli("merge", *files, "--html", page)
    with open(page) as f:
        check("the reports give different bf16 peaks" in f.read(), "merge H100 + B200: the HTML says why")
    # H100 FP8 only (3 E4M3 + 1 E5M2) beside an A100 BF16 only (3): each
    # dtype ran on one kind, so the cluster's ideal time is 4P at 1978.9 on
    # the H100 plus 3P at 312 on the A100, over 2 GPUs x the step time
    files = ranks("devsplit", [((3, 1, 0), "NVIDIA H100 80GB HBM3"), ((0, 0, 3), a100)])
    m = json.loads(cli("merge", *files, "--json"))
    t = m["iterations"]["median_seconds"]
    want = (4 * P / (1978.9 * TF) + 3 * P / (312 * TF)) / (2 * t)
    check(close(m["utilization"]["hfu_mix"], want), "merge H100 FP8 + A100 BF16: %r, by hand %r"
          % (m["utilization"]["hfu_mix"], want))


def merge_hand():
    """Ranks whose peak was given by hand (FLOPCOUNT_PEAK_TFLOPS=500): one
    figure whatever the dtype, so a cluster mix of two dtypes cannot rest on
    it even though each rank's own mix (one dtype) carries it."""
    def ranks(name, counts):
        return [run("%s%d" % (name, r), c, "NVIDIA H100 80GB HBM3",
                    {"RANK": str(r), "WORLD_SIZE": "2", "FLOPCOUNT_PEAK_TFLOPS": "500"})[4]
                for r, c in enumerate(counts)]
    files = ranks("handmix", [(0, 0, 3), (3, 0, 0)])  # BF16 only, FP8 E4M3 only
    u = json.loads(cli("merge", *files, "--json"))["utilization"]
    check(u["hfu_mix"] is None and "FLOPCOUNT_PEAK_TFLOPS" in u["mix_reason"],
          "merge of hand-peaked ranks, BF16 + FP8: the mix is unknown, got %r" % u)
    # both BF16 only: one dtype, the given figure serves; 2 x 3P per step on
    # 2 GPUs at 500 TFLOP/s each, the same as the cluster HFU
    files = ranks("handone", [(0, 0, 3), (0, 0, 3)])
    m = json.loads(cli("merge", *files, "--json"))
    t = m["iterations"]["median_seconds"]
    check(close(m["utilization"]["hfu_mix"], 6 * P / (2 * 500 * TF * t)),
          "merge of hand-peaked ranks, BF16 only: %r" % m["utilization"])


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    fp8mix()
    nofp8()
    bf16()
    merge()
    merge_devices()
    merge_hand()
    if failures:
        print("%d check(s) failed" % len(failures), file=sys.stderr)
        sys.exit(1)
    print("all mix checks passed")


main()
