/*
 * bytes.c: the bounds-checked cursor that every parser of untrusted input
 * (traces, ELF, Mach-O, target memory) reads through.
 */
#include "bytes.h"

static int fail(struct cursor *c)
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
		return fail(c);
	*out = c->p;
	c->p += n;
	c->left -= n;
	return 0;
}

#define GETTER(name, type, n, conv)                            \
	int name(struct cursor *c, type *out)                   \
	{                                                       \
		const uint8_t *p;                               \
		*out = 0;                                       \
		if (cursor_take(c, n, &p) < 0)                  \
			return -1;                              \
		*out = conv(p);                                 \
		return 0;                                       \
	}

#define GET_U8(p) (*(p))
GETTER(cursor_u8, uint8_t, 1, GET_U8)
GETTER(cursor_le16, uint16_t, 2, get_le16)
GETTER(cursor_le32, uint32_t, 4, get_le32)
GETTER(cursor_le64, uint64_t, 8, get_le64)

int cursor_uvarint(struct cursor *c, uint64_t *out)
{
	uint64_t v = 0;

	*out = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		uint8_t b;
		if (cursor_u8(c, &b) < 0)
			return -1;
		if (shift == 63 && b > 1)
			return fail(c);
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return fail(c);
}

int cursor_svarint(struct cursor *c, int64_t *out)
{
	uint64_t u;
	int r = cursor_uvarint(c, &u);
	*out = (int64_t)((u >> 1) ^ (~(u & 1) + 1));
	return r;
}

int cursor_bytes(struct cursor *c, size_t max, const uint8_t **out, size_t *len)
{
	uint64_t n;

	*out = NULL;
	*len = 0;
	if (cursor_uvarint(c, &n) < 0)
		return -1;
	if (n > max || n > c->left)
		return fail(c);
	*len = (size_t)n;
	return cursor_take(c, (size_t)n, out);
}
