/*
 * test_runner.c — the registry and main() of every C test program.
 *
 * Owns: the list of named cases (TEST in test_support.h), choosing which
 * to run from the command line, the encrypted variant's key, and what a
 * failing CHECK prints.
 * Never: orders cases by anything but their definition, or lets a case's
 * failure go unnamed.
 */
#include "test_support.h"

#include <time.h>

#define TEST_MAX_CASES 512

typedef struct test_case {
    const char *name;
    test_function run;
} test_case;

static test_case cases[TEST_MAX_CASES];
static size_t case_count;

const uint8_t *test_key;
unsigned long long test_seed, test_count;
const char *test_current_case;

void test_register(const char *name, test_function run)
{
    if (case_count == TEST_MAX_CASES) {
        fprintf(stderr, "test_runner: more than %d cases; raise TEST_MAX_CASES\n", TEST_MAX_CASES);
        exit(2);
    }
    for (size_t i = 0; i < case_count; i++) {
        if (strcmp(cases[i].name, name) == 0) {
            fprintf(stderr, "test_runner: two cases are named %s\n", name);
            exit(2);
        }
    }
    cases[case_count++] = (test_case){name, run};
}

void test_fail(const char *file, int line, const char *condition)
{
    fprintf(stderr, "%s%s%s%s:%d: CHECK failed: %s\n  last error: [%d] %s\n",
            test_current_case ? "case " : "", test_current_case ? test_current_case : "",
            test_current_case ? ": " : "", file, line, condition, (int)ce_last_error_code(),
            ce_last_error_message());
    fflush(stderr);
    exit(1);
}

static double now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

static const test_case *find_case(const char *name)
{
    for (size_t i = 0; i < case_count; i++)
        if (strcmp(cases[i].name, name) == 0) return &cases[i];
    return NULL;
}

static void run_case(const test_case *c)
{
    test_current_case = c->name;
    printf("[ RUN  ] %s\n", c->name);
    fflush(stdout);
    double start = now_ms();
    c->run();
    printf("[   OK ] %s (%.0f ms)\n", c->name, now_ms() - start);
    fflush(stdout);
    test_current_case = NULL;
}

static int usage(const char *program)
{
    fprintf(stderr, "usage: %s [--encrypted] [--list] [--seed N] [--count N] [case ...]\n", program);
    return 2;
}

int main(int argc, char **argv)
{
    bool list = false;
    int first_name = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--encrypted") == 0) {
            test_key = test_fixed_key(1);
            printf("(encrypted variant)\n");
        } else if (strcmp(argv[i], "--list") == 0) {
            list = true;
        } else if ((strcmp(argv[i], "--seed") == 0 || strcmp(argv[i], "--count") == 0) && i + 1 < argc) {
            /* For cases that run random trials (test_tamper): longer runs. */
            char *end;
            unsigned long long value = strtoull(argv[i + 1], &end, 10);
            if (*end != '\0') return usage(argv[0]);
            if (argv[i][2] == 's') test_seed = value;
            else test_count = value;
            i++;
        } else if (argv[i][0] == '-') {
            return usage(argv[0]);
        } else {
            first_name = i;
            break;
        }
    }
    if (list) {
        for (size_t i = 0; i < case_count; i++) printf("%s\n", cases[i].name);
        return 0;
    }
    if (case_count == 0) {
        fprintf(stderr, "%s: no cases are defined\n", argv[0]);
        return 2;
    }
    for (int i = first_name; i < argc; i++) {
        if (!find_case(argv[i])) {
            fprintf(stderr, "%s: no case is named %s (--list names them)\n", argv[0], argv[i]);
            return 2;
        }
    }
    size_t ran = 0;
    if (first_name < argc) {
        for (int i = first_name; i < argc; i++, ran++) run_case(find_case(argv[i]));
    } else {
        for (size_t i = 0; i < case_count; i++, ran++) run_case(&cases[i]);
    }
    printf("%zu case%s passed\n", ran, ran == 1 ? "" : "s");
    return 0;
}
