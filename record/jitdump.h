/*
 * jitdump.h: a runtime's jitdump file (jit-PID.dump), parsed from bytes.
 *
 * The format is the Linux kernel's
 * tools/perf/Documentation/jitdump-specification.txt: a header (magic
 * "JiTD" as a u32 in the writer's byte order, version, header size, ELF
 * machine, pid, timestamp, flags), then records, each a prefix (id, total
 * size, timestamp) and a body. Of the records, these are read:
 *
 *   JIT_CODE_LOAD (0)       code loaded: its address, size, index and name
 *   JIT_CODE_MOVE (1)       code moved: the load of that index, at a new address
 *   JIT_CODE_DEBUG_INFO (2) the source lines of the next load's code: the
 *                           first entry's file and line are kept for it
 *
 * and every other (JIT_CODE_CLOSE, JIT_CODE_UNWINDING_INFO, ids a newer
 * writer adds) is skipped by its size. The byte order is the header's
 * magic's; timestamps are the writer's (CLOCK_MONOTONIC unless the
 * header's flags say the CPU's counter, JITDUMP_FLAGS_ARCH_TIMESTAMP).
 *
 * The runtime writes the file while it runs, so the parse is fed the bytes
 * as they are read and takes whole records only: a record cut by the end
 * of what was fed waits for the rest. Only a record's first
 * JITDUMP_HEAD_MAX bytes are read; the rest of a longer one (the code a
 * load carries) is skipped, whatever is fed of it. This module never
 * touches the OS (record/jit_linux.c reads the file), so a unit test or a
 * fuzz target feeds it any bytes.
 *
 * What cannot be read: a bad magic (JITDUMP_E_MAGIC) or header, or a
 * record whose size is smaller than its prefix or past JITDUMP_RECORD_MAX
 * (JITDUMP_E_CORRUPT: no later record can be found) ends the parse. A
 * record of a known id whose fields do not fit its size, or that says
 * nothing usable (no name, no size, a range past 2^64), is skipped by its
 * size and counted (a range past JITDUMP_SIZE_MAX too: see
 * PERFMAP_SIZE_MAX). A debug entry's file name that is not printable UTF-8
 * is not kept (V8 in Node.js 20 writes bytes of its heap there).
 */
#ifndef RECORD_JITDUMP_H
#define RECORD_JITDUMP_H

#include <stddef.h>
#include <stdint.h>

#include "common/errors.h" /* JITDUMP_E_* */

#define JITDUMP_MAGIC 0x4A695444u       /* "JiTD" */
#define JITDUMP_HEADER_SIZE 40u         /* version 1's */
#define JITDUMP_FLAGS_ARCH_TIMESTAMP 1u
#define JITDUMP_HEAD_MAX (64u << 10)    /* the bytes of a record read */
#define JITDUMP_RECORD_MAX (256u << 20) /* a larger record ends the parse */
#define JITDUMP_NAME_MAX 4096u          /* the bytes of a name or file kept */
#define JITDUMP_MOVES_MAX (1u << 20)    /* loads remembered for their moves */
#define JITDUMP_SIZE_MAX (1ull << 30)   /* the largest range of code taken */

enum jitdump_record {
	JITDUMP_CODE_LOAD = 0,
	JITDUMP_CODE_MOVE = 1,
	JITDUMP_CODE_DEBUG_INFO = 2,
	JITDUMP_CODE_CLOSE = 3,
	JITDUMP_CODE_UNWINDING_INFO = 4,
};

/* The header, once read. */
struct jitdump_header {
	uint32_t version, size, elf_mach, pid;
	uint64_t timestamp, flags;
	int swapped;              /* written in the other byte order */
};

/* A range of code loaded (or moved there), for the callback. The strings
 * are NUL-terminated and borrowed for the callback's length. */
struct jitdump_code {
	uint64_t time;            /* the record's timestamp, the writer's clock */
	uint64_t start, size;     /* size > 0, start + size <= 2^64 */
	uint64_t index;           /* the writer's code index */
	const char *name;         /* not empty */
	const char *file;         /* the first debug entry's, or NULL */
	uint32_t line;            /* its line, or 0 */
	int moved;                /* from JIT_CODE_MOVE */
};

struct jitdump_stats {
	uint64_t records;         /* records read whole, of any id */
	uint64_t loads, moves;    /* code ranges given to the callback */
	uint64_t bad;             /* records of a known id skipped as malformed */
	uint64_t unknown_moves;   /* moves of an index no load gave (or past the cap) */
};

struct jitdump;

struct jitdump *jitdump_new(void);
void jitdump_free(struct jitdump *j);

/* Takes what of the n bytes at p it can: the dump's bytes from where the
 * last call left off (the file's first byte for the first). Calls cb for
 * each code range loaded or moved, in order, stopping early if cb returns
 * non-zero. Returns the bytes consumed (0 if nothing whole is there yet:
 * the caller feeds them again with more), or a negative JITDUMP_E_* once
 * the dump cannot be read on: then and on every later call. */
long jitdump_feed(struct jitdump *j, const uint8_t *p, size_t n,
		  int (*cb)(void *ctx, const struct jitdump_code *c), void *ctx);

/* The header, or NULL before it has been read. */
const struct jitdump_header *jitdump_header(const struct jitdump *j);
/* What has been read so far. */
const struct jitdump_stats *jitdump_stats(const struct jitdump *j);

#endif
