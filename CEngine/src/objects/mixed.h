/*
 * mixed.h — the tree a mixed value is stored as (internal; mixed.c defines
 * what is declared here, and the layout).
 *
 * Owns: the two calls that store and read a mixed value (object.c,
 * containers.c and links.c use them).
 * Never: exposes the tree's layout (mixed.c keeps it), or knows tables,
 * properties or what a link points to.
 */
#ifndef CE_MIXED_H
#define CE_MIXED_H

#include "cengine.h"
#include "node.h"

/* A new tree for a value (0 for null); a CE_TYPE_LIST or CE_TYPE_DICTIONARY
 * value gives an empty nested collection. */
bool mixed_create(space_state *space, const ce_value *value, space_ref *out_ref);

/* Reads a mixed value; a nested collection gives CE_TYPE_LIST or
 * CE_TYPE_DICTIONARY and, in *out_root (may be NULL), its collection. */
bool mixed_read(const space_state *space, space_ref ref, ce_value *out_value, space_ref *out_root);

#endif
