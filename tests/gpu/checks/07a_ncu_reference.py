# SPDX-License-Identifier: Apache-2.0
"""07a ncu reference: sm__ops_path_tensor_src_bf16_dst_fp32.sum counts 2*4096^3 for one bf16 GEMM; causal SDPA about half.

The ground truth --hw-flops (issue 17) is built on, measured now with
Nsight Compute, independently of flopcount: programs/hw_load.py --mode ncu
runs one bf16 4096^3 GEMM, one non-causal and one causal flash SDPA
(B=4, 16 heads, s=4096, d=128) inside the NVTX range "fcgpu", separated by
spin kernels; `ncu --nvtx --nvtx-include fcgpu/ --metrics METRIC --csv
--page raw` profiles every kernel there. Asserts:
  * the GEMM's kernels sum to 2*4096^3 = 137,438,953,472 within 1%;
  * causal / non-causal attention within [0.45, 0.60] ("about half": tiles
    on the diagonal are computed whole).
Figure only: non-causal attention against the flash-attention convention
4*B*s^2*(heads*d) for QK^T and AV. 07b compares flopcount's figures with
these. SKIP when the machine has no ncu."""
import csv
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import fcgpu  # noqa: E402

METRIC = "sm__ops_path_tensor_src_bf16_dst_fp32.sum"
N = 4096
GEMM_TOLERANCE = 0.01
HALF = (0.45, 0.60)


def find_ncu():
    for p in (shutil.which("ncu"), "/usr/local/cuda/bin/ncu"):
        if p and os.access(p, os.X_OK):
            return p
    return None


def parse_csv(text):
    """[(kernel name, metric value)] from ncu --csv --page raw output."""
    rows = list(csv.reader(ln for ln in text.splitlines() if ln.startswith('"')))
    header = next((r for r in rows if "Kernel Name" in r and METRIC in r), None)
    if header is None:
        raise fcgpu.Fail("ncu printed no table with 'Kernel Name' and %s" % METRIC)
    iname, ival = header.index("Kernel Name"), header.index(METRIC)
    out = []
    for r in rows:
        if r is header or len(r) <= max(iname, ival) or not r[0].strip().isdigit():
            continue  # the units row, other tables
        v = r[ival].replace(",", "").strip()
        try:
            out.append((r[iname], float(v)))
        except ValueError:
            raise fcgpu.Fail("ncu value %r for %s is not a number" % (r[ival], r[iname][:60]))
    return out


def split(rows):
    """Kernels between the spin kernels: [gemm, full attention, causal attention]."""
    segs = [[]]
    for name, v in rows:
        if "spin_kernel" in name:
            segs.append([])
        else:
            segs[-1].append((name, v))
    return segs


def evaluate(rows, meta, figures):
    segs = split(rows)
    figures["kernels"] = [[(n[:80], v) for n, v in s] for s in segs]
    if len(segs) != 3 or not all(segs):
        return "FAIL", "expected 3 groups of kernels between 2 spin kernels, got %s" % [len(s) for s in segs]
    gemm, full, causal = (sum(v for _, v in s) for s in segs)
    want = 2 * N**3
    core = 4 * meta["b"] * meta["s"] ** 2 * meta["heads"] * meta["d"]
    ratio = causal / full if full else float("inf")
    figures.update(
        gemm_ops=gemm,
        gemm_expected=want,
        attention_full_ops=full,
        attention_causal_ops=causal,
        attention_full_convention=core,
        causal_ratio=ratio,
    )
    p = []
    if fcgpu.rel_diff(gemm, want) > GEMM_TOLERANCE:
        p.append("GEMM %.6g ops, expected 2*4096^3 = %d (%+.2f%%)" % (gemm, want, (gemm / want - 1) * 100))
    if not HALF[0] <= ratio <= HALF[1]:
        p.append("causal/non-causal attention %.3f, expected %.2f-%.2f" % (ratio, HALF[0], HALF[1]))
    if p:
        return "FAIL", "; ".join(p)
    return "PASS", (
        "GEMM %.0f ops = 2*4096^3 %+.3f%% (%d kernel%s); attention non-causal %.4g ops (%.3fx 4Bs^2h), "
        "causal/non-causal %.3f"
        % (
            gemm,
            (gemm / want - 1) * 100,
            len(segs[0]),
            "s" if len(segs[0]) > 1 else "",
            full,
            full / core,
            ratio,
        )
    )


def run(c):
    c.need_gpu()
    c.need_real_gpu('Nsight Compute counters')
    ncu = find_ncu()
    if ncu is None:
        raise fcgpu.Skip("no ncu on this machine")
    log = os.path.join(c.out, "ncu.csv")
    wrap = [
        ncu,
        "--target-processes",
        "all",
        "--nvtx",
        "--nvtx-include",
        "fcgpu/",
        "--metrics",
        METRIC,
        "--csv",
        "--page",
        "raw",
        "--print-units",
        "base",
        "--log-file",
        log,
    ]
    meta = c.python_program("hw_load.py", ["--mode", "ncu"], "ncu", 170, wrap=wrap)
    text = ""
    for path in (log, os.path.join(c.out, "ncu.log")):  # the table, wherever ncu put it
        if os.path.exists(path):
            with open(path, errors="replace") as f:
                text += f.read() + "\n"
    rows = parse_csv(text)
    if not rows:
        raise fcgpu.Fail("ncu profiled no kernel inside the NVTX range fcgpu (see ncu.csv, ncu.log)")
    c.finish(*evaluate(rows, meta, c.figures))


def self_test():
    meta = {"b": 4, "s": 4096, "heads": 16, "d": 128}
    core = 4 * 4 * 4096**2 * 16 * 128
    text = "\n".join(
        [
            "==PROF== Connected to process 1",
            '"ID","Process ID","Kernel Name","%s"' % METRIC,
            '"","","","inst"',
            '"0","1","nvjet_tst_256x128_64x4_2x1_v_bz_coopA_TNN","137,438,953,472"',
            '"1","1","void at::cuda::(anonymous namespace)::spin_kernel(long)","0"',
            '"2","1","void pytorch_flash::flash_fwd_kernel<...>","%d"' % core,
            '"3","1","void at::cuda::(anonymous namespace)::spin_kernel(long)","0"',
            '"4","1","void pytorch_flash::flash_fwd_kernel<...>","%d"' % (core * 0.516),
        ]
    )
    rows = parse_csv(text)
    assert len(rows) == 5 and rows[0][1] == 2 * 4096**3
    st, why = evaluate(rows, meta, {})
    assert st == "PASS", why
    assert evaluate(rows[:4] + [(rows[4][0], core * 0.9)], meta, {})[0] == "FAIL"
    assert evaluate([(rows[0][0], 2 * 4096**3 * 2)] + rows[1:], meta, {})[0] == "FAIL"
    assert evaluate(rows[2:], meta, {})[0] == "FAIL"
    return 5


def main():
    c = fcgpu.Check("07a_ncu_reference", __doc__)
    if c.args.self_test:
        print("07a_ncu_reference self-test: ok (%d cases)" % self_test())
        return
    with c:
        run(c)


if __name__ == "__main__":
    main()
