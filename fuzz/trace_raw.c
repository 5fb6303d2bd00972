/*
 * trace_raw.c: trace_raw TRACE OUT writes the chunks of a trace file as
 * the chunk layer of fuzz_trace takes them: each chunk's type byte and
 * decompressed contents, the chunks separated by the sync marker. It
 * turns real and golden traces into seeds that start past the checksums.
 */
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

#include "common/buf.h"
#include "common/diag.h"
#include "format/trace_chunk.h"

int main(int argc, char **argv)
{
	struct buf in, out;
	size_t pos = TRACE_HEADER_LEN;
	char chunk[65536];
	FILE *f;
	size_t n;

	diag_set_progname("trace_raw");
	if (argc != 3)
		die("usage: trace_raw TRACE OUT");
	if (!(f = fopen(argv[1], "rb")))
		die_errno("cannot open '%s'", argv[1]);
	buf_init(&in);
	buf_init(&out);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&in, chunk, n);
	fclose(f);
	while (pos <= in.len && in.len - pos >= TRACE_CHUNK_HEADER_LEN) {
		struct trace_chunk_header h;
		size_t got;

		if (trace_chunk_header_decode(in.data + pos, &h) < 0 ||
		    h.comp_len > in.len - pos - TRACE_CHUNK_HEADER_LEN)
			break;
		if (out.len)
			buf_add(&out, TRACE_SYNC, TRACE_SYNC_LEN);
		buf_addch(&out, h.type);
		buf_grow(&out, h.raw_len);
		got = ZSTD_decompress(out.data + out.len, h.raw_len,
				      in.data + pos + TRACE_CHUNK_HEADER_LEN, h.comp_len);
		if (ZSTD_isError(got))
			die("'%s': chunk %u: %s", argv[1], h.seq, ZSTD_getErrorName(got));
		out.len += got;
		pos += TRACE_CHUNK_HEADER_LEN + h.comp_len;
	}
	if (!(f = fopen(argv[2], "wb")) || fwrite(out.data, 1, out.len, f) != out.len || fclose(f))
		die_errno("cannot write '%s'", argv[2]);
	buf_release(&in);
	buf_release(&out);
	return 0;
}
