/*
 * parse_lex.c — the predicate language's tokens: the text cut into names,
 * keywords, literals, placeholders and punctuation, before parse.c reads
 * them; and the messages of syntax errors.
 *
 * Owns: tokenizing (the whole text at once, every token bounded by the
 * text's length), the character classes of names and numbers, the
 * decoding of escaped names, syntax error messages.
 * Never: builds the tree or decodes a literal's value (parse.c does), or
 * looks at a schema.
 */
#include "parse_internal.h"
#include "error.h"
#include "parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool parse_out_of_memory(void) { return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory parsing a predicate"); }

static void describe_token(const char *text, size_t length, size_t position, char *out, size_t size)
{
    if (size == 0) return;
    if (position >= length) {
        snprintf(out, size, "end of predicate");
        return;
    }
    /* The token: up to the next space or 24 bytes, whichever comes first;
     * at least one byte. */
    size_t end = position + 1;
    static const char *const delimiters = " \t\r\n()[]{},";
    if (!strchr(delimiters, text[position]))
        while (end < length && end - position < 24 && !strchr(delimiters, text[end]) && text[end] != 0) end++;
    size_t used = 0;
    out[0] = 0;
    for (size_t i = position; i < end && used + 5 < size; i++) {
        unsigned char byte = (unsigned char)text[i];
        if (byte >= 0x20 && byte < 0x7F) {
            out[used++] = (char)byte;
        } else {
            snprintf(out + used, size - used, "\\x%02X", byte);
            used += 4;
        }
        out[used] = 0;
    }
    if (end < length && end - position >= 24 && used + 4 < size) {
        memcpy(out + used, "...", 4);
    }
}

bool parse_fail_at(const char *text, size_t length, size_t position, const char *subject, const char *what)
{
    char token[128];
    describe_token(text, length, position, token, sizeof token);
    if (position >= length)
        return error_fail(CE_ERR_INVALID_QUERY, "%s: at position %zu (end of predicate): %s", subject, position, what);
    return error_fail(CE_ERR_INVALID_QUERY, "%s: at position %zu ('%s'): %s", subject, position, token, what);
}

bool parse_syntax_error(const parser *p, size_t position, const char *format, ...)
{
    char what[256];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(what, sizeof what, format, arguments);
    va_end(arguments);
    return parse_fail_at(p->text, p->length, position, "Invalid predicate", what);
}

static bool push_token(parser *p, token_kind kind, size_t start, size_t end, unsigned flags)
{
    if (p->token_count == p->token_capacity) {
        size_t capacity = p->token_capacity ? 2 * p->token_capacity : 32;
        token *grown = realloc(p->tokens, capacity * sizeof *grown);
        if (!grown) return parse_out_of_memory();
        p->tokens = grown;
        p->token_capacity = capacity;
    }
    p->tokens[p->token_count++] = (token){kind, start, end, flags};
    return true;
}

static bool is_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (unsigned char)c >= 0x80;
}
static bool is_name_char(char c) { return is_name_start(c) || parse_is_digit(c); }


/* The end of a run of digits from `i`. */
static size_t digits_end(const char *text, size_t length, size_t i)
{
    while (i < length && parse_is_digit(text[i])) i++;
    return i;
}

/* `YYYY-MM-DD@HH:MM:SS[:N]` (or 'T' for '@') from `start`; 0 if the text there is not one. */
static size_t date_end(const char *text, size_t length, size_t start)
{
    size_t i = digits_end(text, length, start);
    if (i - start != 4 || i >= length || text[i] != '-') return 0;
    size_t j = digits_end(text, length, i + 1);
    if (j == i + 1 || j - i - 1 > 2 || j >= length || text[j] != '-') return 0;
    size_t k = digits_end(text, length, j + 1);
    if (k == j + 1 || k - j - 1 > 2 || k >= length || (text[k] != '@' && text[k] != 'T')) return 0;
    size_t position = k;
    for (int part = 0; part < 3; part++) { /* @HH :MM :SS */
        size_t after = digits_end(text, length, position + 1);
        if (after == position + 1 || after - position - 1 > 2) return 0;
        position = after;
        if (part < 2 && (position >= length || text[position] != ':')) return 0;
    }
    if (position < length && text[position] == ':') {
        size_t after = digits_end(text, length, position + 1);
        if (after == position + 1) return 0;
        position = after;
    }
    return position;
}

/* `T<seconds>:<nanoseconds>` (each with an optional '-') from `start`; 0 if
 * the text there is not one (then it is a name, like a property `T1`). */
static size_t t_timestamp_end(const char *text, size_t length, size_t start)
{
    size_t i = start + 1;
    if (i < length && text[i] == '-') i++;
    size_t after = digits_end(text, length, i);
    if (after == i || after >= length || text[after] != ':') return 0;
    i = after + 1;
    if (i < length && text[i] == '-') i++;
    after = digits_end(text, length, i);
    if (after == i || (after < length && is_name_char(text[after]))) return 0;
    return after;
}

/* A number from `start` (a digit, '.' then a digit, or a sign before
 * either): hexadecimal, or decimal with an optional fraction (`10.`, `.5`
 * too), exponent and 'f' (a float), as realm-core's NUMBER and FLOAT
 * (query_flex.ll). */
static size_t number_end(const char *text, size_t length, size_t start)
{
    size_t i = start;
    if (text[i] == '-' || text[i] == '+') i++;
    if (i + 1 < length && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
        i += 2;
        while (i < length && parse_is_hex_digit(text[i])) i++;
        return i;
    }
    size_t integer_end = digits_end(text, length, i);
    bool digits = integer_end > i;
    i = integer_end;
    if (i < length && text[i] == '.') {
        size_t fraction_end = digits_end(text, length, i + 1);
        if (digits || fraction_end > i + 1) {
            digits = true;
            i = fraction_end;
        }
    }
    if (digits && i < length && (text[i] == 'e' || text[i] == 'E')) {
        size_t j = i + 1;
        if (j < length && (text[j] == '+' || text[j] == '-')) j++;
        if (j < length && parse_is_digit(text[j])) i = digits_end(text, length, j);
    }
    if (digits && i < length && text[i] == 'f') i++;
    return i;
}
/* Whether a number starts at i: a digit, or '.' then a digit, after an
 * optional sign. */
static bool starts_number(const char *text, size_t length, size_t i)
{
    if (text[i] == '-' || text[i] == '+') i++;
    if (i < length && text[i] == '.') i++;
    return i < length && parse_is_digit(text[i]);
}

bool parse_tokenize(parser *p)
{
    const char *text = p->text;
    size_t length = p->length;
    size_t i = 0;
    while (i < length) {
        char c = text[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            i++;
            continue;
        }
        size_t start = i, timestamp;
        token_kind kind;
        unsigned flags = 0;
        if (c == '\'' || c == '"') {
            i++;
            while (i < length && text[i] != c) i += (text[i] == '\\' && i + 1 < length) ? 2 : 1;
            if (i >= length) return parse_syntax_error(p, start, "the string is not closed (a %c is missing)", c);
            i++;
            kind = TOKEN_STRING;
        } else if ((c == 'B' || c == 'b') && i + 3 < length && parse_span_is(text, i, i + 3, "b64") &&
                   (text[i + 3] == '"' || text[i + 3] == '\'')) {
            char quote = text[i + 3];
            i += 4;
            while (i < length && text[i] != quote) i++;
            if (i >= length) return parse_syntax_error(p, start, "the base64 literal is not closed (a %c is missing)", quote);
            i++;
            kind = TOKEN_BINARY;
        } else if (c == 'T' && (timestamp = t_timestamp_end(text, length, i)) != 0) {
            i = timestamp;
            kind = TOKEN_TIMESTAMP;
        } else if ((c == '-' || c == '+') && i + 1 < length &&
                   (text[i + 1] == 'i' || text[i + 1] == 'I' || text[i + 1] == 'n' || text[i + 1] == 'N')) {
            /* -inf, -infinity, -nan (realm-core's lexer takes a sign before
             * them: src/realm/parser/query_flex.ll, `[+-]?(?i:nan)`) */
            i++;
            while (i < length && is_name_char(text[i])) i++;
            if (!parse_span_is(text, start + 1, i, "inf") && !parse_span_is(text, start + 1, i, "infinity") &&
                !parse_span_is(text, start + 1, i, "nan"))
                return parse_syntax_error(p, start, "a sign must be followed by a number");
            kind = TOKEN_NUMBER;
        } else if (starts_number(text, length, i)) {
            size_t date = parse_is_digit(c) ? date_end(text, length, i) : 0;
            if (date) {
                i = date;
                kind = TOKEN_TIMESTAMP;
            } else {
                /* A letter after it starts the next token (`1AND`), as in
                 * realm-core's lexer; the parser refuses what does not fit. */
                i = number_end(text, length, i);
                kind = TOKEN_NUMBER;
            }
        } else if (is_name_start(c)) {
            /* realm-core's identifiers go on over '-', '$' and a white space
             * escaped with a backslash (query_flex.ll: id_char, ws). */
            while (i < length) {
                if (is_name_char(text[i]) || text[i] == '-' || text[i] == '$') i++;
                else if (text[i] == '\\' && i + 1 < length && text[i + 1] && strchr(" trn", text[i + 1])) i += 2;
                else break;
            }
            kind = TOKEN_NAME;
            /* oid(...) and uuid(...) are literals: the text inside is taken whole. */
            if ((parse_span_is(text, start, i, "oid") || parse_span_is(text, start, i, "uuid")) && i < length && text[i] == '(') {
                bool is_oid = parse_span_is(text, start, i, "oid");
                while (i < length && text[i] != ')') i++;
                if (i >= length)
                    return parse_syntax_error(p, start, "the %s literal is not closed (a ')' is missing)", is_oid ? "oid" : "uuid");
                i++;
                kind = is_oid ? TOKEN_OBJECT_ID : TOKEN_UUID;
            }
        } else if (c == '@') {
            i++;
            if (i >= length || !is_name_start(text[i])) return parse_syntax_error(p, start, "expected a name after '@'");
            while (i < length && is_name_char(text[i])) i++;
            kind = TOKEN_AT_NAME;
        } else if (c == '%') {
            if (i + 1 < length && text[i + 1] == '@') kind = TOKEN_PERCENT_AT;
            else if (i + 1 < length && text[i + 1] == 'K') kind = TOKEN_PERCENT_K;
            else return parse_syntax_error(p, start, "'%%' must be followed by '@' (a value) or 'K' (a key path)");
            i += 2;
        } else if (c == '$') {
            i++;
            if (i < length && parse_is_digit(text[i])) {
                i = digits_end(text, length, i);
                if (i < length && is_name_char(text[i]))
                    return parse_syntax_error(p, start, "an argument is '$' and a number, like $0");
                kind = TOKEN_DOLLAR_NUMBER;
            } else if (i < length && is_name_start(text[i])) {
                /* A variable is an identifier too: it goes on over '-' and
                 * '$' (query_flex.ll's id_char; test_parser.cpp,
                 * Parser_Subquery: "$anyNAME_-0123456789"). */
                while (i < length && (is_name_char(text[i]) || text[i] == '-' || text[i] == '$')) i++;
                kind = TOKEN_DOLLAR_NAME;
            } else {
                return parse_syntax_error(p, start, "'$' must be followed by an argument number ($0) or a variable name ($x)");
            }
        } else if (c == '[') {
            /* [c] [d] [cd] [dc]: modifiers; anything else opens a subscript. */
            size_t j = i + 1;
            while (j < length && j - i <= 3 && (parse_lower(text[j]) == 'c' || parse_lower(text[j]) == 'd')) {
                flags |= parse_lower(text[j]) == 'c' ? PARSE_CASE_INSENSITIVE : PARSE_DIACRITIC_INSENSITIVE;
                j++;
            }
            if (j > i + 1 && j - i - 1 <= 2 && j < length && text[j] == ']' &&
                (j - i - 1 == 1 || flags == (PARSE_CASE_INSENSITIVE | PARSE_DIACRITIC_INSENSITIVE))) {
                i = j + 1;
                kind = TOKEN_MODIFIER;
            } else {
                flags = 0;
                i++;
                kind = TOKEN_LEFT_BRACKET;
            }
        } else {
            char next = i + 1 < length ? text[i + 1] : 0;
            i++;
            switch (c) {
            case '=':
                if (next == '=') i++, kind = TOKEN_EQUAL;
                else if (next == '<') i++, kind = TOKEN_LESS_EQUAL;
                else if (next == '>') i++, kind = TOKEN_GREATER_EQUAL;
                else kind = TOKEN_EQUAL;
                break;
            case '!':
                if (next == '=') i++, kind = TOKEN_NOT_EQUAL;
                else kind = TOKEN_BANG;
                break;
            case '<':
                if (next == '=') i++, kind = TOKEN_LESS_EQUAL;
                else if (next == '>') i++, kind = TOKEN_NOT_EQUAL;
                else kind = TOKEN_LESS;
                break;
            case '>':
                if (next == '=') i++, kind = TOKEN_GREATER_EQUAL;
                else kind = TOKEN_GREATER;
                break;
            case '&':
                if (next != '&') return parse_syntax_error(p, start, "'&' must be doubled: '&&' (AND)");
                i++, kind = TOKEN_AND_AND;
                break;
            case '|':
                if (next != '|') return parse_syntax_error(p, start, "'|' must be doubled: '||' (OR)");
                i++, kind = TOKEN_OR_OR;
                break;
            case '(': kind = TOKEN_LEFT_PAREN; break;
            case ')': kind = TOKEN_RIGHT_PAREN; break;
            case '{': kind = TOKEN_LEFT_BRACE; break;
            case '}': kind = TOKEN_RIGHT_BRACE; break;
            case ']': kind = TOKEN_RIGHT_BRACKET; break;
            case ',': kind = TOKEN_COMMA; break;
            case '.': kind = TOKEN_DOT; break;
            case '*': kind = TOKEN_STAR; break;
            /* Arithmetic (realm-core's query_bison.yy: expr '+' expr, ...;
             * query_flex.ll passes '+', '-', '*', '/' as themselves). */
            case '+': kind = TOKEN_PLUS; break;
            case '-': kind = TOKEN_MINUS; break;
            case '/': kind = TOKEN_SLASH; break;
            default: return parse_syntax_error(p, start, "unexpected character");
            }
        }
        if (!push_token(p, kind, start, i, flags)) return false;
    }
    return push_token(p, TOKEN_END, length, length, 0);
}

size_t parse_decode_name(const char *text, size_t start, size_t end, char *out)
{
    size_t used = 0;
    for (size_t i = start; i < end; i++) {
        char c = text[i];
        if (c == '\\' && i + 1 < end) {
            char escaped = text[++i];
            c = escaped == 't' ? '\t' : escaped == 'r' ? '\r' : escaped == 'n' ? '\n' : escaped;
        }
        out[used++] = c;
    }
    return used;
}
