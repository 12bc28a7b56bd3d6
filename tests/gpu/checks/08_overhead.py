# SPDX-License-Identifier: Apache-2.0
"""08 overhead: the small GPT's median step time with and without the shim (and --kernels, --hw-flops), interleaved.

Runs programs/gpt.py (check 03's model, block 1 checkpointed, no eval, 80
steps, torch.cuda.synchronize() at the end of each step and host wall
time per step) as a fresh process per mode and round: plain python, under
`flopcount run`, and under `flopcount run --kernels` / `--hw-flops` once
those exist. The order of the modes rotates every round; rounds repeat
while the check's time allows (at most 7). Per process the median of
steps 10-79; per round the ratio of each mode to plain in that round; the
result is the median ratio over rounds, with its spread.
Asserts the default mode's target: median added step time <= 0.5%.
The other modes are reported, not asserted (their cost is what a GPU run
is to measure)."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import fcgpu  # noqa: E402

STEPS, SKIP_STEPS, MAX_ROUNDS = 80, 10, 7
TARGET = 0.005
CFG_ARGS = [
    "--layers",
    4,
    "--hidden",
    1024,
    "--heads",
    16,
    "--vocab",
    8192,
    "--seq",
    1024,
    "--batch",
    8,
    "--checkpoint",
    "1",
    "--steps",
    STEPS,
    "--sync-steps",
]


def evaluate(rounds, figures):
    """rounds: [{mode: median step seconds}] -> (status, reason)."""
    modes = [m for m in rounds[0] if m != "plain"]
    ratios = {m: sorted(r[m] / r["plain"] for r in rounds) for m in modes}
    med = {m: fcgpu.median(v) for m, v in ratios.items()}
    plain = fcgpu.median([r["plain"] for r in rounds])
    figures.update(rounds=rounds, ratios=ratios, median_ratio=med, plain_median_s=plain)
    parts = [
        "%s %+.2f%% (%+.2f..%+.2f)"
        % (m, (med[m] - 1) * 100, (ratios[m][0] - 1) * 100, (ratios[m][-1] - 1) * 100)
        for m in modes
    ]
    text = "plain median step %.2f ms; %s; %d rounds" % (plain * 1e3, "; ".join(parts), len(rounds))
    if med["shim"] - 1 > TARGET:
        return "FAIL", "default mode above the 0.5%% target: %s" % text
    return "PASS", text


def run(c):
    c.need_gpu()
    c.need_real_gpu('step times within a few per cent')
    modes = [("plain", None), ("shim", [])]
    if c.has_run_option("--kernels"):
        modes.append(("kernels", ["--kernels"]))
    if c.has_run_option("--hw-flops"):
        modes.append(("hw_flops", ["--hw-flops"]))
    rounds, round_seconds = [], None
    for r in range(MAX_ROUNDS):
        if round_seconds is not None and c.remaining() < round_seconds * 1.2 + 10:
            break
        t0 = time.time()
        order = modes[r % len(modes) :] + modes[: r % len(modes)]
        res = {}
        for name, under in order:
            kw = {"under": ["--quiet"] + under} if under is not None else {}
            meta = c.python_program("gpt.py", CFG_ARGS, "r%d_%s" % (r, name), 150, **kw)
            res[name] = fcgpu.median(meta["wall_step_seconds"][SKIP_STEPS:])
        rounds.append(res)
        round_seconds = max(round_seconds or 0, time.time() - t0)
    c.figures["round_seconds"] = round_seconds
    if len(rounds) < 3:
        c.figures["warning"] = "fewer than 3 rounds fitted in the check's time"
    c.finish(*evaluate(rounds, c.figures))


def self_test():
    rounds = [
        {"plain": 0.0100, "shim": 0.01002},
        {"shim": 0.01004, "plain": 0.01001},
        {"plain": 0.0100, "shim": 0.0100},
    ]
    st, why = evaluate(rounds, {})
    assert st == "PASS" and "shim +0.20%" in why, why
    slow = [dict(r, shim=r["plain"] * 1.01) for r in rounds]
    assert evaluate(slow, {})[0] == "FAIL"
    k = [dict(r, kernels=r["plain"] * 1.05) for r in rounds]
    assert evaluate(k, {})[0] == "PASS"
    return 3


def main():
    c = fcgpu.Check("08_overhead", __doc__)
    if c.args.self_test:
        print("08_overhead self-test: ok (%d cases)" % self_test())
        return
    with c:
        run(c)


if __name__ == "__main__":
    main()
