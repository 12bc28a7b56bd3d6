/* SPDX-License-Identifier: Apache-2.0 */
/* sections.h - the report sections about iterations (sections.c): they
 * drain the rings and hold the drain lock while they read the detector. */
#ifndef FC_REPORT_SECTIONS_H
#define FC_REPORT_SECTIONS_H

#include "jsonw.h"

/* "iterations", "eval_passes", "recompute", "utilization" and "callsites"
 * as members of the open top-level object. final: the report is the last
 * one (the detector's stream is ended, the last iteration labelled; a
 * "running" snapshot leaves it open). interrupted: written from a signal
 * handler (nothing is looked up: no driver call, no device detection). */
void fc_report_sections_json(fc_jw *w, int final, int interrupted);
/* Their lines of the human summary, on fd. Ends the detector's stream. */
void fc_report_sections_text(int fd, int interrupted);

#endif
