// openrealm_support.c — the thread-local token counter (and its last restart) of openrealm_support.h.

#include "openrealm_support.h"

_Thread_local int32_t openrealm_token_counter __attribute__((tls_model("initial-exec"))) = 0;
_Thread_local int32_t openrealm_tokens_at_reset __attribute__((tls_model("initial-exec"))) = 0;
_Thread_local const void *openrealm_reset_by __attribute__((tls_model("initial-exec"))) = 0;
