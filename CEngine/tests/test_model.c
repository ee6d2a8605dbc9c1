/*
 * test_model.c — the reference model (tests/support/model.h) on its own:
 * what the tests that compare the engine with it rely on. A list, a set and
 * a dictionary kept apart from any store (copies shared until one side
 * changes), the order sets keep, and a store's objects with a link cascade
 * and backlinks counted from the links.
 */
#include "model.h"
#include "test_support.h"

static ce_value int_value(int64_t integer) { return (ce_value){.type = CE_TYPE_INT, .integer = integer}; }

static ce_value text_value(const char *text)
{
    return (ce_value){.type = CE_TYPE_STRING, .string = {text, strlen(text)}};
}

/* The integers a list holds, in order. */
static void check_integers(const model_collection *list, const int64_t *expected, size_t count)
{
    CHECK(model_collection_count(list) == count);
    for (size_t i = 0; i < count; i++) CHECK(list->elements[i].value.integer == expected[i]);
}

TEST(list_edits_and_shared_copies)
{
    model_collection *list = NULL;
    CHECK(model_collection_count(list) == 0);
    for (int64_t i = 0; i < 5; i++) {
        ce_value value = int_value(i * 10);
        model_list_insert(&list, (size_t)i, &value);
    }
    model_collection *saved = model_collection_share(list);
    ce_value seven = int_value(7);
    model_list_set(&list, 1, &seven);  /* 0 7 20 30 40 */
    model_list_erase(&list, 0);        /* 7 20 30 40 */
    model_list_move(&list, 0, 3);      /* 20 30 40 7 */
    model_list_swap(&list, 0, 1);      /* 30 20 40 7 */
    ce_value copied = list->elements[2].value;
    model_list_insert(&list, 0, &copied); /* an element written back: 40 30 20 40 7 */
    check_integers(list, (const int64_t[]){40, 30, 20, 40, 7}, 5);
    check_integers(saved, (const int64_t[]){0, 10, 20, 30, 40}, 5);
    size_t index;
    CHECK(model_find(CE_COLLECTION_LIST, list, &copied, &index) && index == 0);
    ce_value missing = int_value(99);
    CHECK(!model_find(CE_COLLECTION_LIST, list, &missing, &index));
    model_collection_clear(&list);
    CHECK(model_collection_count(list) == 0);
    check_integers(saved, (const int64_t[]){0, 10, 20, 30, 40}, 5);
    model_collection_free(&list);
    model_collection_free(&saved);
    CHECK(list == NULL && saved == NULL);
}

TEST(set_order_and_equal_elements)
{
    model_collection *set = NULL;
    ce_value values[] = {int_value(3), text_value("b"), int_value(-1), text_value("a"),
                         {.type = CE_TYPE_DOUBLE, .double_value = 0.0}, {.type = CE_TYPE_NULL}};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) CHECK(model_set_insert(&set, &values[i]));
    /* -0.0 equals 0.0 in the engine's order: the set has it already. */
    ce_value negative_zero = {.type = CE_TYPE_DOUBLE, .double_value = -0.0};
    CHECK(!model_set_insert(&set, &negative_zero));
    CHECK(!model_set_insert(&set, &values[1]));
    CHECK(model_collection_count(set) == 6);
    /* By type number first (null, int, double, string), then by value. */
    CHECK(set->elements[0].value.type == CE_TYPE_NULL);
    CHECK(set->elements[1].value.integer == -1 && set->elements[2].value.integer == 3);
    CHECK(model_same_value(&set->elements[3].value, &values[4]));
    CHECK(model_same_value(&set->elements[4].value, &values[3]) && model_same_value(&set->elements[5].value, &values[1]));
    for (size_t i = 1; i < set->count; i++) CHECK(model_order_value(&set->elements[i - 1].value, &set->elements[i].value) < 0);
    CHECK(model_set_erase(&set, &values[0]));
    CHECK(!model_set_erase(&set, &values[0]));
    size_t index;
    CHECK(model_find(CE_COLLECTION_SET, set, &values[2], &index) && index == 1);
    model_collection_free(&set);
}

TEST(dictionary_keys_in_byte_order)
{
    model_collection *dictionary = NULL;
    const char *keys[] = {"b", "a", "", "\xC3\xA9", "B"};
    for (int64_t i = 0; i < 5; i++) {
        ce_value value = int_value(i);
        model_dictionary_set(&dictionary, keys[i], strlen(keys[i]), &value);
    }
    ce_value replaced = text_value("replaced");
    model_dictionary_set(&dictionary, "a", 1, &replaced);
    CHECK(model_collection_count(dictionary) == 5);
    const char *ordered[] = {"", "B", "a", "b", "\xC3\xA9"};
    for (size_t i = 0; i < 5; i++) {
        const ce_value *key = &dictionary->keys[i].value;
        CHECK(key->type == CE_TYPE_STRING && key->string.size == strlen(ordered[i]) &&
              memcmp(key->string.data, ordered[i], key->string.size) == 0);
    }
    const ce_value *found = model_dictionary_get(dictionary, "a", 1);
    CHECK(found && model_same_value(found, &replaced));
    CHECK(model_dictionary_get(dictionary, "c", 1) == NULL);
    CHECK(model_dictionary_erase(&dictionary, "B", 1));
    CHECK(!model_dictionary_erase(&dictionary, "B", 1));
    CHECK(model_collection_count(dictionary) == 4);
    model_collection_free(&dictionary);
}

TEST(store_cascades_and_backlinks)
{
    model state = {0};
    model_add_table(&state, "Person", false);  /* table 0 */
    model_add_table(&state, "Address", true);  /* table 1: embedded */
    ce_property_info name = {.name = "name", .type = CE_TYPE_STRING};
    ce_property_info friend = {.name = "friend", .type = CE_TYPE_LINK, .nullable = true, .link_target = 0};
    ce_property_info home = {.name = "home", .type = CE_TYPE_LINK, .nullable = true, .link_target = 1};
    model_add_property(&state.tables[0], &name);
    model_add_property(&state.tables[0], &friend);
    model_ensure_backlink(&state, 0, 0, 1);
    model_add_property(&state.tables[0], &home);
    model_ensure_backlink(&state, 1, 0, 3);
    CHECK(model_property_named(&state.tables[0], "@links.Person.friend") == 2);
    for (ce_object_key key = 0; key < 3; key++) model_create(&state.tables[0], key, NULL, NULL);
    ce_value ann = text_value("Ann");
    model_set_value(&state, 0, 0, 0, &ann);
    CHECK(model_same_value(&model_value_at(&state.tables[0], 0, 0)->value, &ann));
    /* 1 and 2 call 0 their friend; 0 has an embedded home. */
    ce_value to_zero = {.type = CE_TYPE_LINK, .link = {0, 0}};
    model_set_value(&state, 0, 1, 1, &to_zero);
    model_set_value(&state, 0, 2, 1, &to_zero);
    model_create(&state.tables[1], 0, NULL, NULL);
    ce_value to_home = {.type = CE_TYPE_LINK, .link = {1, 0}};
    model_set_value(&state, 0, 0, 3, &to_home);
    ce_object_key origins[4];
    CHECK(model_backlinks(&state, (ce_link){0, 0}, 0, 1, origins, 4) == 2 && origins[0] == 1 && origins[1] == 2);
    CHECK(model_embedding_depth(&state, 1, 0) == 1);
    model copy;
    model_copy(&copy, &state);
    /* Deleting 0 takes its home with it and nulls the links into it. */
    model_delete_object(&state, 0, 0);
    CHECK(state.tables[0].object_count == 2 && state.tables[1].object_count == 0);
    CHECK(model_value_at(&state.tables[0], 0, 1)->value.type == CE_TYPE_NULL);
    CHECK(model_position_of(&state.tables[0], 0) < 0 && model_position_of(&state.tables[0], 2) == 1);
    /* The copy is what it was. */
    CHECK(copy.tables[0].object_count == 3 && copy.tables[1].object_count == 1);
    CHECK(model_same_value(&model_value_at(&copy.tables[0], 0, 0)->value, &ann));
    CHECK(model_backlinks(&copy, (ce_link){0, 0}, 0, 1, NULL, 0) == 2);
    model_free(&copy);
    model_free(&state);
}
