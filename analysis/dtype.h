/* SPDX-License-Identifier: Apache-2.0 */
/* dtype.h - the element types flopcount names in reports and peak tables.
 *
 * One enum shared by the shim (what a GEMM ran in), the peak table (what a
 * device can do in it) and the report reader. Values only grow. */
#ifndef FC_DTYPE_H
#define FC_DTYPE_H

enum fc_dtype {
    FC_DT_UNKNOWN = 0,
    FC_DT_FP64,
    FC_DT_FP32,
    FC_DT_TF32,
    FC_DT_FP16,
    FC_DT_BF16,
    FC_DT_FP8_E4M3,
    FC_DT_FP8_E5M2,
    FC_DT_FP4_E2M1,
    FC_DT_INT8,
    FC_DT_INT32,
    FC_DT_COMPLEX64,
    FC_DT_COMPLEX128,
    FC_DT_FP64_TENSOR, /* only in peak tables: FP64 on tensor cores */
    FC_DT_FP6_E2M3,    /* Blackwell's 6-bit floats (CUDA_R_6F_E2M3, _E3M2) */
    FC_DT_FP6_E3M2,
    FC_DT_COUNT
};

/* "fp32", "bf16", ... ; "unknown" for anything out of range. */
const char *fc_dtype_name(int dt);
/* Inverse of fc_dtype_name, case-insensitive; also takes "float32",
 * "float16", "bfloat16", "fp8" (= fp8_e4m3), "int8". Returns FC_DT_UNKNOWN
 * when the name is not known. */
int fc_dtype_from_name(const char *name);
/* 1 for complex64/complex128 (a complex multiply-add is 8 real FLOPs). */
int fc_dtype_is_complex(int dt);

/* CUDA's cudaDataType_t values (library_types.h), mapped to fc_dtype. */
int fc_dtype_from_cuda(int cuda_data_type);
/* Name of a cudaDataType_t value for the "out_dtype" field. */
const char *fc_cuda_type_name(int cuda_data_type);
/* Name of a cublasComputeType_t value ("32F", "32F_FAST_TF32", ...). */
const char *fc_compute_type_name(int compute_type);

#endif
