/* SPDX-License-Identifier: Apache-2.0 */
/* peak.c - the dense peak table (TFLOP/s per device and dtype, each row with
 * its source) and the matching of driver-reported device names to rows.
 *
 * Every figure is DENSE. Vendor data sheets print tensor figures with 2:4
 * structured sparsity (marked '*'); those are halved here, because a GEMM
 * counted by flopcount is dense. An unknown device is never mapped to a
 * "close" one: peers that fall back to A100 report MFU above 100%. */
#include "peak.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Columns in a fixed order so each row reads like the data sheet. Both FP8
 * formats (E4M3, E5M2) run at one rate, as do both FP6 formats; no sheet
 * gives them apart. */
#define ROW6(f64, f64tc, f32, tf32, f16, bf16, fp8, fp6, fp4, i8)                                  \
    {                                                                                              \
        [FC_DT_FP64] = f64, [FC_DT_FP64_TENSOR] = f64tc, [FC_DT_FP32] = f32, [FC_DT_TF32] = tf32,  \
        [FC_DT_FP16] = f16, [FC_DT_BF16] = bf16, [FC_DT_FP8_E4M3] = fp8, [FC_DT_FP8_E5M2] = fp8,   \
        [FC_DT_FP6_E2M3] = fp6, [FC_DT_FP6_E3M2] = fp6, [FC_DT_FP4_E2M1] = fp4, [FC_DT_INT8] = i8, \
    }
/* A device without FP6 (every one before Blackwell). */
#define ROW(f64, f64tc, f32, tf32, f16, bf16, fp8, fp4, i8)                                        \
    ROW6(f64, f64tc, f32, tf32, f16, bf16, fp8, 0, fp4, i8)

/* Hopper at the SXM clocks: 132 SMs x 4096 FLOP/clk/SM x 1.83 GHz = 989.4. */
#define HOPPER_SXM ROW(34, 67, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9)
#define HOPPER_NVL ROW(30, 60, 60, 417.5, 835.5, 835.5, 1670.5, 0, 1670.5)

static const fc_peak_device table[] = {
    {"V100-SXM2", "NVIDIA Tesla V100 SXM2", ROW(7.8, 0, 15.7, 0, 125, 0, 0, 0, 0), 1024,
     "NVIDIA V100 Tensor Core GPU data sheet (SXM2): FP64 7.8, FP32 15.7, Tensor 125 TFLOPS; no "
     "BF16/TF32/INT8 tensor"},
    {"V100-PCIe", "NVIDIA Tesla V100 PCIe", ROW(7, 0, 14, 0, 112, 0, 0, 0, 0), 1024,
     "NVIDIA V100 Tensor Core GPU data sheet (PCIe): FP64 7, FP32 14, Tensor 112 TFLOPS"},
    {"A100-SXM", "NVIDIA A100 SXM4", ROW(9.7, 19.5, 19.5, 156, 312, 312, 0, 0, 624), 2048,
     "NVIDIA A100 Tensor Core GPU data sheet: TF32 156|312*, BF16/FP16 312|624*, INT8 624|1248* (* "
     "sparse); 40GB and 80GB alike"},
    {"A100-PCIe", "NVIDIA A100 PCIe", ROW(9.7, 19.5, 19.5, 156, 312, 312, 0, 0, 624), 2048,
     "NVIDIA A100 Tensor Core GPU data sheet, PCIe column (same figures as SXM; lower sustained "
     "power)"},
    {"A10", "NVIDIA A10", ROW(0, 0, 31.2, 62.5, 125, 125, 0, 0, 250), 1024,
     "NVIDIA A10 Tensor Core GPU data sheet: FP32 31.2, TF32 62.5|125*, BF16/FP16 125|250*, INT8 "
     "250|500* (* sparse)"},
    {"A10G", "NVIDIA A10G (AWS G5)", ROW(0, 0, 35, 35, 70, 70, 0, 0, 140), 512,
     "No public NVIDIA data sheet; AWS G5 figures as tabulated by Baseten, 'NVIDIA A10 vs A10G "
     "for ML model inference': FP32 35, TF32 35, BF16/FP16 70, INT8 140 dense (= 80 SMs x 512 "
     "FLOP/clk x 1.71 GHz)"},
    {"L4", "NVIDIA L4", ROW(0, 0, 30.3, 60, 121, 121, 242.5, 0, 242.5), 1024,
     "NVIDIA L4 data sheet: FP32 30.3, TF32 120*, BF16/FP16 242*, FP8 485*, INT8 485* (* sparse, "
     "halved)"},
    {"L40", "NVIDIA L40", ROW(0, 0, 90.5, 90.5, 181.05, 181.05, 362, 0, 362), 512,
     "NVIDIA L40 data sheet: FP32 90.5, TF32 90.5|181*, BF16/FP16 181.05|362.1*, FP8 362|724*, "
     "INT8 362|724*"},
    {"L40S", "NVIDIA L40S", ROW(0, 0, 91.6, 183, 362.05, 362.05, 733, 0, 733), 1024,
     "NVIDIA L40S data sheet: FP32 91.6, TF32 183|366*, BF16/FP16 362.05|733*, FP8 733|1466*, INT8 "
     "733|1466*"},
    {"RTX-3090", "NVIDIA GeForce RTX 3090", ROW(0.556, 0, 35.6, 35.6, 71, 71, 0, 0, 284), 512,
     "NVIDIA Ampere GA102 whitepaper, appendix A (RTX 3090): FP32 35.6, TF32 35.6|71*, FP16/BF16 "
     "with FP32 "
     "accumulate 71|142*, INT8 284|568*; FP64 = FP32/64"},
    {"RTX-4090", "NVIDIA GeForce RTX 4090", ROW(1.3, 0, 82.6, 82.6, 165.2, 165.2, 330.3, 0, 660.6),
     512,
     "NVIDIA Ada Lovelace whitepaper, appendix (RTX 4090): FP32 82.6, TF32 82.6, FP16/BF16 165.2 "
     "and FP8 330.3 "
     "with FP32 accumulate, INT8 660.6 (dense); FP64 = FP32/64"},
    {"H100-SXM", "NVIDIA H100 SXM", HOPPER_SXM, 4096,
     "NVIDIA H100 Tensor Core GPU data sheet (SXM): FP64 34, FP64 TC 67, FP32 67, TF32 989*, "
     "BF16/FP16 1979*, "
     "FP8 3958*, INT8 3958* (* sparse, halved; 989.4 = 132 SMs x 4096 x 1.83 GHz)"},
    {"H100-PCIe", "NVIDIA H100 PCIe", ROW(26, 51, 51, 378, 756.5, 756.5, 1513, 0, 1513), 4096,
     "NVIDIA H100 Tensor Core GPU data sheet (PCIe): FP64 26, FP64 TC 51, FP32 51, TF32 756*, "
     "BF16/FP16 1513*, "
     "FP8 3026*, INT8 3026* (* sparse, halved)"},
    {"H100-NVL", "NVIDIA H100 NVL", HOPPER_NVL, 4096,
     "NVIDIA H100 Tensor Core GPU data sheet (NVL): FP64 30, FP64 TC 60, FP32 60, TF32 835*, "
     "BF16/FP16 1671*, "
     "FP8 3341*, INT8 3341* (* sparse, halved)"},
    {"H200-SXM", "NVIDIA H200 SXM", HOPPER_SXM, 4096,
     "NVIDIA H200 Tensor Core GPU data sheet (SXM): compute as H100 SXM; FP64 34, FP64 TC 67, FP32 "
     "67, TF32 989*, "
     "BF16/FP16 1979*, FP8 3958*, INT8 3958* (* sparse, halved)"},
    {"H200-NVL", "NVIDIA H200 NVL", HOPPER_NVL, 4096,
     "NVIDIA H200 Tensor Core GPU data sheet (NVL): FP64 30, FP64 TC 60, FP32 60, TF32 835*, "
     "BF16/FP16 1671*, "
     "FP8 3341*, INT8 3341* (* sparse, halved)"},
    {"GH200", "NVIDIA GH200 Grace Hopper (GPU)", HOPPER_SXM, 4096,
     "NVIDIA GH200 Grace Hopper Superchip data sheet, GPU part: FP64 34, FP64 TC 67, FP32 67, TF32 "
     "989*, "
     "BF16/FP16 1979*, FP8 3958*, INT8 3958* (* sparse, halved)"},
    {"B200", "NVIDIA B200 (HGX)", ROW6(37, 37, 75, 1100, 2250, 2250, 4500, 4500, 9000, 4500), 0,
     "NVIDIA HGX B200 specifications, per GPU: FP64/FP64 TC 37, FP32 75, TF32 2.2P*, BF16/FP16 "
     "4.5P*, FP8/FP6 9P*, INT8 9P*, FP4 18P* (* sparse, halved)"},
    {"GB200", "NVIDIA GB200 (per GPU)",
     ROW6(40, 40, 80, 1250, 2500, 2500, 5000, 5000, 10000, 5000), 0,
     "NVIDIA GB200 NVL72 specifications, per Blackwell GPU: FP64/FP64 TC 40, FP32 80, TF32 2.5P*, "
     "BF16/FP16 5P*, FP8/FP6 10P*, INT8 10P*, FP4 20P* (* sparse, halved)"},
    {"H800-SXM", "NVIDIA H800 SXM", ROW(1, 1, 67, 494.7, 989.4, 989.4, 1978.9, 0, 1978.9), 4096,
     "NVIDIA H800 Tensor Core GPU data sheet (SXM): FP64 1, FP64 TC 1, FP32 67, TF32 989*, "
     "BF16/FP16 1979*, FP8 3958*, INT8 3958* (* sparse, halved); H100 SXM compute, FP64 cut"},
    {"H800-PCIe", "NVIDIA H800 PCIe", ROW(0.8, 0.8, 51, 378, 756.5, 756.5, 1513, 0, 1513), 4096,
     "NVIDIA H800 Tensor Core GPU data sheet (PCIe): FP64 0.8, FP64 TC 0.8, FP32 51, TF32 756*, "
     "BF16/FP16 1513*, FP8 3026*, INT8 3026* (* sparse, halved); H100 PCIe compute, FP64 cut"},
    {"A800", "NVIDIA A800 (SXM4, PCIe, 40GB Active)", ROW(9.7, 19.5, 19.5, 156, 312, 312, 0, 0, 624),
     2048,
     "NVIDIA A800 data sheets (80GB PCIe, 40GB Active; the SXM4 part as A100 SXM): FP64 9.7, FP64 "
     "TC 19.5, FP32 19.5, TF32 156|312*, BF16/FP16 312|624*, INT8 624|1248*; A100 compute, NVLink cut"},
    {"H20", "NVIDIA H20", ROW(1, 1, 44, 74, 148, 148, 296, 0, 296), 0,
     "No public NVIDIA data sheet (China-only part); dense figures as given in partner specification "
     "sheets and press reports (late 2023): FP64 1, FP32 44, TF32 74, BF16/FP16 148, FP8 296, INT8 "
     "296 - uncertain, see docs/peak.md"},
    {"L20", "NVIDIA L20", ROW(0, 0, 59.8, 59.8, 119.5, 119.5, 239, 0, 239), 0,
     "NVIDIA L20 data sheet: FP32 59.8, TF32 59.8|119.5*, BF16/FP16 119.5|239*, FP8 239|478*, INT8 "
     "239|478* (dense|sparse) - uncertain, see docs/peak.md"},
    {"T4", "NVIDIA Tesla T4", ROW(0, 0, 8.1, 0, 65, 0, 0, 0, 130), 1024,
     "NVIDIA T4 data sheet: FP32 8.1, mixed precision FP16/FP32 65, INT8 130 TOPS, INT4 260 (Turing: "
     "no sparsity, no BF16/TF32; FP64 not given)"},
    {"V100S", "NVIDIA Tesla V100S PCIe", ROW(8.2, 0, 16.4, 0, 130, 0, 0, 0, 0), 1024,
     "NVIDIA V100S data sheet (PCIe 32GB): FP64 8.2, FP32 16.4, Tensor 130 TFLOPS"},
    {"RTX-3090-Ti", "NVIDIA GeForce RTX 3090 Ti", ROW(0.625, 0, 40, 40, 80, 80, 0, 0, 320), 512,
     "No NVIDIA table: derived from the GeForce RTX 3090 Ti specifications (10752 CUDA cores = 84 "
     "SMs, boost 1.86 GHz) and the GA102 whitepaper's per-SM rates (RTX 3090: 71 FP16/BF16 with FP32 "
     "accumulate on 82 SMs at 1.695 GHz = 512 FLOP/clk/SM): FP32 40, TF32 40, FP16/BF16 80, INT8 "
     "320; FP64 = FP32/64"},
    {"RTX-4090-D", "NVIDIA GeForce RTX 4090 D", ROW(1.149, 0, 73.5, 73.5, 147.1, 147.1, 294.2, 0, 588.3),
     512,
     "No NVIDIA table: derived from the GeForce RTX 4090 D specifications (14592 CUDA cores = 114 "
     "SMs, boost 2.52 GHz, 1177 AI TOPS = FP8 sparse) and the Ada whitepaper's RTX 4090 per-SM "
     "rates, FP32 accumulate: FP32 73.5, TF32 73.5, FP16/BF16 147.1, FP8 294.2, INT8 588.3; FP64 = "
     "FP32/64"},
    {"RTX-6000-Ada", "NVIDIA RTX 6000 Ada Generation",
     ROW(1.423, 0, 91.1, 182.1, 364.2, 364.2, 728.5, 0, 728.5), 1024,
     "NVIDIA RTX 6000 Ada data sheet (FP32 91.1, Tensor 1457* = FP8 sparse) and Ada whitepaper: "
     "TF32 182.1|364.2*, FP16/BF16 with FP32 accumulate 364.2|728.5*, FP8 728.5|1457*, INT8 "
     "728.5|1457*; FP64 = FP32/64"},
    {"MI300X", "AMD Instinct MI300X",
     ROW(81.7, 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 0, 2614.9), 2048,
     "AMD Instinct MI300X data sheet: FP64 vector 81.7, FP64 matrix 163.4, FP32 163.4, TF32 653.7, "
     "BF16/FP16 "
     "1307.4, FP8 2614.9, INT8 2614.9 (dense; sparse doubles); per-CU rate: 304 CUs x 2048 x 2.1 "
     "GHz"},
    {"MI325X", "AMD Instinct MI325X",
     ROW(81.7, 163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 0, 2614.9), 2048,
     "AMD Instinct MI325X data sheet: FP64 vector 81.7, FP64 matrix 163.4, FP32 163.4, TF32 653.7, "
     "BF16/FP16 1307.4, FP8 2614.9, INT8 2614.9 (dense; sparse doubles); MI300X compute, more HBM"},
    {"MI250X", "AMD Instinct MI250X (one GCD)", ROW(23.95, 47.85, 47.85, 0, 191.5, 191.5, 0, 0, 191.5),
     1024,
     "AMD Instinct MI250X data sheet, per package of two GCDs: FP64 vector 47.9, FP64/FP32 matrix "
     "95.7, FP16/BF16 383, INT8 383 (no TF32, no FP8); halved here: each GCD is one device"},
    {"B100", "NVIDIA B100 (HGX)", ROW6(30, 30, 60, 900, 1750, 1750, 3500, 3500, 7000, 3500), 0,
     "NVIDIA Blackwell specifications, B100 per GPU: FP64/FP64 TC 30, FP32 60, TF32 1.8P*, "
     "BF16/FP16 3.5P*, FP8/FP6 7P*, INT8 7P*, FP4 14P* (* sparse, halved) - uncertain, see "
     "docs/peak.md"},
    {"B300", "NVIDIA B300 (HGX)", ROW6(1.25, 1.25, 75, 1125, 2250, 2250, 4500, 4500, 13500, 0),
     0,
     "NVIDIA HGX B300 specifications, 8 GPUs, per GPU: FP64/FP64 TC 1.25, FP32 75, TF32 2.25P*, "
     "BF16/FP16 4.5P*, FP8/FP6 9P*, FP4 13.5P dense (* sparse, halved); INT8 not given "
     "consistently: refused"},
    {"GB300", "NVIDIA GB300 (per GPU)",
     ROW6(1.389, 1.389, 80, 1250, 2500, 2500, 5000, 5000, 15000, 0), 0,
     "NVIDIA GB300 NVL72 specifications, 72 GPUs, per GPU: FP64/FP64 TC 1.39, FP32 80, TF32 2.5P*, "
     "BF16/FP16 5P*, FP8/FP6 10P*, FP4 15P dense (* sparse, halved); INT8 not given "
     "consistently: refused"},
};

#define NDEV ((int)(sizeof table / sizeof table[0]))

int fc_peak_count(void)
{
    return NDEV;
}

const fc_peak_device *fc_peak_get(int i)
{
    return i >= 0 && i < NDEV ? &table[i] : NULL;
}

static const fc_peak_device *by_key(const char *key)
{
    for (int i = 0; i < NDEV; i++)
        if (strcasecmp(table[i].key, key) == 0)
            return &table[i];
    return NULL;
}

/* A driver name as lower-case words split at anything not a letter or digit:
 * "NVIDIA A100-SXM4-80GB" -> nvidia a100 sxm4 80gb. Matching whole words is
 * what keeps "L40" from matching "L40S", "A10" from "A10G", "V100" from
 * "V100S" and "3090" from "3090 Ti". */
#define MAX_WORDS 16
#define WORD_LEN 24

typedef struct words {
    int n;
    char w[MAX_WORDS][WORD_LEN];
} words;

static void split(const char *s, words *out)
{
    out->n = 0;
    while (*s && out->n < MAX_WORDS) {
        while (*s && !isalnum((unsigned char)*s))
            s++;
        if (!*s)
            break;
        size_t len = 0;
        char *dst = out->w[out->n];
        for (; isalnum((unsigned char)*s); s++) {
            if (len < WORD_LEN - 1)
                dst[len] = (char)tolower((unsigned char)*s);
            len++;
        }
        /* A word too long to hold cannot be a model name; store it empty so
         * it matches nothing rather than a truncated prefix. */
        dst[len < WORD_LEN ? len : 0] = '\0';
        out->n++;
    }
}

static int has_word(const words *ws, const char *w)
{
    for (int i = 0; i < ws->n; i++)
        if (strcmp(ws->w[i], w) == 0)
            return 1;
    return 0;
}

/* One matching rule: the model word must be present, the variant word too
 * when given, and none of the excluded words. First match wins, so the
 * specific variants come before the plain model. */
typedef struct rule {
    const char *model;
    const char *variant;
    const char *exclude[3];
    const char *key;
} rule;

static const rule rules[] = {
    {"h100", "pcie", {NULL}, "H100-PCIe"},
    {"h100", "nvl", {NULL}, "H100-NVL"},
    /* "NVIDIA H100 80GB HBM3", "H100 SXM5", plain "h100": the SXM part. */
    {"h100", NULL, {NULL}, "H100-SXM"},
    {"h200", "nvl", {NULL}, "H200-NVL"},
    {"h200", NULL, {NULL}, "H200-SXM"},
    {"gh200", NULL, {NULL}, "GH200"},
    {"gb200", NULL, {NULL}, "GB200"},
    {"b200", NULL, {NULL}, "B200"},
    /* "NVIDIA A100-PCIE-40GB", "NVIDIA A100 80GB PCIe". */
    {"a100", "pcie", {NULL}, "A100-PCIe"},
    {"a100", NULL, {NULL}, "A100-SXM"},
    {"a10g", NULL, {NULL}, "A10G"},
    {"a10", NULL, {NULL}, "A10"},
    {"l40s", NULL, {NULL}, "L40S"},
    {"l40", NULL, {NULL}, "L40"},
    {"l4", NULL, {NULL}, "L4"},
    {"v100", "pcie", {NULL}, "V100-PCIe"},
    {"v100", NULL, {NULL}, "V100-SXM2"},
    /* The Ti, laptop and China ("D") parts are other chips or clocks. */
    {"3090", "rtx", {"ti", "laptop", "mobile"}, "RTX-3090"},
    {"rtx3090", NULL, {NULL}, "RTX-3090"},
    {"4090", "rtx", {"d", "laptop", "mobile"}, "RTX-4090"},
    {"rtx4090", NULL, {NULL}, "RTX-4090"},
    {"mi300x", NULL, {NULL}, "MI300X"},
    {"mi325x", NULL, {NULL}, "MI325X"},
    /* The MI250 (no X) has fewer CUs: unknown. */
    {"mi250x", NULL, {NULL}, "MI250X"},
    {"h800", "pcie", {NULL}, "H800-PCIe"},
    {"h800", NULL, {NULL}, "H800-SXM"},
    {"a800", NULL, {NULL}, "A800"},
    {"h20", NULL, {NULL}, "H20"},
    {"l20", NULL, {NULL}, "L20"},
    {"t4", NULL, {NULL}, "T4"},
    {"v100s", NULL, {NULL}, "V100S"},
    {"3090", "ti", {"laptop", "mobile"}, "RTX-3090-Ti"},
    {"4090", "d", {"laptop", "mobile"}, "RTX-4090-D"},
    /* "NVIDIA RTX 6000 Ada Generation"; not "Quadro RTX 6000" (Turing) nor "RTX A6000". */
    {"6000", "ada", {NULL}, "RTX-6000-Ada"},
    {"b100", NULL, {NULL}, "B100"},
    {"gb300", NULL, {NULL}, "GB300"},
    {"b300", NULL, {NULL}, "B300"},
};

static int rule_matches(const rule *r, const words *ws)
{
    if (!has_word(ws, r->model))
        return 0;
    if (r->variant != NULL && !has_word(ws, r->variant))
        return 0;
    for (int i = 0; i < 3 && r->exclude[i] != NULL; i++)
        if (has_word(ws, r->exclude[i]))
            return 0;
    return 1;
}

const fc_peak_device *fc_peak_find(const char *name)
{
    if (name == NULL || *name == '\0')
        return NULL;
    const fc_peak_device *d = by_key(name);
    if (d != NULL)
        return d;
    words ws;
    split(name, &ws);
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rule_matches(&rules[i], &ws))
            return by_key(rules[i].key);
    return NULL;
}

double fc_peak_flops(const fc_peak_device *d, int dtype)
{
    if (d == NULL)
        return 0;
    if (dtype == FC_DT_COMPLEX64)
        dtype = FC_DT_FP32;
    else if (dtype == FC_DT_COMPLEX128)
        dtype = FC_DT_FP64;
    if (dtype <= FC_DT_UNKNOWN || dtype >= FC_DT_COUNT)
        return 0;
    /* GFLOP/s are whole numbers for every row, so the product is exact.
     * Rounded by hand (the figures are not negative) rather than with
     * llround, the one libm function the shim would need: every process
     * it is preloaded into would map libm for it. */
    return (double)(long long)(d->tflops[dtype] * 1000.0 + 0.5) * 1e9;
}

const char *fc_peak_none_reason(const fc_peak_device *d, int dtype, char *buf, size_t size)
{
    if (d == NULL)
        snprintf(buf, size, "no device, so no %s peak", fc_dtype_name(dtype));
    else if (dtype == FC_DT_UNKNOWN || dtype < 0 || dtype >= FC_DT_COUNT)
        snprintf(buf, size, "FLOPs of an unknown dtype: no peak for them on %s", d->key);
    else
        snprintf(buf, size, "no published %s peak for %s", fc_dtype_name(dtype), d->key);
    return buf;
}
