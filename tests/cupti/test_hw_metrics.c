/* SPDX-License-Identifier: Apache-2.0 */
/* test_hw_metrics.c - the hardware-FLOP counter table (shim/cupti/
 * hwmetrics.c, compiled in) against the REAL CUPTI profiler host API of the
 * toolkit, offline (no GPU): for each chip and each GEMM dtype tried first,
 * the chosen counters exist on the chip, their configuration image builds,
 * its pass count is 1, and the dtype tried first is covered. A CUDA upgrade
 * that renames or splits a counter fails here, loudly.
 *   test_hw_metrics LIBCUPTI
 * Expected coverage, checked by hand with the CUDA 13.0 host API: bf16,
 * tf32, fp32 (CUDA-core FFMA/FADD/FMUL) and fp64 fully on GA100, GH100 and
 * GB100 (GB100's tf32: the ..._realtime counter); fp8 fully on GH100, on
 * GB100 through the counter that takes fp8, fp6 and fp4 together (partly),
 * none on GA100; fp16 partly everywhere (GA100, GB100: fp16-accumulating
 * GEMMs would need a second pass; GH100: ..._src_fp16 needs two passes
 * alone, the HGMMA form fits). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "cupti/hwmetrics.h"
#include "dtype.h"

static int failures;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("test_hw_metrics: " __VA_ARGS__);                                               \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static fc_cupti_fns cu;

static int load(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        printf("test_hw_metrics: cannot load %s: %s\n", path, dlerror());
        return -1;
    }
    *(void **)&cu.HostInitialize = dlsym(h, "cuptiProfilerHostInitialize");
    *(void **)&cu.HostDeinitialize = dlsym(h, "cuptiProfilerHostDeinitialize");
    *(void **)&cu.HostConfigAddMetrics = dlsym(h, "cuptiProfilerHostConfigAddMetrics");
    *(void **)&cu.HostGetConfigImageSize = dlsym(h, "cuptiProfilerHostGetConfigImageSize");
    *(void **)&cu.HostGetConfigImage = dlsym(h, "cuptiProfilerHostGetConfigImage");
    *(void **)&cu.HostGetNumOfPasses = dlsym(h, "cuptiProfilerHostGetNumOfPasses");
    *(void **)&cu.HostGetBaseMetrics = dlsym(h, "cuptiProfilerHostGetBaseMetrics");
    return cu.HostInitialize && cu.HostGetNumOfPasses ? 0 : -1;
}

/* Chooses for chip with dtype first and checks the choice; returns the
 * coverage of want (enum fc_hwtype): 1 full, 2 partly, 0 not. */
static int choose(const char *chip, int dtype, int want)
{
    fc_hw_choice c;
    int rc = fc_hw_choose(&cu, CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip, NULL, dtype, &c);
    EXPECT(rc == 0, "%s: choice failed: %s", chip, c.error);
    if (rc != 0)
        return 0;
    EXPECT(c.n_metrics > 0 && c.passes == 1, "%s %s: %d counters, %zu passes", chip,
           fc_dtype_name(dtype), c.n_metrics, c.passes);
    /* the whole chosen set, built again: one pass */
    size_t len = 0;
    static uint8_t img[1 << 16];
    size_t passes = fc_hw_config(&cu, CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip, NULL, c.metric,
                                 c.n_metrics, img, sizeof img, &len);
    EXPECT(passes == 1 && len > 0, "%s %s: the chosen set takes %zu passes (image %zu bytes)", chip,
           fc_dtype_name(dtype), passes, len);
    /* each counter alone exists and configures */
    for (int m = 0; m < c.n_metrics; m++)
        EXPECT(fc_hw_config(&cu, CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip, NULL, &c.metric[m], 1,
                            NULL, 0, NULL) >= 1,
               "%s: counter %s does not configure", chip, c.metric[m]);
    printf("%s, %s first:", chip, fc_dtype_name(dtype));
    for (int t = 0; t < FC_HW_COUNT; t++)
        if (c.covered[t])
            printf(" %s%s", fc_hwtype_name(t), c.covered[t] == 2 ? "(partly)" : "");
    printf("\n");
    return c.covered[want];
}

int main(int argc, char **argv)
{
    if (argc != 2 || load(argv[1]) != 0)
        return 1;
    const char *chips[] = {"GA100", "GH100", "GB100"};
    for (int i = 0; i < 3; i++) {
        const char *chip = chips[i];
        EXPECT(choose(chip, FC_DT_BF16, FC_HW_BF16) == 1, "%s: bf16 not covered", chip);
        EXPECT(choose(chip, FC_DT_TF32, FC_HW_TF32) == 1, "%s: tf32 not covered", chip);
        EXPECT(choose(chip, FC_DT_FP32, FC_HW_FP32_CORE) == 1, "%s: fp32 not covered", chip);
        EXPECT(choose(chip, FC_DT_FP64, FC_HW_FP64_TENSOR) == 1, "%s: fp64 not covered", chip);
        int fp8 = choose(chip, FC_DT_FP8_E4M3, FC_HW_FP8);
        EXPECT(fp8 == (i == 0 ? 0 : i == 1 ? 1 : 2), "%s: fp8 coverage %d", chip, fp8);
        int fp16 = choose(chip, FC_DT_FP16, FC_HW_FP16);
        EXPECT(fp16 == 2, "%s: fp16 coverage %d", chip, fp16);
    }
    /* a chip the host API does not know: an error, not a crash */
    fc_hw_choice c;
    EXPECT(fc_hw_choose(&cu, CUPTI_PROFILER_TYPE_RANGE_PROFILER, "NOPE42", NULL, FC_DT_BF16, &c) !=
               0,
           "an unknown chip was accepted");
    if (failures == 0)
        printf("test_hw_metrics: all checks passed\n");
    return failures ? 1 : 0;
}
