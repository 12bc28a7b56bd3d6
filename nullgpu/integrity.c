/* SPDX-License-Identifier: Apache-2.0 */
/* integrity.c - the answer to the runtime's integrity check (private table
 * D4082055, slot 1). The runtime computes the same value and refuses to run
 * (cudaErrorSoftwareValidityNotEstablished) when the driver's differs.
 *
 * As the ZLUDA project worked out and published, the answer is HMAC-MD2
 * (RFC 1319 MD2, RFC 2104 HMAC) under a fixed 16-byte key of a record of
 * the call (driver and runtime versions, process and thread, the addresses
 * of two tables and of the check function, the time the runtime passes)
 * followed by one record per device (UUID and PCI domain, bus, device). For
 * runtime versions ending in 0 or 1 the answer is a fixed pair of words.
 * MD2 and HMAC below are written from the RFCs. */
#include "nullgpu.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

/* RFC 1319's substitution table (digits of pi) */
static const unsigned char S[256] = {
    41,  46,  67,  201, 162, 216, 124, 1,   61,  54,  84,  161, 236, 240, 6,   19,  98,  167, 5,
    243, 192, 199, 115, 140, 152, 147, 43,  217, 188, 76,  130, 202, 30,  155, 87,  60,  253, 212,
    224, 22,  103, 66,  111, 24,  138, 23,  229, 18,  190, 78,  196, 214, 218, 158, 222, 73,  160,
    251, 245, 142, 187, 47,  238, 122, 169, 104, 121, 145, 21,  178, 7,   63,  148, 194, 16,  137,
    11,  34,  95,  33,  128, 127, 93,  154, 90,  144, 50,  39,  53,  62,  204, 231, 191, 247, 151,
    3,   255, 25,  48,  179, 72,  165, 181, 209, 215, 94,  146, 42,  172, 86,  170, 198, 79,  184,
    56,  210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4,   241, 69,  157, 112, 89,  100,
    113, 135, 32,  134, 91,  207, 101, 230, 45,  168, 2,   27,  96,  37,  173, 174, 176, 185, 246,
    28,  70,  97,  105, 52,  64,  126, 15,  85,  71,  163, 35,  221, 81,  175, 58,  195, 92,  249,
    206, 186, 197, 234, 38,  44,  83,  13,  110, 133, 40,  132, 9,   211, 223, 205, 244, 65,  129,
    77,  82,  106, 220, 55,  200, 108, 193, 171, 250, 36,  225, 123, 8,   12,  189, 177, 74,  120,
    136, 149, 139, 227, 99,  232, 109, 233, 203, 213, 254, 59,  0,   29,  57,  242, 239, 183, 14,
    102, 88,  208, 228, 166, 119, 114, 248, 235, 117, 75,  10,  49,  68,  80,  180, 143, 237, 31,
    26,  219, 153, 141, 51,  159, 17,  131, 20};

typedef struct md2 {
    unsigned char x[48], c[16], buf[16];
    unsigned n;
} md2;

static void md2_block(md2 *m, const unsigned char *b)
{
    unsigned char l = m->c[15];
    for (int i = 0; i < 16; i++) {
        m->x[16 + i] = b[i];
        m->x[32 + i] = (unsigned char)(m->x[i] ^ b[i]);
        l = m->c[i] ^= S[b[i] ^ l];
    }
    unsigned t = 0;
    for (int j = 0; j < 18; j++) {
        for (int k = 0; k < 48; k++)
            t = m->x[k] ^= S[t];
        t = (t + (unsigned)j) & 0xff;
    }
}

static void md2_update(md2 *m, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len-- > 0) {
        m->buf[m->n++] = *p++;
        if (m->n == 16) {
            md2_block(m, m->buf);
            m->n = 0;
        }
    }
}

static void md2_final(md2 *m, unsigned char out[16])
{
    unsigned char pad[16];
    unsigned k = 16 - m->n;
    memset(pad, (int)k, k);
    md2_update(m, pad, k);
    unsigned char c[16];
    memcpy(c, m->c, 16);
    md2_update(m, c, 16);
    memcpy(out, m->x, 16);
}

typedef struct call_record { /* C layout: 48 bytes */
    uint32_t driver_version, version, process, thread;
    const void *cudart_table, *integrity_table, *fn;
    uint64_t seconds;
} call_record;

typedef struct device_record { /* 28 bytes */
    unsigned char uuid[16];
    int32_t pci_domain, pci_bus, pci_device;
} device_record;

static const unsigned char key[16] = {0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52,
                                      0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F};

/* cudart_table / integrity_table / fn: as the runtime sees them */
CUresult ng_integrity_answer(uint32_t version, uint64_t seconds, const void *cudart_table,
                             const void *integrity_table, const void *fn, uint64_t out[2]);
CUresult ng_integrity_answer(uint32_t version, uint64_t seconds, const void *cudart_table,
                             const void *integrity_table, const void *fn, uint64_t out[2])
{
    if (version % 10 == 0 || version % 10 == 1) {
        out[0] = version % 10 == 0 ? 0x3341181C03CB675Cull : 0x1841181C03CB675Cull;
        out[1] = 0x8ED383AA1F4CD1E8ull;
        return CUDA_SUCCESS;
    }
    int driver = 0;
    cuDriverGetVersion(&driver);
    call_record rec;
    memset(&rec, 0, sizeof rec);
    rec.driver_version = (uint32_t)driver;
    rec.version = version;
    rec.process = (uint32_t)getpid();
    rec.thread = (uint32_t)(uintptr_t)pthread_self();
    rec.cudart_table = cudart_table;
    rec.integrity_table = integrity_table;
    rec.fn = fn;
    rec.seconds = seconds;
    device_record dev;
    memset(&dev, 0, sizeof dev);
    CUuuid u;
    if (cuDeviceGetUuid_v2(&u, 0) != CUDA_SUCCESS)
        return CUDA_ERROR_NOT_INITIALIZED;
    memcpy(dev.uuid, u.bytes, 16);
    ng_device_attribute(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, &dev.pci_domain);
    ng_device_attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, &dev.pci_bus);
    ng_device_attribute(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, &dev.pci_device);

    unsigned char pad[16], inner[16], outer[16];
    md2 m;
    memset(&m, 0, sizeof m);
    for (int i = 0; i < 16; i++)
        pad[i] = key[i] ^ 0x36;
    md2_update(&m, pad, 16);
    md2_update(&m, &rec, sizeof rec);
    md2_update(&m, &dev, sizeof dev);
    md2_final(&m, inner);
    memset(&m, 0, sizeof m);
    for (int i = 0; i < 16; i++)
        pad[i] = key[i] ^ 0x5c;
    md2_update(&m, pad, 16);
    md2_update(&m, inner, 16);
    md2_final(&m, outer);
    memcpy(out, outer, 16);
    return CUDA_SUCCESS;
}
