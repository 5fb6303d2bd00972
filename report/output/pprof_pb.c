/*
 * pprof_pb.c: protocol buffers keys, varints and length-delimited fields,
 * written from the encoding's specification, over common/buf.h's varints.
 * A packed field's length must come before its values, so they are
 * measured first rather than encoded twice.
 */
#include "report/output/pprof_pb.h"

enum { PB_VARINT = 0, PB_LEN = 2 };

static void key(struct buf *b, unsigned field, unsigned wire)
{
	buf_put_uvarint(b, (uint64_t)field << 3 | wire);
}

static size_t varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void pprof_pb_uint(struct buf *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	key(b, field, PB_VARINT);
	buf_put_uvarint(b, v);
}

void pprof_pb_int(struct buf *b, unsigned field, int64_t v)
{
	pprof_pb_uint(b, field, (uint64_t)v);
}

void pprof_pb_bytes(struct buf *b, unsigned field, const void *p, size_t n)
{
	key(b, field, PB_LEN);
	buf_put_bytes(b, p, n);
}

void pprof_pb_packed(struct buf *b, unsigned field, const uint64_t *v, size_t n)
{
	size_t len = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		len += varint_size(v[i]);
	key(b, field, PB_LEN);
	buf_put_uvarint(b, len);
	for (size_t i = 0; i < n; i++)
		buf_put_uvarint(b, v[i]);
}
