# SPDX-License-Identifier: Apache-2.0
"""test_infer_doubtful.py SHIM CLI WORKDIR - a stream the model reader gets
wrong must not pass for the model. fixture_kinds.py trains attention + a
gated MLP, then a Mamba-2 layer whose inner width equals the hidden width
(6 heads x 8 = 48 = h, expand 1: its in_proj 48 -> 134 reads like a logits
GEMM) and an MLP, vocabulary 72. Either the report reads the trained model
(2 layers, vocabulary 72, its forward equal to the counted one), or its
inferred model says it does not fit and the text says the formula MFU from
it is doubtful - never a model that does not fit shown without that word.
"""
import json
import os
import subprocess
import sys

PY = "/usr/bin/python3"
HERE = os.path.dirname(os.path.abspath(__file__))
CASE = dict(layers=[["A", "D"], ["M", "D"]], mamba=dict(heads=6, head_dim=8, state=16, groups=1))


def main():
    shim, cli, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "doubtful.json")
    env = dict(os.environ, LD_PRELOAD=shim, FLOPCOUNT_OUTPUT=out, OMP_NUM_THREADS="1",
               FLOPCOUNT_QUIET="1")
    p = subprocess.run([PY, os.path.join(HERE, "fixture_kinds.py"), json.dumps(CASE)], env=env,
                       capture_output=True, text=True, timeout=500)
    if p.returncode != 0:
        print("FAIL: training: %s" % p.stderr[-2000:])
        return 1
    j = json.loads(subprocess.run([cli, "report", out, "--peak-tflops", "1", "--json"],
                                  capture_output=True, text=True, check=True).stdout)
    text = subprocess.run([cli, "report", out, "--peak-tflops", "1"], capture_output=True,
                          text=True, check=True).stdout
    im = j["inferred_model"]
    model = im.get("model") or {}
    if im.get("fits"):
        if model.get("layers") != 2 or model.get("vocab") != 72:
            print("FAIL: a model that fits but is not the trained one: %s" % model)
            return 1
        print("ok: the trained model read and fits")
        return 0
    if im.get("complete") and "caution" not in text:
        print("FAIL: an inferred model that does not fit, shown without a caution:\n" + text)
        return 1
    print("ok: the reading does not fit and the report says so (model %s)" %
          {k: model.get(k) for k in ("layers", "vocab")})
    return 0


if __name__ == "__main__":
    sys.exit(main())
