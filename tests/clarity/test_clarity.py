# SPDX-License-Identifier: Apache-2.0
"""test_clarity.py - what a user reads is true and plain (issue 38), from the
user's side: the program, the config, the command.

fixture_fwd_loop by hand: per step one sgemm_ 64x64x64 (2*64^3 = 524,288
FLOPs, fp32) and one dgemm_ 32x32x32 (2*32^3 = 65,536, fp64): 589,824
FLOPs a step, no backward; 6 steps: 3,538,944 FLOPs.

- a loop that marks its steps with flopcount_step() and runs no backward:
  6 forward-only iterations of 589,824 FLOPs with their time, HFU and HFU
  at the dtype mix, in the summary, the live lines, the JSON and the report;
- the same loop without markers: the summary and the report both say 6
  evaluation passes, 3,538,944 FLOPs, 589,824 each, and their rate;
- processes that run nothing (a shell, ls, true) print nothing at exit under
  plain LD_PRELOAD; the one that ran the GEMMs prints the job's summary once;
  FLOPCOUNT_SUMMARY_ALWAYS=1 brings back the line of a process that ran
  nothing;
- configs: a DeepSeek-V3-type config whose first_k_dense_replace reaches
  the layer count is a dense model; a Nemotron-H config without chunk_size
  is read at transformers' NemotronHConfig default (128) and says so; a
  present but unreadable chunk_size, or a config naming its own class, is
  refused.

- a cuDNN-only run: each attention shape names the cuDNN path it took
  (unified SDPA node, composite graph); the launches line says what the
  cuDNN layer counted before what was not seen; the causal line speaks of
  the plans that ran.

usage: /usr/bin/python3 test_clarity.py PRELOAD FLOPCOUNT_EXE FWD_LOOP CONFIGS WORKDIR [TESTS]
(the Cudnn tests read FC_CUDNN_DIR, FC_CUDNN_FAKE, FC_CUDNN_GRAPHS, FC_CUDNN_CUPTI)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

PRELOAD = EXE = LOOP = CONFIGS = WORK = None
# the fake cuDNN's programs (tests/cudnn), from the environment: FC_CUDNN_*
CUDNN_DIR = os.environ.get("FC_CUDNN_DIR", "")
CUDNN_FAKE = os.environ.get("FC_CUDNN_FAKE", "")
CUDNN_GRAPHS = os.environ.get("FC_CUDNN_GRAPHS", "")
CUDNN_CUPTI = os.environ.get("FC_CUDNN_CUPTI", "")
SGEMM, DGEMM = 2 * 64 ** 3, 2 * 32 ** 3
STEP = SGEMM + DGEMM  # 589,824
STEPS = 6
# H100 SXM dense peaks (docs/peak.md, REFERENCE.md): fp32 67, fp64 34 TFLOP/s
H100_FP32, H100_FP64 = 67e12, 34e12


def env(extra=None):
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("FLOPCOUNT_", "LD_PRELOAD", "RANK", "WORLD_SIZE", "LOCAL_RANK"))}
    e.update(extra or {})
    return e


def fresh(name):
    p = os.path.join(WORK, name)
    shutil.rmtree(p, ignore_errors=True)
    os.makedirs(p)
    return p


def run_loop(d, mark, extra=None):
    e = env({"LD_PRELOAD": PRELOAD, "FLOPCOUNT_OUTPUT": os.path.join(d, "r.json")})
    e.update(extra or {})
    p = subprocess.run([LOOP, str(STEPS), str(mark)], env=e, cwd=d, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stderr, json.load(open(os.path.join(d, "r.json")))


def report(path, *args):
    p = subprocess.run([EXE, "report", path, *args], env=env(), capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout


def pct_of(text, label):
    m = re.search(r"^\s*" + label + r"\s+([0-9.e+-]+)%", text, re.M)
    assert m, (label, text)
    return float(m.group(1))


class ForwardOnly(unittest.TestCase):
    def test_marked_loop_without_backward(self):
        d = fresh("marked")
        err, rep = run_loop(d, 1, {"FLOPCOUNT_PEAK_TFLOPS": "0.001", "FLOPCOUNT_LOG_EVERY": "1"})
        it = rep["iterations"]
        self.assertEqual(it["detected_by"], "marker")
        self.assertEqual(it["kind"], "forward-only")
        self.assertEqual(it["count"], STEPS)
        self.assertEqual(it["forward_only_iterations"], STEPS)
        for x in it["list"]:
            self.assertEqual(x["kind"], "forward-only")
            self.assertEqual(int(x["flops"]), STEP)
            self.assertEqual(int(x["forward_flops"]), STEP)
            self.assertEqual(int(x["backward_flops"]), 0)
            # the 20 ms nap is the step's own time, not evaluation taken out
            self.assertGreater(x["seconds"], 0.019)
        self.assertEqual(rep["eval_passes"]["count"], 0)
        self.assertEqual(int(it["flops_by_dtype"]["fp32"]), STEPS * SGEMM)
        self.assertEqual(int(it["flops_by_dtype"]["fp64"]), STEPS * DGEMM)
        u = rep["utilization"]
        secs = u["seconds"]
        self.assertAlmostEqual(u["hfu"], STEP / (secs * 1e9), places=9)
        # the exit summary and the live lines
        self.assertIn("flopcount: %d forward-only iterations (marker)" % STEPS, err)
        self.assertIn("5.898e+05 FLOP each; forward 100.0% backward 0.0%", err)
        self.assertNotIn("evaluation passes", err)
        live = [l for l in err.splitlines() if re.match(r"flopcount: step \d+ ", l)]
        self.assertEqual(len(live), STEPS)
        self.assertTrue(all(l.endswith("forward-only") or " forward-only " in l for l in live),
                        live)
        # the report: iterations, FLOPs, and the HFU of the summary (one peak:
        # the run's, in the file, as scripts/demo.sh asks for it)
        text = report(os.path.join(d, "r.json"))
        self.assertIn("iterations     %d forward-only (marker)" % STEPS, text)
        m = re.search(r"flopcount: HFU ([0-9.]+)% MFU", err)
        self.assertTrue(m, err)
        self.assertEqual(pct_of(text, "HFU"), float(m.group(1)))
        self.assertIn("counted FLOPs  %d" % STEP, text)
        self.assertNotIn("no iterations found", text)
        self.assertIn("no training forward was seen (the iterations are forward-only", text)
        # at the mix on an H100, by hand: a run without a peak of its own,
        # the device named to the report
        d = fresh("marked-gpu")
        err, rep = run_loop(d, 1)
        secs = rep["iterations"]["median_seconds"]
        self.assertEqual(rep["iterations"]["kind"], "forward-only")
        text = report(os.path.join(d, "r.json"), "--gpu", "h100-sxm")
        hfu = STEP / (secs * H100_FP32)
        mix = (SGEMM / H100_FP32 + DGEMM / H100_FP64) / secs
        self.assertAlmostEqual(pct_of(text, "HFU") / 100, hfu, delta=hfu * 0.02)
        self.assertAlmostEqual(pct_of(text, "HFU at mix") / 100, mix, delta=mix * 0.02)

    def test_unmarked_passes_same_words(self):
        d = fresh("unmarked")
        err, rep = run_loop(d, 0)
        ev = rep["eval_passes"]
        self.assertEqual(ev["count"], STEPS)
        self.assertEqual(int(ev["flops"]), STEPS * STEP)
        self.assertEqual(rep["iterations"]["count"], 0)
        rate = STEPS * STEP / ev["seconds"]
        # the summary ...
        m = re.search(r"flopcount: 6 evaluation passes \(forward-only: no backward\), "
                      r"3\.539e\+06 FLOP, 5\.898e\+05 each, in ([0-9.]+) s: ([0-9.]+) MFLOP/s", err)
        self.assertTrue(m, err)
        self.assertAlmostEqual(float(m.group(2)) * 1e6, rate, delta=rate * 0.01)
        # ... and the report, on the same file
        text = report(os.path.join(d, "r.json"))
        m = re.search(r"eval passes    6 \(forward-only: no backward\), 3538944 FLOPs, 589824 each,"
                      r" in [0-9.]+ s: ([0-9.]+) MFLOP/s", text)
        self.assertTrue(m, text)
        self.assertAlmostEqual(float(m.group(1)) * 1e6, rate, delta=rate * 0.01)
        self.assertNotIn("though the program marks its steps", text)


    def test_marked_evaluation_after_training_stays_evaluation(self):
        # fixture MARK=2: 4 training steps of 49,152 FLOPs, then 6 marked
        # evaluation steps of 16,384: the training run's iterations stay
        # training ones, the evaluation steps its evaluation passes
        d = fresh("train-eval")
        err, rep = run_loop(d, 2)
        it = rep["iterations"]
        self.assertEqual(it["detected_by"], "marker")
        self.assertEqual(it["kind"], "training")
        self.assertEqual(it["count"], 4)
        self.assertEqual(it["forward_only_iterations"], 0)
        for x in it["list"]:
            self.assertEqual(int(x["flops"]), 6 * 2 * 16 ** 3)
        self.assertEqual(rep["eval_passes"]["count"], STEPS)
        self.assertEqual(int(rep["eval_passes"]["flops"]), STEPS * 2 * 2 * 16 ** 3)


class Silence(unittest.TestCase):
    def run_sh(self, script, extra=None):
        d = fresh("silence")
        e = env({"LD_PRELOAD": PRELOAD})
        e.update(extra or {})
        p = subprocess.run(["/bin/sh", "-c", script], env=e, cwd=d, capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stderr

    # the fixture with 0 steps: a process that runs no GEMM and ends with
    # exit() (dash ends with _exit, coreutils' true closes its stderr first)
    def test_processes_that_run_nothing_say_nothing(self):
        err = self.run_sh("echo hi; ls / >/dev/null; true; env >/dev/null; %s 0 0" % LOOP)
        self.assertNotIn("flopcount:", err)

    def test_the_job_summary_once(self):
        err = self.run_sh("ls / >/dev/null; %s 2 0; true" % LOOP)
        lines = [l for l in err.splitlines() if "GEMM calls" in l]
        self.assertEqual(len(lines), 1, err)
        self.assertIn(": 4 GEMM calls, ", lines[0])
        self.assertIn("(%d)" % (2 * STEP), lines[0])

    def test_asked_for(self):
        err = self.run_sh("%s 0 0" % LOOP, {"FLOPCOUNT_SUMMARY_ALWAYS": "1"})
        self.assertEqual(len(re.findall(r"flopcount: pid \d+: 0 GEMM calls, 0 FLOP", err)), 1, err)


def formula(cfg, *extra):
    p = subprocess.run([EXE, "formula", "--config", cfg, "--seq", "4096", "--batch", "1", *extra],
                       env=env(), capture_output=True, text=True, timeout=60)
    return p


def formula_json(cfg):
    p = formula(cfg, "--json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def write_config(name, base, change, drop=()):
    c = json.load(open(os.path.join(CONFIGS, base)))
    for k in drop:
        c.pop(k, None)
    c.update(change)
    path = os.path.join(WORK, "configs", name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    json.dump(c, open(path, "w"))
    return path


MOE_KEYS = ("n_routed_experts", "num_experts_per_tok", "moe_intermediate_size", "n_shared_experts",
            "moe_layer_freq", "first_k_dense_replace")


class Configs(unittest.TestCase):
    def test_first_k_dense_replace_at_the_layer_count_is_dense(self):
        # the same architecture with no expert field at all: a dense MLA model
        dense = formula_json(write_config("dsv3-nomoe.json", "deepseek-v3.json", {}, MOE_KEYS))
        for k, name in ((61, "dsv3-k61.json"), (70, "dsv3-k70.json")):
            path = write_config(name, "deepseek-v3.json", {"first_k_dense_replace": k})
            got = formula_json(path)
            self.assertEqual(got["model_flops_per_iteration"], dense["model_flops_per_iteration"])
            self.assertEqual(got["params"], dense["params"])
        # n_routed_experts absent (the class's 256 would apply): dense all the same
        path = write_config("dsv3-k61-noexp.json", "deepseek-v3.json",
                            {"first_k_dense_replace": 61}, ("n_routed_experts",))
        self.assertEqual(formula_json(path)["model_flops_per_iteration"],
                         dense["model_flops_per_iteration"])
        # the control: 3 dense layers of 61 is a MoE model (top-8 of ffn 2048 and one
        # shared expert are 9 x 2048 = 18432 wide, the dense ffn: the router makes it differ)
        moe = formula_json(os.path.join(CONFIGS, "deepseek-v3.json"))
        self.assertNotEqual(moe["model_flops_per_iteration"], dense["model_flops_per_iteration"])
        self.assertEqual(int(dense["forward_breakdown"]["router"]), 0)
        self.assertGreater(int(moe["forward_breakdown"]["router"]), 0)

    def test_nemotron_h_chunk_size_default(self):
        base = "nemotron-h-8b.json"
        explicit = formula_json(write_config("nh-128.json", base, {"chunk_size": 128}))
        other = formula_json(write_config("nh-256.json", base, {"chunk_size": 256}))
        self.assertNotEqual(explicit["model_flops_per_iteration"],
                            other["model_flops_per_iteration"])
        absent = write_config("nh-absent.json", base, {}, ("chunk_size",))
        got = formula_json(absent)
        self.assertEqual(got["model_flops_per_iteration"], explicit["model_flops_per_iteration"])
        self.assertEqual(len(got["config_defaults"]), 1)
        self.assertTrue(got["config_defaults"][0].startswith(
            "chunk_size 128: the configuration class's default, absent from the file "
            "(transformers NemotronHConfig, v5"), got["config_defaults"])
        text = formula(absent).stdout
        self.assertIn("config      chunk_size 128: the configuration class's default, absent "
                      "from the file (transformers NemotronHConfig", text)
        # the old name is read as the same field
        old = write_config("nh-old.json", base, {"mamba_chunk_size": 256}, ("chunk_size",))
        self.assertEqual(formula_json(old)["model_flops_per_iteration"],
                         other["model_flops_per_iteration"])
        self.assertEqual(formula_json(old)["config_defaults"], [])

    def test_nemotron_h_unreadable_or_own_class_refused(self):
        base = "nemotron-h-8b.json"
        p = formula(write_config("nh-bad.json", base, {"chunk_size": "big"}))
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("chunk_size", p.stderr)
        p = formula(write_config("nh-remote.json", base,
                                 {"auto_map": {"AutoConfig": "configuration_nemotron_h.NemotronHConfig"}},
                                 ("chunk_size",)))
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("chunk_size is absent and auto_map names the model's own class", p.stderr)


class Cudnn(unittest.TestCase):
    """cuDNN-only runs (the fake cuDNN 9 of tests/cudnn: plans finalize and
    execute): the report names the path each shape took, the launches line
    says what the cuDNN layer counted before what was not seen, and the
    inferred model's causal line speaks of the plans that ran, not of GEMMs.
    By hand from the programs: test_cudnn_fake runs its 7 cases 3 times
    each and one more case twice: 7 x 3 + 2 = 23 calls; case 5 alone is one
    SDPA node (unified), the others composite. test_cudnn_graphs launches
    case 1 four times and case 2 twice through CUDA graphs: 6 calls."""

    def run_prog(self, name, prog, args, extra=None):
        d = fresh(name)
        out = os.path.join(d, "r.json")
        e = env({"LD_PRELOAD": PRELOAD, "FLOPCOUNT_OUTPUT": out, "FLOPCOUNT_QUIET": "1",
                 "ASAN_OPTIONS": "detect_leaks=0",
                 "LD_LIBRARY_PATH": CUDNN_DIR + ":" + os.environ.get("LD_LIBRARY_PATH", "")})
        e.update(extra or {})
        p = subprocess.run([prog, "run"] + args, env=e, capture_output=True, text=True,
                           timeout=240)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return report(out), json.load(open(out))

    def test_paths_and_causal_line(self):
        text, rep = self.run_prog("cudnn-fake", CUDNN_FAKE,
                                  ["linked", os.path.join(CUDNN_DIR, "libcudnn.so.9")])
        paths = [x.get("path") for x in rep["attention"]["shapes"] if x["source"] == "cudnn"]
        self.assertEqual(len(paths), 8)  # 7 cases and the one destroyed early
        self.assertEqual(paths.count("unified SDPA node"), 1, paths)
        self.assertEqual(paths.count("composite graph (matmul nodes)"), 7, paths)
        self.assertRegex(text, r"cudnn forward 1 x 16 \(kv 4\), 64 x 256, d 128/64, none; "
                               r"cuDNN unified SDPA node: 3 calls")
        self.assertRegex(text, r"cudnn backward 2 x 8 \(kv 2\), 128 x 128, d 64, causal; "
                               r"cuDNN composite graph \(matmul nodes\): 3 calls")
        self.assertIn("causal_attention  full      convention the formula's convention ('half' "
                      "the other); what ran: 23 attention calls (cuDNN plans), counted pair by "
                      "pair as their masks show", text)
        self.assertNotIn("the GEMMs compute the whole QK^T", text)

    def test_launches_line_says_what_was_counted_first(self):
        text, _ = self.run_prog("cudnn-graphs", CUDNN_GRAPHS,
                                [os.path.join(CUDNN_DIR, "libcudnn.so.9")],
                                {"FLOPCOUNT_CUPTI": CUDNN_CUPTI})
        m = re.search(r"^  launches       (.*)$", text, re.M)
        self.assertTrue(m, text)
        self.assertTrue(m.group(1).startswith(
            "counted 6 cuDNN SDPA calls from their executed plans (cuDNN layer); beyond that: "),
            m.group(1))


if __name__ == "__main__":
    PRELOAD, EXE, LOOP, CONFIGS, WORK = sys.argv[1:6]
    os.makedirs(WORK, exist_ok=True)
    unittest.main(argv=[sys.argv[0]] + sys.argv[6:], verbosity=2)
