/*
 * key_path_filter.h — key-path filters as the other notify files use them
 * (internal; the public half is cengine.h's ce_key_path_filter_*).
 *
 * Owns: the calls that match objects against a filter or against Realm's
 * default (no filter object needed), one at a time or all of a table's at
 * once, for the collection and results change sets.
 * Never: declares the filter's layout (key_path_filter.c keeps it).
 */
#ifndef CE_KEY_PATH_FILTER_H
#define CE_KEY_PATH_FILTER_H

#include "cengine.h"

/* ce_changes_object_matches for an object of `table`: with `filter` (of
 * that table), or with Realm's default when `filter` is NULL. */
bool key_path_filter_matches(const ce_changes *changes, const ce_key_path_filter *filter, ce_table_key table,
                             ce_object_key object, bool *out_changed);

/* ce_changes_matching_objects for `table`: with `filter` (of that table),
 * or with Realm's default when `filter` is NULL. The array belongs to the
 * change set. */
bool key_path_filter_changed_objects(const ce_changes *changes, const ce_key_path_filter *filter, ce_table_key table,
                                     const ce_object_key **out_objects, size_t *out_count);

/* Whether `filter` is a live filter (not freed): otherwise
 * CE_ERR_INVALID_ARGUMENT naming `call` (key_path_filter.c). */
bool key_path_filter_check(const ce_key_path_filter *filter, const char *call);

#endif
