/*
 * parse_internal.h — what the two files of the predicate parser share
 * (parse_lex.c cuts the text into tokens, parse.c builds the tree): the
 * tokens, the parser's state, syntax errors and the character classes.
 *
 * Owns: those types and helpers.
 * Never: is included outside parse.c and parse_lex.c.
 */
#ifndef CE_PARSE_INTERNAL_H
#define CE_PARSE_INTERNAL_H

#include "error.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef enum token_kind {
    TOKEN_END,
    TOKEN_NAME,          /* a name or a keyword */
    TOKEN_AT_NAME,       /* @count, @links, ... */
    TOKEN_NUMBER,
    TOKEN_STRING,        /* '...' or "..." */
    TOKEN_TIMESTAMP,     /* T1:2 or 2024-01-02@03:04:05 */
    TOKEN_OBJECT_ID,     /* oid(...) */
    TOKEN_UUID,          /* uuid(...) */
    TOKEN_BINARY,        /* B64"..." */
    TOKEN_PERCENT_AT,    /* %@ */
    TOKEN_PERCENT_K,     /* %K */
    TOKEN_DOLLAR_NUMBER, /* $0 */
    TOKEN_DOLLAR_NAME,   /* $x */
    TOKEN_EQUAL,         /* == = */
    TOKEN_NOT_EQUAL,     /* != <> */
    TOKEN_LESS,
    TOKEN_LESS_EQUAL,    /* <= =< */
    TOKEN_GREATER,
    TOKEN_GREATER_EQUAL, /* >= => */
    TOKEN_AND_AND,
    TOKEN_OR_OR,
    TOKEN_BANG,
    TOKEN_LEFT_PAREN,
    TOKEN_RIGHT_PAREN,
    TOKEN_LEFT_BRACE,
    TOKEN_RIGHT_BRACE,
    TOKEN_LEFT_BRACKET,
    TOKEN_RIGHT_BRACKET,
    TOKEN_COMMA,
    TOKEN_DOT,
    TOKEN_STAR,          /* '*': [*] in a subscript, or multiplication */
    TOKEN_PLUS,          /* '+' (before a digit it signs a number instead) */
    TOKEN_MINUS,         /* '-' (likewise) */
    TOKEN_SLASH,         /* '/' */
    TOKEN_MODIFIER       /* [c] [d] [cd] [dc] */
} token_kind;

typedef struct token {
    token_kind kind;
    size_t start, end; /* bytes of the text */
    unsigned flags;    /* TOKEN_MODIFIER */
} token;

typedef struct parser {
    const char *text;
    size_t length;
    token *tokens;
    size_t token_count, token_capacity;
    size_t next; /* the current token */
    struct parse_tree *tree;
    int next_percent_argument;
    unsigned depth;
} parser;

/* Every syntax error: "Invalid predicate: at position P ('token'): what". */
bool parse_syntax_error(const parser *p, size_t position, const char *format, ...) CE_PRINTF(3, 4);

bool parse_out_of_memory(void);

/* Cuts p->text into p->tokens (ending with TOKEN_END); a syntax error
 * otherwise. */
bool parse_tokenize(parser *p);

/* A name token's text as the name it stands for: a backslash before a
 * space, 't', 'r' or 'n' is that white space (realm-core's identifiers,
 * query_flex.ll's `ws`, decoded by check_escapes, driver.cpp). Writes at
 * most `end - start` bytes to `out` and returns their number. */
size_t parse_decode_name(const char *text, size_t start, size_t end, char *out);

static inline bool parse_is_digit(char c) { return c >= '0' && c <= '9'; }
static inline bool parse_is_hex_digit(char c)
{
    return parse_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static inline char parse_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

/* Whether text[start, end) is `word`, ignoring ASCII case. */
static inline bool parse_span_is(const char *text, size_t start, size_t end, const char *word)
{
    size_t length = strlen(word);
    if (end - start != length) return false;
    for (size_t i = 0; i < length; i++)
        if (parse_lower(text[start + i]) != word[i]) return false;
    return true;
}

#endif
