/*
 * fuzz_trace.c: the trace reader (format/trace_reader.c) on any bytes.
 *
 * Two layers are fuzzed. An input that starts with the trace magic is
 * read as a file: the container, its headers, lengths and zstd frames.
 * Any other input is the contents of chunks, which are framed here with
 * valid headers and checksums before reading, since no mutation would
 * ever get a checksum right: the records inside, their varints, lengths,
 * strings and stack references. The chunks are separated by the chunk
 * sync marker, and each starts with its type byte; fuzz/trace_raw turns a
 * real trace into such an input.
 *
 * Whatever loads is walked as prof-report walks it: every string, every
 * thread's name history, and every sample's stack through the prefix tree;
 * of an embedded symbol pack (chunk types 3 to 5), every frame's strings,
 * every range of code and every line of source through their lookups.
 */
#include "fuzz/fuzz.h"

#include <stdlib.h>
#include <zstd.h>

#include "common/buf.h"
#include "format/trace.h"
#include "format/trace_chunk.h"
#include "format/trace_pack.h"

static void walk_pack(const struct trace_pack *s)
{
	const uint8_t *code;
	size_t len;

	for (size_t i = 0; i < s->nimages; i++) {
		const struct trace_pack_image *img = &s->images[i];

		for (size_t k = 0; k < img->nframes; k++) {
			const struct trace_pack_frame *f = &img->frames[k];
			fuzz_touch_str(img->strings[f->name]);
			fuzz_touch_str(f->file ? img->strings[f->file - 1] : NULL);
			fuzz_touch_str(f->signature ? img->strings[f->signature - 1] : NULL);
		}
		for (size_t k = 0; k < img->ncode; k++) {
			const struct trace_pack_code *c = &img->code[k];
			len = trace_pack_image_code(img, c->start, UINT64_MAX, &code);
			fuzz_touch(code, len);
		}
	}
	for (size_t i = 0; i < s->nsources; i++) {
		const struct trace_pack_source *src = &s->sources[i];

		fuzz_touch_str(src->path);
		for (size_t r = 0; r < src->nruns; r++)
			for (uint32_t l = 0; l < src->runs[r].n; l++)
				fuzz_touch(trace_pack_source_line(s, src->path, src->runs[r].first + l,
								  &len), len + 1);
	}
}

static void walk(const struct trace *t)
{
	uint64_t frames[64];

	fuzz_touch_str(t->session.host);
	fuzz_touch_str(trace_sampler_name(t->session.sampler));
	fuzz_touch_str(trace_kernel_name(t->session.kernel));
	for (uint32_t i = 0; i < t->session.argc; i++)
		fuzz_touch_str(t->session.argv[i]);
	for (size_t i = 0; i < t->nimages; i++)
		fuzz_touch_str(t->images[i].path);
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct trace_thread *th = &t->threads[i];

		for (size_t k = 0; k < th->nnames; k++)
			fuzz_touch_str(th->names[k].name);
		fuzz_touch_str(trace_thread_name_at(th, th->time_start));
	}
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct trace_sample *s = &t->samples[i];

		trace_stack(t, s->stack, frames, 64);
		trace_thread_find(t, s->tid);
		fuzz_touch_str(trace_state_name(s->state));
	}
	if (t->pack)
		walk_pack(t->pack);
}

/* Appends one chunk of type p[0] holding the n - 1 bytes after it. */
static void add_chunk(struct buf *out, ZSTD_CCtx *cc, uint32_t seq, const uint8_t *p, size_t n)
{
	struct trace_chunk_header h = { .type = n ? p[0] : TRACE_CHUNK_DATA, .seq = seq };
	size_t raw = n ? n - 1 : 0, bound = ZSTD_compressBound(raw), clen;

	buf_grow(out, TRACE_CHUNK_HEADER_LEN + bound);
	clen = ZSTD_compress2(cc, out->data + out->len + TRACE_CHUNK_HEADER_LEN, bound,
			      n ? p + 1 : p, raw);
	if (ZSTD_isError(clen))
		abort();
	h.raw_len = (uint32_t)raw;
	h.comp_len = (uint32_t)clen;
	trace_chunk_header_encode(out->data + out->len, &h);
	out->len += TRACE_CHUNK_HEADER_LEN + clen;
}

/* A trace file of the chunks in data, see above. */
static void frame_chunks(struct buf *out, const uint8_t *data, size_t size)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	uint32_t seq = 0;
	size_t pos = 0;

	if (!cc)
		abort();
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1);
	buf_grow(out, TRACE_HEADER_LEN);
	trace_file_header_encode(out->data, TRACE_MAGIC, TRACE_FORMAT_MAJOR, TRACE_FORMAT_MINOR);
	out->len = TRACE_HEADER_LEN;
	while (pos <= size) {
		const uint8_t *sync = memmem(data + pos, size - pos, TRACE_SYNC, TRACE_SYNC_LEN);
		size_t end = sync ? (size_t)(sync - data) : size;

		add_chunk(out, cc, seq++, data + pos, end - pos);
		pos = end + TRACE_SYNC_LEN;
	}
	ZSTD_freeCCtx(cc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace *t = NULL;
	struct buf file;
	uint8_t *exact;
	int r;

	if (size >= TRACE_MAGIC_LEN && !memcmp(data, TRACE_MAGIC, TRACE_MAGIC_LEN)) {
		if (trace_load_mem(data, size, &t) == 0)
			walk(t);
		trace_free(t);
		return 0;
	}
	buf_init(&file);
	frame_chunks(&file, data, size);
	/* Exactly its size, so that a read past the end is seen. */
	exact = malloc(file.len);
	if (!exact)
		abort();
	memcpy(exact, file.data, file.len);
	r = trace_load_mem(exact, file.len, &t);
	if (r == 0)
		walk(t);
	trace_free(t);
	free(exact);
	buf_release(&file);
	return 0;
}
