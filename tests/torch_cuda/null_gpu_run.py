# SPDX-License-Identifier: Apache-2.0
"""null_gpu_run.py FLOPCOUNT WORK - `flopcount run --null-gpu h200` end to end
with real PyTorch CUDA (the cached environment of scripts/deps.sh test):
the program sees one NVIDIA H200, its GEMMs go through the real cuBLAS /
cuBLASLt and are counted as worked out by hand from their shapes, and the
report marks the run (null_gpu.device, the caveat), has no utilization,
and `flopcount report` says so. Exit 77 without the torch environment."""
import json
import os
import subprocess
import sys

flopcount, work = sys.argv[1], sys.argv[2]
cache = os.environ.get("FLOPCOUNT_CACHE") or os.path.expanduser("~/.cache/flopcount")
py = os.environ.get("FC_TORCH_PYTHON") or os.path.join(cache, "torch-venv", "bin", "python")
if not os.path.exists(os.path.join(os.path.dirname(py), "..", ".flopcount-ready")):
    print("SKIP: no PyTorch CUDA environment at %s (bash scripts/deps.sh test makes it)" % py)
    sys.exit(77)
os.makedirs(work, exist_ok=True)
prog = os.path.join(work, "prog.py")
# mm 256x512 @ 512x128 three times (bf16), bmm 4 x (64x32 @ 32x16) twice (fp16)
with open(prog, "w") as f:
    f.write("""import torch
print("device", torch.cuda.get_device_name(0), torch.cuda.get_device_capability(0))
a = torch.zeros(256, 512, device="cuda", dtype=torch.bfloat16)
b = torch.zeros(512, 128, device="cuda", dtype=torch.bfloat16)
for _ in range(3):
    c = a @ b
x = torch.zeros(4, 64, 32, device="cuda", dtype=torch.float16)
y = torch.zeros(4, 32, 16, device="cuda", dtype=torch.float16)
for _ in range(2):
    z = torch.bmm(x, y)
torch.cuda.synchronize()
print("shapes", tuple(c.shape), tuple(z.shape))
""")
out = os.path.join(work, "report.json")
if os.path.exists(out):
    os.remove(out)
r = subprocess.run([flopcount, "run", "--null-gpu", "h200", "--output", out, "--", py, prog],
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=170)
log = r.stdout.decode(errors="replace")
fails = []


def eq(got, want, what):
    if got != want:
        fails.append("%s: got %r, want %r" % (what, got, want))


eq(r.returncode, 0, "exit status")
eq("device NVIDIA H200 (9, 0)" in log, True, "the program sees an H200")
rep = json.load(open(out)) if os.path.exists(out) else {}
t = rep.get("totals", {})
eq(t.get("gemm_calls"), 5, "totals.gemm_calls")
eq(int(t.get("gemm_flops", -1)), 3 * 2 * 256 * 512 * 128 + 2 * 2 * 4 * 64 * 32 * 16, "totals.gemm_flops")
eq((rep.get("null_gpu") or {}).get("device"), "h200", "null_gpu.device")
eq("value" in ((rep.get("null_gpu") or {}).get("caveat") or ""), True, "null_gpu.caveat")
eq(rep.get("utilization", "absent"), None, "utilization")
eq("null-GPU" in (rep.get("utilization_reason") or ""), True, "utilization_reason")
eq((rep.get("cupti") or {}).get("reason"), "FLOPCOUNT_CUPTI=0", "cupti.reason (kept out)")
text = subprocess.run([flopcount, "report", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                      timeout=60).stdout.decode(errors="replace")
eq("null GPU       a run on the null GPU (h200)" in text, True, "flopcount report's null GPU line")
for f in fails:
    print("null_gpu_run: " + f)
if fails:
    print(log[-3000:])
sys.exit(1 if fails else 0)
