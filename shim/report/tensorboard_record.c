/* SPDX-License-Identifier: Apache-2.0 */
/* tensorboard_record.c - TensorBoard event records without a protobuf
 * library: the shim must not bring a runtime dependency into the host.
 *
 * A TFRecord is: uint64 length, uint32 masked CRC32C of those 8 bytes, the
 * data, uint32 masked CRC32C of the data, all little-endian; the mask is
 * ((crc >> 15) | (crc << 17)) + 0xa282ead8. The data is a serialized
 * tensorflow.Event: wall_time = 1 (double, wire type 1), step = 2 (int64,
 * varint), file_version = 3 (string) or summary = 5 (message); Summary:
 * value = 1 (repeated message); Summary.Value: tag = 1 (string),
 * simple_value = 2 (float, wire type 5). Fields are written in field
 * order, as protobuf serializers do. */
#include "tensorboard_record.h"

#include <string.h>

#define MASK_DELTA 0xa282ead8u
#define HEADER 12 /* uint64 length + uint32 masked CRC of it */
#define TRAILER 4 /* uint32 masked CRC of the data */

static uint32_t table[256];

void fc_tb_record_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1u) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        table[i] = c;
    }
}

uint32_t fc_tb_crc32c(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = table[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

static uint32_t masked(uint32_t crc)
{
    return ((crc >> 15) | (crc << 17)) + MASK_DELTA;
}

/* ---- protobuf wire format into a buffer known to be large enough ---- */

static size_t varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static uint8_t *put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

static uint8_t *put_double(uint8_t *p, double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return put_le(p, bits, 8);
}

static uint8_t *put_float(uint8_t *p, float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return put_le(p, bits, 4);
}

/* key = field number << 3 | wire type */
enum { WT_VARINT = 0, WT_FIXED64 = 1, WT_LEN = 2, WT_FIXED32 = 5 };
#define KEY(field, type) ((uint8_t)((field) << 3 | (type)))

static size_t value_size(const fc_tb_scalar *v)
{
    size_t t = strlen(v->tag);
    return 1 + varint_size(t) + t + 1 + 4;
}

static size_t summary_size(const fc_tb_scalar *v, size_t n)
{
    size_t s = 0;
    for (size_t i = 0; i < n; i++) {
        size_t vs = value_size(&v[i]);
        s += 1 + varint_size(vs) + vs;
    }
    return s;
}

/* Frames the data_len bytes already encoded at rec + HEADER. */
static void frame(uint8_t *rec, size_t data_len)
{
    put_le(rec, (uint64_t)data_len, 8);
    put_le(rec + 8, masked(fc_tb_crc32c(rec, 8)), 4);
    put_le(rec + HEADER + data_len, masked(fc_tb_crc32c(rec + HEADER, data_len)), 4);
}

int fc_tb_append_version(uint8_t *out, size_t cap, size_t *used, double wall_time)
{
    static const char version[] = "brain.Event:2";
    size_t vlen = sizeof version - 1;
    size_t data = 1 + 8 + 1 + varint_size(vlen) + vlen;
    if (*used > cap || cap - *used < HEADER + data + TRAILER)
        return -1;
    uint8_t *rec = out + *used, *p = rec + HEADER;
    *p++ = KEY(1, WT_FIXED64);
    p = put_double(p, wall_time);
    *p++ = KEY(3, WT_LEN);
    p = put_varint(p, vlen);
    memcpy(p, version, vlen);
    frame(rec, data);
    *used += HEADER + data + TRAILER;
    return 0;
}

int fc_tb_append_scalars(uint8_t *out, size_t cap, size_t *used, double wall_time, int64_t step,
                         const fc_tb_scalar *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(v[i].tag) > 127)
            return -1;
    size_t sum = summary_size(v, n);
    size_t data = 1 + 8 + 1 + varint_size((uint64_t)step) + 1 + varint_size(sum) + sum;
    if (*used > cap || cap - *used < HEADER + data + TRAILER)
        return -1;
    uint8_t *rec = out + *used, *p = rec + HEADER;
    *p++ = KEY(1, WT_FIXED64);
    p = put_double(p, wall_time);
    *p++ = KEY(2, WT_VARINT);
    p = put_varint(p, (uint64_t)step); /* int64: two's complement as a varint */
    *p++ = KEY(5, WT_LEN);
    p = put_varint(p, sum);
    for (size_t i = 0; i < n; i++) {
        size_t t = strlen(v[i].tag);
        *p++ = KEY(1, WT_LEN); /* Summary.value */
        p = put_varint(p, value_size(&v[i]));
        *p++ = KEY(1, WT_LEN); /* Value.tag */
        p = put_varint(p, t);
        memcpy(p, v[i].tag, t);
        p += t;
        *p++ = KEY(2, WT_FIXED32); /* Value.simple_value */
        p = put_float(p, v[i].value);
    }
    frame(rec, data);
    *used += HEADER + data + TRAILER;
    return 0;
}
