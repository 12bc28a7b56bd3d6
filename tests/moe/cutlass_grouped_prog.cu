// SPDX-License-Identifier: Apache-2.0
// cutlass_grouped_prog.cu - CUTLASS 3 grouped GEMM launches as
// torch._grouped_mm makes them (cutlass::device_kernel<GemmUniversal<
// GroupProblemShape<Shape<int, int, int>>, ...>>), with the Params layout
// of CUTLASS 3.x written here from its public headers (no CUTLASS code):
// GemmUniversalMode mode, then GroupProblemShape {int32_t num_groups;
// Shape *problem_shapes; Shape const *host_problem_shapes;}, then the
// mainloop's and epilogue's params. Run on the null GPU under the shim
// (tests/moe/moe.cmake); the problem shapes are copied to device memory
// from the host, as PyTorch's kernel fills them from offs.
//
//   G   bf16, 3 groups: {m, n, k} = {32, 64, 128}, {16, 64, 128},
//       {48, 64, 128}; launched twice. Each launch: 2 * (32 + 16 + 48) *
//       64 * 128 = 1,572,864 FLOPs; group work m*n*k over the mean:
//       48 / 32 = 1.5.
//   Defence (each its own kernel, so its own entry; never decoded):
//   D1  mode 3 (kArray)                  "mode 3, not kGrouped (4)"
//   D2  0 groups                         "0 groups, out of 1..65536"
//   D3  70000 groups                     "70000 groups, out of 1..65536"
//   D4  problem_shapes NULL              "problem_shapes is NULL"
//   D5  Params of 16 bytes               "parameter 0 is 16 bytes"
//   D6  GroupProblemShape<tuple<long, long, long>>: "not a GemmUniversal
//       over GroupProblemShape<Shape<int, int, int>>"
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

namespace cute {
template <typename... T> struct tuple;
template <> struct tuple<int, int, int> { int m, n, k; };
template <> struct tuple<long, long, long> { long m, n, k; };
} // namespace cute
namespace cutlass {
struct bfloat16_t { uint16_t x; };
namespace gemm {
enum class GemmUniversalMode { kGemm, kGemmSplitKParallel, kBatched, kArray, kGrouped, kInvalid };
template <class Shape> struct GroupProblemShape {
    int32_t num_groups;
    Shape *problem_shapes;
    Shape const *host_problem_shapes;
};
namespace collective { template <class Element, int Tag> struct CollectiveMma {}; }
namespace kernel {
template <class ProblemShape, class Mainloop, class Epilogue> struct GemmUniversal {
    struct Params {
        GemmUniversalMode mode;
        ProblemShape problem_shape;
        char mainloop_epilogue_scheduler[224];
    };
};
} // namespace kernel
} // namespace gemm
template <class Kernel> __global__ void device_kernel(typename Kernel::Params params) {}
} // namespace cutlass

using namespace cutlass::gemm;
typedef GroupProblemShape<cute::tuple<int, int, int>> Int3;
typedef kernel::GemmUniversal<Int3, collective::CollectiveMma<cutlass::bfloat16_t, 0>, void> G;
static_assert(offsetof(G::Params, problem_shape) == 8, "GroupProblemShape at offset 8");
static_assert(offsetof(Int3, problem_shapes) == 8, "problem_shapes 8 bytes into it");
static_assert(sizeof(cute::tuple<int, int, int>) == 12, "12 bytes a group");

// D5: a kernel of the right name whose Params is too small to hold the
// grouped fields
struct Small { int32_t mode, pad, num_groups, pad2; };
namespace cutlass { namespace gemm { namespace kernel {
template <class PS, class E> struct GemmUniversal<PS, collective::CollectiveMma<cutlass::bfloat16_t, 5>, E> {
    typedef Small Params;
};
}}} // namespace cutlass::gemm::kernel

template <class K> static int launch(int mode, int groups, void *shapes)
{
    typename K::Params p;
    memset(&p, 0, sizeof p);
    p.mode = (GemmUniversalMode)mode;
    p.problem_shape.num_groups = groups;
    p.problem_shape.problem_shapes = (decltype(p.problem_shape.problem_shapes))shapes;
    cutlass::device_kernel<K><<<dim3(132), 384>>>(p);
    return cudaGetLastError() != cudaSuccess;
}

int main()
{
    const cute::tuple<int, int, int> host[3] = {{32, 64, 128}, {16, 64, 128}, {48, 64, 128}};
    void *dev = NULL;
    if (cudaMalloc(&dev, sizeof host) != cudaSuccess ||
        cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "cutlass_grouped_prog: no device memory\n");
        return 1;
    }
    int bad = launch<G>(4, 3, dev) | launch<G>(4, 3, dev);
    typedef collective::CollectiveMma<cutlass::bfloat16_t, 1> M1;
    typedef collective::CollectiveMma<cutlass::bfloat16_t, 2> M2;
    typedef collective::CollectiveMma<cutlass::bfloat16_t, 3> M3;
    typedef collective::CollectiveMma<cutlass::bfloat16_t, 4> M4;
    bad |= launch<kernel::GemmUniversal<Int3, M1, void>>(3, 3, dev);     // D1
    bad |= launch<kernel::GemmUniversal<Int3, M2, void>>(4, 0, dev);     // D2
    bad |= launch<kernel::GemmUniversal<Int3, M3, void>>(4, 70000, dev); // D3
    bad |= launch<kernel::GemmUniversal<Int3, M4, void>>(4, 3, NULL);    // D4
    {                                                                     // D5
        typedef kernel::GemmUniversal<Int3, collective::CollectiveMma<cutlass::bfloat16_t, 5>, void> K;
        Small s = {4, 0, 3, 0};
        cutlass::device_kernel<K><<<dim3(132), 384>>>(s);
        bad |= cudaGetLastError() != cudaSuccess;
    }
    bad |= launch<kernel::GemmUniversal<GroupProblemShape<cute::tuple<long, long, long>>, M1, void>>(
        4, 3, dev); // D6
    bad |= cudaDeviceSynchronize() != cudaSuccess;
    if (bad)
        fprintf(stderr, "cutlass_grouped_prog: a launch failed\n");
    return bad;
}
