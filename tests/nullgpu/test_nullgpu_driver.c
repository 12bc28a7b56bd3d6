/* SPDX-License-Identifier: Apache-2.0 */
/* test_nullgpu_driver.c - the null GPU's driver on its own, one case per
 * run (argv[1]): each private export table the CUDA libraries ask for, the
 * log of an unsupported entry point, and fork from a threaded process.
 * Linked against build/nullgpu/libcuda.so.1. Exit 0 when every check holds;
 * each failure prints one line. */
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

typedef void *const *table_t;

static table_t table(const unsigned char id[16])
{
    const void *t = NULL;
    CUuuid u;
    memcpy(u.bytes, id, 16);
    CUresult rc = cuGetExportTable(&t, &u);
    CHECK(rc == CUDA_SUCCESS && t != NULL, "table %02x%02x%02x%02x: rc %d", id[0], id[1], id[2], id[3], rc);
    return t;
}

static size_t table_bytes(table_t t) { return (size_t)(uintptr_t)t[0]; }

static CUcontext primary;

static void setup(void)
{
    CUdevice dev;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&primary, dev) != CUDA_SUCCESS || cuCtxSetCurrent(primary) != 0) {
        printf("FAIL: no device / context\n");
        exit(1);
    }
}

static const unsigned char CUDART[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
                                         0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
static const unsigned char HOOKS[16] = {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74,
                                        0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66};
static const unsigned char TLS[16] = {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47,
                                      0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc};
static const unsigned char CLS[16] = {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11,
                                      0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93};
static const unsigned char CHECKS[16] = {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43,
                                         0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e};
static const unsigned char INTEGRITY[16] = {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
                                            0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2};
static const unsigned char DEVEXT[16] = {0xb1, 0x05, 0x41, 0xe1, 0xf7, 0xc7, 0xc7, 0x4a,
                                         0x9f, 0x64, 0xf2, 0x23, 0xbe, 0x99, 0xf1, 0xe2};
/* the tail bytes of these two are not known publicly; the first four decide */
static const unsigned char CTXID[16] = {0x21, 0x31, 0x8c, 0x60, 0x97, 0x14, 0x32, 0x48,
                                        0x8c, 0xa6, 0x41, 0xff, 0x73, 0x24, 0xc8, 0xf2};
static const unsigned char T1734[16] = {0x17, 0x34, 0xdc, 0x26, 0xb2, 0x61, 0x43, 0x4c,
                                        0x8a, 0x6d, 0x4a, 0xf4, 0x1c, 0x95, 0x32, 0x11};
static const unsigned char NVRTC[16] = {0xda, 0x91, 0x51, 0xd3, 0x4a, 0x2e, 0x4c, 0x12,
                                        0x99, 0x03, 0x6c, 0x4f, 0x31, 0x7a, 0x02, 0x55};

/* CUDART_INTERFACE: slot 2 the primary context, slots 1/6/8 a module from a
 * fatbin wrapper / header, slot 12 success. */
static void case_cudart(void)
{
    table_t t = table(CUDART);
    if (t == NULL)
        return;
    CHECK(table_bytes(t) == 13 * sizeof(void *), "size %zu", table_bytes(t));
    CUcontext c = NULL;
    CHECK(((CUresult(*)(CUcontext *, CUdevice))t[2])(&c, 0) == 0 && c == primary, "slot 2 context");
    static const unsigned long long fatbin[4] = {0x00100001BA55ED50ull, 0, 0, 0};
    struct { int magic, version; const void *data, *rest; } wrapper = {0x466243b1, 1, fatbin, NULL};
    CUmodule m = NULL;
    CHECK(((CUresult(*)(CUmodule *, const void *))t[1])(&m, &wrapper) == 0 && m != NULL, "slot 1 module");
    CUfunction f = NULL;
    CHECK(cuModuleGetFunction(&f, m, "kernel") == 0 && f != NULL, "function of the slot 1 module");
    m = NULL;
    CHECK(((CUresult(*)(const void *, CUmodule *, void *, void *, unsigned))t[8])(fatbin, &m, NULL, NULL, 0) == 0 &&
              m != NULL, "slot 8 module");
    CHECK(((CUresult(*)(void))t[12])() == 0, "slot 12");
}

static void case_hooks(void)
{
    table_t t = table(HOOKS);
    if (t == NULL)
        return;
    CHECK(table_bytes(t) == 7 * sizeof(void *), "size %zu", table_bytes(t));
    void *p = NULL;
    size_t n = 0;
    ((void (*)(void **, size_t *))t[2])(&p, &n);
    CHECK(p != NULL && n == 1024, "slot 2 buffer %p %zu", p, n);
    memset(p, 0xab, n); /* must be writable for its whole size */
    ((void (*)(void **, size_t *))t[6])(&p, &n);
    CHECK(p != NULL && n == 14, "slot 6 buffer %p %zu", p, n);
}

static void *tls_other_thread(void *arg)
{
    CUcontext c = (CUcontext)1;
    ((CUresult(*)(CUcontext *))((table_t)arg)[2])(&c);
    return c; /* no context current on a new thread: the primary one */
}

/* TOOLS_TLS slot 2: the calling thread's current context, the primary one
 * where none is current (cuBLAS on a thread of its own needs one). */
static void case_tls(void)
{
    table_t t = table(TLS);
    if (t == NULL)
        return;
    CUcontext c = NULL, mine = NULL;
    ((CUresult(*)(CUcontext *))t[2])(&c);
    CHECK(c == primary, "slot 2 gives %p, current %p", (void *)c, (void *)primary);
    CHECK(cuCtxCreate_v4(&mine, NULL, 0, 0) == 0, "cuCtxCreate");
    ((CUresult(*)(CUcontext *))t[2])(&c);
    CHECK(c == mine, "slot 2 after a push");
    pthread_t th;
    void *other = NULL;
    pthread_create(&th, NULL, tls_other_thread, (void *)t);
    pthread_join(th, &other);
    CHECK(other == (void *)primary, "another thread sees %p, not the primary context", other);
    cuCtxDestroy_v2(mine);
}

typedef CUresult (*cls_put_t)(CUcontext, void *, void *, void *);
typedef CUresult (*cls_del_t)(CUcontext, void *);
typedef CUresult (*cls_get_t)(void **, CUcontext, void *);

static void case_cls(void)
{
    table_t t = table(CLS);
    if (t == NULL)
        return;
    int key1, key2;
    void *v = NULL;
    CHECK(((cls_put_t)t[0])(primary, &key1, (void *)0x1234, NULL) == 0, "put");
    CHECK(((cls_put_t)t[0])(NULL, &key2, (void *)0x5678, NULL) == 0, "put on the current context");
    CHECK(((cls_get_t)t[2])(&v, primary, &key1) == 0 && v == (void *)0x1234, "get key1 %p", v);
    CHECK(((cls_get_t)t[2])(&v, NULL, &key2) == 0 && v == (void *)0x5678, "get key2 %p", v);
    CHECK(((cls_put_t)t[0])(primary, &key1, (void *)0x9999, NULL) == 0, "replace");
    CHECK(((cls_get_t)t[2])(&v, primary, &key1) == 0 && v == (void *)0x9999, "replaced %p", v);
    CHECK(((cls_del_t)t[1])(primary, &key1) == 0, "delete");
    CHECK(((cls_get_t)t[2])(&v, primary, &key1) != 0, "get after delete succeeded");
    CUcontext other;
    cuCtxCreate_v4(&other, NULL, 0, 0);
    CHECK(((cls_get_t)t[2])(&v, other, &key2) != 0, "storage leaked into another context");
    cuCtxDestroy_v2(other);
}

static void case_checks(void)
{
    table_t t = table(CHECKS);
    if (t == NULL)
        return;
    uint32_t r1 = 77;
    const void *r2 = NULL;
    CHECK(((CUresult(*)(CUcontext, uint32_t *, const void **))t[2])(primary, &r1, &r2) == 0 && r1 == 0,
          "slot 2: %u", r1);
    CHECK(((uint32_t(*)(void))t[3])() == 0, "slot 3");
}

/* The fixed answer for versions ending in 0; for others the answer depends
 * on the time passed in (checked for real by the runtime tests, 13002). */
static void case_integrity(void)
{
    table_t t = table(INTEGRITY);
    if (t == NULL)
        return;
    typedef CUresult (*ic_t)(uint32_t, uint64_t, uint64_t *);
    uint64_t a[2] = {0}, b[2] = {0}, c[2] = {0};
    CHECK(((ic_t)t[1])(13000, 1700000000, a) == 0 && a[0] == 0x3341181C03CB675Cull &&
              a[1] == 0x8ED383AA1F4CD1E8ull, "13000: %llx %llx", (unsigned long long)a[0], (unsigned long long)a[1]);
    CHECK(((ic_t)t[1])(13002, 1700000000, b) == 0, "13002");
    CHECK(((ic_t)t[1])(13002, 1700000000, c) == 0 && b[0] == c[0] && b[1] == c[1], "not repeatable");
    CHECK(((ic_t)t[1])(13002, 1700000001, c) == 0 && (b[0] != c[0] || b[1] != c[1]),
          "the time does not change the answer");
}

/* context identity (cuBLAS, cuBLASLt, cuDNN): >= 95 slots, slot 4 the
 * context's id, 39 and 51 success. */
static void case_ctxid(void)
{
    table_t t = table(CTXID);
    if (t == NULL)
        return;
    CHECK(table_bytes(t) >= 95 * sizeof(void *), "size %zu", table_bytes(t));
    unsigned long long id = 0, want = 0;
    cuCtxGetId(primary, &want);
    CHECK(((CUresult(*)(CUcontext, unsigned long long *))t[4])(primary, &id) == 0 && id == want && id != 0,
          "slot 4: %llu, cuCtxGetId %llu", id, want);
    CHECK(((uintptr_t(*)(void))t[39])() == 0 && ((uintptr_t(*)(void))t[51])() == 0, "slots 39 and 51");
}

static void case_t1734(void)
{
    table_t t = table(T1734);
    if (t != NULL)
        CHECK(((uintptr_t(*)(void))t[4])() == 0, "slot 4");
}

static void case_devext(void)
{
    table_t t = table(DEVEXT);
    if (t == NULL)
        return;
    size_t out[2] = {0, 0};
    CHECK(((CUresult(*)(CUdevice, unsigned, int, size_t *))t[5])(0, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0, out) == 0 &&
              out[0] == 132, "slot 5: %zu SMs", out[0]);
}

/* NVRTC's table must be refused: with one, NVRTC hands cuDNN empty cubins. */
static void case_nvrtc(void)
{
    const void *t = (const void *)1;
    CUuuid u;
    memcpy(u.bytes, NVRTC, 16);
    CHECK(cuGetExportTable(&t, &u) != CUDA_SUCCESS && t == NULL, "NVRTC table given");
}

/* An entry point the null GPU lacks: NOT_SUPPORTED from the symbol and from
 * cuGetProcAddress, its name logged once (the script counts the lines). */
static void case_unsupported(void)
{
    typedef CUresult (*array_create_t)(CUarray *, const CUDA_ARRAY_DESCRIPTOR *);
    CUDA_ARRAY_DESCRIPTOR d = {16, 16, CU_AD_FORMAT_FLOAT, 1};
    CUarray a;
    array_create_t direct = (array_create_t)dlsym(RTLD_DEFAULT, "cuArrayCreate_v2");
    void *viaproc = NULL;
    CUdriverProcAddressQueryResult q;
    CHECK(direct != NULL, "no cuArrayCreate_v2 symbol");
    CHECK(cuGetProcAddress_v2("cuArrayCreate", &viaproc, 13000, 0, &q) == 0 && q == CU_GET_PROC_ADDRESS_SUCCESS &&
              viaproc == (void *)direct, "cuGetProcAddress gives %p, the symbol is %p", viaproc, (void *)direct);
    for (int i = 0; i < 3 && direct != NULL; i++)
        CHECK(direct(&a, &d) == CUDA_ERROR_NOT_SUPPORTED, "call %d not NOT_SUPPORTED", i);
    CHECK(cuGetProcAddress_v2("cuNoSuchFunction", &viaproc, 13000, 0, &q) == CUDA_ERROR_NOT_FOUND &&
              q == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND && viaproc == NULL, "unknown name found");
    CHECK(cuGetProcAddress_v2("cuMemAlloc", &viaproc, 3020, 0, &q) == 0 &&
              viaproc == dlsym(RTLD_DEFAULT, "cuMemAlloc_v2"), "cuMemAlloc at 3020 is not cuMemAlloc_v2");
    CHECK(cuGetProcAddress_v2("cuGraphInstantiate", &viaproc, 13000, 0, &q) == 0 &&
              viaproc == dlsym(RTLD_DEFAULT, "cuGraphInstantiateWithFlags"), "cuGraphInstantiate at 13000");
}

/* No stream is in a green context: cuStreamGetGreenCtx answers NULL (cuDNN
 * 9.26's cudnnSetStream fails without an answer), directly and through
 * cuGetProcAddress. */
static void case_greenctx(void)
{
    typedef CUresult (*get_green_t)(CUstream, CUgreenCtx *);
    CUstream s = NULL;
    CUgreenCtx g = (CUgreenCtx)1;
    CHECK(cuStreamCreate(&s, 0) == CUDA_SUCCESS, "no stream");
    CHECK(cuStreamGetGreenCtx(s, &g) == CUDA_SUCCESS && g == NULL, "stream: green context %p",
          (void *)g);
    g = (CUgreenCtx)1;
    CHECK(cuStreamGetGreenCtx(NULL, &g) == CUDA_SUCCESS && g == NULL, "NULL stream: %p", (void *)g);
    CHECK(cuStreamGetGreenCtx(s, NULL) == CUDA_ERROR_INVALID_VALUE, "no pointer accepted");
    void *fn = NULL;
    CUdriverProcAddressQueryResult q;
    CHECK(cuGetProcAddress_v2("cuStreamGetGreenCtx", &fn, 13000, 0, &q) == 0 && fn != NULL,
          "cuGetProcAddress has no cuStreamGetGreenCtx");
    g = (CUgreenCtx)1;
    CHECK(fn != NULL && ((get_green_t)fn)(s, &g) == CUDA_SUCCESS && g == NULL, "through the proc");
    cuStreamDestroy_v2(s);
}

/* ---- fork from a threaded process ---- */
static int stop; /* atomic */

static void *busy(void *arg)
{
    (void)arg;
    cuCtxSetCurrent(primary);
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        CUdeviceptr p;
        char buf[256] = {0};
        if (cuMemAlloc_v2(&p, 1 << 16) == 0) {
            cuMemcpyHtoD_v2(p, buf, sizeof buf);
            cuMemFree_v2(p);
        }
        CUstream s;
        if (cuStreamCreate(&s, 0) == 0)
            cuStreamDestroy_v2(s);
    }
    return NULL;
}

static int child_work(void)
{
    alarm(20); /* a lock left held would hang: die instead */
    cuCtxSetCurrent(primary);
    CUdeviceptr p;
    char in[4096], out[4096];
    for (int i = 0; i < 4096; i++)
        in[i] = (char)i;
    if (cuMemAlloc_v2(&p, sizeof in) != 0 || cuMemcpyHtoD_v2(p, in, sizeof in) != 0 ||
        cuMemcpyDtoH_v2(out, p, sizeof out) != 0 || memcmp(in, out, sizeof in) != 0)
        return 1;
    CUmodule m;
    CUfunction f;
    static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n";
    if (cuModuleLoadData(&m, ptx) != 0 || cuModuleGetFunction(&f, m, "k") != 0 ||
        cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL) != 0)
        return 2;
    return cuMemFree_v2(p) == 0 ? 0 : 3;
}

static void case_fork(void)
{
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, busy, NULL);
    for (int k = 0; k < 64; k++) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(child_work());
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d: status %#x", k, st);
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
}

int main(int argc, char **argv)
{
    static const struct { const char *name; void (*fn)(void); } cases[] = {
        {"cudart", case_cudart}, {"hooks", case_hooks},   {"tls", case_tls},
        {"cls", case_cls},       {"checks", case_checks}, {"integrity", case_integrity},
        {"ctxid", case_ctxid},   {"t1734", case_t1734},   {"devext", case_devext},
        {"nvrtc", case_nvrtc},   {"unsupported", case_unsupported}, {"fork", case_fork},
        {"greenctx", case_greenctx},
    };
    if (argc != 2)
        return 2;
    setup();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].fn();
            printf("%s: %d failed\n", argv[1], failures);
            return failures != 0;
        }
    printf("unknown case %s\n", argv[1]);
    return 2;
}
