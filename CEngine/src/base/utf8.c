/*
 * utf8.c — UTF-8: the one decoder of the engine (validation is decoding
 * without keeping the code points), and the one encoder.
 *
 * Owns: what strict UTF-8 is (utf8.h): which strings the engine stores,
 * which predicates parse, how [c]/[d] folding and LIKE step through text.
 * Never: allocates, or reads past `size`.
 */
#include "utf8.h"

#include <string.h>

uint32_t utf8_decode(const char *text, size_t size, size_t *at, bool *out_valid)
{
    const unsigned char *bytes = (const unsigned char *)text;
    size_t i = *at;
    unsigned lead = bytes[i];
    /* C0 and C1 would be overlong; F5 and above start code points past U+10FFFF. */
    size_t length = lead < 0x80 ? 1 : (lead >= 0xC2 && lead <= 0xDF) ? 2 : (lead & 0xF0) == 0xE0 ? 3
                                  : (lead >= 0xF0 && lead <= 0xF4) ? 4 : 0;
    *out_valid = false;
    *at = i + 1;
    if (length == 0 || length > size - i) return lead;
    uint32_t c = length == 1 ? lead : length == 2 ? (lead & 0x1F) : length == 3 ? (lead & 0x0F) : (lead & 0x07);
    for (size_t k = 1; k < length; k++) {
        unsigned next = bytes[i + k];
        if ((next & 0xC0) != 0x80) return lead;
        c = (c << 6) | (next & 0x3F);
    }
    static const uint32_t smallest[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < smallest[length] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return lead;
    *at = i + length;
    *out_valid = true;
    return c;
}

size_t utf8_valid_prefix(const char *data, size_t size)
{
    const unsigned char *bytes = (const unsigned char *)data;
    size_t i = 0;
    while (i < size) {
        /* Long texts are mostly ASCII: skip 8 bytes at a time while no byte
         * has its high bit set. */
        while (size - i >= 8) {
            uint64_t word;
            memcpy(&word, bytes + i, 8);
            if (word & 0x8080808080808080ull) break;
            i += 8;
        }
        if (i >= size) break;
        if (bytes[i] < 0x80) {
            i++;
            continue;
        }
        size_t next = i;
        bool valid;
        utf8_decode(data, size, &next, &valid);
        if (!valid) return i;
        i = next;
    }
    return size;
}

size_t utf8_encode(uint32_t code_point, char *out)
{
    if (code_point < 0x80) {
        out[0] = (char)code_point;
        return 1;
    }
    if (code_point < 0x800) {
        out[0] = (char)(0xC0 | (code_point >> 6));
        out[1] = (char)(0x80 | (code_point & 0x3F));
        return 2;
    }
    if (code_point < 0x10000) {
        out[0] = (char)(0xE0 | (code_point >> 12));
        out[1] = (char)(0x80 | ((code_point >> 6) & 0x3F));
        out[2] = (char)(0x80 | (code_point & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (code_point >> 18));
    out[1] = (char)(0x80 | ((code_point >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((code_point >> 6) & 0x3F));
    out[3] = (char)(0x80 | (code_point & 0x3F));
    return 4;
}
