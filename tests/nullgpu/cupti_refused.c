/* SPDX-License-Identifier: Apache-2.0 */
/* cupti_refused.c - CUPTI on the null GPU: cuptiSubscribe must fail with
 * an error and return, not take the process down.
 *
 *   cupti_refused LIBCUPTI
 *
 * CUPTI 13.2 (the nvidia-cu13 wheel's, what the shim loads under PyTorch)
 * asks the driver for private table 7cb63f9b; refused, it reports the
 * failure through a function that needs the same table and recursed until
 * the stack ran out (58,000 requests, SIGSEGV). The null GPU now gives
 * that table with no slots (nullgpu/export.c), and CUPTI answers
 * CUPTI_ERROR_UNKNOWN as the toolkit's CUPTI 13.0 does. Exit 0 when
 * cuptiSubscribe returned an error, 1 when it succeeded (the null GPU has
 * nothing CUPTI could trace: not expected), 2 when it could not be called. */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*subscribe_fn)(void **subscriber, void *callback, void *userdata);

static void callback(void *userdata, int domain, unsigned id, const void *info)
{
    (void)userdata;
    (void)domain;
    (void)id;
    (void)info;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s LIBCUPTI\n", argv[0]);
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    subscribe_fn subscribe = NULL;
    if (h != NULL)
        *(void **)&subscribe = dlsym(h, "cuptiSubscribe");
    if (subscribe == NULL) {
        fprintf(stderr, "cupti_refused: no cuptiSubscribe in %s: %s\n", argv[1], dlerror());
        return 2;
    }
    void *sub = NULL;
    int rc = subscribe(&sub, (void *)callback, NULL);
    printf("cuptiSubscribe: %d\n", rc);
    return rc != 0 ? 0 : 1;
}
