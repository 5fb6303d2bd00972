/*
 * buf.c: the growable byte buffer behind every encoder in prof.
 *
 * The trace writer, the folded and SVG writers and the message formatters all
 * append through here, so growth and the trailing NUL live in one place;
 * the writers of large outputs pass it to their stream through buf_out.
 */
#include "buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The data of every buf without storage (cap 0), as git's strbuf_slopbuf
 * is: never written, since only a buf with storage is. */
static uint8_t empty[1];

void buf_init(struct buf *b)
{
	b->data = empty;
	b->len = 0;
	b->cap = 0;
}

void buf_release(struct buf *b)
{
	if (b->cap)
		free(b->data);
	buf_init(b);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->cap)
		b->data[0] = 0;
}

void buf_grow(struct buf *b, size_t n)
{
	if (n > (size_t)-1 - b->len - 1)
		die("out of memory growing a buffer by %zu bytes", n);
	if (!b->cap)
		b->data = NULL; /* the shared "" is not ours to realloc */
	b->data = xgrow(b->data, &b->cap, b->len + n + 1, 1);
	b->data[b->len] = 0; /* a buffer that has storage is a string */
}

void buf_add(struct buf *b, const void *p, size_t n)
{
	buf_grow(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = 0;
}

void buf_addch(struct buf *b, int c)
{
	uint8_t ch = (uint8_t)c;
	buf_add(b, &ch, 1);
}

void buf_addstr(struct buf *b, const char *s) { buf_add(b, s, strlen(s)); }

void buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		BUG("bad format '%s'", fmt);
	buf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *buf_detach(struct buf *b)
{
	char *s;

	buf_grow(b, 0);
	s = (char *)b->data;
	buf_init(b);
	return s;
}

char **buf_split_nul(const struct buf *b, size_t from, size_t max, uint32_t *n)
{
	char **v = NULL;
	size_t k = 0, cap = 0;

	for (size_t i = from; i < b->len && k < max;) {
		size_t l = strnlen((const char *)b->data + i, b->len - i);
		v = xgrow(v, &cap, k + 2, sizeof(*v));
		v[k++] = xstrndup((const char *)b->data + i, l);
		i += l + 1;
	}
	v = xgrow(v, &cap, k + 1, sizeof(*v));
	v[k] = NULL;
	*n = (uint32_t)k;
	return v;
}

void buf_put_le16(struct buf *b, uint16_t v)
{
	uint8_t p[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
	buf_add(b, p, 2);
}

void buf_put_le32(struct buf *b, uint32_t v)
{
	uint8_t p[4];
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	buf_add(b, p, 4);
}

void buf_put_le64(struct buf *b, uint64_t v)
{
	uint8_t p[8];
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	buf_add(b, p, 8);
}

void buf_put_uvarint(struct buf *b, uint64_t v)
{
	uint8_t p[10];
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	buf_add(b, p, n);
}

void buf_put_svarint(struct buf *b, int64_t v)
{
	buf_put_uvarint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void buf_put_bytes(struct buf *b, const void *p, size_t n)
{
	buf_put_uvarint(b, n);
	buf_add(b, p, n);
}

void buf_out_flush(struct buf_out *o)
{
	if (!o->err && o->b.len && fwrite(o->b.data, 1, o->b.len, o->f) != o->b.len)
		o->err = -EIO;
	buf_reset(&o->b);
}

void buf_out_maybe(struct buf_out *o, size_t bound)
{
	if (o->b.len >= bound)
		buf_out_flush(o);
}
