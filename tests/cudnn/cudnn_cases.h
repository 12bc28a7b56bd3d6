/* SPDX-License-Identifier: Apache-2.0 */
/* cudnn_cases.h - the graphs the process-level cuDNN tests build (on the
 * real library and on the fake one) and how they read the report a run
 * under the shim wrote: the attention shapes of source "cudnn", the
 * matmul shapes, the uncounted names. The expected figures come from
 * cb_expect (pairs counted one by one), never from the shim. */
#ifndef FC_TEST_CUDNN_CASES_H
#define FC_TEST_CUDNN_CASES_H

#include <stdint.h>

#include "sdpa_build.h"

struct json_object;

/* The attention problems every process-level test builds. */
#define CC_N_SDPA 7
extern const cb_sdpa cc_sdpa[CC_N_SDPA];
/* The plain matmul graph: [3, 64, 32] x [3, 32, 48]. */
void cc_build_matmul(cb_graph *g);
#define CC_MM_M 64
#define CC_MM_N 48
#define CC_MM_K 32
#define CC_MM_BATCH 3

/* The report a --check run reads (cc_check_mode sets it). */
extern const char *cc_report;
/* argv "--check REPORT": runs the cmocka test check on it and returns the
 * exit status; -1 for any other argv. */
int cc_check_mode(int argc, char **argv, void (*check)(void **));
/* Runs one cmocka test; the exit status. */
int cc_run_test(void (*test)(void **));

/* The run mode's "run linked|dlopen LIBCUDNN": loads LIBCUDNN (RTLD_LOCAL)
 * and fills api - with dlsym on it (dlopen), or with linked (the
 * program's own references; NULL in a program that links no cuDNN). The
 * handle, or NULL with the reason on stderr. */
void *cc_open(int argc, char **argv, cb_api *api, void (*linked)(cb_api *));
/* The linked functions, where the program links them (cb_api_linked). */
#ifdef FC_CUDNN_DLOPEN_ONLY
#define CC_LINKED NULL
#else
#define CC_LINKED cb_api_linked
#endif

/* Device memory for api (dev_alloc / dev_free) and the stream to run on:
 * on the null GPU (FLOPCOUNT_TEST_NULLGPU=1, the real cuDNN) cudaMalloc
 * and cudaStreamCreate of the toolkit's runtime, as a cuDNN program on a
 * GPU has them; otherwise (the fake cuDNN, which never touches them) host
 * memory and a made-up stream. 0, or -1 with the reason on stderr. */
int cc_device(cb_api *api, cudaStream_t *stream);
/* An empty CUDA graph (cudaGraphCreate) after cc_device on the null GPU; a
 * made-up one for the fake cuDNN. */
cudaGraph_t cc_cuda_graph(void);

struct json_object *cc_load(const char *path);
/* The attention shape of s in the report: checks its fields, calls and
 * failed calls, and its per-call and total FLOPs against the hand count. */
void cc_expect_attention(struct json_object *r, const cb_sdpa *s, uint64_t calls,
                         uint64_t failed, int bound);
/* attention.calls / failed_calls / by_source.cudnn.calls. */
void cc_expect_attention_totals(struct json_object *r, uint64_t calls, uint64_t failed);
/* The cuDNN matmul shape (api cudnnBackendExecute:matmul). */
void cc_expect_matmul(struct json_object *r, uint64_t calls, uint64_t failed);
/* The uncounted entry name (reason given) with these calls; fails when absent. */
void cc_expect_uncounted(struct json_object *r, const char *name, const char *reason,
                         uint64_t calls, uint64_t failed);

#endif
