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
 * new nodes, then the samples, are appended as records and the chunk goes
 * to the container (format/trace_chunk.c), which compresses and writes it.
 * After a failed write, which leaves a regular file ending with its last
 * whole chunk, the writer refuses everything else, so a half-written
 * chunk can only be left at the end of a pipe or of a file that cannot be
 * truncated, where the reader counts it as lost.
 *
 * A recording may be cut into several files (trace_writer_switch()), or
 * kept in memory as a flight recorder's last seconds and written only as
 * snapshots (trace_writer_new_ring()). Either way each file must be a
 * whole trace, so such a writer keeps what is live: each process, image,
 * thread and code range with the records written of it, until it has
 * been over for LIVE_GRACE_NS. A new file, or a snapshot, restates them
 * before its samples. A writer of a whole recording keeps none of it.
 */
#include "format/trace.h"
#include "format/trace_codec.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/bytes.h"
#include "common/diag.h"
#include "common/hmap.h"

/* The deepest stack one sample may carry; keeps one chunk under
 * TRACE_MAX_CHUNK whatever the caller passes. */
#define WRITER_MAX_DEPTH (1u << 20)

struct stack_entry {
	uint32_t node;
	uint32_t count; /* samples in this chunk */
	uint32_t first; /* order of first use, the tie-break */
	uint32_t rank;  /* its index in the record's stack table */
};

/* What a file of the recording restates (2.6): a process, an image, a
 * thread or a code range, or in a ring a mark or pause. */
enum live_kind { LIVE_PROCESS, LIVE_IMAGE, LIVE_THREAD, LIVE_CODE, LIVE_EVENT };

#define LIVE_ON UINT64_MAX
/* How long a thing is restated after it ended: a sample is written after
 * its thread's end when the kernel's buffers are drained after the
 * thread's exit was heard. */
#define LIVE_GRACE_NS 2000000000ull

struct live {
	uint64_t end;      /* when it ended (or was replaced), or LIVE_ON */
	uint64_t a, b;     /* its key in live_index, while it is live */
	uint32_t process;  /* the process it is of, which ends it; 0 none */
	struct buf recs;   /* the records of it written so far, as in a chunk */
};

/* A chunk of a ring: as trace_sink_encode() made it, header and frame. */
struct ring_chunk {
	uint8_t *bytes;
	size_t len;
	uint64_t first, last;   /* its samples' earliest and latest times */
	uint64_t samples;
	uint64_t counters[TRACE_COUNTER__COUNT]; /* cumulative, before it */
	uint32_t epoch;         /* the first node of the stack table it uses */
};

struct trace_writer {
	struct trace_sink sink;
	int err;       /* sticky: the first write error */
	int finished;
	uint64_t samples;       /* in every file */
	uint64_t file_samples;  /* in this one */
	uint64_t bytes_before;  /* written to the files finished before it */
	struct trace_session sess; /* the recording's, a copy: each new file's
	                        * session is made of it */
	uint64_t newest;        /* the latest time of a sample or of a thing's
	                         * start or end: the writer's now */

	struct buf meta;  /* this chunk's records other than nodes and samples */
	struct buf raw;   /* the chunk being assembled */
	struct buf rec;   /* one record's payload */

	/* The stack prefix tree: (parent id, address) -> node id. */
	struct hmap tree;
	uint32_t next_node;    /* ids are dense; 0 is the root */
	uint32_t first_new;    /* first node id not yet written */
	uint64_t *last;        /* the last sample's stack, and its node: a */
	size_t nlast, cap_last; /* thread off the CPU repeats it tick after */
	uint32_t last_node;    /* tick, and blocked threads share theirs */
	struct buf new_parent; /* per new node: 0 (root) or id - parent */
	struct buf new_addr;   /* per new node: zigzag(addr - parent addr) */

	/* This chunk's samples, in columns. */
	uint64_t nsamp;
	uint64_t *times;
	size_t cap_times;
	uint32_t *sidx;  /* per sample: index into stacks */
	size_t cap_sidx;
	struct buf c_tid, c_state, c_flags;
	int64_t *deltas; /* scratch for the period */
	size_t cap_deltas;
	struct hmap tid_index; /* (tid, 0) -> index into tids */
	uint32_t *tids;
	size_t ntids, cap_tids;
	struct hmap stack_index; /* (node, 0) -> index into stacks */
	struct stack_entry *stacks;
	size_t nstacks, cap_stacks;
	struct stack_entry **order;
	size_t cap_order;

	uint64_t counters[TRACE_COUNTER__COUNT]; /* the values last written
	                        * to this file */
	uint64_t cum[TRACE_COUNTER__COUNT];  /* the cumulative values given */
	uint64_t base[TRACE_COUNTER__COUNT]; /* and those when this file began */

	int keep_live;          /* a rotated recording's, or a ring */
	struct live *live;      /* in the order made */
	size_t nlive, cap_live;
	struct hmap live_index; /* key -> index in live */

	/* A flight recorder (ring_window > 0): chunks in memory. */
	uint64_t ring_window, ring_cap;
	struct ring_chunk *ring;
	size_t nring, cap_ring;
	uint64_t ring_bytes;    /* of the chunks */
	struct buf ring_nodes;  /* the node records the chunks may use */
	uint32_t ring_epoch;    /* the first node the tree knows: the tree is
	                         * begun again past a quarter of the cap, so
	                         * that chunks made since use no node before */
	uint64_t ring_prev[TRACE_COUNTER__COUNT]; /* cum at the last chunk */
	uint64_t ring_cut;      /* samples of the window the cap dropped */
	uint32_t snapshots;
};

static void chunk_reset(struct trace_writer *w)
{
	buf_reset(&w->meta);
	buf_reset(&w->new_parent);
	buf_reset(&w->new_addr);
	w->first_new = w->next_node;
	w->nsamp = 0;
	buf_reset(&w->c_tid);
	buf_reset(&w->c_state);
	buf_reset(&w->c_flags);
	hmap_release(&w->tid_index);
	w->ntids = 0;
	hmap_release(&w->stack_index);
	w->nstacks = 0;
}

static size_t chunk_estimate(const struct trace_writer *w)
{
	return w->meta.len + w->new_parent.len + w->new_addr.len + w->nsamp * 3 +
	       w->c_tid.len + w->c_state.len + w->c_flags.len + w->nsamp * 2 +
	       w->ntids * 5 + w->nstacks * 5 + 64;
}

/* Appends type, length and the payload in w->rec to dst as one record. */
static void put_record(struct buf *dst, unsigned type, const struct buf *payload)
{
	buf_put_uvarint(dst, type);
	buf_put_bytes(dst, payload->data, payload->len);
}

static int check_string(const char *s)
{
	if (!s)
		return TRACE_E_USAGE;
	return strlen(s) > TRACE_MAX_STRING ? TRACE_E_TOOBIG : 0;
}

static void emit_nodes(struct trace_writer *w, struct buf *dst)
{
	uint32_t count = w->next_node - w->first_new;

	if (!count)
		return;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, w->first_new);
	buf_put_uvarint(&w->rec, count);
	buf_add(&w->rec, w->new_parent.data, w->new_parent.len);
	buf_add(&w->rec, w->new_addr.data, w->new_addr.len);
	put_record(dst, TRACE_REC_NODES, &w->rec);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The typical gap between samples: the median of the non-zero deltas (in
 * wall mode most deltas are 0, every thread sharing its tick's time). */
static int64_t period(struct trace_writer *w)
{
	size_t n = 0;

	w->deltas = xgrow(w->deltas, &w->cap_deltas, w->nsamp, sizeof(*w->deltas));
	for (uint64_t i = 1; i < w->nsamp; i++)
		if (w->times[i] != w->times[i - 1])
			w->deltas[n++] = (int64_t)(w->times[i] - w->times[i - 1]);
	if (!n)
		return 0;
	qsort(w->deltas, n, sizeof(*w->deltas), cmp_i64);
	return w->deltas[n / 2];
}

/* Arithmetic shift right by 16 of a two's complement value, portably. */
static int64_t high_part(uint64_t r)
{
	uint64_t h = r >> 16;
	if (r >> 63)
		h |= 0xffffull << 48;
	return (int64_t)h;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct stack_entry *x = *(struct stack_entry *const *)a;
	const struct stack_entry *y = *(struct stack_entry *const *)b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

static void emit_samples(struct trace_writer *w)
{
	size_t cols[6], base;

	uint32_t prev = 0;
	int64_t p;

	if (!w->nsamp)
		return;
	p = period(w);
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, w->nsamp);
	buf_put_uvarint(&w->rec, w->ntids);
	for (size_t i = 0; i < w->ntids; i++)
		buf_put_uvarint(&w->rec, w->tids[i]);
	/* The stack table, most used first, so hot stacks get the shortest
	 * codes; ids as deltas from the entry before. */
	w->order = xgrow(w->order, &w->cap_order, w->nstacks, sizeof(*w->order));
	for (size_t i = 0; i < w->nstacks; i++)
		w->order[i] = &w->stacks[i];
	qsort(w->order, w->nstacks, sizeof(*w->order), cmp_stack);
	buf_put_uvarint(&w->rec, w->nstacks);
	for (size_t i = 0; i < w->nstacks; i++) {
		w->order[i]->rank = (uint32_t)i;
		buf_put_svarint(&w->rec, (int64_t)w->order[i]->node - (int64_t)prev);
		prev = w->order[i]->node;
	}
	buf_put_uvarint(&w->rec, w->times[0]);
	buf_put_svarint(&w->rec, p);
	/* Each delta's residual against the period, offset by 2^15 and split
	 * into byte planes: bits 0-7, which jitter makes noise, bits 8-15,
	 * which are noise only for jitter past a microsecond or so, and the
	 * rest, 0 while jitter stays within +-32 us. Each column then gets a
	 * zstd block and an entropy table of its own. */
	for (int byte = 0; byte < 2; byte++) {
		cols[byte] = w->rec.len;
		for (uint64_t i = 1; i < w->nsamp; i++) {
			uint64_t u = w->times[i] - w->times[i - 1] - (uint64_t)p + TRACE_RESIDUAL_BIAS;
			buf_addch(&w->rec, (uint8_t)(u >> (8 * byte)));
		}
	}
	cols[2] = w->rec.len;
	for (uint64_t i = 1; i < w->nsamp; i++) {
		uint64_t u = w->times[i] - w->times[i - 1] - (uint64_t)p + TRACE_RESIDUAL_BIAS;
		buf_put_svarint(&w->rec, high_part(u));
	}
	cols[3] = w->rec.len;
	buf_add(&w->rec, w->c_tid.data, w->c_tid.len);
	cols[4] = w->rec.len;
	buf_add(&w->rec, w->c_state.data, w->c_state.len);
	buf_add(&w->rec, w->c_flags.data, w->c_flags.len);
	cols[5] = w->rec.len;
	for (uint64_t i = 0; i < w->nsamp; i++)
		buf_put_uvarint(&w->rec, w->stacks[w->sidx[i]].rank);
	buf_put_uvarint(&w->raw, TRACE_REC_SAMPLES);
	buf_put_uvarint(&w->raw, w->rec.len);
	base = w->raw.len;
	buf_add(&w->raw, w->rec.data, w->rec.len);
	for (int i = 0; i < 6; i++)
		w->sink.seg[w->sink.nseg++] = base + cols[i];
}

/* The live thing of key (a, b), or NULL. */
static struct live *live_find(struct trace_writer *w, uint64_t a, uint64_t b)
{
	const uint64_t *v = hmap_get(&w->live_index, a, b);

	return v ? &w->live[*v] : NULL;
}

static void seen(struct trace_writer *w, uint64_t time)
{
	if (time > w->newest)
		w->newest = time;
}

/* Ends e at time: it is restated for LIVE_GRACE_NS more, and its key
 * names it no longer. */
static void live_end(struct trace_writer *w, struct live *e, uint64_t time)
{
	if (!e)
		return;
	if (e->end == LIVE_ON)
		hmap_del(&w->live_index, e->a, e->b);
	e->end = time;
	seen(w, time);
}

/* A new live thing of key (a, b), of process (or 0), that began at time,
 * ending the one the key named then. A thing without a key (a == 0: a
 * mark or pause) is over at time. NULL for a writer that keeps none. */
static struct live *live_new(struct trace_writer *w, uint64_t a, uint64_t b, uint32_t process, uint64_t time)
{
	struct live *e = a ? live_find(w, a, b) : NULL;

	if (!w->keep_live)
		return NULL;
	if (e)
		live_end(w, e, time);
	seen(w, time);
	w->live = xgrow(w->live, &w->cap_live, w->nlive + 1, sizeof(*w->live));
	e = &w->live[w->nlive];
	e->end = a ? LIVE_ON : time;
	e->a = a;
	e->b = b;
	e->process = process;
	buf_init(&e->recs);
	if (a)
		*hmap_put(&w->live_index, a, b, 0, NULL) = w->nlive;
	w->nlive++;
	return e;
}

/* The live thing of key (a, b), made if there is none (NULL for a writer
 * that keeps none). */
static struct live *live_get(struct trace_writer *w, uint64_t a, uint64_t b)
{
	struct live *e = live_find(w, a, b);

	return e ? e : live_new(w, a, b, 0, 0);
}

/* Keys: the kind in the low byte, then the process of a code range. */
static uint64_t live_key(int kind, uint32_t process)
{
	return (uint64_t)process << 8 | (uint64_t)(kind + 1);
}

/* Forgets what was over LIVE_GRACE_NS before horizon. */
static void live_prune(struct trace_writer *w, uint64_t horizon)
{
	size_t k = 0;

	for (size_t i = 0; i < w->nlive; i++) {
		struct live *e = &w->live[i];

		if (e->end != LIVE_ON && e->end < horizon && horizon - e->end > LIVE_GRACE_NS) {
			buf_release(&e->recs);
			continue;
		}
		w->live[k++] = *e;
	}
	if (k == w->nlive)
		return;
	w->nlive = k;
	hmap_release(&w->live_index);
	for (size_t i = 0; i < w->nlive; i++)
		if (w->live[i].end == LIVE_ON)
			*hmap_put(&w->live_index, w->live[i].a, w->live[i].b, 0, NULL) = i;
}

/* Appends to dst the records of what was live at from or after it, in
 * the order it was made. */
static void live_restate(const struct trace_writer *w, struct buf *dst, uint64_t from)
{
	for (size_t i = 0; i < w->nlive; i++) {
		const struct live *e = &w->live[i];

		if (e->end == LIVE_ON || e->end >= from || (e->a && from - e->end <= LIVE_GRACE_NS))
			buf_add(dst, e->recs.data, e->recs.len);
	}
}

/* Keeps w->rec, a record of type, as one of e's. */
static void live_keep(struct trace_writer *w, struct live *e, unsigned type)
{
	put_record(&e->recs, type, &w->rec);
}

/* The bytes a ring holds: its chunks and its stack table. */
static uint64_t ring_memory(const struct trace_writer *w)
{
	return w->ring_bytes + w->ring_nodes.len + w->tree.cap * sizeof(struct hmap_slot);
}

/* Lets go of the oldest chunk, and of the node records that no chunk
 * left can use: those before the tree epoch of the oldest chunk left. */
static void ring_drop_oldest(struct trace_writer *w)
{
	uint32_t epoch;
	struct cursor c;
	size_t gone = 0;

	w->ring_bytes -= w->ring[0].len;
	free(w->ring[0].bytes);
	memmove(w->ring, w->ring + 1, --w->nring * sizeof(*w->ring));
	epoch = w->nring ? w->ring[0].epoch : w->ring_epoch;
	cursor_init(&c, w->ring_nodes.data, w->ring_nodes.len);
	while (c.left) {
		const uint8_t *body;
		uint64_t type, first;
		size_t len;
		struct cursor b;

		if (cursor_uleb(&c, &type) < 0 || cursor_bytes(&c, c.left, &body, &len) < 0)
			break; /* cannot be: put_record() wrote them */
		cursor_init(&b, body, len);
		if (cursor_uleb(&b, &first) < 0 || first >= epoch)
			break;
		gone = (size_t)(c.p - w->ring_nodes.data);
	}
	if (gone) {
		memmove(w->ring_nodes.data, w->ring_nodes.data + gone, w->ring_nodes.len - gone);
		w->ring_nodes.len -= gone;
	}
}

/* Lets go of the chunks older than the window ending at now (the oldest
 * goes once the next one covers the window's start), and of more if the
 * ring is over its cap, and of what was over before them. */
static void ring_trim(struct trace_writer *w, uint64_t now)
{
	while (w->nring > 1 && w->ring[1].first <= now && now - w->ring[1].first >= w->ring_window)
		ring_drop_oldest(w);
	while (w->nring > 1 && ring_memory(w) > w->ring_cap) {
		w->ring_cut += w->ring[0].samples;
		ring_drop_oldest(w);
	}
	if (w->nring)
		live_prune(w, w->ring[0].first);
}

/* A flight recorder's chunk holds samples only: the nodes they add are
 * kept apart for every snapshot, and the rest is live. */
static int ring_flush(struct trace_writer *w)
{
	struct ring_chunk *c;
	int r;

	emit_nodes(w, &w->ring_nodes);
	if (!w->nsamp) {
		chunk_reset(w);
		return 0;
	}
	buf_reset(&w->raw);
	w->sink.nseg = 0;
	emit_samples(w);
	if ((r = trace_sink_encode(&w->sink, TRACE_CHUNK_DATA, &w->raw)) < 0) {
		w->err = r;
		return r;
	}
	w->ring = xgrow(w->ring, &w->cap_ring, w->nring + 1, sizeof(*w->ring));
	c = &w->ring[w->nring++];
	c->len = w->sink.out.len;
	c->bytes = xmalloc(c->len);
	memcpy(c->bytes, w->sink.out.data, c->len);
	c->first = c->last = w->times[0];
	for (uint64_t i = 1; i < w->nsamp; i++) {
		if (w->times[i] < c->first)
			c->first = w->times[i];
		if (w->times[i] > c->last)
			c->last = w->times[i];
	}
	c->samples = w->nsamp;
	c->epoch = w->ring_epoch;
	memcpy(c->counters, w->ring_prev, sizeof(c->counters));
	memcpy(w->ring_prev, w->cum, sizeof(w->ring_prev));
	w->ring_bytes += c->len;
	chunk_reset(w);
	/* Stacks that keep changing would grow the tree past the cap: it is
	 * begun again, and its old nodes go with the last chunk using them. */
	if (w->tree.cap * sizeof(struct hmap_slot) > w->ring_cap / 4) {
		hmap_release(&w->tree);
		w->nlast = 0;
		w->ring_epoch = w->next_node;
	}
	ring_trim(w, w->newest);
	return 0;
}

static int flush(struct trace_writer *w)
{
	int r;

	if (w->err)
		return w->err;
	if (w->ring_window)
		return ring_flush(w);
	if (!w->meta.len && w->next_node == w->first_new && !w->nsamp)
		return 0;
	buf_reset(&w->raw);
	w->sink.nseg = 0;
	buf_add(&w->raw, w->meta.data, w->meta.len);
	emit_nodes(w, &w->raw);
	emit_samples(w);
	r = trace_sink_chunk(&w->sink, TRACE_CHUNK_DATA, &w->raw);
	if (r < 0) {
		/* The chunk is gone, and so are the nodes in it: refuse
		 * everything from here on rather than write samples that
		 * point at them. */
		w->err = r;
		return r;
	}
	chunk_reset(w);
	live_prune(w, w->newest);
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

/* Writes w->rec as a record of type, and keeps it as one of e's if e is
 * not NULL. A ring writes nothing until a snapshot. */
static void meta_record(struct trace_writer *w, unsigned type, struct live *e)
{
	if (!w->ring_window)
		put_record(&w->meta, type, &w->rec);
	if (e)
		live_keep(w, e, type);
}

/* A mark or pause, which a ring keeps until its time has left the
 * window. */
static void event_record(struct trace_writer *w, unsigned type, uint64_t end)
{
	meta_record(w, type, w->ring_window ? live_new(w, 0, 0, 0, end) : NULL);
}

static void session_record(struct trace_writer *w, const struct trace_session *s)
{
	buf_reset(&w->rec);
	buf_addch(&w->rec, s->os);
	buf_addch(&w->rec, s->arch);
	buf_addch(&w->rec, s->mode);
	buf_put_uvarint(&w->rec, s->rate_hz);
	buf_put_uvarint(&w->rec, s->pid);
	buf_put_uvarint(&w->rec, s->start_realtime_ns);
	buf_put_uvarint(&w->rec, s->start_monotonic_ns);
	trace_put_string(&w->rec, s->host ? s->host : "");
	buf_put_uvarint(&w->rec, s->argc);
	for (uint32_t i = 0; i < s->argc; i++)
		trace_put_string(&w->rec, s->argv[i]);
	buf_addch(&w->rec, s->sampler);
	buf_addch(&w->rec, s->kernel);
	buf_addch(&w->rec, s->kernel_paranoid);
	buf_addch(&w->rec, s->priority);
	buf_addch(&w->rec, s->rt_priority);
	buf_addch(&w->rec, s->part_kind);
	buf_put_uvarint(&w->rec, s->recording);
	buf_put_uvarint(&w->rec, s->part);
	buf_put_uvarint(&w->rec, s->window_ns);
}

/* The session of a file of the recording that starts at time. */
static struct trace_session session_at(const struct trace_writer *w, uint64_t time)
{
	struct trace_session s = w->sess;

	if (time > s.start_monotonic_ns) {
		s.start_realtime_ns += time - s.start_monotonic_ns;
		s.start_monotonic_ns = time;
	}
	return s;
}

/* Starts a file on fd that begins at time: the file header and the
 * session go out at once, alone, so a recorder killed in its first
 * second still leaves a trace that loads, or an empty file; then what is
 * live is restated. */
static int file_start(struct trace_writer *w, int fd, const struct trace_session *s)
{
	int r;

	w->sink.fd = fd;
	w->sink.seq = 0;
	w->sink.bytes = 0;
	trace_sink_header(&w->sink, TRACE_MAGIC);
	session_record(w, s);
	buf_reset(&w->meta);
	put_record(&w->meta, TRACE_REC_SESSION, &w->rec);
	if ((r = flush(w)) < 0)
		return r;
	live_restate(w, &w->meta, s->start_monotonic_ns);
	return 0;
}

static int check_session(const struct trace_session *s)
{
	int r;

	if (!s || (s->argc && !s->argv))
		return TRACE_E_USAGE;
	if (s->argc > TRACE_MAX_ARGS)
		return TRACE_E_TOOBIG;
	if ((r = check_string(s->host ? s->host : "")) < 0)
		return r;
	for (uint32_t i = 0; i < s->argc; i++)
		if ((r = check_string(s->argv[i])) < 0)
			return r;
	return 0;
}

/* A writer of session s, writing nothing yet, or NULL with *err set. */
static struct trace_writer *writer_make(const struct trace_session *s, int *err)
{
	struct trace_writer *w;

	if ((*err = check_session(s)) < 0)
		return NULL;
	w = xcalloc(1, sizeof(*w));
	w->next_node = 1;
	w->first_new = 1;
	buf_init(&w->meta);
	buf_init(&w->raw);
	buf_init(&w->rec);
	buf_init(&w->new_parent);
	buf_init(&w->new_addr);
	buf_init(&w->c_tid);
	buf_init(&w->c_state);
	buf_init(&w->c_flags);
	buf_init(&w->ring_nodes);
	hmap_init(&w->tree);
	hmap_init(&w->tid_index);
	hmap_init(&w->live_index);
	w->keep_live = s->part_kind != TRACE_PART_WHOLE;
	w->sess = *s;
	w->sess.host = xstrdup(s->host ? s->host : "");
	w->sess.argv = xcalloc((size_t)s->argc + 1, sizeof(*w->sess.argv));
	for (uint32_t i = 0; i < s->argc; i++)
		w->sess.argv[i] = xstrdup(s->argv[i]);
	session_record(w, s);
	if (w->rec.len > TRACE_MAX_CHUNK / 2) {
		*err = TRACE_E_TOOBIG; /* thousands of huge arguments */
		trace_writer_free(w);
		return NULL;
	}
	return w;
}

int trace_writer_new(int fd, const struct trace_session *s, struct trace_writer **out)
{
	struct trace_writer *w;
	int r;

	*out = NULL;
	if (fd < 0)
		return TRACE_E_USAGE;
	if (!(w = writer_make(s, &r)))
		return r;
	if ((r = trace_sink_init(&w->sink, fd, 0)) < 0 || (r = file_start(w, fd, s)) < 0) {
		trace_writer_free(w);
		return r;
	}
	*out = w;
	return 0;
}

int trace_writer_new_ring(const struct trace_session *s, uint64_t window_ns, uint64_t max_bytes,
			  struct trace_writer **out)
{
	struct trace_writer *w;
	int r;

	*out = NULL;
	if (!window_ns || !max_bytes)
		return TRACE_E_USAGE;
	if (!(w = writer_make(s, &r)))
		return r;
	w->ring_window = window_ns;
	w->ring_cap = max_bytes;
	w->ring_epoch = 1;
	w->sess.part_kind = TRACE_PART_SNAPSHOT;
	w->keep_live = 1;
	w->sess.window_ns = window_ns;
	if ((r = trace_sink_init(&w->sink, -1, 0)) == 0) {
		/* The compressor's workspace grows with the largest chunk it
		 * has seen (2.5 MB for TRACE_CHUNK_TARGET, at level 3), and
		 * the raw chunk's buffer too: both are made their largest
		 * now, so that a large chunk an hour in does not step the
		 * ring's memory up. */
		buf_grow(&w->raw, TRACE_CHUNK_TARGET);
		memset(w->raw.data, 0, TRACE_CHUNK_TARGET);
		w->raw.len = TRACE_CHUNK_TARGET;
		r = trace_sink_encode(&w->sink, TRACE_CHUNK_DATA, &w->raw);
		buf_reset(&w->raw);
	}
	if (r < 0) {
		trace_writer_free(w);
		return r;
	}
	*out = w;
	return 0;
}

int trace_writer_image(struct trace_writer *w, uint32_t process, const struct trace_image *img)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (!process || !img || !img->path || img->ident_len > TRACE_MAX_IDENT)
		return TRACE_E_USAGE;
	if ((r = check_string(img->path)) < 0 || (img->why && (r = check_string(img->why)) < 0))
		return r;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, img->id);
	buf_addch(&w->rec, img->ident_kind);
	buf_put_bytes(&w->rec, img->ident, img->ident_len);
	buf_addch(&w->rec, img->arch);
	trace_put_string(&w->rec, img->path);
	buf_put_uvarint(&w->rec, img->start);
	buf_put_uvarint(&w->rec, img->size);
	buf_put_uvarint(&w->rec, img->file_offset);
	buf_put_uvarint(&w->rec, img->bias);
	buf_put_uvarint(&w->rec, img->time_loaded);
	buf_put_uvarint(&w->rec, process);
	buf_addch(&w->rec, img->source);
	buf_addch(&w->rec, img->flags);
	trace_put_string(&w->rec, img->why ? img->why : "");
	meta_record(w, TRACE_REC_IMAGE, live_new(w, live_key(LIVE_IMAGE, 0), img->id, process, img->time_loaded));
	return maybe_flush(w);
}

/* A record of an id and a time, then a name or a process id, if given,
 * of the live thing (kind, id): of a new one for a start, and ending it
 * for an end. */
static int id_time_record(struct trace_writer *w, unsigned type, int kind, uint32_t id, uint64_t time,
			  const char *name, uint32_t process)
{
	uint64_t key = live_key(kind, 0);
	struct live *e;
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (name && (r = check_string(name)) < 0)
		return r;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, id);
	buf_put_uvarint(&w->rec, time);
	if (name)
		trace_put_string(&w->rec, name);
	if (process)
		buf_put_uvarint(&w->rec, process);
	e = type == TRACE_REC_THREAD_START ? live_new(w, key, id, process, time) : live_get(w, key, id);
	meta_record(w, type, e);
	if (type == TRACE_REC_THREAD_END || type == TRACE_REC_IMAGE_UNLOAD)
		live_end(w, e, time);
	return maybe_flush(w);
}

int trace_writer_image_unload(struct trace_writer *w, uint32_t id, uint64_t time)
{
	return id_time_record(w, TRACE_REC_IMAGE_UNLOAD, LIVE_IMAGE, id, time, NULL, 0);
}

int trace_writer_signal_frame(struct trace_writer *w, uint32_t id, uint64_t start, uint64_t end)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (end <= start)
		return TRACE_E_USAGE;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, id);
	buf_put_uvarint(&w->rec, start);
	buf_put_uvarint(&w->rec, end - start);
	meta_record(w, TRACE_REC_SIGNAL_FRAME, live_get(w, live_key(LIVE_IMAGE, 0), id));
	return maybe_flush(w);
}

int trace_writer_mark(struct trace_writer *w, uint64_t time, int source, const char *name)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (source < TRACE_MARK_UNKNOWN || source > TRACE_MARK_APP || !name || !*name)
		return TRACE_E_USAGE;
	if ((r = check_string(name)) < 0)
		return r;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, time);
	buf_addch(&w->rec, (char)source);
	trace_put_string(&w->rec, name);
	event_record(w, TRACE_REC_MARK, time);
	return maybe_flush(w);
}

int trace_writer_code(struct trace_writer *w, uint32_t process, const struct trace_code *c)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (!process || !c->size || c->start > UINT64_MAX - c->size || !c->name || !*c->name ||
	    c->source > TRACE_CODE_VDSO)
		return TRACE_E_USAGE;
	if ((r = check_string(c->name)) < 0 || (c->file && (r = check_string(c->file)) < 0))
		return r;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, c->time);
	buf_put_uvarint(&w->rec, process);
	buf_put_uvarint(&w->rec, c->start);
	buf_put_uvarint(&w->rec, c->size);
	buf_addch(&w->rec, (char)c->source);
	trace_put_string(&w->rec, c->name);
	trace_put_string(&w->rec, c->file ? c->file : "");
	buf_put_uvarint(&w->rec, c->line);
	/* it replaces the range loaded at its start before */
	meta_record(w, TRACE_REC_CODE, live_new(w, live_key(LIVE_CODE, process), c->start, process, c->time));
	return maybe_flush(w);
}

int trace_writer_pause(struct trace_writer *w, uint64_t start, uint64_t end)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (end < start)
		return TRACE_E_USAGE;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, start);
	buf_put_uvarint(&w->rec, end - start);
	event_record(w, TRACE_REC_PAUSE, end);
	return maybe_flush(w);
}

int trace_writer_thread_start(struct trace_writer *w, uint32_t process, uint32_t tid, uint64_t time)
{
	if (!process)
		return TRACE_E_USAGE;
	return id_time_record(w, TRACE_REC_THREAD_START, LIVE_THREAD, tid, time, NULL, process);
}

int trace_writer_thread_name(struct trace_writer *w, uint32_t tid, uint64_t time, const char *name)
{
	if (!name)
		return TRACE_E_USAGE;
	return id_time_record(w, TRACE_REC_THREAD_NAME, LIVE_THREAD, tid, time, name, 0);
}

int trace_writer_thread_end(struct trace_writer *w, uint32_t tid, uint64_t time)
{
	return id_time_record(w, TRACE_REC_THREAD_END, LIVE_THREAD, tid, time, NULL, 0);
}

int trace_writer_process(struct trace_writer *w, uint32_t id, uint32_t pid, uint32_t parent, uint64_t time)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (!id || id == parent)
		return TRACE_E_USAGE;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, id);
	buf_put_uvarint(&w->rec, pid);
	buf_put_uvarint(&w->rec, parent);
	buf_put_uvarint(&w->rec, time);
	meta_record(w, TRACE_REC_PROCESS, live_get(w, live_key(LIVE_PROCESS, 0), id));
	return maybe_flush(w);
}

int trace_writer_process_exec(struct trace_writer *w, uint32_t id, uint64_t time, uint32_t argc,
			      char *const *argv)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (!id || argc > TRACE_MAX_ARGS || (argc && !argv))
		return TRACE_E_USAGE;
	for (uint32_t i = 0; i < argc; i++)
		if ((r = check_string(argv[i])) < 0)
			return r;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, id);
	buf_put_uvarint(&w->rec, time);
	buf_put_uvarint(&w->rec, argc);
	for (uint32_t i = 0; i < argc; i++)
		trace_put_string(&w->rec, argv[i]);
	if (w->rec.len > TRACE_MAX_CHUNK / 2)
		return TRACE_E_TOOBIG;
	meta_record(w, TRACE_REC_PROCESS_EXEC, live_get(w, live_key(LIVE_PROCESS, 0), id));
	return maybe_flush(w);
}

int trace_writer_process_end(struct trace_writer *w, uint32_t id, uint64_t time, int kind, int32_t status)
{
	struct live *e;
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (!id || kind < TRACE_END_UNTOLD || kind > TRACE_END_OUT_OF_REACH)
		return TRACE_E_USAGE;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, id);
	buf_put_uvarint(&w->rec, time);
	buf_addch(&w->rec, (char)kind);
	buf_put_svarint(&w->rec, kind == TRACE_END_EXITED ? status : 0);
	e = live_get(w, live_key(LIVE_PROCESS, 0), id);
	meta_record(w, TRACE_REC_PROCESS_END, e);
	/* and everything of it: its images, threads and code go with it */
	for (size_t i = 0; i < w->nlive; i++)
		if (w->live[i].end == LIVE_ON && (&w->live[i] == e || w->live[i].process == id))
			live_end(w, &w->live[i], time);
	return maybe_flush(w);
}

/* Returns the node for the stack addrs[0..n) (leaf first), adding any
 * nodes the tree lacks, root side first, to this chunk's new nodes. */
static uint32_t stack_node(struct trace_writer *w, const uint64_t *addrs, size_t n)
{
	uint32_t node = 0;
	uint64_t parent_addr = 0;

	if (n && n == w->nlast && !memcmp(addrs, w->last, n * sizeof(*addrs)))
		return w->last_node;
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
	w->last = xgrow(w->last, &w->cap_last, n ? n : 1, sizeof(*w->last));
	if (n)
		memcpy(w->last, addrs, n * sizeof(*addrs));
	w->nlast = n;
	w->last_node = node;
	return node;
}

/* Returns the chunk-local index of key in one of the record tables. */
static uint32_t tid_index(struct trace_writer *w, uint32_t tid)
{
	int added;
	uint64_t *slot = hmap_put(&w->tid_index, tid, 0, w->ntids, &added);

	if (added) {
		w->tids = xgrow(w->tids, &w->cap_tids, w->ntids + 1, sizeof(*w->tids));
		w->tids[w->ntids++] = tid;
	}
	return (uint32_t)*slot;
}

static uint32_t stack_index(struct trace_writer *w, uint32_t node)
{
	int added;
	uint64_t *slot = hmap_put(&w->stack_index, node, 0, w->nstacks, &added);
	struct stack_entry *e;

	if (added) {
		w->stacks = xgrow(w->stacks, &w->cap_stacks, w->nstacks + 1, sizeof(*w->stacks));
		e = &w->stacks[w->nstacks];
		e->node = node;
		e->count = 0;
		e->first = (uint32_t)w->nstacks++;
	}
	w->stacks[*slot].count++;
	return (uint32_t)*slot;
}

int trace_writer_sample(struct trace_writer *w, uint64_t time, uint32_t tid, uint8_t state,
			uint8_t flags, const uint64_t *addrs, size_t n)
{
	uint32_t node;
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (n && !addrs)
		return TRACE_E_USAGE;
	if (n > WRITER_MAX_DEPTH || (uint64_t)w->next_node + n > UINT32_MAX)
		return TRACE_E_TOOBIG;
	node = stack_node(w, addrs, n);
	w->times = xgrow(w->times, &w->cap_times, w->nsamp + 1, sizeof(*w->times));
	w->times[w->nsamp] = time;
	w->sidx = xgrow(w->sidx, &w->cap_sidx, w->nsamp + 1, sizeof(*w->sidx));
	w->sidx[w->nsamp] = stack_index(w, node);
	buf_put_uvarint(&w->c_tid, tid_index(w, tid));
	buf_addch(&w->c_state, state);
	buf_addch(&w->c_flags, flags);
	w->nsamp++;
	w->samples++;
	w->file_samples++;
	if (time > w->newest)
		w->newest = time;
	return maybe_flush(w);
}

/* Counters a file gives as a value, not a count since its start. */
static int counter_gauge(int i)
{
	return i == TRACE_COUNTER_MAX_SAMPLE_RATE;
}

/* What a file's counters record says of counter i: the count since the
 * file began (since base, for a snapshot), or the value. */
static uint64_t counter_value(const struct trace_writer *w, int i, const uint64_t *base)
{
	return counter_gauge(i) ? w->cum[i] : w->cum[i] - base[i];
}

/* Appends to dst a counters record of what changed from last (updated),
 * counted from base. */
static void counters_record(struct trace_writer *w, struct buf *dst, uint64_t *last, const uint64_t *base)
{
	uint32_t changed = 0;

	for (int i = 0; i < TRACE_COUNTER__COUNT; i++)
		changed += counter_value(w, i, base) != last[i];
	if (!changed)
		return;
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, changed);
	for (int i = 0; i < TRACE_COUNTER__COUNT; i++) {
		uint64_t v = counter_value(w, i, base);

		if (v == last[i])
			continue;
		buf_put_uvarint(&w->rec, (uint64_t)i);
		buf_put_uvarint(&w->rec, v);
		last[i] = v;
	}
	put_record(dst, TRACE_REC_COUNTERS, &w->rec);
}

int trace_writer_counters(struct trace_writer *w, const uint64_t *counters)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (!counters)
		return TRACE_E_USAGE;
	memcpy(w->cum, counters, sizeof(w->cum));
	if (w->ring_window)
		return 0; /* each snapshot says what its window counted */
	counters_record(w, &w->meta, w->counters, w->base);
	return maybe_flush(w);
}

int trace_writer_flush(struct trace_writer *w)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	return flush(w);
}

static void end_record(struct trace_writer *w, struct buf *dst, const struct trace_end *end)
{
	buf_reset(&w->rec);
	buf_put_uvarint(&w->rec, end->time);
	buf_addch(&w->rec, end->has_exit ? 1 : 0);
	buf_put_svarint(&w->rec, end->exit_status);
	put_record(dst, TRACE_REC_END, &w->rec);
}

/* Writes the footer of the file: what it holds, counted. */
static int footer(struct trace_writer *w, uint64_t samples)
{
	uint64_t before = w->sink.bytes;

	buf_reset(&w->raw);
	buf_put_uvarint(&w->raw, w->sink.seq);
	buf_put_uvarint(&w->raw, samples);
	buf_put_uvarint(&w->raw, w->next_node - 1u);
	buf_put_uvarint(&w->raw, before);
	return trace_sink_chunk(&w->sink, TRACE_CHUNK_FOOTER, &w->raw);
}

/* Ends the file: end's record, the last chunk and the footer. */
static int file_finish(struct trace_writer *w, const struct trace_end *end)
{
	int r;

	if (end)
		end_record(w, &w->meta, end);
	if ((r = flush(w)) < 0 || (r = footer(w, w->file_samples)) < 0)
		w->err = r;
	return r;
}

int trace_writer_finish(struct trace_writer *w, const struct trace_end *end)
{
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (w->ring_window)
		return TRACE_E_USAGE;
	if ((r = file_finish(w, end)) < 0)
		return r;
	w->finished = 1;
	return 0;
}

int trace_writer_switch(struct trace_writer *w, int fd, uint64_t time)
{
	struct trace_end end = { .time = time };
	struct trace_session s;
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (w->ring_window || w->sess.part_kind != TRACE_PART_ROTATED || fd < 0)
		return TRACE_E_USAGE;
	if ((r = file_finish(w, &end)) < 0)
		return r;
	w->bytes_before += w->sink.bytes;
	/* The next file counts from here, with a stack table of its own. */
	memcpy(w->base, w->cum, sizeof(w->base));
	memset(w->counters, 0, sizeof(w->counters));
	hmap_release(&w->tree);
	w->next_node = w->first_new = 1;
	w->nlast = 0;
	w->file_samples = 0;
	w->sess.part++;
	s = session_at(w, time);
	if ((r = file_start(w, fd, &s)) < 0)
		w->err = r;
	return r;
}

int trace_writer_snapshot(struct trace_writer *w, int fd, uint64_t now, const struct trace_end *end)
{
	struct trace_session s;
	struct cursor c;
	uint64_t from, samples = 0, last[TRACE_COUNTER__COUNT] = { 0 };
	int r;

	if ((r = usable(w)) < 0)
		return r;
	if (!w->ring_window || fd < 0)
		return TRACE_E_USAGE;
	/* The samples so far join the ring, which lets go of what is older
	 * than the window. */
	if ((r = flush(w)) < 0)
		return r;
	ring_trim(w, now);
	from = w->nring ? w->ring[0].first : now;
	s = session_at(w, from);
	s.part = ++w->snapshots;
	w->sink.fd = fd;
	w->sink.seq = 0;
	w->sink.bytes = 0;
	trace_sink_header(&w->sink, TRACE_MAGIC);
	session_record(w, &s);
	buf_reset(&w->raw);
	put_record(&w->raw, TRACE_REC_SESSION, &w->rec);
	if ((r = trace_sink_chunk(&w->sink, TRACE_CHUNK_DATA, &w->raw)) < 0)
		goto out;
	/* What was live in the window, what it counted, and the stack
	 * table's records, in chunks of about TRACE_CHUNK_TARGET. */
	buf_reset(&w->raw);
	live_restate(w, &w->raw, from);
	counters_record(w, &w->raw, last, w->nring ? w->ring[0].counters : w->ring_prev);
	cursor_init(&c, w->ring_nodes.data, w->ring_nodes.len);
	while (r == 0 && c.left) {
		const uint8_t *rec = c.p, *body;
		uint64_t type;
		size_t len;

		if (cursor_uleb(&c, &type) < 0 || cursor_bytes(&c, c.left, &body, &len) < 0)
			break; /* cannot be: put_record() wrote them */
		buf_add(&w->raw, rec, (size_t)(c.p - rec));
		if (w->raw.len >= TRACE_CHUNK_TARGET) {
			r = trace_sink_chunk(&w->sink, TRACE_CHUNK_DATA, &w->raw);
			buf_reset(&w->raw);
		}
	}
	if (r == 0 && w->raw.len)
		r = trace_sink_chunk(&w->sink, TRACE_CHUNK_DATA, &w->raw);
	for (size_t i = 0; r == 0 && i < w->nring; i++) {
		r = trace_sink_copy(&w->sink, w->ring[i].bytes, w->ring[i].len);
		samples += w->ring[i].samples;
	}
	if (r == 0 && end) {
		buf_reset(&w->raw);
		end_record(w, &w->raw, end);
		r = trace_sink_chunk(&w->sink, TRACE_CHUNK_DATA, &w->raw);
	}
	if (r == 0)
		r = footer(w, samples);
out:
	/* A snapshot that failed leaves the ring as it was. */
	w->sink.fd = -1;
	w->sink.header_staged = 0;
	return r;
}

void trace_writer_ring_stats(const struct trace_writer *w, struct trace_ring_stats *rs)
{
	memset(rs, 0, sizeof(*rs));
	if (!w || !w->ring_window)
		return;
	rs->bytes = ring_memory(w);
	rs->cut = w->ring_cut;
	rs->snapshots = w->snapshots;
	if (w->nring) {
		rs->from = w->ring[0].first;
		rs->to = w->ring[w->nring - 1].last;
	}
	for (size_t i = 0; i < w->nring; i++)
		rs->samples += w->ring[i].samples;
}

uint64_t trace_writer_bytes(const struct trace_writer *w)
{
	return w ? w->bytes_before + (w->ring_window ? 0 : w->sink.bytes) : 0;
}

uint64_t trace_writer_file_bytes(const struct trace_writer *w)
{
	return w && !w->ring_window ? w->sink.bytes : 0;
}

int trace_writer_fd(const struct trace_writer *w)
{
	return w ? w->sink.fd : -1;
}

uint64_t trace_writer_samples(const struct trace_writer *w)
{
	return w ? w->samples : 0;
}

void trace_writer_free(struct trace_writer *w)
{
	if (!w)
		return;
	trace_sink_release(&w->sink);
	buf_release(&w->meta);
	buf_release(&w->raw);
	buf_release(&w->rec);
	buf_release(&w->new_parent);
	buf_release(&w->new_addr);
	free(w->times);
	free(w->deltas);
	buf_release(&w->c_tid);
	buf_release(&w->c_state);
	buf_release(&w->c_flags);
	hmap_release(&w->tree);
	free(w->last);
	hmap_release(&w->tid_index);
	hmap_release(&w->stack_index);
	free(w->tids);
	free(w->stacks);
	free(w->order);
	free(w->sidx);
	for (size_t i = 0; i < w->nlive; i++)
		buf_release(&w->live[i].recs);
	free(w->live);
	hmap_release(&w->live_index);
	for (size_t i = 0; i < w->nring; i++)
		free(w->ring[i].bytes);
	free(w->ring);
	buf_release(&w->ring_nodes);
	free(w->sess.host);
	for (uint32_t i = 0; i < w->sess.argc; i++)
		free(w->sess.argv[i]);
	free(w->sess.argv);
	free(w);
}
