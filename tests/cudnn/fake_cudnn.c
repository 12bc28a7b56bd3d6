/* SPDX-License-Identifier: Apache-2.0 */
/* fake_cudnn.c - a fake libcudnn.so.9 shaped as the real one: it defines
 * the backend API itself only to forward it, through pointers taken with
 * dlopen("libcudnn_graph.so.9") + dlsym at the first call, to the library
 * that implements it (fake_cudnn_graph.c). So a program's call passes the
 * shim twice, as with the real cuDNN 9: the exported hook, then the hook
 * the shim's dlsym answered this library with. */
#include <cudnn_graph.h>
#include <dlfcn.h>
#include <pthread.h>

static struct {
    void *create, *destroy, *init, *set, *get, *fin, *exec, *pop, *upd, *mk, *rm, *sets, *gets;
} fn;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    void *h = dlopen("libcudnn_graph.so.9", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL)
        return;
    fn.create = dlsym(h, "cudnnBackendCreateDescriptor");
    fn.destroy = dlsym(h, "cudnnBackendDestroyDescriptor");
    fn.init = dlsym(h, "cudnnBackendInitialize");
    fn.set = dlsym(h, "cudnnBackendSetAttribute");
    fn.get = dlsym(h, "cudnnBackendGetAttribute");
    fn.fin = dlsym(h, "cudnnBackendFinalize");
    fn.exec = dlsym(h, "cudnnBackendExecute");
    fn.pop = dlsym(h, "cudnnBackendPopulateCudaGraph");
    fn.upd = dlsym(h, "cudnnBackendUpdateCudaGraph");
    fn.mk = dlsym(h, "cudnnCreate");
    fn.rm = dlsym(h, "cudnnDestroy");
    fn.sets = dlsym(h, "cudnnSetStream");
    fn.gets = dlsym(h, "cudnnGetStream");
}

#define CALL(ptr, type, ...)                                                                  \
    do {                                                                                      \
        pthread_once(&once, load);                                                            \
        if (fn.ptr == NULL)                                                                   \
            return CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED;                                    \
        return ((type)fn.ptr)(__VA_ARGS__);                                                   \
    } while (0)

typedef cudnnStatus_t (*create_t)(cudnnBackendDescriptorType_t, cudnnBackendDescriptor_t *);
typedef cudnnStatus_t (*one_t)(cudnnBackendDescriptor_t);
typedef cudnnStatus_t (*set_t)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
                               cudnnBackendAttributeType_t, int64_t, const void *);
typedef cudnnStatus_t (*get_t)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
                               cudnnBackendAttributeType_t, int64_t, int64_t *, void *);
typedef cudnnStatus_t (*exec_t)(cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t);
typedef cudnnStatus_t (*graph_t)(cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t,
                                 cudaGraph_t);

cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t t, cudnnBackendDescriptor_t *d)
{
    CALL(create, create_t, t, d);
}

cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t d)
{
    CALL(destroy, one_t, d);
}

cudnnStatus_t cudnnBackendInitialize(cudnnBackendDescriptor_t d)
{
    CALL(init, one_t, d);
}

cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t a,
                                       cudnnBackendAttributeType_t t, int64_t n, const void *el)
{
    CALL(set, set_t, d, a, t, n, el);
}

cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const d,
                                       cudnnBackendAttributeName_t a, cudnnBackendAttributeType_t t,
                                       int64_t r, int64_t *n, void *el)
{
    CALL(get, get_t, d, a, t, r, n, el);
}

cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t d)
{
    CALL(fin, one_t, d);
}

cudnnStatus_t cudnnBackendExecute(cudnnHandle_t h, cudnnBackendDescriptor_t p,
                                  cudnnBackendDescriptor_t v)
{
    CALL(exec, exec_t, h, p, v);
}

cudnnStatus_t cudnnBackendPopulateCudaGraph(cudnnHandle_t h, cudnnBackendDescriptor_t p,
                                            cudnnBackendDescriptor_t v, cudaGraph_t g)
{
    CALL(pop, graph_t, h, p, v, g);
}

cudnnStatus_t cudnnBackendUpdateCudaGraph(cudnnHandle_t h, cudnnBackendDescriptor_t p,
                                          cudnnBackendDescriptor_t v, cudaGraph_t g)
{
    CALL(upd, graph_t, h, p, v, g);
}

cudnnStatus_t cudnnCreate(cudnnHandle_t *h)
{
    CALL(mk, cudnnStatus_t(*)(cudnnHandle_t *), h);
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t h)
{
    CALL(rm, cudnnStatus_t(*)(cudnnHandle_t), h);
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t h, cudaStream_t s)
{
    CALL(sets, cudnnStatus_t(*)(cudnnHandle_t, cudaStream_t), h, s);
}

cudnnStatus_t cudnnGetStream(cudnnHandle_t h, cudaStream_t *s)
{
    CALL(gets, cudnnStatus_t(*)(cudnnHandle_t, cudaStream_t *), h, s);
}

size_t cudnnGetVersion(void)
{
    return CUDNN_VERSION;
}
