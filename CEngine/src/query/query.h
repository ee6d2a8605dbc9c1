/*
 * query.h — queries: a predicate bound to a table, evaluated leaf by leaf;
 * results (query + sort + distinct + limit) and aggregates.
 *
 * Owns: the semantics every file of the layer keeps (below), and what the
 * tests and fuzzers include of the layer: the string folding behind [c]
 * and [d] and LIKE (fold.h: fold_text, fold_like).
 * Never: declares a call of its own: the public API is cengine.h, section
 * "Queries" (ce_query, ce_results); the layer's files share
 * query_internal.h and their own headers.
 *
 * Semantics (the contract the C tests check against a brute-force model):
 *   - null equals only null: `x == nil` matches nulls, `x != 5` matches
 *     nulls too; as realm-core's conditions (query_conditions.hpp), null <=
 *     null, null >= null and null LIKE null hold, < > BEGINSWITH ENDSWITH
 *     CONTAINS never hold with a null; nil takes every operator the
 *     property's type takes (compare_null_result). Except: a null string
 *     of the object (or of a SUBQUERY's variable) against a non-null
 *     string orders before it, as realm-core's string queries: `s < 'a'`
 *     and `s <= 'a'` hold for a null s (compare_null_string_result).
 *   - BEGINSWITH, ENDSWITH and CONTAINS with nil or an empty needle match
 *     nothing, as in Realm Swift (RLMQueryUtil.mm,
 *     add_substring_constraint; compare_empty_needle).
 *   - A number compared with a float property is a float first, as Realm
 *     Swift unboxes it (bind_predicate.c, float_constant).
 *   - Numbers (int, float, double, decimal128) compare by value across
 *     types (an int property against 2.5 is exact). == treats NaN as equal
 *     to NaN (as value.h does); < <= > >= are false when either side is NaN.
 *   - Other types compare within their type, ordered as value.h orders them
 *     (strings and binaries bytewise, timestamps by time, object ids and
 *     uuids bytewise, false < true). A binary also compares with a string
 *     (its bytes).
 *   - BEGINSWITH, ENDSWITH, CONTAINS, LIKE work on strings (by bytes; LIKE's
 *     '?' is one code point, '*' any run) and binaries (by bytes: '?' is one
 *     byte). [c] folds case, [d] removes diacritics (fold_text); both
 *     apply to ==, !=, IN and the string operators on strings only.
 *   - x IN {a, b} is x == a OR x == b; x BETWEEN {a, b} is x >= a AND x <= b.
 *   - `name.@count` / `name.@size` of a string or binary is its length in
 *     bytes (null for null).
 */
#ifndef CE_QUERY_H
#define CE_QUERY_H

#include "cengine.h"
#include "fold.h"

#endif
