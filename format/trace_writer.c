/*
 * trace_writer.c: turns prof-record's stream of events into trace chunks.
 *
 * Records are buffered in call order into the current chunk; samples are
 * kept apart in columns (time deltas, thread indexes, states, flags, stack
 * codes), because zstd compresses a column of similar numbers far better
 * than interleaved rows. Each sample's stack is folded into a prefix tree
 * keyed by (parent node, address), so a stack seen before costs one small
 * code and only new nodes are written. When the chunk is flushed (by the
 * caller once a second, or by itself when it passes TRACE_CHUNK_TARGET) the
 * new nodes, then the samples, are appended as records, the whole chunk is
 * compressed as one zstd frame with its content checksum, and chunk header
 * and frame go out in one write loop. The writer never seeks, and after a
 * failed write it refuses everything, so a half-written chunk can only ever
 * be the last bytes of the file, which the reader counts as lost.
 */
#include "format/trace.h"
#include "format/trace_codec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/hmap.h"

/* Level 3 is zstd's default: cheap enough for a once-a-second flush, and the
 * sample columns gain little from higher levels. */
#define WRITER_ZSTD_LEVEL 3
/* The deepest stack one sample may carry; keeps one chunk under
 * TRACE_MAX_CHUNK whatever the caller passes. */
#define WRITER_MAX_DEPTH (1u << 20)

struct thread_slot {
	uint32_t tid;
	uint32_t nmtf;
	uint32_t mtf[TRACE_MTF_LEN];
};

struct trace_writer {
	int fd;
	int err;       /* sticky: the first write error */
	int finished;
	uint32_t seq;
	uint64_t bytes;
	uint64_t samples;
	uint64_t data_chunks;
	ZSTD_CCtx *cctx;

	struct buf meta;  /* this chunk's records other than nodes and samples */
	struct buf raw;   /* the chunk being assembled */
	struct buf rec;   /* one record's payload */
	struct buf out;   /* chunk header + compressed frame */

	/* The stack prefix tree: (parent id, address) -> node id. */
	struct hmap tree;
	uint32_t next_node;    /* ids are dense; 0 is the root */
	uint32_t first_new;    /* first node id not yet written */
	struct buf new_parent; /* per new node: 0 (root) or id - parent */
	struct buf new_addr;   /* per new node: zigzag(addr - parent addr) */

	/* This chunk's samples, in columns. */
	uint64_t nsamp;
	uint64_t t0, tprev;
	struct buf c_time, c_tid, c_state, c_flags, c_stack;
	struct hmap tid_index; /* (tid, 0) -> index into threads */
	struct thread_slot *threads;
	size_t nthreads, cap_threads;

	uint64_t counters[TRACE_COUNTER__COUNT]; /* the values last written */
};

static void chunk_reset(struct trace_writer *w)
{
	buf_reset(&w->meta);
	buf_reset(&w->new_parent);
	buf_reset(&w->new_addr);
	w->first_new = w->next_node;
	w->nsamp = 0;
	buf_reset(&w->c_time);
	buf_reset(&w->c_tid);
	buf_reset(&w->c_state);
	buf_reset(&w->c_flags);
	buf_reset(&w->c_stack);
	hmap_release(&w->tid_index);
	w->nthreads = 0;
}

static size_t chunk_estimate(const struct trace_writer *w)
{
	return w->meta.len + w->new_parent.len + w->new_addr.len + w->c_time.len +
	       w->c_tid.len + w->c_state.len + w->c_flags.len + w->c_stack.len +
	       w->nthreads * 5 + 64;
}

static int write_all(int fd, const uint8_t *p, size_t n, uint64_t *done)
{
	while (n > 0) {
		ssize_t r = write(fd, p, n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		p += r;
		n -= (size_t)r;
		*done += (uint64_t)r;
	}
	return 0;
}

/* Appends type, length and the payload in w->rec to dst as one record. */
static void put_record(struct buf *dst, unsigned type, const struct buf *payload)
{
	buf_put_uvarint(dst, type);
	buf_put_bytes(dst, payload->data, payload->len);
}

static void put_string(struct buf *b, const char *s)
{
	buf_put_bytes(b, s, strlen(s));
}

static int check_string(const char *s)
{
	if (!s)
		return TRACE_E_USAGE;
	return strlen(s) > TRACE_MAX_STRING ? TRACE_E_TOOBIG : 0;
}

/* Compresses raw into one zstd frame behind a chunk header and writes both. */
static int write_chunk(struct trace_writer *w, uint16_t type, const struct buf *raw)
{
	struct trace_chunk_header h = { 0 };
	size_t bound, clen;
	int r;

	if (raw->len > TRACE_MAX_CHUNK)
		return TRACE_E_TOOBIG;
	bound = ZSTD_compressBound(raw->len);
	buf_reset(&w->out);
	buf_grow(&w->out, TRACE_CHUNK_HEADER_LEN + bound);
	clen = ZSTD_compress2(w->cctx, w->out.data + TRACE_CHUNK_HEADER_LEN, bound,
			      raw->data ? raw->data : (const uint8_t *)"", raw->len);
	if (ZSTD_isError(clen))
		return TRACE_E_ZSTD;
	if (clen > TRACE_MAX_CHUNK)
		return TRACE_E_TOOBIG;
	h.type = type;
	h.seq = w->seq;
	h.raw_len = (uint32_t)raw->len;
	h.comp_len = (uint32_t)clen;
	trace_chunk_header_encode(w->out.data, &h);
	w->out.len = TRACE_CHUNK_HEADER_LEN + clen;
	r = write_all(w->fd, w->out.data, w->out.len, &w->bytes);
	if (r < 0) {
		w->err = r;
		return r;
	}
	w->seq++;
	return 0;
}

static void emit_nodes(struct trace_writer *w)
{
	uint32_t count = w->next_node - w->first_new;

	if (!count)
		return;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, w->first_new);
	buf_put_uvarint(&w->rec, count);
	buf_add(&w->rec, w->new_parent.data, w->new_parent.len);
	buf_add(&w->rec, w->new_addr.data, w->new_addr.len);
	put_record(&w->raw, TRACE_REC_NODES, &w->rec);
}

static void emit_samples(struct trace_writer *w)
{
	if (!w->nsamp)
		return;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, w->nsamp);
	buf_put_uvarint(&w->rec, w->nthreads);
	for (size_t i = 0; i < w->nthreads; i++)
		buf_put_uvarint(&w->rec, w->threads[i].tid);
	buf_put_uvarint(&w->rec, w->t0);
	buf_add(&w->rec, w->c_time.data, w->c_time.len);
	buf_add(&w->rec, w->c_tid.data, w->c_tid.len);
	buf_add(&w->rec, w->c_state.data, w->c_state.len);
	buf_add(&w->rec, w->c_flags.data, w->c_flags.len);
	buf_add(&w->rec, w->c_stack.data, w->c_stack.len);
	put_record(&w->raw, TRACE_REC_SAMPLES, &w->rec);
}

static int flush(struct trace_writer *w)
{
	int r;

	if (w->err)
		return w->err;
	if (!w->meta.len && w->next_node == w->first_new && !w->nsamp)
		return 0;
	buf_reset(&w->raw);
	buf_add(&w->raw, w->meta.data, w->meta.len);
	emit_nodes(w);
	emit_samples(w);
	r = write_chunk(w, TRACE_CHUNK_DATA, &w->raw);
	if (r < 0) {
		/* The chunk is gone, and so are the nodes in it: refuse
		 * everything from here on rather than write samples that
		 * point at them. */
		w->err = r;
		return r;
	}
	w->data_chunks++;
	chunk_reset(w);
	return 0;
}

static int usable(const struct trace_writer *w)
{
	if (!w || w->finished)
		return TRACE_E_USAGE;
	return w->err;
}

static int maybe_flush(struct trace_writer *w)
{
	if (chunk_estimate(w) >= TRACE_CHUNK_TARGET)
		return flush(w);
	return 0;
}

static void meta_record(struct trace_writer *w, unsigned type)
{
	put_record(&w->meta, type, &w->rec);
}

int trace_writer_new(int fd, const struct trace_session *s, struct trace_writer **out)
{
	struct trace_writer *w = NULL;
	uint8_t hdr[TRACE_HEADER_LEN];
	const char *host;
	int r;

	*out = NULL;
	if (fd < 0 || !s || (s->argc && !s->argv))
		return TRACE_E_USAGE;
	if (s->argc > TRACE_MAX_ARGS)
		return TRACE_E_TOOBIG;
	host = s->host ? s->host : "";
	if ((r = check_string(host)) < 0)
		return r;
	for (uint32_t i = 0; i < s->argc; i++)
		if ((r = check_string(s->argv[i])) < 0)
			return r;

	w = xcalloc(1, sizeof(*w));
	w->fd = fd;
	w->next_node = 1;
	w->first_new = 1;
	buf_init(&w->meta);
	buf_init(&w->raw);
	buf_init(&w->rec);
	buf_init(&w->out);
	buf_init(&w->new_parent);
	buf_init(&w->new_addr);
	buf_init(&w->c_time);
	buf_init(&w->c_tid);
	buf_init(&w->c_state);
	buf_init(&w->c_flags);
	buf_init(&w->c_stack);
	hmap_init(&w->tree);
	hmap_init(&w->tid_index);
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx) {
		r = TRACE_E_ZSTD;
		goto out;
	}
	if (ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, WRITER_ZSTD_LEVEL)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1))) {
		r = TRACE_E_ZSTD;
		goto out;
	}

	trace_file_header_encode(hdr, TRACE_FORMAT_MAJOR, TRACE_FORMAT_MINOR);
	if ((r = write_all(fd, hdr, sizeof(hdr), &w->bytes)) < 0)
		goto out;

	buf_reset(&w->rec);
	buf_addch(&w->rec, s->os);
	buf_addch(&w->rec, s->arch);
	buf_addch(&w->rec, s->mode);
	buf_put_uvarint(&w->rec, s->rate_hz);
	buf_put_uvarint(&w->rec, s->pid);
	buf_put_uvarint(&w->rec, s->start_realtime_ns);
	buf_put_uvarint(&w->rec, s->start_monotonic_ns);
	put_string(&w->rec, host);
	buf_put_uvarint(&w->rec, s->argc);
	for (uint32_t i = 0; i < s->argc; i++)
		put_string(&w->rec, s->argv[i]);
	meta_record(w, TRACE_REC_SESSION);
	/* The session goes out at once, alone: a recorder killed in its
	 * first second still leaves a trace that loads. */
	r = flush(w);
out:
	if (r < 0) {
		trace_writer_free(w);
		return r;
	}
	*out = w;
	return 0;
}

int trace_writer_image(struct trace_writer *w, const struct trace_image *img)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (!img || !img->path || img->ident_len > TRACE_MAX_IDENT)
		return TRACE_E_USAGE;
	if ((r = check_string(img->path)) < 0)
		return r;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, img->id);
	buf_addch(&w->rec, img->ident_kind);
	buf_put_bytes(&w->rec, img->ident, img->ident_len);
	buf_addch(&w->rec, img->arch);
	put_string(&w->rec, img->path);
	buf_put_uvarint(&w->rec, img->start);
	buf_put_uvarint(&w->rec, img->size);
	buf_put_uvarint(&w->rec, img->file_offset);
	buf_put_uvarint(&w->rec, img->bias);
	buf_put_uvarint(&w->rec, img->time_loaded);
	meta_record(w, TRACE_REC_IMAGE);
	return maybe_flush(w);
}

static int id_time_record(struct trace_writer *w, unsigned type, uint32_t id, uint64_t time,
			  const char *name)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (name && (r = check_string(name)) < 0)
		return r;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, id);
	buf_put_uvarint(&w->rec, time);
	if (name)
		put_string(&w->rec, name);
	meta_record(w, type);
	return maybe_flush(w);
}

int trace_writer_image_unload(struct trace_writer *w, uint32_t id, uint64_t time)
{
	return id_time_record(w, TRACE_REC_IMAGE_UNLOAD, id, time, NULL);
}

int trace_writer_thread_start(struct trace_writer *w, uint32_t tid, uint64_t time)
{
	return id_time_record(w, TRACE_REC_THREAD_START, tid, time, NULL);
}

int trace_writer_thread_name(struct trace_writer *w, uint32_t tid, uint64_t time, const char *name)
{
	if (!name)
		return TRACE_E_USAGE;
	return id_time_record(w, TRACE_REC_THREAD_NAME, tid, time, name);
}

int trace_writer_thread_end(struct trace_writer *w, uint32_t tid, uint64_t time)
{
	return id_time_record(w, TRACE_REC_THREAD_END, tid, time, NULL);
}

/* Returns the node for the stack addrs[0..n) (leaf first), adding any
 * nodes the tree lacks, root side first, to this chunk's new nodes. */
static uint32_t stack_node(struct trace_writer *w, const uint64_t *addrs, size_t n)
{
	uint32_t node = 0;
	uint64_t parent_addr = 0;

	for (size_t i = n; i-- > 0;) {
		int added;
		uint64_t *slot = hmap_put(&w->tree, node, addrs[i], w->next_node, &added);
		if (added) {
			uint32_t id = w->next_node++;
			buf_put_uvarint(&w->new_parent, node ? id - node : 0);
			buf_put_svarint(&w->new_addr, (int64_t)(addrs[i] - parent_addr));
		}
		node = (uint32_t)*slot;
		parent_addr = addrs[i];
	}
	return node;
}

static struct thread_slot *thread_slot(struct trace_writer *w, uint32_t tid, uint64_t *index)
{
	int added;
	uint64_t *slot = hmap_put(&w->tid_index, tid, 0, w->nthreads, &added);

	if (added) {
		struct thread_slot *t;
		w->threads = xgrow(w->threads, &w->cap_threads, w->nthreads + 1, sizeof(*w->threads));
		t = &w->threads[w->nthreads++];
		t->tid = tid;
		t->nmtf = 0;
	}
	*index = *slot;
	return &w->threads[*slot];
}

/* The stack code: a hit in the thread's recent-stacks list costs its
 * position, a miss TRACE_MTF_LEN + the node id. */
static uint64_t stack_code(struct thread_slot *t, uint32_t node)
{
	for (uint32_t i = 0; i < t->nmtf; i++) {
		if (t->mtf[i] == node) {
			trace_mtf_promote(t->mtf, i);
			return i;
		}
	}
	if (t->nmtf < TRACE_MTF_LEN)
		t->nmtf++;
	t->mtf[t->nmtf - 1] = node;
	trace_mtf_promote(t->mtf, t->nmtf - 1);
	return (uint64_t)TRACE_MTF_LEN + node;
}

int trace_writer_sample(struct trace_writer *w, uint64_t time, uint32_t tid, uint8_t state,
			uint8_t flags, const uint64_t *addrs, size_t n)
{
	struct thread_slot *t;
	uint64_t index;
	uint32_t node;
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (n && !addrs)
		return TRACE_E_USAGE;
	if (n > WRITER_MAX_DEPTH || (uint64_t)w->next_node + n > UINT32_MAX)
		return TRACE_E_TOOBIG;
	node = stack_node(w, addrs, n);
	t = thread_slot(w, tid, &index);
	if (!w->nsamp)
		w->t0 = time;
	else
		buf_put_svarint(&w->c_time, (int64_t)(time - w->tprev));
	w->tprev = time;
	buf_put_uvarint(&w->c_tid, index);
	buf_addch(&w->c_state, state);
	buf_addch(&w->c_flags, flags);
	buf_put_uvarint(&w->c_stack, stack_code(t, node));
	w->nsamp++;
	w->samples++;
	return maybe_flush(w);
}

int trace_writer_counters(struct trace_writer *w, const uint64_t *counters)
{
	uint32_t changed = 0;
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (!counters)
		return TRACE_E_USAGE;
	for (int i = 0; i < TRACE_COUNTER__COUNT; i++)
		changed += counters[i] != w->counters[i];
	if (!changed)
		return 0;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, changed);
	for (int i = 0; i < TRACE_COUNTER__COUNT; i++) {
		if (counters[i] == w->counters[i])
			continue;
		buf_put_uvarint(&w->rec, (uint64_t)i);
		buf_put_uvarint(&w->rec, counters[i]);
		w->counters[i] = counters[i];
	}
	meta_record(w, TRACE_REC_COUNTERS);
	return maybe_flush(w);
}

int trace_writer_flush(struct trace_writer *w)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	return flush(w);
}

int trace_writer_finish(struct trace_writer *w, const struct trace_end *end)
{
	uint64_t before;
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (end) {
		buf_reset(&w->rec);
		buf_put_uvarint(&w->rec, end->time);
		buf_addch(&w->rec, end->has_exit ? 1 : 0);
		buf_put_svarint(&w->rec, end->exit_status);
		meta_record(w, TRACE_REC_END);
	}
	if ((r = flush(w)) < 0)
		return r;
	before = w->bytes;
	buf_reset(&w->raw);
	buf_put_uvarint(&w->raw, w->data_chunks);
	buf_put_uvarint(&w->raw, w->samples);
	buf_put_uvarint(&w->raw, w->next_node - 1u);
	buf_put_uvarint(&w->raw, before);
	if ((r = write_chunk(w, TRACE_CHUNK_FOOTER, &w->raw)) < 0)
		return r;
	w->finished = 1;
	return 0;
}

uint64_t trace_writer_bytes(const struct trace_writer *w)
{
	return w ? w->bytes : 0;
}

uint64_t trace_writer_samples(const struct trace_writer *w)
{
	return w ? w->samples : 0;
}

void trace_writer_free(struct trace_writer *w)
{
	if (!w)
		return;
	ZSTD_freeCCtx(w->cctx);
	buf_release(&w->meta);
	buf_release(&w->raw);
	buf_release(&w->rec);
	buf_release(&w->out);
	buf_release(&w->new_parent);
	buf_release(&w->new_addr);
	buf_release(&w->c_time);
	buf_release(&w->c_tid);
	buf_release(&w->c_state);
	buf_release(&w->c_flags);
	buf_release(&w->c_stack);
	hmap_release(&w->tree);
	hmap_release(&w->tid_index);
	free(w->threads);
	free(w);
}
