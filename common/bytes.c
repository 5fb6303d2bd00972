/*
 * bytes.c: the bounds-checked cursor that every parser of untrusted input
 * (traces, packs, DWARF lines, CFI, perf records) reads through.
 */
#include "bytes.h"

#include <string.h>

int cursor_fail(struct cursor *c)
{
	c->ok = 0;
	c->left = 0;
	return -1;
}

void cursor_init(struct cursor *c, const void *p, size_t n)
{
	c->p = p;
	c->left = n;
	c->ok = 1;
}

int cursor_take(struct cursor *c, size_t n, const uint8_t **out)
{
	*out = NULL;
	if (!c->ok || c->left < n)
		return cursor_fail(c);
	*out = c->p;
	c->p += n;
	c->left -= n;
	return 0;
}

int cursor_skip(struct cursor *c, uint64_t n)
{
	const uint8_t *p;

	if (n > c->left)
		return cursor_fail(c);
	return cursor_take(c, (size_t)n, &p);
}

int cursor_le(struct cursor *c, unsigned width, uint64_t *out)
{
	const uint8_t *p;

	*out = 0;
	if (width < 1 || width > 8)
		return cursor_fail(c);
	if (cursor_take(c, width, &p) < 0)
		return -1;
	for (unsigned i = 0; i < width; i++)
		*out |= (uint64_t)p[i] << (8 * i);
	return 0;
}

#define GETTER(name, type, n)                                  \
	int name(struct cursor *c, type *out)                   \
	{                                                       \
		uint64_t v;                                     \
		int r = cursor_le(c, n, &v);                    \
		*out = (type)v;                                 \
		return r;                                       \
	}

GETTER(cursor_u8, uint8_t, 1)
GETTER(cursor_le16, uint16_t, 2)
GETTER(cursor_le32, uint32_t, 4)
GETTER(cursor_le64, uint64_t, 8)

int cursor_uleb(struct cursor *c, uint64_t *out)
{
	uint64_t v = 0;

	*out = 0;
	for (unsigned shift = 0;; shift += 7) {
		uint8_t b;

		if (cursor_u8(c, &b) < 0)
			return -1;
		/* Past the 64th bit only zero groups: padding, not value. */
		if ((shift == 63 && (b & 0x7e)) || (shift > 63 && (b & 0x7f)))
			return cursor_fail(c);
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
}

int cursor_sleb(struct cursor *c, int64_t *out)
{
	uint64_t v = 0;
	uint8_t b = 0;
	unsigned shift = 0;

	*out = 0;
	do {
		if (cursor_u8(c, &b) < 0)
			return -1;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		/* Past the 64th bit only copies of the sign. */
		if (shift == 63 && (b & 0x7e) != (b & 1 ? 0x7e : 0))
			return cursor_fail(c);
		if (shift > 63 && (b & 0x7f) != (v >> 63 ? 0x7f : 0))
			return cursor_fail(c);
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	*out = (int64_t)v;
	return 0;
}

int cursor_svarint(struct cursor *c, int64_t *out)
{
	uint64_t u;
	int r = cursor_uleb(c, &u);

	*out = (int64_t)((u >> 1) ^ (~(u & 1) + 1));
	return r;
}

int cursor_cstr(struct cursor *c, const char **out)
{
	const uint8_t *z = c->ok ? memchr(c->p, 0, c->left) : NULL, *p;

	*out = NULL;
	if (!z)
		return cursor_fail(c);
	cursor_take(c, (size_t)(z - c->p) + 1, &p);
	*out = (const char *)p;
	return 0;
}

int cursor_bytes(struct cursor *c, size_t max, const uint8_t **out, size_t *len)
{
	uint64_t n;

	*out = NULL;
	*len = 0;
	if (cursor_uleb(c, &n) < 0)
		return -1;
	if (n > max || n > c->left)
		return cursor_fail(c);
	*len = (size_t)n;
	return cursor_take(c, (size_t)n, out);
}
