/*
 * jitdump.c: jitdump records from bytes (jitdump.h).
 *
 * The parse keeps, between calls, whether the header has been read, how
 * much of a long record is still to be skipped, the debug entry waiting
 * for the load it describes (a writer puts JIT_CODE_DEBUG_INFO just before
 * its JIT_CODE_LOAD), and each load's name by code index, for the moves
 * that name only the index: at most JITDUMP_MOVES_MAX of them.
 */
#include "jitdump.h"

#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/hmap.h"
#include "common/text.h"

#define PREFIX 16u               /* id, total size, timestamp */
#define LOAD_FIXED 56u           /* the prefix, pid, tid, vma, address, size, index */
#define MOVE_FIXED 64u           /* the prefix, pid, tid, vma, old, new, size, index */
#define DEBUG_FIXED 32u          /* the prefix, address, entries */
#define ENTRY_FIXED 16u          /* address, line, discriminator */

struct loaded {
	char *name, *file;
	uint32_t line;
};

struct jitdump {
	int err;                  /* sticky: a JITDUMP_E_* */
	int have_header;
	struct jitdump_header h;
	uint64_t skip;            /* bytes of the current record still to skip */
	struct jitdump_stats st;
	/* the debug entry waiting for its load */
	int debug;
	uint64_t debug_addr;
	uint32_t debug_line;
	char debug_file[JITDUMP_NAME_MAX + 1];
	int debug_has_file;
	char name[JITDUMP_NAME_MAX + 1];
	struct hmap by_index;     /* (index, 0) -> loaded[] slot */
	struct loaded *loaded;
	size_t nloaded, cap_loaded;
};

struct jitdump *jitdump_new(void)
{
	struct jitdump *j = xcalloc(1, sizeof(*j));

	hmap_init(&j->by_index);
	return j;
}

void jitdump_free(struct jitdump *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nloaded; i++) {
		free(j->loaded[i].name);
		free(j->loaded[i].file);
	}
	free(j->loaded);
	hmap_release(&j->by_index);
	free(j);
}

const struct jitdump_header *jitdump_header(const struct jitdump *j)
{
	return j->have_header ? &j->h : NULL;
}

const struct jitdump_stats *jitdump_stats(const struct jitdump *j)
{
	return &j->st;
}

static uint32_t bswap32(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

static uint32_t rd32(const struct jitdump *j, const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;

	return j->h.swapped ? bswap32(v) : v;
}

static uint64_t rd64(const struct jitdump *j, const uint8_t *p)
{
	uint64_t lo = rd32(j, p), hi = rd32(j, p + 4);

	/* Swapped, the first four bytes are the high half. */
	return j->h.swapped ? lo << 32 | hi : hi << 32 | lo;
}

/* The length of the NUL-terminated string at p[0..n), or n if it has no
 * NUL there. */
static size_t str_len(const uint8_t *p, size_t n)
{
	const uint8_t *z = memchr(p, 0, n);

	return z ? (size_t)(z - p) : n;
}

/* Copies the len bytes at s into out (JITDUMP_NAME_MAX + 1 bytes), cut
 * at a character's start if longer. */
static void copy_name(char *out, const uint8_t *s, size_t len)
{
	size_t k = 0;

	while (k < len) {
		size_t c = text_utf8_len((const char *)s + k, len - k);

		if (!c)
			c = 1;
		if (k + c > JITDUMP_NAME_MAX)
			break;
		k += c;
	}
	memcpy(out, s, k);
	out[k] = 0;
}

/* Whether the len bytes at s are a file name to keep: printable UTF-8. */
static int printable(const uint8_t *s, size_t len)
{
	if (!len)
		return 0;
	for (size_t k = 0; k < len;) {
		size_t c = text_utf8_len((const char *)s + k, len - k);

		if (!c || s[k] < 0x20 || s[k] == 0x7f)
			return 0;
		k += c;
	}
	return 1;
}

static int read_header(struct jitdump *j, const uint8_t *p, size_t n, size_t *used)
{
	uint32_t magic;

	if (n < JITDUMP_HEADER_SIZE)
		return 0;
	magic = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	if (magic == bswap32(JITDUMP_MAGIC))
		j->h.swapped = 1;
	else if (magic != JITDUMP_MAGIC)
		return j->err = JITDUMP_E_MAGIC;
	j->h.version = rd32(j, p + 4);
	j->h.size = rd32(j, p + 8);
	j->h.elf_mach = rd32(j, p + 12);
	j->h.pid = rd32(j, p + 20);
	j->h.timestamp = rd64(j, p + 24);
	j->h.flags = rd64(j, p + 32);
	if (j->h.size < JITDUMP_HEADER_SIZE || j->h.size > JITDUMP_HEAD_MAX || !j->h.version)
		return j->err = JITDUMP_E_CORRUPT;
	if (n < j->h.size)
		return 0;
	j->have_header = 1;
	*used = j->h.size;
	return 0;
}

/* Whether the range [start, start + size) is one to give. */
static int usable(uint64_t start, uint64_t size)
{
	return size && size <= JITDUMP_SIZE_MAX && start <= UINT64_MAX - size;
}

/* Remembers the load of index, for a later move. */
static void remember(struct jitdump *j, uint64_t index, const char *name, const char *file, uint32_t line)
{
	int added;
	uint64_t *slot;
	struct loaded *l;

	if (j->nloaded == JITDUMP_MOVES_MAX && !hmap_get(&j->by_index, index, 0))
		return;
	slot = hmap_put(&j->by_index, index, 0, j->nloaded, &added);
	if (added) {
		j->loaded = xgrow(j->loaded, &j->cap_loaded, j->nloaded + 1, sizeof(*j->loaded));
		j->nloaded++;
	} else {
		free(j->loaded[*slot].name);
		free(j->loaded[*slot].file);
	}
	l = &j->loaded[*slot];
	l->name = xstrdup(name);
	l->file = file ? xstrdup(file) : NULL;
	l->line = line;
}

static int code_load(struct jitdump *j, const uint8_t *p, size_t head, uint64_t time,
		     int (*cb)(void *ctx, const struct jitdump_code *c), void *ctx)
{
	struct jitdump_code c = { .time = time };
	size_t len;
	int debug = j->debug;

	j->debug = 0;
	if (head < LOAD_FIXED + 1)
		goto bad;
	c.start = rd64(j, p + 32);
	c.size = rd64(j, p + 40);
	c.index = rd64(j, p + 48);
	len = str_len(p + LOAD_FIXED, head - LOAD_FIXED);
	if (len == head - LOAD_FIXED || !len || !usable(c.start, c.size))
		goto bad;
	copy_name(j->name, p + LOAD_FIXED, len);
	c.name = j->name;
	if (debug && j->debug_addr == c.start && j->debug_has_file) {
		c.file = j->debug_file;
		c.line = j->debug_line;
	}
	remember(j, c.index, c.name, c.file, c.line);
	j->st.loads++;
	return cb(ctx, &c);
bad:
	j->st.bad++;
	return 0;
}

static int code_move(struct jitdump *j, const uint8_t *p, size_t head, uint64_t time,
		     int (*cb)(void *ctx, const struct jitdump_code *c), void *ctx)
{
	struct jitdump_code c = { .time = time, .moved = 1 };
	const struct loaded *l;
	uint64_t *slot;

	if (head < MOVE_FIXED)
		goto bad;
	c.start = rd64(j, p + 40);
	c.size = rd64(j, p + 48);
	c.index = rd64(j, p + 56);
	if (!usable(c.start, c.size))
		goto bad;
	if (!(slot = hmap_get(&j->by_index, c.index, 0))) {
		j->st.unknown_moves++;
		return 0;
	}
	l = &j->loaded[*slot];
	c.name = l->name;
	c.file = l->file;
	c.line = l->line;
	j->st.moves++;
	return cb(ctx, &c);
bad:
	j->st.bad++;
	return 0;
}

/* The first entry's file and line, for the load of the code at the
 * record's address, which comes next. */
static void debug_info(struct jitdump *j, const uint8_t *p, size_t head, uint64_t total)
{
	uint64_t entries;
	size_t len;

	j->debug = 0;
	if (head < DEBUG_FIXED)
		goto bad;
	j->debug_addr = rd64(j, p + 16);
	entries = rd64(j, p + 24);
	/* Each entry is at least its fixed part and a NUL. */
	if (entries > (total - DEBUG_FIXED) / (ENTRY_FIXED + 1))
		goto bad;
	j->debug = 1;
	j->debug_has_file = 0;
	if (!entries)
		return;
	if (head < DEBUG_FIXED + ENTRY_FIXED + 1)
		goto bad;
	len = str_len(p + DEBUG_FIXED + ENTRY_FIXED, head - DEBUG_FIXED - ENTRY_FIXED);
	if (len == head - DEBUG_FIXED - ENTRY_FIXED)
		goto bad;
	j->debug_line = rd32(j, p + DEBUG_FIXED + 8);
	/* "\xff" stands for the entry before's file: the first has none. */
	if (printable(p + DEBUG_FIXED + ENTRY_FIXED, len)) {
		copy_name(j->debug_file, p + DEBUG_FIXED + ENTRY_FIXED, len);
		j->debug_has_file = 1;
	}
	return;
bad:
	j->debug = 0;
	j->st.bad++;
}

long jitdump_feed(struct jitdump *j, const uint8_t *p, size_t n,
		  int (*cb)(void *ctx, const struct jitdump_code *c), void *ctx)
{
	size_t used = 0;

	if (j->err)
		return j->err;
	if (!j->have_header) {
		if (read_header(j, p, n, &used) < 0)
			return j->err;
		if (!j->have_header)
			return 0;
	}
	while (used < n) {
		uint32_t id, total;
		uint64_t time;
		size_t head;
		int stop = 0;

		if (j->skip) {
			size_t k = n - used < j->skip ? n - used : (size_t)j->skip;

			j->skip -= k;
			used += k;
			continue;
		}
		if (n - used < PREFIX)
			break;
		id = rd32(j, p + used);
		total = rd32(j, p + used + 4);
		time = rd64(j, p + used + 8);
		if (total < PREFIX || total > JITDUMP_RECORD_MAX)
			return j->err = JITDUMP_E_CORRUPT;
		head = total < JITDUMP_HEAD_MAX ? total : JITDUMP_HEAD_MAX;
		if (n - used < head)
			break;
		switch (id) {
		case JITDUMP_CODE_LOAD:
			stop = code_load(j, p + used, head, time, cb, ctx);
			break;
		case JITDUMP_CODE_MOVE:
			stop = code_move(j, p + used, head, time, cb, ctx);
			break;
		case JITDUMP_CODE_DEBUG_INFO:
			debug_info(j, p + used, head, total);
			break;
		default:
			break;
		}
		j->st.records++;
		used += head;
		j->skip = total - head;
		if (stop)
			break;
	}
	return (long)used;
}
