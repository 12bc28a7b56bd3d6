#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# fault_torch_bitwise.sh - the program's results are bitwise identical with
# and without the shim: the same PyTorch CPU training run (bench/e2e_torch.py)
# ends with the same SHA-256 over every weight. The shim run must also have
# counted the GEMMs, exactly, so the comparison is not between two runs the
# shim never saw.
#
# MLP by hand (batch 32; Linear 256->512, 512->512, 512->128; F = 2*B*in*out):
#   F1 = 2*32*256*512 =  8,388,608   F2 = 2*32*512*512 = 16,777,216
#   F3 = 2*32*512*128 =  4,194,304   forward = F1 + F2 + F3 = 29,360,128
#   backward = weight gradients of all three (F1 + F2 + F3) + input gradients
#   of layers 2 and 3 only (the data needs no gradient) = 50,331,648
#   per step 79,691,776 in 8 GEMM calls; 4 steps (2 warm-up + 2 timed):
#   318,767,104 FLOPs in 32 calls.
#
# usage: fault_torch_bitwise.sh E2E_SCRIPT LIBFLOPCOUNT WORK
set -u
E2E=$1 LIB=$2 WORK=$3
PY=/usr/bin/python3
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
failures=0
# JSON checks: Debian's interpreter starts fast; any python3 will do.
JSONPY=/usr/bin/python3
[ -x "$JSONPY" ] || JSONPY=python3

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

for model in mlp gpt; do
    $PY "$E2E" --model $model --small --steps 2 --warmup 2 >"$WORK/$model-base.out" ||
        fail "$model: run without the shim failed"
    env LD_PRELOAD="$LIB" FLOPCOUNT_QUIET=1 FLOPCOUNT_OUTPUT="$WORK/$model.json" \
        $PY "$E2E" --model $model --small --steps 2 --warmup 2 >"$WORK/$model-shim.out" ||
        fail "$model: run with the shim failed"
    base=$(grep '^weights_sha256 ' "$WORK/$model-base.out")
    shim=$(grep '^weights_sha256 ' "$WORK/$model-shim.out")
    [ -n "$base" ] && [ "$base" = "$shim" ] ||
        fail "$model: weights differ: '$base' without, '$shim' with the shim"
    echo "$model: $base / $shim"
done

"$JSONPY" -c 'import json, sys
t = json.load(open(sys.argv[1]))["totals"]
sys.exit(0 if t["gemm_calls"] == 32 and t["gemm_flops"] == 318767104 else 1)' "$WORK/mlp.json" ||
    fail "mlp: shim counts $(head -c 400 "$WORK/mlp.json" 2>/dev/null)"
"$JSONPY" -c 'import json, sys
sys.exit(0 if json.load(open(sys.argv[1]))["totals"]["gemm_calls"] > 500 else 1)' "$WORK/gpt.json" ||
    fail "gpt: the shim saw too few GEMMs"

if [ $failures -ne 0 ]; then
    echo "fault_torch_bitwise: $failures failure(s)" >&2
    exit 1
fi
echo "fault_torch_bitwise: identical"
