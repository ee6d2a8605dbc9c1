/*
 * collection_changes.h — collection change sets in Realm's terms
 * (collection_changes.c): where each element of the new version of a list,
 * set or results view came from, and the change set that follows from it.
 *
 * Owns: the element origins (collection_origin) computed from an operation
 * log or from the two versions' contents, and building a
 * ce_collection_change or a ce_dictionary_change from them.
 * Never: reads the database itself for the pure calls below (the public
 * calls in collection_changes.c do, through the collection readers), or
 * decides whether a linked object changed (a callback says).
 */
#ifndef CE_COLLECTION_CHANGES_H
#define CE_COLLECTION_CHANGES_H

#include "cengine.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One operation of a list's (or a set's) operation log, in the order made.
 * Indices are those of the collection at the moment of the operation. A
 * set's insert and erase are INSERT and ERASE at the index the value got or
 * had. CLEAR's `a` is the size before. */
typedef enum collection_op_kind {
    COLLECTION_OP_INSERT, /* a new element at a */
    COLLECTION_OP_SET,    /* the element at a replaced */
    COLLECTION_OP_ERASE,  /* the element at a removed */
    COLLECTION_OP_MOVE,   /* the element at a moved so that it ends up at b */
    COLLECTION_OP_SWAP,   /* the elements at a and b exchanged */
    COLLECTION_OP_CLEAR   /* every element removed (a: the size before) */
} collection_op_kind;

typedef struct collection_op {
    collection_op_kind kind;
    uint64_t a, b;
} collection_op;

/* An element of the new version that was not in the old one. */
#define COLLECTION_NEW SIZE_MAX

/* Where each element of the new version came from. */
typedef struct collection_origin {
    size_t old_size, new_size;
    size_t *origin; /* per new position: its old index, or COLLECTION_NEW */
    bool *set;      /* per old index: replaced in place (a modification if it stays) */
    bool *moved;    /* per old index: moved or swapped by an operation (NULL: none known) */
} collection_origin;

void collection_origin_free(collection_origin *origin);

/* Replays an operation log on the old indices. An operation whose index
 * does not fit the collection as replayed so far is CE_ERR_CORRUPT (the log
 * does not belong to this collection). */
bool collection_origin_from_ops(size_t old_size, const collection_op *ops, size_t op_count, collection_origin *out);

/* Compares the two versions' contents. `sorted` (a set, in ce_value's
 * order): a merge, equal values stay (set when they differ bit for bit).
 * Otherwise (a list): the identical prefix and suffix stay; of the rest,
 * when `in_place` (a list of values) and both versions have the same
 * length, each element stays and is set when it differs; else the old rest
 * is deleted and the new rest inserted. Values differ as the table change
 * sets say: bit for bit (0.0 and -0.0, decimals 1.0 and 1.00 differ). */
bool collection_origin_from_values(const ce_value *old_values, size_t old_count, const ce_value *new_values,
                                   size_t new_count, bool sorted, bool in_place, collection_origin *out);

/* Whether the element that stayed from old_index to new_index changed
 * (a linked object's change); called only for elements that stay, are not
 * moved and were not set. */
typedef bool (*collection_changed_fn)(void *context, size_t old_index, size_t new_index, bool *out_changed);

/* The change set of the origins: the elements that stay in place are a
 * run of old indices increasing in the new order, the longest among those
 * that keep every element no operation moved (the rest moved: each a
 * deletion and an insertion); an element that stays is modified when
 * it was set or `changed` says so (`changed` may be NULL). *out is
 * overwritten (it need not be freed before). */
bool collection_change_build(const collection_origin *origin, collection_changed_fn changed, void *context,
                             ce_collection_change *out);

/* A dictionary's change set from its keys (CE_TYPE_STRING, ascending by
 * bytes) and values in both versions: keys only in the old one deleted,
 * only in the new one inserted, in both modified when the value differs
 * (bit for bit),
 * the key is in `touched` (keys an operation log set; ascending, may be
 * NULL), or `changed` says so (called with the new value, may be NULL).
 * Key strings are copied into *out. */
typedef bool (*dictionary_changed_fn)(void *context, const ce_value *new_value, bool *out_changed);
bool collection_dictionary_change_build(const ce_value *old_keys, const ce_value *old_values, size_t old_count,
                                        const ce_value *new_keys, const ce_value *new_values, size_t new_count,
                                        const ce_value *touched, size_t touched_count, dictionary_changed_fn changed,
                                        void *context, ce_dictionary_change *out);

#endif
