/* SPDX-License-Identifier: Apache-2.0 */
/* test_split_nvtx.c - the NVTX ranges frameworks already emit make the
 * split exact: a two-layer model trained on CPU BLAS (sgemm_), its phases
 * only in the ranges PyTorch autograd (emit_nvtx), TransformerEngine or a
 * program name them, run under the shim with NVTX_INJECTION64_PATH.
 *
 * usage: test_split_nvtx RUN MODE        (under the shim)
 *        test_split_nvtx --check REPORT MODE
 * MODE: torch   backward functions as emit_nvtx names them ("MmBackward0,
 *               stashed seq = 7"), the first layer recomputed inside one
 *               under a plain op range ("aten::addmm, seq = 9" - no phase)
 *               and declared recompute by an NVTX range "recompute"; the
 *               forward is in no phase range (left to the detector)
 *       te      TransformerEngine: "transformer_engine._Linear.forward"
 *               around forward GEMMs (a forward range inside a backward
 *               range is a recompute) and "_Linear_backward" around the
 *               gradients
 *       plain   ranges named forward / backward
 *
 * Shapes (T = 64 tokens, x: 32 wide, hidden 48, out 16), FLOPs by hand:
 *   forward   layer 1  2*48*64*32 = 196,608; layer 2 2*16*64*48 = 98,304
 *   backward  layer 2: dW2 2*16*48*64 = 98,304, dX2 2*48*64*16 = 98,304;
 *             layer 1: dW1 2*48*32*64 = 196,608 (its input needs no grad)
 *   recompute layer 1 again before its backward: 196,608
 * per step: forward 294,912, backward 393,216, recompute 196,608; three
 * steps, flopcount_step() after each. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <nvtx3/nvToolsExt.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);

enum { T = 64, IN = 32, HID = 48, OUT = 16, STEPS = 3 };
static float w1[HID * IN], w2[OUT * HID], x[IN * T], y1[HID * T], y2[OUT * T];
static float dy2[OUT * T], dy1[HID * T], dw1[HID * IN], dw2[OUT * HID], y1r[HID * T];

/* C (m x n) = op(A) op(B), column-major, k inner. */
static void gemm(char ta, char tb, int m, int n, int k, const float *a, int lda, const float *b,
                 int ldb, float *c)
{
    const float one = 1.0f, zero = 0.0f;
    sgemm_(&ta, &tb, &m, &n, &k, &one, a, &lda, b, &ldb, &zero, c, &m, 1, 1);
}

static void push(const char *name)
{
    if (name != NULL)
        nvtxRangePushA(name);
}

static void pop(const char *name)
{
    if (name != NULL)
        nvtxRangePop();
}

static void step(const char *mode)
{
    int torch = strcmp(mode, "torch") == 0, te = strcmp(mode, "te") == 0;
    const char *fwd = te ? "transformer_engine._Linear.forward" : torch ? NULL : "forward";
    const char *bwd = te ? "_Linear_backward" : torch ? "MmBackward0, stashed seq = 7" : "backward";
    push(fwd); /* y1 = W1 x, y2 = W2 y1 (a Linear: weight as A, transposed) */
    gemm('T', 'N', HID, T, IN, w1, IN, x, IN, y1);
    gemm('T', 'N', OUT, T, HID, w2, HID, y1, HID, y2);
    pop(fwd);
    push(bwd); /* layer 2: dW2 = dy2 y1^T, dy1 = W2^T dy2 */
    gemm('N', 'T', OUT, HID, T, dy2, OUT, y1, HID, dw2);
    gemm('N', 'N', HID, T, OUT, w2, HID, dy2, OUT, dy1);
    pop(bwd);
    push(bwd); /* layer 1: recomputed (a checkpoint), then dW1 */
    if (torch) {
        push("recompute");
        push("aten::addmm, seq = 9");
    } else {
        push(te ? "transformer_engine._Linear.forward" : "forward"); /* forward in backward */
    }
    gemm('T', 'N', HID, T, IN, w1, IN, x, IN, y1r);
    if (torch)
        pop("aten::addmm");
    pop("recompute or forward");
    gemm('N', 'T', HID, IN, T, dy1, HID, x, IN, dw1);
    pop(bwd);
}

static int run(const char *mode)
{
    for (size_t i = 0; i < sizeof w1 / sizeof *w1; i++)
        w1[i] = (float)(i % 7) * 0.01f;
    void (*mark)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "flopcount_step");
    if (mark == NULL) {
        fprintf(stderr, "test_split_nvtx: flopcount_step not found (run under the shim)\n");
        return 1;
    }
    for (int s = 0; s < STEPS; s++) {
        step(mode);
        mark();
    }
    return 0;
}

static int64_t num(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : -1;
}

static const char *str(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "";
}

static int check(const char *path, const char *mode)
{
    json_object *root = json_object_from_file(path), *it, *list;
    if (root == NULL || !json_object_object_get_ex(root, "iterations", &it) ||
        !json_object_object_get_ex(it, "list", &list)) {
        fprintf(stderr, "test_split_nvtx: %s: no iterations\n", path);
        return 1;
    }
    int bad = 0;
    /* autograd's forward op ranges declare nothing (its backward ops carry
     * the same "seq =" decoration): the forward is the detector's */
    const char *want_split = strcmp(mode, "torch") == 0 ? "partly declared" : "declared";
    if (num(it, "count") != STEPS || strcmp(str(it, "detected_by"), "marker") != 0 ||
        strcmp(str(it, "split"), want_split) != 0 || strcmp(str(it, "phase_markers"), "nvtx") != 0 ||
        num(it, "ambiguous_iterations") != 0) {
        fprintf(stderr, "%s: count %lld by %s, split %s, phase markers %s, ambiguous %lld\n", mode,
                (long long)num(it, "count"), str(it, "detected_by"), str(it, "split"),
                str(it, "phase_markers"), (long long)num(it, "ambiguous_iterations"));
        bad = 1;
    }
    for (size_t i = 0; i < json_object_array_length(list); i++) {
        json_object *e = json_object_array_get_idx(list, i);
        if (num(e, "forward_flops") != 294912 || num(e, "backward_flops") != 393216 ||
            num(e, "recompute_flops") != 196608) {
            fprintf(stderr, "%s: iteration %zu: forward %lld backward %lld recompute %lld\n", mode,
                    i + 1, (long long)num(e, "forward_flops"), (long long)num(e, "backward_flops"),
                    (long long)num(e, "recompute_flops"));
            bad = 1;
        }
    }
    json_object_put(root);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "RUN") == 0)
        return run(argv[2]);
    if (argc == 4 && strcmp(argv[1], "--check") == 0)
        return check(argv[2], argv[3]);
    fprintf(stderr, "usage: test_split_nvtx RUN MODE | --check REPORT MODE\n");
    return 2;
}
