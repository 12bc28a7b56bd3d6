/* SPDX-License-Identifier: Apache-2.0 */
/* merge_gen.c - writes synthetic per-rank reports (see merge_gen.h) with
 * the same JSON writer the shim uses; `merge_gen DIR [options]` from the
 * tests, fc_gen_reports() from the benchmark. */
#include "merge_gen.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonw.h"

void fc_gen_defaults(fc_gen_opts *o)
{
    memset(o, 0, sizeof *o);
    o->ranks = 4;
    o->missing = o->straggler = o->outlier = o->duplicate = -1;
    o->iterations = 10;
    o->shapes = 4;
    o->batch = 1;
    o->step_seconds = 0.1;
    o->slow_seconds = 0.15;
}

/* Extra k=4096 shapes this rank runs per iteration. */
static int extra_shapes(const fc_gen_opts *o, int rank)
{
    int extra = rank == o->outlier ? 1 : 0;
    if (o->stages > 1)
        extra += rank / (o->ranks / o->stages);
    return extra;
}

static void shape(fc_jw *w, int64_t k, uint64_t batch, int calls)
{
    fc_u128 per_call = (fc_u128)2 * 8192 * 8192 * (fc_u128)k * batch;
    fc_jw_obj_begin(w, NULL);
    fc_jw_str(w, "api", "cublasGemmStridedBatchedEx");
    fc_jw_i64(w, "m", 8192);
    fc_jw_i64(w, "n", 8192);
    fc_jw_i64(w, "k", k);
    fc_jw_i64(w, "batch", (int64_t)batch);
    fc_jw_str(w, "transa", "N");
    fc_jw_str(w, "transb", "T");
    fc_jw_str(w, "dtype", "bf16");
    fc_jw_str(w, "out_dtype", "bf16");
    fc_jw_str(w, "compute", "32F");
    fc_jw_u64(w, "calls", (uint64_t)calls);
    fc_jw_u128(w, "flops", per_call * (fc_u128)calls);
    fc_jw_u64(w, "failed_calls", 0);
    fc_jw_obj_end(w);
}

static void filler(fc_jw *w, int j)
{
    fc_jw_obj_begin(w, NULL);
    fc_jw_str(w, "api", "cublasLtMatmul");
    fc_jw_i64(w, "m", j + 1);
    fc_jw_i64(w, "n", 64);
    fc_jw_i64(w, "k", 64);
    fc_jw_i64(w, "batch", 1);
    fc_jw_str(w, "transa", "T");
    fc_jw_str(w, "transb", "N");
    fc_jw_str(w, "dtype", "bf16");
    fc_jw_str(w, "out_dtype", "bf16");
    fc_jw_str(w, "compute", "32F");
    fc_jw_u64(w, "calls", 1);
    fc_jw_u128(w, "flops", (fc_u128)2 * (uint64_t)(j + 1) * 64 * 64);
    fc_jw_u64(w, "failed_calls", 0);
    fc_jw_obj_end(w);
}

static void iterations(fc_jw *w, const fc_gen_opts *o, int rank, fc_u128 per_iter)
{
    double s = rank == o->straggler ? o->slow_seconds : o->step_seconds;
    fc_jw_obj_begin(w, "iterations");
    fc_jw_u64(w, "count", (uint64_t)o->iterations);
    fc_jw_str(w, "detected_by", "synthetic");
    fc_jw_double(w, "median_seconds", s);
    fc_jw_arr_begin(w, "list");
    for (int i = 0; i < o->iterations; i++) {
        fc_jw_obj_begin(w, NULL);
        fc_jw_u64(w, "index", (uint64_t)i);
        fc_jw_double(w, "start_seconds", 1.0 + i * s);
        fc_jw_double(w, "seconds", s);
        fc_jw_u128(w, "flops", per_iter);
        fc_jw_u128(w, "forward_flops", per_iter / 2);
        fc_jw_u128(w, "backward_flops", per_iter / 2);
        fc_jw_u128(w, "recompute_flops", 0);
        fc_jw_u64(w, "calls", (uint64_t)o->shapes + (uint64_t)extra_shapes(o, rank));
        if (i == o->iterations - 1 && i > 0)
            fc_jw_bool(w, "open_end", 1); /* as the shim marks the last one */
        fc_jw_obj_end(w);
    }
    fc_jw_arr_end(w);
    fc_jw_obj_end(w);
}

static void head(fc_jw *w, const fc_gen_opts *o, int rank, double wall)
{
    char host[32];
    snprintf(host, sizeof host, "node%d", rank / 8);
    fc_jw_i64(w, "schema", 1);
    fc_jw_obj_begin(w, "tool");
    fc_jw_str(w, "name", "flopcount");
    fc_jw_str(w, "version", "0.1.0");
    fc_jw_obj_end(w);
    fc_jw_obj_begin(w, "process");
    fc_jw_i64(w, "pid", 1000 + rank);
    fc_jw_str(w, "command", "python train.py --synthetic");
    fc_jw_str(w, "hostname", host);
    fc_jw_i64(w, "rank", rank);
    fc_jw_i64(w, "local_rank", rank % 8);
    fc_jw_i64(w, "world_size", o->ranks);
    fc_jw_str(w, "launcher", "torchrun");
    fc_jw_bool(w, "fork_child", 0);
    fc_jw_obj_end(w);
    fc_jw_str(w, "status", "complete");
    fc_jw_double(w, "wall_seconds", wall);
}

static int write_rank(const char *path, const fc_gen_opts *o, int rank)
{
    static fc_jw w;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    int extra = extra_shapes(o, rank), its = o->iterations > 0 ? o->iterations : 1;
    fc_u128 call = (fc_u128)1 << 40; /* 2 * 8192^3 */
    fc_u128 per_iter = (call * (fc_u128)o->shapes + call / 2 * (fc_u128)extra) * o->batch;
    fc_u128 total = per_iter * (fc_u128)its;
    uint64_t calls = (uint64_t)(o->shapes + extra) * (uint64_t)its + (uint64_t)o->filler;
    for (int j = 0; j < o->filler; j++)
        total += (fc_u128)2 * (uint64_t)(j + 1) * 64 * 64;
    double s = rank == o->straggler ? o->slow_seconds : o->step_seconds;
    fc_jw_init(&w, fd, 1);
    fc_jw_obj_begin(&w, NULL);
    head(&w, o, rank, 2.0 + its * s);
    fc_jw_obj_begin(&w, "totals");
    fc_jw_u64(&w, "gemm_calls", calls);
    fc_jw_u128(&w, "gemm_flops", total);
    fc_jw_u64(&w, "failed_calls", 0);
    fc_jw_u64(&w, "invalid_calls", 0);
    fc_jw_u64(&w, "unresolved_calls", 0);
    fc_jw_u64(&w, "distinct_shapes", (uint64_t)((extra ? 2 : 1) + o->filler));
    fc_jw_u64(&w, "overflow_calls", 0);
    fc_jw_obj_end(&w);
    fc_jw_obj_begin(&w, "by_api");
    fc_jw_obj_begin(&w, "cublasGemmStridedBatchedEx");
    fc_jw_u64(&w, "calls", calls);
    fc_jw_u128(&w, "flops", total);
    fc_jw_obj_end(&w);
    fc_jw_obj_end(&w);
    fc_jw_arr_begin(&w, "shapes");
    shape(&w, 8192, o->batch, o->shapes * its);
    if (extra)
        shape(&w, 4096, o->batch, extra * its);
    for (int j = 0; j < o->filler; j++)
        filler(&w, j);
    fc_jw_arr_end(&w);
    if (o->iterations > 0)
        iterations(&w, o, rank, per_iter);
    fc_jw_obj_end(&w);
    int rc = fc_jw_finish(&w);
    return close(fd) != 0 || rc != 0 ? -1 : 0;
}

int fc_gen_reports(const char *dir, const fc_gen_opts *o)
{
    char path[4096];
    for (int r = 0; r < o->ranks; r++) {
        if (r == o->missing)
            continue;
        snprintf(path, sizeof path, "%s/rank%d.json", dir, r);
        if (write_rank(path, o, r) != 0)
            return -1;
        if (r == o->duplicate) {
            snprintf(path, sizeof path, "%s/rank%d-again.json", dir, r);
            if (write_rank(path, o, r) != 0)
                return -1;
        }
    }
    return 0;
}

#ifndef FC_GEN_NO_MAIN
static int int_opt(const char *v, int *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || x < -1 || x > 1000000)
        return -1;
    *out = (int)x;
    return 0;
}

static int take(fc_gen_opts *o, const char *flag, const char *v)
{
    static const char *const names[] = {"--ranks",  "--missing",    "--straggler",
                                        "--outlier", "--duplicate", "--stages",
                                        "--iterations", "--shapes", "--filler"};
    int *slots[] = {&o->ranks,  &o->missing,    &o->straggler, &o->outlier, &o->duplicate,
                    &o->stages, &o->iterations, &o->shapes,    &o->filler};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(flag, names[i]) == 0)
            return int_opt(v, slots[i]);
    char *end;
    if (strcmp(flag, "--batch") == 0) {
        o->batch = strtoull(v, &end, 10);
        return *end == '\0' && o->batch > 0 ? 0 : -1;
    }
    double *d = strcmp(flag, "--step") == 0 ? &o->step_seconds
                : strcmp(flag, "--slow") == 0 ? &o->slow_seconds : NULL;
    if (d == NULL)
        return -1;
    *d = strtod(v, &end);
    return *end == '\0' && *d > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    fc_gen_opts o;
    fc_gen_defaults(&o);
    if (argc < 2 || (argc - 2) % 2 != 0) {
        fprintf(stderr, "usage: merge_gen DIR [--ranks N --missing R --straggler R --outlier R "
                        "--duplicate R --stages K --iterations N --shapes N --filler N --batch B "
                        "--step S --slow S]\n");
        return 2;
    }
    for (int i = 2; i < argc; i += 2)
        if (take(&o, argv[i], argv[i + 1]) != 0) {
            fprintf(stderr, "merge_gen: bad %s %s\n", argv[i], argv[i + 1]);
            return 2;
        }
    if (fc_gen_reports(argv[1], &o) != 0) {
        perror("merge_gen");
        return 1;
    }
    return 0;
}
#endif
