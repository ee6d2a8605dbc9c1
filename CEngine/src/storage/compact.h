/*
 * compact.h — copies: writeCopy and compaction.
 *
 * Owns: walking every node a version reaches and writing the live ones,
 * packed one after another in a new file with their refs rewritten
 * (ce_db_write_copy), compaction in place (ce_db_compact: the same copy,
 * then the db layer renames it over the file), the size figures for
 * shouldCompactOnLaunch (ce_db_size_info), and progress reports.
 * Never: writes to the source file, blocks writers (it reads through a read
 * transaction), or lets a partial copy appear at the destination path
 * (writer.c installs the file only once it is whole and on disk).
 *
 * The public half is in cengine.h. The copy knows nothing of what the nodes
 * mean: the rule of node.h (in a HAS_REFS node an even non-zero element is
 * the ref of a child) is enough to find every node and to rewrite refs.
 */
#ifndef CE_COMPACT_H
#define CE_COMPACT_H

#include "cengine.h"
#include "db.h"
#include "writer.h"

/* Copies the version `txn` reads into `writer` (which is left unfinished
 * on failure, for the caller to discard): the user root's tree, the
 * history's tree, then the top node. Progress goes to `options` (may be
 * NULL). */
bool compact_copy_version(ce_txn *txn, writer_state *writer, const ce_copy_options *options);

#endif
