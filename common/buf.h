/*
 * buf.h: a growable byte buffer, in the spirit of git's strbuf.
 *
 * A struct buf is caller-owned storage: buf_init() before use, buf_release()
 * after. From buf_init() on, data is never NULL and is always NUL-terminated
 * past len, so text can be read as a C string (an empty buf's data is a
 * shared static "", which only appending replaces: write through data only
 * past a buf_grow()). Appending dies on out-of-memory and never fails
 * otherwise.
 */
#ifndef COMMON_BUF_H
#define COMMON_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "diag.h"

struct buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

/* Makes b empty: data is "", with no storage of its own (cap 0). */
void buf_init(struct buf *b);
/* Frees the storage and leaves b empty, as buf_init() does. */
void buf_release(struct buf *b);
/* Sets len to 0 and keeps the storage. */
void buf_reset(struct buf *b);
/* Makes room for n more bytes past len. */
void buf_grow(struct buf *b, size_t n);
void buf_add(struct buf *b, const void *p, size_t n);
void buf_addch(struct buf *b, int c);
void buf_addstr(struct buf *b, const char *s);
void buf_addf(struct buf *b, const char *fmt, ...) DIAG_PRINTF(2, 3);
/* Returns data as a heap string and leaves b empty (initialised). The
 * caller frees. */
char *buf_detach(struct buf *b);

/* Text made in a buffer and written to a stream a piece at a time, so an
 * output of any size holds little memory: buf_out_flush() writes what b
 * holds and empties it, buf_out_maybe() only once it holds at least
 * bound bytes. A failed write sets err to -EIO, and nothing more is
 * written. */
struct buf_out {
	FILE *f;
	struct buf b;
	int err;
};
void buf_out_flush(struct buf_out *o);
void buf_out_maybe(struct buf_out *o, size_t bound);

/* The NUL-separated strings in b from byte offset from on, at most max of
 * them, as a NULL-terminated heap vector of *n strings (a last one
 * without its NUL is kept as far as it goes). The caller frees each
 * string and the vector. */
char **buf_split_nul(const struct buf *b, size_t from, size_t max, uint32_t *n);

/* Little-endian fixed-width appends. */
void buf_put_le16(struct buf *b, uint16_t v);
void buf_put_le32(struct buf *b, uint32_t v);
void buf_put_le64(struct buf *b, uint64_t v);
/* LEB128-style unsigned varint, 1 to 10 bytes. */
void buf_put_uvarint(struct buf *b, uint64_t v);
/* Zigzag-encoded signed varint. */
void buf_put_svarint(struct buf *b, int64_t v);
/* A uvarint length followed by the bytes. */
void buf_put_bytes(struct buf *b, const void *p, size_t n);

#endif
