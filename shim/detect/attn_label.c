/* SPDX-License-Identifier: Apache-2.0 */
/* attn_label.c - the class of a counted attention call (attn_label.h). */
#include "attn_label.h"

#include "segment.h"

uint8_t fc_attn_class(const fc_irec *r, int64_t i, int64_t t_bwd, int declared)
{
    if (r->flags & FC_IREC_XEVAL)
        return FC_CLS_XEVAL;
    if (r->flags & FC_IREC_ATTN_BWD)
        return FC_CLS_BWD;
    if (r->phase == FC_PH_FWD)
        return FC_CLS_FWD;
    if (r->phase == FC_PH_REC)
        return FC_CLS_REC;
    if (r->phase == FC_PH_BWD) /* a forward kernel in a declared backward: recomputation */
        return (r->flags & FC_IREC_RECDECL) ? FC_CLS_BWD : FC_CLS_REC;
    if (t_bwd < 0)
        return declared ? FC_CLS_FWD : FC_CLS_EVAL;
    return i < t_bwd ? FC_CLS_FWD : FC_CLS_REC;
}
