/*
 * parse.c — the predicate language: text in, syntax tree out (see parse.h
 * for the grammar).
 *
 * Owns: decoding literals and a recursive-descent parser with a depth
 * limit over the tokens parse_lex.c cuts the whole text into first (so the
 * parser can look ahead).
 * Never: touches a schema, a transaction, argument values or data, and never
 * trusts the text: it is checked as UTF-8 first, every token is bounded by
 * the text's length, every number conversion checks its range, and nesting
 * deeper than PARSE_MAX_DEPTH is an error, not a stack overflow.
 */
#include "parse.h"
#include "parse_internal.h"
#include "buf.h"
#include "error.h"
#include "utf8.h"
#include "value.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The tree                                                                  */
/* ------------------------------------------------------------------------ */

static bool new_node(parse_tree *tree, parse_kind kind, size_t position, int *out_index)
{
    if (tree->node_count >= (size_t)INT32_MAX) return parse_out_of_memory();
    if (!buf_reserve((void **)&tree->nodes, &tree->node_capacity, tree->node_count + 1, sizeof *tree->nodes)) return false;
    parse_node *node = &tree->nodes[tree->node_count];
    memset(node, 0, sizeof *node);
    node->kind = kind;
    node->position = position;
    node->left = node->right = -1;
    node->argument = -1;
    *out_index = (int)tree->node_count++;
    return true;
}

static bool push_item(parse_tree *tree, int item)
{
    if (!buf_reserve((void **)&tree->items, &tree->item_capacity, tree->item_count + 1, sizeof *tree->items)) return false;
    tree->items[tree->item_count++] = item;
    return true;
}

/* A block of `size` bytes owned by the tree (plus a NUL). */
static bool new_block(parse_tree *tree, size_t size, char **out_block)
{
    if (!buf_reserve((void **)&tree->blocks, &tree->block_capacity, tree->block_count + 1, sizeof *tree->blocks)) return false;
    char *block = malloc(size + 1);
    if (!block) return parse_out_of_memory();
    block[size] = 0;
    tree->blocks[tree->block_count++] = block;
    *out_block = block;
    return true;
}

static bool copy_span(parse_tree *tree, const char *text, size_t start, size_t end, const char **out_copy)
{
    char *block;
    if (!new_block(tree, end - start, &block)) return false;
    memcpy(block, text + start, end - start);
    *out_copy = block;
    return true;
}

void parse_tree_free(parse_tree *tree)
{
    if (!tree) return;
    for (size_t i = 0; i < tree->block_count; i++) free(tree->blocks[i]);
    free(tree->blocks);
    free(tree->nodes);
    free(tree->items);
    free(tree->components);
    free(tree->descriptors);
    free(tree->keys);
    free(tree->geo);
    free((char *)tree->text);
    memset(tree, 0, sizeof *tree);
    tree->root = -1;
}

const char *parse_op_name(parse_op op)
{
    switch (op) {
    case PARSE_OP_EQUAL: return "==";
    case PARSE_OP_NOT_EQUAL: return "!=";
    case PARSE_OP_LESS: return "<";
    case PARSE_OP_LESS_EQUAL: return "<=";
    case PARSE_OP_GREATER: return ">";
    case PARSE_OP_GREATER_EQUAL: return ">=";
    case PARSE_OP_BEGINS_WITH: return "BEGINSWITH";
    case PARSE_OP_ENDS_WITH: return "ENDSWITH";
    case PARSE_OP_CONTAINS: return "CONTAINS";
    case PARSE_OP_LIKE: return "LIKE";
    case PARSE_OP_IN: return "IN";
    case PARSE_OP_BETWEEN: return "BETWEEN";
    case PARSE_OP_GEO_WITHIN: return "GEOWITHIN";
    }
    return "?";
}

/* ------------------------------------------------------------------------ */
/* Decoding literals                                                         */
/* ------------------------------------------------------------------------ */

static int hex_value(char c)
{
    if (parse_is_digit(c)) return c - '0';
    return parse_lower(c) - 'a' + 10;
}

/* Four hex digits at text[i]; -1 if they are not. */
static long hex4(const char *text, size_t end, size_t i)
{
    if (end < 4 || i > end - 4) return -1;
    long value = 0;
    for (size_t k = 0; k < 4; k++) {
        if (!parse_is_hex_digit(text[i + k])) return -1;
        value = value * 16 + hex_value(text[i + k]);
    }
    return value;
}

/* A quoted string token into bytes owned by the tree. Escapes: \\ \' \" \n
 * \r \t \0 \uXXXX (a surrogate pair for code points above U+FFFF). */
static bool decode_string(parser *p, const token *t, const char **out_data, size_t *out_size)
{
    const char *text = p->text;
    size_t end = t->end - 1; /* the closing quote */
    char *out;
    if (!new_block(p->tree, end - t->start, &out)) return false;
    size_t used = 0;
    for (size_t i = t->start + 1; i < end;) {
        if (text[i] != '\\') {
            out[used++] = text[i++];
            continue;
        }
        size_t escape = i;
        char c = text[i + 1]; /* i + 1 < end: the tokenizer skips an escape as a pair */
        i += 2;
        switch (c) {
        case '\\': out[used++] = '\\'; break;
        case '\'': out[used++] = '\''; break;
        case '"': out[used++] = '"'; break;
        case 'n': out[used++] = '\n'; break;
        case 'r': out[used++] = '\r'; break;
        case 't': out[used++] = '\t'; break;
        case '0': out[used++] = '\0'; break;
        /* realm-core's string escapes take these too (query_flex.ll's `escape`). */
        case '/': out[used++] = '/'; break;
        case 'b': out[used++] = '\b'; break;
        case 'f': out[used++] = '\f'; break;
        case 'u': {
            long unit = hex4(text, end, i);
            if (unit < 0) return parse_syntax_error(p, escape, "\\u must be followed by four hexadecimal digits");
            i += 4;
            uint32_t code_point = (uint32_t)unit;
            if (unit >= 0xDC00 && unit <= 0xDFFF)
                return parse_syntax_error(p, escape, "\\u%04lX is a low surrogate without a high one", unit);
            if (unit >= 0xD800 && unit <= 0xDBFF) {
                long low = (i + 1 < end && text[i] == '\\' && text[i + 1] == 'u') ? hex4(text, end, i + 2) : -1;
                if (low < 0xDC00 || low > 0xDFFF)
                    return parse_syntax_error(p, escape, "\\u%04lX is a high surrogate without a low one after it", unit);
                i += 6;
                code_point = 0x10000 + (((uint32_t)unit - 0xD800) << 10) + ((uint32_t)low - 0xDC00);
            }
            /* A \u escape is 6 bytes of text, at least what it encodes
             * (at most 3 bytes; a pair is 12 bytes for 4): the block is
             * large enough. */
            used += utf8_encode(code_point, out + used);
            break;
        }
        default: return parse_syntax_error(p, escape, "unknown escape '\\%c' (known: \\\\ \\' \\\" \\/ \\b \\f \\n \\r \\t \\0 \\uXXXX)", c);
        }
    }
    out[used] = 0;
    *out_data = out;
    *out_size = used;
    return true;
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static void make_c_locale(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

/* A number token: an int if it is an integer that fits in 64 bits, else a
 * double; the text is kept either way. */
static bool decode_number(parser *p, const token *t, parse_literal *out)
{
    const char *copy;
    if (!copy_span(p->tree, p->text, t->start, t->end, &copy)) return false;
    out->text = copy;
    const char *digits = copy;
    bool negative = false;
    if (*digits == '-' || *digits == '+') negative = *digits++ == '-';
    if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        if (!digits[2]) return parse_syntax_error(p, t->start, "a hexadecimal number needs digits after '0x'");
        uint64_t magnitude = 0;
        for (const char *d = digits + 2; *d; d++) {
            if (magnitude > (UINT64_MAX >> 4)) return parse_syntax_error(p, t->start, "the number does not fit in 64 bits");
            magnitude = magnitude * 16 + (uint64_t)hex_value(*d);
        }
        if (magnitude > (negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
            return parse_syntax_error(p, t->start, "the number does not fit in a 64-bit signed integer");
        out->value.type = CE_TYPE_INT;
        out->value.integer = negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
        return true;
    }
    bool integral = *digits != 0;
    for (const char *d = digits; *d && integral; d++) integral = parse_is_digit(*d);
    if (integral) {
        uint64_t magnitude = 0;
        bool fits = true;
        for (const char *d = digits; *d && fits; d++) {
            unsigned digit = (unsigned)(*d - '0');
            if (magnitude > (UINT64_MAX - digit) / 10) fits = false;
            else magnitude = magnitude * 10 + digit;
        }
        /* An integer literal is an int or an error: never silently a
         * double that compares with rounded values. */
        if (!fits || magnitude > (negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
            return parse_syntax_error(p, t->start,
                                   "the integer does not fit in a 64-bit signed integer (-9223372036854775808 to "
                                   "9223372036854775807); write a double with a decimal point or an exponent");
        out->value.type = CE_TYPE_INT;
        out->value.integer = negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
        return true;
    }
    pthread_once(&c_locale_once, make_c_locale);
    if (c_locale == (locale_t)0) return parse_out_of_memory();
    char *end;
    errno = 0;
    size_t size = strlen(copy);
    if (size > 1 && copy[size - 1] == 'f' && (parse_is_digit(copy[size - 2]) || copy[size - 2] == '.')) {
        /* `1.5f`: a float (realm-core's FLOAT ending in 'f', read with strtof). */
        float single = strtof_l(copy, &end, c_locale);
        if (end != copy + size - 1) return parse_syntax_error(p, t->start, "not a number");
        if (errno == ERANGE && isinf(single)) return parse_syntax_error(p, t->start, "the number is too large for a float");
        out->value.type = CE_TYPE_FLOAT;
        out->value.float_value = single;
        return true;
    }
    double value = strtod_l(copy, &end, c_locale);
    if (*end != 0) return parse_syntax_error(p, t->start, "not a number");
    if (errno == ERANGE && isinf(value)) return parse_syntax_error(p, t->start, "the number is too large for a double");
    out->value.type = CE_TYPE_DOUBLE;
    out->value.double_value = value;
    return true;
}

static int64_t days_from_civil(int64_t year, unsigned month, unsigned day)
{
    /* Howard Hinnant's algorithm: days since 1970-01-01 of a proleptic
     * Gregorian date. */
    year -= month <= 2;
    int64_t era = (year >= 0 ? year : year - 399) / 400;
    unsigned year_of_era = (unsigned)(year - era * 400);
    unsigned shifted_month = month > 2 ? month - 3 : month + 9; /* March = 0 */
    unsigned day_of_year = (153 * shifted_month + 2) / 5 + day - 1;
    unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return era * 146097 + (int64_t)day_of_era - 719468;
}

/* Reads up to `max` digits as a number (the tokenizer bounded the runs). */
static uint64_t read_digits(const char *text, size_t *i, size_t end, unsigned max, unsigned *out_count)
{
    uint64_t value = 0;
    unsigned count = 0;
    while (*i < end && parse_is_digit(text[*i]) && count < max) {
        value = value * 10 + (uint64_t)(text[*i] - '0');
        (*i)++;
        count++;
    }
    *out_count = count;
    return value;
}

static bool decode_timestamp(parser *p, const token *t, ce_timestamp *out)
{
    const char *text = p->text;
    size_t i = t->start;
    unsigned count;
    if (text[i] == 'T') {
        i++;
        bool negative_seconds = text[i] == '-';
        if (negative_seconds) i++;
        uint64_t seconds = read_digits(text, &i, t->end, 19, &count);
        if (text[i] != ':' || seconds > (negative_seconds ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
            return parse_syntax_error(p, t->start, "the seconds of the timestamp do not fit in 64 bits");
        i++;
        bool negative_nanoseconds = text[i] == '-';
        if (negative_nanoseconds) i++;
        uint64_t nanoseconds = read_digits(text, &i, t->end, 10, &count);
        if (i != t->end || nanoseconds > 999999999)
            return parse_syntax_error(p, t->start, "the nanoseconds of a timestamp lie within -999999999 and 999999999");
        out->seconds = negative_seconds ? (int64_t)(0 - seconds) : (int64_t)seconds;
        out->nanoseconds = negative_nanoseconds ? -(int32_t)nanoseconds : (int32_t)nanoseconds;
        if (!value_timestamp_is_valid(*out))
            return parse_syntax_error(p, t->start, "the nanoseconds of a timestamp must have the sign of its seconds");
        return true;
    }
    unsigned year = (unsigned)read_digits(text, &i, t->end, 4, &count);
    i++;
    unsigned month = (unsigned)read_digits(text, &i, t->end, 2, &count);
    i++;
    unsigned day = (unsigned)read_digits(text, &i, t->end, 2, &count);
    i++;
    unsigned hour = (unsigned)read_digits(text, &i, t->end, 2, &count);
    i++;
    unsigned minute = (unsigned)read_digits(text, &i, t->end, 2, &count);
    i++;
    unsigned second = (unsigned)read_digits(text, &i, t->end, 2, &count);
    uint64_t nanoseconds = 0;
    if (i < t->end) {
        i++;
        nanoseconds = read_digits(text, &i, t->end, 10, &count);
        if (i != t->end || nanoseconds > 999999999)
            return parse_syntax_error(p, t->start, "the nanoseconds of a date lie within 0 and 999999999");
    }
    /* realm-core's query parser (src/realm/parser, the YYYY-MM-DD@HH:MM:SS
     * conversion) refuses years before 1900, whose timegm it cannot trust:
     * "Conversion of dates before 1900 is not supported." (T<seconds>:<ns>
     * reaches them.) */
    if (year < 1900) return parse_syntax_error(p, t->start, "Conversion of dates before 1900 is not supported.");
    static const unsigned month_days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (month < 1 || month > 12 || day < 1 || day > month_days[month - 1] || (month == 2 && day == 29 && !leap))
        return parse_syntax_error(p, t->start, "not a valid date (year-month-day)");
    if (hour > 23 || minute > 59 || second > 59)
        return parse_syntax_error(p, t->start, "not a valid time of day (hours 0-23, minutes and seconds 0-59)");
    int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
    /* As realm-core's query parser reads a date (src/realm/parser, the
     * YYYY-MM-DD@HH:MM:SS:NS conversion: "seconds determines the sign of
     * the nanoseconds part"): before 1970 the nanoseconds count away from
     * zero, 1969-12-31@23:59:59:1 is T-1:-1. */
    int64_t nanos = seconds < 0 ? -(int64_t)nanoseconds : (int64_t)nanoseconds;
    out->seconds = seconds;
    out->nanoseconds = (int32_t)nanos;
    return true;
}

static bool decode_object_id(parser *p, const token *t, ce_object_id *out)
{
    /* oid(<24 hex digits>) */
    size_t open = t->start + 3, close = t->end - 1;
    if (close - open - 1 != 24) return parse_syntax_error(p, t->start, "an object id is oid() around 24 hexadecimal digits");
    for (size_t k = 0; k < 12; k++) {
        char high = p->text[open + 1 + 2 * k], low = p->text[open + 2 + 2 * k];
        if (!parse_is_hex_digit(high) || !parse_is_hex_digit(low))
            return parse_syntax_error(p, t->start, "an object id is oid() around 24 hexadecimal digits");
        out->bytes[k] = (uint8_t)(hex_value(high) * 16 + hex_value(low));
    }
    return true;
}

static bool decode_uuid(parser *p, const token *t, ce_uuid *out)
{
    /* uuid(xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx) */
    size_t open = t->start + 4, close = t->end - 1;
    const char *inside = p->text + open + 1;
    size_t length = close - open - 1;
    static const char *const message =
        "a uuid is uuid() around 32 hexadecimal digits in groups of 8-4-4-4-12, like uuid(3b241101-e2bb-4255-8caf-4136c566a962)";
    if (length != 36) return parse_syntax_error(p, t->start, "%s", message);
    size_t byte = 0;
    for (size_t k = 0; k < 36;) {
        if (k == 8 || k == 13 || k == 18 || k == 23) {
            if (inside[k] != '-') return parse_syntax_error(p, t->start, "%s", message);
            k++;
            continue;
        }
        if (!parse_is_hex_digit(inside[k]) || !parse_is_hex_digit(inside[k + 1])) return parse_syntax_error(p, t->start, "%s", message);
        out->bytes[byte++] = (uint8_t)(hex_value(inside[k]) * 16 + hex_value(inside[k + 1]));
        k += 2;
    }
    return true;
}

static int base64_value(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (parse_is_digit(c)) return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

static bool decode_binary(parser *p, const token *t, const uint8_t **out_data, size_t *out_size)
{
    size_t start = t->start + 4, end = t->end - 1;
    size_t length = end - start;
    static const char *const message = "B64\"...\" holds base64 (A-Z a-z 0-9 + /, '=' padding, a multiple of 4 characters)";
    if (length % 4 != 0) return parse_syntax_error(p, t->start, "%s", message);
    char *out;
    if (!new_block(p->tree, length / 4 * 3, &out)) return false;
    size_t used = 0;
    for (size_t i = start; i < end; i += 4) {
        int values[4];
        int padding = 0;
        for (int k = 0; k < 4; k++) {
            char c = p->text[i + (size_t)k];
            if (c == '=' && i + 4 == end && k >= 2) {
                values[k] = 0;
                padding++;
            } else if (padding > 0 || (values[k] = base64_value(c)) < 0) {
                return parse_syntax_error(p, t->start, "%s", message);
            }
        }
        uint32_t group = (uint32_t)(values[0] << 18 | values[1] << 12 | values[2] << 6 | values[3]);
        out[used++] = (char)(group >> 16);
        if (padding < 2) out[used++] = (char)(group >> 8);
        if (padding < 1) out[used++] = (char)group;
    }
    *out_data = (const uint8_t *)out;
    *out_size = used;
    return true;
}

/* ------------------------------------------------------------------------ */
/* The parser                                                                */
/* ------------------------------------------------------------------------ */

static const token *peek(const parser *p) { return &p->tokens[p->next]; }
static const token *peek_at(const parser *p, size_t ahead)
{
    size_t index = p->next + ahead;
    return &p->tokens[index < p->token_count ? index : p->token_count - 1];
}
static const token *advance(parser *p)
{
    const token *t = &p->tokens[p->next];
    if (t->kind != TOKEN_END) p->next++;
    return t;
}

static bool is_keyword(const parser *p, const token *t, const char *word)
{
    return t->kind == TOKEN_NAME && parse_span_is(p->text, t->start, t->end, word);
}

/* Words that cannot start a key path (they mean something else there).
 * realm-core takes the operators' and the descriptors' words as names
 * (query_bison.yy's `id`: beginswith, endswith, contains, like, between,
 * in, text, sort, distinct, limit, ascending, descending; test_parser.cpp:
 * "sort > 0", "contains contains 'contains'", "SORT(limit ASC)"). */
static bool is_reserved(const parser *p, const token *t)
{
    static const char *const words[] = {"and", "or", "not", "any", "some", "all", "none", "truepredicate",
                                        "falsepredicate", "subquery", "true", "false", "nil", "null", "inf",
                                        "infinity", "nan"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (is_keyword(p, t, words[i])) return true;
    return false;
}

static bool expect(parser *p, token_kind kind, const char *what)
{
    const token *t = peek(p);
    if (t->kind != kind) return parse_syntax_error(p, t->start, "expected %s", what);
    advance(p);
    return true;
}

static bool enter(parser *p, size_t position)
{
    if (++p->depth > PARSE_MAX_DEPTH)
        return parse_syntax_error(p, position, "the predicate is nested too deeply (more than %d levels)", PARSE_MAX_DEPTH);
    return true;
}

static void leave(parser *p) { p->depth--; }

static bool parse_or(parser *p, int *out);

static bool new_argument_index(parser *p, const token *t, int *out_index)
{
    if (t->kind == TOKEN_DOLLAR_NUMBER) {
        uint64_t value = 0;
        for (size_t i = t->start + 1; i < t->end; i++) {
            value = value * 10 + (uint64_t)(p->text[i] - '0');
            if (value > 1000000) return parse_syntax_error(p, t->start, "argument numbers go up to $1000000");
        }
        *out_index = (int)value;
    } else {
        if (p->next_percent_argument > 1000000) return parse_syntax_error(p, t->start, "too many arguments");
        *out_index = p->next_percent_argument++;
    }
    if (*out_index + 1 > p->tree->argument_count) p->tree->argument_count = *out_index + 1;
    return true;
}

static bool push_component(parser *p, parse_component_kind kind, size_t position, const char *name, size_t length,
                           int argument)
{
    parse_tree *tree = p->tree;
    if (!buf_reserve((void **)&tree->components, &tree->component_capacity, tree->component_count + 1, sizeof *tree->components))
        return false;
    tree->components[tree->component_count++] =
        (parse_component){.kind = kind, .position = position, .name = name, .name_length = length, .argument = argument};
    return true;
}

static bool push_name_component(parser *p, parse_component_kind kind, const token *t, size_t skip)
{
    size_t start = t->start + skip;
    if (!memchr(p->text + start, '\\', t->end - start)) {
        const char *name;
        if (!copy_span(p->tree, p->text, start, t->end, &name)) return false;
        return push_component(p, kind, t->start, name, t->end - start, -1);
    }
    /* `shoe\ size`: the name with its escapes decoded (parse_decode_name). */
    char *block;
    if (!new_block(p->tree, t->end - start, &block)) return false;
    size_t length = parse_decode_name(p->text, start, t->end, block);
    block[length] = 0;
    return push_component(p, kind, t->start, block, length, -1);
}

static bool parse_path_tail(parser *p, size_t *end_out);

/* key-path := component ('.' component)*, from a name, '@name' or '$name'. */
static bool parse_key_path_value(parser *p, int *out)
{
    const token *first = peek(p);
    int index;
    if (!new_node(p->tree, PARSE_KEY_PATH, first->start, &index)) return false;
    size_t first_component = p->tree->component_count;
    parse_component_kind kind = first->kind == TOKEN_DOLLAR_NAME ? PARSE_COMPONENT_VARIABLE
                                : first->kind == TOKEN_AT_NAME ? PARSE_COMPONENT_OPERATOR
                                                               : PARSE_COMPONENT_NAME;
    if (!push_name_component(p, kind, first, kind == PARSE_COMPONENT_NAME ? 0 : 1)) return false;
    size_t end = advance(p)->end;
    if (!parse_path_tail(p, &end)) return false;
    parse_node *node = &p->tree->nodes[index];
    node->first_item = first_component;
    node->item_count = p->tree->component_count - first_component;
    node->length = end - node->position;
    *out = index;
    return true;
}

/* The rest of a key path: ('[' key ']' | '.' component)*, its components
 * pushed; *end moves past the last one. */
static bool parse_path_tail(parser *p, size_t *end_out)
{
    size_t end = *end_out;
    for (;;) {
        const token *t = peek(p);
        if (t->kind == TOKEN_LEFT_BRACKET) {
            /* name['key'], name[%@], name[$0], name[0], name[FIRST], name[LAST], name[*] */
            advance(p);
            const token *key = advance(p);
            if (key->kind == TOKEN_STRING) {
                const char *data;
                size_t size;
                if (!decode_string(p, key, &data, &size) ||
                    !push_component(p, PARSE_COMPONENT_SUBSCRIPT, key->start, data, size, -1))
                    return false;
            } else if (key->kind == TOKEN_PERCENT_AT || key->kind == TOKEN_DOLLAR_NUMBER) {
                int argument;
                if (!new_argument_index(p, key, &argument) ||
                    !push_component(p, PARSE_COMPONENT_SUBSCRIPT, key->start, "", 0, argument))
                    return false;
            } else if (key->kind == TOKEN_STAR) {
                if (!push_component(p, PARSE_COMPONENT_ALL, key->start, "*", 1, -1)) return false;
            } else if (key->kind == TOKEN_NAME && is_keyword(p, key, "size")) {
                /* [SIZE]: the same as .@size (realm-core's post_op). */
                if (!push_component(p, PARSE_COMPONENT_OPERATOR, key->start, "size", 4, -1)) return false;
            } else if (key->kind == TOKEN_NUMBER || key->kind == TOKEN_NAME) {
                /* [0], [FIRST], [LAST]: a position in a list. */
                int64_t position = 0;
                if (key->kind == TOKEN_NAME) {
                    if (is_keyword(p, key, "last")) position = -1;
                    else if (!is_keyword(p, key, "first"))
                        return parse_syntax_error(p, key->start, "expected a string, an index, FIRST, LAST, SIZE, '*' or an argument in '[...]'");
                } else {
                    for (size_t i = key->start; i < key->end; i++) {
                        if (!parse_is_digit(p->text[i]))
                            return parse_syntax_error(p, key->start, "an index in '[...]' is a whole number from 0");
                        position = position * 10 + (p->text[i] - '0');
                        if (position > 1000000000) return parse_syntax_error(p, key->start, "an index in '[...]' goes up to 1000000000");
                    }
                }
                if (!push_component(p, PARSE_COMPONENT_INDEX, key->start, "", 0, -1)) return false;
                p->tree->components[p->tree->component_count - 1].index = position;
            } else {
                return parse_syntax_error(p, key->start, "expected a string, an index, FIRST, LAST, SIZE, '*' or an argument in '[...]'");
            }
            const token *close = peek(p);
            if (!expect(p, TOKEN_RIGHT_BRACKET, "']' after the key")) return false;
            end = close->end;
            continue;
        }
        if (t->kind != TOKEN_DOT) break;
        advance(p);
        const token *name = peek(p);
        if (name->kind == TOKEN_NAME) {
            if (!push_name_component(p, PARSE_COMPONENT_NAME, name, 0)) return false;
        } else if (name->kind == TOKEN_AT_NAME) {
            if (!push_name_component(p, PARSE_COMPONENT_OPERATOR, name, 1)) return false;
        } else {
            return parse_syntax_error(p, name->start, "expected a property name or an @operator after '.'");
        }
        end = advance(p)->end;
    }
    *end_out = end;
    return true;
}

static bool parse_literal_token(parser *p, int *out)
{
    const token *t = advance(p);
    int index;
    if (!new_node(p->tree, PARSE_LITERAL, t->start, &index)) return false;
    parse_literal literal;
    memset(&literal, 0, sizeof literal);
    bool ok = true;
    switch (t->kind) {
    case TOKEN_NUMBER: ok = decode_number(p, t, &literal); break;
    case TOKEN_STRING:
        literal.value.type = CE_TYPE_STRING;
        ok = decode_string(p, t, &literal.value.string.data, &literal.value.string.size);
        break;
    case TOKEN_TIMESTAMP:
        literal.value.type = CE_TYPE_TIMESTAMP;
        ok = decode_timestamp(p, t, &literal.value.timestamp);
        break;
    case TOKEN_OBJECT_ID:
        literal.value.type = CE_TYPE_OBJECT_ID;
        ok = decode_object_id(p, t, &literal.value.object_id);
        break;
    case TOKEN_UUID:
        literal.value.type = CE_TYPE_UUID;
        ok = decode_uuid(p, t, &literal.value.uuid);
        break;
    case TOKEN_BINARY:
        literal.value.type = CE_TYPE_BINARY;
        ok = decode_binary(p, t, &literal.value.binary.data, &literal.value.binary.size);
        break;
    default: /* a keyword: true, false, nil, null, inf, infinity, nan */
        if (is_keyword(p, t, "true") || is_keyword(p, t, "false")) {
            literal.value.type = CE_TYPE_BOOL;
            literal.value.boolean = is_keyword(p, t, "true");
        } else if (is_keyword(p, t, "nil") || is_keyword(p, t, "null")) {
            literal.value.type = CE_TYPE_NULL;
        } else {
            literal.value.type = CE_TYPE_DOUBLE;
            literal.value.double_value = is_keyword(p, t, "nan") ? NAN : INFINITY;
            ok = copy_span(p->tree, p->text, t->start, t->end, &literal.text);
        }
        break;
    }
    if (!ok) return false;
    parse_node *node = &p->tree->nodes[index];
    node->literal = literal;
    node->length = t->end - t->start;
    *out = index;
    return true;
}

static bool is_literal_start(const parser *p, const token *t)
{
    switch (t->kind) {
    case TOKEN_NUMBER:
    case TOKEN_STRING:
    case TOKEN_TIMESTAMP:
    case TOKEN_OBJECT_ID:
    case TOKEN_UUID:
    case TOKEN_BINARY: return true;
    default: break;
    }
    return is_keyword(p, t, "true") || is_keyword(p, t, "false") || is_keyword(p, t, "nil") ||
           is_keyword(p, t, "null") || is_keyword(p, t, "inf") || is_keyword(p, t, "infinity") ||
           is_keyword(p, t, "nan");
}

static bool parse_value(parser *p, int *out);
static bool parse_expr(parser *p, int *out);

static bool parse_list(parser *p, int *out)
{
    const token *open = advance(p);
    int index;
    if (!new_node(p->tree, PARSE_LIST, open->start, &index) || !enter(p, open->start)) return false;
    /* Items are collected first: nested values add items of their own. */
    int *elements = NULL;
    size_t count = 0, capacity = 0;
    bool ok = true;
    if (peek(p)->kind != TOKEN_RIGHT_BRACE) {
        for (;;) {
            const token *t = peek(p);
            if (!is_literal_start(p, t) && t->kind != TOKEN_PERCENT_AT && t->kind != TOKEN_DOLLAR_NUMBER) {
                ok = parse_syntax_error(p, t->start, "a list '{...}' holds literals and arguments, separated by ','");
                break;
            }
            int element;
            if (!(ok = parse_value(p, &element))) break;
            if (!(ok = buf_reserve((void **)&elements, &capacity, count + 1, sizeof *elements))) break;
            elements[count++] = element;
            if (peek(p)->kind != TOKEN_COMMA) break;
            advance(p);
        }
    }
    const token *close = peek(p);
    if (ok) ok = expect(p, TOKEN_RIGHT_BRACE, "',' or '}' in the list");
    size_t first = p->tree->item_count;
    for (size_t i = 0; ok && i < count; i++) ok = push_item(p->tree, elements[i]);
    free(elements);
    if (!ok) return false;
    leave(p);
    parse_node *node = &p->tree->nodes[index];
    node->first_item = first;
    node->item_count = count;
    node->length = close->end - open->start;
    *out = index;
    return true;
}

static bool parse_subquery(parser *p, int *out)
{
    const token *keyword = advance(p);
    int index;
    if (!new_node(p->tree, PARSE_SUBQUERY, keyword->start, &index) || !enter(p, keyword->start)) return false;
    if (!expect(p, TOKEN_LEFT_PAREN, "'(' after SUBQUERY")) return false;
    const token *t = peek(p);
    if ((t->kind != TOKEN_NAME || is_reserved(p, t)) && t->kind != TOKEN_AT_NAME && t->kind != TOKEN_DOLLAR_NAME)
        return parse_syntax_error(p, t->start, "expected the key path of a collection as the first part of SUBQUERY");
    int collection;
    if (!parse_key_path_value(p, &collection) || !expect(p, TOKEN_COMMA, "',' after the collection of SUBQUERY"))
        return false;
    const token *variable = peek(p);
    if (variable->kind != TOKEN_DOLLAR_NAME)
        return parse_syntax_error(p, variable->start, "expected a variable like $x as the second part of SUBQUERY");
    const char *name;
    if (!copy_span(p->tree, p->text, variable->start + 1, variable->end, &name)) return false;
    advance(p);
    int predicate;
    if (!expect(p, TOKEN_COMMA, "',' after the variable of SUBQUERY") || !parse_or(p, &predicate) ||
        !expect(p, TOKEN_RIGHT_PAREN, "')' at the end of SUBQUERY"))
        return false;
    if (!expect(p, TOKEN_DOT, "'.@count' after SUBQUERY(...)")) return false;
    const token *suffix = peek(p);
    if (suffix->kind != TOKEN_AT_NAME ||
        !(parse_span_is(p->text, suffix->start, suffix->end, "@count") || parse_span_is(p->text, suffix->start, suffix->end, "@size")))
        return parse_syntax_error(p, suffix->start, "expected '@count' or '@size' after SUBQUERY(...).");
    advance(p);
    leave(p);
    parse_node *node = &p->tree->nodes[index];
    node->left = collection;
    node->right = predicate;
    node->variable = name;
    node->suffix = parse_span_is(p->text, suffix->start, suffix->end, "@count") ? "count" : "size";
    node->length = suffix->end - keyword->start;
    *out = index;
    return true;
}

static bool parse_value(parser *p, int *out)
{
    const token *t = peek(p);
    if (is_literal_start(p, t)) return parse_literal_token(p, out);
    switch (t->kind) {
    case TOKEN_PERCENT_AT:
    case TOKEN_DOLLAR_NUMBER:
    case TOKEN_PERCENT_K: {
        int index, argument;
        if (!new_argument_index(p, t, &argument) ||
            !new_node(p->tree, t->kind == TOKEN_PERCENT_K ? PARSE_KEY_PATH_ARGUMENT : PARSE_ARGUMENT, t->start, &index))
            return false;
        p->tree->nodes[index].argument = argument;
        p->tree->nodes[index].length = t->end - t->start;
        size_t end = advance(p)->end;
        if (t->kind == TOKEN_PERCENT_K) {
            /* %K[0], %K.name: realm-core's path rules go on from a key
             * path argument (query_bison.yy, path: "keypath" | path '[' ...). */
            size_t first = p->tree->component_count;
            if (!parse_path_tail(p, &end)) return false;
            parse_node *node = &p->tree->nodes[index];
            node->first_item = first;
            node->item_count = p->tree->component_count - first;
            node->length = end - node->position;
        }
        *out = index;
        return true;
    }
    case TOKEN_LEFT_BRACE: return parse_list(p, out);
    case TOKEN_AT_NAME:
    case TOKEN_DOLLAR_NAME: return parse_key_path_value(p, out);
    case TOKEN_NAME:
        if (is_keyword(p, t, "subquery") && peek_at(p, 1)->kind == TOKEN_LEFT_PAREN) return parse_subquery(p, out);
        if (is_reserved(p, t)) return parse_syntax_error(p, t->start, "expected a value or a key path, not a keyword");
        return parse_key_path_value(p, out);
    default: break;
    }
    return parse_syntax_error(p, t->start, "expected a value or a key path");
}

static bool comparison_operator(const parser *p, const token *t, parse_op *out)
{
    switch (t->kind) {
    case TOKEN_EQUAL: *out = PARSE_OP_EQUAL; return true;
    case TOKEN_NOT_EQUAL: *out = PARSE_OP_NOT_EQUAL; return true;
    case TOKEN_LESS: *out = PARSE_OP_LESS; return true;
    case TOKEN_LESS_EQUAL: *out = PARSE_OP_LESS_EQUAL; return true;
    case TOKEN_GREATER: *out = PARSE_OP_GREATER; return true;
    case TOKEN_GREATER_EQUAL: *out = PARSE_OP_GREATER_EQUAL; return true;
    default: break;
    }
    static const struct {
        const char *word;
        parse_op op;
    } words[] = {{"beginswith", PARSE_OP_BEGINS_WITH}, {"endswith", PARSE_OP_ENDS_WITH}, {"contains", PARSE_OP_CONTAINS},
                 {"like", PARSE_OP_LIKE}, {"in", PARSE_OP_IN}, {"between", PARSE_OP_BETWEEN},
                 {"geowithin", PARSE_OP_GEO_WITHIN}};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        if (is_keyword(p, t, words[i].word)) {
            *out = words[i].op;
            return true;
        }
    }
    return false;
}

/* A coordinate of a shape (a number or $N) appended to tree->geo. */
static bool parse_coordinate(parser *p, double value, bool use_value)
{
    parse_tree *tree = p->tree;
    if (!buf_reserve((void **)&tree->geo, &tree->geo_capacity, tree->geo_count + 1, sizeof *tree->geo)) return false;
    parse_geo_coordinate *c = &tree->geo[tree->geo_count];
    *c = (parse_geo_coordinate){value, -1, peek(p)->start};
    if (!use_value) {
        const token *t = peek(p);
        parse_literal literal = {0};
        if (t->kind == TOKEN_DOLLAR_NUMBER) {
            if (!new_argument_index(p, t, &c->argument)) return false;
        } else if (t->kind != TOKEN_NUMBER || !decode_number(p, t, &literal)) {
            if (ce_last_error_code() == CE_ERR_OUT_OF_MEMORY) return false;
            return parse_syntax_error(p, t->start, "expected a number (a coordinate) or an argument like $0");
        } else {
            c->value = literal.value.type == CE_TYPE_INT ? (double)literal.value.integer : literal.value.double_value;
        }
        advance(p);
    }
    tree->geo_count++;
    return true;
}

/* '[' longitude ',' latitude [',' altitude] ']': three coordinates, the
 * altitude NaN when absent (realm-core keeps a point's altitude: no query
 * uses it, messages print it and a ring's closure compares it). */
static bool parse_geo_point(parser *p)
{
    if (!expect(p, TOKEN_LEFT_BRACKET, "'[' to start a point [longitude, latitude]") || !parse_coordinate(p, 0, false) ||
        !expect(p, TOKEN_COMMA, "',' between a point's longitude and latitude") || !parse_coordinate(p, 0, false))
        return false;
    if (peek(p)->kind == TOKEN_COMMA) {
        advance(p);
        if (!parse_coordinate(p, 0, false)) return false;
    } else if (!parse_coordinate(p, NAN, true)) {
        return false;
    }
    return expect(p, TOKEN_RIGHT_BRACKET, "']' at the end of a point");
}

/* geoBox(point, point), geoCircle(point, radius), geoPolygon({point, ...}, ...). */
static bool parse_geo(parser *p, int *out)
{
    const token *name = advance(p);
    int index;
    if (!new_node(p->tree, PARSE_GEO, name->start, &index)) return false;
    size_t first = p->tree->geo_count;
    int kind = is_keyword(p, name, "geobox") ? CE_GEO_BOX : is_keyword(p, name, "geocircle") ? CE_GEO_CIRCLE : CE_GEO_POLYGON;
    if (!expect(p, TOKEN_LEFT_PAREN, "'(' after the shape's name")) return false;
    if (kind != CE_GEO_POLYGON) {
        if (!parse_geo_point(p) || !expect(p, TOKEN_COMMA, "',' between the shape's parts") ||
            !(kind == CE_GEO_BOX ? parse_geo_point(p) : parse_coordinate(p, 0, false)))
            return false;
    } else {
        if (!parse_coordinate(p, 0, true)) return false; /* the ring count, set below */
        size_t rings = 0;
        do {
            if (rings++ && !expect(p, TOKEN_COMMA, "',' between rings")) return false;
            size_t count_at = p->tree->geo_count, points = 0;
            if (!expect(p, TOKEN_LEFT_BRACE, "'{' to start a ring of points") || !parse_coordinate(p, 0, true)) return false;
            do {
                if (points++ && !expect(p, TOKEN_COMMA, "',' between points")) return false;
                if (!parse_geo_point(p)) return false;
            } while (peek(p)->kind == TOKEN_COMMA);
            if (!expect(p, TOKEN_RIGHT_BRACE, "'}' at the end of a ring")) return false;
            p->tree->geo[count_at].value = (double)points;
        } while (peek(p)->kind == TOKEN_COMMA);
        p->tree->geo[first].value = (double)rings;
    }
    const token *close = peek(p);
    if (!expect(p, TOKEN_RIGHT_PAREN, "')' at the end of the shape")) return false;
    parse_node *node = &p->tree->nodes[index];
    node->geo_kind = kind;
    node->first_item = first;
    node->item_count = p->tree->geo_count - first;
    node->length = close->end - name->start;
    *out = index;
    return true;
}

static bool new_arith(parser *p, char op, int left, int right, int *out)
{
    const parse_node *l = &p->tree->nodes[left], *r0 = &p->tree->nodes[right];
    size_t position = l->position;
    unsigned depth_left = l->kind == PARSE_ARITH ? l->arith_depth : 0;
    unsigned depth_right = r0->kind == PARSE_ARITH ? r0->arith_depth : 0;
    unsigned depth = 1 + (depth_left > depth_right ? depth_left : depth_right);
    if (depth > PARSE_MAX_DEPTH)
        return parse_syntax_error(p, position, "the arithmetic expression is nested too deeply (more than %d operators deep)",
                                  PARSE_MAX_DEPTH);
    int index;
    if (!new_node(p->tree, PARSE_ARITH, position, &index)) return false;
    parse_node *node = &p->tree->nodes[index];
    const parse_node *r = &p->tree->nodes[right];
    node->arith_op = op;
    node->arith_depth = depth;
    node->left = left;
    node->right = right;
    node->length = r->position + r->length - position;
    *out = index;
    return true;
}

/* factor := value | '(' expr ')' */
static bool parse_factor(parser *p, int *out)
{
    const token *t = peek(p);
    if (t->kind != TOKEN_LEFT_PAREN) return parse_value(p, out);
    if (!enter(p, t->start)) return false;
    advance(p);
    int inner;
    if (!parse_expr(p, &inner) || !expect(p, TOKEN_RIGHT_PAREN, "')' or an arithmetic operator (+, -, *, /) here"))
        return false;
    leave(p);
    *out = inner;
    return true;
}

/* term := factor (('*' | '/') factor)* */
static bool parse_term(parser *p, int *out)
{
    int left;
    if (!parse_factor(p, &left)) return false;
    for (;;) {
        const token *t = peek(p);
        if (t->kind != TOKEN_STAR && t->kind != TOKEN_SLASH) break;
        advance(p);
        int right;
        if (!parse_factor(p, &right) || !new_arith(p, t->kind == TOKEN_STAR ? '*' : '/', left, right, &left)) return false;
    }
    *out = left;
    return true;
}

/* expr := term (('+' | '-') term)* — realm-core's query_bison.yy gives
 * '*' and '/' precedence over '+' and '-', all left-associative. */
static bool parse_expr(parser *p, int *out)
{
    int left;
    if (!parse_term(p, &left)) return false;
    for (;;) {
        const token *t = peek(p);
        char op;
        /* A sign before digits belongs to the number (query_flex.ll's
         * `[+-]?{int}`, the longest match): `age +1` is a value after a
         * value, refused as realm-core's grammar refuses it. */
        if (t->kind != TOKEN_PLUS && t->kind != TOKEN_MINUS) break;
        op = t->kind == TOKEN_PLUS ? '+' : '-';
        advance(p);
        int right;
        if (!parse_term(p, &right) || !new_arith(p, op, left, right, &left)) return false;
    }
    *out = left;
    return true;
}

/* Whether the '(' at the current token opens an arithmetic expression
 * rather than a predicate: what follows its ')' is an arithmetic or a
 * comparison operator. */
static bool paren_opens_expr(const parser *p)
{
    size_t depth = 0, i = p->next;
    for (; i < p->token_count && p->tokens[i].kind != TOKEN_END; i++) {
        if (p->tokens[i].kind == TOKEN_LEFT_PAREN) depth++;
        else if (p->tokens[i].kind == TOKEN_RIGHT_PAREN && --depth == 0) break;
    }
    if (i + 1 >= p->token_count) return false;
    const token *after = &p->tokens[i + 1];
    parse_op op;
    switch (after->kind) {
    case TOKEN_PLUS:
    case TOKEN_MINUS:
    case TOKEN_STAR:
    case TOKEN_SLASH: return true;
    default: break;
    }
    return comparison_operator(p, after, &op);
}

static bool parse_comparison(parser *p, int *out)
{
    const token *first = peek(p);
    parse_quantifier quantifier = PARSE_QUANTIFIER_NONE_GIVEN;
    if (is_keyword(p, first, "any") || is_keyword(p, first, "some")) quantifier = PARSE_QUANTIFIER_ANY;
    else if (is_keyword(p, first, "all")) quantifier = PARSE_QUANTIFIER_ALL;
    else if (is_keyword(p, first, "none")) quantifier = PARSE_QUANTIFIER_NONE;
    if (quantifier != PARSE_QUANTIFIER_NONE_GIVEN) advance(p);
    int left;
    if (!parse_expr(p, &left)) return false;
    const token *op_token = peek(p);
    parse_op op;
    if (!comparison_operator(p, op_token, &op)) {
        const parse_node *value = &p->tree->nodes[left];
        bool signed_number = op_token->kind == TOKEN_NUMBER &&
                             (p->text[op_token->start] == '+' || p->text[op_token->start] == '-');
        return parse_syntax_error(p, op_token->start,
                               "expected an operator (==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, IN, "
                               "BETWEEN) after the value at position %zu%s",
                               value->position,
                               signed_number ? " (a sign before digits belongs to the number: write 'a + 1', not 'a +1')" : "");
    }
    advance(p);
    unsigned flags = 0;
    if (peek(p)->kind == TOKEN_MODIFIER) flags = advance(p)->flags;
    /* ANY, ALL or NONE before a list or an argument on the right
     * (query_bison.yy: `list : comp_type '{' list_content '}'`, `constant :
     * comp_type ARG`). */
    parse_quantifier right_quantifier = PARSE_QUANTIFIER_NONE_GIVEN;
    const token *q = peek(p), *after = peek_at(p, 1);
    if ((after->kind == TOKEN_LEFT_BRACE || after->kind == TOKEN_PERCENT_AT || after->kind == TOKEN_DOLLAR_NUMBER) &&
        (is_keyword(p, q, "any") || is_keyword(p, q, "some") || is_keyword(p, q, "all") || is_keyword(p, q, "none"))) {
        right_quantifier = is_keyword(p, q, "all")    ? PARSE_QUANTIFIER_ALL
                           : is_keyword(p, q, "none") ? PARSE_QUANTIFIER_NONE
                                                      : PARSE_QUANTIFIER_ANY;
        advance(p);
    }
    int right;
    const token *t = peek(p);
    if (op == PARSE_OP_GEO_WITHIN) {
        bool shape = (is_keyword(p, t, "geobox") || is_keyword(p, t, "geocircle") || is_keyword(p, t, "geopolygon")) &&
                     peek_at(p, 1)->kind == TOKEN_LEFT_PAREN;
        if (flags) return parse_syntax_error(p, op_token->start, "[c] and [d] do not apply to GEOWITHIN");
        if (!shape && t->kind != TOKEN_PERCENT_AT && t->kind != TOKEN_DOLLAR_NUMBER)
            return parse_syntax_error(p, t->start, "GEOWITHIN needs a shape: geoBox(...), geoCircle(...), geoPolygon(...) or an argument");
        if (!(shape ? parse_geo(p, &right) : parse_value(p, &right))) return false;
    } else if (!parse_expr(p, &right)) {
        return false;
    }
    const parse_node *right_node = &p->tree->nodes[right];
    /* realm-core's grammar takes arithmetic only around ==, !=, IN, <, <=,
     * > and >= (query_bison.yy: `expr equality expr`, `expr relational
     * expr`; `value stringop value`, `value BETWEEN list`). */
    if (op != PARSE_OP_EQUAL && op != PARSE_OP_NOT_EQUAL && op != PARSE_OP_IN && op != PARSE_OP_LESS &&
        op != PARSE_OP_LESS_EQUAL && op != PARSE_OP_GREATER && op != PARSE_OP_GREATER_EQUAL &&
        (p->tree->nodes[left].kind == PARSE_ARITH || right_node->kind == PARSE_ARITH))
        return parse_syntax_error(p, op_token->start,
                                  "%s does not take an arithmetic expression (only ==, !=, IN, <, <=, > and >= do)",
                                  parse_op_name(op));
    if (op == PARSE_OP_BETWEEN) {
        if (right_node->kind == PARSE_LIST && right_node->item_count != 2)
            return parse_syntax_error(p, right_node->position, "BETWEEN needs a list of two values, like {1, 10}");
        if (right_node->kind != PARSE_LIST && right_node->kind != PARSE_ARGUMENT)
            return parse_syntax_error(p, right_node->position, "BETWEEN needs a list of two values, like {1, 10}, or an argument");
    }
    int index;
    if (!new_node(p->tree, PARSE_COMPARE, first->start, &index)) return false;
    parse_node *node = &p->tree->nodes[index];
    right_node = &p->tree->nodes[right];
    node->op = op;
    node->flags = flags;
    node->quantifier = quantifier;
    node->right_quantifier = right_quantifier;
    node->op_position = op_token->start;
    node->left = left;
    node->right = right;
    node->length = right_node->position + right_node->length - first->start;
    *out = index;
    return true;
}

static bool parse_not(parser *p, int *out)
{
    const token *t = peek(p);
    if (!enter(p, t->start)) return false;
    bool ok;
    if (t->kind == TOKEN_BANG || is_keyword(p, t, "not")) {
        advance(p);
        int child, index;
        ok = parse_not(p, &child) && new_node(p->tree, PARSE_NOT, t->start, &index);
        if (ok) {
            parse_node *node = &p->tree->nodes[index];
            node->left = child;
            node->length = p->tree->nodes[child].position + p->tree->nodes[child].length - t->start;
            *out = index;
        }
    } else if (t->kind == TOKEN_LEFT_PAREN && paren_opens_expr(p)) {
        ok = parse_comparison(p, out);
    } else if (t->kind == TOKEN_LEFT_PAREN) {
        advance(p);
        ok = parse_or(p, out) && expect(p, TOKEN_RIGHT_PAREN, "')' or an operator (AND, OR) here");
    } else if (is_keyword(p, t, "truepredicate") || is_keyword(p, t, "falsepredicate")) {
        advance(p);
        ok = new_node(p->tree, is_keyword(p, t, "truepredicate") ? PARSE_TRUE : PARSE_FALSE, t->start, out);
        if (ok) p->tree->nodes[*out].length = t->end - t->start;
    } else {
        ok = parse_comparison(p, out);
    }
    if (ok) leave(p);
    return ok;
}

/* and := not (AND not)*; or := and (OR and)*: flattened into one node. */
static bool parse_chain(parser *p, bool is_or, int *out)
{
    int first;
    if (!(is_or ? parse_chain(p, false, &first) : parse_not(p, &first))) return false;
    const token *t = peek(p);
    bool joined = is_or ? (t->kind == TOKEN_OR_OR || is_keyword(p, t, "or"))
                        : (t->kind == TOKEN_AND_AND || is_keyword(p, t, "and"));
    if (!joined) {
        *out = first;
        return true;
    }
    int *children = malloc(4 * sizeof *children);
    size_t count = 0, capacity = 4;
    if (!children) return parse_out_of_memory();
    children[count++] = first;
    bool ok = true;
    while (ok) {
        t = peek(p);
        joined = is_or ? (t->kind == TOKEN_OR_OR || is_keyword(p, t, "or"))
                       : (t->kind == TOKEN_AND_AND || is_keyword(p, t, "and"));
        if (!joined) break;
        advance(p);
        int next;
        ok = (is_or ? parse_chain(p, false, &next) : parse_not(p, &next)) &&
             buf_reserve((void **)&children, &capacity, count + 1, sizeof *children);
        if (ok) children[count++] = next;
    }
    int index = -1;
    if (ok) ok = new_node(p->tree, is_or ? PARSE_OR : PARSE_AND, p->tree->nodes[first].position, &index);
    size_t first_item = p->tree->item_count;
    for (size_t i = 0; ok && i < count; i++) ok = push_item(p->tree, children[i]);
    if (ok) {
        const parse_node *last = &p->tree->nodes[children[count - 1]];
        parse_node *node = &p->tree->nodes[index];
        node->first_item = first_item;
        node->item_count = count;
        node->length = last->position + last->length - node->position;
        *out = index;
    }
    free(children);
    return ok;
}

static bool parse_or(parser *p, int *out) { return parse_chain(p, true, out); }

static bool push_key(parser *p, int key_path, bool ascending)
{
    parse_tree *tree = p->tree;
    if (!buf_reserve((void **)&tree->keys, &tree->key_capacity, tree->key_count + 1, sizeof *tree->keys)) return false;
    tree->keys[tree->key_count++] = (parse_key){key_path, ascending};
    return true;
}

static bool parse_descriptor_key_path(parser *p, int *out)
{
    const token *t = peek(p);
    if (t->kind == TOKEN_PERCENT_K) return parse_value(p, out);
    if ((t->kind != TOKEN_NAME || is_reserved(p, t)) && t->kind != TOKEN_AT_NAME)
        return parse_syntax_error(p, t->start, "expected a key path");
    return parse_key_path_value(p, out);
}

/* SORT(a ASC, b DESC) DISTINCT(a, b) LIMIT(10), in any order and number. */
static bool parse_descriptors(parser *p)
{
    parse_tree *tree = p->tree;
    for (;;) {
        const token *t = peek(p);
        parse_descriptor descriptor = {PARSE_SORT, t->start, tree->key_count, 0, 0};
        if (is_keyword(p, t, "sort")) descriptor.kind = PARSE_SORT;
        else if (is_keyword(p, t, "distinct")) descriptor.kind = PARSE_DISTINCT;
        else if (is_keyword(p, t, "limit")) descriptor.kind = PARSE_LIMIT;
        else if (t->kind == TOKEN_END) return true;
        else return parse_syntax_error(p, t->start, "expected AND, OR, SORT, DISTINCT, LIMIT or the end of the predicate");
        advance(p);
        if (!expect(p, TOKEN_LEFT_PAREN, "'(' after SORT, DISTINCT or LIMIT")) return false;
        if (descriptor.kind == PARSE_LIMIT) {
            const token *number = advance(p);
            parse_literal literal;
            memset(&literal, 0, sizeof literal);
            /* Decimal digits only (realm-core: LIMIT '(' NATURAL0 ')'). */
            bool natural = number->kind == TOKEN_NUMBER;
            for (size_t i = number->start; natural && i < number->end; i++) natural = parse_is_digit(p->text[i]);
            if (!natural || !decode_number(p, number, &literal) || literal.value.type != CE_TYPE_INT ||
                literal.value.integer < 0) {
                if (ce_last_error_code() == CE_ERR_OUT_OF_MEMORY) return false;
                return parse_syntax_error(p, number->start, "LIMIT needs a number of objects (0 or more)");
            }
            descriptor.limit = (uint64_t)literal.value.integer;
        } else {
            for (;;) {
                int key_path;
                if (!parse_descriptor_key_path(p, &key_path)) return false;
                bool ascending = true;
                if (descriptor.kind == PARSE_SORT) {
                    const token *direction = peek(p);
                    if (is_keyword(p, direction, "asc") || is_keyword(p, direction, "ascending")) {
                        advance(p);
                    } else if (is_keyword(p, direction, "desc") || is_keyword(p, direction, "descending")) {
                        ascending = false;
                        advance(p);
                    } else {
                        return parse_syntax_error(p, direction->start, "expected ASC or DESC after the key path of SORT");
                    }
                }
                if (!push_key(p, key_path, ascending)) return false;
                descriptor.key_count++;
                if (peek(p)->kind != TOKEN_COMMA) break;
                advance(p);
            }
        }
        if (!expect(p, TOKEN_RIGHT_PAREN, "')'")) return false;
        if (!buf_reserve((void **)&tree->descriptors, &tree->descriptor_capacity, tree->descriptor_count + 1,
                  sizeof *tree->descriptors))
            return false;
        tree->descriptors[tree->descriptor_count++] = descriptor;
    }
}

static bool start(const char *text, size_t length, parse_tree *tree, parser *p)
{
    memset(tree, 0, sizeof *tree);
    tree->root = -1;
    memset(p, 0, sizeof *p);
    p->tree = tree;
    if (!text) return error_fail(CE_ERR_INVALID_ARGUMENT, "a predicate is required");
    char *copy = malloc(length + 1);
    if (!copy) return parse_out_of_memory();
    memcpy(copy, text, length);
    copy[length] = 0;
    tree->text = copy;
    tree->text_length = length;
    p->text = copy;
    p->length = length;
    size_t valid = utf8_valid_prefix(text, length);
    if (valid != length) return parse_syntax_error(p, valid, "the predicate is not valid UTF-8");
    for (size_t i = 0; i < length; i++)
        if (text[i] == 0) return parse_syntax_error(p, i, "the predicate holds a NUL byte");
    return parse_tokenize(p);
}

static bool finish(parser *p, bool ok)
{
    free(p->tokens);
    p->tokens = NULL;
    if (!ok) parse_tree_free(p->tree);
    return ok;
}

bool parse_predicate(const char *text, size_t length, parse_tree *out_tree)
{
    parser p;
    if (!start(text, length, out_tree, &p)) return finish(&p, false);
    if (peek(&p)->kind == TOKEN_END) return finish(&p, parse_syntax_error(&p, 0, "the predicate is empty"));
    int root;
    bool ok = parse_or(&p, &root) && parse_descriptors(&p);
    if (ok) out_tree->root = root;
    return finish(&p, ok);
}

bool parse_key_path(const char *text, size_t length, parse_tree *out_tree)
{
    parser p;
    if (!start(text, length, out_tree, &p)) return finish(&p, false);
    const token *t = peek(&p);
    if ((t->kind != TOKEN_NAME && t->kind != TOKEN_AT_NAME) || is_reserved(&p, t))
        return finish(&p, parse_syntax_error(&p, t->start, "expected a key path (names separated by '.')"));
    int root;
    bool ok = parse_key_path_value(&p, &root);
    if (ok && peek(&p)->kind != TOKEN_END)
        ok = parse_syntax_error(&p, peek(&p)->start, "expected the end of the key path");
    if (ok) out_tree->root = root;
    return finish(&p, ok);
}
