/* SPDX-License-Identifier: Apache-2.0 */
/* weak_prog.c - the way flopcount.h tells a program to use the marker API
 * where the library may be absent: the functions declared weak, called
 * only when their address is set; not linked with -lflopcount. Bare it
 * prints "absent" (and must not crash); under LD_PRELOAD the library's
 * version and the FLOPs of its 1 sgemm_ of 4^3 (2 * 4^3 = 128), read back
 * through the weak flopcount_snapshot_get. */
#include <stdio.h>
#include <string.h>

#include <flopcount.h>

#pragma weak flopcount_step
#pragma weak flopcount_version
#pragma weak flopcount_snapshot_get

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);

int main(void)
{
    int n = 4;
    float one = 1, zero = 0, a[16], b[16], c[16];
    for (int i = 0; i < 16; i++)
        a[i] = b[i] = 1;
    sgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
    if (flopcount_step != NULL)
        flopcount_step();
    if (flopcount_version == NULL || flopcount_snapshot_get == NULL) {
        printf("absent\n");
        return c[0] == 4.0f ? 0 : 1;
    }
    flopcount_snapshot s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    if (flopcount_snapshot_get(&s) != 0)
        return 1;
    printf("%s %llu\n", flopcount_version(), (unsigned long long)s.gemm_flops_lo);
    return c[0] == 4.0f ? 0 : 1;
}
