/*
 * pprof_pb.h: the few protocol buffers encodings that profile.proto uses.
 *
 * A field is a key, the varint (field number << 3 | wire type), then its
 * value: a varint (wire type 0) for the integer and bool fields, or a
 * varint length and that many bytes (wire type 2) for strings, nested
 * messages and packed repeated integers. Varints are base-128, least
 * significant group first, the high bit set on every byte but the last
 * (buf_put_uvarint()); an int64 is its two's complement as a uint64, so a
 * negative one takes 10 bytes. As proto3 writers do, an integer field that
 * is 0 is left out: a reader takes a missing field as 0.
 */
#ifndef REPORT_PPROF_PB_H
#define REPORT_PPROF_PB_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* Appends field as a varint, unless v is 0. */
void pprof_pb_uint(struct buf *b, unsigned field, uint64_t v);
/* Appends field as a varint of v's two's complement, unless v is 0. */
void pprof_pb_int(struct buf *b, unsigned field, int64_t v);
/* Appends field with the n bytes at p (a string or an encoded message),
 * always, even when n is 0. */
void pprof_pb_bytes(struct buf *b, unsigned field, const void *p, size_t n);
/* Appends field as the packed repeated varints v[0..n), unless n is 0. */
void pprof_pb_packed(struct buf *b, unsigned field, const uint64_t *v, size_t n);

#endif
