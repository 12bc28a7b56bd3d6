/* SPDX-License-Identifier: Apache-2.0 */
/* dtype.c - names of element types and their CUDA enum values. */
#include "dtype.h"

#include <stddef.h>
#include <strings.h>

static const char *const names[FC_DT_COUNT] = {
    [FC_DT_UNKNOWN] = "unknown",     [FC_DT_FP64] = "fp64",
    [FC_DT_FP32] = "fp32",           [FC_DT_TF32] = "tf32",
    [FC_DT_FP16] = "fp16",           [FC_DT_BF16] = "bf16",
    [FC_DT_FP8_E4M3] = "fp8_e4m3",   [FC_DT_FP8_E5M2] = "fp8_e5m2",
    [FC_DT_FP4_E2M1] = "fp4_e2m1",   [FC_DT_INT8] = "int8",
    [FC_DT_INT32] = "int32",         [FC_DT_COMPLEX64] = "complex64",
    [FC_DT_COMPLEX128] = "complex128", [FC_DT_FP64_TENSOR] = "fp64_tensor",
    [FC_DT_FP6_E2M3] = "fp6_e2m3",   [FC_DT_FP6_E3M2] = "fp6_e3m2",
};

const char *fc_dtype_name(int dt)
{
    if (dt < 0 || dt >= FC_DT_COUNT)
        return "unknown";
    return names[dt];
}

int fc_dtype_from_name(const char *name)
{
    static const struct { const char *alias; int dt; } aliases[] = {
        {"float64", FC_DT_FP64}, {"double", FC_DT_FP64},    {"float32", FC_DT_FP32},
        {"float", FC_DT_FP32},   {"float16", FC_DT_FP16},   {"half", FC_DT_FP16},
        {"bfloat16", FC_DT_BF16}, {"fp8", FC_DT_FP8_E4M3},  {"e4m3", FC_DT_FP8_E4M3},
        {"e5m2", FC_DT_FP8_E5M2}, {"fp4", FC_DT_FP4_E2M1},  {"fp64tc", FC_DT_FP64_TENSOR},
        {"fp6", FC_DT_FP6_E2M3},  {"e2m3", FC_DT_FP6_E2M3}, {"e3m2", FC_DT_FP6_E3M2},
    };
    if (name == NULL)
        return FC_DT_UNKNOWN;
    for (int i = 1; i < FC_DT_COUNT; i++)
        if (strcasecmp(name, names[i]) == 0)
            return i;
    for (unsigned i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(name, aliases[i].alias) == 0)
            return aliases[i].dt;
    return FC_DT_UNKNOWN;
}

int fc_dtype_is_complex(int dt)
{
    return dt == FC_DT_COMPLEX64 || dt == FC_DT_COMPLEX128;
}

/* cudaDataType_t (library_types.h, CUDA 12/13). */
int fc_dtype_from_cuda(int t)
{
    switch (t) {
    case 0: return FC_DT_FP32;        /* CUDA_R_32F */
    case 1: return FC_DT_FP64;        /* CUDA_R_64F */
    case 2: return FC_DT_FP16;        /* CUDA_R_16F */
    case 3: return FC_DT_INT8;        /* CUDA_R_8I */
    case 4: return FC_DT_COMPLEX64;   /* CUDA_C_32F */
    case 5: return FC_DT_COMPLEX128;  /* CUDA_C_64F */
    case 10: return FC_DT_INT32;      /* CUDA_R_32I */
    case 14: return FC_DT_BF16;       /* CUDA_R_16BF */
    case 28: return FC_DT_FP8_E4M3;   /* CUDA_R_8F_E4M3 */
    case 29: return FC_DT_FP8_E5M2;   /* CUDA_R_8F_E5M2 */
    case 31: return FC_DT_FP6_E2M3;   /* CUDA_R_6F_E2M3 */
    case 32: return FC_DT_FP6_E3M2;   /* CUDA_R_6F_E3M2 */
    case 33: return FC_DT_FP4_E2M1;   /* CUDA_R_4F_E2M1 */
    default: return FC_DT_UNKNOWN;
    }
}

const char *fc_cuda_type_name(int t)
{
    int dt = fc_dtype_from_cuda(t);
    return fc_dtype_name(dt);
}

const char *fc_compute_type_name(int c)
{
    switch (c) {
    case 64: return "16F";
    case 65: return "16F_PEDANTIC";
    case 66: return "32F_FAST_16F_LEGACY";
    case 68: return "32F";
    case 69: return "32F_PEDANTIC";
    case 70: return "64F";
    case 71: return "64F_PEDANTIC";
    case 72: return "32I";
    case 73: return "32I_PEDANTIC";
    case 74: return "32F_FAST_16F";
    case 75: return "32F_FAST_16BF";
    case 77: return "32F_FAST_TF32";
    case 78: return "32F_EMULATED_16BFX9";
    case 79: return "64F_EMULATED_FIXEDPOINT";
    default: return "unknown";
    }
}
