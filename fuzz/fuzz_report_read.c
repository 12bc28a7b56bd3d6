/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_report_read.c - libFuzzer target for the JSON report reader
 * (analysis/io/report_read.h), which 'flopcount report' and 'merge' run on
 * files from anywhere. Any bytes: no crash, no leak (ASan), and the
 * contract: failure gives a reason and an empty report; success gives
 * schema 1 and counts that fit what was parsed. A forward profile that
 * parses is read as a model (analysis/infer.h) with any numbers in it. The
 * CUPTI sections' reader (analysis/io/report_gpu.h) runs on the same bytes.
 * The reader's fast path (report_fast.h) must agree with json-c alone
 * (fc_report_parse_tree): the same verdict, reason, shapes and iterations.
 * The big-integer quoting pass is fuzzed on its own as well: it only ever
 * adds quote characters. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "infer.h"
#include "report_gpu.h"
#include "report_read.h"

/* r (rc, err) as fc_report_parse gave it, against the json-c reader. */
static void same_as_tree(const char *text, size_t size, int rc, const fc_report *r, const char *err)
{
    fc_report t;
    char terr[256] = "";
    int trc = fc_report_parse_tree(text, size, &t, terr, sizeof terr);
    if (trc != rc || strcmp(terr, err) != 0 || t.n_shapes != r->n_shapes ||
        t.iterations.n_list != r->iterations.n_list)
        abort();
    for (size_t i = 0; i < t.n_shapes; i++) {
        const fc_report_shape *a = &r->shapes[i], *b = &t.shapes[i];
        if (strcmp(a->api, b->api) || strcmp(a->dtype, b->dtype) ||
            strcmp(a->out_dtype, b->out_dtype) || strcmp(a->compute, b->compute) || a->m != b->m ||
            a->n != b->n || a->k != b->k || a->batch != b->batch || a->transa != b->transa ||
            a->transb != b->transb || a->overflow != b->overflow || a->calls != b->calls ||
            a->failed_calls != b->failed_calls || a->flops != b->flops)
            abort();
    }
    for (size_t i = 0; i < t.iterations.n_list; i++) {
        const fc_report_iter *a = &r->iterations.list[i], *b = &t.iterations.list[i];
        if (a->index != b->index || memcmp(&a->seconds, &b->seconds, sizeof a->seconds) ||
            memcmp(&a->start_seconds, &b->start_seconds, sizeof a->seconds) ||
            a->flops != b->flops || a->forward_flops != b->forward_flops ||
            a->backward_flops != b->backward_flops || a->recompute_flops != b->recompute_flops ||
            a->attention_excess_flops != b->attention_excess_flops || a->calls != b->calls ||
            a->open_end != b->open_end || a->ambiguous != b->ambiguous ||
            a->ambiguous_recompute != b->ambiguous_recompute)
            abort();
    }
    fc_report_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    fc_report r;
    char err[256] = "";
    memset(&r, 0xa5, sizeof r); /* the parser must not rely on a zeroed struct */
    int rc = fc_report_parse(text, size, &r, err, sizeof err);
    same_as_tree(text, size, rc, &r, err);
    if (rc == 0) {
        if (r.schema != FC_REPORT_SCHEMA || (r.n_shapes > 0 && r.shapes == NULL))
            abort();
        if (r.has_profile) {
            static fc_infer_work *w;
            static fc_infer_facts f;
            static fc_inferred in;
            if (w == NULL && (w = malloc(fc_infer_work_size())) == NULL)
                abort();
            fc_fwd_profile p = {r.profile.gemms, r.profile.n_gemms, r.profile.truncated, r.profile.flops};
            fc_infer_iter it = {.have = 1, .flops = r.iterations.flops, .forward_flops = r.profile.flops,
                                .recompute_flops = r.recompute.flops, .ranks = 2};
            fc_infer_shapes(&p, w, &f);
            fc_infer_resolve(&f, NULL, &it, &in);
            if (in.complete && !f.ok)
                abort();
        }
    } else if (err[0] == '\0' || r.n_shapes != 0) {
        abort();
    }
    fc_report_free(&r);

    fc_report_gpu g;
    err[0] = '\0';
    if (fc_report_gpu_parse(text, size, &g, err, sizeof err) == 0) {
        if (g.n_shapes > 0 && g.shapes == NULL)
            abort();
        fc_report_gpu_free(&g);
    } else if (err[0] == '\0' || g.n_shapes != 0) {
        abort();
    }

    size_t outlen = 0;
    char *quoted = fc_report_quote_big_ints(text, size, &outlen);
    if (quoted != NULL) {
        size_t quotes_in = 0, quotes_out = 0;
        for (size_t i = 0; i < size; i++)
            quotes_in += text[i] == '"';
        for (size_t i = 0; i < outlen; i++)
            quotes_out += quoted[i] == '"';
        /* Same bytes plus two quotes per rewritten literal. */
        if (outlen < size || outlen - size != quotes_out - quotes_in || quoted[outlen] != '\0')
            abort();
        free(quoted);
    }
    return 0;
}
