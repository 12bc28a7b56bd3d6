/* SPDX-License-Identifier: Apache-2.0 */
/* test_cupti_units.c - the pure pieces behind kernel and counter figures:
 * interval union (GPU busy time), sharing a counter sample among the
 * iterations it overlaps, kernel classes by name, and the fixed id map of
 * the graph tables (shim/cupti/idmap.c, compiled in). Expected values are
 * worked out in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cupti/call_table.h"
#include "cupti/idmap.h"
#include "kernel_class.h"
#include "spans.h"

static void union_of_overlaps(void **state)
{
    (void)state;
    /* [0,10) [5,15) [20,30) [25,26) [40,40): 15 + 10 + 0 = 25 */
    fc_span v[] = {{20, 30}, {5, 15}, {0, 10}, {25, 26}, {40, 40}};
    assert_int_equal(fc_spans_union(v, 5), 25);
    assert_int_equal(v[0].start, 0); /* sorted by start */
    /* touching spans join: [0,5) [5,9) = 9 */
    fc_span t[] = {{5, 9}, {0, 5}};
    assert_int_equal(fc_spans_union(t, 2), 9);
    assert_int_equal(fc_spans_union(NULL, 0), 0);
    /* one span inside another: [0,100) [10,20) = 100 */
    fc_span in[] = {{10, 20}, {0, 100}};
    assert_int_equal(fc_spans_union(in, 2), 100);
}

static void overlap(void **state)
{
    (void)state;
    assert_int_equal(fc_span_overlap(0, 10, 5, 20), 5);
    assert_int_equal(fc_span_overlap(0, 10, 10, 20), 0);
    assert_int_equal(fc_span_overlap(3, 4, 0, 100), 1);
}

static void apportion(void **state)
{
    (void)state;
    /* iterations [100,200) [200,300) and, after a gap, [400,500) */
    fc_span it[] = {{100, 200}, {200, 300}, {400, 500}};
    double out[3] = {0};
    int touched, whole;
    /* wholly inside the first: all of it, nothing outside */
    double left = fc_spans_apportion(it, 3, 120, 170, 50, out, &touched, &whole);
    assert_true(left == 0 && out[0] == 50 && touched == 1 && whole);
    /* [150,250) straddles the first boundary: 60 shared 30/30 */
    left = fc_spans_apportion(it, 3, 150, 250, 60, out, &touched, &whole);
    assert_true(left == 0 && out[0] == 80 && out[1] == 30 && touched == 2 && !whole);
    /* [250,450): 50 of 200 in the second, 150 in the gap and the third:
     * 50/200*80 = 20 to the second, 50/200*80 = 20 to the third, 40 left */
    left = fc_spans_apportion(it, 3, 250, 450, 80, out, &touched, &whole);
    assert_true(out[1] == 50 && out[2] == 20 && left == 40 && touched == 2 && !whole);
    /* a zero-length sample goes whole to the iteration holding its start */
    left = fc_spans_apportion(it, 3, 450, 450, 7, out, &touched, &whole);
    assert_true(left == 0 && out[2] == 27 && whole);
    /* before every iteration: all left */
    left = fc_spans_apportion(it, 3, 0, 50, 9, out, &touched, &whole);
    assert_true(left == 9 && touched == 0);
}

static void classes(void **state)
{
    (void)state;
    assert_int_equal(fc_kclass_of_name("_Z18flash_fwd_kernelILi128EEvv"), FC_K_ATTENTION);
    assert_int_equal(fc_kclass_of_name("fmha_cutlassF_f16_aligned_64x64_rf_sm80"), FC_K_ATTENTION);
    assert_int_equal(fc_kclass_of_name("cudnn_generated_fort_native_sdpa_sm90"), FC_K_ATTENTION);
    assert_int_equal(fc_kclass_of_name("ncclDevKernel_AllReduce_Sum_bf16_RING_LL"), FC_K_COMM);
    assert_int_equal(fc_kclass_of_name("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"), FC_K_GEMM_LIKE);
    assert_int_equal(fc_kclass_of_name("triton_tem_fused_mm_0"), FC_K_GEMM_LIKE);
    assert_int_equal(fc_kclass_of_name("Cutlass_Kernel"), FC_K_GEMM_LIKE);
    /* the grouped GEMMs of MoE layers: DeepGEMM 2 (m-grouped contiguous
     * FP8), CUTLASS 2 GemmGrouped (grouped_gemm), CUTLASS 3 grouped
     * (torch._grouped_mm / _scaled_grouped_mm, FBGEMM-GenAI), and the
     * Triton ones: vLLM / SGLang, FBGEMM-GenAI, torchtitan */
    assert_int_equal(fc_kclass_of_name("_ZN9deep_gemm23sm90_fp8_gemm_1d2d_implILj0ELj0ELj0ELj1ELj128"
                                       "ELNS_8GemmTypeE1EEEvPfPijjj14CUtensorMap_stS4_S4_S4_"),
                     FC_K_GEMM_LIKE);
    assert_int_equal(fc_kclass_of_name("_ZN7cutlass6KernelINS_4gemm6kernel11GemmGroupedIvvvLNS1_24Gr"
                                       "oupScheduleModeE0EEEEEvNT_6ParamsE"),
                     FC_K_GEMM_LIKE);
    assert_int_equal(fc_kclass_of_name("_ZN7cutlass13device_kernelINS_4gemm6kernel13GemmUniversalINS1"
                                       "_17GroupProblemShapeIN4cute5tupleIJiiiEEEEEvvvEEEEvNT_6ParamsE"),
                     FC_K_GEMM_LIKE);
    assert_int_equal(fc_kclass_of_name("fused_moe_kernel"), FC_K_GEMM_LIKE);
    assert_int_equal(fc_kclass_of_name("fused_moe_kernel_gptq_awq"), FC_K_GEMM_LIKE);
    assert_int_equal(fc_kclass_of_name("_fbgemm_grouped_gemm_ws"), FC_K_GEMM_LIKE);
    assert_int_equal(fc_kclass_of_name("_kernel_mg_forward_hopper"), FC_K_GEMM_LIKE);
    /* a MoE kernel that is no GEMM stays other */
    assert_int_equal(fc_kclass_of_name("_Z26moe_align_block_size_kernelIiEvPKT_PiS3_S3_iimm"),
                     FC_K_OTHER);
    assert_int_equal(fc_kclass_of_name("triton_poi_fused_add_0"), FC_K_OTHER);
    assert_int_equal(fc_kclass_of_name("vectorized_elementwise_kernel"), FC_K_OTHER);
    assert_int_equal(fc_kclass_of_name(""), FC_K_OTHER);
    assert_int_equal(fc_kclass_of_name(NULL), FC_K_OTHER);
    assert_string_equal(fc_kclass_name(FC_K_GEMM_LIKE), "gemm_like_uncounted");
    assert_string_equal(fc_kclass_name(99), "unknown");
}

static void idmap(void **state)
{
    (void)state;
    static fc_idmap_slot slots[16];
    fc_idmap m = {slots, 16, 0};
    assert_int_equal(fc_idmap_get(&m, 5), 0);
    /* 3/4 of 16: 12 keys fit, the 13th does not */
    for (uint64_t k = 1; k <= 12; k++)
        assert_int_equal(fc_idmap_put(&m, k * 1000003, (uint32_t)k), 0);
    assert_int_equal(fc_idmap_put(&m, 99, 1), -1);
    for (uint64_t k = 1; k <= 12; k++)
        assert_int_equal(fc_idmap_get(&m, k * 1000003), k);
    /* overwrite; a deletion makes room, and every other key stays found
     * (the entries after the hole move back) */
    assert_int_equal(fc_idmap_put(&m, 3 * 1000003, 77), 0);
    assert_int_equal(fc_idmap_get(&m, 3 * 1000003), 77);
    fc_idmap_del(&m, 3 * 1000003);
    assert_int_equal(fc_idmap_get(&m, 3 * 1000003), 0);
    assert_int_equal(fc_idmap_put(&m, 99, 5), 0);
    assert_int_equal(fc_idmap_get(&m, 99), 5);
    for (uint64_t k = 1; k <= 12; k++)
        if (k != 3)
            assert_int_equal(fc_idmap_get(&m, k * 1000003), k);
    /* a long run of puts and deletes never fills the map (11 keys held) */
    fc_idmap_del(&m, 99);
    for (uint64_t k = 1000; k < 100000; k++) {
        assert_int_equal(fc_idmap_put(&m, k, 1), 0);
        fc_idmap_del(&m, k);
    }
    assert_int_equal(m.used, 11);
    for (uint64_t k = 1; k <= 12; k++)
        if (k != 3)
            assert_int_equal(fc_idmap_get(&m, k * 1000003), k);
    assert_int_equal(fc_idmap_put(&m, 0, 1), -1); /* 0 is "empty" */
    fc_idmap_clear(&m);
    assert_int_equal(fc_idmap_get(&m, 99), 0);
}

/* The stamp -> shape-key table (cupti/call_table.h): stamps that hash to
 * one slot all stay findable (the direct-mapped table lost the first: a
 * kernel of "unknown shape" in ~1 run of 40 of cupti_kernels); a full
 * window gives way to counted calls, then to the oldest. */
static void call_table(void **state)
{
    (void)state;
    enum { N = 64 };
    static fc_call_slot tab[N];
    uint64_t same[6];
    int n_same = 0, first;
    /* six stamps of one window start, found by trying */
    for (uint64_t t = 1; n_same < 6; t++)
        if (fc_call_hash(t, N) == 5)
            same[n_same++] = t;
    for (int i = 0; i < 4; i++)
        fc_call_put(tab, N, same[i], 100 + (uint32_t)i);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(fc_call_get(tab, N, same[i], &first), 100 + i);
        assert_int_equal(first, 1);
    }
    assert_int_equal(fc_call_get(tab, N, same[0], &first), 100); /* a second kernel */
    assert_int_equal(first, 0);
    /* every call of the window counted: the fifth takes the first counted slot */
    fc_call_put(tab, N, same[4], 104);
    assert_int_equal(fc_call_get(tab, N, same[4], &first), 104);
    assert_int_equal(fc_call_get(tab, N, same[0], &first), 0); /* its place was taken */
    /* a window of calls none of whose kernels came yet: the oldest goes */
    uint64_t w[5];
    int n_w = 0;
    for (uint64_t t = 1; n_w < 5; t++)
        if (fc_call_hash(t, N) == 40)
            w[n_w++] = t; /* ascending: w[0] is the oldest */
    for (int i = 0; i < 5; i++)
        fc_call_put(tab, N, w[i], 200 + (uint32_t)i);
    assert_int_equal(fc_call_get(tab, N, w[0], &first), 0);
    for (int i = 1; i < 5; i++)
        assert_int_equal(fc_call_get(tab, N, w[i], &first), 200 + i);
    assert_int_equal(fc_call_get(tab, N, 999999999, &first), 0); /* never put */
    assert_int_equal(first, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(union_of_overlaps),
        cmocka_unit_test(overlap),
        cmocka_unit_test(apportion),
        cmocka_unit_test(classes),
        cmocka_unit_test(idmap),
        cmocka_unit_test(call_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
