// openrealm_support.h — what the Swift layer needs from C and Swift cannot express:
// thread-local variables (Swift has none; pthread_getspecific costs a call and a lazy key), and
// the Swift runtime's non-trapping test of actor isolation (the stdlib keeps it internal).
// Not part of the engine's API (CEngine/include/cengine.h).

#ifndef OPENREALM_SUPPORT_H
#define OPENREALM_SUPPORT_H

#include <stdbool.h>
#include <stdint.h>

/// The number of @Persisted wrappers this thread initialised since the last reset
/// (Persisted.swift: a wrapper's token). Initial-exec: one %fs-relative load, no call.
extern _Thread_local int32_t openrealm_token_counter __attribute__((tls_model("initial-exec")));

/// The next wrapper token of this thread.
static inline int32_t openrealm_next_token(void) {
    return openrealm_token_counter++;
}

/// Restarts this thread's token count (ObjectBase.init, schema discovery).
static inline void openrealm_reset_tokens(void) {
    openrealm_token_counter = 0;
}

/// The count the last ObjectBase.init of this thread restarted, and its object: a default value
/// that creates an object (`@Persisted var owner: Person? = Person()`) restarted the count in the
/// middle of another object's wrappers, which continue from there (Persisted.swift).
extern _Thread_local int32_t openrealm_tokens_at_reset __attribute__((tls_model("initial-exec")));
extern _Thread_local const void *openrealm_reset_by __attribute__((tls_model("initial-exec")));

/// Restarts the count at the end of an object's initialisation (ObjectBase.init), remembering it.
static inline void openrealm_object_initialized(const void *object) {
    openrealm_tokens_at_reset = openrealm_token_counter;
    openrealm_reset_by = object;
    openrealm_token_counter = 0;
}

/// The object whose initialisation restarted the count last, and the count it restarted.
static inline const void *openrealm_last_reset_object(void) { return openrealm_reset_by; }
static inline int32_t openrealm_last_reset_count(void) { return openrealm_tokens_at_reset; }

/// Continues the count at `next`, forgetting the last restart (it has been accounted for).
static inline void openrealm_continue_tokens(int32_t next) {
    openrealm_token_counter = next;
    openrealm_reset_by = 0;
}

/// This thread's whole token state: the count and its last restart.
typedef struct {
    int32_t counter;
    int32_t at_reset;
    const void *reset_by;
} openrealm_token_state;
/// The token state, to give back with `openrealm_restore_tokens` once a nested count (a schema
/// discovery's probe instance) is done.
static inline openrealm_token_state openrealm_save_tokens(void) {
    openrealm_token_state state = {openrealm_token_counter, openrealm_tokens_at_reset, openrealm_reset_by};
    return state;
}
static inline void openrealm_restore_tokens(openrealm_token_state state) {
    openrealm_token_counter = state.counter;
    openrealm_tokens_at_reset = state.at_reset;
    openrealm_reset_by = state.reset_by;
}
/// Option bits that every @Persisted wrapper initialised on this thread adds to its own: set
/// while RealmCore.makeObject initialises a managed accessor, so that its wrappers know they
/// belong to a managed object (Persisted.swift: Codable refuses to encode them, as Realm does).
extern _Thread_local uint8_t openrealm_accessor_options __attribute__((tls_model("initial-exec")));

/// The option bits a wrapper being initialised adds (0 outside a managed accessor's init).
static inline uint8_t openrealm_wrapper_options(void) {
    return openrealm_accessor_options;
}

/// Sets the option bits the next wrappers of this thread add (0 to stop).
static inline void openrealm_set_wrapper_options(uint8_t options) {
    openrealm_accessor_options = options;
}

/// Whether the current task (or, for the main executor, the main thread) runs on the serial
/// executor whose two words are `identity` and `implementation` (an UnownedSerialExecutor):
/// the Swift runtime's swift_task_isCurrentExecutorWithFlags, asked without asserting.
bool openrealm_is_current_executor(const void *identity, uintptr_t implementation);

#endif
