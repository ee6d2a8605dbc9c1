/*
 * collection_changes.c — collection change sets in Realm's terms (Realm
 * Swift's RealmCollectionChange): deletions and modifications as indices in
 * the old version, insertions and modifications_new in the new one. Each
 * element of the new version has an origin (an old index, or new) found by
 * replaying the collection's operation log on the old indices, or, without
 * one, by comparing the two versions' contents; the change set follows from
 * the origins.
 *
 * Owns: element origins, building collection and dictionary change sets,
 * and the public calls that compute them (ce_changes_collection,
 * ce_changes_dictionary).
 * Never: decides whether an object changed (changes.c and the key-path
 * filter do), or changes data.
 */
#include "collection_changes.h"
#include "buf.h"
#include "changes.h"
#include "error.h"
#include "history.h"
#include "key_path_filter.h"
#include "table.h"
#include "value.h"

#include <stdlib.h>
#include <string.h>

static bool changes_out_of_memory(void) { return error_fail(CE_ERR_OUT_OF_MEMORY, "out of memory computing a change set"); }

void collection_origin_free(collection_origin *origin)
{
    if (!origin) return;
    free(origin->origin);
    free(origin->set);
    free(origin->moved);
    memset(origin, 0, sizeof *origin);
}

void ce_collection_change_free(ce_collection_change *change)
{
    if (!change) return;
    free(change->deletions);
    free(change->insertions);
    free(change->modifications);
    free(change->modifications_new);
    memset(change, 0, sizeof *change);
}

void ce_dictionary_change_free(ce_dictionary_change *change)
{
    if (!change) return;
    ce_value *lists[3] = {change->deletions, change->insertions, change->modifications};
    size_t counts[3] = {change->deletion_count, change->insertion_count, change->modification_count};
    for (int l = 0; l < 3; l++) {
        for (size_t i = 0; i < counts[l]; i++) free((void *)lists[l][i].string.data);
        free(lists[l]);
    }
    memset(change, 0, sizeof *change);
}

/* Room for `old_size` set flags and `capacity` origins (at least one each). */
static bool origin_start(collection_origin *out, size_t old_size, size_t capacity)
{
    memset(out, 0, sizeof *out);
    out->old_size = old_size;
    out->origin = malloc((capacity + 1) * sizeof *out->origin);
    out->set = calloc(old_size + 1, sizeof *out->set);
    if (!out->origin || !out->set) {
        collection_origin_free(out);
        return changes_out_of_memory();
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Origins from an operation log                                             */
/* ------------------------------------------------------------------------ */

static bool op_out_of_range(size_t op, const char *kind, uint64_t index, size_t size)
{
    return error_fail(CE_ERR_CORRUPT,
                      "invalid database: operation %zu of a collection's history (%s at %llu) does not fit the collection "
                      "of %zu elements it was made on",
                      op, kind, (unsigned long long)index, size);
}

bool collection_origin_from_ops(size_t old_size, const collection_op *ops, size_t op_count, collection_origin *out)
{
    size_t capacity = old_size + 16;
    if (!origin_start(out, old_size, capacity)) return false;
    if (!(out->moved = calloc(old_size + 1, sizeof *out->moved))) {
        collection_origin_free(out);
        return changes_out_of_memory();
    }
    size_t *slots = out->origin, size = old_size;
    for (size_t i = 0; i < old_size; i++) slots[i] = i;
    for (size_t k = 0; k < op_count; k++) {
        const collection_op *op = &ops[k];
        switch (op->kind) {
        case COLLECTION_OP_INSERT:
            if (op->a > size) return collection_origin_free(out), op_out_of_range(k, "insert", op->a, size);
            if (size + 1 > capacity) {
                void *grown = slots;
                if (!buf_reserve(&grown, &capacity, size + 2, sizeof *slots)) return collection_origin_free(out), false;
                out->origin = slots = grown;
            }
            memmove(&slots[op->a + 1], &slots[op->a], (size - op->a) * sizeof *slots);
            slots[op->a] = COLLECTION_NEW;
            size++;
            break;
        case COLLECTION_OP_SET:
            if (op->a >= size) return collection_origin_free(out), op_out_of_range(k, "set", op->a, size);
            if (slots[op->a] != COLLECTION_NEW) out->set[slots[op->a]] = true;
            break;
        case COLLECTION_OP_ERASE:
            if (op->a >= size) return collection_origin_free(out), op_out_of_range(k, "erase", op->a, size);
            memmove(&slots[op->a], &slots[op->a + 1], (size - op->a - 1) * sizeof *slots);
            size--;
            break;
        case COLLECTION_OP_MOVE: {
            if (op->a >= size || op->b >= size)
                return collection_origin_free(out), op_out_of_range(k, "move", op->a >= size ? op->a : op->b, size);
            size_t moved = slots[op->a], from = (size_t)op->a, to = (size_t)op->b;
            if (from < to) memmove(&slots[from], &slots[from + 1], (to - from) * sizeof *slots);
            else memmove(&slots[to + 1], &slots[to], (from - to) * sizeof *slots);
            slots[to] = moved;
            if (moved != COLLECTION_NEW && from != to) out->moved[moved] = true;
            break;
        }
        case COLLECTION_OP_SWAP: {
            if (op->a >= size || op->b >= size)
                return collection_origin_free(out), op_out_of_range(k, "swap", op->a >= size ? op->a : op->b, size);
            size_t held = slots[op->a];
            slots[op->a] = slots[op->b];
            slots[op->b] = held;
            if (op->a != op->b)
                for (int k2 = 0; k2 < 2; k2++) {
                    size_t element = slots[k2 ? op->a : op->b];
                    if (element != COLLECTION_NEW) out->moved[element] = true;
                }
            break;
        }
        case COLLECTION_OP_CLEAR:
            if (op->a != size) return collection_origin_free(out), op_out_of_range(k, "clear", op->a, size);
            size = 0;
            break;
        default:
            collection_origin_free(out);
            return error_fail(CE_ERR_CORRUPT, "invalid database: operation %zu of a collection's history has unknown kind %d",
                              k, (int)op->kind);
        }
    }
    out->new_size = size;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Origins from the two versions' contents                                   */
/* ------------------------------------------------------------------------ */

bool collection_origin_from_values(const ce_value *old_values, size_t old_count, const ce_value *new_values,
                                   size_t new_count, bool sorted, bool in_place, collection_origin *out)
{
    if (!origin_start(out, old_count, new_count)) return false;
    out->new_size = new_count;
    if (sorted) {
        size_t i = 0, j = 0;
        while (j < new_count) {
            int order = i < old_count ? value_compare(&old_values[i], &new_values[j]) : 1;
            if (order < 0) i++;
            else if (order > 0) out->origin[j++] = COLLECTION_NEW;
            else {
                /* Equal in the set's order but not bit for bit (0.0 and
                 * -0.0, decimals 1.0 and 1.00): the element changed. */
                out->set[i] = !value_identical(&old_values[i], &new_values[j]);
                out->origin[j++] = i++;
            }
        }
        return true;
    }
    /* Elements compare bit for bit, as the table change sets do: 0.0 to
     * -0.0 is a change. */
    size_t prefix = 0;
    while (prefix < old_count && prefix < new_count && value_identical(&old_values[prefix], &new_values[prefix])) prefix++;
    size_t suffix = 0;
    while (suffix < old_count - prefix && suffix < new_count - prefix &&
           value_identical(&old_values[old_count - 1 - suffix], &new_values[new_count - 1 - suffix]))
        suffix++;
    size_t old_middle = old_count - prefix - suffix, new_middle = new_count - prefix - suffix;
    for (size_t j = 0; j < prefix; j++) out->origin[j] = j;
    for (size_t j = 0; j < new_middle; j++) {
        if (in_place && old_middle == new_middle) {
            out->origin[prefix + j] = prefix + j;
            out->set[prefix + j] = !value_identical(&old_values[prefix + j], &new_values[prefix + j]);
        } else {
            out->origin[prefix + j] = COLLECTION_NEW;
        }
    }
    for (size_t j = 0; j < suffix; j++) out->origin[new_count - suffix + j] = old_count - suffix + j;
    return true;
}

/* ------------------------------------------------------------------------ */
/* The change set                                                            */
/* ------------------------------------------------------------------------ */

/* Marks in `stays` (per entry of `sequence`, distinct values below
 * `bound`) an increasing subsequence of the greatest weight, where an entry
 * whose value `heavy` marks weighs more than all the others together (NULL:
 * every entry weighs the same: a longest increasing subsequence). A
 * Fenwick tree over the values holds the best run ending below each one:
 * O(n log n); O(n) when the whole sequence increases, the usual case. */
static bool heaviest_increasing(const size_t *sequence, size_t count, size_t bound, const bool *heavy, bool *stays)
{
    bool increasing = true;
    for (size_t i = 1; i < count && increasing; i++) increasing = sequence[i - 1] < sequence[i];
    if (increasing) {
        for (size_t i = 0; i < count; i++) stays[i] = true;
        return true;
    }
    uint64_t *tree_weight = calloc(bound + 1, sizeof *tree_weight); /* 1-based over values */
    size_t *tree_entry = malloc((bound + 1) * sizeof *tree_entry);
    uint64_t *weight = malloc(count * sizeof *weight);
    size_t *previous = malloc(count * sizeof *previous);
    if (!tree_weight || !tree_entry || !weight || !previous) {
        free(tree_weight);
        free(tree_entry);
        free(weight);
        free(previous);
        return changes_out_of_memory();
    }
    uint64_t heavy_weight = (uint64_t)count + 1;
    uint64_t best = 0;
    size_t best_entry = SIZE_MAX;
    for (size_t i = 0; i < count; i++) {
        /* The best run ending at a value below sequence[i]. */
        uint64_t before = 0;
        size_t before_entry = SIZE_MAX;
        for (size_t v = sequence[i]; v > 0; v -= v & (~v + 1))
            if (tree_weight[v] > before) before = tree_weight[v], before_entry = tree_entry[v];
        weight[i] = before + (heavy && heavy[sequence[i]] ? heavy_weight : 1);
        previous[i] = before_entry;
        for (size_t v = sequence[i] + 1; v <= bound; v += v & (~v + 1))
            if (weight[i] > tree_weight[v]) tree_weight[v] = weight[i], tree_entry[v] = i;
        if (weight[i] > best) best = weight[i], best_entry = i;
    }
    memset(stays, 0, count * sizeof *stays);
    for (size_t i = best_entry; i != SIZE_MAX; i = previous[i]) stays[i] = true;
    free(tree_weight);
    free(tree_entry);
    free(weight);
    free(previous);
    return true;
}

bool collection_change_build(const collection_origin *origin, collection_changed_fn changed, void *context,
                             ce_collection_change *out)
{
    memset(out, 0, sizeof *out);
    size_t old_size = origin->old_size, new_size = origin->new_size;
    /* The old indices of the elements that stay, in the new order. */
    size_t *kept = malloc((new_size + 1) * sizeof *kept);
    size_t *kept_at = malloc((new_size + 1) * sizeof *kept_at);
    bool *stays = malloc((new_size + 1) * sizeof *stays);
    bool *in_place = calloc(old_size + 1, sizeof *in_place);
    out->deletions = malloc((old_size + 1) * sizeof *out->deletions);
    out->insertions = malloc((new_size + 1) * sizeof *out->insertions);
    size_t room = old_size < new_size ? old_size : new_size;
    out->modifications = malloc((room + 1) * sizeof *out->modifications);
    out->modifications_new = malloc((room + 1) * sizeof *out->modifications_new);
    bool ok = kept && kept_at && stays && in_place && out->deletions && out->insertions && out->modifications &&
              out->modifications_new;
    if (!ok) ok = changes_out_of_memory();
    size_t kept_count = 0;
    for (size_t j = 0; ok && j < new_size; j++) {
        if (origin->origin[j] == COLLECTION_NEW) continue;
        if (origin->origin[j] >= old_size)
            ok = error_fail(CE_ERR_CORRUPT, "invalid database: element %zu of a collection comes from old index %zu of %zu", j,
                            origin->origin[j], old_size);
        kept[kept_count] = origin->origin[j];
        kept_at[kept_count++] = j;
    }
    /* Keep every element no operation moved (they are in order). */
    bool *heavy = NULL;
    if (ok && origin->moved) {
        heavy = malloc((old_size + 1) * sizeof *heavy);
        ok = heavy ? true : changes_out_of_memory();
        for (size_t i = 0; ok && i < old_size; i++) heavy[i] = !origin->moved[i];
    }
    if (ok) ok = heaviest_increasing(kept, kept_count, old_size, heavy, stays);
    free(heavy);
    for (size_t k = 0; ok && k < kept_count; k++)
        if (stays[k]) in_place[kept[k]] = true;
    for (size_t i = 0; ok && i < old_size; i++)
        if (!in_place[i]) out->deletions[out->deletion_count++] = i;
    for (size_t j = 0, k = 0; ok && j < new_size; j++) {
        bool moved_or_new = origin->origin[j] == COLLECTION_NEW;
        if (!moved_or_new) moved_or_new = !stays[k++];
        if (moved_or_new) out->insertions[out->insertion_count++] = j;
    }
    for (size_t k = 0; ok && k < kept_count; k++) {
        if (!stays[k]) continue;
        bool modified = origin->set[kept[k]];
        if (!modified && changed) ok = changed(context, kept[k], kept_at[k], &modified);
        if (ok && modified) {
            out->modifications[out->modification_count++] = kept[k];
            out->modifications_new[out->modification_new_count++] = kept_at[k];
        }
    }
    free(kept);
    free(kept_at);
    free(stays);
    free(in_place);
    if (!ok) ce_collection_change_free(out);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Dictionaries                                                              */
/* ------------------------------------------------------------------------ */

static int compare_keys(const ce_value *a, const ce_value *b)
{
    return value_compare_bytes(a->string.data, a->string.size, b->string.data, b->string.size);
}

static int compare_key_values(const void *a, const void *b) { return compare_keys(a, b); }

static bool key_touched(const ce_value *touched, size_t count, const ce_value *key)
{
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        int order = compare_keys(&touched[middle], key);
        if (order == 0) return true;
        if (order < 0) low = middle + 1;
        else high = middle;
    }
    return false;
}

/* Appends a copy of a key to one of the change's lists. */
static bool push_key(ce_value **list, size_t *count, const ce_value *key)
{
    char *copy = malloc(key->string.size + 1);
    if (!copy) return changes_out_of_memory();
    if (key->string.size) memcpy(copy, key->string.data, key->string.size);
    copy[key->string.size] = '\0';
    (*list)[(*count)++] = (ce_value){.type = CE_TYPE_STRING, .string = {copy, key->string.size}};
    return true;
}

bool collection_dictionary_change_build(const ce_value *old_keys, const ce_value *old_values, size_t old_count,
                                        const ce_value *new_keys, const ce_value *new_values, size_t new_count,
                                        const ce_value *touched, size_t touched_count, dictionary_changed_fn changed,
                                        void *context, ce_dictionary_change *out)
{
    memset(out, 0, sizeof *out);
    out->deletions = malloc((old_count + 1) * sizeof *out->deletions);
    out->insertions = malloc((new_count + 1) * sizeof *out->insertions);
    out->modifications = malloc(((old_count < new_count ? old_count : new_count) + 1) * sizeof *out->modifications);
    bool ok = out->deletions && out->insertions && out->modifications ? true : changes_out_of_memory();
    size_t i = 0, j = 0;
    while (ok && (i < old_count || j < new_count)) {
        int order = i == old_count ? 1 : j == new_count ? -1 : compare_keys(&old_keys[i], &new_keys[j]);
        if (order < 0) {
            ok = push_key(&out->deletions, &out->deletion_count, &old_keys[i++]);
        } else if (order > 0) {
            ok = push_key(&out->insertions, &out->insertion_count, &new_keys[j++]);
        } else {
            bool modified = !value_identical(&old_values[i], &new_values[j]) ||
                            (touched && key_touched(touched, touched_count, &new_keys[j]));
            if (!modified && changed) ok = changed(context, &new_values[j], &modified);
            if (ok && modified) ok = push_key(&out->modifications, &out->modification_count, &new_keys[j]);
            i++;
            j++;
        }
    }
    if (!ok) ce_dictionary_change_free(out);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* The public calls: a collection of the database between two versions      */
/* ------------------------------------------------------------------------ */

/* A collection's elements (or a dictionary's keys) in one version, with
 * their strings' and binaries' bytes copied (a reader's are valid only
 * until its next read). */
typedef struct contents {
    ce_value *values;
    size_t count;
    uint8_t *bytes;
    size_t byte_count, byte_capacity;
} contents;

static void contents_free(contents *c)
{
    free(c->values);
    free(c->bytes);
    memset(c, 0, sizeof *c);
}

static bool contents_read(const ce_collection *collection, bool keys, contents *out)
{
    memset(out, 0, sizeof *out);
    table_collection_reader *reader;
    size_t count;
    if (!table_collection_reader_open(collection, keys, &reader, &count)) return false;
    bool ok = (out->values = malloc((count + 1) * sizeof *out->values)) != NULL ? true : changes_out_of_memory();
    for (size_t i = 0; ok && i < count; i++) {
        ce_value *v = &out->values[i];
        ok = table_collection_reader_get(reader, i, v);
        if (ok && (v->type == CE_TYPE_STRING || v->type == CE_TYPE_BINARY)) {
            /* Offsets into `bytes` for now: it may move as it grows. */
            size_t offset = out->byte_count;
            ok = buf_append(&out->bytes, &out->byte_count, &out->byte_capacity, v->string.data, v->string.size);
            v->string.data = (const char *)(uintptr_t)offset;
        }
    }
    table_collection_reader_close(reader);
    if (!ok) {
        contents_free(out);
        return false;
    }
    out->count = count;
    for (size_t i = 0; i < count; i++) {
        ce_value *v = &out->values[i];
        if (v->type == CE_TYPE_STRING || v->type == CE_TYPE_BINARY)
            v->string.data = v->string.size ? (const char *)out->bytes + (uintptr_t)v->string.data : "";
    }
    return true;
}

#define NESTING_STEPS 128

/* The collection `id` names, opened in `txn`; *out NULL when it is not
 * there (its table, object or property absent: added or removed in
 * between; or a nested collection the mixed value no longer, or not yet,
 * holds). */
static bool collection_open_in(ce_txn *txn, const history_collection_id *id, ce_collection **out)
{
    *out = NULL;
    bool exists;
    if (!ce_object_exists(txn, id->table, id->object, &exists)) return ce_last_error_code() == CE_ERR_NO_SUCH_TABLE;
    if (!exists) return true;
    ce_property_info info;
    if (!ce_property_get_info(txn, id->table, id->column, &info)) return ce_last_error_code() == CE_ERR_NO_SUCH_PROPERTY;
    ce_collection *current;
    bool mixed = info.type == CE_TYPE_MIXED && info.collection == CE_COLLECTION_NONE;
    if (!(mixed ? ce_collection_open_mixed(txn, id->table, id->object, id->column, &current)
                : ce_collection_open(txn, id->table, id->object, id->column, &current))) {
        /* A mixed property that holds no collection in this version. */
        return mixed && ce_last_error_code() == CE_ERR_WRONG_TYPE;
    }
    for (size_t i = 0; i < id->depth; i++) {
        const history_path_step *step = &id->steps[i];
        ce_value at = step->by_key ? (ce_value){.type = CE_TYPE_STRING, .string = {step->key, step->key_size}}
                                   : (ce_value){.type = CE_TYPE_INT, .integer = (int64_t)step->index};
        ce_collection *nested;
        bool ok = ce_collection_open_nested(current, &at, &nested);
        ce_collection_close(current);
        if (!ok) {
            ce_error_code code = ce_last_error_code();
            return code == CE_ERR_WRONG_TYPE || code == CE_ERR_INDEX_OUT_OF_BOUNDS;
        }
        current = nested;
    }
    *out = current;
    return true;
}

/* What both public calls find first: the collection in both versions, its
 * contents (and a dictionary's values), and its operations in the history
 * when the history covers the range. */
typedef struct collection_versions {
    const ce_changes *changes;
    history_path_step steps[NESTING_STEPS];
    history_collection_id id;
    ce_collection_type kind;
    ce_type element;
    bool in_old, in_new;
    contents old_contents, new_contents;             /* elements, or a dictionary's keys */
    contents old_dictionary_values, new_dictionary_values;
    bool covered;                          /* the change set came from the history */
    const history_collection_changes *ops; /* NULL: none recorded (or not covered) */
} collection_versions;

static void versions_free(collection_versions *v)
{
    contents_free(&v->old_contents);
    contents_free(&v->new_contents);
    contents_free(&v->old_dictionary_values);
    contents_free(&v->new_dictionary_values);
}

static bool read_version(ce_txn *txn, const collection_versions *v, bool dictionary, contents *elements, contents *values,
                         bool *out_present)
{
    ce_collection *collection;
    if (!collection_open_in(txn, &v->id, &collection)) return false;
    if (collection) {
        /* A mixed value at the path that holds the other kind of
         * collection in this version: not this collection. */
        ce_collection_type kind;
        ce_type element;
        if (!ce_collection_kind(collection, &kind, &element)) {
            ce_collection_close(collection);
            return false;
        }
        if (kind != v->kind) {
            ce_collection_close(collection);
            collection = NULL;
        }
    }
    *out_present = collection != NULL;
    if (!collection) return true;
    bool ok = contents_read(collection, dictionary, elements) && (!dictionary || contents_read(collection, false, values));
    ce_collection_close(collection);
    return ok;
}

static bool step_equal(const history_path_step *a, const history_path_step *b)
{
    if (a->by_key != b->by_key) return false;
    if (!a->by_key) return a->index == b->index;
    return a->key_size == b->key_size && (a->key_size == 0 || memcmp(a->key, b->key, a->key_size) == 0);
}

/*
 * Whether the operations the history keeps under a nested collection's
 * path may belong to another collection than the one at that path now.
 * The history names a nested collection by its path when the operation
 * was made (docs/FORMAT.md, "Change history"): an element inserted,
 * erased, moved or swapped before it in a parent list, or the parent's
 * element (or key) on the path replaced or erased, or a parent cleared or
 * replaced, makes a later operation under the same path one of another
 * collection. Then the operations are not replayed: the change set
 * compares the contents at the path in the two versions.
 */
static bool path_may_have_moved(const history_delta *delta, const history_collection_id *id)
{
    size_t count = history_delta_collection_count(delta);
    for (size_t c = 0; c < count; c++) {
        const history_collection_changes *parent = history_delta_collection_at(delta, c);
        const history_collection_id *pid = &parent->id;
        if (pid->depth >= id->depth || pid->table != id->table || pid->object != id->object || pid->column != id->column)
            continue;
        bool prefix = true;
        for (size_t k = 0; k < pid->depth && prefix; k++) prefix = step_equal(&pid->steps[k], &id->steps[k]);
        if (!prefix) continue;
        const history_path_step *step = &id->steps[pid->depth];
        for (size_t k = 0; k < parent->op_count; k++) {
            const history_op *op = &parent->ops[k];
            switch (op->kind) {
            case HISTORY_LIST_SET:
                if (!step->by_key && op->a == step->index) return true;
                break;
            case HISTORY_DICT_INSERT:
            case HISTORY_DICT_SET:
            case HISTORY_DICT_ERASE:
                if (step->by_key && op->key_size == step->key_size &&
                    (op->key_size == 0 || memcmp(op->key, step->key, op->key_size) == 0))
                    return true;
                break;
            default: return true; /* insert, erase, move, swap, clear; a set's ops hold no collections */
            }
        }
    }
    return false;
}

static bool versions_load(const ce_changes *changes, const ce_collection *collection, bool dictionary,
                          collection_versions *v)
{
    memset(v, 0, sizeof *v);
    v->changes = changes;
    ce_txn *old_txn = changes_old_txn(changes), *new_txn = changes_new_txn(changes);
    if (!history_collection_id_of(collection, v->steps, NESTING_STEPS, &v->id) ||
        !ce_collection_kind(collection, &v->kind, &v->element))
        return false;
    if (dictionary != (v->kind == CE_COLLECTION_DICTIONARY))
        return error_fail(CE_ERR_WRONG_TYPE, "%s is a %s: its change set comes from %s",
                          dictionary ? "ce_changes_dictionary's collection" : "ce_changes_collection's collection",
                          v->kind == CE_COLLECTION_DICTIONARY ? "dictionary" : v->kind == CE_COLLECTION_SET ? "set" : "list",
                          dictionary ? "ce_changes_collection" : "ce_changes_dictionary");
    if (!read_version(old_txn, v, dictionary, &v->old_contents, &v->old_dictionary_values, &v->in_old) ||
        !read_version(new_txn, v, dictionary, &v->new_contents, &v->new_dictionary_values, &v->in_new))
        return false;
    if (!v->in_old && !v->in_new) {
        const char *table = "?";
        (void)ce_table_name(new_txn, v->id.table, &table);
        return error_fail(CE_ERR_NO_SUCH_OBJECT, "the collection's object %lld of '%s' is in neither version of the change set",
                          (long long)v->id.object, table);
    }
    /* The collection's operations, from the history's delta the change set
     * came from (none when it compared the snapshots). */
    const history_delta *delta = changes_history_delta(changes);
    v->covered = delta != NULL;
    if (delta) v->ops = history_delta_find_collection(delta, &v->id);
    if (v->ops && v->id.depth > 0 && path_may_have_moved(delta, &v->id)) v->ops = NULL;
    return true;
}

/* Whether a linked object changed as the filter sees it: typed links with
 * the caller's filter (NULL: Realm's default), links in mixed values with
 * Realm's default for their table. */
typedef struct link_check {
    const collection_versions *v;
    const ce_key_path_filter *filter;
} link_check;

static bool link_changed(const link_check *check, const ce_value *value, bool *out_changed)
{
    *out_changed = false;
    if (value->type != CE_TYPE_LINK) return true;
    bool typed = check->v->element == CE_TYPE_LINK;
    return key_path_filter_matches(check->v->changes, typed ? check->filter : NULL, value->link.table, value->link.key,
                                   out_changed);
}

static bool element_changed(void *context, size_t old_index, size_t new_index, bool *out_changed)
{
    (void)old_index;
    const link_check *check = context;
    return link_changed(check, &check->v->new_contents.values[new_index], out_changed);
}

static bool value_changed(void *context, const ce_value *new_value, bool *out_changed)
{
    return link_changed(context, new_value, out_changed);
}

static bool is_link_collection(const collection_versions *v) { return v->element == CE_TYPE_LINK || v->element == CE_TYPE_MIXED; }

bool ce_changes_collection(const ce_changes *changes, const ce_collection *collection, const ce_key_path_filter *filter,
                           ce_collection_change *out_change)
{
    if (!changes_check(changes, "ce_changes_collection") || !containers_check(collection, "ce_changes_collection") ||
        (filter && !key_path_filter_check(filter, "ce_changes_collection")))
        return false;
    if (!out_change)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_changes_collection: a change set, a collection and out_change are required");
    memset(out_change, 0, sizeof *out_change);
    collection_versions v;
    bool ok = versions_load(changes, collection, false, &v);
    collection_origin origin;
    memset(&origin, 0, sizeof origin);
    if (ok && v.in_old && !v.in_new) {
        /* The object (or the nested collection) is gone: every old element
         * is a deletion. */
        ok = collection_origin_from_values(NULL, v.old_contents.count, NULL, 0, false, false, &origin);
        if (ok) ok = collection_change_build(&origin, NULL, NULL, out_change);
        out_change->collection_deleted = ok;
    } else if (ok) {
        size_t old_count = v.in_old ? v.old_contents.count : 0;
        bool replayed = false;
        if (v.covered && v.in_old && v.ops) {
            /* Replay the log; a log that does not end at the new size does
             * not tell this collection's story (it was replaced whole, as a
             * mixed value can be): compare contents then. */
            collection_op *ops = malloc((v.ops->op_count + 1) * sizeof *ops);
            ok = ops ? true : changes_out_of_memory();
            size_t count = 0;
            for (size_t k = 0; ok && k < v.ops->op_count; k++) {
                const history_op *op = &v.ops->ops[k];
                switch (op->kind) {
                case HISTORY_LIST_INSERT:
                case HISTORY_SET_INSERT: ops[count++] = (collection_op){COLLECTION_OP_INSERT, op->a, 0}; break;
                case HISTORY_LIST_SET: ops[count++] = (collection_op){COLLECTION_OP_SET, op->a, 0}; break;
                case HISTORY_LIST_ERASE:
                case HISTORY_SET_ERASE: ops[count++] = (collection_op){COLLECTION_OP_ERASE, op->a, 0}; break;
                case HISTORY_LIST_MOVE: ops[count++] = (collection_op){COLLECTION_OP_MOVE, op->a, op->b}; break;
                case HISTORY_LIST_SWAP: ops[count++] = (collection_op){COLLECTION_OP_SWAP, op->a, op->b}; break;
                case HISTORY_CLEAR: ops[count++] = (collection_op){COLLECTION_OP_CLEAR, op->a, 0}; break;
                default: break; /* dictionary operations name no index */
                }
            }
            if (ok && collection_origin_from_ops(old_count, ops, count, &origin)) {
                replayed = origin.new_size == v.new_contents.count;
                if (!replayed) collection_origin_free(&origin);
            }
            free(ops);
        }
        if (ok && !replayed)
            ok = collection_origin_from_values(v.old_contents.values, old_count, v.new_contents.values, v.new_contents.count,
                                               v.kind == CE_COLLECTION_SET, v.element != CE_TYPE_LINK, &origin);
        link_check check = {&v, filter};
        if (ok)
            ok = collection_change_build(&origin, is_link_collection(&v) ? element_changed : NULL, &check, out_change);
    }
    collection_origin_free(&origin);
    versions_free(&v);
    return ok;
}

bool ce_changes_dictionary(const ce_changes *changes, const ce_collection *dictionary, const ce_key_path_filter *filter,
                           ce_dictionary_change *out_change)
{
    if (!changes_check(changes, "ce_changes_dictionary") || !containers_check(dictionary, "ce_changes_dictionary") ||
        (filter && !key_path_filter_check(filter, "ce_changes_dictionary")))
        return false;
    if (!out_change)
        return error_fail(CE_ERR_INVALID_ARGUMENT, "ce_changes_dictionary: a change set, a dictionary and out_change are required");
    memset(out_change, 0, sizeof *out_change);
    collection_versions v;
    bool ok = versions_load(changes, dictionary, true, &v);
    /* Keys an operation set or inserted (a value set to the one it had is
     * a modification too, as in Realm), ascending. */
    ce_value *touched = NULL;
    size_t touched_count = 0;
    if (ok && v.covered && v.ops && v.in_old && v.in_new) {
        touched = malloc((v.ops->op_count + 1) * sizeof *touched);
        ok = touched ? true : changes_out_of_memory();
        for (size_t k = 0; ok && k < v.ops->op_count; k++) {
            const history_op *op = &v.ops->ops[k];
            if (op->kind == HISTORY_DICT_INSERT || op->kind == HISTORY_DICT_SET)
                touched[touched_count++] = (ce_value){.type = CE_TYPE_STRING, .string = {op->key, op->key_size}};
        }
        if (ok) qsort(touched, touched_count, sizeof *touched, compare_key_values);
    }
    link_check check = {&v, filter};
    if (ok) {
        bool gone = v.in_old && !v.in_new;
        ok = collection_dictionary_change_build(
            v.old_contents.values, v.old_dictionary_values.values, v.in_old ? v.old_contents.count : 0,
            v.new_contents.values, v.new_dictionary_values.values, gone ? 0 : v.new_contents.count, touched, touched_count,
            is_link_collection(&v) ? value_changed : NULL, &check, out_change);
        if (ok) out_change->collection_deleted = gone;
    }
    free(touched);
    versions_free(&v);
    return ok;
}
