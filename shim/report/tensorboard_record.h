/* SPDX-License-Identifier: Apache-2.0 */
/* tensorboard_record.h - TensorBoard event records, encoded by hand
 * (tensorboard_record.c): the TFRecord framing and the few protobuf fields
 * of TensorFlow's Event and Summary messages a scalar needs. Field numbers
 * and framing: docs/tensorboard.md. Appends into a caller's fixed buffer;
 * allocates nothing. */
#ifndef FC_TENSORBOARD_RECORD_H
#define FC_TENSORBOARD_RECORD_H

#include <stddef.h>
#include <stdint.h>

/* One Summary.Value: tag (at most 127 bytes) and simple_value. */
typedef struct fc_tb_scalar {
    const char *tag;
    float value;
} fc_tb_scalar;

/* Builds the CRC32C table (once; the constructor, before any record). */
void fc_tb_record_init(void);
/* CRC32C (Castagnoli, reflected polynomial 0x82F63B78) of n bytes. */
uint32_t fc_tb_crc32c(const uint8_t *p, size_t n);

/* Append one TFRecord to out[*used .. cap): the Event that starts every
 * event file (file_version "brain.Event:2"), or one Event with a Summary
 * of n scalars at step. 0 with *used advanced; -1 when it does not fit
 * (nothing appended). */
int fc_tb_append_version(uint8_t *out, size_t cap, size_t *used, double wall_time);
int fc_tb_append_scalars(uint8_t *out, size_t cap, size_t *used, double wall_time, int64_t step,
                         const fc_tb_scalar *v, size_t n);

#endif
