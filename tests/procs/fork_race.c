/* SPDX-License-Identifier: Apache-2.0 */
/* fork_race.c - a worker thread makes its first GEMMs (sgemm_ and dgemm_
 * resolved for the first time, every call a new shape, so the shim resolves
 * and unwinds) while another thread walks the loaded objects with
 * dl_iterate_phdr, slowly (as libunwind and C++ exception handling do, and
 * as the shim's own resolution did), and the main thread forks FORKS times.
 * Each child runs GEMMs of its own - new shapes, and cgemm_ and zgemm_,
 * which the parent never resolved - and exits. A child that does not exit
 * within the timeout is hung: the shim took a lock that fork left held by
 * a thread the child does not have. Prints "children N hung H failed F"
 * and exits 1 when H or F > 0.
 *
 * usage: fork_race PLUGIN.so FORKS [TIMEOUT_S]
 * Each child's own GEMMs: 4 calls, one per entry point, m=n=k=2+(i%8):
 * FLOPs 2*d^3 (s, d) and 8*d^3 (c, z), which the caller can check in the
 * children's reports. */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef double (*gemm_fn)(int which, int m, int n, int k);

static gemm_fn plugin_gemm;
static atomic_int stop;

/* A deep stack, as under an interpreter: the shim unwinds it (up to 48
 * frames) at every new shape, which keeps libunwind busy, its locks held. */
__attribute__((noinline)) static double deep(int depth, int which, int m, int n, int k)
{
    if (depth == 0)
        return plugin_gemm(which, m, n, k);
    volatile double r = deep(depth - 1, which, m, n, k);
    return r;
}

/* New shapes all the time: every call is a first call of its shape. */
static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; !atomic_load(&stop); i++) {
        int m = 1 + i % 32, n = 1 + (i / 32) % 32, k = 1 + (i / 1024) % 32;
        deep(40, i % 2, m, n, k);
    }
    return NULL;
}

static void nap_us(long us);

/* Holds the loader's dl_iterate_phdr lock most of the time. */
static int slow_visit(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)info;
    (void)size;
    (void)ctx;
    nap_us(50);
    return 0;
}

static void *walker(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))
        dl_iterate_phdr(slow_visit, NULL);
    return NULL;
}

static void nap_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* 0 exited, 1 hung (killed), 2 failed otherwise. */
static int wait_child(pid_t pid, double timeout_s)
{
    int st;
    for (double waited = 0; waited < timeout_s; waited += 0.005) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 2;
        nap_us(5000);
    }
    /* Hung: SIGABRT first, so that a sanitizer runtime (handle_abort=1)
     * or a core dump shows where it waits; then SIGKILL. */
    fprintf(stderr, "fork_race: child %d still running after %.0f s: SIGABRT, then SIGKILL\n",
            (int)pid, timeout_s);
    kill(pid, SIGABRT);
    for (int i = 0; i < 400 && waitpid(pid, &st, WNOHANG) == 0; i++)
        nap_us(5000);
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fork_race PLUGIN.so FORKS [TIMEOUT_S]\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL || (plugin_gemm = (gemm_fn)dlsym(h, "plugin_gemm")) == NULL) {
        fprintf(stderr, "fork_race: %s\n", dlerror());
        return 2;
    }
    /* The plugin's TLS block made in this thread before any fork: else each
     * child's first GEMM allocates it with malloc, and under gcc 12's ASan
     * (whose allocator lock is not taken around fork) a child could block
     * forever on that lock held by the worker thread at fork - the
     * sanitizer's hang, not the shim's (seen in CI: the child's stack was
     * __tls_get_addr -> malloc -> the ASan allocator's mutex). */
    void (*touch)(void) = (void (*)(void))dlsym(h, "plugin_tls_touch");
    if (touch != NULL)
        touch();
    int forks = atoi(argv[2]);
    double timeout_s = argc > 3 ? atof(argv[3]) : 20;
    pthread_t t, w;
    if (pthread_create(&t, NULL, worker, NULL) != 0 || pthread_create(&w, NULL, walker, NULL) != 0)
        return 2;
    int hung = 0, failed = 0;
    for (int i = 0; i < forks; i++) {
        nap_us(i % 3 == 0 ? 0 : 200 * (i % 7));
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork_race: fork");
            return 2;
        }
        if (pid == 0) {
            int d = 2 + i % 8;
            double sum = 0;
            for (int which = 3; which >= 0; which--)
                sum += deep(20, which, d, d, d);
            _exit(sum == 4.0 * d ? 0 : 3); /* each C[0] is k */
        }
        int r = wait_child(pid, timeout_s);
        hung += r == 1;
        failed += r == 2;
    }
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    pthread_join(w, NULL);
    printf("children %d hung %d failed %d\n", forks, hung, failed);
    return hung || failed ? 1 : 0;
}
