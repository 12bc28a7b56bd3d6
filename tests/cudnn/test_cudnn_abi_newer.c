/* SPDX-License-Identifier: Apache-2.0 */
/* test_cudnn_abi_newer.c - the numbers shim/cudnn/cudnn_abi.h holds from
 * cuDNN versions newer than the toolkit's 9.19 header (the ones PyTorch's
 * cuDNN 9.26 sets), by compile-time assertion against the header of the
 * nvidia-cudnn wheel in the torch environment (scripts/deps.sh test);
 * built only where that environment is. The program then checks that the
 * header is at least the version those numbers came from. */
#include <cudnn_graph.h>
#include <stdio.h>

#include "cudnn/cudnn_abi.h"

_Static_assert((int)FC_CD_OP_DIAGONAL_BAND_MASK ==
                   (int)CUDNN_BACKEND_OPERATION_DIAGONAL_BAND_MASK_DESCRIPTOR,
               "FC_CD_OP_DIAGONAL_BAND_MASK");
_Static_assert((int)FC_CA_OP_SDPA_FWD_SUBGRAPH == (int)CUDNN_ATTR_OPERATION_SDPA_FWD_SUBGRAPH,
               "FC_CA_OP_SDPA_FWD_SUBGRAPH");
_Static_assert((int)FC_CA_OP_SDPA_FWD_SUBGRAPH_INPUT_UID ==
                   (int)CUDNN_ATTR_OPERATION_SDPA_FWD_SUBGRAPH_INPUT_UID,
               "FC_CA_OP_SDPA_FWD_SUBGRAPH_INPUT_UID");
_Static_assert((int)FC_CA_OP_SDPA_FWD_SUBGRAPH_OUTPUT_UID ==
                   (int)CUDNN_ATTR_OPERATION_SDPA_FWD_SUBGRAPH_OUTPUT_UID,
               "FC_CA_OP_SDPA_FWD_SUBGRAPH_OUTPUT_UID");
_Static_assert(CUDNN_ATTR_OPERATION_SDPA_FWD_SOFTMAX_DESC == 2814, "SDPA_FWD_SOFTMAX_DESC");
_Static_assert(CUDNN_ATTR_OPERATION_RESHAPE_MODE == 2202, "RESHAPE_MODE");
#define BAND(fc, name)                                                                             \
    _Static_assert((int)fc == (int)CUDNN_ATTR_OPERATION_DIAGONAL_BAND_MASK_##name, #name)
BAND(FC_CA_OP_BAND_XDESC, XDESC);
BAND(FC_CA_OP_BAND_SEQ_LEN_KVDESC, SEQ_LEN_KVDESC);
BAND(FC_CA_OP_BAND_SEQ_LEN_QDESC, SEQ_LEN_QDESC);
BAND(FC_CA_OP_BAND_LEFT_BOUND_DESC, LEFT_BOUND_DESC);
BAND(FC_CA_OP_BAND_SHIFT_RIGHT_BOUND_DESC, SHIFT_RIGHT_BOUND_DESC);
BAND(FC_CA_OP_BAND_BDESC, BDESC);
BAND(FC_CA_OP_BAND_YDESC, YDESC);
BAND(FC_CA_OP_BAND_COMPARISON_MODE, COMPARISON_MODE);
/* the comparisons the band reads, as pointwise modes */
_Static_assert((int)FC_PW_CMP_GE == (int)CUDNN_POINTWISE_CMP_GE, "CMP_GE");
_Static_assert((int)FC_PW_CMP_GT == (int)CUDNN_POINTWISE_CMP_GT, "CMP_GT");
_Static_assert((int)FC_PW_CMP_LE == (int)CUDNN_POINTWISE_CMP_LE, "CMP_LE");
_Static_assert((int)FC_PW_CMP_LT == (int)CUDNN_POINTWISE_CMP_LT, "CMP_LT");
_Static_assert((int)FC_CT_POINTWISE_MODE == (int)CUDNN_TYPE_POINTWISE_MODE, "TYPE_POINTWISE_MODE");

int main(void)
{
    if (CUDNN_GRAPH_MAJOR != 9 || CUDNN_GRAPH_MINOR < 21) {
        fprintf(stderr, "cudnn_graph.h %d.%d: the newer numbers need 9.21 or later\n",
                CUDNN_GRAPH_MAJOR, CUDNN_GRAPH_MINOR);
        return 1;
    }
    printf("cuDNN %d.%d header: the shim's newer numbers agree\n", CUDNN_GRAPH_MAJOR,
           CUDNN_GRAPH_MINOR);
    return 0;
}
