/* SPDX-License-Identifier: Apache-2.0 */
/* report_mix.c - the dtype mix of a report read back (report_read.h):
 * "iterations.flops_by_dtype" (dtype name -> exact FLOPs of the training
 * calls) and, in "utilization", "hfu_mix", "mix_reason" and the "mix"
 * terms (dtype, share, peak_flops). All optional: a report written before
 * them reads as one without a mix. */
#include "report_read.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_get.h"

static void read_flops_by_dtype(fc_jctx *c, json_object *iters, fc_report *r)
{
    json_object *g = fc_jsection(c, iters, "flops_by_dtype", json_type_object);
    if (g == NULL)
        return;
    r->iterations.has_flops_by_dtype = 1;
    json_object_object_foreach(g, name, v)
    {
        if (c->failed)
            return;
        if (r->iterations.n_flops_by_dtype >= FC_REPORT_MIX_MAX) {
            fc_jfail(c, "iterations.flops_by_dtype: more than %d dtypes", FC_REPORT_MIX_MAX);
            return;
        }
        fc_report_group *e = &r->iterations.flops_by_dtype[r->iterations.n_flops_by_dtype];
        memset(e, 0, sizeof *e);
        snprintf(e->name, sizeof e->name, "%s", name);
        if (fc_jto_u128(v, &e->flops) != 0) {
            fc_jfail(c, "iterations.flops_by_dtype.%s: expected a non-negative integer", name);
            return;
        }
        r->iterations.n_flops_by_dtype++;
    }
}

static void read_terms(fc_jctx *c, json_object *util, fc_report *r)
{
    json_object *a = fc_jsection(c, util, "mix", json_type_array);
    if (a == NULL)
        return;
    size_t n = json_object_array_length(a);
    if (n > FC_REPORT_MIX_MAX) {
        fc_jfail(c, "utilization.mix: more than %d dtypes", FC_REPORT_MIX_MAX);
        return;
    }
    for (size_t i = 0; i < n && !c->failed; i++) {
        json_object *o = json_object_array_get_idx(a, i);
        fc_report_mix_term *t = &r->utilization.mix[i];
        if (!json_object_is_type(o, json_type_object)) {
            fc_jfail(c, "utilization.mix[%zu]: expected an object", i);
            return;
        }
        t->share = t->peak_flops = NAN; /* null or absent stays NaN */
        fc_jget_str(c, o, "utilization.mix[]", "dtype", t->dtype, sizeof t->dtype);
        fc_jget_double(c, o, "utilization.mix[]", "share", &t->share);
        fc_jget_double(c, o, "utilization.mix[]", "peak_flops", &t->peak_flops);
        r->utilization.n_mix = i + 1;
    }
}

void fc_report_read_mix(fc_jctx *c, json_object *iters, json_object *util, fc_report *r)
{
    if (iters != NULL)
        read_flops_by_dtype(c, iters, r);
    if (util == NULL || c->failed)
        return;
    fc_jget_double(c, util, "utilization", "hfu_mix", &r->utilization.hfu_mix);
    fc_jget_str(c, util, "utilization", "mix_reason", r->utilization.mix_reason,
                sizeof r->utilization.mix_reason);
    read_terms(c, util, r);
}
