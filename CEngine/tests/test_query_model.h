/*
 * test_query_model.h — the Thing table (a property of every type, required
 * and optional, some indexed) and its model (the same objects in the
 * reference model, model.h), this file's own comparison, folding and LIKE,
 * random predicates written as text for the engine and as a tree for the
 * model, and the model's sort and distinct.
 *
 * Owns: the Thing table's data, the query oracle over its model
 * (model_match, model_eval, model_sort, model_distinct) and the fixture
 * that fills both (things_open).
 * Never: asks the engine what a predicate should match; keeps objects
 * other than in model.h's store.
 */
#ifndef CE_TEST_QUERY_MODEL_H
#define CE_TEST_QUERY_MODEL_H

#include "model.h"
#include "test_query_support.h"

#include <stdarg.h>

#define CE_TEST_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* ------------------------------------------------------------------------ */
/* The data: one table with a property of every type, required and optional */
/* ------------------------------------------------------------------------ */

typedef struct property_def {
    const char *name;
    ce_type type;
    bool nullable, indexed, primary;
} property_def;

enum {
    P_PK, P_I, P_OI, P_B, P_OB, P_F, P_OF, P_D, P_OD, P_S, P_OS, P_BIN, P_OBIN,
    P_T, P_OT, P_DEC, P_ODEC, P_OID, P_OOID, P_U, P_OU, P_COUNT
};

static const property_def properties[P_COUNT] = {
    {"pk", CE_TYPE_INT, false, true, true},
    {"i", CE_TYPE_INT, false, false, false},
    {"oi", CE_TYPE_INT, true, true, false},
    {"b", CE_TYPE_BOOL, false, false, false},
    {"ob", CE_TYPE_BOOL, true, true, false},
    {"f", CE_TYPE_FLOAT, false, false, false},
    {"of", CE_TYPE_FLOAT, true, false, false},
    {"d", CE_TYPE_DOUBLE, false, false, false},
    {"od", CE_TYPE_DOUBLE, true, false, false},
    {"s", CE_TYPE_STRING, false, true, false},
    {"os", CE_TYPE_STRING, true, false, false},
    {"bin", CE_TYPE_BINARY, false, false, false},
    {"obin", CE_TYPE_BINARY, true, false, false},
    {"t", CE_TYPE_TIMESTAMP, false, false, false},
    {"ot", CE_TYPE_TIMESTAMP, true, true, false},
    {"dec", CE_TYPE_DECIMAL128, false, false, false},
    {"odec", CE_TYPE_DECIMAL128, true, false, false},
    {"oid", CE_TYPE_OBJECT_ID, false, false, false},
    {"ooid", CE_TYPE_OBJECT_ID, true, true, false},
    {"u", CE_TYPE_UUID, false, false, false},
    {"ou", CE_TYPE_UUID, true, true, false},
};

/* A random value of a property. */
static inline ce_value random_value(int p)
{
    const property_def *def = &properties[p];
    if (def->nullable && pick(5) == 0) return (ce_value){.type = CE_TYPE_NULL};
    ce_value v = {.type = def->type};
    switch (def->type) {
    case CE_TYPE_INT: v.integer = int_pool[pick(COUNT_OF(int_pool))]; break;
    case CE_TYPE_BOOL: v.boolean = pick(2); break;
    case CE_TYPE_FLOAT: v.float_value = float_pool[pick(COUNT_OF(float_pool))]; break;
    case CE_TYPE_DOUBLE: v.double_value = double_pool[pick(COUNT_OF(double_pool))]; break;
    case CE_TYPE_STRING: {
        size_t k = pick(COUNT_OF(string_pool));
        v.string.data = string_pool[k].data;
        v.string.size = string_pool[k].size;
        break;
    }
    case CE_TYPE_BINARY: {
        size_t k = pick(COUNT_OF(binary_pool));
        v.binary.data = (const uint8_t *)binary_pool[k].data;
        v.binary.size = binary_pool[k].size;
        break;
    }
    case CE_TYPE_TIMESTAMP: v.timestamp = timestamp_pool[pick(COUNT_OF(timestamp_pool))]; break;
    case CE_TYPE_DECIMAL128: v.decimal = decimal_of_entry(&decimal_pool[pick(COUNT_OF(decimal_pool))]); break;
    case CE_TYPE_OBJECT_ID: v.object_id = object_id_of((int)pick(5)); break;
    case CE_TYPE_UUID: v.uuid = uuid_of((int)pick(5)); break;
    default: break;
    }
    return v;
}

/* ------------------------------------------------------------------------ */
/* The model                                                                 */
/* ------------------------------------------------------------------------ */

/* The model of the database: the Thing table is its table 0, column p
 * holds properties[p]. Rows are the live objects in key order. */
static model store;

/* The keys of every object created (deleted ones too), in order: random
 * deletes and changes draw from them. */
#define MAX_OBJECTS 2000
static ce_object_key created[MAX_OBJECTS];
static size_t created_count;

static ce_table_key owners;
static ce_column_key columns[P_COUNT];

/* UTF-8 decoding for the model's folding and LIKE. */
static inline size_t decode(const char *s, size_t n, size_t i, uint32_t *out)
{
    unsigned char c = (unsigned char)s[i];
    size_t length = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (length > n - i) length = 1;
    uint32_t code = length == 1 ? c : length == 2 ? (c & 0x1Fu) : length == 3 ? (c & 0x0Fu) : (c & 0x07u);
    for (size_t k = 1; k < length; k++) code = (code << 6) | ((unsigned char)s[i + k] & 0x3Fu);
    *out = code;
    return length;
}

static inline size_t encode(uint32_t c, char *out)
{
    if (c < 0x80) return out[0] = (char)c, 1;
    if (c < 0x800) return out[0] = (char)(0xC0 | (c >> 6)), out[1] = (char)(0x80 | (c & 0x3F)), 2;
    if (c < 0x10000)
        return out[0] = (char)(0xE0 | (c >> 12)), out[1] = (char)(0x80 | ((c >> 6) & 0x3F)), out[2] = (char)(0x80 | (c & 0x3F)), 3;
    out[0] = (char)(0xF0 | (c >> 18)), out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F)), out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* The model's folding: a table of just the letters the pools use. */
static inline uint32_t model_strip(uint32_t c)
{
    static const uint32_t table[][2] = {{0xE9, 'e'}, {0xC9, 'E'}, {0xEB, 'e'}, {0xCB, 'E'}, {0xEF, 'i'}, {0xCF, 'I'},
                                        {0x142, 'l'}, {0x141, 'L'}, {0xF3, 'o'}, {0xD3, 'O'}, {0x17A, 'z'}, {0x179, 'Z'},
                                        {0x386, 0x391}, {0x3AC, 0x3B1}, {0x451, 0x435}, {0x401, 0x415}, {0xE0, 'a'},
                                        {0xE8, 'e'}, {0x11B, 'e'}, {0x1EA1, 'a'}, {0x1EC7, 'e'}};
    for (size_t i = 0; i < COUNT_OF(table); i++)
        if (table[i][0] == c) return table[i][1];
    return c;
}

static inline uint32_t model_lower(uint32_t c)
{
    if (c >= 'A' && c <= 'Z') return c + 32;
    if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
    if (c == 0x141 || c == 0x179) return c + 1;
    if (c >= 0x391 && c <= 0x3A9) return c + 32;
    if (c == 0x386) return 0x3AC;
    if (c >= 0x410 && c <= 0x42F) return c + 32;
    if (c == 0x401) return 0x451;
    return c;
}

static inline size_t model_fold(const char *s, size_t n, unsigned flags, char *out)
{
    size_t used = 0;
    for (size_t i = 0; i < n;) {
        uint32_t c;
        i += decode(s, n, i, &c);
        if (flags & FOLD_DIACRITICS) {
            if (c >= 0x300 && c <= 0x36F) continue;
            c = model_strip(c);
        }
        if (flags & FOLD_CASE) c = model_lower(c);
        used += encode(c, out + used);
    }
    return used;
}

/* LIKE by plain recursion over characters. */
static inline bool model_like(const char *s, size_t n, const char *p, size_t m, bool bytes)
{
    if (m == 0) return n == 0;
    if (p[0] == '*') {
        for (size_t k = 0; k <= n;) {
            if (model_like(s + k, n - k, p + 1, m - 1, bytes)) return true;
            if (k == n) break;
            uint32_t c;
            k += bytes ? 1 : decode(s, n, k, &c);
        }
        return false;
    }
    if (n == 0) return false;
    if (p[0] == '?') {
        uint32_t c;
        size_t step = bytes ? 1 : decode(s, n, 0, &c);
        return model_like(s + step, n - step, p + 1, m - 1, bytes);
    }
    return s[0] == p[0] && model_like(s + 1, n - 1, p + 1, m - 1, bytes);
}

typedef enum op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_BEGINS, OP_ENDS, OP_CONTAINS, OP_LIKE, OP_COUNT } op;
static const char *const op_text[OP_COUNT] = {"==", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"};
static const char *const op_text_alternative[OP_COUNT] = {"=", "<>", "<", "=<", ">", "=>", "beginswith", "EndsWith", "contains", "like"};

static inline void text_of_value(const ce_value *v, const char **data, size_t *size)
{
    if (v->type == CE_TYPE_STRING) *data = v->string.data, *size = v->string.size;
    else *data = (const char *)v->binary.data, *size = v->binary.size;
}

/* `value op constant` as query.h says it should be. */
static inline bool model_match(const ce_value *v, op o, const ce_value *c, unsigned flags)
{
    bool vn = v->type == CE_TYPE_NULL, cn = c->type == CE_TYPE_NULL;
    /* Realm Swift (Realm/RLMQueryUtil.mm, add_substring_constraint):
     * BEGINSWITH, ENDSWITH and CONTAINS with nil or an empty needle are
     * false, whatever the flags. */
    if ((o == OP_BEGINS || o == OP_ENDS || o == OP_CONTAINS) &&
        (cn || ((c->type == CE_TYPE_STRING || c->type == CE_TYPE_BINARY) &&
                (c->type == CE_TYPE_STRING ? c->string.size : c->binary.size) == 0)))
        return false;
    /* realm-core (src/realm/query_conditions.hpp): null == null, null <=
     * null, null >= null and null LIKE null hold; < and > never hold with a
     * null. */
    if (vn || cn) {
        bool both = vn && cn;
        switch (o) {
        case OP_EQ:
        case OP_LE:
        case OP_GE:
        case OP_LIKE: return both;
        case OP_NE: return !both;
        default: return false;
        }
    }
    bool text = (v->type == CE_TYPE_STRING || v->type == CE_TYPE_BINARY) && (c->type == CE_TYPE_STRING || c->type == CE_TYPE_BINARY);
    if (o >= OP_BEGINS || text) {
        const char *a, *b;
        size_t an, bn;
        text_of_value(v, &a, &an);
        text_of_value(c, &b, &bn);
        static char fa[256], fb[256];
        if (flags && v->type == CE_TYPE_STRING && c->type == CE_TYPE_STRING) {
            an = model_fold(a, an, flags, fa);
            bn = model_fold(b, bn, flags, fb);
            a = fa, b = fb;
        }
        bool bytes = v->type == CE_TYPE_BINARY || c->type == CE_TYPE_BINARY;
        switch (o) {
        case OP_BEGINS: return an >= bn && memcmp(a, b, bn) == 0;
        case OP_ENDS: return an >= bn && memcmp(a + an - bn, b, bn) == 0;
        case OP_CONTAINS:
            for (size_t k = 0; k + bn <= an; k++)
                if (memcmp(a + k, b, bn) == 0) return true;
            return false;
        case OP_LIKE: return model_like(a, an, b, bn, bytes);
        default: break;
        }
        int order = bytes_order(a, an, b, bn);
        switch (o) {
        case OP_EQ: return order == 0;
        case OP_NE: return order != 0;
        case OP_LT: return order < 0;
        case OP_LE: return order <= 0;
        case OP_GT: return order > 0;
        default: return order >= 0;
        }
    }
    int order;
    if (is_number(v->type) && is_number(c->type)) {
        if (is_nan(v) || is_nan(c)) {
            bool both = is_nan(v) && is_nan(c);
            return o == OP_EQ ? both : o == OP_NE ? !both : false;
        }
        long double x = number_of(v), y = number_of(c);
        order = x < y ? -1 : x > y;
    } else if (v->type == CE_TYPE_DECIMAL128 && c->type == CE_TYPE_DECIMAL128) {
        if (is_nan(v) || is_nan(c)) {
            bool both = is_nan(v) && is_nan(c);
            return o == OP_EQ ? both : o == OP_NE ? !both : false;
        }
        /* The model's decimals: small coefficients, compared as long doubles
         * of coefficient * 10^exponent (exact enough for the pool). */
        long double x = (long double)(int64_t)(v->decimal.low) * power_of_ten((int)((v->decimal.high >> 49) & 0x3FFF) - 6176);
        long double y = (long double)(int64_t)(c->decimal.low) * power_of_ten((int)((c->decimal.high >> 49) & 0x3FFF) - 6176);
        if (v->decimal.high >> 63) x = -x;
        if (c->decimal.high >> 63) y = -y;
        order = x < y ? -1 : x > y;
    } else if (v->type != c->type && !(is_number(v->type) && is_number(c->type))) {
        return o == OP_NE;
    } else if (v->type == CE_TYPE_BOOL) {
        order = (int)v->boolean - (int)c->boolean;
    } else if (v->type == CE_TYPE_TIMESTAMP) {
        order = v->timestamp.seconds != c->timestamp.seconds ? (v->timestamp.seconds < c->timestamp.seconds ? -1 : 1)
                : v->timestamp.nanoseconds < c->timestamp.nanoseconds ? -1 : v->timestamp.nanoseconds > c->timestamp.nanoseconds;
    } else if (v->type == CE_TYPE_OBJECT_ID) {
        order = bytes_order((const char *)v->object_id.bytes, 12, (const char *)c->object_id.bytes, 12);
    } else if (v->type == CE_TYPE_UUID) {
        order = bytes_order((const char *)v->uuid.bytes, 16, (const char *)c->uuid.bytes, 16);
    } else if (v->type == CE_TYPE_LINK && c->type == CE_TYPE_LINK) {
        bool same = v->link.table == c->link.table && v->link.key == c->link.key;
        return o == OP_EQ ? same : o == OP_NE ? !same : false;
    } else {
        /* Types that do not compare (a mixed value against another type). */
        return o == OP_NE;
    }
    switch (o) {
    case OP_EQ: return order == 0;
    case OP_NE: return order != 0;
    case OP_LT: return order < 0;
    case OP_LE: return order <= 0;
    case OP_GT: return order > 0;
    default: return order >= 0;
    }
}

/* ------------------------------------------------------------------------ */
/* Predicates: text for the engine, a tree for the model                     */
/* ------------------------------------------------------------------------ */

typedef enum atom_kind { ATOM_COMPARE, ATOM_IN, ATOM_BETWEEN, ATOM_SIZE, ATOM_PROPERTIES, ATOM_REVERSED } atom_kind;

typedef struct atom {
    atom_kind kind;
    int property, other; /* ATOM_PROPERTIES: property op other */
    op o;
    unsigned flags;
    ce_value constants[6];
    size_t constant_count;
} atom;

typedef struct expression {
    int kind; /* 0 atom, 1 and, 2 or, 3 not, 4 true, 5 false */
    atom a;
    struct expression *children[3];
    size_t child_count;
} expression;

/* A constant as Realm Swift compares it with a property of `type`: a
 * number against a float property becomes a float first
 * (Realm/RLMQueryUtil.mm unboxes it with [NSNumber floatValue]). */
static inline ce_value model_constant_for(ce_type type, const ce_value *c)
{
    if (type == CE_TYPE_FLOAT && c->type == CE_TYPE_DOUBLE) return (ce_value){.type = CE_TYPE_FLOAT, .float_value = (float)c->double_value};
    if (type == CE_TYPE_FLOAT && c->type == CE_TYPE_INT) return (ce_value){.type = CE_TYPE_FLOAT, .float_value = (float)c->integer};
    return *c;
}

/* Whether `v op c` (or `c op v`) is a null string property's value against
 * a non-null string constant by an ordering without [c]/[d]: the null then
 * orders before every string, '' too (realm-core string_data.hpp,
 * operator< of StringData: "Null strings are smaller than all other
 * strings"; realm-core PR 7273 has string queries follow it). */
static inline bool model_null_string_first(ce_type type, const ce_value *v, op o, const ce_value *c, unsigned flags)
{
    return type == CE_TYPE_STRING && v->type == CE_TYPE_NULL && c->type == CE_TYPE_STRING && !flags &&
           (o == OP_LT || o == OP_LE || o == OP_GT || o == OP_GE);
}

static inline bool model_atom(const model_table *table, size_t position, const atom *a)
{
    const ce_value *v = &model_value_at(table, position, (size_t)a->property)->value;
    ce_type type = properties[a->property].type;
    ce_value c0 = model_constant_for(type, &a->constants[0]), c1 = model_constant_for(type, &a->constants[1]);
    switch (a->kind) {
    case ATOM_COMPARE:
        if (model_null_string_first(type, v, a->o, &c0, a->flags)) return a->o == OP_LT || a->o == OP_LE;
        return model_match(v, a->o, &c0, a->flags);
    case ATOM_REVERSED:
        /* `c op v` is `v op' c` with op mirrored: `'a' > s` is `s < 'a'`. */
        if (model_null_string_first(type, v, a->o, &c0, a->flags)) return a->o == OP_GT || a->o == OP_GE;
        return model_match(&c0, a->o, v, a->flags);
    case ATOM_IN:
        for (size_t k = 0; k < a->constant_count; k++) {
            ce_value c = model_constant_for(type, &a->constants[k]);
            if (model_match(v, OP_EQ, &c, a->flags)) return true;
        }
        return false;
    case ATOM_BETWEEN: return model_match(v, OP_GE, &c0, 0) && model_match(v, OP_LE, &c1, 0);
    case ATOM_SIZE: {
        ce_value size = {.type = CE_TYPE_NULL};
        if (v->type != CE_TYPE_NULL) {
            const char *data;
            size_t n;
            text_of_value(v, &data, &n);
            size = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)n};
        }
        return model_match(&size, a->o, &a->constants[0], 0);
    }
    case ATOM_PROPERTIES: return model_match(v, a->o, &model_value_at(table, position, (size_t)a->other)->value, a->flags);
    }
    return false;
}

static inline bool model_eval(const model_table *table, size_t position, const expression *e)
{
    switch (e->kind) {
    case 0: return model_atom(table, position, &e->a);
    case 1:
        for (size_t i = 0; i < e->child_count; i++)
            if (!model_eval(table, position, e->children[i])) return false;
        return true;
    case 2:
        for (size_t i = 0; i < e->child_count; i++)
            if (model_eval(table, position, e->children[i])) return true;
        return false;
    case 3: return !model_eval(table, position, e->children[0]);
    case 4: return true;
    default: return false;
    }
}

/* Text builder. */
typedef struct text {
    char data[8192];
    size_t used;
} text;

static inline void put(text *t, const char *format, ...) CE_TEST_PRINTF(2, 3);
static inline void put(text *t, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    int n = vsnprintf(t->data + t->used, sizeof t->data - t->used, format, arguments);
    va_end(arguments);
    if (n < 0 || (size_t)n >= sizeof t->data - t->used) {
        fprintf(stderr, "predicate too long\n");
        exit(1);
    }
    t->used += (size_t)n;
}

static inline void put_hex_bytes(text *t, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) put(t, "%02x", b[i]);
}

/* A literal for a value, as the parser reads it (and the value it reads). */
static inline void put_literal(text *t, const ce_value *v, bool escape_unicode)
{
    switch (v->type) {
    case CE_TYPE_NULL: put(t, pick(2) ? "nil" : "NULL"); break;
    case CE_TYPE_INT:
        if (v->integer >= 0 && v->integer < 1000 && pick(4) == 0) put(t, "0x%llx", (unsigned long long)v->integer);
        else put(t, "%lld", (long long)v->integer);
        break;
    case CE_TYPE_BOOL: put(t, v->boolean ? (pick(2) ? "true" : "TRUE") : (pick(2) ? "false" : "False")); break;
    case CE_TYPE_FLOAT:
    case CE_TYPE_DOUBLE: {
        double d = v->type == CE_TYPE_FLOAT ? (double)v->float_value : v->double_value;
        if (isnan(d)) put(t, "nan");
        else if (isinf(d)) put(t, d < 0 ? "-inf" : "infinity");
        else {
            char number[64];
            snprintf(number, sizeof number, "%.17g", d);
            put(t, "%s%s", number, strpbrk(number, ".e") ? "" : ".0");
        }
        break;
    }
    case CE_TYPE_STRING: {
        char quote = pick(2) ? '\'' : '"';
        put(t, "%c", quote);
        for (size_t i = 0; i < v->string.size;) {
            unsigned char c = (unsigned char)v->string.data[i];
            if (c == 0) put(t, "\\0"), i++;
            else if (c == (unsigned char)quote || c == '\\') put(t, "\\%c", c), i++;
            else if (c >= 0x80 && escape_unicode) {
                uint32_t code;
                i += decode(v->string.data, v->string.size, i, &code);
                put(t, "\\u%04X", (unsigned)code);
            } else put(t, "%c", c), i++;
        }
        put(t, "%c", quote);
        break;
    }
    case CE_TYPE_BINARY: {
        static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        put(t, "B64\"");
        const uint8_t *b = v->binary.data;
        size_t n = v->binary.size;
        for (size_t i = 0; i < n; i += 3) {
            uint32_t group = (uint32_t)b[i] << 16 | (i + 1 < n ? (uint32_t)b[i + 1] << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
            put(t, "%c%c%c%c", alphabet[group >> 18], alphabet[(group >> 12) & 63], i + 1 < n ? alphabet[(group >> 6) & 63] : '=',
                i + 2 < n ? alphabet[group & 63] : '=');
        }
        put(t, "\"");
        break;
    }
    case CE_TYPE_TIMESTAMP: put(t, "T%lld:%d", (long long)v->timestamp.seconds, (int)v->timestamp.nanoseconds); break;
    case CE_TYPE_OBJECT_ID: put(t, "oid("), put_hex_bytes(t, v->object_id.bytes, 12), put(t, ")"); break;
    case CE_TYPE_UUID:
        put(t, "uuid("), put_hex_bytes(t, v->uuid.bytes, 4), put(t, "-"), put_hex_bytes(t, v->uuid.bytes + 4, 2);
        put(t, "-"), put_hex_bytes(t, v->uuid.bytes + 6, 2), put(t, "-"), put_hex_bytes(t, v->uuid.bytes + 8, 2);
        put(t, "-"), put_hex_bytes(t, v->uuid.bytes + 10, 6), put(t, ")");
        break;
    default: fprintf(stderr, "no literal for type %d\n", v->type), exit(1);
    }
}

/* Arguments collected while writing a predicate with $N placeholders. */
typedef struct argument_list {
    ce_query_argument items[64];
    size_t count;
} argument_list;

static inline const char *decimal_text(const ce_value *v)
{
    for (size_t k = 0; k < COUNT_OF(decimal_pool); k++) {
        ce_decimal128 d = decimal_of_entry(&decimal_pool[k]);
        if (d.low == v->decimal.low && d.high == v->decimal.high) return decimal_pool[k].text;
    }
    fprintf(stderr, "a decimal outside the pool\n");
    exit(1);
}

static inline void put_constant(text *t, argument_list *arguments, const ce_value *v)
{
    if (arguments && arguments->count < 64 && pick(2)) {
        arguments->items[arguments->count] = (ce_query_argument){.kind = CE_QUERY_ARGUMENT_VALUE, .value = *v};
        put(t, "$%zu", arguments->count++);
        return;
    }
    if (v->type == CE_TYPE_DECIMAL128) put(t, "%s", decimal_text(v));
    else put_literal(t, v, pick(4) == 0);
}

static inline void put_atom_constant(text *t, argument_list *arguments, const ce_value *v)
{
    put_constant(t, arguments, v);
}

static inline const char *flags_text(unsigned flags)
{
    switch (flags) {
    case FOLD_CASE: return "[c]";
    case FOLD_DIACRITICS: return "[d]";
    case FOLD_CASE | FOLD_DIACRITICS: return pick(2) ? "[cd]" : "[dc]";
    default: return "";
    }
}

static inline void put_atom(text *t, argument_list *arguments, const atom *a)
{
    const char *name = properties[a->property].name;
    const char *o = pick(3) ? op_text[a->o] : op_text_alternative[a->o];
    switch (a->kind) {
    case ATOM_COMPARE:
        put(t, "%s %s%s ", name, o, flags_text(a->flags));
        if (a->o >= OP_BEGINS && properties[a->property].type == CE_TYPE_BINARY && a->constants[0].type == CE_TYPE_STRING) {
            /* A string literal against a binary is its bytes; a string
             * argument finds nothing there (test_query_rules.c,
             * string_operators_with_an_argument_of_the_other_kind). */
            put_literal(t, &a->constants[0], false);
            break;
        }
        put_atom_constant(t, arguments, &a->constants[0]);
        break;
    case ATOM_REVERSED:
        put_atom_constant(t, arguments, &a->constants[0]);
        put(t, " %s%s %s", o, flags_text(a->flags), name);
        break;
    case ATOM_SIZE:
        put(t, "%s.%s %s ", name, pick(2) ? "@count" : "@size", o);
        put_constant(t, arguments, &a->constants[0]);
        break;
    case ATOM_PROPERTIES: put(t, "%s %s%s %s", name, o, flags_text(a->flags), properties[a->other].name); break;
    case ATOM_IN:
        if (arguments && arguments->count < 64 && pick(3) == 0) {
            /* A list argument. */
            ce_value *list = malloc((a->constant_count + 1) * sizeof *list);
            memcpy(list, a->constants, a->constant_count * sizeof *list);
            arguments->items[arguments->count] =
                (ce_query_argument){.kind = CE_QUERY_ARGUMENT_LIST, .list = list, .list_count = a->constant_count};
            put(t, "%s IN%s $%zu", name, flags_text(a->flags), arguments->count);
            arguments->count++;
            break;
        }
        put(t, "%s in%s {", name, flags_text(a->flags));
        for (size_t k = 0; k < a->constant_count; k++) {
            if (k) put(t, ", ");
            put_atom_constant(t, NULL, &a->constants[k]);
        }
        put(t, "}");
        break;
    case ATOM_BETWEEN:
        put(t, "%s BETWEEN {", name);
        put_atom_constant(t, NULL, &a->constants[0]);
        put(t, ", ");
        put_atom_constant(t, NULL, &a->constants[1]);
        put(t, "}");
        break;
    }
}

static inline void put_expression(text *t, argument_list *arguments, const expression *e)
{
    switch (e->kind) {
    case 0: put_atom(t, arguments, &e->a); break;
    case 1:
    case 2:
        put(t, "(");
        for (size_t i = 0; i < e->child_count; i++) {
            if (i) put(t, e->kind == 1 ? (pick(2) ? " AND " : " && ") : (pick(2) ? " or " : " || "));
            put_expression(t, arguments, e->children[i]);
        }
        put(t, ")");
        break;
    case 3:
        put(t, pick(2) ? "NOT " : "!");
        put(t, "(");
        put_expression(t, arguments, e->children[0]);
        put(t, ")");
        break;
    case 4: put(t, "TRUEPREDICATE"); break;
    default: put(t, "FALSEPREDICATE"); break;
    }
}

/* A constant to compare a property with: mostly from its pool, sometimes
 * a number of another numeric type, sometimes nil. */
static inline ce_value random_constant(int p)
{
    const property_def *def = &properties[p];
    if (pick(8) == 0) return (ce_value){.type = CE_TYPE_NULL};
    if (is_number(def->type) && pick(3) == 0) {
        switch (pick(3)) {
        case 0: return (ce_value){.type = CE_TYPE_INT, .integer = int_pool[pick(COUNT_OF(int_pool))]};
        case 1: {
            /* realm-core refuses an infinity for an int ("Infinity not
             * supported for int", test_query_parse). */
            double d;
            do d = double_pool[pick(COUNT_OF(double_pool))];
            while (def->type == CE_TYPE_INT && isinf(d));
            return (ce_value){.type = CE_TYPE_DOUBLE, .double_value = d};
        }
        default: return (ce_value){.type = CE_TYPE_DOUBLE, .double_value = (double)((int)pick(9) - 4) / 2.0};
        }
    }
    if (def->type == CE_TYPE_BINARY && pick(3) == 0) {
        /* A string literal against a binary: its bytes. */
        size_t k = pick(4);
        const char *texts[] = {"", "a", "ab", "bc"};
        return (ce_value){.type = CE_TYPE_STRING, .string = {texts[k], strlen(texts[k])}};
    }
    if (def->type == CE_TYPE_STRING && pick(3) == 0) {
        static const char *const fragments[] = {"e", "E", "lis", "LIS", "ö", "zo", "Zo", "*", "?", "a*", "*e", "?o?",
                                                "*ë*", "é*", "x", "ΆΛ", "ёл", "a?b", "*?", "Ann*", "A*n?"};
        const char *f = fragments[pick(COUNT_OF(fragments))];
        return (ce_value){.type = CE_TYPE_STRING, .string = {f, strlen(f)}};
    }
    ce_value v = random_value(p);
    if (v.type == CE_TYPE_NULL) v = random_value(p);
    if (v.type == CE_TYPE_NULL) return v;
    return v;
}

/* Which operators a property type takes (and with which constants). */
static inline bool op_allowed(ce_type type, op o)
{
    if (o >= OP_BEGINS) return type == CE_TYPE_STRING || type == CE_TYPE_BINARY;
    return true;
}

static inline void random_atom(atom *a)
{
    memset(a, 0, sizeof *a);
    a->property = (int)pick(P_COUNT);
    ce_type type = properties[a->property].type;
    size_t kind = pick(12);
    if (kind == 0) {
        a->kind = ATOM_IN;
        a->constant_count = 1 + pick(5);
        for (size_t k = 0; k < a->constant_count; k++) a->constants[k] = random_constant(a->property);
        if (type == CE_TYPE_STRING && pick(2)) a->flags = 1 + (unsigned)pick(3);
        return;
    }
    if (kind == 1) {
        a->kind = ATOM_BETWEEN;
        for (int k = 0; k < 2; k++) {
            do a->constants[k] = random_constant(a->property);
            while (a->constants[k].type == CE_TYPE_NULL);
        }
        return;
    }
    if (kind == 2 && (type == CE_TYPE_STRING || type == CE_TYPE_BINARY)) {
        a->kind = ATOM_SIZE;
        a->o = (op)pick(OP_BEGINS);
        a->constants[0] = (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)pick(8)};
        return;
    }
    if (kind == 3) {
        /* Property against property of a comparable type. */
        for (int tries = 0; tries < 20; tries++) {
            int other = (int)pick(P_COUNT);
            ce_type t2 = properties[other].type;
            bool comparable = (is_number(type) && is_number(t2)) ||
                              ((type == CE_TYPE_STRING || type == CE_TYPE_BINARY) && (t2 == CE_TYPE_STRING || t2 == CE_TYPE_BINARY)) ||
                              type == t2;
            if (!comparable) continue;
            a->kind = ATOM_PROPERTIES;
            a->other = other;
            do a->o = (op)pick(OP_COUNT);
            while (!op_allowed(type, a->o) || !op_allowed(t2, a->o));
            if (type == CE_TYPE_STRING && t2 == CE_TYPE_STRING && a->o != OP_LT && a->o != OP_LE && a->o != OP_GT &&
                a->o != OP_GE && pick(2))
                a->flags = a->o == OP_LIKE ? FOLD_CASE : 1 + (unsigned)pick(3); /* Realm refuses LIKE[d] */
            return;
        }
    }
    a->kind = ATOM_COMPARE;
    do a->o = (op)pick(OP_COUNT);
    while (!op_allowed(type, a->o));
    a->constants[0] = random_constant(a->property);
    if (type == CE_TYPE_STRING && a->o != OP_LT && a->o != OP_LE && a->o != OP_GT && a->o != OP_GE &&
        a->constants[0].type == CE_TYPE_STRING && pick(2))
        a->flags = a->o == OP_LIKE ? FOLD_CASE : 1 + (unsigned)pick(3); /* Realm refuses LIKE[d] */
    if (kind == 4 && a->o != OP_BEGINS && a->o != OP_ENDS && a->o != OP_CONTAINS && a->o != OP_LIKE) a->kind = ATOM_REVERSED;
    else if (kind == 4 && a->constants[0].type != CE_TYPE_NULL) a->kind = ATOM_REVERSED;
}

static inline expression *random_expression(int depth)
{
    expression *e = calloc(1, sizeof *e);
    size_t kind = depth > 2 ? 0 : pick(10);
    if (kind < 5) {
        e->kind = 0;
        random_atom(&e->a);
    } else if (kind < 7) {
        e->kind = 1 + (int)(kind - 5);
        e->child_count = 2 + pick(2);
        for (size_t i = 0; i < e->child_count; i++) e->children[i] = random_expression(depth + 1);
    } else if (kind < 9) {
        e->kind = 3;
        e->child_count = 1;
        e->children[0] = random_expression(depth + 1);
    } else {
        e->kind = 4 + (int)pick(2);
    }
    return e;
}

static inline void free_expression(expression *e)
{
    for (size_t i = 0; i < e->child_count; i++) free_expression(e->children[i]);
    free(e);
}

static inline void free_arguments(argument_list *arguments)
{
    for (size_t i = 0; i < arguments->count; i++)
        if (arguments->items[i].kind == CE_QUERY_ARGUMENT_LIST) free((void *)arguments->items[i].list);
    arguments->count = 0;
}
/* ------------------------------------------------------------------------ */
/* Checking a query against the model                                        */
/* ------------------------------------------------------------------------ */

/* Runs one predicate (text + arguments) and compares with the model. */
static inline void check_expression(ce_txn *txn, const expression *e, bool with_arguments)
{
    text t = {.used = 0};
    argument_list arguments = {.count = 0};
    put_expression(&t, with_arguments ? &arguments : NULL, e);
    ce_query *query;
    if (!ce_query_parse(txn, things, t.data, arguments.items, arguments.count, &query)) {
        fprintf(stderr, "'%s' did not parse: %s\n", t.data, ce_last_error_message());
        exit(1);
    }
    const model_table *thing = &store.tables[0];
    static ce_object_key expected[MAX_OBJECTS];
    size_t count = 0;
    for (size_t i = 0; i < thing->object_count; i++)
        if (model_eval(thing, i, e)) expected[count++] = thing->keys[i];
    size_t n;
    CHECK(ce_query_count(query, txn, &n));
    if (n != count) {
        fprintf(stderr, "'%s': count %zu, the model %zu\n", t.data, n, count);
        for (size_t i = 0; i < count && i < 10; i++) fprintf(stderr, "  model: %lld\n", (long long)expected[i]);
        exit(1);
    }
    ce_object_key first;
    bool found;
    CHECK(ce_query_find_first(query, txn, &first, &found));
    CHECK(found == (count > 0) && (!found || first == expected[0]));
    ce_results *results;
    CHECK(ce_query_find_all(query, &results));
    check_keys(t.data, results, txn, expected, count);
    if (count) {
        size_t index;
        size_t k = pick(count);
        CHECK(ce_results_index_of(results, txn, expected[k], &index, &found) && found && index == k);
    }
    ce_results_free(results);
    ce_query_free(query);
    free_arguments(&arguments);
    checked_queries++;
}

static inline void check_random_queries(ce_txn *txn, size_t rounds)
{
    for (size_t r = 0; r < rounds; r++) {
        expression *e = random_expression(0);
        check_expression(txn, e, r % 2 == 1);
        free_expression(e);
    }
}

/* ------------------------------------------------------------------------ */
/* Building the data                                                         */
/* ------------------------------------------------------------------------ */

/* The schema, in the engine and in the model (an empty store before). */
static inline void create_schema(ce_db *db)
{
    ce_txn *txn;
    model_free(&store);
    CHECK(ce_txn_begin_write(db, &txn));
    CHECK(ce_table_add(txn, "Thing", &things));
    CHECK(things == 0); /* the model's table key */
    model_add_table(&store, "Thing", false);
    for (int p = 0; p < P_COUNT; p++) {
        ce_property_info info = {.name = properties[p].name, .type = properties[p].type, .nullable = properties[p].nullable,
                                 .primary_key = properties[p].primary, .indexed = properties[p].indexed};
        CHECK(ce_property_add(txn, things, &info, &columns[p]));
        CHECK(columns[p] == (ce_column_key)p);
        model_add_property(&store.tables[0], &info);
    }
    CHECK(ce_table_add(txn, "Owner", &owners));
    ce_column_key column;
    ce_property_info name = {.name = "name", .type = CE_TYPE_STRING, .nullable = false, .primary_key = false, .indexed = false};
    CHECK(ce_property_add(txn, owners, &name, &column));
    CHECK(ce_txn_commit(txn));
}

static int64_t next_pk = 1;

/* A Thing with `values` (one per property), in the engine and the model. */
static inline ce_object_key create_thing(ce_txn *txn, const ce_value *values)
{
    ce_object_key key;
    CHECK(created_count < MAX_OBJECTS);
    CHECK(ce_object_create_with_values(txn, things, values, P_COUNT, &key));
    model_create(&store.tables[0], key, NULL, values);
    created[created_count++] = key;
    return key;
}

static inline void add_objects(ce_txn *txn, size_t count)
{
    for (size_t n = 0; n < count && created_count < MAX_OBJECTS; n++) {
        ce_value values[P_COUNT];
        for (int p = 0; p < P_COUNT; p++) values[p] = random_value(p);
        values[P_PK] = (ce_value){.type = CE_TYPE_INT, .integer = next_pk++};
        create_thing(txn, values);
    }
}

static inline void delete_some(ce_txn *txn, size_t count)
{
    model_table *thing = &store.tables[0];
    for (size_t n = 0; n < count; n++) {
        size_t i = pick(created_count);
        long position = model_position_of(thing, created[i]);
        if (position < 0) continue;
        CHECK(ce_object_delete(txn, things, created[i]));
        model_delete(thing, (size_t)position);
    }
}

static inline void change_some(ce_txn *txn, size_t count)
{
    for (size_t n = 0; n < count; n++) {
        size_t i = pick(created_count);
        int p = 1 + (int)pick(P_COUNT - 1);
        long position = model_position_of(&store.tables[0], created[i]);
        if (position < 0) continue;
        ce_value v = random_value(p);
        CHECK(ce_object_set(txn, things, created[i], columns[p], &v));
        model_set_value(&store, things, (size_t)position, (size_t)p, &v);
    }
}

/* ------------------------------------------------------------------------ */
/* Sort, distinct, limit                                                     */
/* ------------------------------------------------------------------------ */

static inline int model_sort_order(const ce_value *a, const ce_value *b)
{
    bool an = a->type == CE_TYPE_NULL, bn = b->type == CE_TYPE_NULL;
    if (an || bn) return an == bn ? 0 : an ? -1 : 1;
    if (is_nan(a) || is_nan(b)) return is_nan(a) == is_nan(b) ? 0 : is_nan(a) ? -1 : 1;
    if (model_match(a, OP_LT, b, 0)) return -1;
    if (model_match(a, OP_GT, b, 0)) return 1;
    return 0;
}

typedef struct sort_spec {
    int property;
    bool ascending;
} sort_spec;

/* Insertion sort of the model's rows (positions): stable by construction. */
static inline void model_sort(size_t *rows, size_t count, const sort_spec *keys, size_t key_count)
{
    const model_table *thing = &store.tables[0];
    for (size_t i = 1; i < count; i++) {
        size_t row = rows[i], j = i;
        while (j > 0) {
            int order = 0;
            for (size_t k = 0; k < key_count && order == 0; k++) {
                size_t column = (size_t)keys[k].property;
                order = model_sort_order(&model_value_at(thing, row, column)->value,
                                         &model_value_at(thing, rows[j - 1], column)->value);
                if (!keys[k].ascending) order = -order;
            }
            if (order >= 0) break;
            rows[j] = rows[j - 1];
            j--;
        }
        rows[j] = row;
    }
}

static inline bool model_same(const ce_value *a, const ce_value *b)
{
    return model_sort_order(a, b) == 0 && a->type == b->type;
}

static inline size_t model_distinct(size_t *rows, size_t count, const int *keys, size_t key_count)
{
    const model_table *thing = &store.tables[0];
    size_t kept = 0;
    for (size_t i = 0; i < count; i++) {
        bool seen = false;
        for (size_t j = 0; j < kept && !seen; j++) {
            bool same = true;
            for (size_t k = 0; k < key_count && same; k++)
                same = model_same(&model_value_at(thing, rows[i], (size_t)keys[k])->value,
                                  &model_value_at(thing, rows[j], (size_t)keys[k])->value);
            seen = same;
        }
        if (!seen) rows[kept++] = rows[i];
    }
    return kept;
}

/* The model's rows (positions, in key order) that match `e` (all if NULL). */
static inline size_t model_rows(size_t *rows, const expression *e)
{
    const model_table *thing = &store.tables[0];
    size_t count = 0;
    for (size_t i = 0; i < thing->object_count; i++)
        if (!e || model_eval(thing, i, e)) rows[count++] = i;
    return count;
}

static inline void check_rows(const char *what, ce_results *results, ce_txn *txn, const size_t *rows, size_t count)
{
    static ce_object_key keys[MAX_OBJECTS];
    for (size_t i = 0; i < count; i++) keys[i] = store.tables[0].keys[rows[i]];
    check_keys(what, results, txn, keys, count);
}

/* ------------------------------------------------------------------------ */
/* The fixture: the data every case on the Thing table starts from           */
/* ------------------------------------------------------------------------ */

/* A new database with the Thing table holding about 3 leaves of objects,
 * some deleted, and the model of them. */
static inline test_db things_open(void)
{
    random_restart();
    created_count = 0;
    next_pk = 1;
    test_db t = test_db_open("query");
    create_schema(t.db);
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    add_objects(txn, 700);
    CHECK(ce_txn_commit(txn));
    test_verify(t.db);
    CHECK(ce_txn_begin_write(t.db, &txn));
    delete_some(txn, 60);
    CHECK(ce_txn_commit(txn));
    return t;
}

/* `check` in a read transaction of the fixture's data. */
static inline void things_in_read(void (*check)(ce_txn *txn))
{
    test_db t = things_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_read(t.db, &txn));
    check(txn);
    ce_txn_end(txn);
    close_verified(&t);
}

/* `check` inside a write transaction (dirty nodes) that changed the
 * fixture's data: objects added, changed and deleted; then committed. */
static inline void things_in_write(void (*check)(ce_txn *txn))
{
    test_db t = things_open();
    ce_txn *txn;
    CHECK(ce_txn_begin_write(t.db, &txn));
    add_objects(txn, 150);
    change_some(txn, 300);
    delete_some(txn, 40);
    check(txn);
    CHECK(ce_txn_commit(txn));
    close_verified(&t);
}

#endif
