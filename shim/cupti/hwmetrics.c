/* SPDX-License-Identifier: Apache-2.0 */
/* hwmetrics.c - the counter table and the one-pass choice (hwmetrics.h).
 *
 * Counter names differ between chip families (checked offline with the
 * CUDA 13 host API): GA100 and AD10x split fp16 by accumulator type
 * (..._src_fp16_dst_fp32 / _dst_fp16), GH100 has one ..._src_fp16 that
 * alone needs two passes but per-instruction forms (..._op_hgmma_src_fp16)
 * that fit one; GB100 counts fp8, fp6 and fp4 inputs in one
 * ..._src_fp4_fp6_fp8_dst_* counter, GB20x has ..._src_fp8_dst_*; on GB100
 * several counters (tf32, int8, the fp8 one) need two passes alone while
 * their ..._realtime forms fit one. Each type lists alternatives, best
 * first; the first whose counters all exist on the chip and keep the whole
 * set at one pass is taken. A type none of
 * whose alternatives fits is left out, and said so. Pass counts come from
 * the host API itself (cuptiProfilerHostGetNumOfPasses), never assumed. */
#include "hwmetrics.h"

#include <stdio.h>
#include <string.h>

#include "dtype.h"

#define ALTS 6
#define PER_ALT 3

typedef struct alt {
    const char *metric[PER_ALT]; /* NULL-terminated */
    double scale[PER_ALT];
    const char *partial; /* NULL: counts the type fully */
} alt;

typedef struct hwtype {
    const char *name;
    int flop; /* floating point (in the FLOPs total) */
    alt alts[ALTS];
} hwtype;

#define T "sm__ops_path_tensor_src_"
static const hwtype types[FC_HW_COUNT] = {
    [FC_HW_BF16] = {"bf16",
                    1,
                    {{{T "bf16_dst_fp32.sum"}, {1}, NULL},
                     {{T "bf16_dst_fp32_realtime.sum"}, {1}, NULL}}},
    [FC_HW_FP16] =
        {"fp16",
         1,
         {{{T "fp16_dst_fp32.sum", T "fp16_dst_fp16.sum"}, {1, 1}, NULL},
          {{T "fp16_dst_fp32.sum", T "fp16_dst_fp16_realtime.sum"}, {1, 1}, NULL},
          {{T "fp16.sum"}, {1}, NULL},
          {{T "fp16_dst_fp32.sum"}, {1}, "fp16 GEMMs accumulating in fp16 are not counted"},
          {{"sm__ops_path_tensor_op_hgmma_src_fp16.sum"},
           {1},
           "only warpgroup (HGMMA) kernels are counted, not mma.sync ones"}}},
    [FC_HW_TF32] = {"tf32",
                    1,
                    {{{T "tf32_dst_fp32.sum"}, {1}, NULL},
                     {{T "tf32_dst_fp32_realtime.sum"}, {1}, NULL}}},
    [FC_HW_FP8] = {"fp8",
                   1,
                   {{{T "fp8.sum"}, {1}, NULL},
                    {{T "fp8_dst_fp32.sum", T "fp8_dst_fp16.sum"}, {1, 1}, NULL},
                    {{T "fp4_fp6_fp8_dst_fp32.sum", T "fp4_fp6_fp8_dst_fp16.sum"},
                     {1, 1},
                     "the counter takes fp8, fp6 and fp4 inputs together"},
                    {{T "fp4_fp6_fp8_dst_fp32_realtime.sum", T "fp4_fp6_fp8_dst_fp16.sum"},
                     {1, 1},
                     "the counter takes fp8, fp6 and fp4 inputs together"},
                    {{T "fp4_fp6_fp8_dst_fp32_realtime.sum"},
                     {1},
                     "fp8, fp6 and fp4 inputs together; fp16 accumulation not counted"}}},
    [FC_HW_FP4] = {"fp4", 1, {{{T "fp4_dst_fp32.sum"}, {1}, NULL}}},
    [FC_HW_INT8] = {"int8", 0, {{{T "int8.sum"}, {1}, NULL}, {{T "int8_realtime.sum"}, {1}, NULL}}},
    [FC_HW_FP64_TENSOR] = {"fp64_tensor", 1, {{{T "fp64.sum"}, {1}, NULL}}},
    [FC_HW_FP32_CORE] = {"fp32_cuda_core",
                         1,
                         {{{"sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
                            "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
                            "sm__sass_thread_inst_executed_op_fmul_pred_on.sum"},
                           {2, 1, 1},
                           NULL}}},
    [FC_HW_FP64_CORE] = {"fp64_cuda_core",
                         1,
                         {{{"sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
                            "sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
                            "sm__sass_thread_inst_executed_op_dmul_pred_on.sum"},
                           {2, 1, 1},
                           NULL}}},
    [FC_HW_FP16_CORE] = {"fp16_cuda_core",
                         1,
                         {{{"sm__sass_thread_inst_executed_op_hfma_pred_on.sum",
                            "sm__sass_thread_inst_executed_op_hadd_pred_on.sum",
                            "sm__sass_thread_inst_executed_op_hmul_pred_on.sum"},
                           {2, 1, 1},
                           "counts instructions: a packed half2 instruction does twice the FLOPs "
                           "counted"}}},
};
#undef T

const char *fc_hwtype_name(int t)
{
    return t >= 0 && t < FC_HW_COUNT ? types[t].name : "unknown";
}

int fc_hwtype_is_flop(int t)
{
    return t >= 0 && t < FC_HW_COUNT && types[t].flop;
}

/* The types tried first for a GEMM dtype. */
static int types_of_dtype(int dt, int out[2])
{
    switch (dt) {
    case FC_DT_BF16:
        out[0] = FC_HW_BF16;
        return 1;
    case FC_DT_FP16:
        out[0] = FC_HW_FP16;
        return 1;
    case FC_DT_TF32:
        out[0] = FC_HW_TF32;
        return 1;
    case FC_DT_FP8_E4M3:
    case FC_DT_FP8_E5M2:
        out[0] = FC_HW_FP8;
        return 1;
    case FC_DT_FP4_E2M1:
        out[0] = FC_HW_FP4;
        return 1;
    case FC_DT_INT8:
        out[0] = FC_HW_INT8;
        return 1;
    case FC_DT_FP32:
    case FC_DT_COMPLEX64:
        out[0] = FC_HW_FP32_CORE;
        return 1;
    case FC_DT_FP64:
    case FC_DT_COMPLEX128:
        out[0] = FC_HW_FP64_TENSOR;
        out[1] = FC_HW_FP64_CORE;
        return 2;
    default:
        return 0;
    }
}

static const int default_order[] = {FC_HW_BF16,      FC_HW_FP8,         FC_HW_TF32, FC_HW_FP16,
                                    FC_HW_FP32_CORE, FC_HW_FP64_TENSOR, FC_HW_INT8, FC_HW_FP4,
                                    FC_HW_FP64_CORE, FC_HW_FP16_CORE};

static int host_init(const fc_cupti_fns *cu, int type, const char *chip, const uint8_t *avail,
                     CUpti_Profiler_Host_Object **obj)
{
    CUpti_Profiler_Host_Initialize_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    p.profilerType = (CUpti_ProfilerType)type;
    p.pChipName = chip;
    p.pCounterAvailabilityImage = avail;
    if (cu->HostInitialize(&p) != CUPTI_SUCCESS)
        return -1;
    *obj = p.pHostObject;
    return 0;
}

static void host_fini(const fc_cupti_fns *cu, CUpti_Profiler_Host_Object *obj)
{
    CUpti_Profiler_Host_Deinitialize_Params p;
    memset(&p, 0, sizeof p);
    p.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
    p.pHostObject = obj;
    cu->HostDeinitialize(&p);
}

size_t fc_hw_config(const fc_cupti_fns *cu, int profiler_type, const char *chip,
                    const uint8_t *avail, const char *const *metrics, int n, uint8_t *img,
                    size_t img_size, size_t *img_len)
{
    static uint8_t scratch[1 << 16];
    CUpti_Profiler_Host_Object *obj = NULL;
    size_t passes = 0;
    if (host_init(cu, profiler_type, chip, avail, &obj) != 0)
        return 0;
    CUpti_Profiler_Host_ConfigAddMetrics_Params a;
    memset(&a, 0, sizeof a);
    a.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
    a.pHostObject = obj;
    a.ppMetricNames = (const char **)metrics;
    a.numMetrics = (size_t)n;
    CUpti_Profiler_Host_GetConfigImageSize_Params s;
    memset(&s, 0, sizeof s);
    s.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    s.pHostObject = obj;
    if (img == NULL) {
        img = scratch;
        img_size = sizeof scratch;
    }
    if (cu->HostConfigAddMetrics(&a) == CUPTI_SUCCESS &&
        cu->HostGetConfigImageSize(&s) == CUPTI_SUCCESS && s.configImageSize <= img_size) {
        CUpti_Profiler_Host_GetConfigImage_Params g;
        memset(&g, 0, sizeof g);
        g.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
        g.pHostObject = obj;
        g.configImageSize = s.configImageSize;
        g.pConfigImage = img;
        CUpti_Profiler_Host_GetNumOfPasses_Params np;
        memset(&np, 0, sizeof np);
        np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
        np.configImageSize = s.configImageSize;
        np.pConfigImage = img;
        if (cu->HostGetConfigImage(&g) == CUPTI_SUCCESS &&
            cu->HostGetNumOfPasses(&np) == CUPTI_SUCCESS) {
            passes = np.numOfPasses;
            if (img_len != NULL)
                *img_len = s.configImageSize;
        }
    }
    host_fini(cu, obj);
    return passes;
}

/* 1 when every counter of a exists on the chip (base names lack ".sum"). */
static int alt_exists(const alt *a, const char *const *base, size_t n_base)
{
    for (int m = 0; m < PER_ALT && a->metric[m]; m++) {
        size_t len = strlen(a->metric[m]) - 4; /* ".sum" */
        int found = 0;
        for (size_t i = 0; i < n_base && !found; i++)
            found = strlen(base[i]) == len && strncmp(base[i], a->metric[m], len) == 0;
        if (!found)
            return 0;
    }
    return 1;
}

static int base_metrics(const fc_cupti_fns *cu, int type, const char *chip, const uint8_t *avail,
                        CUpti_Profiler_Host_Object **obj, const char *const **names, size_t *n)
{
    if (host_init(cu, type, chip, avail, obj) != 0)
        return -1;
    CUpti_Profiler_Host_GetBaseMetrics_Params b;
    memset(&b, 0, sizeof b);
    b.structSize = CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE;
    b.pHostObject = *obj;
    b.metricType = CUPTI_METRIC_TYPE_COUNTER;
    if (cu->HostGetBaseMetrics(&b) != CUPTI_SUCCESS) {
        host_fini(cu, *obj);
        return -1;
    }
    *names = (const char *const *)b.ppMetricNames;
    *n = b.numMetrics;
    return 0;
}

int fc_hw_choose(const fc_cupti_fns *cu, int profiler_type, const char *chip, const uint8_t *avail,
                 int first_dtype, fc_hw_choice *out)
{
    memset(out, 0, sizeof *out);
    if (cu->HostInitialize == NULL || cu->HostGetBaseMetrics == NULL ||
        cu->HostConfigAddMetrics == NULL || cu->HostGetNumOfPasses == NULL) {
        snprintf(out->error, sizeof out->error, "this CUPTI has no profiler host API (CUDA 12.6+)");
        return -1;
    }
    CUpti_Profiler_Host_Object *obj = NULL;
    const char *const *base = NULL;
    size_t n_base = 0;
    if (base_metrics(cu, profiler_type, chip, avail, &obj, &base, &n_base) != 0) {
        snprintf(out->error, sizeof out->error, "the profiler host API does not know chip %.40s",
                 chip);
        return -1;
    }
    int order[FC_HW_COUNT + 2], n_order = types_of_dtype(first_dtype, order),
                                done[FC_HW_COUNT] = {0};
    for (size_t i = 0; i < sizeof default_order / sizeof default_order[0]; i++)
        order[n_order++] = default_order[i];
    for (int oi = 0; oi < n_order; oi++) {
        int t = order[oi];
        if (done[t])
            continue;
        done[t] = 1;
        out->left_out[t] = 1; /* until an alternative fits */
        out->note[t] = "no counter for it on this chip";
        for (int ai = 0; ai < ALTS && types[t].alts[ai].metric[0]; ai++) {
            const alt *a = &types[t].alts[ai];
            if (!alt_exists(a, base, n_base))
                continue;
            int n = out->n_metrics, k = 0;
            for (; k < PER_ALT && a->metric[k] && n + k < FC_HW_MAX_METRICS; k++)
                out->metric[n + k] = a->metric[k];
            size_t passes =
                fc_hw_config(cu, profiler_type, chip, avail, out->metric, n + k, NULL, 0, NULL);
            if (passes != 1) {
                out->left_out[t] = passes == 0 ? 3 : 2;
                out->note[t] = passes == 0 ? "its configuration could not be built"
                                           : "it would need a second pass";
                continue;
            }
            for (int j = 0; j < k; j++) {
                out->metric_type[n + j] = t;
                out->metric_scale[n + j] = a->scale[j];
            }
            out->n_metrics = n + k;
            out->left_out[t] = 0;
            out->covered[t] = a->partial ? 2 : 1;
            out->note[t] = a->partial;
            break;
        }
    }
    host_fini(cu, obj);
    out->passes = out->n_metrics > 0 ? 1 : 0;
    return 0;
}
