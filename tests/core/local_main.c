/* SPDX-License-Identifier: Apache-2.0 */
/* local_main.c - dlopen(plugin, RTLD_LOCAL) and call its GEMM (see local_lib.c). */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "local_main: %s\n", dlerror());
        return 2;
    }
    float (*gemm)(int, int, int) = (float (*)(int, int, int))dlsym(h, "plugin_gemm");
    float v = gemm(3, 4, 5); /* every element of C is k = 5 */
    if (v != 5.0f) {
        fprintf(stderr, "local_main: wrong result %g\n", v);
        return 1;
    }
    return 0;
}
