// SPDX-License-Identifier: Apache-2.0
// moe_read_cutlass.cu - what the opt-in read of grouped sizes
// (--read-device-sizes, docs/moe.md) costs the host on the CUTLASS launch
// path: a CUTLASS 3 grouped launch (cutlass::device_kernel<GemmUniversal<
// GroupProblemShape<Shape<int, int, int>>, ...>>, the Params layout written
// from CUTLASS's public headers as in tests/moe/cutlass_grouped_prog.cu) on
// the null GPU under the shim, the read on and off (bench/moe_read_cost.sh).
//
//   moe_read_cutlass [--rounds 300] [--batch 32]
//
// A round: `batch` launches (bf16, 3 groups {32,16,48} x 64 x 128) timed on
// the calling thread; cudaDeviceSynchronize (untimed: the copies land); then
// flopcount_snapshot_get timed, which drains the rings on this thread (the
// landed reads fed as GEMMs, or the uncounted launches). batch is at most
// 32, the shim's slots in flight. Prints medians over rounds of ns per
// launch and ns of the drain per launch, with their 10th and 90th
// percentiles; fails when the FLOPs counted are not 1,572,864 a launch
// (read on) or 0 (off).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <flopcount.h>
#include <vector>

namespace cute {
template <typename... T> struct tuple;
template <> struct tuple<int, int, int> { int m, n, k; };
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

static double now_ns()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double pct(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    return v[(size_t)(p * (double)(v.size() - 1))];
}

int main(int argc, char **argv)
{
    int rounds = 300, batch = 32;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--rounds") == 0)
            rounds = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--batch") == 0)
            batch = atoi(argv[i + 1]);
    }
    if (rounds < 1 || batch < 1 || batch > 32) {
        fprintf(stderr, "usage: moe_read_cutlass [--rounds N] [--batch 1..32]\n");
        return 2;
    }
    typedef int (*snap_fn)(flopcount_snapshot *);
    snap_fn snap = (snap_fn)dlsym(RTLD_DEFAULT, "flopcount_snapshot_get");
    const cute::tuple<int, int, int> host[3] = {{32, 64, 128}, {16, 64, 128}, {48, 64, 128}};
    void *dev = NULL;
    if (snap == NULL || cudaMalloc(&dev, sizeof host) != cudaSuccess ||
        cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "moe_read_cutlass: run under the shim, with a (null) GPU\n");
        return 1;
    }
    G::Params p;
    memset(&p, 0, sizeof p);
    p.mode = GemmUniversalMode::kGrouped;
    p.problem_shape.num_groups = 3;
    p.problem_shape.problem_shapes = (cute::tuple<int, int, int> *)dev;
    std::vector<double> call(rounds), drain(rounds);
    flopcount_snapshot s;
    int bad = 0;
    for (int r = -10; r < rounds; r++) { // 10 rounds of warm-up
        double t0 = now_ns();
        for (int i = 0; i < batch; i++)
            cutlass::device_kernel<G><<<dim3(132), 384>>>(p);
        double t1 = now_ns();
        bad |= cudaDeviceSynchronize() != cudaSuccess;
        memset(&s, 0, sizeof s);
        s.size = sizeof s;
        double t2 = now_ns();
        bad |= snap(&s) != 0;
        double t3 = now_ns();
        if (r >= 0) {
            call[r] = (t1 - t0) / batch;
            drain[r] = (t3 - t2) / batch;
        }
    }
    const char *rd = getenv("FLOPCOUNT_READ_DEVICE_SIZES");
    int on = rd != NULL && strcmp(rd, "1") == 0;
    // 2 * (32 + 16 + 48) * 64 * 128 = 1,572,864 FLOPs a launch, counted only when read
    unsigned long long want = on ? 1572864ull * (unsigned long long)(rounds + 10) * (unsigned long long)batch : 0;
    if (bad || s.gemm_flops_lo != want) {
        fprintf(stderr, "moe_read_cutlass: launches %s, %llu FLOPs counted (want %llu)\n",
                bad ? "failed" : "ok", (unsigned long long)s.gemm_flops_lo, want);
        return 1;
    }
    printf("cutlass read %s: launch median %.0f ns (p10 %.0f, p90 %.0f); drain per launch median "
           "%.0f ns (p10 %.0f, p90 %.0f)\n",
           on ? "on " : "off", pct(call, 0.5), pct(call, 0.1), pct(call, 0.9), pct(drain, 0.5),
           pct(drain, 0.1), pct(drain, 0.9));
    return 0;
}
