// SPDX-License-Identifier: Apache-2.0
// cutlass2_grouped_prog.cu - CUTLASS 2 grouped GEMM launches as the
// grouped_gemm package (and older Megatron MoE) makes them
// (cutlass::Kernel<cutlass::gemm::kernel::GemmGrouped<Mma, Epilogue,
// Swizzle, GroupScheduleMode, Transposed>>), with the Params layout written
// here from CUTLASS's public headers (gemm_grouped.h: the problem
// visitor's Params {GemmCoord const *problem_sizes; int32_t
// problem_count; void const *workspace; int32_t tile_count;} then int
// threadblock_count; no CUTLASS code). Run on the null GPU under the shim
// (tests/moe/moe.cmake); the problem sizes copied to device memory.
//
//   G   fp16 (half_t), 2 problems {m, n, k} = {8, 64, 32}, {24, 64, 32},
//       grid 108 = threadblock_count; launched twice. Each launch:
//       2 * (8 + 24) * 64 * 32 = 131,072 FLOPs; group work m*n*k
//       16,384 and 49,152, mean 32,768: imbalance 1.5; rows 8..24.
//   Defence (each its own kernel, so its own entry; never read):
//   D1  0 problems                       "0 problems, out of 1..65536"
//   D2  problem_sizes NULL               "problem_sizes is NULL"
//   D3  threadblock_count 108, grid 54   "threadblock_count 108, not the grid's 54"
//   D4  tile_count -1                    "tile_count -1 is negative"
//   D5  Params of 16 bytes               "parameter 0 is 16 bytes, less than the 36"
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

namespace cutlass {
struct half_t { uint16_t x; };
namespace gemm {
struct GemmCoord { int m, n, k; };
namespace threadblock { template <class Element, int Tag> struct MmaMultistage {}; }
namespace kernel {
enum class GroupScheduleMode { kDeviceOnly, kHostPrecompute };
template <class Mma, class Epilogue, class Swizzle, GroupScheduleMode Mode, bool Transposed>
struct GemmGrouped {
    struct Params {
        struct {
            GemmCoord const *problem_sizes;
            int32_t problem_count;
            void const *workspace;
            int32_t tile_count;
        } problem_visitor;
        int threadblock_count;
        char output_op_pointers_strides[220];
    };
};
} // namespace kernel
} // namespace gemm
template <class K> __global__ void Kernel(typename K::Params params) {}
} // namespace cutlass

using namespace cutlass::gemm;
template <int Tag>
using GG = kernel::GemmGrouped<threadblock::MmaMultistage<cutlass::half_t, Tag>, void, void,
                               kernel::GroupScheduleMode::kDeviceOnly, false>;
static_assert(offsetof(GG<0>::Params, problem_visitor.problem_count) == 8, "problem_count at 8");
static_assert(offsetof(GG<0>::Params, problem_visitor.tile_count) == 24, "tile_count at 24");
static_assert(offsetof(GG<0>::Params, threadblock_count) == 32, "threadblock_count at 32");
static_assert(sizeof(GemmCoord) == 12, "12 bytes a problem");

// D5: a kernel of the right name whose Params is too small
struct Small { void *problem_sizes; int32_t problem_count, pad; };
namespace cutlass { namespace gemm { namespace kernel {
template <> struct GemmGrouped<threadblock::MmaMultistage<cutlass::half_t, 5>, void, void,
                               GroupScheduleMode::kDeviceOnly, false> {
    typedef Small Params;
};
}}} // namespace cutlass::gemm::kernel

template <class K> static int launch(int count, void *sizes, int tiles, int blocks, unsigned grid)
{
    typename K::Params p;
    memset(&p, 0, sizeof p);
    p.problem_visitor.problem_sizes = (GemmCoord const *)sizes;
    p.problem_visitor.problem_count = count;
    p.problem_visitor.tile_count = tiles;
    p.threadblock_count = blocks;
    cutlass::Kernel<K><<<dim3(grid), 128>>>(p);
    return cudaGetLastError() != cudaSuccess;
}

int main()
{
    const GemmCoord host[2] = {{8, 64, 32}, {24, 64, 32}};
    void *dev = NULL;
    if (cudaMalloc(&dev, sizeof host) != cudaSuccess ||
        cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "cutlass2_grouped_prog: no device memory\n");
        return 1;
    }
    int bad = launch<GG<0>>(2, dev, 0, 108, 108) | launch<GG<0>>(2, dev, 0, 108, 108);
    bad |= launch<GG<1>>(0, dev, 0, 108, 108);    // D1
    bad |= launch<GG<2>>(2, NULL, 0, 108, 108);   // D2
    bad |= launch<GG<3>>(2, dev, 0, 108, 54);     // D3
    bad |= launch<GG<4>>(2, dev, -1, 108, 108);   // D4
    {                                             // D5
        Small s = {dev, 2, 0};
        cutlass::Kernel<GG<5>><<<dim3(108), 128>>>(s);
        bad |= cudaGetLastError() != cudaSuccess;
    }
    bad |= cudaDeviceSynchronize() != cudaSuccess;
    if (bad)
        fprintf(stderr, "cutlass2_grouped_prog: a launch failed\n");
    return bad;
}
