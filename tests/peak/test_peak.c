/* SPDX-License-Identifier: Apache-2.0 */
/* test_peak.c - the peak table (driver-name matching, published dense
 * figures) and the CPU estimate (ISA -> FLOP/cycle, cpuinfo parsing, the
 * reader, overrides). Expected figures are the data-sheet numbers written
 * down by hand, sparse ones halved here in the comments. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "cpupeak.h"
#include "dtype.h"
#include "peak.h"

static const char *workdir; /* argv[1]: a directory of this test's own */

/* ---- driver names ------------------------------------------------------ */

static void expect_match(const char *name, const char *key)
{
    const fc_peak_device *d = fc_peak_find(name);
    if (d == NULL)
        fail_msg("'%s' matched nothing, wanted %s", name, key);
    if (strcmp(d->key, key) != 0)
        fail_msg("'%s' matched %s, wanted %s", name, d->key, key);
}

static void expect_unknown(const char *name)
{
    const fc_peak_device *d = fc_peak_find(name);
    if (d != NULL)
        fail_msg("'%s' matched %s, wanted no match", name ? name : "(null)", d->key);
}

/* Names as cuDeviceGetName / nvidia-smi print them. */
static void test_driver_names(void **state)
{
    (void)state;
    expect_match("NVIDIA H100 80GB HBM3", "H100-SXM");
    expect_match("NVIDIA H100 PCIe", "H100-PCIe");
    expect_match("NVIDIA H100 NVL", "H100-NVL");
    expect_match("NVIDIA H100", "H100-SXM");
    expect_match("NVIDIA H200", "H200-SXM");
    expect_match("NVIDIA H200 NVL", "H200-NVL");
    expect_match("NVIDIA GH200 480GB", "GH200");
    expect_match("NVIDIA B200", "B200");
    expect_match("NVIDIA GB200", "GB200");
    expect_match("NVIDIA A100-SXM4-40GB", "A100-SXM");
    expect_match("NVIDIA A100-SXM4-80GB", "A100-SXM");
    expect_match("NVIDIA A100-PCIE-40GB", "A100-PCIe");
    expect_match("NVIDIA A100 80GB PCIe", "A100-PCIe");
    expect_match("NVIDIA A10", "A10");
    expect_match("NVIDIA A10G", "A10G");
    expect_match("NVIDIA L4", "L4");
    expect_match("NVIDIA L40", "L40");
    expect_match("NVIDIA L40S", "L40S");
    expect_match("Tesla V100-SXM2-16GB", "V100-SXM2");
    expect_match("Tesla V100-SXM2-32GB", "V100-SXM2");
    expect_match("Tesla V100-PCIE-16GB", "V100-PCIe");
    expect_match("NVIDIA GeForce RTX 3090", "RTX-3090");
    expect_match("NVIDIA GeForce RTX 4090", "RTX-4090");
    expect_match("AMD Instinct MI300X", "MI300X");
    expect_match("NVIDIA H800", "H800-SXM");
    expect_match("NVIDIA H800 PCIe", "H800-PCIe");
    expect_match("NVIDIA A800-SXM4-80GB", "A800");
    expect_match("NVIDIA A800 80GB PCIe", "A800");
    expect_match("NVIDIA A800 40GB Active", "A800");
    expect_match("NVIDIA H20", "H20");
    expect_match("NVIDIA L20", "L20");
    expect_match("Tesla T4", "T4");
    expect_match("Tesla V100S-PCIE-32GB", "V100S");
    expect_match("NVIDIA GeForce RTX 3090 Ti", "RTX-3090-Ti");
    expect_match("NVIDIA GeForce RTX 4090 D", "RTX-4090-D");
    expect_match("NVIDIA RTX 6000 Ada Generation", "RTX-6000-Ada");
    expect_match("AMD Instinct MI250X", "MI250X");
    expect_match("AMD Instinct MI250X/MI250", "MI250X");
    expect_match("AMD Instinct MI325X", "MI325X");
    expect_match("NVIDIA B100", "B100");
    expect_match("NVIDIA B300 SXM6 AC", "B300");
    expect_match("NVIDIA GB300", "GB300");
}

static void test_keys_and_case(void **state)
{
    (void)state;
    expect_match("h100-sxm", "H100-SXM");
    expect_match("H100-SXM", "H100-SXM");
    expect_match("h100", "H100-SXM");
    expect_match("h100-pcie", "H100-PCIe");
    expect_match("h100 nvl", "H100-NVL");
    expect_match("h200-nvl", "H200-NVL");
    expect_match("a100", "A100-SXM");
    expect_match("a100-pcie", "A100-PCIe");
    expect_match("l40s", "L40S");
    expect_match("l40", "L40");
    expect_match("a10g", "A10G");
    expect_match("rtx4090", "RTX-4090");
    expect_match("rtx-3090", "RTX-3090");
    expect_match("mi300x", "MI300X");
    expect_match("gh200", "GH200");
    expect_match("nvidia h100 80gb hbm3", "H100-SXM");
    expect_match("NVIDIA L40S", "L40S");
    expect_match("nvidia l40s", "L40S");
    expect_match("NVIDIA a10G", "A10G");
    /* Every key finds its own row, in any case. */
    for (int i = 0; i < fc_peak_count(); i++) {
        const fc_peak_device *d = fc_peak_get(i);
        char lower[64];
        size_t n = strlen(d->key);
        assert_true(n < sizeof lower);
        for (size_t j = 0; j <= n; j++)
            lower[j] = (char)(d->key[j] >= 'A' && d->key[j] <= 'Z' ? d->key[j] + 32 : d->key[j]);
        expect_match(d->key, d->key);
        expect_match(lower, d->key);
    }
}

/* Other chips that share a prefix or a model number must not borrow a
 * figure: that is how peers end up reporting MFU above 100%. */
static void test_unknown_names(void **state)
{
    (void)state;
    expect_unknown(NULL);
    expect_unknown("");
    expect_unknown("NVIDIA");
    expect_unknown("cpu");
    expect_unknown("NVIDIA GeForce RTX 3080 Ti");
    expect_unknown("NVIDIA GeForce RTX 3090 Ti Laptop GPU");
    expect_unknown("NVIDIA GeForce RTX 4090 Laptop GPU");
    expect_unknown("NVIDIA GeForce RTX 4090 D Laptop GPU");
    expect_unknown("NVIDIA A100X");
    expect_unknown("NVIDIA A40");
    expect_unknown("NVIDIA RTX A6000");
    expect_unknown("Quadro RTX 6000");
    expect_unknown("NVIDIA RTX 6000");
    expect_unknown("Tesla T40");
    expect_unknown("AMD Instinct MI250");
    expect_unknown("NVIDIA H20x");
    expect_unknown("NVIDIA L40SX");
    expect_unknown("NVIDIA H100xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
}

/* ---- figures ------------------------------------------------------------ */

typedef struct expect {
    const char *key;
    double fp64, fp64tc, fp32, tf32, fp16, bf16, fp8, fp4, int8; /* FLOP/s; 0 = none */
    double fp6; /* Blackwell only: "FP8/FP6 Tensor Core" on NVIDIA's sheets, one figure */
} expect;

/* Dense figures from each source (sparse '*' figures halved by hand). */
static const expect published[] = {
    /* V100 data sheet, SXM2: FP64 7.8, FP32 15.7, tensor 125; PCIe 7, 14, 112. */
    {"V100-SXM2", 7.8e12, 0, 15.7e12, 0, 125e12, 0, 0, 0, 0, 0},
    {"V100-PCIe", 7e12, 0, 14e12, 0, 112e12, 0, 0, 0, 0, 0},
    /* A100 data sheet: TF32 312* / 2 = 156, FP16 624* / 2 = 312, INT8 1248* / 2 = 624. */
    {"A100-SXM", 9.7e12, 19.5e12, 19.5e12, 156e12, 312e12, 312e12, 0, 0, 624e12, 0},
    {"A100-PCIe", 9.7e12, 19.5e12, 19.5e12, 156e12, 312e12, 312e12, 0, 0, 624e12, 0},
    /* A10 data sheet: TF32 125* / 2, FP16 250* / 2, INT8 500* / 2. */
    {"A10", 0, 0, 31.2e12, 62.5e12, 125e12, 125e12, 0, 0, 250e12, 0},
    /* A10G: 80 SMs x 512 FLOP/clk x 1.71 GHz = 70.0 TFLOP/s fp16. */
    {"A10G", 0, 0, 35e12, 35e12, 70e12, 70e12, 0, 0, 140e12, 0},
    /* L4 data sheet: TF32 120*, FP16 242*, FP8 485*, INT8 485*, all halved. */
    {"L4", 0, 0, 30.3e12, 60e12, 121e12, 121e12, 242.5e12, 0, 242.5e12, 0},
    /* L40 data sheet: dense column 90.5 | 181.05 | 362 | 362. */
    {"L40", 0, 0, 90.5e12, 90.5e12, 181.05e12, 181.05e12, 362e12, 0, 362e12, 0},
    /* L40S data sheet: TF32 366* / 2 = 183, FP16 733* -> 362.05 dense column, FP8 1466* / 2. */
    {"L40S", 0, 0, 91.6e12, 183e12, 362.05e12, 362.05e12, 733e12, 0, 733e12, 0},
    /* GA102 whitepaper, RTX 3090: FP16/BF16 with FP32 accumulate 71, INT8 284; FP64 35.6 / 64. */
    {"RTX-3090", 0.556e12, 0, 35.6e12, 35.6e12, 71e12, 71e12, 0, 0, 284e12, 0},
    /* Ada whitepaper, RTX 4090, FP32 accumulate: 165.2, FP8 330.3, INT8 660.6. */
    {"RTX-4090", 1.3e12, 0, 82.6e12, 82.6e12, 165.2e12, 165.2e12, 330.3e12, 0, 660.6e12, 0},
    /* H100 SXM: 132 SMs x 4096 x 1.83 GHz = 989.4 TFLOP/s; FP8 twice that. */
    {"H100-SXM", 34e12, 67e12, 67e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12, 0, 1978.9e12, 0},
    /* H100 PCIe: TF32 756* / 2 = 378, BF16 1513* / 2 = 756.5, FP8 3026* / 2 = 1513. */
    {"H100-PCIe", 26e12, 51e12, 51e12, 378e12, 756.5e12, 756.5e12, 1513e12, 0, 1513e12, 0},
    /* H100 NVL: TF32 835* / 2 = 417.5, BF16 1671* / 2 = 835.5, FP8 3341* / 2 = 1670.5. */
    {"H100-NVL", 30e12, 60e12, 60e12, 417.5e12, 835.5e12, 835.5e12, 1670.5e12, 0, 1670.5e12, 0},
    {"H200-SXM", 34e12, 67e12, 67e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12, 0, 1978.9e12, 0},
    {"H200-NVL", 30e12, 60e12, 60e12, 417.5e12, 835.5e12, 835.5e12, 1670.5e12, 0, 1670.5e12, 0},
    {"GH200", 34e12, 67e12, 67e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12, 0, 1978.9e12, 0},
    /* HGX B200 per GPU: TF32 2.2P*, FP16 4.5P*, FP8/FP6 9P*, INT8 9P*, FP4 18P*, halved. */
    {"B200", 37e12, 37e12, 75e12, 1100e12, 2250e12, 2250e12, 4500e12, 9000e12, 4500e12, 4500e12},
    /* GB200 NVL72 per GPU: TF32 2.5P*, FP16 5P*, FP8/FP6 10P*, INT8 10P*, FP4 20P*, halved. */
    {"GB200", 40e12, 40e12, 80e12, 1250e12, 2500e12, 2500e12, 5000e12, 10000e12, 5000e12, 5000e12},
    /* MI300X data sheet dense column: 81.7 / 163.4 / 163.4 / 653.7 / 1307.4 / 2614.9. */
    {"MI300X", 81.7e12, 163.4e12, 163.4e12, 653.7e12, 1307.4e12, 1307.4e12, 2614.9e12, 0,
     2614.9e12, 0},
    /* H800 data sheets: H100 compute with FP64 cut to 1 (SXM) / 0.8 (PCIe);
     * TF32 989* and 756*, BF16 1979* and 1513*, FP8 3958* and 3026*, halved. */
    {"H800-SXM", 1e12, 1e12, 67e12, 494.7e12, 989.4e12, 989.4e12, 1978.9e12, 0, 1978.9e12, 0},
    {"H800-PCIe", 0.8e12, 0.8e12, 51e12, 378e12, 756.5e12, 756.5e12, 1513e12, 0, 1513e12, 0},
    /* A800 data sheets: the A100's figures (TF32 312*, FP16 624*, INT8 1248*, halved). */
    {"A800", 9.7e12, 19.5e12, 19.5e12, 156e12, 312e12, 312e12, 0, 0, 624e12, 0},
    /* H20: partner sheets, dense: FP32 44, TF32 74, BF16 148, FP8/INT8 296, FP64 1. */
    {"H20", 1e12, 1e12, 44e12, 74e12, 148e12, 148e12, 296e12, 0, 296e12, 0},
    /* L20 data sheet: TF32 119.5*, BF16 239*, FP8/INT8 478*, halved. */
    {"L20", 0, 0, 59.8e12, 59.8e12, 119.5e12, 119.5e12, 239e12, 0, 239e12, 0},
    /* T4 data sheet: FP32 8.1, FP16/FP32 mixed 65, INT8 130 (Turing: dense). */
    {"T4", 0, 0, 8.1e12, 0, 65e12, 0, 0, 0, 130e12, 0},
    /* V100S data sheet: FP64 8.2, FP32 16.4, Tensor 130. */
    {"V100S", 8.2e12, 0, 16.4e12, 0, 130e12, 0, 0, 0, 0, 0},
    /* RTX 3090 Ti: 84 SMs x 1.86 GHz; FP32 x 256 = 40.0, FP16/BF16 (FP32
     * accumulate) x 512 = 80.0, INT8 x 2048 = 320.0; FP64 40 / 64. */
    {"RTX-3090-Ti", 0.625e12, 0, 40e12, 40e12, 80e12, 80e12, 0, 0, 320e12, 0},
    /* RTX 4090 D: 114 SMs x 2.52 GHz; FP32 x 256 = 73.5, FP16 x 512 = 147.1,
     * FP8 x 1024 = 294.2, INT8 x 2048 = 588.3; FP64 73.5 / 64 = 1.149. */
    {"RTX-4090-D", 1.149e12, 0, 73.5e12, 73.5e12, 147.1e12, 147.1e12, 294.2e12, 0, 588.3e12, 0},
    /* RTX 6000 Ada: FP8 1457* / 2 = 728.5, FP16 half that, TF32 a quarter. */
    {"RTX-6000-Ada", 1.423e12, 0, 91.1e12, 182.1e12, 364.2e12, 364.2e12, 728.5e12, 0, 728.5e12, 0},
    {"MI325X", 81.7e12, 163.4e12, 163.4e12, 653.7e12, 1307.4e12, 1307.4e12, 2614.9e12, 0,
     2614.9e12, 0},
    /* MI250X package / 2 GCDs: FP64 47.9 / 2, matrix 95.7 / 2, FP16 383 / 2. */
    {"MI250X", 23.95e12, 47.85e12, 47.85e12, 0, 191.5e12, 191.5e12, 0, 0, 191.5e12, 0},
    /* B100 per GPU: TF32 1.8P*, FP16 3.5P*, FP8/FP6/INT8 7P*, FP4 14P*, halved. */
    {"B100", 30e12, 30e12, 60e12, 900e12, 1750e12, 1750e12, 3500e12, 7000e12, 3500e12, 3500e12},
    /* HGX B300 / 8: FP64 10 -> 1.25, FP32 600 -> 75, TF32 18P* -> 1125,
     * FP16 36P* -> 2250, FP8/FP6 72P* -> 4500, FP4 108P dense -> 13500; no INT8. */
    {"B300", 1.25e12, 1.25e12, 75e12, 1125e12, 2250e12, 2250e12, 4500e12, 13500e12, 0, 4500e12},
    /* GB300 NVL72 / 72: FP64 100 -> 1.389, TF32 180P* -> 1250, FP16 360P* ->
     * 2500, FP8/FP6 720P* -> 5000, FP4 1080P dense -> 15000; no INT8. */
    {"GB300", 1.389e12, 1.389e12, 80e12, 1250e12, 2500e12, 2500e12, 5000e12, 15000e12, 0, 5000e12},
};

static void check_figure(const fc_peak_device *d, int dt, double want)
{
    double got = fc_peak_flops(d, dt);
    if (got != want)
        fail_msg("%s %s: got %.17g FLOP/s, want %.17g", d->key, fc_dtype_name(dt), got, want);
}

static void test_published_figures(void **state)
{
    (void)state;
    size_t n = sizeof published / sizeof published[0];
    /* Every row of the table has its expectation here, and no more. */
    assert_int_equal(fc_peak_count(), (int)n);
    for (size_t i = 0; i < n; i++) {
        const expect *e = &published[i];
        const fc_peak_device *d = fc_peak_find(e->key);
        assert_non_null(d);
        assert_string_equal(d->key, e->key);
        check_figure(d, FC_DT_FP64, e->fp64);
        check_figure(d, FC_DT_FP64_TENSOR, e->fp64tc);
        check_figure(d, FC_DT_FP32, e->fp32);
        check_figure(d, FC_DT_TF32, e->tf32);
        check_figure(d, FC_DT_FP16, e->fp16);
        check_figure(d, FC_DT_BF16, e->bf16);
        check_figure(d, FC_DT_FP8_E4M3, e->fp8);
        check_figure(d, FC_DT_FP8_E5M2, e->fp8);
        check_figure(d, FC_DT_FP4_E2M1, e->fp4);
        check_figure(d, FC_DT_FP6_E2M3, e->fp6);
        check_figure(d, FC_DT_FP6_E3M2, e->fp6);
        check_figure(d, FC_DT_INT8, e->int8);
        /* A complex GEMM runs on the real units. */
        check_figure(d, FC_DT_COMPLEX64, e->fp32);
        check_figure(d, FC_DT_COMPLEX128, e->fp64);
        check_figure(d, FC_DT_INT32, 0);
        check_figure(d, FC_DT_UNKNOWN, 0);
        check_figure(d, FC_DT_COUNT, 0);
        check_figure(d, -1, 0);
        assert_true(d->source != NULL && strlen(d->source) > 20);
        assert_true(d->display != NULL && d->display[0] != '\0');
    }
    assert_true(fc_peak_flops(NULL, FC_DT_FP16) == 0);
    /* An absent figure is refused by name, never borrowed from another dtype. */
    char why[160];
    assert_string_equal(fc_peak_none_reason(fc_peak_find("h100"), FC_DT_FP4_E2M1, why, sizeof why),
                        "no published fp4_e2m1 peak for H100-SXM");
    assert_string_equal(fc_peak_none_reason(fc_peak_find("b300"), FC_DT_INT8, why, sizeof why),
                        "no published int8 peak for B300");
    assert_null(fc_peak_get(-1));
    assert_null(fc_peak_get(fc_peak_count()));
}

/* The per-SM rates behind the clock-derived figure: the table's dense fp16
 * figure divided by SMs x rate must give the published boost clock. */
static void test_per_sm_rates(void **state)
{
    (void)state;
    /* V100 SXM2: 80 SMs x 1024 x 1.53 GHz = 125.3 TFLOP/s (table 125). */
    assert_int_equal(fc_peak_find("v100")->flop_per_clk_per_sm_fp16, 1024);
    /* A100: 108 SMs x 2048 x 1.41 GHz = 311.9 (table 312). */
    assert_int_equal(fc_peak_find("a100")->flop_per_clk_per_sm_fp16, 2048);
    /* H100 SXM: 132 x 4096 x 1.83 GHz = 989.4. */
    assert_int_equal(fc_peak_find("h100")->flop_per_clk_per_sm_fp16, 4096);
    assert_int_equal(fc_peak_find("h200")->flop_per_clk_per_sm_fp16, 4096);
    /* Blackwell's per-SM rate is not published: no clock-derived figure. */
    assert_int_equal(fc_peak_find("b200")->flop_per_clk_per_sm_fp16, 0);
}

/* ---- CPU estimate ----------------------------------------------------------- */

static void test_cpu_flop_per_cycle(void **state)
{
    (void)state;
    unsigned avx512 = FC_CPU_AVX | FC_CPU_FMA | FC_CPU_AVX2 | FC_CPU_AVX512F;
    unsigned avx2 = FC_CPU_AVX | FC_CPU_FMA | FC_CPU_AVX2;
    /* AVX-512: 2 FMA x 16 fp32 lanes x 2 = 64; fp64 has 8 lanes: 32. */
    assert_int_equal(fc_cpu_flop_per_cycle(avx512, FC_DT_FP32), 64);
    assert_int_equal(fc_cpu_flop_per_cycle(avx512, FC_DT_FP64), 32);
    /* AVX2+FMA: 2 x 8 x 2 = 32; fp64 16. */
    assert_int_equal(fc_cpu_flop_per_cycle(avx2, FC_DT_FP32), 32);
    assert_int_equal(fc_cpu_flop_per_cycle(avx2, FC_DT_FP64), 16);
    /* AVX without FMA: one 8-wide add + one 8-wide multiply = 16. */
    assert_int_equal(fc_cpu_flop_per_cycle(FC_CPU_AVX, FC_DT_FP32), 16);
    assert_int_equal(fc_cpu_flop_per_cycle(FC_CPU_AVX, FC_DT_FP64), 8);
    /* SSE: 4-wide add + 4-wide multiply = 8; fp64 4. */
    assert_int_equal(fc_cpu_flop_per_cycle(0, FC_DT_FP32), 8);
    assert_int_equal(fc_cpu_flop_per_cycle(0, FC_DT_FP64), 4);
    assert_int_equal(fc_cpu_flop_per_cycle(avx2, FC_DT_COMPLEX64), 32);
    assert_int_equal(fc_cpu_flop_per_cycle(avx2, FC_DT_COMPLEX128), 16);
    /* No bf16/fp16/int8 instruction in the flags: no figure (never fp32's). */
    assert_int_equal(fc_cpu_flop_per_cycle(avx512, FC_DT_BF16), 0);
    assert_int_equal(fc_cpu_flop_per_cycle(avx512, FC_DT_FP16), 0);
    assert_int_equal(fc_cpu_flop_per_cycle(avx512, FC_DT_INT8), 0);
    assert_int_equal(fc_cpu_flop_per_cycle(avx512, FC_DT_FP8_E4M3), 0);
    assert_string_equal(fc_cpu_isa_name(avx2), "AVX2+FMA");
    /* AVX512_BF16: VDPBF16PS, 16 fp32 lanes each summing 2 bf16 products (4
     * FLOP) = 64 per instruction, 2 units: 128. AVX512_FP16: 32 lanes x 2 x 2
     * units = 128. AVX512_VNNI: VPDPBUSD, 16 lanes x 4 byte products x 2 ops =
     * 128 per instruction, 2 units: 256; AVX-VNNI at 256 bits: 128. */
    unsigned zen4 = avx512 | FC_CPU_AVX512_BF16 | FC_CPU_AVX512_VNNI;
    assert_int_equal(fc_cpu_flop_per_cycle(zen4, FC_DT_BF16), 128);
    assert_int_equal(fc_cpu_flop_per_cycle(zen4, FC_DT_INT8), 256);
    assert_int_equal(fc_cpu_flop_per_cycle(zen4, FC_DT_FP16), 0);
    assert_int_equal(fc_cpu_flop_per_cycle(avx512 | FC_CPU_AVX512_FP16, FC_DT_FP16), 128);
    assert_int_equal(fc_cpu_flop_per_cycle(avx2 | FC_CPU_AVX_VNNI, FC_DT_INT8), 128);
    /* AMX tiles: Intel's 1024 bf16 FLOP and 2048 int8 ops per cycle per core. */
    unsigned spr = zen4 | FC_CPU_AVX512_FP16 | FC_CPU_AMX_BF16 | FC_CPU_AMX_INT8;
    assert_int_equal(fc_cpu_flop_per_cycle(spr, FC_DT_BF16), 1024);
    assert_int_equal(fc_cpu_flop_per_cycle(spr, FC_DT_INT8), 2048);
    assert_int_equal(fc_cpu_flop_per_cycle(spr, FC_DT_FP16), 128);
    assert_int_equal(fc_cpu_flop_per_cycle(spr | FC_CPU_AMX_FP16, FC_DT_FP16), 1024);
    /* fp64 stays half of fp32 whatever else the CPU has */
    assert_int_equal(fc_cpu_flop_per_cycle(spr, FC_DT_FP64), 32);
    /* each figure says what it assumes; a missing one says why */
    assert_non_null(strstr(fc_cpu_assumes(avx2, FC_DT_FP64), "4 fp64 lanes"));
    assert_non_null(strstr(fc_cpu_assumes(spr, FC_DT_BF16), "AMX-BF16"));
    assert_non_null(strstr(fc_cpu_assumes(avx2, FC_DT_BF16), "no bf16 instructions"));
}

static void test_cpu_peak_arithmetic(void **state)
{
    (void)state;
    unsigned avx512 = FC_CPU_AVX | FC_CPU_FMA | FC_CPU_AVX2 | FC_CPU_AVX512F;
    unsigned avx2 = FC_CPU_AVX | FC_CPU_FMA | FC_CPU_AVX2;
    /* 2 cores x 64 x 3.0 GHz = 384 GFLOP/s. */
    assert_true(fc_cpu_peak_flops(avx512, 2, 3000, FC_DT_FP32) == 384e9);
    /* 8 cores x 16 (fp64, AVX2+FMA) x 2.5 GHz = 320 GFLOP/s. */
    assert_true(fc_cpu_peak_flops(avx2, 8, 2500, FC_DT_FP64) == 320e9);
    /* 64 cores x 32 x 2.25 GHz = 4.608 TFLOP/s. */
    assert_true(fc_cpu_peak_flops(avx2, 64, 2250, FC_DT_FP32) == 4608e9);
    assert_true(fc_cpu_peak_flops(avx2, 0, 2500, FC_DT_FP32) == 0);
    assert_true(fc_cpu_peak_flops(avx2, 4, 0, FC_DT_FP32) == 0);
    assert_true(fc_cpu_peak_flops(avx2, 4, 2500, FC_DT_FP16) == 0);
}

/* Two sockets x 4 cores, 2 threads each: 16 logical, 8 physical. */
static void build_cpuinfo(char *buf, size_t size, const char *flags, int with_mhz)
{
    size_t len = 0;
    for (int p = 0; p < 16; p++) {
        int n = snprintf(
            buf + len, size - len,
            "processor\t: %d\nvendor_id\t: Test\nmodel name\t: Test CPU 9000\n%s"
            "physical id\t: %d\nsiblings\t: 8\ncore id\t\t: %d\ncpu cores\t: 4\n"
            "flags\t\t: %s\n\n",
            p, with_mhz ? (p == 5 ? "cpu MHz\t\t: 3400.500\n" : "cpu MHz\t\t: 1200.000\n") : "",
            p / 8, (p % 8) / 2, flags);
        assert_true(n > 0 && (size_t)n < size - len);
        len += (size_t)n;
    }
}

static void test_cpuinfo_parse(void **state)
{
    (void)state;
    static char text[16384];
    fc_cpu_info c;
    build_cpuinfo(text, sizeof text, "fpu sse sse2 avx fma avx2 avx512bw avx512vl", 1);
    assert_int_equal(fc_cpu_parse_cpuinfo(text, &c), 0);
    assert_string_equal(c.model, "Test CPU 9000");
    assert_int_equal(c.logical, 16);
    assert_int_equal(c.physical, 8);
    /* avx512bw without avx512f is not AVX-512 F: a word match, not a prefix. */
    assert_int_equal(c.isa, FC_CPU_AVX | FC_CPU_FMA | FC_CPU_AVX2);
    assert_true(c.mhz == 3400.5); /* the largest "cpu MHz" */
    assert_string_equal(c.mhz_from, "cpu MHz");

    build_cpuinfo(text, sizeof text, "sse avx512f avx2", 0);
    assert_int_equal(fc_cpu_parse_cpuinfo(text, &c), 0);
    assert_int_equal(c.isa, FC_CPU_AVX2 | FC_CPU_AVX512F);

    /* Sapphire Rapids' flags (a subset): every matrix and dot-product bit. */
    build_cpuinfo(text, sizeof text,
                  "avx fma avx2 avx512f avx512_vnni avx512_bf16 avx512_fp16 amx_bf16 amx_tile "
                  "amx_int8 avx_vnni", 0);
    assert_int_equal(fc_cpu_parse_cpuinfo(text, &c), 0);
    assert_int_equal(c.isa, FC_CPU_AVX | FC_CPU_FMA | FC_CPU_AVX2 | FC_CPU_AVX512F |
                                FC_CPU_AVX512_VNNI | FC_CPU_AVX512_BF16 | FC_CPU_AVX512_FP16 |
                                FC_CPU_AMX_BF16 | FC_CPU_AMX_INT8 | FC_CPU_AVX_VNNI);
    assert_true(c.mhz == 0);

    assert_int_equal(fc_cpu_parse_cpuinfo("processor : 0\nmodel name : x\n", &c), -1);
}

static char *write_file(const char *name, const char *text)
{
    static char path[4][512];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", workdir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return p;
}

static void test_cpu_reader(void **state)
{
    (void)state;
    static char text[16384];
    char err[256];
    fc_cpu_info c;
    build_cpuinfo(text, sizeof text, "avx fma avx2", 1);
    const char *info = write_file("cpuinfo", text);
    const char *maxf = write_file("max_freq", "3500000\n");
    /* sysfs max clock wins over the current "cpu MHz". */
    assert_int_equal(fc_cpu_read_from(info, maxf, &c, err, sizeof err), 0);
    assert_true(c.mhz == 3500.0);
    assert_string_equal(c.mhz_from, "cpuinfo_max_freq");
    assert_int_equal(c.cores, 8);
    assert_string_equal(c.cores_from, "physical cores");
    /* 8 cores x 32 x 3.5 GHz = 896 GFLOP/s fp32. */
    assert_true(fc_cpu_peak_flops(c.isa, c.cores, c.mhz, FC_DT_FP32) == 896e9);
    /* No sysfs file: the largest cpu MHz, 3400.5. */
    char missing[600];
    snprintf(missing, sizeof missing, "%s/no-such-file", workdir);
    assert_int_equal(fc_cpu_read_from(info, missing, &c, err, sizeof err), 0);
    assert_true(c.mhz == 3400.5);
    /* Unreadable cpuinfo: -1 and a reason. */
    assert_int_equal(fc_cpu_read_from(missing, NULL, &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot read"));
    /* No clock anywhere: -2, the rest filled. */
    build_cpuinfo(text, sizeof text, "avx fma avx2", 0);
    info = write_file("cpuinfo-noclock", text);
    assert_int_equal(fc_cpu_read_from(info, missing, &c, err, sizeof err), -2);
    assert_non_null(strstr(err, "FLOPCOUNT_CPU_GHZ"));
    assert_int_equal(c.cores, 8);
}

static void test_cpu_env_overrides(void **state)
{
    (void)state;
    fc_cpu_info c;
    char err[256];
    memset(&c, 0, sizeof c);
    c.mhz = 1000;
    c.cores = 2;
    setenv("FLOPCOUNT_CPU_GHZ", "2.5", 1);
    setenv("FLOPCOUNT_CPU_CORES", "12", 1);
    assert_int_equal(fc_cpu_env_overrides(&c, err, sizeof err), 0);
    assert_true(c.mhz == 2500.0);
    assert_int_equal(c.cores, 12);
    assert_string_equal(c.mhz_from, "FLOPCOUNT_CPU_GHZ");
    assert_string_equal(c.cores_from, "FLOPCOUNT_CPU_CORES");
    setenv("FLOPCOUNT_CPU_GHZ", "fast", 1);
    assert_int_equal(fc_cpu_env_overrides(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "FLOPCOUNT_CPU_GHZ='fast'"));
    setenv("FLOPCOUNT_CPU_GHZ", "3", 1);
    setenv("FLOPCOUNT_CPU_CORES", "0", 1);
    assert_int_equal(fc_cpu_env_overrides(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "FLOPCOUNT_CPU_CORES='0'"));
    unsetenv("FLOPCOUNT_CPU_GHZ");
    unsetenv("FLOPCOUNT_CPU_CORES");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_peak WORKDIR\n");
        return 2;
    }
    workdir = argv[1];
    if (mkdir(workdir, 0700) != 0 && errno != EEXIST) {
        perror(workdir);
        return 2;
    }
    unsetenv("FLOPCOUNT_CPU_GHZ");
    unsetenv("FLOPCOUNT_CPU_CORES");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_driver_names),        cmocka_unit_test(test_keys_and_case),
        cmocka_unit_test(test_unknown_names),       cmocka_unit_test(test_published_figures),
        cmocka_unit_test(test_per_sm_rates),        cmocka_unit_test(test_cpu_flop_per_cycle),
        cmocka_unit_test(test_cpu_peak_arithmetic), cmocka_unit_test(test_cpuinfo_parse),
        cmocka_unit_test(test_cpu_reader),          cmocka_unit_test(test_cpu_env_overrides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
