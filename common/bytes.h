/*
 * bytes.h: reading untrusted little-endian bytes without ever overrunning.
 *
 * A struct cursor is a window over borrowed bytes, the one reader every
 * parser of untrusted input goes through: traces and symbol packs, DWARF
 * line tables, .eh_frame CFI, perf records. Every getter checks the bytes
 * that remain before reading and returns -1 (leaving the cursor poisoned:
 * ok becomes 0, and every later read fails too) when they run out, so a
 * parser can read a whole record and check cur.ok once at the end. Nothing
 * here allocates.
 *
 * LEB128 is read the one way DWARF, CFI and the trace format all allow: a
 * value of any number of groups (producers pad with 0x80 bytes) that fits
 * in 64 bits; a set bit past the 64th (for sleb, one that differs from the
 * sign) poisons the cursor.
 */
#ifndef COMMON_BYTES_H
#define COMMON_BYTES_H

#include <stddef.h>
#include <stdint.h>

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}
static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}
static inline void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

struct cursor {
	const uint8_t *p;
	size_t left;
	int ok;
};

/* Starts a cursor over n borrowed bytes. */
void cursor_init(struct cursor *c, const void *p, size_t n);
/* Each getter returns 0, or -1 when too few bytes remain (or a LEB128 does
 * not fit), in which case *out is set to 0 (NULL) and c->ok to 0. */
int cursor_u8(struct cursor *c, uint8_t *out);
int cursor_le16(struct cursor *c, uint16_t *out);
int cursor_le32(struct cursor *c, uint32_t *out);
int cursor_le64(struct cursor *c, uint64_t *out);
/* A little-endian unsigned integer of width bytes, 1 to 8. */
int cursor_le(struct cursor *c, unsigned width, uint64_t *out);
/* An unsigned LEB128 (the trace format's uvarint). */
int cursor_uleb(struct cursor *c, uint64_t *out);
/* A signed LEB128, as DWARF and CFI store signed values. */
int cursor_sleb(struct cursor *c, int64_t *out);
/* The trace format's svarint: a uleb holding a zigzag-mapped value. */
int cursor_svarint(struct cursor *c, int64_t *out);
/* A NUL-terminated string in the bytes: *out points at it, and the cursor
 * moves past its NUL. */
int cursor_cstr(struct cursor *c, const char **out);
/* Moves past n bytes. */
int cursor_skip(struct cursor *c, uint64_t n);
/* Poisons c, as a parser does on a value it cannot accept. Returns -1. */
int cursor_fail(struct cursor *c);
/* Borrows n bytes from the cursor's buffer into *out. */
int cursor_take(struct cursor *c, size_t n, const uint8_t **out);
/* Reads a uleb length, at most max, then borrows that many bytes. */
int cursor_bytes(struct cursor *c, size_t max, const uint8_t **out, size_t *len);

#endif
