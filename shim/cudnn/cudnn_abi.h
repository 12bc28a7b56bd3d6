/* SPDX-License-Identifier: Apache-2.0 */
/* cudnn_abi.h - the numbers of cuDNN 9's backend API that the shim reads:
 * descriptor types, attribute names and types, data types, pointwise and
 * reduction modes, as cudnn_graph.h (cuDNN 9.19) defines them, and the
 * few newer ones that PyTorch's cuDNN 9.26 sets (marked with the version
 * that added them). The shim builds without cuDNN's headers (a CUDA
 * toolkit need not have them), so it keeps its own names for these
 * values; tests/cudnn/test_cudnn_abi.c checks every one against the real
 * headers (9.19; 9.26 where the torch environment has its wheel). cuDNN's
 * enums only grow: a value is never renumbered, and a newer cuDNN's new
 * values are what the shim reports as unknown (docs/cudnn.md). */
#ifndef FC_CUDNN_ABI_H
#define FC_CUDNN_ABI_H

#define FC_CUDNN_STATUS_SUCCESS 0
#define FC_CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED 1008
#define FC_CUDNN_DIM_MAX 8 /* CUDNN_DIM_MAX */

/* cudnnBackendDescriptorType_t */
enum fc_cudnn_desc_type {
    FC_CD_POINTWISE = 0,
    FC_CD_CONVOLUTION = 1,
    FC_CD_ENGINE = 2,
    FC_CD_ENGINECFG = 3,
    FC_CD_ENGINEHEUR = 4,
    FC_CD_EXECUTION_PLAN = 5,
    FC_CD_INTERMEDIATE_INFO = 6,
    FC_CD_KNOB_CHOICE = 7,
    FC_CD_KNOB_INFO = 8,
    FC_CD_LAYOUT_INFO = 9,
    FC_CD_OP_CONV_FWD = 10,
    FC_CD_OP_CONV_BWD_FILTER = 11,
    FC_CD_OP_CONV_BWD_DATA = 12,
    FC_CD_OP_POINTWISE = 13,
    FC_CD_OP_GEN_STATS = 14,
    FC_CD_OPERATIONGRAPH = 15,
    FC_CD_VARIANT_PACK = 16,
    FC_CD_TENSOR = 17,
    FC_CD_MATMUL = 18,
    FC_CD_OP_MATMUL = 19,
    FC_CD_OP_BN_FINALIZE = 20,
    FC_CD_REDUCTION = 21,
    FC_CD_OP_REDUCTION = 22,
    FC_CD_OP_BN_BWD_WEIGHTS = 23,
    FC_CD_RESAMPLE = 24,
    FC_CD_OP_RESAMPLE_FWD = 25,
    FC_CD_OP_RESAMPLE_BWD = 26,
    FC_CD_OP_CONCAT = 27,
    FC_CD_OP_SIGNAL = 28,
    FC_CD_OP_NORM_FWD = 29,
    FC_CD_OP_NORM_BWD = 30,
    FC_CD_OP_RESHAPE = 31,
    FC_CD_RNG = 32,
    FC_CD_OP_RNG = 33,
    FC_CD_KERNEL_CACHE = 34,
    FC_CD_OP_PAGED_CACHE_LOAD = 35,
    FC_CD_OP_BLOCK_SCALE_QUANTIZE = 36,
    FC_CD_OP_BLOCK_SCALE_DEQUANTIZE = 37,
    FC_CD_DEVICEPROP = 38,
    FC_CD_OP_EXPAND_BAND = 39,
    FC_CD_OP_CONTRACT_BAND = 40,
    FC_CD_OP_SDPA_FWD = 41,
    FC_CD_OP_MOE_GROUPED_MATMUL = 42,
    FC_CD_OP_SDPA_BWD = 43,
    FC_CD_KNOWN = 44, /* types of the 9.19 header: 0 .. FC_CD_KNOWN - 1 */
    /* newer than the 9.19 header (numbers and attributes from cuDNN 9.26's
     * cudnn_graph.h, as the nvidia-cudnn wheel ships it): */
    FC_CD_OP_DIAGONAL_BAND_MASK = 44, /* 9.20: a mask j - i against a bound */
};

/* cudnnBackendAttributeType_t: what the element array of a Set/Get holds */
enum {
    FC_CT_HANDLE = 0,
    FC_CT_DATA_TYPE = 1,
    FC_CT_BOOLEAN = 2, /* C bool, one byte */
    FC_CT_INT64 = 3,
    FC_CT_FLOAT = 4,
    FC_CT_DOUBLE = 5,
    FC_CT_VOID_PTR = 6,
    FC_CT_HEUR_MODE = 8,
    FC_CT_POINTWISE_MODE = 14,
    FC_CT_BACKEND_DESCRIPTOR = 15,
    FC_CT_REDUCTION_OPERATOR_TYPE = 18,
    FC_CT_INT32 = 23,
    FC_CT_CHAR = 24,
};

/* cudnnDataType_t */
enum {
    FC_CDATA_FLOAT = 0,
    FC_CDATA_DOUBLE = 1,
    FC_CDATA_HALF = 2,
    FC_CDATA_INT8 = 3,
    FC_CDATA_INT32 = 4,
    FC_CDATA_UINT8 = 6,
    FC_CDATA_BFLOAT16 = 9,
    FC_CDATA_INT64 = 10,
    FC_CDATA_BOOLEAN = 11,
    FC_CDATA_FP8_E4M3 = 12,
    FC_CDATA_FP8_E5M2 = 13,
    FC_CDATA_FAST_FLOAT_FOR_FP8 = 14,
    FC_CDATA_FP8_E8M0 = 15,
    FC_CDATA_FP4_E2M1 = 16,
    FC_CDATA_COMPLEX_FP32 = 20,
    FC_CDATA_COMPLEX_FP64 = 21,
};

/* cudnnPointwiseMode_t (the modes the walk reads) */
enum {
    FC_PW_ADD = 0,
    FC_PW_MUL = 1,
    FC_PW_DIV = 6,
    FC_PW_SUB = 9,
    FC_PW_EXP = 13,
    FC_PW_NEG = 16,
    FC_PW_IDENTITY = 21,
    FC_PW_TANH_FWD = 101,
    FC_PW_RELU_BWD = 200, /* 200..299: backward modes (DY, X -> DX) */
    FC_PW_CMP_EQ = 300,
    FC_PW_CMP_NEQ = 301,
    FC_PW_CMP_GT = 302,
    FC_PW_CMP_GE = 303,
    FC_PW_CMP_LT = 304,
    FC_PW_CMP_LE = 305,
    FC_PW_LOGICAL_AND = 400,
    FC_PW_LOGICAL_OR = 401,
    FC_PW_LOGICAL_NOT = 402,
    FC_PW_GEN_INDEX = 501,
    FC_PW_BINARY_SELECT = 601,
};

/* cudnnBackendAttributeName_t (the names the shim reads) */
enum {
    FC_CA_POINTWISE_MODE = 0,
    FC_CA_POINTWISE_AXIS = 9,

    FC_CA_ENGINEHEUR_OPERATION_GRAPH = 201,
    FC_CA_ENGINEHEUR_RESULTS = 202,
    FC_CA_ENGINECFG_ENGINE = 300,
    FC_CA_EXECUTION_PLAN_ENGINE_CONFIG = 401,
    FC_CA_EXECUTION_PLAN_JSON_REPRESENTATION = 405,

    FC_CA_OP_POINTWISE_PW_DESCRIPTOR = 750,
    FC_CA_OP_POINTWISE_XDESC = 751,
    FC_CA_OP_POINTWISE_BDESC = 752,
    FC_CA_OP_POINTWISE_YDESC = 753,
    FC_CA_OP_POINTWISE_DXDESC = 756,
    FC_CA_OP_POINTWISE_DYDESC = 757,
    FC_CA_OP_POINTWISE_TDESC = 758,

    FC_CA_OPERATIONGRAPH_OPS = 801,
    FC_CA_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED = 803,

    FC_CA_TENSOR_DATA_TYPE = 901,
    FC_CA_TENSOR_DIMENSIONS = 902,
    FC_CA_TENSOR_STRIDES = 903,
    FC_CA_TENSOR_UNIQUE_ID = 906,
    FC_CA_TENSOR_IS_VIRTUAL = 907,
    FC_CA_TENSOR_IS_BY_VALUE = 908,
    FC_CA_TENSOR_RAGGED_OFFSET_DESC = 913,

    FC_CA_VARIANT_PACK_UNIQUE_IDS = 1000,
    FC_CA_VARIANT_PACK_DATA_POINTERS = 1001,
    FC_CA_VARIANT_PACK_OVERRIDE_UNIQUE_IDS = 1010,
    FC_CA_VARIANT_PACK_OVERRIDE_SHAPES = 1011,

    FC_CA_ENGINE_OPERATION_GRAPH = 1300,

    FC_CA_OP_MATMUL_ADESC = 1520,
    FC_CA_OP_MATMUL_BDESC = 1521,
    FC_CA_OP_MATMUL_CDESC = 1522,
    FC_CA_OP_MATMUL_GEMM_M_OVERRIDE_DESC = 1525,
    FC_CA_OP_MATMUL_GEMM_N_OVERRIDE_DESC = 1526,
    FC_CA_OP_MATMUL_GEMM_K_OVERRIDE_DESC = 1527,

    FC_CA_OP_REDUCTION_XDESC = 1610,
    FC_CA_OP_REDUCTION_YDESC = 1611,

    FC_CA_OP_PAGED_CACHE_LOAD_CONTAINER_DESC = 1950,
    FC_CA_OP_PAGED_CACHE_LOAD_YDESC = 1951,

    FC_CA_OP_RESHAPE_XDESC = 2200,
    FC_CA_OP_RESHAPE_YDESC = 2201,

    FC_CA_OP_RNG_YDESC = 2310,

    FC_CA_OP_BLOCK_SCALE_QUANTIZE_XDESC = 2500,
    FC_CA_OP_BLOCK_SCALE_QUANTIZE_YDESC = 2501,
    FC_CA_OP_BLOCK_SCALE_DEQUANTIZE_XDESC = 2600,
    FC_CA_OP_BLOCK_SCALE_DEQUANTIZE_YDESC = 2602,

    FC_CA_OP_SDPA_FWD_QDESC = 2800,
    FC_CA_OP_SDPA_FWD_KDESC = 2801,
    FC_CA_OP_SDPA_FWD_VDESC = 2802,
    FC_CA_OP_SDPA_FWD_ODESC = 2803,
    FC_CA_OP_SDPA_FWD_BLOCK_MASK_DESC = 2806,
    FC_CA_OP_SDPA_FWD_PAGE_TABLE_KDESC = 2807,
    FC_CA_OP_SDPA_FWD_PAGE_TABLE_VDESC = 2808,
    FC_CA_OP_SDPA_FWD_SEQ_LEN_QDESC = 2809,
    FC_CA_OP_SDPA_FWD_SEQ_LEN_KVDESC = 2810,
    FC_CA_OP_SDPA_FWD_SUBGRAPH = 2811,            /* 9.21: the score modifier graph */
    FC_CA_OP_SDPA_FWD_SUBGRAPH_INPUT_UID = 2812,  /* 9.21 */
    FC_CA_OP_SDPA_FWD_SUBGRAPH_OUTPUT_UID = 2813, /* 9.21 */

    FC_CA_OP_SDPA_BWD_QDESC = 2851,
    FC_CA_OP_SDPA_BWD_KDESC = 2852,
    FC_CA_OP_SDPA_BWD_VDESC = 2853,
    FC_CA_OP_SDPA_BWD_SEQ_LEN_QDESC = 2857,
    FC_CA_OP_SDPA_BWD_SEQ_LEN_KVDESC = 2858,

    /* CUDNN_BACKEND_OPERATION_DIAGONAL_BAND_MASK_DESCRIPTOR (9.20) */
    FC_CA_OP_BAND_XDESC = 3000,
    FC_CA_OP_BAND_SEQ_LEN_KVDESC = 3001,
    FC_CA_OP_BAND_SEQ_LEN_QDESC = 3002,
    FC_CA_OP_BAND_LEFT_BOUND_DESC = 3003,
    FC_CA_OP_BAND_SHIFT_RIGHT_BOUND_DESC = 3004,
    FC_CA_OP_BAND_BDESC = 3005,
    FC_CA_OP_BAND_YDESC = 3006,
    FC_CA_OP_BAND_COMPARISON_MODE = 3007,
};

#endif
