// openrealm_support.c — the thread-local token counter of openrealm_support.h.

#include "openrealm_support.h"

_Thread_local int32_t openrealm_token_counter __attribute__((tls_model("initial-exec"))) = 0;
