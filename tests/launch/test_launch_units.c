/* SPDX-License-Identifier: Apache-2.0 */
/* test_launch_units.c - the launch layer's pure parts (shim/launch/,
 * compiled in): the family table against real kernel names (as nvcc
 * mangles prog.cu's declarations, which follow PyTorch's and flash-attn's),
 * the mangled-name reader, the FlashAttention-2 and memory-efficient
 * attention decoders against parameter structs written field by field
 * (params.h) - every check planted to fail once - and the registry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "decoders.h"
#include "dtype.h"
#include "families.h"
#include "kernel_class.h"
#include "mangled.h"
#include "names.h"
#include "params.h"
#include "registry.h"

int fc_kfamily_anchor_ok(void);

static void families_of_real_names(void **state)
{
    (void)state;
    assert_true(fc_kfamily_anchor_ok());
    assert_int_equal(fc_kfamily_of_name(PT25_FWD), FC_KF_FA2_FWD);
    assert_int_equal(fc_kfamily_of_name(PT25_BWD), FC_KF_FA2_BWD);
    assert_int_equal(fc_kfamily_of_name(PT25_SPLIT), FC_KF_FA2_SPLITKV);
    assert_int_equal(fc_kfamily_action(fc_kfamily_of_name(PT25_COMBINE)), FC_KA_NOFLOP);
    assert_int_equal(fc_kfamily_of_name(FA27_LOCAL), FC_KF_FA2_FWD);
    assert_int_equal(fc_kfamily_of_name(FA26_DROPOUT), FC_KF_FA2_FWD);
    assert_int_equal(fc_kfamily_of_name(MEM_FWD), FC_KF_MEMEFF_FWD);
    assert_int_equal(fc_kfamily_of_name(MEM_BWD), FC_KF_MEMEFF_BWD);
    /* FA3 is a cutlass::device_kernel: the FA3 pattern wins */
    assert_int_equal(fc_kfamily_of_name(FA3), FC_KF_FA3_FWD);
    assert_int_equal(fc_kfamily_class(FC_KF_FA3_FWD, FA3), FC_K_ATTENTION);
    assert_int_equal(fc_kfamily_of_name(CUTLASS), FC_KF_CUTLASS_NS);
    assert_int_equal(fc_kfamily_class(FC_KF_CUTLASS_NS, CUTLASS), FC_K_GEMM_LIKE);
    assert_int_equal(fc_kfamily_of_name(ADAM), FC_KF_OPTIM_MTA);
    assert_int_equal(fc_kfamily_action(FC_KF_OPTIM_MTA), FC_KA_MARK);
    assert_int_equal(fc_kfamily_of_name(COPY), FC_KF_NONE); /* _foreach_copy_ */
    assert_int_equal(fc_kfamily_of_name(ELEMENTWISE_ADDMM), FC_KF_NONE);
    assert_int_equal(fc_kfamily_of_name("_Z10vector_addPfPKfi"), FC_KF_NONE);
    assert_int_equal(fc_kfamily_of_name("triton_tem_fused_mm_0"), FC_KF_TRITON_TEM);
    assert_int_equal(fc_kfamily_class(FC_KF_TRITON_TEM, "triton_tem_fused_mm_0"), FC_K_GEMM_LIKE);
    assert_int_equal(fc_kfamily_class(FC_KF_TRITON_TEM, "triton_tem_fused_flex_attention_0"),
                     FC_K_ATTENTION);
    assert_int_equal(fc_kfamily_of_name("triton_poi_fused__scaled_dot_product_flash_attention_0"),
                     FC_KF_NONE);
    assert_int_equal(fc_kfamily_of_name("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_"
                                        "f16_knob_7_64x128x128_4x1x1_kernel0_0"),
                     FC_KF_CUDNN_SDPA);
    assert_int_equal(fc_kfamily_of_name("_ZN9deep_gemm14fp8_gemm_kernelILj128ELj128EEEvPv"),
                     FC_KF_DEEPGEMM);
    /* DeepGEMM 2's kernels (deep_gemm::sm90_fp8_gemm_1d2d_impl<..., GemmType
     * 1 = MGroupedContiguous>, written by hand from its impls/ header;
     * c++filt reads it back), the m-grouped contiguous / masked FP8 GEMMs */
    static const char dg2[] =
        "_ZN9deep_gemm23sm90_fp8_gemm_1d2d_implILj0ELj0ELj0ELj1ELj128ELj128ELj128ELj128ELj5ELj5ELj"
        "128ELj256ELj1ELb0ELj132ELNS_8GemmTypeE1EEEvPfPijjj14CUtensorMap_stS4_S4_S4_";
    assert_int_equal(fc_kfamily_of_name(dg2), FC_KF_DEEPGEMM);
    assert_int_equal(fc_kfamily_class(FC_KF_DEEPGEMM, dg2), FC_K_GEMM_LIKE);
    assert_int_equal(fc_kfamily_action(FC_KF_DEEPGEMM), FC_KA_OPAQUE);
    /* Triton grouped GEMMs, named by their Python functions: vLLM / SGLang
     * (fused_moe_kernel, and its GPTQ/AWQ variant), FBGEMM-GenAI
     * (_fbgemm_grouped_gemm, _ws), torchtitan (_kernel_mg_forward_hopper);
     * Triton 2's signature suffix kept; each GEMM-like and opaque */
    static const struct {
        const char *name;
        int family;
    } tri[] = {{"fused_moe_kernel", FC_KF_TRITON_MOE},
               {"fused_moe_kernel_gptq_awq", FC_KF_TRITON_MOE},
               {"fused_moe_kernel_0d1d2d3d4d5d6d7d8d9d10d11d", FC_KF_TRITON_MOE},
               {"_fbgemm_grouped_gemm", FC_KF_TRITON_FBGEMM_GROUPED},
               {"_fbgemm_grouped_gemm_ws", FC_KF_TRITON_FBGEMM_GROUPED},
               {"_kernel_mg_forward_hopper", FC_KF_TRITON_MG_GROUPED}};
    for (size_t i = 0; i < sizeof tri / sizeof tri[0]; i++) {
        assert_int_equal(fc_kfamily_of_name(tri[i].name), tri[i].family);
        assert_int_equal(fc_kfamily_class(tri[i].family, tri[i].name), FC_K_GEMM_LIKE);
        assert_int_equal(fc_kfamily_action(tri[i].family), FC_KA_OPAQUE);
    }
    /* a MoE kernel that is no GEMM (vLLM's token sort) is no family */
    assert_int_equal(fc_kfamily_of_name("_Z26moe_align_block_size_kernelIiEvPKT_PiS3_S3_iimm"),
                     FC_KF_NONE);
    assert_int_equal(fc_kfamily_of_name("fused_moe_router"), FC_KF_NONE);
    /* grouped GEMMs: CUTLASS 3's GemmUniversal<GroupProblemShape<...>>
     * (torch._grouped_mm's bf16bf16_grouped_mm, FBGEMM, TransformerEngine)
     * wins over the CUTLASS prefix; CUTLASS 2's GemmGrouped (grouped_gemm) */
    static const char grouped3[] =
        "_ZN7cutlass13device_kernelINS_4gemm6kernel13GemmUniversalINS1_17GroupProblemShapeIN4cute"
        "5tupleIJiiiEEEEENS1_10collective13CollectiveMmaIvEEvvEEEEvNT_6ParamsE";
    static const char grouped2[] =
        "_ZN7cutlass6KernelINS_4gemm6kernel11GemmGroupedIvvvLNS1_24GroupScheduleModeE0EEEEEvNT_"
        "6ParamsE";
    assert_int_equal(fc_kfamily_of_name(grouped3), FC_KF_CUTLASS_GROUPED);
    assert_int_equal(fc_kfamily_class(FC_KF_CUTLASS_GROUPED, grouped3), FC_K_GEMM_LIKE);
    assert_int_equal(fc_kfamily_action(FC_KF_CUTLASS_GROUPED), FC_KA_OPAQUE);
    assert_int_equal(fc_kfamily_of_name(grouped2), FC_KF_CUTLASS2_GROUPED);
    assert_int_equal(fc_kfamily_class(FC_KF_CUTLASS2_GROUPED, grouped2), FC_K_GEMM_LIKE);
    /* a name that only mentions groups is no grouped GEMM */
    assert_int_equal(fc_kfamily_of_name("_ZN7cutlass13device_kernelI12GroupProblemEEvv"),
                     FC_KF_CUTLASS_NS);
    assert_int_equal(fc_kfamily_of_name("_ZN2at6native12_GLOBAL__N_114lpnorm_cleanupIfLNS1_8NormTy"
                                        "peE1EfLb1EfEEvPKT3_NS1_19TensorListAddressesEi"),
                     FC_KF_OPTIM_NORM);
    assert_int_equal(fc_kfamily_of_name("_ZN2at6native28amp_update_scale_cuda_kernelEPfPiPKfddi"),
                     FC_KF_OPTIM_SCALE);
    assert_int_equal(fc_kfamily_of_name(NULL), FC_KF_NONE);
    assert_int_equal(fc_kfamily_of_name(""), FC_KF_NONE);
}

static void mangled_reader(void **state)
{
    (void)state;
    fc_targ a[16];
    /* flash_fwd_kernel<traits, 7 bools> */
    assert_int_equal(fc_mangled_targs(PT25_FWD, NULL, "16flash_fwd_kernel", a, 16), 8);
    assert_int_equal(a[0].kind, FC_TARG_TYPE);
    assert_int_equal(a[1].kind, FC_TARG_BOOL);
    assert_int_equal(a[2].value, 1); /* Is_causal */
    fc_targ t[12];
    assert_int_equal(fc_mangled_targs(a[0].begin, a[0].end, "23Flash_fwd_kernel_traits", t, 12), 8);
    assert_int_equal(t[0].value, 128);
    assert_int_equal(t[2].value, 64);
    /* a truncated name does not parse; nor does a source name not there */
    char cut[80];
    memcpy(cut, PT25_FWD, sizeof cut - 1);
    cut[sizeof cut - 1] = '\0';
    assert_int_equal(fc_mangled_targs(cut, NULL, "16flash_fwd_kernel", a, 16), -1);
    assert_int_equal(fc_mangled_targs(PT25_FWD, NULL, "16flash_bwd_kernel", a, 16), -1);
    /* a lambda's closure type is outside the grammar read: refused */
    assert_int_equal(fc_mangled_targs("_Z3fooIZ3barvEUlvE_EvT_", NULL, "3foo", a, 16), -1);
    assert_int_equal(fc_mangled_targs(MEM_BWD, NULL, "23AttentionBackwardKernel", a, 16), 9);
    assert_int_equal(a[5].value, 64);
}

/* ---- FlashAttention-2 ---- */

static int64_t rnd(int64_t x, int64_t m)
{
    return (x + m - 1) / m * m;
}

/* flash_api's set_params_fprop, for any of the layouts */
#define FILL(p, B, H, HK, SQ, SK, D, CAUSAL, WL, WR, KEEP, BF16)                                   \
    do {                                                                                           \
        memset(&(p), 0, sizeof(p));                                                                \
        (p).b = (B), (p).h = (H), (p).h_k = (HK), (p).h_h_k_ratio = (H) / (HK);                    \
        (p).seqlen_q = (SQ), (p).seqlen_k = (SK), (p).d = (D);                                     \
        (p).seqlen_q_rounded = (int)rnd(SQ, 128), (p).seqlen_k_rounded = (int)rnd(SK, 128);        \
        (p).d_rounded = (int)rnd(D, (D) <= 128 ? 32 : 64);                                         \
        (p).p_dropout = (KEEP), (p).rp_dropout = 1.0f / (KEEP);                                    \
        (p).window_size_left = (CAUSAL) ? (SK) : (WL),                                             \
        (p).window_size_right = (CAUSAL) ? 0 : (WR);                                               \
        (p).is_causal = (CAUSAL), (p).is_bf16 = (BF16);                                            \
    } while (0)

static int fa2(int family, const char *name, const void *p, int64_t size, unsigned gx, unsigned gy,
               unsigned gz, fc_attn *a, char *why)
{
    fc_ktraits t;
    if (fc_fa2_traits(family, name, &t, why, 256) != 0)
        return -1;
    fc_kparams k = {p, 0, size, 0, {gx, gy, gz}};
    return fc_fa2_decode(family, &t, &k, a, why, 256);
}

static void fa2_layouts(void **state)
{
    (void)state;
    /* the sizes the research table and the structs agree on */
    assert_int_equal(sizeof(t_fwd_fa25), 448);
    assert_int_equal(sizeof(t_fwd_pt25), 456);
    assert_int_equal(sizeof(t_fwd_f26), 464);
    assert_int_equal(sizeof(t_fwd_fh), 472);
    assert_int_equal(sizeof(t_bwd_pt25), 632);
    assert_int_equal(sizeof(t_bwd_f26), 640);
    assert_int_equal(offsetof(t_fwd_f26, window_size_left), 388);
    assert_int_equal(offsetof(t_fwd_pt25, window_size_left), 380);
    assert_int_equal(sizeof(t_mem_fwd), 272);
    assert_int_equal(sizeof(t_mem_bwd_old), 456);
    assert_int_equal(sizeof(t_mem_bwd), 464);
}

static void fa2_decodes(void **state)
{
    (void)state;
    fc_attn a;
    char why[256];
    t_fwd_pt25 p;
    FILL(p, 2, 8, 2, 512, 512, 128, 1, -1, -1, 1.0f, 1);
    /* size unknown (the layout the name implies), and the right size */
    for (int64_t size = 0; size <= 456; size += 456) {
        assert_int_equal(fa2(FC_KF_FA2_FWD, PT25_FWD, &p, size, 4, 2, 8, &a, why), 0);
        assert_int_equal(a.b, 2);
        assert_int_equal(a.h, 8);
        assert_int_equal(a.h_k, 2);
        assert_int_equal(a.s_q, 512);
        assert_int_equal(a.d, 128);
        assert_int_equal(a.window_left, -1);
        assert_int_equal(a.window_right, 0);
        assert_int_equal(a.align, FC_ATTN_BOTTOM_RIGHT);
        assert_int_equal(a.block_m, 128);
        assert_int_equal(a.block_n, 64);
        assert_int_equal(a.d_pad, 128);
        assert_int_equal(a.dtype, FC_DT_BF16);
        assert_int_equal(a.flags, 0);
    }
    /* flash-attn 2.7 (flash::, 8 bools): 2.7.4 and HEAD layouts read the
     * same here, so the size is not needed */
    t_fwd_f26 q;
    FILL(q, 1, 4, 4, 300, 300, 64, 0, 100, 0, 1.0f, 0);
    assert_int_equal(fa2(FC_KF_FA2_FWD, FA27_LOCAL, &q, 0, 3, 1, 4, &a, why), 0);
    assert_int_equal(a.window_left, 100);
    assert_int_equal(a.window_right, 0);
    /* global scope, 8 bools: 2.6.0 (456) or 2.6.3 (464); the 2.6.3 data
     * does not fit 2.6.0's window offsets, so it is decoded once */
    FILL(q, 2, 2, 2, 64, 64, 32, 0, -1, -1, 0.9f, 0);
    assert_int_equal(fa2(FC_KF_FA2_FWD, FA26_DROPOUT, &q, 0, 1, 2, 2, &a, why), 0);
    assert_true(a.flags & FC_ATTN_DROPOUT);
    /* split-KV, split in 4: grid (m blocks, splits, b*h) */
    FILL(p, 1, 4, 4, 100, 1000, 64, 0, -1, -1, 1.0f, 0);
    assert_int_equal(fa2(FC_KF_FA2_SPLITKV, PT25_SPLIT, &p, 0, 2, 4, 4, &a, why), 0);
    assert_int_equal(a.s_k, 1000);
    /* varlen: the maxima, a bound (a split-KV kernel without Is_even_MN) */
    FILL(p, 1, 4, 4, 100, 1000, 64, 0, -1, -1, 1.0f, 0);
    p.cu_seqlens_q = (int *)(uintptr_t)0x1000;
    assert_int_equal(fa2(FC_KF_FA2_SPLITKV, PT25_SPLIT, &p, 0, 2, 4, 4, &a, why), 0);
    assert_true(a.flags & FC_ATTN_BOUND);
    /* ... which an Is_even_MN kernel cannot have been launched with */
    FILL(p, 2, 8, 2, 512, 512, 128, 1, -1, -1, 1.0f, 1);
    p.cu_seqlens_q = (int *)(uintptr_t)0x1000;
    assert_int_equal(fa2(FC_KF_FA2_FWD, PT25_FWD, &p, 0, 4, 2, 8, &a, why), -1);
    /* the backward */
    t_bwd_pt25 g;
    memset(&g, 0, sizeof g);
    FILL(g.f, 2, 8, 2, 512, 512, 128, 1, -1, -1, 1.0f, 1);
    if (fa2(FC_KF_FA2_BWD, PT25_BWD, &g, 632, 4, 2, 8, &a, why) != 0)
        fail_msg("%s", why);
    assert_int_equal(a.dir, FC_ATTN_BWD);
    assert_int_equal(a.block_m, 64);
    assert_int_equal(a.block_n, 128);
}

/* Head dims above 128, whose kernel and d_rounded changed between
 * versions (flash-attn's static_switch.h and flash_api.cpp): 2.6.2 - 2.7.4
 * run d 160 on kHeadDim 160 with d_rounded = d <= 192 ? round(d, 32) :
 * 256 = 160; 2.8 on have no 160 kernel: d 160 runs kHeadDim 192, d 200
 * runs 256, d_rounded = round(d, 64) = 192 and 256. Each is counted at
 * the real d: b 1, h 4, 128 x 128, no mask: P = 128 * 128 = 16,384 pairs
 * per head, executed 2 P (d + d) x 4 heads = 16 P d = 41,943,040 for d
 * 160 and 52,428,800 for d 200. */
#define FA27_D160                                                                                  \
    "_ZN5flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi160ELi128ELi32ELi4ELb0ELb0EN7cutlass" \
    "10bfloat16_tE19Flash_kernel_traitsILi160ELi128ELi32ELi4ES3_EELb0ELb0ELb0ELb0ELb1ELb1ELb0ELb0" \
    "EEEvNS_16Flash_fwd_paramsE"
#define FA28_K192                                                                                  \
    "_ZN5flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi192ELi128ELi64ELi4ELb0ELb0EN7cutlass" \
    "10bfloat16_tE19Flash_kernel_traitsILi192ELi128ELi64ELi4ES3_EELb0ELb0ELb0ELb0ELb1ELb0ELb0ELb0" \
    "EEEvNS_16Flash_fwd_paramsE"
#define FA28_K256                                                                                  \
    "_ZN5flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi256ELi64ELi64ELi4ELb0ELb0EN7cutlass1" \
    "0bfloat16_tE19Flash_kernel_traitsILi256ELi64ELi64ELi4ES3_EELb0ELb0ELb0ELb0ELb1ELb0ELb0ELb0EE" \
    "EvNS_16Flash_fwd_paramsE"

static void fa2_head_dims(void **state)
{
    (void)state;
    fc_attn a;
    fc_attn_flops f;
    char why[256];
    t_fwd_f26 q;
    FILL(q, 1, 4, 4, 128, 128, 160, 0, -1, -1, 1.0f, 1);
    q.d_rounded = 160; /* 2.7.4 */
    if (fa2(FC_KF_FA2_FWD, FA27_D160, &q, 464, 1, 1, 4, &a, why) != 0)
        fail_msg("%s", why);
    assert_int_equal(a.d, 160);
    assert_int_equal(a.d_pad, 160);
    assert_int_equal(fc_attn_flops_of(&a, &f), 0);
    assert_true(f.executed == 41943040);
    q.d_rounded = 192; /* 2.8: d 160 on the 192 kernel */
    if (fa2(FC_KF_FA2_FWD, FA28_K192, &q, 464, 1, 1, 4, &a, why) != 0)
        fail_msg("%s", why);
    assert_int_equal(a.d, 160);
    assert_int_equal(a.d_pad, 192);
    assert_int_equal(fc_attn_flops_of(&a, &f), 0);
    assert_true(f.executed == 41943040);
    t_fwd_fh r;                                          /* HEAD's struct (472 bytes) */
    FILL(r, 1, 4, 4, 128, 128, 200, 0, -1, -1, 1.0f, 1); /* d_rounded round(200, 64) = 256 */
    if (fa2(FC_KF_FA2_FWD, FA28_K256, &r, 472, 2, 1, 4, &a, why) != 0)
        fail_msg("%s", why);
    assert_int_equal(a.d, 200);
    assert_int_equal(fc_attn_flops_of(&a, &f), 0);
    assert_true(f.executed == 52428800);
    /* still refused: d 120 on the 192 kernel (it runs on 128's), a
     * d_rounded no version computes (200 -> 224 is round(200, 32), fine;
     * 200 -> 240 is none) */
    FILL(q, 1, 4, 4, 128, 128, 120, 0, -1, -1, 1.0f, 1);
    assert_int_equal(fa2(FC_KF_FA2_FWD, FA28_K192, &q, 464, 1, 1, 4, &a, why), -1);
    assert_non_null(strstr(why, "head dim 120"));
    r.d_rounded = 224;
    assert_int_equal(fa2(FC_KF_FA2_FWD, FA28_K256, &r, 472, 2, 1, 4, &a, why), 0);
    r.d_rounded = 240;
    assert_int_equal(fa2(FC_KF_FA2_FWD, FA28_K256, &r, 472, 2, 1, 4, &a, why), -1);
    assert_non_null(strstr(why, "rounded 240"));
}

/* A kernel of FlashAttention-2's or memory-efficient attention's name whose
 * parameter is another type (a fork's, a test's): never read as the
 * struct. Without the parameter size (a failed launch) the FA2 decoder
 * reads 400 bytes, which a smaller argument does not have. */
static void foreign_parameter(void **state)
{
    (void)state;
    fc_ktraits t;
    char why[256], name[512];
    /* PT25_FWD with its parameter renamed: ...EEEvNS_11SmallParamsE */
    snprintf(name, sizeof name, "%.*sNS_11SmallParamsE",
             (int)(strlen(PT25_FWD) - strlen("NS_16Flash_fwd_paramsE")), PT25_FWD);
    assert_int_equal(fc_fa2_traits(FC_KF_FA2_FWD, name, &t, why, sizeof why), -1);
    assert_non_null(strstr(why, "parameter is not Flash_fwd_params"));
    /* a backward kernel taking the forward struct */
    snprintf(name, sizeof name, "%.*sNS_16Flash_fwd_paramsE",
             (int)(strlen(PT25_BWD) - strlen("NS_16Flash_bwd_paramsE")), PT25_BWD);
    assert_int_equal(fc_fa2_traits(FC_KF_FA2_BWD, name, &t, why, sizeof why), -1);
    /* global scope (no closing E) and namespaced names of the real type pass */
    assert_int_equal(fc_fa2_traits(FC_KF_FA2_FWD, FA26_DROPOUT, &t, why, sizeof why), 0);
    assert_int_equal(fc_fa2_traits(FC_KF_FA2_FWD, PT25_FWD, &t, why, sizeof why), 0);
    /* memory-efficient attention: the kernel's nested Params, or nothing */
    snprintf(name, sizeof name, "%.*sEPv", (int)(strlen(MEM_FWD) - strlen("E6ParamsE")), MEM_FWD);
    assert_int_equal(fc_memeff_traits(FC_KF_MEMEFF_FWD, name, &t, why, sizeof why), -1);
    assert_non_null(strstr(why, "parameter is not"));
    assert_int_equal(fc_memeff_traits(FC_KF_MEMEFF_FWD, MEM_FWD, &t, why, sizeof why), 0);
}

/* Each check, planted: the launch is not decoded and says why. */
static void fa2_defence(void **state)
{
    (void)state;
    fc_attn a;
    char why[256];
    t_fwd_pt25 p;
#define REFUSED(fam, name, ptr, size, gx, gy, gz, has)                                             \
    do {                                                                                           \
        assert_int_equal(fa2(fam, name, ptr, size, gx, gy, gz, &a, why), -1);                      \
        if (strstr(why, has) == NULL)                                                              \
            fail_msg("why: %s (expected %s)", why, has);                                           \
    } while (0)
    FILL(p, 2, 8, 2, 512, 512, 128, 1, -1, -1, 1.0f, 1);
    REFUSED(FC_KF_FA2_FWD, PT25_FWD, &p, 448, 4, 2, 8, "param 0 is 448 bytes");
    REFUSED(FC_KF_FA2_FWD, PT25_FWD, &p, 0, 4, 2, 9, "grid (4, 2, 9)");
    p.d = 64;
    REFUSED(FC_KF_FA2_FWD, PT25_FWD, &p, 0, 4, 2, 8, "head dim 64");
    FILL(p, 2, 8, 2, 512, 512, 128, 1, -1, -1, 1.0f, 1);
    p.d_rounded = 160;
    REFUSED(FC_KF_FA2_FWD, PT25_FWD, &p, 0, 4, 2, 8, "rounded 160");
    FILL(p, 2, 8, 2, 512, 512, 128, 1, -1, -1, 1.0f, 1);
    p.window_size_right = 5; /* a causal kernel's right window is 0 */
    REFUSED(FC_KF_FA2_FWD, PT25_FWD, &p, 0, 4, 2, 8, "window (512, 5)");
    FILL(p, 2, 8, 2, 512, 512, 128, 1, -1, -1, 0.8f, 1); /* dropout, but no Is_dropout */
    REFUSED(FC_KF_FA2_FWD, PT25_FWD, &p, 0, 4, 2, 8, "keep probability 0.8");
    FILL(p, 2, 8, 3, 512, 512, 128, 1, -1, -1, 1.0f, 1); /* 8 heads over 3 kv heads */
    REFUSED(FC_KF_FA2_FWD, PT25_FWD, &p, 0, 4, 2, 8, "out of range");
    FILL(p, 2, 8, 2, 500, 512, 128, 1, -1, -1, 1.0f, 1); /* Is_even_MN, 500 queries */
    REFUSED(FC_KF_FA2_FWD, PT25_FWD, &p, 0, 4, 2, 8, "Is_even_MN");
    FILL(p, 2, 8, 2, 512, 512, 128, 1, -1, -1, 1.0f, 0); /* is_bf16 0 for a bf16 kernel */
    REFUSED(FC_KF_FA2_FWD, PT25_FWD, &p, 456, 4, 2, 8, "is_bf16 0");
    FILL(p, 2, 8, 2, 512, 512, 128, 1, -1, -1, 1.0f, 1);
    fc_ktraits t;
    assert_int_equal(fc_fa2_traits(FC_KF_FA2_FWD, PT25_FWD, &t, why, sizeof why), 0);
    fc_kparams k = {&p, 256, 0, 0, {4, 2, 8}}; /* a packed buffer of 256 bytes */
    assert_int_equal(fc_fa2_decode(FC_KF_FA2_FWD, &t, &k, &a, why, sizeof why), -1);
    assert_non_null(strstr(why, "only 256 bytes"));
    fc_kparams two = {&p, 0, 0, 2, {4, 2, 8}};
    assert_int_equal(fc_fa2_decode(FC_KF_FA2_FWD, &t, &two, &a, why, sizeof why), -1);
    assert_non_null(strstr(why, "2 parameters"));
    /* an FA2 kernel of an unknown era: 6 booleans in the forward */
    const char *old =
        "_ZN13pytorch_flash16flash_fwd_kernelINS_23Flash_fwd_kernel_traitsILi128ELi128E"
        "Li64ELi4ELb0ELb0EN7cutlass10bfloat16_tENS_19Flash_kernel_traitsILi128ELi128ELi6"
        "4ELi4ES3_EEEELb0ELb1ELb0ELb1ELb1ELb0EEEvNS_16Flash_fwd_paramsE";
    assert_int_equal(fc_fa2_traits(FC_KF_FA2_FWD, old, &t, why, sizeof why), -1);
    assert_non_null(strstr(why, "6 boolean template arguments"));
    /* flash-attn 2.7.4 data with HEAD's size (472): the tail checks fail
     * for a bf16 kernel (is_bf16 sits 8 bytes further) */
    t_fwd_f26 q;
    FILL(q, 2, 8, 2, 512, 512, 128, 1, -1, -1, 1.0f, 1);
    const char *pt27 =
        "_ZN13pytorch_flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi128ELi128ELi"
        "64ELi4ELb0ELb0EN7cutlass10bfloat16_tE19Flash_kernel_traitsILi128ELi128ELi64E"
        "Li4ES3_EELb0ELb1ELb0ELb0ELb1ELb1ELb0ELb0EEEvNS_16Flash_fwd_paramsE";
    assert_int_equal(fa2(FC_KF_FA2_FWD, pt27, &q, 464, 4, 2, 8, &a, why), 0);
    REFUSED(FC_KF_FA2_FWD, pt27, &q, 472, 4, 2, 8, "is_bf16 0");
}

/* ---- memory-efficient attention ---- */

static int mem(int family, const char *name, const void *p, int64_t size, unsigned gx, unsigned gy,
               unsigned gz, fc_attn *a, char *why)
{
    fc_ktraits t;
    if (fc_memeff_traits(family, name, &t, why, 256) != 0)
        return -1;
    fc_kparams k = {p, 0, size, 0, {gx, gy, gz}};
    return fc_memeff_decode(family, &t, &k, a, why, 256);
}

static void memeff_decodes(void **state)
{
    (void)state;
    fc_attn a;
    char why[256];
    t_mem_fwd f;
    memset(&f, 0, sizeof f);
    f.head_dim = f.head_dim_value = 64;
    f.num_queries = 200, f.num_keys = 300, f.custom_mask_type = 1;
    f.num_batches = 2, f.num_heads = 3;
    assert_int_equal(mem(FC_KF_MEMEFF_FWD, MEM_FWD, &f, 0, 4, 3, 2, &a, why), 0);
    assert_int_equal(a.align, FC_ATTN_TOP_LEFT);
    assert_int_equal(a.window_right, 0);
    assert_int_equal(a.block_m, 64);
    assert_int_equal(a.d_pad, 0); /* no tile figure */
    assert_int_equal(mem(FC_KF_MEMEFF_FWD, MEM_FWD, &f, 264, 4, 3, 2, &a, why), -1);
    assert_non_null(strstr(why, "param 0 is 264 bytes"));
    assert_int_equal(mem(FC_KF_MEMEFF_FWD, MEM_FWD, &f, 0, 4, 2, 3, &a, why), -1);
    f.head_dim = 80; /* above kMaxK 64 */
    assert_int_equal(mem(FC_KF_MEMEFF_FWD, MEM_FWD, &f, 0, 4, 3, 2, &a, why), -1);
    f.head_dim = 64;
    f.custom_mask_type = 3;
    assert_int_equal(mem(FC_KF_MEMEFF_FWD, MEM_FWD, &f, 0, 4, 3, 2, &a, why), -1);
    f.custom_mask_type = 0;
    f.attn_bias_ptr = &f;
    assert_int_equal(mem(FC_KF_MEMEFF_FWD, MEM_FWD, &f, 0, 4, 3, 2, &a, why), 0);
    assert_true(a.flags & FC_ATTN_BIAS);
    /* the backward, both versions, with and without the size */
    t_mem_bwd b;
    memset(&b, 0, sizeof b);
    b.head_dim = b.head_dim_value = 64;
    b.num_queries = b.num_keys = 256, b.num_heads = 4, b.q_heads_per_kv = 2;
    b.custom_mask_type = 2, b.num_batches = 2, b.num_splits_key = 1;
    assert_int_equal(mem(FC_KF_MEMEFF_BWD, MEM_BWD, &b, 0, 1, 4, 2, &a, why), 0);
    assert_int_equal(a.h_k, 2);
    assert_int_equal(a.align, FC_ATTN_BOTTOM_RIGHT);
    assert_int_equal(mem(FC_KF_MEMEFF_BWD, MEM_BWD, &b, 464, 1, 4, 2, &a, why), 0);
    assert_int_equal(mem(FC_KF_MEMEFF_BWD, MEM_BWD, &b, 456, 1, 4, 2, &a, why), -1);
    t_mem_bwd_old o;
    memset(&o, 0, sizeof o);
    o.head_dim = o.head_dim_value = 64;
    o.num_queries = o.num_keys = 256, o.num_heads = 4;
    o.custom_mask_type = 1, o.num_batches = 2, o.num_splits_key = 1;
    assert_int_equal(mem(FC_KF_MEMEFF_BWD, MEM_BWD, &o, 0, 1, 4, 2, &a, why), 0);
    assert_int_equal(a.h_k, 4);
    assert_int_equal(a.align, FC_ATTN_TOP_LEFT);
    o.window_size = 128;
    assert_int_equal(mem(FC_KF_MEMEFF_BWD, MEM_BWD, &o, 456, 1, 4, 2, &a, why), -1);
    assert_non_null(strstr(why, "sliding window"));
}

/* PyTorch 2.15's Params (torch 2.15.0+cu132), fields at the offsets read off
 * its real launches on the null GPU with distinct batches, heads, kv heads,
 * lengths, mask and dropout (docs/nullgpu-pytorch.md); sizes 280 and 480
 * bytes, as the null GPU's cuFuncGetParamInfo reads them off the cubins */
static void put32(uint8_t *p, int off, int32_t v)
{
    memcpy(p + off, &v, sizeof v);
}

static void memeff_pt215(void **state)
{
    (void)state;
    fc_attn a;
    char why[256];
    _Alignas(8) uint8_t f[280];
    memset(f, 0, sizeof f);
    put32(f, 96, 64), put32(f, 100, 64);   /* head_dim, head_dim_value */
    put32(f, 104, 200), put32(f, 108, 300); /* num_queries, num_keys */
    f[116] = 1;                             /* custom_mask_type: causal, top left */
    put32(f, 192, 2), put32(f, 204, 6);     /* num_batches, num_heads */
    put32(f, 208, 3);                       /* q_heads_per_kv */
    assert_int_equal(mem(FC_KF_MEMEFF_FWD, MEM_FWD, f, 280, 4, 6, 2, &a, why), 0);
    assert_int_equal(a.b, 2);
    assert_int_equal(a.h, 6);
    assert_int_equal(a.h_k, 2);
    assert_int_equal(a.s_q, 200);
    assert_int_equal(a.s_k, 300);
    assert_int_equal(a.align, FC_ATTN_TOP_LEFT);
    assert_false(a.flags & FC_ATTN_DROPOUT);
    assert_int_equal(mem(FC_KF_MEMEFF_FWD, MEM_FWD, f, 0, 4, 6, 2, &a, why), 0); /* size unknown */
    assert_int_equal(a.h_k, 2);
    /* the size names the layout: 272 bytes is the older one, whose fields here do not fit */
    assert_int_equal(mem(FC_KF_MEMEFF_FWD, MEM_FWD, f, 272, 4, 6, 2, &a, why), -1);
    f[212] = 1; /* use_dropout */
    assert_int_equal(mem(FC_KF_MEMEFF_FWD, MEM_FWD, f, 280, 4, 6, 2, &a, why), 0);
    assert_true(a.flags & FC_ATTN_DROPOUT);
    put32(f, 208, 4); /* 6 heads over kv groups of 4: refused */
    assert_int_equal(mem(FC_KF_MEMEFF_FWD, MEM_FWD, f, 280, 4, 6, 2, &a, why), -1);
    put32(f, 208, 3);
    put32(f, 88, 128); /* window_size */
    assert_int_equal(mem(FC_KF_MEMEFF_FWD, MEM_FWD, f, 280, 4, 6, 2, &a, why), -1);
    assert_non_null(strstr(why, "sliding window"));
    _Alignas(8) uint8_t b[480];
    memset(b, 0, sizeof b);
    put32(b, 144, 64), put32(b, 148, 64);   /* head_dim, head_dim_value */
    put32(b, 152, 256), put32(b, 156, 256); /* num_queries, num_keys */
    put32(b, 160, 4), put32(b, 164, 2);     /* num_heads, q_heads_per_kv */
    b[168] = 2;                             /* custom_mask_type: causal, bottom right */
    put32(b, 384, 2);                       /* num_batches */
    int16_t splits = 3;                     /* num_splits_key */
    memcpy(b + 396, &splits, sizeof splits);
    assert_int_equal(mem(FC_KF_MEMEFF_BWD, MEM_BWD, b, 0, 3, 4, 2, &a, why), 0);
    assert_int_equal(a.b, 2);
    assert_int_equal(a.h_k, 2);
    assert_int_equal(a.align, FC_ATTN_BOTTOM_RIGHT);
    assert_int_equal(mem(FC_KF_MEMEFF_BWD, MEM_BWD, b, 480, 3, 4, 2, &a, why), 0);
    assert_int_equal(mem(FC_KF_MEMEFF_BWD, MEM_BWD, b, 464, 3, 4, 2, &a, why), -1); /* older */
    assert_int_equal(mem(FC_KF_MEMEFF_BWD, MEM_BWD, b, 0, 1, 4, 2, &a, why), -1); /* grid */
}

/* ---- the registry ---- */

/* distinct addresses (elements of one array: no neighbour aliases) */
static char keys[8];
#define stub_a keys[0]
#define stub_b keys[1]
#define stub_c keys[2]
#define handle_a keys[3]
#define cufn keys[5]
static int module_1, module_2;

static void registry(void **state)
{
    (void)state;
    fc_launch_register(&module_1, &stub_a, PT25_FWD);
    fc_launch_register(&module_1, &stub_b, "_Z10vector_addPfPKfi");
    fc_launch_register(&module_1, &stub_c, PT25_COMBINE);
    uint32_t r = fc_launch_find(&stub_a);
    assert_true(r >= 1 && r <= FC_LAUNCH_KERNELS);
    assert_int_equal(fc_launch_kernels[r - 1].family, FC_KF_FA2_FWD);
    assert_int_equal(fc_launch_find(&stub_b), 0); /* not of interest */
    assert_int_equal(fc_launch_find(&stub_c), 0); /* no products */
    fc_launch_alias(&handle_a, &stub_a);
    assert_int_equal(fc_launch_find(&handle_a), r);
    fc_launch_alias(&keys[4], &stub_b); /* an uninteresting stub's handle: not kept */
    assert_int_equal(fc_launch_find(&keys[4]), 0);
    /* a launch callback's CUfunction, learned once either way */
    assert_int_equal(fc_launch_learn(&cufn, "triton_poi_fused_add_0"), 0);
    assert_int_equal(fc_launch_find(&cufn), FC_LAUNCH_NOT_OF_INTEREST);
    uint32_t t = fc_launch_learn(&keys[6], "triton_tem_fused_mm_0");
    assert_true(t >= 1 && t != r);
    assert_int_equal(fc_launch_find(&keys[6]), t);
    /* the module goes; a new one registered at the same stub address
     * takes its place */
    fc_launch_unregister_module(&module_1);
    assert_int_equal(fc_launch_kernels[r - 1].dead, 1);
    fc_launch_register(&module_2, &stub_a, MEM_FWD);
    uint32_t n = fc_launch_find(&stub_a);
    assert_true(n != r && n != 0);
    assert_int_equal(fc_launch_kernels[n - 1].family, FC_KF_MEMEFF_FWD);
    fc_launch_reg_stats st;
    fc_launch_reg_stats_get(&st);
    assert_int_equal(st.registrations, 4);
    assert_int_equal(st.of_interest, 3);
    assert_int_equal(st.learned, 1);
    assert_int_equal(st.unregistered, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(families_of_real_names),
        cmocka_unit_test(mangled_reader),
        cmocka_unit_test(fa2_layouts),
        cmocka_unit_test(fa2_decodes),
        cmocka_unit_test(fa2_head_dims),
        cmocka_unit_test(foreign_parameter),
        cmocka_unit_test(fa2_defence),
        cmocka_unit_test(memeff_decodes),
        cmocka_unit_test(memeff_pt215),
        cmocka_unit_test(registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
