/* SPDX-License-Identifier: Apache-2.0 */
/* test_grouped_fill.c - prepare_grouped_gemm_data's parameters decoded
 * (shim/launch/grouped_fill.c) from kernelParams arrays built here in the
 * PyTorch 2.15 layout (its mangled name as the real torch 2.15 cu132 logged
 * it on the null GPU): each GroupMMCommon case's bound and exact FLOPs by
 * hand, and the defences (wrong parameter count or size, M/N/K out of
 * range, offs without a ragged dimension, an unknown layout). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "grouped_fill.h"

/* The bf16 instance torch._grouped_mm launched (FLOPCOUNT_NULLGPU_LAUNCH_LOG). */
static const char NAME[] =
    "_ZN2at4cuda6detail25prepare_grouped_gemm_dataIN7cutlass10bfloat16_tES4_S4_fN4cute5tupleIJiii"
    "EEENS6_IJlNS5_1CILi1EEENS8_ILi0EEEEEESB_SB_EEvPT_PT0_PT1_PT2_SJ_PSD_PSF_PSH_PSJ_SN_PT3_PT4_P"
    "T5_PT6_PKiiiiSt5arrayIlLm3EESZ_SZ_SZ_SZ_llbb";

typedef struct args {
    uint64_t ptr[15]; /* 0..13 pointers, 14 offs */
    int32_t mnk[3];
    int64_t arr[5][3]; /* strides A, B, out; shapes A, B */
    int64_t scale[2];
    uint8_t flags[2];
    void *p[FC_GROUPED_FILL_NPARAMS];
} args;

static void build(args *a, int32_t m, int32_t n, int32_t k, uint64_t offs, const int64_t sa[3],
                  const int64_t sb[3])
{
    memset(a, 0, sizeof *a);
    for (int i = 0; i < 15; i++)
        a->ptr[i] = 0x7f0000001000ull + 0x100ull * (uint64_t)i;
    a->ptr[14] = offs;
    a->mnk[0] = m, a->mnk[1] = n, a->mnk[2] = k;
    memcpy(a->arr[3], sa, sizeof a->arr[3]);
    memcpy(a->arr[4], sb, sizeof a->arr[4]);
    for (int i = 0; i < 15; i++)
        a->p[i] = &a->ptr[i];
    for (int i = 0; i < 3; i++)
        a->p[15 + i] = &a->mnk[i];
    for (int i = 0; i < 5; i++)
        a->p[18 + i] = a->arr[i];
    a->p[23] = &a->scale[0], a->p[24] = &a->scale[1];
    a->p[25] = &a->flags[0], a->p[26] = &a->flags[1];
}

static const int32_t OFFS[3] = {32, 48, 96}; /* groups of 32, 16, 48 rows */

/* 2D x 3D (the MoE forward): x 96 x 128, w 3 x 128 x 64; M = -1, N 64, K 128. */
static void test_ragged_m(void **state)
{
    (void)state;
    args a;
    const int64_t sa[3] = {96, 128, 0}, sb[3] = {3, 128, 64};
    build(&a, -1, 64, 128, 0x7f0000900000ull, sa, sb);
    fc_grouped_fill f;
    char why[256];
    assert_int_equal(fc_grouped_fill_decode(NAME, a.p, 27, NULL, 3, &f, why, sizeof why), 0);
    assert_int_equal(f.groups, 3);
    assert_int_equal(f.ragged, FC_GF_RAGGED_M);
    assert_ptr_equal(f.problem_sizes, (const void *)(uintptr_t)0x7f0000001a00ull);
    uint64_t fl = 0;
    /* bound: all 96 rows x 64 x 128 x 2 = 1,572,864 */
    assert_int_equal(fc_grouped_fill_bound(&f, &fl, why, sizeof why), 0);
    assert_int_equal(fl, 1572864u);
    assert_non_null(strstr(why, "at most A's rows (96)"));
    /* exact: (32 + 16 + 48) x 64 x 128 x 2 = 1,572,864 too (offs covers x) */
    assert_int_equal(fc_grouped_fill_exact(&f, OFFS, &fl, why, sizeof why), 0);
    assert_int_equal(fl, 1572864u);
    /* offs ending short of the rows: 80 x 64 x 128 x 2 = 1,310,720 < the bound */
    const int32_t shorter[3] = {32, 48, 80};
    assert_int_equal(fc_grouped_fill_exact(&f, shorter, &fl, why, sizeof why), 0);
    assert_int_equal(fl, 1310720u);
    /* decreasing or past the rows: refused */
    const int32_t bad[3] = {32, 16, 96}, past[3] = {32, 48, 97};
    assert_int_equal(fc_grouped_fill_exact(&f, bad, &fl, why, sizeof why), -1);
    assert_int_equal(fc_grouped_fill_exact(&f, past, &fl, why, sizeof why), -1);
}

/* 2D x 2D (the weight gradient): dy^T 64 x 96 by x 96 x 128, K = -1 split
 * along the 96 rows: bound 64 x 128 x 96 x 2 = 1,572,864; 3D x 2D: N = -1. */
static void test_ragged_k_n(void **state)
{
    (void)state;
    args a;
    const int64_t sa[3] = {64, 96, 0}, sb[3] = {96, 128, 0};
    build(&a, 64, 128, -1, 0x7f0000900000ull, sa, sb);
    fc_grouped_fill f;
    char why[256];
    uint64_t fl;
    assert_int_equal(fc_grouped_fill_decode(NAME, a.p, -1, NULL, 3, &f, why, sizeof why), 0);
    assert_int_equal(f.ragged, FC_GF_RAGGED_K);
    assert_int_equal(fc_grouped_fill_bound(&f, &fl, why, sizeof why), 0);
    assert_int_equal(fl, 1572864u);
    const int32_t o[3] = {16, 32, 64}; /* 64 of the 96 */
    assert_int_equal(fc_grouped_fill_exact(&f, o, &fl, why, sizeof why), 0);
    assert_int_equal(fl, 2u * 64 * 128 * 64);
    /* N = -1: A 3 x 32 x 128 (3D), B 128 x 80 (2D): bound 32 x 80 x 128 x 2 */
    const int64_t sa3[3] = {3, 32, 128}, sb2[3] = {128, 80, 0};
    build(&a, 32, -1, 128, 0x7f0000900000ull, sa3, sb2);
    assert_int_equal(fc_grouped_fill_decode(NAME, a.p, 27, NULL, 3, &f, why, sizeof why), 0);
    assert_int_equal(f.ragged, FC_GF_RAGGED_N);
    assert_int_equal(fc_grouped_fill_bound(&f, &fl, why, sizeof why), 0);
    assert_int_equal(fl, 2u * 32 * 80 * 128);
}

/* 3D x 3D, no offs: exact from the host, 4 groups of 8 x 16 x 32. */
static void test_batched(void **state)
{
    (void)state;
    args a;
    const int64_t sa[3] = {4, 8, 32}, sb[3] = {4, 32, 16};
    build(&a, 8, 16, 32, 0, sa, sb);
    fc_grouped_fill f;
    char why[256];
    uint64_t fl;
    assert_int_equal(fc_grouped_fill_decode(NAME, a.p, 27, NULL, 4, &f, why, sizeof why), 0);
    assert_int_equal(fc_grouped_fill_bound(&f, &fl, why, sizeof why), 1);
    assert_int_equal(fl, 4u * 2 * 8 * 16 * 32);
}

static void test_defences(void **state)
{
    (void)state;
    args a;
    const int64_t sa[3] = {96, 128, 0}, sb[3] = {3, 128, 64};
    fc_grouped_fill f;
    char why[256];
    build(&a, -1, 64, 128, 0x7f0000900000ull, sa, sb);
    /* wrong parameter count; a wrong parameter size */
    assert_int_equal(fc_grouped_fill_decode(NAME, a.p, 26, NULL, 3, &f, why, sizeof why), -1);
    assert_non_null(strstr(why, "26 parameters"));
    int64_t sz[27];
    for (int i = 0; i < 27; i++)
        sz[i] = i <= 14 ? 8 : i <= 17 ? 4 : i <= 22 ? 24 : i <= 24 ? 8 : 1;
    assert_int_equal(fc_grouped_fill_decode(NAME, a.p, 27, sz, 3, &f, why, sizeof why), 0);
    sz[16] = 8;
    assert_int_equal(fc_grouped_fill_decode(NAME, a.p, 27, sz, 3, &f, why, sizeof why), -1);
    assert_non_null(strstr(why, "parameter 16 is 8 bytes"));
    /* the older layout (three arrays, no shapes nor bools), not the fill
     * kernel, no args */
    char older[sizeof NAME];
    snprintf(older, sizeof older, "%.*sSZ_SZ_ll", (int)(sizeof NAME - 1 - 16), NAME);
    assert_non_null(strstr(older, "St5arrayIlLm3EESZ_SZ_ll"));
    /* the backward's instance spells the substitution S10_ (as logged);
     * mixed substitutions are not the layout */
    char bwd[sizeof NAME + 8], mixed[sizeof NAME + 8];
    snprintf(bwd, sizeof bwd, "%.*sS10_S10_S10_S10_llbb", (int)(sizeof NAME - 1 - 16), NAME);
    snprintf(mixed, sizeof mixed, "%.*sS10_SZ_S10_S10_llbb", (int)(sizeof NAME - 1 - 16), NAME);
    assert_int_equal(fc_grouped_fill_decode(bwd, a.p, 27, NULL, 3, &f, why, sizeof why), 0);
    assert_int_equal(fc_grouped_fill_decode(mixed, a.p, 27, NULL, 3, &f, why, sizeof why), -1);
    assert_int_equal(fc_grouped_fill_decode(older, a.p, -1, NULL, 3, &f, why, sizeof why), -1);
    assert_int_equal(fc_grouped_fill_decode("_Z6kernelv", a.p, -1, NULL, 3, &f, why, sizeof why),
                     -1);
    assert_int_equal(fc_grouped_fill_decode(NAME, NULL, 27, NULL, 3, &f, why, sizeof why), -1);
    /* block 0 or past the group limit */
    assert_int_equal(fc_grouped_fill_decode(NAME, a.p, 27, NULL, 0, &f, why, sizeof why), -1);
    assert_int_equal(fc_grouped_fill_decode(NAME, a.p, 27, NULL, 1025, &f, why, sizeof why), -1);
    /* two ragged; M -5; offs with nothing ragged; ragged with no offs */
    build(&a, -1, -1, 128, 0x7f0000900000ull, sa, sb);
    assert_int_equal(fc_grouped_fill_decode(NAME, a.p, 27, NULL, 3, &f, why, sizeof why), -1);
    build(&a, -5, 64, 128, 0x7f0000900000ull, sa, sb);
    assert_int_equal(fc_grouped_fill_decode(NAME, a.p, 27, NULL, 3, &f, why, sizeof why), -1);
    build(&a, 32, 64, 128, 0x7f0000900000ull, sa, sb);
    assert_int_equal(fc_grouped_fill_decode(NAME, a.p, 27, NULL, 3, &f, why, sizeof why), -1);
    build(&a, -1, 64, 128, 0, sa, sb);
    assert_int_equal(fc_grouped_fill_decode(NAME, a.p, 27, NULL, 3, &f, why, sizeof why), -1);
    /* problem_sizes NULL or misaligned; a negative extent */
    build(&a, -1, 64, 128, 0x7f0000900000ull, sa, sb);
    a.ptr[10] = 0;
    assert_int_equal(fc_grouped_fill_decode(NAME, a.p, 27, NULL, 3, &f, why, sizeof why), -1);
    a.ptr[10] = 0x7f0000001a02ull;
    assert_int_equal(fc_grouped_fill_decode(NAME, a.p, 27, NULL, 3, &f, why, sizeof why), -1);
    const int64_t neg[3] = {-96, 128, 0};
    build(&a, -1, 64, 128, 0x7f0000900000ull, neg, sb);
    assert_int_equal(fc_grouped_fill_decode(NAME, a.p, 27, NULL, 3, &f, why, sizeof why), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ragged_m), cmocka_unit_test(test_ragged_k_n),
        cmocka_unit_test(test_batched), cmocka_unit_test(test_defences)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
