/* SPDX-License-Identifier: Apache-2.0 */
/* feed_detector.h - for the tests that link the iteration detector alone
 * (shim/detect/): what it needs from the rest of the shim, and a
 * gpt_gemm_fn that pushes each GEMM of fixture_gpt_stream.c into it as the
 * hot path would (an fp32 cuBLAS call, a tick of the clock per record),
 * from the thread feed_thread names (the ring the record came from; none
 * when it is NULL), as CPU BLAS calls when feed_cpu is set. Included by one
 * file of each such test program. */
#ifndef TEST_ITER_FEED_DETECTOR_H
#define TEST_ITER_FEED_DETECTOR_H

#include <stdint.h>

#include "core/api.h"
#include "detect/segment.h"
#include "dtype.h"

int fc_clock_fast;
uint64_t fc_now_ns(void) { return 0; }
double fc_ticks_seconds(uint64_t d) { return (double)d; } /* one tick, one "second" */

static uint64_t clock_ticks; /* the last record's time */
static int (*feed_thread)(void *ctx); /* the thread (ring) a call comes from, or NULL */
static int feed_cpu;                  /* the calls are sgemm_ (CPU BLAS), not cuBLAS */

static void push_gemm(void *ctx, int api, char ta, char tb, int64_t m, int64_t n, int64_t k,
                      int64_t batch, const float *a, const float *b, float *c)
{
    (void)ctx;
    static const uint8_t apis[] = {FC_API_CUBLAS_GEMMEX, FC_API_CUBLAS_GEMM_STRIDED_EX,
                                   FC_API_CUBLASLT_MATMUL};
    fc_gemm g = {.api = feed_cpu ? FC_API_BLAS_SGEMM : apis[api], .dtype = FC_DT_FP32,
                 .out_dtype = FC_DT_FP32, .compute = 68,
                 .transa = ta, .transb = tb, .m = m, .n = n, .k = k, .batch = batch,
                 .a = a, .b = b, .c = c};
    fc_irec r;
    fc_irec_fill(&r, &g, 2u * (uint64_t)(m * n * k * batch), ++clock_ticks, fc_gemm_sig(&g));
    if (feed_thread != NULL)
        r.thread = (uint8_t)feed_thread(ctx);
    fc_seg_push(&r);
}

#endif
