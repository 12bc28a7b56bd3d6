/* SPDX-License-Identifier: Apache-2.0 */
/* infer_profile.h - forward profiles written by hand, for the inference's
 * unit tests (test_infer_units.c, test_infer_kinds_units.c): a Linear in ->
 * out on T tokens is m = out, n = T, k = in with A the weight (torch,
 * cuBLAS callers), or m = T, n = out, k = in with B the weight; QK^T is
 * s x s by d, attention x V d x s by s; every entry's FLOPs 2*m*n*k*batch*
 * count, summed in P.flops. Included once per test program. */
#ifndef FC_TEST_INFER_PROFILE_H
#define FC_TEST_INFER_PROFILE_H

#define MAXG 4096

typedef struct prof {
    fc_fwd_gemm g[MAXG];
    size_t n;
    fc_u128 flops;
    int weight_b; /* Linears with B as the weight */
} prof;

static prof P;
static fc_infer_work *W;

static inline void add(int64_t m, int64_t n, int64_t k, int64_t batch, uint64_t count,
                       unsigned weight, char ta, char tb)
{
    assert_true(P.n < MAXG);
    fc_fwd_gemm *x = &P.g[P.n++];
    x->m = m, x->n = n, x->k = k, x->batch = batch, x->count = count, x->weight = weight;
    x->transa = ta, x->transb = tb;
    x->flops = (fc_u128)2 * (fc_u128)m * (fc_u128)n * (fc_u128)k * (fc_u128)batch * count;
    P.flops += x->flops;
}

static inline void lin(int64_t in, int64_t out, int64_t tok)
{
    if (P.weight_b)
        add(tok, out, in, 1, 1, 2, 'N', 'N');
    else
        add(out, tok, in, 1, 1, 1, 'T', 'N');
}

/* QK^T and attention x V: batched (per_head 0) or one call per head. */
static inline void core(int64_t s, int64_t d, int64_t nb, int per_head)
{
    if (per_head) {
        add(s, s, d, 1, (uint64_t)nb, 0, 'T', 'N');
        add(d, s, s, 1, (uint64_t)nb, 0, 'N', 'N');
    } else {
        add(s, s, d, nb, 1, 0, 'T', 'N');
        add(d, s, s, nb, 1, 0, 'N', 'N');
    }
}

static inline void reset(void)
{
    memset(&P, 0, sizeof P);
}

static inline fc_fwd_profile profile(void)
{
    fc_fwd_profile p = {P.g, P.n, 0, P.flops};
    return p;
}

static inline void infer(const fc_infer_given *g, const fc_infer_iter *it, fc_inferred *out)
{
    static fc_infer_facts f;
    fc_fwd_profile p = profile();
    fc_infer_shapes(&p, W, &f);
    fc_infer_resolve(&f, g, it, out);
}

static inline void assert_ok(const fc_inferred *in)
{
    if (!in->f.ok)
        fail_msg("not inferred: %s", in->f.why);
}

static inline int64_t V(const fc_inferred *in, int key)
{
    assert_int_equal(in->v[key].status == FC_IS_UNKNOWN, 0);
    return in->v[key].value;
}

/* cmocka group setup and teardown: the work the reader needs (large). */
static inline int setup(void **state)
{
    (void)state;
    W = malloc(fc_infer_work_size());
    return W == NULL;
}

static inline int teardown(void **state)
{
    (void)state;
    free(W);
    return 0;
}

#endif
