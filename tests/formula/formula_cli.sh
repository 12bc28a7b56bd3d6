#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# formula_cli.sh - 'flopcount formula' end to end: exact integers in the JSON
# (values derived by hand in tests/formula/test_formula.c and REFERENCE.md §2),
# --config equal to the same flags, flags overriding a config, a published
# MFU reproduced, and the error cases (one line on stderr, exit 2).
# usage: formula_cli.sh FLOPCOUNT CONFIG_DIR WORK_DIR [PYTHON]
set -u
FC=$1
CFG=$2
WORK=$3
PY=${4:-python3}
rm -rf "$WORK"
mkdir -p "$WORK"
fails=0

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# jget FILE KEY [SUBKEY]: a value from the JSON output, printed by Python's
# json module (which also proves the output parses; big integers stay exact).
jget() {
    "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    d = d[k]
print(json.dumps(d))' "$@"
}

# expect NAME WANT FILE KEY...: the JSON value must equal WANT.
expect() {
    name=$1 want=$2
    shift 2
    got=$(jget "$@" 2>&1) || got="(unreadable: $got)"
    [ "$got" = "$want" ] || fail "$name: $* = $got, want $want"
}

# expect_num NAME WANT FILE KEY...: the same, compared as numbers.
expect_num() {
    name=$1 want=$2
    shift 2
    got=$(jget "$@" 2>&1) || got="(unreadable: $got)"
    "$PY" -c 'import sys; sys.exit(float(sys.argv[1]) != float(sys.argv[2]))' "$got" "$want" \
        2>/dev/null || fail "$name: $* = $got, want $want"
}

run_json() { # OUT ARGS...: run with --json, stdout to OUT; must exit 0
    out=$1
    shift
    "$FC" formula "$@" --json >"$out" 2>"$out.err" || fail "exit $? for: $* ($(cat "$out.err"))"
}

TINY="--layers 2 --hidden 64 --heads 4 --vocab 128 --seq 32 --batch 2"

# REFERENCE.md §2 tiny: 72-form 44,040,192; 96-form 57,671,680; corrected
# selective 45,088,768; causal-halved 42,467,328.
run_json "$WORK/tiny.json" $TINY
expect tiny 44040192 "$WORK/tiny.json" model_flops_per_iteration
expect tiny 44040192 "$WORK/tiny.json" hardware_flops_per_iteration
expect tiny '"full"' "$WORK/tiny.json" conventions causal_attention
expect tiny '"none"' "$WORK/tiny.json" conventions recompute
expect tiny 64 "$WORK/tiny.json" tokens_per_iteration
run_json "$WORK/tiny-full.json" $TINY --recompute full
expect tiny-full 57671680 "$WORK/tiny-full.json" hardware_flops_per_iteration
expect tiny-full 44040192 "$WORK/tiny-full.json" model_flops_per_iteration
run_json "$WORK/tiny-sel.json" $TINY --recompute=selective
expect tiny-selective 45088768 "$WORK/tiny-sel.json" hardware_flops_per_iteration
run_json "$WORK/tiny-half.json" $TINY --causal-attention half
expect tiny-half 42467328 "$WORK/tiny-half.json" model_flops_per_iteration
expect tiny-half '"half"' "$WORK/tiny-half.json" conventions causal_attention
# Sliding window of 8 keys (test_formula.c test_sliding_window): the core
# drops from 1,048,576 to 262,144 (full) and 229,376 (causal half).
run_json "$WORK/tiny-win.json" $TINY --sliding-window 8
expect tiny-window 262144 "$WORK/tiny-win.json" forward_breakdown attention_core
expect tiny-window 8 "$WORK/tiny-win.json" model sliding_window
expect tiny-window 2 "$WORK/tiny-win.json" model window_layers
run_json "$WORK/tiny-win-half.json" $TINY --sliding-window=8 --causal-attention half
expect tiny-window-half 229376 "$WORK/tiny-win-half.json" forward_breakdown attention_core
printf '{"model_type": "mistral", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 128, "intermediate_size": 256, "hidden_act": "gelu", "sliding_window": 8}' >"$WORK/mistral-like.json"
run_json "$WORK/tiny-win-cfg.json" --config "$WORK/mistral-like.json" --seq 32 --batch 2
expect tiny-window-config 262144 "$WORK/tiny-win-cfg.json" forward_breakdown attention_core
run_json "$WORK/tiny-win-off.json" --config "$WORK/mistral-like.json" --seq 32 --batch 2 --sliding-window 0
expect tiny-window-off 1048576 "$WORK/tiny-win-off.json" forward_breakdown attention_core
# --layers over a config whose every layer is windowed: still every layer
# (4 x 4*2*32*8*64 = 524,288); gpt-oss's 12 of 24 no longer says which.
run_json "$WORK/tiny-win-l4.json" --config "$WORK/mistral-like.json" --seq 32 --batch 2 --layers 4
expect tiny-window-layers 4 "$WORK/tiny-win-l4.json" model window_layers
expect tiny-window-layers 524288 "$WORK/tiny-win-l4.json" forward_breakdown attention_core

# GPT-2 small (REFERENCE.md §2), by flags and by its config.json.
run_json "$WORK/gpt2.json" --layers 12 --hidden 768 --heads 12 --vocab 50257 --seq 1024 --batch 8 \
    --recompute full
expect gpt2 6999559372800 "$WORK/gpt2.json" model_flops_per_iteration
expect gpt2 8700366422016 "$WORK/gpt2.json" hardware_flops_per_iteration
run_json "$WORK/gpt2-cfg.json" --config "$CFG/gpt2.json" --seq 1024 --batch 8 --recompute full
cmp -s "$WORK/gpt2.json" "$WORK/gpt2-cfg.json" || fail "gpt2: --config differs from the flags"

# --config gives the same as the equivalent flags (whole JSON, byte for byte).
run_json "$WORK/l2-cfg.json" --config "$CFG/llama-2-7b.json" --seq 4096 --batch 16
run_json "$WORK/l2-flags.json" --layers 32 --hidden 4096 --heads 32 --ffn 11008 --swiglu \
    --vocab 32000 --untied-embeddings --seq 4096 --batch 16
cmp -s "$WORK/l2-cfg.json" "$WORK/l2-flags.json" || fail "llama-2-7b: --config differs from the flags"
expect llama-2-7b 6738415616 "$WORK/l2-cfg.json" params
run_json "$WORK/mx-cfg.json" --config "$CFG/mixtral-8x7b.json" --seq 4096 --batch 16
run_json "$WORK/mx-flags.json" --layers 32 --hidden 4096 --heads 32 --kv-heads 8 --ffn 14336 \
    --swiglu --vocab 32000 --untied-embeddings --experts 8 --topk 2 --seq 4096 --batch 16
cmp -s "$WORK/mx-cfg.json" "$WORK/mx-flags.json" || fail "mixtral: --config differs from the flags"
expect mixtral 46702792704 "$WORK/mx-cfg.json" params

# The 2025-26 families (issue 27): --config equal to the same flags, whole
# JSON byte for byte. Nemotron-H-8B: a Mamba-2 hybrid of single sublayers.
NEMO_MIX="M-M-M-MA-M-M-M-M-MA-M-M-M-M-MA-M-M-M-M-MA-M-M-M-M-M-"
NEMO_MLP="-D-D-D--D-D-D-D-D--D-D-D-D-D--D-D-D-D-D--D-D-D-D-D-D"
run_json "$WORK/nemo-cfg.json" --config "$CFG/nemotron-h-8b.json" --seq 8192 --batch 4
run_json "$WORK/nemo-flags.json" --layers 52 --hidden 4096 --heads 32 --kv-heads 8 --head-dim 128 \
    --ffn 21504 --vocab 131072 --untied-embeddings --layer-pattern "$NEMO_MIX" \
    --mlp-pattern "$NEMO_MLP" --mamba-heads 128 --mamba-head-dim 64 --mamba-state 128 \
    --mamba-groups 8 --mamba-chunk 128 --seq 8192 --batch 4
cmp -s "$WORK/nemo-cfg.json" "$WORK/nemo-flags.json" || fail "nemotron-h: --config differs from the flags"
expect nemotron-h 24 "$WORK/nemo-cfg.json" model layers_by_kind mamba
expect nemotron-h 28 "$WORK/nemo-cfg.json" model layers_by_kind no_mlp
# DeepSeek-V3: multi-latent attention, MoE after 3 dense layers, one MTP depth.
run_json "$WORK/dsv3-cfg.json" --config "$CFG/deepseek-v3.json" --seq 4096 --batch 2
run_json "$WORK/dsv3-flags.json" --layers 61 --hidden 7168 --heads 128 --ffn 18432 --swiglu \
    --vocab 129280 --untied-embeddings --kv-lora-rank 512 --q-lora-rank 1536 --qk-nope-dim 128 \
    --qk-rope-dim 64 --v-head-dim 128 --experts 256 --topk 8 --moe-ffn 2048 --shared-experts 1 \
    --moe-first-dense 3 --mtp-layers 1 --seq 4096 --batch 2
cmp -s "$WORK/dsv3-cfg.json" "$WORK/dsv3-flags.json" || fail "deepseek-v3: --config differs from the flags"
expect deepseek-v3 null "$WORK/dsv3-cfg.json" model kv_heads
expect deepseek-v3 512 "$WORK/dsv3-cfg.json" model mla kv_lora_rank
expect deepseek-v3 '"AE"' "$WORK/dsv3-cfg.json" model mtp_block
# Qwen3-Next: gated delta-net 3 layers in 4, gated attention, MoE with a shared expert.
run_json "$WORK/qn-cfg.json" --config "$CFG/qwen3-next-80b-a3b.json" --seq 4096 --batch 1
run_json "$WORK/qn-flags.json" --layers 48 --hidden 2048 --heads 16 --kv-heads 2 --head-dim 256 \
    --ffn 5120 --swiglu --vocab 151936 --untied-embeddings --attn-output-gate --layer-pattern GGGA \
    --gdn-key-heads 16 --gdn-value-heads 32 --gdn-key-dim 128 --gdn-value-dim 128 --experts 512 \
    --topk 10 --moe-ffn 512 --shared-experts 1 --shared-ffn 512 --seq 4096 --batch 1
"$PY" - "$WORK/qn-cfg.json" "$WORK/qn-flags.json" <<'PYEOF' || fail "qwen3-next: --config differs from the flags"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
# the config lists 48 layers, the flags repeat a pattern of 4: the same model
a["model"].pop("layer_pattern"), b["model"].pop("layer_pattern")
sys.exit(a != b)
PYEOF
expect qwen3-next 36 "$WORK/qn-cfg.json" model layers_by_kind gated_delta_net
# Llama 4 Scout at s = 16384: chunked layers attend within 8192 keys.
run_json "$WORK/l4.json" --config "$CFG/llama-4-scout.json" --seq 16384 --batch 1
expect llama4 36 "$WORK/l4.json" model layers_by_kind chunked
expect llama4 8192 "$WORK/l4.json" model attn_chunk
# The text output names each kind.
"$FC" formula --config "$CFG/nemotron-h-8b.json" --seq 4096 --batch 1 >"$WORK/nemo.txt" 2>&1 ||
    fail "nemotron text: exit $?"
grep -q "mixers: 4 attention, 24 Mamba, 24 none" "$WORK/nemo.txt" || fail "text: no layer kinds"
grep -q "Mamba-2: 128 heads of 64 (d_inner 8192), state 128, 8 groups, chunk 128" "$WORK/nemo.txt" ||
    fail "text: no Mamba line"
grep -q "scans (chunked, matrix part)" "$WORK/nemo.txt" || fail "text: no scan line"
# A multimodal config: only its language model is counted, and the output says so.
"$FC" formula --config "$CFG/gemma-3-4b-it.json" --seq 64 --batch 1 >"$WORK/gemma.txt" 2>&1 ||
    fail "text output (gemma-3-4b-it): exit $?"
grep -q "^config      the language model of a multimodal config" "$WORK/gemma.txt" ||
    fail "text: no multimodal line"
run_json "$WORK/gemma.json" --config "$CFG/gemma-3-4b-it.json" --seq 64 --batch 1
jget "$WORK/gemma.json" conventions config >/dev/null 2>&1 || fail "gemma: no conventions.config"
printf '{"model_type": "qwen2_5_vl", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 128, "intermediate_size": 256, "vision_config": {"depth": 32}}' >"$WORK/qwen-vl.json"
"$FC" formula --config "$WORK/qwen-vl.json" --seq 32 --batch 1 | grep -q "^config      the language model of a multimodal config" ||
    fail "text: no multimodal line for a flat config with a vision tower"
# Multi-latent attention: the text says which form it counts.
"$FC" formula --config "$CFG/deepseek-v3.json" --seq 64 --batch 1 >"$WORK/dsv3.txt" 2>&1 ||
    fail "text output (DeepSeek-V3): exit $?"
grep -q "^mla         counted in the training (non-absorbed) form" "$WORK/dsv3.txt" ||
    fail "text: no MLA form line"
grep -q "^config " "$WORK/dsv3.txt" && fail "text: a multimodal line for a text config"

# Flags override the config, wherever they stand on the line.
run_json "$WORK/l2-over.json" --layers 2 --config "$CFG/llama-2-7b.json" --seq 8 --batch 1 \
    --no-swiglu --ffn 100
expect override 2 "$WORK/l2-over.json" model layers
expect override false "$WORK/l2-over.json" model swiglu
expect override 100 "$WORK/l2-over.json" model ffn
expect override 4096 "$WORK/l2-over.json" model hidden

# Korthikanti et al. 2022 Table 5, 175B: 64 A100s, batch 64, 13.75 s per
# iteration with selective recompute: MFU 51.4% (Megatron-LM README).
run_json "$WORK/k175.json" --layers 96 --hidden 12288 --heads 96 --vocab 51200 --seq 2048 \
    --batch 64 --recompute selective --iter-time 13.75 --gpus 64 --peak-tflops 312
mfu=$("$PY" -c 'import json, sys; print("%.1f" % (100 * json.load(open(sys.argv[1]))["mfu"]))' \
    "$WORK/k175.json")
[ "$mfu" = "51.4" ] || fail "175B MFU $mfu%, the paper says 51.4%"
expect_num k175 3.12e14 "$WORK/k175.json" peak_flops
for k in hfu tflops_per_gpu tokens_per_second; do
    jget "$WORK/k175.json" $k >/dev/null 2>&1 || fail "175B: no $k"
done
# 64 * 2048 tokens in 13.75 s = 9532.509... tokens/s
tps=$("$PY" -c 'import json, sys; print("%.3f" % json.load(open(sys.argv[1]))["tokens_per_second"])' \
    "$WORK/k175.json")
[ "$tps" = "9532.509" ] || fail "175B tokens/s $tps, want 9532.509"

# The peak table: an A100 in BF16 is 312 dense TFLOP/s (REFERENCE.md §3).
run_json "$WORK/k175-gpu.json" --layers 96 --hidden 12288 --heads 96 --vocab 51200 --seq 2048 \
    --batch 64 --recompute selective --iter-time 13.75 --gpus 64 --gpu a100 --dtype bf16
expect_num a100-peak 3.12e14 "$WORK/k175-gpu.json" peak_flops
expect a100-peak '"a100"' "$WORK/k175-gpu.json" gpu
expect a100-peak '"bf16"' "$WORK/k175-gpu.json" dtype

# Text output: exact integers and the conventions line.
"$FC" formula $TINY --recompute full >"$WORK/tiny.txt" 2>&1 || fail "text output: exit $?"
grep -q "44040192" "$WORK/tiny.txt" || fail "text: no model FLOPs"
grep -q "57671680" "$WORK/tiny.txt" || fail "text: no hardware FLOPs"
grep -q "causal attention full" "$WORK/tiny.txt" || fail "text: no conventions"
"$FC" formula --help >/dev/null 2>&1 || fail "--help: exit $?"

# Errors: exit 2, nothing on stdout, exactly one line "flopcount formula: ..."
# on stderr that names the problem.
expect_error() {
    needle=$1
    shift
    "$FC" formula "$@" >"$WORK/err.out" 2>"$WORK/err.txt"
    rc=$?
    [ "$rc" = 2 ] || fail "'$*': exit $rc, want 2"
    [ -s "$WORK/err.out" ] && fail "'$*': wrote to stdout"
    [ "$(wc -l <"$WORK/err.txt")" = 1 ] || fail "'$*': stderr is not one line: $(cat "$WORK/err.txt")"
    grep -q "^flopcount formula: " "$WORK/err.txt" || fail "'$*': no prefix: $(cat "$WORK/err.txt")"
    grep -qF -- "$needle" "$WORK/err.txt" || fail "'$*': '$needle' not in: $(cat "$WORK/err.txt")"
}
expect_error "--hidden" --layers 2 --heads 4 --vocab 128 --seq 32 --batch 2
expect_error "bad value '12x' for --layers" --layers 12x --hidden 64 --heads 4 --vocab 128 --seq 32 --batch 2
expect_error "--seq needs a value" $TINY --seq
expect_error "unknown option '--bogus'" $TINY --bogus
expect_error "--recompute" $TINY --recompute partial
expect_error "unknown GPU 'rtx-9999'" $TINY --iter-time 1 --gpus 8 --gpu rtx-9999 --dtype bf16
expect_error "--peak-tflops" $TINY --iter-time 1 --gpus 8 --gpu rtx-9999 --dtype bf16
expect_error "--gpus" $TINY --iter-time 1 --peak-tflops 312
expect_error "--iter-time" $TINY --gpus 8 --peak-tflops 312
expect_error "cannot open" $TINY --config "$WORK/missing.json"
expect_error "--kv-heads 3 must divide --heads 4" $TINY --kv-heads 3
expect_error "--topk" $TINY --experts 8
expect_error "--window-layers needs --sliding-window" $TINY --window-layers 1
printf '{"model_type": "gemma3n_text", "num_hidden_layers": 2, "hidden_size": 64, "sliding_window": 8}' >"$WORK/gemma3.json"
expect_error "which layers are windowed is not known" $TINY --config "$WORK/gemma3.json"
printf '{"hidden_size": "big"}' >"$WORK/bad.json"
expect_error "hidden_size is not an integer" $TINY --config "$WORK/bad.json"

# The new flags and fields: bad values and missing sizes, one line each.
expect_error "bad value 'AXA' for --layer-pattern" $TINY --layer-pattern AXA
expect_error "bad value 'Q' for --mlp-pattern" $TINY --mlp-pattern Q
expect_error "bad value 'X' for --mtp-block" $TINY --mtp-layers 1 --mtp-block X
expect_error "bad value '-1' for --kv-lora-rank" $TINY --kv-lora-rank -1
expect_error "bad value '0' for --qk-nope-dim" $TINY --qk-nope-dim 0
expect_error "bad value 'abc' for --gdn-chunk" $TINY --gdn-chunk abc
expect_error "bad value '1.5' for --mamba-state" $TINY --mamba-state 1.5
expect_error "--mamba-version is 1 or 2" $TINY --layer-pattern M --mamba-version 3
expect_error "--attn-output-gate takes no value" $TINY --attn-output-gate=1
expect_error "multi-latent attention needs --qk-rope-dim" $TINY --kv-lora-rank 16 --qk-nope-dim 8 --v-head-dim 8
expect_error "Mamba-2 layers need --mamba-chunk" $TINY --layer-pattern MA --mamba-heads 4 --mamba-head-dim 16 --mamba-state 8
expect_error "gated delta-net layers (G) need --gdn-key-heads" $TINY --layer-pattern GA
expect_error "--attn-chunk needs chunked-attention layers" $TINY --attn-chunk 8
expect_error "--layer-pattern has 3 layers: --layers 2 is not a multiple" $TINY --layer-pattern AAA
# A size for a kind the model has none of changes nothing: refused, not dropped.
expect_error "--shared-experts needs --experts (a mixture of experts): without it the flag changes nothing" $TINY --shared-experts 2
expect_error "--topk needs --experts" $TINY --experts 0 --topk 2
expect_error "--mtp-block needs --mtp-layers" $TINY --mtp-block AD
expect_error "--gdn-chunk needs gated delta-net layers" $TINY --gdn-chunk 32
expect_error "--mamba-heads needs Mamba layers" $TINY --mamba-heads 4
printf '{"model_type": "nemotron_h", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 128, "hybrid_override_pattern": "M*", "mamba_num_heads": 4, "mamba_head_dim": 16, "ssm_state_size": 8, "n_groups": 2, "auto_map": {"AutoConfig": "configuration_nemotron_h.NemotronHConfig"}}' >"$WORK/nemo-bad.json"
expect_error "chunk_size is absent and auto_map names the model's own class" --config "$WORK/nemo-bad.json" --seq 32 --batch 2
printf '{"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 128, "hybrid_override_pattern": "M*"}' >"$WORK/llama-hybrid.json"
expect_error "mamba" --config "$WORK/llama-hybrid.json" --seq 32 --batch 2
expect_error "--layers 20 differs from the config's 24 layers, 12 of them windowed: give --window-layers" \
    --config "$CFG/gpt-oss-20b.json" --seq 32 --batch 2 --layers 20
expect_error "attn_type_list: layer 1 is 0" --config "$CFG/minimax-m1.json" --seq 32 --batch 2
# LLaVA-1.5's text_config (as published) names only what differs from
# LlamaConfig: its MLP (11008, not 4h) and K/V heads must be given.
printf '{"model_type": "llava", "text_config": {"architectures": ["LlamaForCausalLM"], "max_position_embeddings": 4096, "model_type": "llama", "rms_norm_eps": 1e-05, "vocab_size": 32064}, "vision_config": {"model_type": "clip_vision_model", "hidden_size": 1024}}' >"$WORK/llava.json"
LLAVA="--config $WORK/llava.json --layers 32 --hidden 4096 --heads 32 --seq 32 --batch 2"
expect_error "text_config leaves out intermediate_size (transformers then takes its model class's default, not the formula's): give --ffn" $LLAVA
expect_error "leaves out num_key_value_heads" $LLAVA --ffn 11008
run_json "$WORK/llava-ok.json" $LLAVA --ffn 11008 --kv-heads 32 --head-dim 128
expect llava 11008 "$WORK/llava-ok.json" model ffn

if [ "$fails" -ne 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "formula CLI: all checks passed"
