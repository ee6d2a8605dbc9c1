/*
 * fold.c — [c] and [d] for queries: case and diacritic folding of UTF-8
 * text, and LIKE patterns.
 *
 * Owns: the folding tables (Latin-1 Supplement, Latin Extended-A, Latin
 * Extended Additional, Greek, Cyrillic) and the LIKE matcher.
 * Never: allocates beyond the caller's folding buffer, or rejects text that
 * is not valid UTF-8 (its bytes are kept as they are).
 */
#include "fold.h"
#include "query_internal.h"
#include "utf8.h"

#include <stdint.h>
#include <stdlib.h>

/* Base letters of U+00C0..U+00FF and U+0100..U+017F ('.': no base letter). */
static const char latin1_base[64 + 1] = "AAAAAA.CEEEEIIII"
                                        "DNOOOOO.OUUUUY.."
                                        "aaaaaa.ceeeeiiii"
                                        "dnooooo.ouuuuy.y";
static const char latin_a_base[128 + 1] = "AaAaAaCcCcCcCcDd"
                                          "DdEeEeEeEeEeGgGg"
                                          "GgGgHhHhIiIiIiIi"
                                          "Ii..JjKk.LlLlLlL"
                                          "lLlNnNnNnn..OoOo"
                                          "Oo..RrRrRrSsSsSs"
                                          "SsTtTtTtUuUuUuUu"
                                          "UuUuWwYyYZzZzZz.";
/* Latin Extended Additional: one base letter per pair (upper, lower) of
 * U+1E00..U+1E95, and of U+1EA0..U+1EF9. */
static const char latin_additional_base[75 + 1] =
    "ABBBCDDDDDEEEEEFGHHHHHIIKKKLLLLMMMNNNNOOOOPPRRRRSSSSSTTTTUUUUUVVWWWWWXXYZZZ";
static const char vietnamese_base[45 + 1] = "AAAAAAAAAAAAEEEEEEEEIIOOOOOOOOOOOOUUUUUUUYYYY";

static uint32_t strip_diacritic(uint32_t c)
{
    if (c < 0xC0) return c;
    if (c <= 0xFF) return latin1_base[c - 0xC0] == '.' ? c : (uint32_t)(unsigned char)latin1_base[c - 0xC0];
    if (c <= 0x17F) return latin_a_base[c - 0x100] == '.' ? c : (uint32_t)(unsigned char)latin_a_base[c - 0x100];
    if (c >= 0x300 && c <= 0x36F) return 0; /* combining marks: dropped */
    if (c >= 0x386 && c <= 0x3CE) {
        switch (c) {
        case 0x386: return 0x391;
        case 0x388: return 0x395;
        case 0x389: return 0x397;
        case 0x38A: return 0x399;
        case 0x38C: return 0x39F;
        case 0x38E: return 0x3A5;
        case 0x38F: return 0x3A9;
        case 0x390: return 0x3B9;
        case 0x3AA: return 0x399;
        case 0x3AB: return 0x3A5;
        case 0x3AC: return 0x3B1;
        case 0x3AD: return 0x3B5;
        case 0x3AE: return 0x3B7;
        case 0x3AF: return 0x3B9;
        case 0x3B0: return 0x3C5;
        case 0x3CA: return 0x3B9;
        case 0x3CB: return 0x3C5;
        case 0x3CC: return 0x3BF;
        case 0x3CD: return 0x3C5;
        case 0x3CE: return 0x3C9;
        default: return c;
        }
    }
    if (c >= 0x400 && c <= 0x45F) {
        switch (c) {
        case 0x400: case 0x401: return 0x415; /* Ѐ Ё -> Е */
        case 0x403: return 0x413;             /* Ѓ -> Г */
        case 0x407: return 0x406;             /* Ї -> І */
        case 0x40C: return 0x41A;             /* Ќ -> К */
        case 0x40D: case 0x419: return 0x418; /* Ѝ Й -> И */
        case 0x40E: return 0x423;             /* Ў -> У */
        case 0x439: case 0x45D: return 0x438; /* й ѝ -> и */
        case 0x450: case 0x451: return 0x435; /* ѐ ё -> е */
        case 0x453: return 0x433;
        case 0x457: return 0x456;
        case 0x45C: return 0x43A;
        case 0x45E: return 0x443;
        default: return c;
        }
    }
    if (c >= 0x1E00 && c <= 0x1E95) {
        char base = latin_additional_base[(c - 0x1E00) / 2];
        return (c & 1) ? (uint32_t)(base - 'A' + 'a') : (uint32_t)base;
    }
    if (c >= 0x1E96 && c <= 0x1E9B) return (uint32_t)(unsigned char)"htwyas"[c - 0x1E96];
    if (c >= 0x1EA0 && c <= 0x1EF9) {
        char base = vietnamese_base[(c - 0x1EA0) / 2];
        return (c & 1) ? (uint32_t)(base - 'A' + 'a') : (uint32_t)base;
    }
    return c;
}

/* Simple case folding: the lowercase of an uppercase letter. */
static uint32_t fold_case(uint32_t c)
{
    if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
    if (c < 0x100) return (c >= 0xC0 && c <= 0xDE && c != 0xD7) ? c + 32 : c;
    if (c <= 0x17F) {
        switch (c) {
        case 0x130: return 'i'; /* İ */
        case 0x131: case 0x138: case 0x149: return c;
        case 0x178: return 0xFF; /* Ÿ */
        case 0x17F: return 's';  /* ſ */
        default: break;
        }
        if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c & 1) ? c + 1 : c;
        return (c & 1) ? c : c + 1;
    }
    if (c >= 0x386 && c <= 0x3AB) {
        if (c == 0x386) return 0x3AC;
        if (c >= 0x388 && c <= 0x38A) return c + 37;
        if (c == 0x38C) return 0x3CC;
        if (c == 0x38E || c == 0x38F) return c + 63;
        if (c >= 0x391 && c != 0x3A2) return c + 32;
        return c;
    }
    if (c == 0x3C2) return 0x3C3; /* final sigma */
    if (c >= 0x400 && c <= 0x40F) return c + 80;
    if (c >= 0x410 && c <= 0x42F) return c + 32;
    if ((c >= 0x460 && c <= 0x481) || (c >= 0x48A && c <= 0x4BF) || (c >= 0x4D0 && c <= 0x4FF))
        return (c & 1) ? c : c + 1;
    if (c == 0x4C0) return 0x4CF;
    if (c >= 0x4C1 && c <= 0x4CE) return (c & 1) ? c + 1 : c;
    if ((c >= 0x1E00 && c <= 0x1E95) || (c >= 0x1EA0 && c <= 0x1EFF)) return (c & 1) ? c : c + 1;
    if (c == 0x1E9E) return 0xDF; /* ẞ */
    return c;
}

bool fold_text(const char *text, size_t size, unsigned flags, char **out_text, size_t *capacity, size_t *out_size)
{
    /* A folded code point never takes more bytes than the original, and an
     * invalid byte is copied as one byte: size + 4 is always enough. */
    if (*capacity < size + 4) {
        size_t larger = size + 4 > 2 * *capacity ? size + 4 : 2 * *capacity;
        char *grown = realloc(*out_text, larger);
        if (!grown) return query_out_of_memory();
        *out_text = grown;
        *capacity = larger;
    }
    const unsigned char *bytes = (const unsigned char *)text;
    char *out = *out_text;
    size_t used = 0, i = 0;
    while (i < size) {
        if (bytes[i] < 0x80) {
            unsigned char c = bytes[i++];
            out[used++] = (char)((flags & FOLD_CASE) && c >= 'A' && c <= 'Z' ? c + 32 : c);
            continue;
        }
        size_t start = i;
        bool valid;
        uint32_t c = utf8_decode(text, size, &i, &valid);
        if (!valid) {
            out[used++] = (char)bytes[start];
            continue;
        }
        if (flags & FOLD_DIACRITICS) c = strip_diacritic(c);
        if (c == 0) continue;
        if (flags & FOLD_CASE) c = fold_case(c);
        used += utf8_encode(c, out + used);
    }
    *out_size = used;
    return true;
}

/* The bytes of the code point at text[i] (1 for an invalid byte). */
static size_t code_point_size(const char *text, size_t size, size_t i, bool bytes)
{
    if (bytes) return 1;
    size_t next = i;
    bool valid;
    utf8_decode(text, size, &next, &valid);
    return next - i;
}

bool fold_like(const char *text, size_t text_size, const char *pattern, size_t pattern_size, bool bytes)
{
    size_t t = 0, p = 0, star_pattern = SIZE_MAX, star_text = 0;
    while (t < text_size) {
        if (p < pattern_size && pattern[p] == '*') {
            star_pattern = ++p;
            star_text = t;
        } else if (p < pattern_size && pattern[p] == '?') {
            t += code_point_size(text, text_size, t, bytes);
            p++;
        } else if (p < pattern_size && pattern[p] == text[t]) {
            t++;
            p++;
        } else if (star_pattern != SIZE_MAX) {
            /* Let the last '*' take one more character, and retry after it. */
            star_text += code_point_size(text, text_size, star_text, bytes);
            t = star_text;
            p = star_pattern;
        } else {
            return false;
        }
    }
    while (p < pattern_size && pattern[p] == '*') p++;
    return p == pattern_size;
}
