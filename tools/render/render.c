/* SPDX-License-Identifier: Apache-2.0 */
/* render.c - the one door to the renderers (render.h): the form chosen,
 * one run or a sum of runs handed to that form's entry. */
#include "render.h"

#include <stdio.h>

#include "render_forms.h"

static int render_html(const fc_render_in *in, const char *who)
{
    char err[600];
    int rc = in->sum != NULL ? fci_html_merge_page(in->page, in->sum)
                             : fci_html_report_page(in->page, in->one);
    if (rc != 0) {
        fci_html_discard(in->page);
        fprintf(stderr, "%s: out of memory writing the page\n", who);
        return -1;
    }
    if (in->page->tmp[0] != '\0' && fci_html_commit(in->page, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", who, err);
        return -1;
    }
    return 0;
}

int fc_render(int form, const fc_render_in *in, const char *who)
{
    switch (form) {
    case FC_RENDER_JSON:
        return in->sum != NULL ? fci_json_merge(in->sum) : fci_json_report(in->one);
    case FC_RENDER_HTML:
        return render_html(in, who);
    default:
        if (in->sum != NULL)
            fci_text_merge(in->sum, in->all_ranks);
        else
            fci_text_report(in->one);
        return fflush(stdout) == 0 ? 0 : -1;
    }
}
