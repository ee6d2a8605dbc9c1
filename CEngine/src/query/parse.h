/*
 * parse.h — the predicate language: text in, syntax tree out.
 *
 * Owns: the tokens and grammar of the predicates Realm Swift's
 * `filter(_:_:)` accepts (NSPredicate's format, and Realm Query Language's
 * `$0` arguments, literals and SORT/DISTINCT/LIMIT suffixes), the literals
 * (numbers, strings with escapes, true/false, nil/NULL, dates, object ids,
 * uuids, base64 binaries), the position (a byte offset into the text) of
 * every node, and every syntax error's message, which names the position and
 * the token found there.
 * Never: looks at a schema, a transaction, an argument's value or any data;
 * never decides what a name means or whether types fit (bind.c binds the
 * tree to a table). A parse fails with CE_ERR_INVALID_QUERY and frees what
 * it built; it never crashes on any input (Fuzz/fuzz_query.c).
 *
 * The grammar (keywords are case-insensitive):
 *
 *   query       := predicate descriptor* END
 *   descriptor  := SORT '(' key-path (ASC|ASCENDING|DESC|DESCENDING) (',' ...)* ')'
 *                | DISTINCT '(' key-path (',' key-path)* ')'
 *                | LIMIT '(' integer ')'
 *   predicate   := and ((OR | '||') and)*
 *   and         := not ((AND | '&&') not)*
 *   not         := (NOT | '!') not | '(' predicate ')' | TRUEPREDICATE | FALSEPREDICATE | comparison
 *   comparison  := [ANY | SOME | ALL | NONE] expr operator [modifier] expr
 *   expr        := term (('+' | '-') term)*          (left to right)
 *   term        := factor (('*' | '/') factor)*       (binds tighter than + and -)
 *   factor      := value | '(' expr ')'
 *                  (realm-core's query_bison.yy: %left '+' '-', %left '*' '/',
 *                  expr: '(' expr ')'. A '(' where a predicate may start opens
 *                  an expr when what follows its ')' is an arithmetic or a
 *                  comparison operator: `(age + 1) * 2 > 5`. A signed number
 *                  after a value is an operator and a number: `age -1` is
 *                  `age - 1`. Names may hold '-', as realm-core's do: `a-b` is
 *                  one name, `a - b` a subtraction.)
 *   operator    := '==' | '=' | '!=' | '<>' | '<' | '<=' | '=<' | '>' | '>=' | '=>'
 *                | BEGINSWITH | ENDSWITH | CONTAINS | LIKE | IN | BETWEEN
 *   comparison  := ... | [ANY | ALL | NONE] key-path GEOWITHIN (shape | '%@' | '$' digits)
 *   shape       := GEOBOX '(' point ',' point ')' | GEOCIRCLE '(' point ',' coordinate ')'
 *                | GEOPOLYGON '(' ring (',' ring)* ')'
 *   ring        := '{' point (',' point)* '}'
 *   point       := '[' coordinate ',' coordinate [',' coordinate] ']'   (longitude, latitude, altitude)
 *   coordinate  := number | '$' digits
 *   modifier    := '[c]' | '[d]' | '[cd]' | '[dc]'  (case / diacritic insensitive)
 *   value       := literal | '%@' | '$' digits | '{' [value (',' value)*] '}'
 *                | key-path | '%K' tail | SUBQUERY '(' key-path ',' '$' name ',' predicate ')' '.' ('@count' | '@size')
 *   tail        := ('[' key ']' | '.' component)*   (after %K: components that follow the argument's key path)
 *   key-path    := component ('.' component)*   (the first may be '$' name, a SUBQUERY variable)
 *   component   := name | '@' name | name ('[' (string | '%@' | '$' digits | digits | FIRST | LAST | SIZE | '*') ']')*
 *   literal     := number | string | TRUE | FALSE | NIL | NULL | timestamp | oid(hex) | uuid(text) | B64"..."
 *   name        := (letter | '_' | non-ASCII) (letter | digit | '_' | '-' | '$' | non-ASCII | '\ ' | '\t' | '\r' | '\n')*
 *                  (a backslash before a space, t, r or n is that white space, as realm-core's identifiers)
 *
 * Arguments: each '%@' and '%K' takes the next argument in order of
 * appearance (counting only '%' placeholders); '$N' names argument N. A
 * '%K' argument must be a string holding a key path, which the binder reads
 * with parse_key_path. Timestamps: `T<seconds>:<nanoseconds>` or
 * `YYYY-MM-DD@HH:MM:SS[:nanoseconds]` (also with 'T' for '@'), in UTC.
 */
#ifndef CE_PARSE_H
#define CE_PARSE_H

#include "cengine.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The deepest nesting of parentheses, NOTs, lists and subqueries accepted. */
#define PARSE_MAX_DEPTH 100

typedef enum parse_kind {
    /* predicates */
    PARSE_TRUE,
    PARSE_FALSE,
    PARSE_AND,     /* items: two or more predicates */
    PARSE_OR,      /* items: two or more predicates */
    PARSE_NOT,     /* left: the predicate */
    PARSE_COMPARE, /* left op right */
    /* values */
    PARSE_KEY_PATH,          /* items: components (tree->components) */
    PARSE_KEY_PATH_ARGUMENT, /* '%K': argument holds a key path string; items: the components after it */
    PARSE_LITERAL,           /* literal */
    PARSE_ARGUMENT,          /* '%@' or '$N' */
    PARSE_LIST,              /* items: values */
    PARSE_SUBQUERY,          /* left: collection key path, right: predicate, variable; then @count */
    PARSE_GEO,               /* a shape: geo_kind, coordinates tree->geo[first_item, +item_count) */
    PARSE_ARITH              /* left arith_op right: '+', '-', '*' or '/' */
} parse_kind;

typedef enum parse_op {
    PARSE_OP_EQUAL,
    PARSE_OP_NOT_EQUAL,
    PARSE_OP_LESS,
    PARSE_OP_LESS_EQUAL,
    PARSE_OP_GREATER,
    PARSE_OP_GREATER_EQUAL,
    PARSE_OP_BEGINS_WITH,
    PARSE_OP_ENDS_WITH,
    PARSE_OP_CONTAINS,
    PARSE_OP_LIKE,
    PARSE_OP_IN,
    PARSE_OP_BETWEEN,
    PARSE_OP_GEO_WITHIN
} parse_op;

typedef enum parse_quantifier {
    PARSE_QUANTIFIER_NONE_GIVEN,
    PARSE_QUANTIFIER_ANY, /* ANY or SOME */
    PARSE_QUANTIFIER_ALL,
    PARSE_QUANTIFIER_NONE
} parse_quantifier;

enum { PARSE_CASE_INSENSITIVE = 1, PARSE_DIACRITIC_INSENSITIVE = 2 };

typedef enum parse_component_kind {
    PARSE_COMPONENT_NAME,      /* a property or class name */
    PARSE_COMPONENT_OPERATOR,  /* '@count', '@size', '@sum', '@avg', '@min', '@max', '@allKeys', '@allValues', '@links', ... */
    PARSE_COMPONENT_VARIABLE,  /* '$x' (first component only) */
    PARSE_COMPONENT_SUBSCRIPT, /* ['key'] after a name: name holds the key, or argument >= 0 */
    PARSE_COMPONENT_INDEX,     /* [0], [FIRST], [LAST]: index (-1: LAST); [SIZE] is the operator @size */
    PARSE_COMPONENT_ALL        /* [*]: every element */
} parse_component_kind;

typedef struct parse_component {
    parse_component_kind kind;
    size_t position;  /* of the component's first byte in the text */
    const char *name; /* NUL-terminated (for an operator, without the '@'; for a variable, without the '$') */
    size_t name_length;
    int argument;     /* SUBSCRIPT: the argument index, or -1 for a literal key */
    int64_t index;    /* INDEX: the position, -1 for LAST */
} parse_component;

/* A coordinate of a shape: a number, or argument N ($N) when argument >= 0.
 * A PARSE_GEO node's coordinates: a box's four (longitude, latitude of each
 * corner), a circle's three (the centre, then the radius), a polygon's
 * ring count, then per ring its point count and two per point. */
typedef struct parse_geo_coordinate {
    double value;
    int argument;
    size_t position;
} parse_geo_coordinate;

/* A literal. Numbers keep their text (a decimal128 property converts it
 * exactly); strings and binaries point into the tree. */
typedef struct parse_literal {
    ce_value value;   /* INT, DOUBLE, STRING, BOOL, NULL, TIMESTAMP, OBJECT_ID, UUID or BINARY */
    const char *text; /* numbers: the literal as written (NUL-terminated), else NULL */
} parse_literal;

typedef struct parse_node {
    parse_kind kind;
    size_t position; /* first byte of the node in the text */
    size_t length;   /* bytes it spans */
    /* PARSE_COMPARE */
    parse_op op;
    unsigned flags; /* PARSE_CASE_INSENSITIVE, PARSE_DIACRITIC_INSENSITIVE */
    parse_quantifier quantifier;
    parse_quantifier right_quantifier; /* `n == ALL {1, 2}`, `n == ANY $0`: of the list on the right */
    size_t op_position;
    /* children: PARSE_NOT (left), PARSE_COMPARE, PARSE_SUBQUERY and PARSE_ARITH (left, right) */
    int left, right;
    /* PARSE_AND, PARSE_OR, PARSE_LIST: node indexes; PARSE_KEY_PATH: component indexes */
    size_t first_item, item_count;
    /* PARSE_ARGUMENT, PARSE_KEY_PATH_ARGUMENT */
    int argument;
    /* PARSE_LITERAL */
    parse_literal literal;
    /* PARSE_SUBQUERY: the variable (without '$') and the operator after it ("count" or "size") */
    const char *variable;
    const char *suffix;
    /* PARSE_GEO: a ce_geo_kind */
    int geo_kind;
    /* PARSE_ARITH: '+', '-', '*' or '/' (left and right: the operands), and
     * how deep the expression nests (at most PARSE_MAX_DEPTH: binding and
     * evaluating it recurse) */
    char arith_op;
    unsigned arith_depth;
} parse_node;

typedef enum parse_descriptor_kind { PARSE_SORT, PARSE_DISTINCT, PARSE_LIMIT } parse_descriptor_kind;

/* One SORT(...), DISTINCT(...) or LIMIT(...) suffix, in the order written. */
typedef struct parse_descriptor {
    parse_descriptor_kind kind;
    size_t position;
    size_t first_key, key_count; /* SORT, DISTINCT: indexes into tree->keys */
    uint64_t limit;              /* LIMIT */
} parse_descriptor;

typedef struct parse_key {
    int key_path; /* a PARSE_KEY_PATH or PARSE_KEY_PATH_ARGUMENT node */
    bool ascending;
} parse_key;

typedef struct parse_tree {
    const char *text; /* a copy of the text parsed (NUL-terminated) */
    size_t text_length;
    parse_node *nodes;
    size_t node_count, node_capacity;
    int *items; /* children of AND, OR and LIST nodes */
    size_t item_count, item_capacity;
    parse_component *components;
    size_t component_count, component_capacity;
    parse_descriptor *descriptors;
    size_t descriptor_count, descriptor_capacity;
    parse_key *keys;
    size_t key_count, key_capacity;
    parse_geo_coordinate *geo; /* the coordinates of PARSE_GEO nodes */
    size_t geo_count, geo_capacity;
    char **blocks; /* decoded strings and names, freed with the tree */
    size_t block_count, block_capacity;
    int root;            /* the predicate */
    int argument_count;  /* 1 + the largest argument index used, 0 if none */
} parse_tree;

/* Parses a predicate. `text` is `length` bytes of UTF-8 (no NUL needed).
 * On success *out_tree is filled (release with parse_tree_free); on failure
 * the tree is empty and the error (CE_ERR_INVALID_QUERY) names the position
 * and the token. */
bool parse_predicate(const char *text, size_t length, parse_tree *out_tree);

/* Parses a key path alone (the string of a '%K' argument, a sort or distinct
 * key path given through the API): out_tree->root is a PARSE_KEY_PATH node. */
bool parse_key_path(const char *text, size_t length, parse_tree *out_tree);

void parse_tree_free(parse_tree *tree);

/* "==", "BEGINSWITH", ... as written in the language. */
const char *parse_op_name(parse_op op);

/* Fails with CE_ERR_INVALID_QUERY: "<subject>: at position N ('<token>'):
 * <what>", the token a short, printable excerpt of the text at `position`
 * (at most 24 bytes, control and non-ASCII bytes escaped), or "(end of
 * predicate)" past its end. Always false. */
bool parse_fail_at(const char *text, size_t length, size_t position, const char *subject, const char *what);

#endif
