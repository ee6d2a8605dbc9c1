// openrealm_support.h — what the Swift layer needs from C and Swift cannot express: a
// thread-local variable (Swift has none; pthread_getspecific costs a call and a lazy key).
// Not part of the engine's API (CEngine/include/cengine.h).

#ifndef OPENREALM_SUPPORT_H
#define OPENREALM_SUPPORT_H

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

#endif
