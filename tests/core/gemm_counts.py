# SPDX-License-Identifier: Apache-2.0
"""gemm_counts.py - issue 2 end to end: real PyTorch (CPU, sgemm_ of libblas)
under the shim. Counted GEMM FLOPs and calls equal what the model's shapes
give by hand, equal torch.profiler's GEMM total on the same steps, and the
trained weights are bitwise identical with and without the shim.

usage: /usr/bin/python3 gemm_counts.py SHIM_SO WORKDIR
"""
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.join(HERE, "..", "..", "scripts", "demo", "tiny_gpt.py")
SHIM = WORK = None

# The configuration of REFERENCE.md section 5.
L, H, A, V, S, B = 2, 64, 4, 96, 32, 2
D = H // A


def per_step_by_hand(recompute):
    """GEMM calls and FLOPs of one training step, from the model's shapes.

    Forward, per block: QKV (B*S x H) . (H x 3H), proj H x H, fc1 H x 4H,
    fc2 4H x H: 4 sgemm calls; scores q.k^T and probs.v: one sgemm per (batch,
    head) each, 2*B*A calls of S x D x S. Logits (B*S x H) . (H x V): 1 call.
    Backward doubles each: Linear -> data gradient + weight gradient (2 calls;
    the first block's input comes from the embeddings, which need gradients,
    so no data gradient is skipped); bmm -> two bmm of B*A calls each.
    Full recompute (every block checkpointed) runs each block's forward again.
    """
    linear_flops = 2 * B * S * (H * 3 * H + H * H + H * 4 * H + 4 * H * H)
    attn_flops = 2 * (B * A) * (2 * S * D * S)
    logits_flops = 2 * B * S * H * V
    block_fwd_flops = linear_flops + attn_flops
    block_fwd_calls = 4 + 2 * B * A
    fwd_flops = L * block_fwd_flops + logits_flops
    fwd_calls = L * block_fwd_calls + 1
    flops = 3 * fwd_flops
    calls = 3 * fwd_calls
    if recompute:
        flops += L * block_fwd_flops
        calls += L * block_fwd_calls
    return calls, flops


def megatron(recompute):
    """The same from the papers' closed forms (Korthikanti eq. 7, full recompute)."""
    if recompute:
        return 96 * B * S * L * H * H + 16 * B * S * S * L * H + 6 * B * S * H * V
    return 72 * B * S * L * H * H + 12 * B * S * S * L * H + 6 * B * S * H * V


def run_demo(extra, shim=True, report=None):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if shim:
        env["LD_PRELOAD"] = SHIM
        env["FLOPCOUNT_QUIET"] = "1"
        env["FLOPCOUNT_OUTPUT"] = report
    cmd = [sys.executable, DEMO, "--layers", str(L), "--hidden", str(H), "--heads", str(A),
           "--vocab", str(V), "--seq", str(S), "--batch", str(B)] + extra
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
    return out.stdout


def load(path):
    with open(path) as f:
        return json.load(f)


class GemmCounts(unittest.TestCase):
    def test_hand_derivation_matches_closed_form(self):
        # Guards the derivation itself: the shapes above are the formula's.
        self.assertEqual(per_step_by_hand(False)[1], megatron(False))
        self.assertEqual(per_step_by_hand(False)[1], 43253760)
        self.assertEqual(per_step_by_hand(True)[1], megatron(True))

    def check_run(self, extra, steps, recompute, name):
        path = os.path.join(WORK, name + ".json")
        run_demo(extra + ["--steps", str(steps)], report=path)
        r = load(path)
        calls, flops = per_step_by_hand(recompute)
        self.assertEqual(r["schema"], 1)
        self.assertEqual(r["totals"]["gemm_calls"], steps * calls)
        self.assertEqual(r["totals"]["gemm_flops"], steps * flops)
        self.assertEqual(r["totals"]["failed_calls"], 0)
        self.assertEqual(r["by_api"]["sgemm_"]["flops"], steps * flops)
        self.assertEqual(r["by_dtype"]["fp32"]["calls"], steps * calls)
        self.assertEqual(sum(s["flops"] for s in r["shapes"]), steps * flops)
        return r

    def test_plain_training(self):
        r = self.check_run([], 3, False, "plain")
        # One shape by hand: the logits GEMM in the forward, C(V x B*S) =
        # W^T(V x H) . X(H x B*S) in BLAS's column-major terms: transa T.
        fwd_logits = [s for s in r["shapes"]
                      if (s["m"], s["n"], s["k"], s["transa"], s["transb"]) == (V, B * S, H, "T", "N")]
        self.assertEqual(len(fwd_logits), 1)
        self.assertEqual(fwd_logits[0]["calls"], 3)
        self.assertEqual(fwd_logits[0]["flops"], 3 * 2 * V * B * S * H)

    def test_full_checkpoint(self):
        self.check_run(["--checkpoint", "all"], 2, True, "ckpt")

    def test_weights_bitwise_identical(self):
        extra = ["--steps", "3", "--checkpoint", "1", "--hash"]
        plain = run_demo(extra, shim=False).strip()
        shimmed = run_demo(extra, report=os.path.join(WORK, "hash.json")).strip()
        self.assertEqual(len(plain), 64)
        self.assertEqual(plain, shimmed)

    def test_profiler_agrees(self):
        path = os.path.join(WORK, "prof.json")
        env = dict(os.environ, LD_PRELOAD=SHIM, FLOPCOUNT_QUIET="1", FLOPCOUNT_OUTPUT=path)
        out = subprocess.run([sys.executable, os.path.join(HERE, "profiler_steps.py")], env=env,
                             check=True, capture_output=True, text=True).stdout.split()
        shim_calls, shim_flops, prof_calls, prof_flops = map(int, out[-4:])
        # Two steps, block 0 checkpointed: the plain step plus block 0's forward again.
        plain_calls, plain_flops = per_step_by_hand(False)
        full_calls, full_flops = per_step_by_hand(True)
        one_block_calls = (full_calls - plain_calls) // L
        one_block_flops = (full_flops - plain_flops) // L
        self.assertEqual(shim_calls, 2 * (plain_calls + one_block_calls))
        self.assertEqual(shim_flops, 2 * (plain_flops + one_block_flops))
        self.assertEqual(shim_flops, prof_flops)
        self.assertEqual(shim_calls, prof_calls)


if __name__ == "__main__":
    SHIM, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(WORK, exist_ok=True)
    unittest.main(argv=sys.argv[:1], verbosity=2)
