/* consumer.c — opens a database through the installed cengine.h, commits
 * one transaction and reads the version back: the installed library and
 * header work together from another project. */
#include <cengine.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: consumer FILE\n");
        return 2;
    }
    ce_db_options options;
    ce_db_options_init(&options);
    ce_db *db;
    ce_txn *txn;
    uint64_t version = 0;
    if (!ce_db_open(argv[1], &options, &db) || !ce_txn_begin_write(db, &txn) || !ce_txn_commit(txn) ||
        !ce_db_latest_version(db, &version) || !ce_db_close(db)) {
        fprintf(stderr, "consumer: [%d] %s\n", (int)ce_last_error_code(), ce_last_error_message());
        return 1;
    }
    printf("consumer: engine %s, version %llu\n", ce_engine_version(), (unsigned long long)version);
    return 0;
}
