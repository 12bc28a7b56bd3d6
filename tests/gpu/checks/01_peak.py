# SPDX-License-Identifier: Apache-2.0
"""01 device and peak: `flopcount peak` detects the H200 through the driver; dense bf16 peak as in the table.

Asserts, against what torch says about GPU 0 (name, SM count, compute
capability) and the dense bf16 figure from REFERENCE.md section 3 written
below (H200 SXM 989.4 TFLOP/s; H200 NVL 835.5, the NVL data sheet's 1,671
sparse halved; H100 SXM 989.4 for a machine that turns out to be one):
  * `flopcount peak --json` (device found by loading the driver): the same
    name, SM count and compute capability as torch, matched to the right
    table row;
  * `flopcount peak --gpu NAME --dtype bf16 --json`: the expected FLOP/s;
  * a bf16 program under `flopcount run` (programs/peak_load.py, six
    flopcount_step() iterations): the report's utilization section took its
    peak from the device (peak_source "device"), names it, dtype bf16, and
    uses the expected FLOP/s.
A GPU this table does not list is a FAIL: there is no independent figure."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import fcgpu  # noqa: E402

# (words the driver name must have, words it must not have, table key, dense bf16 FLOP/s)
EXPECTED = (
    (("h200", "nvl"), (), "H200-NVL", 835.5e12),
    (("h200",), ("nvl",), "H200-SXM", 989.4e12),
    (("h100",), ("pcie", "nvl"), "H100-SXM", 989.4e12),
)


def expected_for(name):
    words = set(re.split(r"[^a-z0-9]+", name.lower()))
    for need, never, key, flops in EXPECTED:
        if all(w in words for w in need) and not any(w in words for w in never):
            return key, flops
    return None, None


def evaluate(meta, local, table_peak, util, figures):
    key, flops = expected_for(meta["name"])
    figures.update(
        torch_device=meta,
        expected_key=key,
        expected_bf16_flops=flops,
        local=local,
        table_peak=table_peak,
        utilization=util,
    )
    if key is None:
        return "FAIL", "no independent peak figure for '%s' in this check" % meta["name"]
    p = []
    if local is None:
        p.append("flopcount peak found no local GPU")
    else:
        for k, want in (
            ("name", meta["name"]),
            ("sm_count", meta["sm_count"]),
            ("compute_capability", meta["cc"]),
            ("device", key),
        ):
            if local.get(k) != want:
                p.append("flopcount peak: %s %r, expected %r" % (k, local.get(k), want))
    if table_peak is None or fcgpu.rel_diff(table_peak, flops) > 1e-9:
        p.append("flopcount peak --gpu: bf16 %s, expected %g" % (table_peak, flops))
    if not util:
        p.append("the report has no utilization")
    else:
        for k, want in (("peak_source", "device"), ("device", meta["name"]), ("dtype", "bf16")):
            if util.get(k) != want:
                p.append("report utilization %s %r, expected %r" % (k, util.get(k), want))
        if fcgpu.rel_diff(util.get("peak_flops") or 0, flops) > 1e-9:
            p.append("report peak %s, expected %g" % (util.get("peak_flops"), flops))
    if p:
        return "FAIL", "; ".join(p)
    return "PASS", (
        "%s -> %s; %d SMs, cc %s as torch says; bf16 dense %.1f TFLOP/s from the CLI and in the "
        "report (peak_source device)" % (meta["name"], key, meta["sm_count"], meta["cc"], flops / 1e12)
    )


def run(c):
    c.need_gpu()
    c.need_real_gpu('its peak is measured in time')
    meta = c.python_program("peak_load.py", [], "load", 120, under=[])
    report = c.report("load", meta["pid"])
    local = json.loads(c.capture([c.flopcount, "peak", "--json"], "peak_local")).get("local")
    try:
        table = json.loads(
            c.capture([c.flopcount, "peak", "--gpu", meta["name"], "--dtype", "bf16", "--json"], "peak_table")
        ).get("peak_flops")
    except fcgpu.Fail as e:
        table = None
        c.figures["peak_table_error"] = str(e)
    try:
        c.figures["nvidia_smi"] = c.capture(
            ["nvidia-smi", "--query-gpu=name,clocks.max.sm,power.limit", "--format=csv,noheader"],
            "nvidia_smi",
        ).strip()
    except (fcgpu.Fail, OSError) as e:
        c.figures["nvidia_smi"] = str(e)
    c.finish(*evaluate(meta, local, table, report.get("utilization"), c.figures))


def self_test():
    assert expected_for("NVIDIA H200") == ("H200-SXM", 989.4e12)
    assert expected_for("NVIDIA H200 NVL") == ("H200-NVL", 835.5e12)
    assert expected_for("NVIDIA GH200 480GB") == (None, None)
    assert expected_for("NVIDIA H100 80GB HBM3") == ("H100-SXM", 989.4e12)
    assert expected_for("NVIDIA H100 PCIe") == (None, None)
    meta = {"name": "NVIDIA H200", "sm_count": 132, "cc": "9.0"}
    local = {"name": "NVIDIA H200", "sm_count": 132, "compute_capability": "9.0", "device": "H200-SXM"}
    util = {"peak_source": "device", "device": "NVIDIA H200", "dtype": "bf16", "peak_flops": 989400000000000}
    assert evaluate(meta, local, 989.4e12, util, {})[0] == "PASS"
    assert evaluate(meta, dict(local, device="H100-SXM"), 989.4e12, util, {})[0] == "FAIL"
    assert evaluate(meta, local, 1978.8e12, util, {})[0] == "FAIL"
    assert evaluate(meta, local, 989.4e12, dict(util, peak_source="FLOPCOUNT_PEAK_TFLOPS"), {})[0] == "FAIL"
    assert evaluate(meta, local, 989.4e12, None, {})[0] == "FAIL"
    assert evaluate(dict(meta, name="NVIDIA A40"), local, 989.4e12, util, {})[0] == "FAIL"
    return 11


def main():
    c = fcgpu.Check("01_peak", __doc__)
    if c.args.self_test:
        print("01_peak self-test: ok (%d cases)" % self_test())
        return
    with c:
        run(c)


if __name__ == "__main__":
    main()
