/* iter.c - iteration tracking (placeholder until iterations land). */
#include "iter.h"

#include "../include/flopcount.h"

void fc_iter_init(void) {}
void fc_iter_reset_after_fork(void) {}
void fc_iter_on_call(const fc_gemm *g, fc_u128 flops)
{
    (void)g;
    (void)flops;
}
uint64_t fc_iter_count(void) { return 0; }
void fc_iter_report_json(fc_jw *w) { (void)w; }
void fc_iter_report_text(int fd) { (void)fd; }
FC_EXPORT void flopcount_step(void) {}
FC_EXPORT void flopcount_eval_begin(void) {}
FC_EXPORT void flopcount_eval_end(void) {}
