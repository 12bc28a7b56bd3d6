/* SPDX-License-Identifier: Apache-2.0 */
/* gemm.c - the FLOPs of one GEMM call (gemm.h). */
#include "gemm.h"

#include "dtype.h"

fc_u128 fc_gemm_flops(const fc_gemm *g, int *valid)
{
    if (g->m < 0 || g->n < 0 || g->k < 0 || g->batch < 0) {
        *valid = 0;
        return 0;
    }
    *valid = 1;
    /* Every real GEMM fits 64 bits: four checked multiplies, no call. */
    uint64_t f64 = fc_dtype_is_complex(g->dtype) ? 8 : 2;
    if (!__builtin_mul_overflow(f64, (uint64_t)g->m, &f64) &&
        !__builtin_mul_overflow(f64, (uint64_t)g->n, &f64) &&
        !__builtin_mul_overflow(f64, (uint64_t)g->k, &f64) &&
        !__builtin_mul_overflow(f64, (uint64_t)g->batch, &f64))
        return f64;
    fc_u128 per = fc_dtype_is_complex(g->dtype) ? 8 : 2;
    fc_u128 f = fc_u128_sat_mul(per, (fc_u128)(uint64_t)g->m);
    f = fc_u128_sat_mul(f, (fc_u128)(uint64_t)g->n);
    f = fc_u128_sat_mul(f, (fc_u128)(uint64_t)g->k);
    return fc_u128_sat_mul(f, (fc_u128)(uint64_t)g->batch);
}
