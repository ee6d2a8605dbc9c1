// openrealm_support.c — the thread-local token counter (its last restart, the option bits of a
// managed accessor's wrappers) and the executor test of openrealm_support.h.
// Owns: what the Swift layer needs from C besides the engine.
// Never: calls the engine.

#include "openrealm_support.h"

_Thread_local int32_t openrealm_token_counter __attribute__((tls_model("initial-exec"))) = 0;
_Thread_local int32_t openrealm_tokens_at_reset __attribute__((tls_model("initial-exec"))) = 0;
_Thread_local const void *openrealm_reset_by __attribute__((tls_model("initial-exec"))) = 0;
_Thread_local uint8_t openrealm_accessor_options __attribute__((tls_model("initial-exec"))) = 0;

/* The runtime's entry point (swift/Runtime/Concurrency.h): a SerialExecutorRef is two words,
 * passed in two registers by the Swift calling convention. Flags 0 ("None") asks without
 * asserting: the flagless swift_task_isCurrentExecutor of a Swift 6 program stops the program
 * when the answer is no (the mode Actor.assumeIsolated wants). */
extern bool swift_task_isCurrentExecutorWithFlags(const void *identity, uintptr_t implementation,
                                                  uint64_t flags) __attribute__((swiftcall));

bool openrealm_is_current_executor(const void *identity, uintptr_t implementation)
{
    return swift_task_isCurrentExecutorWithFlags(identity, implementation, 0);
}
