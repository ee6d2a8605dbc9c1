/*
 * results_changes.h — the change sets of results views (results_changes.c):
 * the diff of two key sequences, and the results observer.
 *
 * Owns: the diff of a view's keys before and after (results_changes_diff),
 * which the observer (ce_results_observer_*, cengine.h) runs on every
 * update.
 * Never: evaluates a view (results.c does) or decides whether an object
 * changed (the key-path filter does).
 */
#ifndef CE_RESULTS_CHANGES_H
#define CE_RESULTS_CHANGES_H

#include "cengine.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The change set of a view whose objects were `old_keys` and are
 * `new_keys`: an object's elements are matched by key (an object a view
 * holds twice: its occurrences in order). When both sequences ascend (a
 * view in key order), a merge; otherwise a hash of the old keys, and the
 * objects whose order changed are found as for a collection (the longest
 * run kept in order stays, the others move). Objects in `modified`
 * (ascending, may be NULL when modified_count is 0) that stay in place are
 * modifications; inserted, deleted and moved ones are not.
 */
bool results_changes_diff(const ce_object_key *old_keys, size_t old_count, const ce_object_key *new_keys,
                          size_t new_count, const ce_object_key *modified, size_t modified_count,
                          ce_collection_change *out);

#endif
