/* SPDX-License-Identifier: Apache-2.0 */
/* decoders.c - what every decoder does the same way (decoders.h): the
 * checks on the launch as a whole, and the choice among the layouts a
 * name allows when the parameter size is not known. */
#include "decoders.h"

#include <stdio.h>
#include <string.h>

int fc_kp_check_call(const fc_kparams *k, const char *family, char *why, size_t n)
{
    if (k->p == NULL) {
        snprintf(why, n, "no parameters passed");
        return -1;
    }
    if (k->nparams > 1) {
        snprintf(why, n, "%d parameters; %s kernels take one", k->nparams, family);
        return -1;
    }
    return 0;
}

int fc_kp_pick(const fc_attn *got, int ok, const char *first, const char *family, fc_attn *a,
               char *why, size_t n)
{
    if (ok == 0) {
        snprintf(why, n, "%s", first);
        return -1;
    }
    for (int i = 1; i < ok; i++)
        if (memcmp(&got[i], &got[0], sizeof got[0]) != 0) {
            snprintf(why, n,
                     "layout ambiguous: the parameter size is not known and %d %s layouts "
                     "fit with different shapes",
                     ok, family);
            return -1;
        }
    *a = got[0];
    return 0;
}

void fc_kp_shape(fc_attn *a, int source, int dir, const fc_ktraits *t, const int64_t dims[7])
{
    memset(a, 0, sizeof *a);
    a->source = (uint8_t)source;
    a->dir = (uint8_t)dir;
    a->dtype = t->dtype;
    a->b = dims[0];
    a->h = dims[1];
    a->h_k = dims[2];
    a->s_q = dims[3];
    a->s_k = dims[4];
    a->d = dims[5];
    a->d_v = dims[6];
    a->window_left = a->window_right = -1;
    a->block_m = t->block_m;
    a->block_n = t->block_n;
}
