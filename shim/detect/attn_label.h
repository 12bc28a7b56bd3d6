/* SPDX-License-Identifier: Apache-2.0 */
/* attn_label.h - how a counted attention call (FC_IREC_ATTN) of a segment
 * is labelled: by what its kernel is and where it ran, never by addresses
 * (it reads no weight). phase.c labels every other record. */
#ifndef FC_ATTN_LABEL_H
#define FC_ATTN_LABEL_H

#include <stdint.h>

#include "irec.h"

/* The class (enum fc_cls) of attention record r at relative index i of a
 * segment whose backward starts at t_bwd (-1: none found); declared: the
 * segment's phases are declared by the program. A backward kernel is
 * backward; a forward kernel is forward before the backward starts and a
 * recomputation after it (activation checkpointing runs the forward
 * kernel again inside the backward), unless the program declared its
 * phase; in a segment without a backward it is an evaluation forward. */
uint8_t fc_attn_class(const fc_irec *r, int64_t i, int64_t t_bwd, int declared);

#endif
