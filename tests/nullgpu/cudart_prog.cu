/* SPDX-License-Identifier: Apache-2.0 */
/* cudart_prog.cu - the real CUDA runtime (built -cudart shared and static) on
 * the null GPU: every call the program makes must succeed, data copied to the
 * device must come back, a __device__ array's size must be what the cubin
 * says, and the launch log (FLOPCOUNT_NULLGPU_LAUNCH_LOG) must hold the
 * kernel's name, grid, block and parameter bytes, checked by the test
 * script. Exit status: the number of failed checks. */
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__device__ float table[4096]; /* 16,384 bytes */

/* parameters: 8 (pointer) + 4 (float) + 4 (int) = 16 bytes */
__global__ void scale(float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::printf("FAIL %s:%d: ", __FILE__, __LINE__);                                       \
            std::printf(__VA_ARGS__);                                                              \
            std::printf("\n");                                                                     \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)
#define OK(call) CHECK((call) == cudaSuccess, "%s: %s", #call, cudaGetErrorString(cudaGetLastError()))

int main()
{
    const int n = 1024;
    static float h[1024], back[1024];
    for (int i = 0; i < n; i++)
        h[i] = (float)i;
    int count = 0;
    OK(cudaGetDeviceCount(&count));
    CHECK(count == 1, "device count %d", count);
    cudaDeviceProp p;
    OK(cudaGetDeviceProperties(&p, 0));
    std::printf("device: %s, %d SMs, cc %d.%d\n", p.name, p.multiProcessorCount, p.major, p.minor);

    float *d = nullptr;
    OK(cudaMalloc(&d, n * sizeof(float)));
    OK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    scale<<<4, 256>>>(d, 2.0f, n);
    OK(cudaGetLastError());
    OK(cudaMemcpy(back, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(std::memcmp(back, h, sizeof h) == 0, "data did not come back (kernels are no-ops)");

    size_t sym = 0;
    OK(cudaGetSymbolSize(&sym, table));
    CHECK(sym == sizeof(float) * 4096, "symbol size %zu, want 16384", sym);
    OK(cudaMemcpyToSymbol(table, h, sizeof h, 64));
    static float b2[1024];
    OK(cudaMemcpyFromSymbol(b2, table, sizeof b2, 64));
    CHECK(b2[7] == 7.0f, "symbol copy back %g", b2[7]);

    cudaPointerAttributes pa;
    OK(cudaPointerGetAttributes(&pa, d));
    CHECK(pa.type == cudaMemoryTypeDevice, "pointer type %d", (int)pa.type);
    float *pinned = nullptr;
    OK(cudaMallocHost(&pinned, 4096));
    OK(cudaPointerGetAttributes(&pa, pinned));
    CHECK(pa.type == cudaMemoryTypeHost, "pinned pointer type %d", (int)pa.type);
    OK(cudaMemset(d, 0, 16));
    OK(cudaMemcpy(back, d, 16, cudaMemcpyDefault));
    CHECK(back[0] == 0.0f && back[3] == 0.0f, "memset");

    cudaStream_t s;
    cudaEvent_t a, b;
    OK(cudaStreamCreate(&s));
    OK(cudaEventCreate(&a));
    OK(cudaEventCreate(&b));
    OK(cudaEventRecord(a, s));
    scale<<<8, 128, 0, s>>>(d, 3.0f, n);
    OK(cudaEventRecord(b, s));
    OK(cudaEventSynchronize(b));
    float ms = -1;
    OK(cudaEventElapsedTime(&ms, a, b));
    CHECK(ms >= 0, "elapsed %g", ms);

    /* a captured graph: one kernel and one copy, replayed twice */
    cudaGraph_t g;
    cudaGraphExec_t ge;
    float *d2 = nullptr;
    OK(cudaMalloc(&d2, n * sizeof(float)));
    OK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    scale<<<2, 512, 0, s>>>(d, 3.0f, n);
    OK(cudaMemcpyAsync(d2, d, n * sizeof(float), cudaMemcpyDeviceToDevice, s));
    OK(cudaStreamEndCapture(s, &g));
    size_t nodes = 0;
    OK(cudaGraphGetNodes(g, nullptr, &nodes));
    CHECK(nodes == 2, "graph nodes %zu", nodes);
    OK(cudaGraphInstantiate(&ge, g, 0));
    OK(cudaGraphLaunch(ge, s));
    OK(cudaGraphLaunch(ge, s));
    OK(cudaStreamSynchronize(s));
    OK(cudaMemcpy(back, d2, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(back[9] == 9.0f, "graph copy %g", back[9]);
    OK(cudaGraphExecDestroy(ge));
    OK(cudaGraphDestroy(g));

    size_t free_b = 0, total_b = 0;
    OK(cudaMemGetInfo(&free_b, &total_b));
    CHECK(total_b == p.totalGlobalMem && free_b < total_b, "mem info %zu of %zu", free_b, total_b);
    OK(cudaFree(d));
    OK(cudaFree(d2));
    OK(cudaFreeHost(pinned));
    OK(cudaDeviceSynchronize());
    std::printf("%d failed\n", failures);
    return failures;
}
