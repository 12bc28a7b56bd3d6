/* SPDX-License-Identifier: Apache-2.0 */
/* fixture_idle.c - a process that runs no GEMM (or, with "gemm", one
 * sgemm_ of 2x3x4), then says what the shim left in it: how many threads
 * it has and whether libunwind is mapped, read from /proc/self. Driven by
 * test_footprint_idle.c, which also takes its peak RSS.
 *
 * usage: fixture_idle [gemm]
 * prints "threads=N unwind=0|1 cpus=N" on stdout. */
#include <sched.h>
#include <stdio.h>
#include <string.h>

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *,
            const float *, const int *, const float *, const int *, const float *, float *,
            const int *, size_t, size_t);

static int threads(void)
{
    char line[256];
    int n = -1;
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "Threads: %d", &n) == 1)
            break;
    fclose(f);
    return n;
}

static int mapped(const char *name)
{
    char line[4096];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL)
        return -1;
    while (!found && fgets(line, sizeof line, f) != NULL)
        found = strstr(line, name) != NULL;
    fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "gemm") == 0) {
        const int m = 2, n = 3, k = 4, ld = 4;
        float alpha = 1, beta = 0, a[16] = {0}, b[16] = {0}, c[16] = {0};
        sgemm_("N", "N", &m, &n, &k, &alpha, a, &ld, b, &ld, &beta, c, &ld, 1, 1);
    }
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
    printf("threads=%d unwind=%d cpus=%d\n", threads(), mapped("libunwind"), cpus);
    return 0;
}
