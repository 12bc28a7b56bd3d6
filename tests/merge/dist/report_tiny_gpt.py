# SPDX-License-Identifier: Apache-2.0
"""report_tiny_gpt.py SHIM FLOPCOUNT WORKDIR DEMO

End to end for 'flopcount report' with model flags: the demo GPT
(scripts/demo/tiny_gpt.py, l=2 h=64 a=4 V=96 s=32 B=2, flopcount_step()
markers) under the shim, then the report against the formula. Its GEMMs
follow the formula's shapes, so by hand (REFERENCE.md section 5):
  model FLOPs 72*B*s*l*h^2*(1 + s/6h + V/12hl) = 43,253,760 per iteration,
and with every block checkpointed the 96-form of full recompute:
  96*B*s*l*h^2 + 16*B*s^2*l*h + 6*B*s*h*V = 56,885,248, recompute 13,631,488.
"""
import json
import os
import subprocess
import sys

PY = "/usr/bin/python3"
MODEL = ["--layers", "2", "--hidden", "64", "--heads", "4", "--vocab", "96", "--seq", "32",
         "--batch", "2"]


def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


def run_demo(shim, demo, out, extra):
    env = dict(os.environ, LD_PRELOAD=shim, FLOPCOUNT_OUTPUT=out, FLOPCOUNT_QUIET="1",
               OMP_NUM_THREADS="1")
    cmd = [PY, demo] + MODEL + ["--steps", "4", "--markers"] + extra
    if subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, timeout=150).returncode:
        fail(f"demo failed: {cmd}")


def report(cli, path, extra):
    r = subprocess.run([cli, "report", path, "--json", "--peak-tflops", "1"] + MODEL + extra,
                       capture_output=True, text=True)
    if r.returncode:
        fail(f"report exit {r.returncode}: {r.stderr}")
    return json.loads(r.stdout)


def main():
    shim, cli, work, demo = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    plain, ckpt = os.path.join(work, "tiny.json"), os.path.join(work, "tiny_ckpt.json")
    run_demo(shim, demo, plain, [])
    run_demo(shim, demo, ckpt, ["--checkpoint", "all"])
    j = report(cli, plain, [])
    m, d = j["measured"], j["difference"]
    if m["flops_per_iteration"] != 43253760 or m["recompute_flops_per_iteration"] != 0:
        fail(f"plain: measured {m}")
    if j["formula"]["model_flops_per_iteration"] != 43253760 or d["counted_is"] != "equal":
        fail(f"plain: formula {j['formula']}, difference {d}")
    if not (m["hfu"] > 0 and abs(m["mfu"] - j["formula"]["mfu"]) < 1e-12):
        fail(f"plain: HFU {m['hfu']}, MFU {m['mfu']} vs formula {j['formula']['mfu']}")
    j = report(cli, ckpt, ["--recompute", "full"])
    m, d = j["measured"], j["difference"]
    if m["flops_per_iteration"] != 56885248 or m["recompute_flops_per_iteration"] != 13631488:
        fail(f"checkpointed: measured {m}")
    if j["formula"]["hardware_flops_per_iteration"] != 56885248 or d["counted_is"] != "equal":
        fail(f"checkpointed: formula {j['formula']}, difference {d}")
    print("ok: tiny GPT counted = formula, plain and fully recomputed")


if __name__ == "__main__":
    main()
