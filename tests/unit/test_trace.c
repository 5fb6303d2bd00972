/*
 * test_trace.c: the trace container, written and read back, and the reader
 * fed every kind of damage a trace meets: cut at every byte, bytes flipped,
 * chunks it does not know, versions from the future, lengths that lie.
 *
 * Traces are written to a memfd, so the writer's real write(2) path runs,
 * then loaded from memory. Hand-made chunks follow man/prof-trace.5 to the
 * byte, which keeps the page honest.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include "common/buf.h"
#include "common/bytes.h"
#include "common/hmap.h"
#include "format/trace.h"
#include "format/trace_chunk.h"
#include "format/trace_ident.h"
#include "blob.h"

/* --- helpers ------------------------------------------------------------ */

static struct trace_session test_session(void)
{
	static char *argv[] = { "./demo", "--threads", "4", "" };
	struct trace_session s = { 0 };
	s.os = TRACE_OS_LINUX;
	s.arch = TRACE_ARCH_X86_64;
	s.mode = TRACE_MODE_WALL;
	s.rate_hz = 997;
	s.pid = 4242;
	s.start_realtime_ns = 1764710000123456789ull;
	s.start_monotonic_ns = 5000000000ull;
	s.host = "Linux 6.1.0 x86_64";
	s.argc = 4;
	s.argv = argv;
	s.sampler = TRACE_SAMPLER_PERF;
	s.kernel = TRACE_KERNEL_REFUSED;
	s.kernel_paranoid = 2;
	return s;
}

static struct trace_writer *open_writer(int fd)
{
	struct trace_session s = test_session();
	struct trace_writer *w;
	cr_assert_eq(trace_writer_new(fd, &s, &w), 0);
	return w;
}

static struct trace *load(struct blob b)
{
	struct trace *t;
	int r = trace_load_mem(b.p, b.n, &t);
	cr_assert_eq(r, 0, "load: %s", prof_strerror(r));
	return t;
}

/* Everything a report could see in a trace, as bytes, so two traces can be
 * compared whole. Node ids are resolved to address lists. */
static void digest(const struct trace *t, struct buf *d)
{
	uint64_t addrs[256];

	buf_addf(d, "s %u %u %u %u %u %llu %llu [%s]", t->session.os, t->session.arch,
		 t->session.mode, t->session.rate_hz, t->session.pid,
		 (unsigned long long)t->session.start_realtime_ns,
		 (unsigned long long)t->session.start_monotonic_ns, t->session.host);
	for (uint32_t i = 0; i < t->session.argc; i++)
		buf_addf(d, " [%s]", t->session.argv[i]);
	buf_addf(d, " %u %u %u", t->session.sampler, t->session.kernel, t->session.kernel_paranoid);
	for (size_t i = 0; i < t->nprocesses; i++) {
		const struct trace_process *p = &t->processes[i];
		buf_addf(d, "\np %u %u %u %llu %llu %d %d", p->id, p->pid, p->parent,
			 (unsigned long long)p->time_start, (unsigned long long)p->time_end, p->has_exit,
			 p->exit_status);
		for (size_t j = 0; j < p->nexecs; j++) {
			buf_addf(d, " %llu:", (unsigned long long)p->execs[j].time);
			for (uint32_t k = 0; k < p->execs[j].argc; k++)
				buf_addf(d, "[%s]", p->execs[j].argv[k]);
		}
	}
	for (size_t i = 0; i < t->nimages; i++) {
		const struct trace_image *m = &t->images[i];
		buf_addf(d, "\ni %u %u %u %u %u [%s] %llx %llx %llx %llx %llu %llu ", m->id, m->process,
			 m->ident_kind, m->ident_len, m->arch, m->path,
			 (unsigned long long)m->start, (unsigned long long)m->size,
			 (unsigned long long)m->file_offset, (unsigned long long)m->bias,
			 (unsigned long long)m->time_loaded, (unsigned long long)m->time_unloaded);
		for (int j = 0; j < m->ident_len; j++)
			buf_addf(d, "%02x", m->ident[j]);
	}
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct trace_thread *th = &t->threads[i];
		buf_addf(d, "\nt %u %u %llu %llu", th->tid, th->process, (unsigned long long)th->time_start,
			 (unsigned long long)th->time_end);
		for (size_t j = 0; j < th->nnames; j++)
			buf_addf(d, " %llu:[%s]", (unsigned long long)th->names[j].time,
				 th->names[j].name);
	}
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct trace_sample *s = &t->samples[i];
		size_t n = trace_stack(t, s->stack, addrs, 256);
		buf_addf(d, "\nx %llu %u %u %u", (unsigned long long)s->time, s->tid, s->state,
			 s->flags);
		for (size_t j = 0; j < n && j < 256; j++)
			buf_addf(d, " %llx", (unsigned long long)addrs[j]);
	}
	buf_addf(d, "\nc");
	for (int i = 0; i < TRACE_COUNTER__COUNT; i++)
		buf_addf(d, " %llu", (unsigned long long)t->counters[i]);
	if (t->has_end)
		buf_addf(d, "\ne %llu %d %d", (unsigned long long)t->end.time, t->end.has_exit,
			 t->end.exit_status);
}

static char *digest_str(const struct trace *t)
{
	struct buf d;
	buf_init(&d);
	digest(t, &d);
	return buf_detach(&d);
}

/* The only loss t lists, checked against what is expected of it. */
static const struct trace_loss *only_loss(const struct trace *t, int kind, uint32_t seq,
					  uint32_t nseq, const char *what)
{
	const struct trace_loss *l;

	cr_assert_eq(t->status.nlosses, 1, "%s: %zu losses", what, t->status.nlosses);
	l = &t->status.losses[0];
	cr_assert_eq(l->kind, kind, "%s: kind %d", what, l->kind);
	cr_assert_eq(l->seq, seq, "%s: chunk %u, not %u", what, l->seq, seq);
	cr_assert_eq(l->nseq, nseq, "%s: %u chunks, not %u", what, l->nseq, nseq);
	return l;
}

/* That t read back whole, as its writer finished it. */
static void assert_whole(const struct trace *t)
{
	const struct trace_load_status *st = &t->status;

	cr_assert_eq(st->nlosses, 0);
	cr_assert_eq(st->chunks_missing + st->chunks_damaged + st->bytes_damaged + st->bytes_cut, 0);
	cr_assert_eq(st->samples_dropped + st->samples_missing, 0);
	cr_assert(st->has_footer);
	cr_assert(st->complete);
	cr_assert(st->ends_whole);
}

/* A deterministic generator, so every "random" trace is the same trace. */
static uint64_t rng_state;
static uint64_t rng(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return rng_state >> 33;
}

/* Stack k of a family of depth-`depth` stacks sharing their root side, the
 * way real call stacks do: main, run, then branches. Leaf first. */
static size_t make_stack(uint64_t *out, unsigned k, size_t depth)
{
	for (size_t i = 0; i < depth; i++) {
		size_t level = depth - 1 - i; /* 0 is the outermost frame */
		uint64_t fn = level < 3 ? level : level * 31 + (k % (level + 1)) * 7 + k / 5;
		out[i] = 0x55d0c0de1000ull + fn * 0x1c4 + (level * 13 % 7);
	}
	return depth;
}

/* Writes a trace with nchunks data chunks after the session chunk, and a
 * footer if finish is set, and records where each chunk ends (chunk k
 * ends at ends[k]) and how many samples precede that end. */
struct multi {
	struct blob b;
	size_t nends;
	uint64_t ends[16];
	size_t samples_at[16];
	uint64_t times[1024]; /* of the samples, in order */
	char *whole; /* digest of the full trace */
};

static struct multi write_multi(int nchunks, int per_chunk, int finish)
{
	struct multi m = { 0 };
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	uint64_t addrs[16], counters[TRACE_COUNTER__COUNT] = { 0 };
	uint64_t time = 6000000000ull;
	size_t samples = 0;
	struct trace *t;

	m.ends[m.nends] = trace_writer_bytes(w);
	m.samples_at[m.nends++] = 0;
	rng_state = 7;
	for (int c = 0; c < nchunks; c++) {
		char name[32];
		snprintf(name, sizeof(name), "worker-%d", c);
		cr_assert_eq(trace_writer_thread_start(w, 1, 100 + c, time), 0);
		cr_assert_eq(trace_writer_thread_name(w, 100 + c, time, name), 0);
		for (int i = 0; i < per_chunk; i++) {
			size_t n = make_stack(addrs, (unsigned)rng() % 12, 4 + rng() % 6);
			time += 1003000 + rng() % 40000 - 20000;
			cr_assert_eq(trace_writer_sample(w, time, 100 + (uint32_t)(rng() % (c + 1)),
							 TRACE_STATE_RUNNING, 0, addrs, n), 0);
			cr_assert_lt(samples, 1024);
			m.times[samples++] = time;
		}
		counters[TRACE_COUNTER_STOP_END] = samples;
		cr_assert_eq(trace_writer_counters(w, counters), 0);
		cr_assert_eq(trace_writer_flush(w), 0);
		m.ends[m.nends] = trace_writer_bytes(w);
		m.samples_at[m.nends++] = samples;
	}
	if (finish) {
		cr_assert_eq(trace_writer_finish(w, NULL), 0);
		m.ends[m.nends] = trace_writer_bytes(w);
		m.samples_at[m.nends++] = samples;
	}
	trace_writer_free(w);
	m.b = fd_bytes(fd);
	close(fd);
	t = load(m.b);
	m.whole = digest_str(t);
	trace_free(t);
	return m;
}

static void free_multi(struct multi *m)
{
	free(m->b.p);
	free(m->whole);
}

/* Builds a chunk by hand from the layout in man/prof-trace.5. */
static void put_chunk(struct buf *out, uint16_t type, uint32_t seq, const void *raw, size_t n)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t bound = ZSTD_compressBound(n), clen;
	uint8_t *frame = malloc(bound), h[24];

	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
	clen = ZSTD_compress2(cc, frame, bound, raw, n);
	cr_assert(!ZSTD_isError(clen));
	memcpy(h, "\xd7PCK", 4);
	put_le16(h + 4, type);
	put_le16(h + 6, 0);
	put_le32(h + 8, seq);
	put_le32(h + 12, (uint32_t)n);
	put_le32(h + 16, (uint32_t)clen);
	put_le32(h + 20, XXH32(h, 20, 0));
	buf_add(out, h, 24);
	buf_add(out, frame, clen);
	free(frame);
	ZSTD_freeCCtx(cc);
}

static void put_header(struct buf *out, uint16_t major, uint16_t minor)
{
	uint8_t h[16];
	memcpy(h, "\x89PROF\r\n\x1a", 8);
	put_le16(h + 8, major);
	put_le16(h + 10, minor);
	put_le32(h + 12, XXH32(h, 12, 0));
	buf_add(out, h, 16);
}

static void rec(struct buf *raw, unsigned type, const struct buf *payload)
{
	buf_put_uvarint(raw, type);
	buf_put_bytes(raw, payload->data, payload->len);
}

/* A minimal session record payload. */
static void session_payload(struct buf *p)
{
	buf_addch(p, TRACE_OS_LINUX);
	buf_addch(p, TRACE_ARCH_ARM64);
	buf_addch(p, TRACE_MODE_CPU);
	buf_put_uvarint(p, 100);
	buf_put_uvarint(p, 7);
	buf_put_uvarint(p, 1);
	buf_put_uvarint(p, 2);
	buf_put_bytes(p, "host", 4);
	buf_put_uvarint(p, 1);
	buf_put_bytes(p, "prog", 4);
}

/* A header plus a session chunk, built by hand. */
static void hand_trace(struct buf *out, uint16_t major, uint16_t minor)
{
	struct buf raw, p;
	buf_init(&raw);
	buf_init(&p);
	put_header(out, major, minor);
	session_payload(&p);
	rec(&raw, 1, &p);
	put_chunk(out, 1, 0, raw.data, raw.len);
	buf_release(&raw);
	buf_release(&p);
}

/* --- trace_writer ------------------------------------------------------- */

Test(trace_writer, round_trip_every_record)
{
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	struct trace_image img = { 0 }, img2 = { 0 };
	uint64_t a1[] = { 0x401234, 0x401100, 0x400f00 };          /* leaf first */
	uint64_t a2[] = { 0x7f0000012345, 0x401100, 0x400f00 };     /* shares two */
	uint64_t counters[TRACE_COUNTER__COUNT] = { 0 };
	struct trace_end end = { .time = 9000000000ull, .has_exit = 1, .exit_status = 3 << 8 };
	uint64_t out[8];
	struct trace *t;
	struct blob b;

	img.id = 1;
	img.ident_kind = TRACE_IDENT_GNU_BUILD_ID;
	img.ident_len = 20;
	for (int i = 0; i < 20; i++)
		img.ident[i] = (uint8_t)(0xa0 + i);
	img.arch = TRACE_ARCH_X86_64;
	img.path = "/usr/bin/demo";
	img.start = 0x400000;
	img.size = 0x12000;
	img.file_offset = 0;
	img.bias = 0;
	img.source = TRACE_SOURCE_MAPPED;
	img.flags = TRACE_IMAGE_DELETED | TRACE_IMAGE_ELSEWHERE;
	img2 = img;
	img2.id = 2;
	img2.source = TRACE_SOURCE_UNREAD;
	img2.flags = 0;
	img2.why = "map_files: Operation not permitted; root: not a regular file; path: not a regular file";
	img2.ident_kind = TRACE_IDENT_MACHO_UUID;
	img2.ident_len = 16;
	img2.path = "/usr/lib/libwork.so";
	img2.start = 0x7f0000000000;
	img2.bias = 0xfffffffffffff000ull; /* a "negative" bias */
	img2.time_loaded = 5100000000ull;

	cr_assert_eq(trace_writer_image(w, 1, &img), 0);
	cr_assert_eq(trace_writer_thread_start(w, 1, 4242, 5000000000ull), 0);
	cr_assert_eq(trace_writer_thread_name(w, 4242, 5000000000ull, "demo"), 0);
	cr_assert_eq(trace_writer_sample(w, 5001000000ull, 4242, TRACE_STATE_RUNNING, 0, a1, 3), 0);
	cr_assert_eq(trace_writer_image(w, 1, &img2), 0);
	cr_assert_eq(trace_writer_thread_start(w, 1, 4243, 5001500000ull), 0);
	/* wall mode: two threads at one timestamp, one of them truncated */
	cr_assert_eq(trace_writer_sample(w, 5002000000ull, 4242, TRACE_STATE_SLEEPING, 0, a2, 3), 0);
	cr_assert_eq(trace_writer_sample(w, 5002000000ull, 4243, TRACE_STATE_DISK,
					 TRACE_SAMPLE_TRUNCATED, a1, 3), 0);
	cr_assert_eq(trace_writer_flush(w), 0);
	cr_assert_eq(trace_writer_thread_name(w, 4242, 5003000000ull, "demo-renamed"), 0);
	/* time running backwards between threads is kept as written */
	cr_assert_eq(trace_writer_sample(w, 5002500000ull, 4243, TRACE_STATE_STOPPED, 0, NULL, 0), 0);
	cr_assert_eq(trace_writer_sample(w, 5004000000ull, 4242, TRACE_STATE_OTHER, 0, a1 + 1, 2), 0);
	cr_assert_eq(trace_writer_image_unload(w, 2, 5005000000ull), 0);
	cr_assert_eq(trace_writer_thread_end(w, 4243, 5006000000ull), 0);
	counters[TRACE_COUNTER_SAMPLES_LOST] = 5;
	counters[TRACE_COUNTER_STOP_DEPTH] = 1;
	cr_assert_eq(trace_writer_counters(w, counters), 0);
	counters[TRACE_COUNTER_SAMPLES_LOST] = 9;
	cr_assert_eq(trace_writer_counters(w, counters), 0);
	cr_assert_eq(trace_writer_samples(w), 5);
	cr_assert_eq(trace_writer_finish(w, &end), 0);
	cr_assert_eq(trace_writer_sample(w, 1, 1, 0, 0, NULL, 0), TRACE_E_USAGE);
	trace_writer_free(w);
	b = fd_bytes(fd);
	close(fd);

	t = load(b);
	cr_assert_eq(t->status.major, TRACE_FORMAT_MAJOR);
	cr_assert_eq(t->status.minor, TRACE_FORMAT_MINOR);
	cr_assert_eq(t->status.file_bytes, b.n);
	cr_assert_eq(t->status.chunks, 4); /* session, two data, footer */
	cr_assert_eq(t->status.chunks_skipped, 0);
	cr_assert_eq(t->status.footer_seq, 3);
	cr_assert_eq(t->status.next_seq, 4);
	assert_whole(t);

	cr_assert_eq(t->session.os, TRACE_OS_LINUX);
	cr_assert_eq(t->session.arch, TRACE_ARCH_X86_64);
	cr_assert_eq(t->session.mode, TRACE_MODE_WALL);
	cr_assert_eq(t->session.rate_hz, 997);
	cr_assert_eq(t->session.pid, 4242);
	cr_assert_eq(t->session.start_realtime_ns, 1764710000123456789ull);
	cr_assert_eq(t->session.start_monotonic_ns, 5000000000ull);
	cr_assert_str_eq(t->session.host, "Linux 6.1.0 x86_64");
	cr_assert_eq(t->session.argc, 4);
	cr_assert_str_eq(t->session.argv[0], "./demo");
	cr_assert_str_eq(t->session.argv[2], "4");
	cr_assert_str_eq(t->session.argv[3], "");

	cr_assert_eq(t->nimages, 2);
	cr_assert_eq(t->images[0].id, 1);
	cr_assert_eq(t->images[0].ident_kind, TRACE_IDENT_GNU_BUILD_ID);
	cr_assert_eq(t->images[0].ident_len, 20);
	cr_assert_arr_eq(t->images[0].ident, img.ident, 20);
	cr_assert_str_eq(t->images[0].path, "/usr/bin/demo");
	cr_assert_eq(t->images[0].start, 0x400000);
	cr_assert_eq(t->images[0].size, 0x12000);
	cr_assert_eq(t->images[0].time_unloaded, 0);
	cr_assert_eq(t->images[0].source, TRACE_SOURCE_MAPPED);
	cr_assert_eq(t->images[0].flags, TRACE_IMAGE_DELETED | TRACE_IMAGE_ELSEWHERE);
	cr_assert_null(t->images[0].why);
	cr_assert_eq(t->images[1].source, TRACE_SOURCE_UNREAD);
	cr_assert_str_eq(t->images[1].why, img2.why);
	cr_assert_eq(t->images[1].ident_kind, TRACE_IDENT_MACHO_UUID);
	cr_assert_eq(t->images[1].ident_len, 16);
	cr_assert_eq(t->images[1].bias, 0xfffffffffffff000ull);
	cr_assert_eq(t->images[1].time_loaded, 5100000000ull);
	cr_assert_eq(t->images[1].time_unloaded, 5005000000ull);

	cr_assert_eq(t->nthreads, 2);
	const struct trace_thread *th = trace_thread_find(t, 4242);
	cr_assert_not_null(th);
	cr_assert_eq(th->time_start, 5000000000ull);
	cr_assert_eq(th->time_end, 0);
	cr_assert_eq(th->nnames, 2);
	cr_assert_str_eq(trace_thread_name_at(th, 0), "demo");
	cr_assert_str_eq(trace_thread_name_at(th, 5002999999ull), "demo");
	cr_assert_str_eq(trace_thread_name_at(th, 5003000000ull), "demo-renamed");
	cr_assert_str_eq(trace_thread_name_at(th, UINT64_MAX), "demo-renamed");
	th = trace_thread_find(t, 4243);
	cr_assert_not_null(th);
	cr_assert_eq(th->time_start, 5001500000ull);
	cr_assert_eq(th->time_end, 5006000000ull);
	cr_assert_str_eq(trace_thread_name_at(th, 0), "");
	cr_assert_null(trace_thread_find(t, 1));

	cr_assert_eq(t->nsamples, 5);
	cr_assert_eq(t->nnodes, 5); /* root + 3 + 1 new leaf */
	cr_assert_eq(t->samples[0].time, 5001000000ull);
	cr_assert_eq(t->samples[0].tid, 4242);
	cr_assert_eq(t->samples[0].state, TRACE_STATE_RUNNING);
	cr_assert_eq(trace_stack(t, t->samples[0].stack, out, 8), 3);
	cr_assert_arr_eq(out, a1, sizeof(a1));
	cr_assert_eq(trace_stack(t, t->samples[1].stack, out, 8), 3);
	cr_assert_arr_eq(out, a2, sizeof(a2));
	cr_assert_eq(t->samples[1].state, TRACE_STATE_SLEEPING);
	cr_assert_eq(t->samples[2].time, 5002000000ull);
	cr_assert_eq(t->samples[2].tid, 4243);
	cr_assert_eq(t->samples[2].flags, TRACE_SAMPLE_TRUNCATED);
	cr_assert_eq(t->samples[2].stack, t->samples[0].stack);
	cr_assert_eq(t->samples[3].time, 5002500000ull);
	cr_assert_eq(t->samples[3].stack, 0);
	cr_assert_eq(trace_stack(t, 0, out, 8), 0);
	cr_assert_eq(t->samples[3].state, TRACE_STATE_STOPPED);
	cr_assert_eq(trace_stack(t, t->samples[4].stack, out, 1), 2); /* more than max */
	cr_assert_eq(out[0], a1[1]);
	cr_assert_eq(t->nodes[t->nodes[t->samples[4].stack].parent].parent, 0);

	cr_assert_eq(t->counters[TRACE_COUNTER_SAMPLES_LOST], 9);
	cr_assert_eq(t->counters[TRACE_COUNTER_STOP_DEPTH], 1);
	cr_assert_eq(t->counters[TRACE_COUNTER_STOP_END], 0);
	cr_assert(t->has_end);
	cr_assert_eq(t->end.time, 9000000000ull);
	cr_assert_eq(t->end.has_exit, 1);
	cr_assert_eq(t->end.exit_status, 3 << 8);
	trace_free(t);
	free(b.p);
}

Test(trace_writer, stacks_deduplicated_into_prefix_tree)
{
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	uint64_t a[10], b10[10], out[10];
	struct trace *t;
	struct blob b;

	make_stack(a, 1, 10);
	memcpy(b10, a, sizeof(a));
	b10[0] ^= 0x10; /* another leaf under the same 9 callers */
	for (int i = 0; i < 100; i++)
		cr_assert_eq(trace_writer_sample(w, 1000 + i, 1, 1, 0, i % 2 ? b10 : a, 10), 0);
	cr_assert_eq(trace_writer_flush(w), 0);
	trace_writer_free(w);
	b = fd_bytes(fd);
	close(fd);
	t = load(b);
	cr_assert_eq(t->nnodes, 1 + 10 + 1);
	cr_assert_eq(t->nsamples, 100);
	cr_assert_eq(trace_stack(t, t->samples[1].stack, out, 10), 10);
	cr_assert_arr_eq(out, b10, sizeof(b10));
	cr_assert_eq(t->nodes[t->samples[0].stack].parent, t->nodes[t->samples[1].stack].parent);
	cr_assert(!t->status.has_footer); /* never finished: still loads */
	only_loss(t, TRACE_LOSS_UNFINISHED, 2, 0, "unfinished");
	trace_free(t);
	free(b.p);
}

Test(trace_writer, unchanged_counters_write_nothing)
{
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	uint64_t c[TRACE_COUNTER__COUNT] = { 0 };
	uint64_t before;

	cr_assert_eq(trace_writer_counters(w, c), 0); /* all zero: nothing new */
	cr_assert_eq(trace_writer_flush(w), 0);
	before = trace_writer_bytes(w);
	c[TRACE_COUNTER_STOP_LOOP] = 2;
	cr_assert_eq(trace_writer_counters(w, c), 0);
	cr_assert_eq(trace_writer_flush(w), 0);
	cr_assert_gt(trace_writer_bytes(w), before);
	before = trace_writer_bytes(w);
	cr_assert_eq(trace_writer_counters(w, c), 0);
	cr_assert_eq(trace_writer_flush(w), 0);
	cr_assert_eq(trace_writer_bytes(w), before);
	trace_writer_free(w);
	close(fd);
}

Test(trace_writer, large_chunks_flush_by_themselves)
{
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	uint64_t a[64];
	struct trace *t;
	struct blob b;

	rng_state = 99;
	for (int i = 0; i < 8000; i++) {
		for (int j = 0; j < 64; j++)
			a[j] = rng() << 16 | rng(); /* all new nodes */
		cr_assert_eq(trace_writer_sample(w, (uint64_t)i * 1000, 5, 1, 0, a, 64), 0);
	}
	cr_assert_eq(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	b = fd_bytes(fd);
	close(fd);
	t = load(b);
	cr_assert_gt(t->status.chunks, 4);
	cr_assert_eq(t->nsamples, 8000);
	cr_assert_eq(t->nnodes, 1 + 8000 * 64);
	cr_assert(!t->has_end);
	cr_assert(t->status.has_footer);
	trace_free(t);
	free(b.p);
}

Test(trace_writer, write_error_is_returned_and_sticky)
{
	int fd = new_fd(), full = open("/dev/full", O_WRONLY);
	struct trace_writer *w;
	struct trace_session s = test_session();
	uint64_t a[2] = { 1, 2 };
	struct blob b;
	struct trace *t;

	cr_assert_geq(full, 0);
	cr_assert_eq(trace_writer_new(full, &s, &w), -ENOSPC);
	cr_assert_null(w);
	cr_assert_str_eq(prof_strerror(-ENOSPC), strerror(ENOSPC));

	w = open_writer(fd);
	cr_assert_eq(trace_writer_sample(w, 10, 1, 1, 0, a, 2), 0);
	cr_assert_eq(trace_writer_flush(w), 0);
	cr_assert_eq(trace_writer_sample(w, 20, 1, 1, 0, a, 2), 0);
	/* the disk fills up under the writer */
	cr_assert_geq(dup2(full, fd), 0);
	cr_assert_eq(trace_writer_flush(w), -ENOSPC);
	cr_assert_eq(trace_writer_sample(w, 30, 1, 1, 0, a, 2), -ENOSPC);
	cr_assert_eq(trace_writer_finish(w, NULL), -ENOSPC);
	trace_writer_free(w);
	close(full);
	close(fd);

	/* and a torn final chunk is reported as cut, never read */
	fd = new_fd();
	w = open_writer(fd);
	cr_assert_eq(trace_writer_sample(w, 10, 1, 1, 0, a, 2), 0);
	cr_assert_eq(trace_writer_flush(w), 0);
	trace_writer_free(w);
	b = fd_bytes(fd);
	close(fd);
	t = load((struct blob){ b.p, b.n - 3 });
	cr_assert_eq(t->nsamples, 0);
	cr_assert_eq(t->status.chunks_damaged, 0);
	cr_assert_eq(t->status.bytes_cut, b.n - 3 - only_loss(t, TRACE_LOSS_CUT, 1, 1, "cut")->offset);
	cr_assert_gt(t->status.bytes_cut, 20);
	cr_assert(!t->status.ends_whole);
	trace_free(t);
	free(b.p);
}

/* The file header goes out with the first chunk, in one write: a writer
 * killed, or a disk full, between the two would leave a trace without
 * its session, which no reader can load, where an empty file is plainly
 * nothing recorded. */
Test(trace_writer, header_goes_out_with_the_session)
{
	char path[] = "/tmp/prof-test-XXXXXX";
	int fd = mkstemp(path);
	struct trace_session s = test_session();
	struct trace_writer *w;
	struct trace_sink k;
	struct rlimit lim, old;
	struct buf raw;
	struct blob b;

	cr_assert_geq(fd, 0);
	unlink(path);
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = TRACE_HEADER_LEN + 4;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	cr_assert_eq(trace_writer_new(fd, &s, &w), -EFBIG);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	b = fd_bytes(fd);
	cr_assert_eq(b.n, 0, "a header without its session was left: %zu bytes", b.n);
	free(b.p);

	/* staged until a chunk, or trace_sink_flush(), writes it */
	cr_assert_eq(trace_sink_init(&k, fd, 0), 0);
	trace_sink_header(&k, TRACE_MAGIC);
	b = fd_bytes(fd);
	cr_assert_eq(b.n, 0);
	free(b.p);
	buf_init(&raw);
	buf_add(&raw, "x", 1);
	cr_assert_eq(trace_sink_chunk(&k, TRACE_CHUNK_DATA, &raw), 0);
	b = fd_bytes(fd);
	cr_assert_eq(b.n, k.bytes);
	cr_assert_gt(b.n, TRACE_HEADER_LEN + TRACE_CHUNK_HEADER_LEN);
	cr_assert(memcmp(b.p, TRACE_MAGIC, TRACE_MAGIC_LEN) == 0);
	free(b.p);
	cr_assert_eq(trace_sink_flush(&k), 0, "nothing staged: nothing written");
	cr_assert_eq(k.bytes, (uint64_t)lseek(fd, 0, SEEK_END));
	trace_sink_release(&k);
	buf_release(&raw);

	cr_assert_eq(ftruncate(fd, 0), 0);
	cr_assert_eq(lseek(fd, 0, SEEK_SET), 0);
	cr_assert_eq(trace_sink_init(&k, fd, 0), 0);
	trace_sink_header(&k, TRACE_MAGIC);
	cr_assert_eq(trace_sink_flush(&k), 0);
	cr_assert_eq(k.bytes, TRACE_HEADER_LEN, "a header alone where no chunk follows");
	trace_sink_release(&k);
	close(fd);
}

/* A disk that fills in the middle of a chunk: the file is cut back to the
 * end of its last whole chunk, so nothing half-written is left behind.
 * RLIMIT_FSIZE makes the kernel's short write land at a known size. */
Test(trace_writer, full_disk_leaves_only_whole_chunks)
{
	char path[] = "/tmp/prof-test-XXXXXX";
	int fd = mkstemp(path);
	struct trace_writer *w;
	uint64_t a[64], whole;
	struct rlimit lim;
	struct blob b;
	struct trace *t;
	int r = 0;

	cr_assert_geq(fd, 0);
	unlink(path);
	signal(SIGXFSZ, SIG_IGN);
	w = open_writer(fd);
	for (unsigned i = 0; i < 10; i++)
		cr_assert_eq(trace_writer_sample(w, 10 + i, 1, 1, 0, a, make_stack(a, i, 8)), 0);
	cr_assert_eq(trace_writer_flush(w), 0);
	whole = trace_writer_bytes(w);
	lim.rlim_cur = lim.rlim_max = whole + 1000;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
	/* random stacks do not compress: this chunk is far over the limit */
	for (unsigned i = 0; i < 2000 && r == 0; i++) {
		for (unsigned j = 0; j < 64; j++)
			a[j] = rng();
		r = trace_writer_sample(w, 100 + i, 1, 1, 0, a, 64);
	}
	if (r == 0)
		r = trace_writer_flush(w);
	cr_assert_eq(r, -EFBIG);
	cr_assert_eq(trace_writer_bytes(w), whole);
	trace_writer_free(w);
	b = fd_bytes(fd);
	cr_assert_eq(b.n, whole, "the file is %zu bytes, its whole chunks %llu", b.n,
		     (unsigned long long)whole);
	cr_assert_eq(trace_load_mem(b.p, b.n, &t), 0);
	cr_assert_eq(t->nsamples, 10);
	only_loss(t, TRACE_LOSS_UNFINISHED, 2, 0, "full disk");
	cr_assert_eq(t->status.bytes_cut, 0);
	cr_assert(t->status.ends_whole);
	trace_free(t);
	free(b.p);
	close(fd);
}

Test(trace_writer, bad_arguments_refused)
{
	int fd = new_fd();
	struct trace_session s = test_session();
	struct trace_writer *w;
	char *big = malloc(TRACE_MAX_STRING + 2);

	memset(big, 'x', TRACE_MAX_STRING + 1);
	big[TRACE_MAX_STRING + 1] = 0;
	s.argc = TRACE_MAX_ARGS + 1;
	cr_assert_eq(trace_writer_new(fd, &s, &w), TRACE_E_TOOBIG);
	s = test_session();
	s.host = big;
	cr_assert_eq(trace_writer_new(fd, &s, &w), TRACE_E_TOOBIG);
	cr_assert_eq(trace_writer_new(-1, &s, &w), TRACE_E_USAGE);
	w = open_writer(fd);
	cr_assert_eq(trace_writer_thread_name(w, 1, 1, big), TRACE_E_TOOBIG);
	cr_assert_eq(trace_writer_thread_name(w, 1, 1, NULL), TRACE_E_USAGE);
	cr_assert_eq(trace_writer_sample(w, 1, 1, 1, 0, NULL, 3), TRACE_E_USAGE);
	trace_writer_free(w);
	trace_writer_free(NULL);
	free(big);
	close(fd);
}

/*
 * The compactness target: 5 s of one thread at 997 Hz, about 30 distinct
 * stacks of depth ~10, 1,003,000 ns apart with +-20 us of jitter, flushed
 * every second as the recorder does. Deterministic input, so the bound is
 * a fact about the encoding and not about the machine.
 */
static double bytes_per_sample(int threads, int ticks, uint64_t jitter, double *out_bytes)
{
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	uint64_t stacks[30][12], time = 7000000000ull, counters[TRACE_COUNTER__COUNT] = { 0 };
	size_t depth[30];
	struct trace_end end = { .time = 0, .has_exit = 1 };
	struct trace_image img = { .id = 1, .ident_len = 20, .path = "/usr/bin/workload",
				   .start = 0x55d0c0de0000ull, .size = 0x200000 };
	struct trace *t;
	struct blob b;
	double bps;

	rng_state = 12345;
	for (int k = 0; k < 30; k++)
		depth[k] = make_stack(stacks[k], (unsigned)k, 8 + k % 5);
	cr_assert_eq(trace_writer_image(w, 1, &img), 0);
	for (int th = 0; th < threads; th++) {
		cr_assert_eq(trace_writer_thread_start(w, 1, 1000 + th, time), 0);
		cr_assert_eq(trace_writer_thread_name(w, 1000 + th, time, "workload"), 0);
	}
	for (int i = 0; i < ticks; i++) {
		/* a skew towards a few hot stacks, as a real profile has */
		time += 1003000 + (jitter ? rng() % (2 * jitter + 1) - jitter : 0);
		for (int th = 0; th < threads; th++) {
			unsigned k = (unsigned)(rng() % 30);
			if (rng() % 2)
				k %= 6;
			cr_assert_eq(trace_writer_sample(w, time, 1000 + th,
							 th ? TRACE_STATE_SLEEPING : TRACE_STATE_RUNNING,
							 0, stacks[k], depth[k]), 0);
		}
		if (i % 997 == 996) {
			counters[TRACE_COUNTER_STOP_END] += 997 * threads;
			cr_assert_eq(trace_writer_counters(w, counters), 0);
			cr_assert_eq(trace_writer_flush(w), 0);
		}
	}
	end.time = time;
	cr_assert_eq(trace_writer_finish(w, &end), 0);
	trace_writer_free(w);
	b = fd_bytes(fd);
	close(fd);
	t = load(b);
	cr_assert_eq(t->nsamples, (size_t)threads * ticks);
	trace_free(t);
	bps = (double)b.n / ((double)threads * ticks);
	*out_bytes = (double)b.n;
	free(b.p);
	return bps;
}

Test(trace_writer, steady_workload_under_4_bytes_per_sample)
{
	double bytes, bps = bytes_per_sample(1, 4985, 20000, &bytes);
	cr_log_info("1 thread, 4985 samples, +-20us jitter: %.0f bytes, %.3f bytes/sample", bytes, bps);
	cr_assert_lt(bps, 4.0, "%.3f bytes per sample", bps);
}

Test(trace_writer, wall_mode_many_threads_under_4_bytes_per_sample)
{
	double bytes, bps = bytes_per_sample(8, 4985, 20000, &bytes);
	cr_log_info("8 threads, %d samples, +-20us jitter: %.0f bytes, %.3f bytes/sample", 8 * 4985, bytes, bps);
	cr_assert_lt(bps, 4.0, "%.3f bytes per sample", bps);
}

/* --- trace_reader ------------------------------------------------------- */

/* The chunk of m that holds byte pos (the file header is in none). */
static size_t chunk_at(const struct multi *m, size_t pos)
{
	size_t k = 0;

	while (k + 1 < m->nends && m->ends[k] <= pos)
		k++;
	return k;
}

/* Every cut is a cut: it loses the chunk it falls in, and nothing else. */
Test(trace_reader, cut_at_every_byte)
{
	struct multi m = write_multi(4, 60, 0);
	char *whole = m.whole;

	for (size_t cut = 0; cut <= m.b.n; cut++) {
		struct trace *t = NULL;
		int r = trace_load_mem(m.b.p, cut, &t);
		size_t k = 0;

		if (cut < m.ends[0]) {
			/* not even the session chunk survived */
			cr_assert(r == TRACE_E_MAGIC || r == TRACE_E_EMPTY, "cut %zu: %d", cut, r);
			cr_assert_null(t);
			continue;
		}
		cr_assert_eq(r, 0, "cut %zu: %s", cut, prof_strerror(r));
		while (k + 1 < m.nends && m.ends[k + 1] <= cut)
			k++;
		cr_assert_eq(t->status.chunks, k + 1, "cut %zu", cut);
		cr_assert_eq(t->status.chunks_damaged + t->status.bytes_damaged, 0, "cut %zu", cut);
		cr_assert_eq(t->status.chunks_missing, 0, "cut %zu", cut);
		cr_assert_eq(t->status.bytes_cut, cut - m.ends[k], "cut %zu", cut);
		cr_assert_eq(t->nsamples, m.samples_at[k], "cut %zu", cut);
		cr_assert_eq(t->status.samples_dropped, 0);
		if (cut > m.ends[k]) {
			const struct trace_loss *l = only_loss(t, TRACE_LOSS_CUT, (uint32_t)k + 1, 1, "cut");
			cr_assert_eq(l->offset, m.ends[k]);
			cr_assert_eq(l->bytes, cut - m.ends[k]);
			cr_assert(!t->status.ends_whole);
		} else {
			/* no footer was written: the end is unknown, not cut */
			only_loss(t, TRACE_LOSS_UNFINISHED, (uint32_t)k + 1, 0, "unfinished");
			cr_assert(t->status.ends_whole);
		}
		cr_assert(!t->status.complete);
		if (cut == m.b.n) {
			char *d = digest_str(t);
			cr_assert_str_eq(d, whole);
			free(d);
		}
		trace_free(t);
	}
	free_multi(&m);
}

/* Any damage to a chunk, the last one included, is damage to that chunk,
 * named by its sequence number, and never a cut; the other chunks read. */
Test(trace_reader, flipped_bytes_never_give_wrong_data)
{
	struct multi m = write_multi(3, 40, 1);
	static const uint8_t flips[] = { 0x01, 0x80, 0xff };

	for (size_t pos = 0; pos < m.b.n; pos++) {
		for (size_t f = 0; f < sizeof(flips); f++) {
			struct trace *t = NULL;
			size_t k = chunk_at(&m, pos);
			int r;

			m.b.p[pos] ^= flips[f];
			r = trace_load_mem(m.b.p, m.b.n, &t);
			m.b.p[pos] ^= flips[f];
			if (r < 0) {
				cr_assert_null(t);
				cr_assert(r == TRACE_E_MAGIC || r == TRACE_E_CORRUPT ||
					  r == TRACE_E_EMPTY || r == TRACE_E_MAJOR,
					  "pos %zu: %d", pos, r);
				cr_assert_lt(pos, m.ends[0], "pos %zu: a later chunk broke the load", pos);
				continue;
			}
			cr_assert_eq(t->status.bytes_cut, 0, "pos %zu: damage called a cut", pos);
			cr_assert_eq(t->status.chunks_missing, 0, "pos %zu", pos);
			if (t->status.nlosses == 0) {
				/* only a flip that changed nothing may go unnoticed */
				char *d = digest_str(t);
				cr_assert_str_eq(d, m.whole, "pos %zu flip %02x", pos, flips[f]);
				cr_assert(t->status.complete);
				free(d);
			} else {
				const struct trace_loss *l = only_loss(t, TRACE_LOSS_DAMAGED, (uint32_t)k,
								       1, "flip");
				cr_assert_eq(l->offset, m.ends[k - 1], "pos %zu", pos);
				cr_assert_eq(l->bytes, m.ends[k] - m.ends[k - 1], "pos %zu", pos);
				cr_assert_eq(t->status.chunks_damaged, 1, "pos %zu", pos);
				cr_assert_eq(t->status.chunks, m.nends - 1, "pos %zu", pos);
				cr_assert_leq(t->nsamples, m.samples_at[m.nends - 1]);
				cr_assert(!t->status.complete);
				if (k + 1 == m.nends) /* the footer */
					cr_assert(!t->status.has_footer);
				else
					cr_assert_eq(t->status.samples_missing,
						     m.samples_at[k] - m.samples_at[k - 1]);
			}
			trace_free(t);
		}
	}
	free_multi(&m);
}

/* A chunk taken out of the file, whichever it is, is named missing, with
 * the times of the samples read around it; without chunk 0 there is no
 * session, and nothing can be read. */
Test(trace_reader, every_missing_chunk_named)
{
	struct multi m = write_multi(4, 30, 1);

	for (size_t k = 0; k < m.nends; k++) {
		uint64_t start = k ? m.ends[k - 1] : 16;
		struct buf f;
		struct trace *t = NULL;
		int r;

		buf_init(&f);
		buf_add(&f, m.b.p, start);
		buf_add(&f, m.b.p + m.ends[k], m.b.n - m.ends[k]);
		r = trace_load_mem(f.data, f.len, &t);
		if (k == 0) {
			cr_assert_eq(r, TRACE_E_EMPTY);
			cr_assert_not_null(strstr(prof_strerror(r), "chunk 0"));
			buf_release(&f);
			continue;
		}
		cr_assert_eq(r, 0, "without chunk %zu: %s", k, prof_strerror(r));
		cr_assert(!t->status.complete, "without chunk %zu", k);
		cr_assert_eq(t->nsamples + t->status.samples_dropped,
			     m.samples_at[m.nends - 1] - (m.samples_at[k] - m.samples_at[k - 1]));
		if (k + 1 == m.nends) {
			/* the footer was last: nothing says it is gone */
			only_loss(t, TRACE_LOSS_UNFINISHED, (uint32_t)k, 0, "no footer");
			cr_assert_eq(t->status.chunks_missing, 0);
		} else {
			const struct trace_loss *l = only_loss(t, TRACE_LOSS_MISSING, (uint32_t)k, 1,
							       "missing");
			size_t before = m.samples_at[k - 1], after = m.samples_at[k];

			cr_assert_eq(t->status.chunks_missing, 1);
			cr_assert_eq(l->offset, start);
			cr_assert_eq(l->bytes, 0);
			cr_assert(t->status.has_footer);
			cr_assert_eq(t->status.samples_missing, after - before);
			cr_assert_eq(!!(l->has & TRACE_LOSS_BEFORE), before > 0);
			if (before)
				cr_assert_eq(l->time_before, m.times[before - 1]);
			/* later samples whose stacks the lost chunk defined are
			 * dropped: the first one read after it counts */
			cr_assert_eq(!!(l->has & TRACE_LOSS_AFTER), t->nsamples > before);
			if (t->nsamples > before) {
				cr_assert_eq(l->time_after, t->samples[before].time);
				cr_assert_geq(l->time_after, m.times[after]);
			}
		}
		trace_free(t);
		buf_release(&f);
	}
	free_multi(&m);
}

Test(trace_reader, lost_chunk_drops_only_samples_it_defined)
{
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	uint64_t a[3] = { 0xa1, 0xa2, 0xa3 }, b3[3] = { 0xb1, 0xb2, 0xb3 };
	uint64_t c4[4] = { 0xc0, 0xa1, 0xa2, 0xa3 }, out[4];
	uint64_t mid_start, mid_end;
	struct blob b;
	struct trace *t;

	cr_assert_eq(trace_writer_sample(w, 1, 1, 1, 0, a, 3), 0);
	cr_assert_eq(trace_writer_flush(w), 0);
	mid_start = trace_writer_bytes(w);
	cr_assert_eq(trace_writer_sample(w, 2, 1, 1, 0, b3, 3), 0);  /* new nodes */
	cr_assert_eq(trace_writer_flush(w), 0);
	mid_end = trace_writer_bytes(w);
	cr_assert_eq(trace_writer_sample(w, 3, 1, 1, 0, a, 3), 0);   /* old nodes */
	cr_assert_eq(trace_writer_sample(w, 4, 1, 1, 0, b3, 3), 0);  /* lost nodes */
	cr_assert_eq(trace_writer_sample(w, 5, 1, 1, 0, c4, 4), 0);  /* new under old */
	cr_assert_eq(trace_writer_sample(w, 6, 2, 1, 0, NULL, 0), 0);
	cr_assert_eq(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	b = fd_bytes(fd);
	close(fd);

	b.p[(mid_start + mid_end) / 2] ^= 0x40; /* inside the middle chunk's frame */
	t = load(b);
	only_loss(t, TRACE_LOSS_DAMAGED, 2, 1, "middle chunk");
	cr_assert_eq(t->status.losses[0].damage, TRACE_DAMAGE_CONTENT);
	cr_assert_eq(t->status.losses[0].time_before, 1);
	cr_assert_eq(t->status.losses[0].time_after, 3);
	cr_assert_eq(t->status.samples_dropped, 1);
	cr_assert_eq(t->nsamples, 4);
	cr_assert_eq(t->samples[0].time, 1);
	cr_assert_eq(t->samples[1].time, 3);
	cr_assert_eq(trace_stack(t, t->samples[1].stack, out, 4), 3);
	cr_assert_arr_eq(out, a, sizeof(a));
	cr_assert_eq(t->samples[2].time, 5);
	cr_assert_eq(trace_stack(t, t->samples[2].stack, out, 4), 4);
	cr_assert_arr_eq(out, c4, sizeof(c4));
	cr_assert_eq(t->samples[3].stack, 0);
	cr_assert(t->status.has_footer);
	cr_assert_eq(t->status.samples_missing, 1); /* the one in the lost chunk */
	cr_assert(!t->status.complete);
	trace_free(t);
	free(b.p);
}

Test(trace_reader, garbage_between_chunks_resyncs)
{
	struct multi m = write_multi(2, 30, 1);
	struct buf f;
	struct trace *t;
	const struct trace_loss *l;
	char *d;

	/* a torn chunk header and junk spliced in after the session chunk */
	buf_init(&f);
	buf_add(&f, m.b.p, m.ends[0]);
	buf_add(&f, "\xd7PCK\x01\x00\x00\x00garbage-garbage-garbage", 31);
	buf_add(&f, m.b.p + m.ends[0], m.b.n - m.ends[0]);
	t = load((struct blob){ f.data, f.len });
	l = only_loss(t, TRACE_LOSS_DAMAGED, 1, 0, "garbage");
	cr_assert_eq(l->damage, TRACE_DAMAGE_HEADER);
	cr_assert_eq(l->offset, m.ends[0]);
	cr_assert_eq(l->bytes, 31);
	cr_assert_eq(t->status.chunks_damaged, 0); /* no chunk was lost */
	cr_assert_eq(t->status.bytes_damaged, 31);
	cr_assert_eq(t->status.chunks, m.nends);
	cr_assert_eq(t->status.bytes_cut, 0);
	cr_assert(t->status.has_footer);
	cr_assert(!t->status.complete);
	d = digest_str(t);
	cr_assert_str_eq(d, m.whole);
	free(d);
	trace_free(t);
	buf_release(&f);
	free_multi(&m);
}

/* Damaged headers hide the lengths: the chunks they held are named from
 * the sequence numbers around them. A chunk repeated, or a trace's data
 * after its footer, is damage too, and is not read twice. */
Test(trace_reader, damage_named_by_sequence_numbers)
{
	struct multi m = write_multi(4, 20, 1);
	struct buf f;
	struct trace *t;
	const struct trace_loss *l;
	char *d;

	/* the headers of chunks 2 and 3 */
	buf_init(&f);
	buf_add(&f, m.b.p, m.b.n);
	f.data[m.ends[1] + 20] ^= 1;
	f.data[m.ends[2] + 8] ^= 1;
	t = load((struct blob){ f.data, f.len });
	l = only_loss(t, TRACE_LOSS_DAMAGED, 2, 2, "two headers");
	cr_assert_eq(l->damage, TRACE_DAMAGE_HEADER);
	cr_assert_eq(l->offset, m.ends[1]);
	cr_assert_eq(l->bytes, m.ends[3] - m.ends[1]);
	cr_assert_eq(t->status.chunks_damaged, 2);
	cr_assert_eq(t->nsamples + t->status.samples_dropped,
		     m.samples_at[4] - (m.samples_at[3] - m.samples_at[1]));
	trace_free(t);

	/* chunk 2 written again after chunk 3 */
	buf_reset(&f);
	buf_add(&f, m.b.p, m.ends[3]);
	buf_add(&f, m.b.p + m.ends[1], m.ends[2] - m.ends[1]);
	buf_add(&f, m.b.p + m.ends[3], m.b.n - m.ends[3]);
	t = load((struct blob){ f.data, f.len });
	l = only_loss(t, TRACE_LOSS_DAMAGED, 2, 1, "repeated");
	cr_assert_eq(l->damage, TRACE_DAMAGE_SEQUENCE);
	cr_assert_eq(l->offset, m.ends[3]);
	d = digest_str(t);
	cr_assert_str_eq(d, m.whole);
	free(d);
	cr_assert(!t->status.complete);
	trace_free(t);

	/* a data chunk after the footer: not read */
	buf_reset(&f);
	buf_add(&f, m.b.p, m.b.n);
	buf_add(&f, m.b.p + m.ends[3], m.ends[4] - m.ends[3]);
	put_le32(f.data + m.b.n + 8, (uint32_t)m.nends); /* renumbered, */
	put_le32(f.data + m.b.n + 20, XXH32(f.data + m.b.n, 20, 0)); /* and intact */
	t = load((struct blob){ f.data, f.len });
	l = only_loss(t, TRACE_LOSS_DAMAGED, (uint32_t)m.nends, 1, "after the footer");
	cr_assert_eq(l->damage, TRACE_DAMAGE_AFTER_FOOTER);
	cr_assert(t->status.complete); /* the footer's chunks are all there */
	d = digest_str(t);
	cr_assert_str_eq(d, m.whole);
	free(d);
	trace_free(t);

	/* and the footer again after itself */
	buf_reset(&f);
	buf_add(&f, m.b.p, m.b.n);
	buf_add(&f, m.b.p + m.ends[4], m.b.n - m.ends[4]);
	put_le32(f.data + m.b.n + 8, (uint32_t)m.nends);
	put_le32(f.data + m.b.n + 20, XXH32(f.data + m.b.n, 20, 0));
	t = load((struct blob){ f.data, f.len });
	l = only_loss(t, TRACE_LOSS_DAMAGED, (uint32_t)m.nends, 1, "a second footer");
	cr_assert_eq(l->damage, TRACE_DAMAGE_AFTER_FOOTER);
	cr_assert_eq(l->held, TRACE_HELD_FOOTER);
	trace_free(t);

	/* a chunk whose frame another chunk cuts short: torn, and the next
	 * chunk still reads */
	buf_reset(&f);
	buf_add(&f, m.b.p, m.ends[2] - 10);
	buf_add(&f, m.b.p + m.ends[2], m.b.n - m.ends[2]);
	t = load((struct blob){ f.data, f.len });
	l = only_loss(t, TRACE_LOSS_DAMAGED, 2, 1, "torn");
	cr_assert_eq(l->damage, TRACE_DAMAGE_TORN);
	cr_assert_eq(l->bytes, m.ends[2] - 10 - m.ends[1]);
	cr_assert_eq(t->status.chunks, m.nends - 1);
	trace_free(t);

	/* the last bytes: the start of a chunk header is a cut, other bytes
	 * are damage */
	buf_reset(&f);
	buf_add(&f, m.b.p, m.b.n);
	buf_add(&f, "\xd7PC", 3);
	t = load((struct blob){ f.data, f.len });
	l = only_loss(t, TRACE_LOSS_CUT, (uint32_t)m.nends, 1, "a header's start");
	cr_assert_eq(l->bytes, 3);
	cr_assert(t->status.complete);
	cr_assert(!t->status.ends_whole);
	trace_free(t);
	f.data[f.len - 1] = 'X';
	t = load((struct blob){ f.data, f.len });
	l = only_loss(t, TRACE_LOSS_DAMAGED, (uint32_t)m.nends, 0, "three bytes");
	cr_assert_eq(t->status.bytes_damaged, 3);
	trace_free(t);
	buf_release(&f);
	free_multi(&m);
}

/* A frame that fails its checksums and holds the next intact chunk
 * header was torn, whatever else is wrong with its chunk: a chunk out of
 * sequence is checked as any other, and the chunk after it still reads. */
Test(trace_reader, torn_chunk_out_of_sequence_found)
{
	struct multi m = write_multi(4, 20, 1);
	size_t torn = m.ends[2] - 10 - m.ends[1];
	struct buf f;
	struct trace *t;
	const struct trace_loss *l;
	char *d;

	/* chunk 2 again after chunk 4, its last 10 bytes lost under the
	 * footer: its frame still ends where the header says, inside the
	 * footer */
	buf_init(&f);
	buf_add(&f, m.b.p, m.ends[4]);
	buf_add(&f, m.b.p + m.ends[1], torn);
	buf_add(&f, m.b.p + m.ends[4], m.b.n - m.ends[4]);
	cr_assert_gt(m.b.n - m.ends[4], 10);
	t = load((struct blob){ f.data, f.len });
	l = only_loss(t, TRACE_LOSS_DAMAGED, 2, 1, "torn and out of sequence");
	cr_assert_eq(l->damage, TRACE_DAMAGE_TORN);
	cr_assert_eq(l->offset, m.ends[4]);
	cr_assert_eq(l->bytes, torn);
	cr_assert(t->status.has_footer);
	cr_assert_eq(t->status.chunks, m.nends);
	d = digest_str(t);
	cr_assert_str_eq(d, m.whole);
	free(d);
	trace_free(t);
	buf_release(&f);
	free_multi(&m);
}

/* The first of the two losses of a hand-made trace that has no footer,
 * checked as only_loss() does; the second is that. */
static const struct trace_loss *first_loss(const struct trace *t, int kind, uint32_t seq,
					   uint32_t nseq, const char *what)
{
	const struct trace_loss *l = t->status.losses;

	cr_assert_eq(t->status.nlosses, 2, "%s: %zu losses", what, t->status.nlosses);
	cr_assert_eq(l[1].kind, TRACE_LOSS_UNFINISHED, "%s: ends in kind %d", what, l[1].kind);
	cr_assert_eq(l->kind, kind, "%s: kind %d", what, l->kind);
	cr_assert_eq(l->seq, seq, "%s: chunk %u, not %u", what, l->seq, seq);
	cr_assert_eq(l->nseq, nseq, "%s: %u chunks, not %u", what, l->nseq, nseq);
	return l;
}

/* A frame that passes its checksums is whole, and is skipped whole even
 * when the bytes it holds spell an intact chunk header, as a record's
 * payload may: out of sequence, or with a record that does not parse. */
Test(trace_reader, whole_frame_skipped_whole_whatever_it_holds)
{
	struct buf f, raw, p, name;
	struct trace *t;
	const struct trace_loss *l;
	uint8_t inner[24];
	size_t at, end;

	/* a record of a type no reader knows: noise that zstd cannot
	 * compress, with the intact header of a chunk 7 in the middle */
	memcpy(inner, "\xd7PCK", 4);
	put_le16(inner + 4, 1);
	put_le16(inner + 6, 0);
	put_le32(inner + 8, 7);
	put_le32(inner + 12, 5);
	put_le32(inner + 16, 30);
	put_le32(inner + 20, XXH32(inner, 20, 0));
	buf_init(&f);
	buf_init(&raw);
	buf_init(&p);
	buf_init(&name);
	rng_state = 11;
	for (int i = 0; i < 3000; i++)
		buf_addch(&p, (uint8_t)rng());
	memcpy(p.data + 1500, inner, 24);
	rec(&raw, 200, &p);
	/* and a thread name, to read in the chunk after it */
	buf_reset(&p);
	buf_put_uvarint(&p, 31);
	buf_put_uvarint(&p, 5);
	buf_put_bytes(&p, "main", 4);
	rec(&name, 5, &p);

	/* chunk 1 twice */
	hand_trace(&f, 1, 2);
	put_chunk(&f, 1, 1, raw.data, raw.len);
	at = f.len;
	put_chunk(&f, 1, 1, raw.data, raw.len);
	end = f.len;
	cr_assert_not_null(memmem(f.data + at + 24, end - at - 24, inner, 24),
			   "the frame does not hold the header as it is");
	put_chunk(&f, 1, 2, name.data, name.len);
	t = load((struct blob){ f.data, f.len });
	l = first_loss(t, TRACE_LOSS_DAMAGED, 1, 1, "repeated");
	cr_assert_eq(l->damage, TRACE_DAMAGE_SEQUENCE);
	cr_assert_eq(l->offset, at);
	cr_assert_eq(l->bytes, end - at);
	cr_assert_eq(t->status.chunks, 3);
	cr_assert_str_eq(trace_thread_name_at(trace_thread_find(t, 31), 5), "main");
	trace_free(t);

	/* chunk 1 once, with a nodes record from id 0 after the noise */
	buf_reset(&p);
	buf_put_uvarint(&p, 0);
	buf_put_uvarint(&p, 0);
	rec(&raw, 7, &p);
	buf_reset(&f);
	hand_trace(&f, 1, 2);
	at = f.len;
	put_chunk(&f, 1, 1, raw.data, raw.len);
	end = f.len;
	put_chunk(&f, 1, 2, name.data, name.len);
	t = load((struct blob){ f.data, f.len });
	l = first_loss(t, TRACE_LOSS_DAMAGED, 1, 1, "a record");
	cr_assert_eq(l->damage, TRACE_DAMAGE_RECORD);
	cr_assert_eq(l->bytes, end - at);
	cr_assert_eq(t->status.chunks, 2);
	cr_assert_str_eq(trace_thread_name_at(trace_thread_find(t, 31), 5), "main");
	trace_free(t);
	buf_release(&f);
	buf_release(&raw);
	buf_release(&p);
	buf_release(&name);
}

/* The footer counts what was written before it: chunks, samples, stack
 * nodes, and its own offset. A file that does not match any one of them,
 * with no loss to explain it, is reported; each is checked. */
Test(trace_reader, footer_that_disagrees_reported)
{
	struct multi m = write_multi(2, 20, 1);
	uint64_t at = m.ends[m.nends - 2], truth[4];
	uint32_t seq;
	struct trace *t;
	struct buf f, raw;

	t = load(m.b);
	memcpy(truth, t->status.footer, sizeof(truth));
	seq = t->status.footer_seq;
	cr_assert_eq(truth[0], m.nends - 1);
	cr_assert_eq(truth[1], m.samples_at[m.nends - 1]);
	cr_assert_eq(truth[2], t->nnodes - 1);
	cr_assert_gt(truth[2], 0);
	cr_assert_eq(truth[3], at);
	trace_free(t);
	buf_init(&f);
	buf_init(&raw);
	/* field -1 is none: the footer rebuilt as written */
	for (int k = -1; k < 4; k++) {
		const struct trace_loss *l;

		buf_reset(&f);
		buf_reset(&raw);
		buf_add(&f, m.b.p, at);
		for (int i = 0; i < 4; i++)
			buf_put_uvarint(&raw, truth[i] + (i == k));
		put_chunk(&f, 2, seq, raw.data, raw.len);
		t = load((struct blob){ f.data, f.len });
		if (k < 0) {
			assert_whole(t);
			trace_free(t);
			continue;
		}
		cr_assert(t->status.has_footer, "field %d", k);
		cr_assert(!t->status.complete, "field %d", k);
		l = only_loss(t, TRACE_LOSS_DAMAGED, seq, 0, "footer");
		cr_assert_eq(l->damage, TRACE_DAMAGE_FOOTER, "field %d", k);
		cr_assert_eq(l->held, TRACE_HELD_FOOTER);
		cr_assert_eq(l->offset, at);
		cr_assert_eq(t->status.footer[k], truth[k] + 1);
		trace_free(t);
	}
	buf_release(&f);
	buf_release(&raw);
	free_multi(&m);
}

/* However many losses a hostile file holds, each is counted, and the first
 * TRACE_MAX_LOSSES are listed. */
Test(trace_reader, losses_listed_up_to_a_cap)
{
	struct buf f;
	struct trace *t;
	uint32_t n = TRACE_MAX_LOSSES + 100;

	buf_init(&f);
	hand_trace(&f, 1, 1);
	for (uint32_t i = 1; i <= n; i++) {
		buf_addstr(&f, "junk");
		put_chunk(&f, 77, i, "x", 1);
	}
	t = load((struct blob){ f.data, f.len });
	cr_assert_eq(t->status.chunks_skipped, n);
	cr_assert_eq(t->status.bytes_damaged, 4ull * n);
	cr_assert_eq(t->status.nlosses, TRACE_MAX_LOSSES);
	/* and the end, where no footer came */
	cr_assert_eq(t->status.losses_unlisted, 101);
	trace_free(t);
	buf_release(&f);
}

Test(trace_reader, unknown_chunk_and_record_types_skipped)
{
	struct buf f, raw, p;
	struct trace *t;

	buf_init(&f);
	buf_init(&raw);
	buf_init(&p);
	hand_trace(&f, 1, 0);
	put_chunk(&f, 77, 1, "a chunk from the future", 23);
	/* a data chunk: an unknown record, then a thread name */
	buf_add(&p, "\x01\x02\x03", 3);
	rec(&raw, 200, &p);
	buf_reset(&p);
	buf_put_uvarint(&p, 31);
	buf_put_uvarint(&p, 5);
	buf_put_bytes(&p, "main", 4);
	buf_add(&p, "trailing-field", 14); /* a newer minor may append fields */
	rec(&raw, 5, &p);
	put_chunk(&f, 1, 2, raw.data, raw.len);

	t = load((struct blob){ f.data, f.len });
	cr_assert_eq(t->status.chunks, 2);
	cr_assert_eq(t->status.chunks_skipped, 1);
	only_loss(t, TRACE_LOSS_UNFINISHED, 3, 0, "hand-made");
	cr_assert_str_eq(t->session.host, "host");
	cr_assert_eq(t->session.arch, TRACE_ARCH_ARM64);
	cr_assert_str_eq(t->session.argv[0], "prog");
	cr_assert_str_eq(trace_thread_name_at(trace_thread_find(t, 31), 5), "main");
	trace_free(t);
	buf_release(&f);
	buf_release(&raw);
	buf_release(&p);
}

Test(trace_reader, newer_major_refused_with_upgrade_message)
{
	struct buf f;
	struct trace *t = (struct trace *)1;
	const char *msg;

	buf_init(&f);
	hand_trace(&f, 3, 1);
	cr_assert_eq(trace_load_mem(f.data, f.len, &t), TRACE_E_MAJOR);
	cr_assert_null(t);
	msg = prof_strerror(TRACE_E_MAJOR);
	cr_assert_not_null(strstr(msg, "3.1"), "%s", msg);
	cr_assert_not_null(strstr(msg, "2.x"), "%s", msg);
	cr_assert_not_null(strstr(msg, "upgrade prof"), "%s", msg);
	buf_release(&f);
}

/* Two processes, a parent and its child, with an image each at the same
 * addresses and a thread each: every record of a process reads back, and
 * the same stack in the two names each process's own image. */
Test(trace_writer, processes_read_back_each_with_its_images)
{
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	struct trace_image a = { 0 }, b = { 0 };
	char *sh[] = { "sh", "-c", "./child" }, *child[] = { "./child" };
	uint64_t stack[] = { 0x401010, 0x401000 };
	struct trace *t;
	struct blob bl;

	a.id = 1;
	a.path = "/bin/sh";
	a.start = 0x400000;
	a.size = 0x10000;
	b = a;
	b.id = 2;
	b.path = "/work/child";
	b.time_loaded = 5200;
	cr_assert_eq(trace_writer_process(w, 1, 100, 0, 5000), 0);
	cr_assert_eq(trace_writer_process_exec(w, 1, 5000, 3, sh), 0);
	cr_assert_eq(trace_writer_image(w, 1, &a), 0);
	cr_assert_eq(trace_writer_thread_start(w, 1, 100, 5000), 0);
	cr_assert_eq(trace_writer_process(w, 7, 101, 1, 5100), 0);
	cr_assert_eq(trace_writer_process_exec(w, 7, 5200, 1, child), 0);
	cr_assert_eq(trace_writer_image(w, 7, &b), 0);
	cr_assert_eq(trace_writer_thread_start(w, 7, 101, 5100), 0);
	cr_assert_eq(trace_writer_sample(w, 5300, 100, TRACE_STATE_RUNNING, 0, stack, 2), 0);
	cr_assert_eq(trace_writer_sample(w, 5300, 101, TRACE_STATE_RUNNING, 0, stack, 2), 0);
	cr_assert_eq(trace_writer_process_end(w, 7, 5400, TRACE_END_EXITED, 3 << 8), 0);
	cr_assert_eq(trace_writer_process(w, 8, 102, 1, 5450), 0);
	cr_assert_eq(trace_writer_process_end(w, 8, 5460, TRACE_END_OUT_OF_REACH, 5), 0);
	cr_assert_eq(trace_writer_process_end(w, 8, 5470, 3, 0), TRACE_E_USAGE);
	cr_assert_eq(trace_writer_process(w, 0, 1, 0, 1), TRACE_E_USAGE);
	cr_assert_eq(trace_writer_process(w, 3, 1, 3, 1), TRACE_E_USAGE);
	cr_assert_eq(trace_writer_thread_start(w, 0, 5, 1), TRACE_E_USAGE);
	cr_assert_eq(trace_writer_image(w, 0, &a), TRACE_E_USAGE);
	cr_assert_eq(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	bl = fd_bytes(fd);
	close(fd);

	t = load(bl);
	cr_assert_eq(t->nprocesses, 3);
	cr_assert_eq(t->processes[2].time_end, 5460);
	cr_assert(t->processes[2].out_of_reach);
	cr_assert(!t->processes[2].has_exit);
	cr_assert_eq(t->processes[2].exit_status, 0);
	cr_assert_eq(t->processes[0].id, 1);
	cr_assert_eq(t->processes[0].pid, 100);
	cr_assert_eq(t->processes[0].parent, TRACE_NO_PROCESS);
	cr_assert_eq(t->processes[0].nexecs, 1);
	cr_assert_eq(t->processes[0].execs[0].argc, 3);
	cr_assert_str_eq(t->processes[0].execs[0].argv[2], "./child");
	cr_assert_eq(t->processes[0].time_end, 0);
	cr_assert_eq(t->processes[1].id, 7);
	cr_assert_eq(t->processes[1].pid, 101);
	cr_assert_eq(t->processes[1].parent, 0);
	cr_assert_eq(t->processes[1].time_start, 5100);
	cr_assert_eq(t->processes[1].execs[0].time, 5200);
	cr_assert_str_eq(t->processes[1].execs[0].argv[0], "./child");
	cr_assert_eq(t->processes[1].time_end, 5400);
	cr_assert(t->processes[1].has_exit);
	cr_assert_eq(t->processes[1].exit_status, 3 << 8);
	cr_assert(!t->processes[1].out_of_reach);
	cr_assert_eq(t->images[0].process, 0);
	cr_assert_eq(t->images[1].process, 1);
	cr_assert_eq(trace_thread_find(t, 100)->process, 0);
	cr_assert_eq(trace_thread_find(t, 101)->process, 1);
	cr_assert_eq(t->nsamples, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct trace_sample *smp = &t->samples[i];
		uint32_t proc = trace_sample_process(t, smp);
		struct trace_chain c;
		uint32_t n;

		cr_assert_eq(proc, i, "sample %zu in process %u", i, proc);
		/* every node of its stack names its own process's image */
		for (trace_chain_init(&c, t, smp->stack); trace_chain_next(&c, &n);)
			cr_assert_eq(trace_image_at(t, proc, t->nodes[n].addr, smp->time), (long)i);
	}
	cr_assert_neq(t->samples[0].stack, t->samples[1].stack);
	cr_assert_eq(trace_image_at(t, 0, 0x401000, 5300), 0);
	cr_assert_eq(trace_image_at(t, 1, 0x401000, 5300), 1);
	trace_free(t);
	free(bl.p);
}

/* A 1.x trace is one process, made of its session and end; its images
 * and threads are that process's. */
Test(trace_reader, one_x_trace_is_one_process)
{
	struct buf f, raw, p;
	struct trace *t;

	buf_init(&f);
	buf_init(&raw);
	buf_init(&p);
	put_header(&f, 1, 3);
	session_payload(&p);
	rec(&raw, 1, &p);
	buf_reset(&p);
	buf_put_uvarint(&p, 55);     /* thread-start: tid, time; no process */
	buf_put_uvarint(&p, 9);
	rec(&raw, 4, &p);
	buf_reset(&p);
	buf_put_uvarint(&p, 80);     /* end: exited 0 << 8 */
	buf_addch(&p, 1);
	buf_put_uvarint(&p, 0);
	rec(&raw, 10, &p);
	put_chunk(&f, 1, 0, raw.data, raw.len);
	cr_assert_eq(trace_load_mem(f.data, f.len, &t), 0);
	cr_assert_eq(t->nprocesses, 1);
	cr_assert_eq(t->processes[0].pid, 7);
	cr_assert_eq(t->processes[0].time_start, 2);
	cr_assert_eq(t->processes[0].nexecs, 1);
	cr_assert_str_eq(t->processes[0].execs[0].argv[0], "prog");
	cr_assert(t->processes[0].has_exit);
	cr_assert_eq(t->processes[0].time_end, 80);
	cr_assert_eq(t->threads[0].process, 0);
	trace_free(t);
	buf_release(&f);
	buf_release(&raw);
	buf_release(&p);
}

/* A tid the system gave again, to a thread of another process or after
 * its thread ended, is another thread; a 2.0 process record names no
 * process 0, and a parent that is the process itself is none. */
Test(trace_reader, tid_reused_is_another_thread)
{
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	uint64_t stack[] = { 0x401010 };
	struct trace *t;
	struct blob bl;

	cr_assert_eq(trace_writer_process(w, 1, 100, 0, 10), 0);
	cr_assert_eq(trace_writer_process(w, 2, 200, 1, 10), 0);
	cr_assert_eq(trace_writer_thread_start(w, 1, 300, 10), 0);
	cr_assert_eq(trace_writer_sample(w, 20, 300, TRACE_STATE_RUNNING, 0, stack, 1), 0);
	cr_assert_eq(trace_writer_thread_end(w, 300, 30), 0);
	cr_assert_eq(trace_writer_thread_start(w, 2, 300, 40), 0);   /* another process's */
	cr_assert_eq(trace_writer_sample(w, 50, 300, TRACE_STATE_RUNNING, 0, stack, 1), 0);
	cr_assert_eq(trace_writer_thread_end(w, 300, 60), 0);
	cr_assert_eq(trace_writer_thread_start(w, 2, 300, 70), 0);   /* the same process's, later */
	cr_assert_eq(trace_writer_sample(w, 80, 300, TRACE_STATE_RUNNING, 0, stack, 1), 0);
	cr_assert_eq(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	bl = fd_bytes(fd);
	close(fd);

	t = load(bl);
	cr_assert_eq(t->nthreads, 3);
	cr_assert_eq(t->threads[0].process, 0);
	cr_assert_eq(t->threads[0].time_end, 30);
	cr_assert_eq(t->threads[1].process, 1);
	cr_assert_eq(t->threads[1].time_start, 40);
	cr_assert_eq(t->threads[2].process, 1);
	cr_assert_eq(t->threads[2].time_start, 70);
	for (size_t i = 0; i < 3; i++)
		cr_assert_eq(t->samples[i].thread, i);
	trace_free(t);
	free(bl.p);
}

/* Parents that make a loop are cut where the walk comes back, so the
 * processes are a tree that info can print. */
Test(trace_reader, process_parents_never_loop)
{
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	struct trace *t;
	struct blob bl;

	cr_assert_eq(trace_writer_process(w, 1, 100, 2, 10), 0);
	cr_assert_eq(trace_writer_process(w, 2, 200, 1, 10), 0);
	cr_assert_eq(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	bl = fd_bytes(fd);
	close(fd);
	t = load(bl);
	cr_assert_eq(t->nprocesses, 2);
	cr_assert_eq(t->processes[0].parent, TRACE_NO_PROCESS);
	cr_assert_eq(t->processes[1].parent, 0);
	trace_free(t);
	free(bl.p);
}

Test(trace_reader, process_records_damaged)
{
	static const struct {
		unsigned type;
		uint64_t fields[4];
		size_t n;
		int loads; /* the chunk's records all read */
	} cases[] = {
		{ 11, { 0, 5, 0, 1 }, 4, 0 },   /* process id 0 */
		{ 11, { 1, 5, 0 }, 3, 0 },      /* no time */
		{ 11, { 1, 5, 1, 9 }, 4, 1 },   /* its own parent: none */
		{ 12, { 0, 1, 0 }, 3, 0 },      /* exec of process 0 */
		{ 12, { 1, 1, 5000 }, 3, 0 },   /* argc past the limit */
		{ 13, { 1, 1 }, 2, 0 },         /* end without its exited */
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct buf f, raw, p;
		struct trace *t;

		buf_init(&f);
		buf_init(&raw);
		buf_init(&p);
		put_header(&f, 2, 0);
		session_payload(&p);
		rec(&raw, 1, &p);
		buf_reset(&p);
		for (size_t i = 0; i < cases[k].n; i++)
			buf_put_uvarint(&p, cases[k].fields[i]);
		rec(&raw, cases[k].type, &p);
		put_chunk(&f, 1, 0, raw.data, raw.len);
		cr_assert_eq(trace_load_mem(f.data, f.len, &t), 0, "case %zu", k);
		cr_assert_eq(t->status.chunks_damaged, !cases[k].loads, "case %zu", k);
		cr_assert_geq(t->nprocesses, 1, "case %zu", k);
		if (cases[k].loads)
			cr_assert_eq(t->processes[0].parent, TRACE_NO_PROCESS, "case %zu", k);
		trace_free(t);
		buf_release(&f);
		buf_release(&raw);
		buf_release(&p);
	}
}

Test(trace_writer, session_fields_state_and_flag)
{
	static char *argv[] = { "./a" };
	struct trace_session s = { .os = TRACE_OS_LINUX, .mode = TRACE_MODE_WALL, .argc = 1,
				   .argv = argv };
	uint64_t a[] = { 0x401234, 0x400f00 };
	static const uint8_t kernels[] = { TRACE_KERNEL_UNKNOWN, TRACE_KERNEL_SAMPLED,
					   TRACE_KERNEL_REFUSED, TRACE_KERNEL_NOT_SAMPLED };

	for (int k = 0; k < 4; k++) {
		int fd = new_fd();
		struct trace_writer *w;
		struct trace *t;
		struct blob b;

		s.sampler = (uint8_t)(k % 3);
		s.kernel = kernels[k];
		s.kernel_paranoid = k == 3 ? TRACE_PARANOID_UNKNOWN : (uint8_t)(k + 1);
		s.priority = (uint8_t)k;
		s.rt_priority = (uint8_t)(k * 30);
		cr_assert_eq(trace_writer_new(fd, &s, &w), 0);
		cr_assert_eq(trace_writer_sample(w, 10, 7, TRACE_STATE_PREEMPTED, 0, a, 2), 0);
		cr_assert_eq(trace_writer_sample(w, 20, 7, TRACE_STATE_RUNNING,
						 TRACE_SAMPLE_KERNEL | TRACE_SAMPLE_TRUNCATED, a, 2), 0);
		cr_assert_eq(trace_writer_finish(w, NULL), 0);
		trace_writer_free(w);
		b = fd_bytes(fd);
		close(fd);
		t = load(b);
		cr_assert_eq(t->status.major, TRACE_FORMAT_MAJOR);
		cr_assert_eq(t->status.minor, TRACE_FORMAT_MINOR);
		cr_assert_eq(t->session.sampler, k % 3);
		cr_assert_eq(t->session.priority, k);
		cr_assert_eq(t->session.rt_priority, k * 30);
		cr_assert_eq(t->session.kernel, kernels[k]);
		cr_assert_eq(t->session.kernel_paranoid, k == 3 ? 0xff : k + 1);
		cr_assert_str_eq(t->session.argv[0], "./a");
		cr_assert_eq(t->nsamples, 2);
		cr_assert_eq(t->samples[0].state, TRACE_STATE_PREEMPTED);
		cr_assert_eq(t->samples[0].flags, 0);
		cr_assert_eq(t->samples[1].flags, TRACE_SAMPLE_KERNEL | TRACE_SAMPLE_TRUNCATED);
		trace_free(t);
		free(b.p);
	}
}

Test(trace_reader, session_of_1_1_reads_sampler_and_kernel_unknown)
{
	struct buf f, raw, p;
	struct trace *t;

	buf_init(&f);
	hand_trace(&f, 1, 1); /* a 1.1 session: it ends after argv */
	t = load((struct blob){ f.data, f.len });
	cr_assert_eq(t->session.sampler, TRACE_SAMPLER_UNKNOWN);
	cr_assert_eq(t->session.kernel, TRACE_KERNEL_UNKNOWN);
	cr_assert_eq(t->session.kernel_paranoid, TRACE_PARANOID_UNKNOWN);
	cr_assert_str_eq(t->session.argv[0], "prog");
	trace_free(t);

	/* a newer minor's session: the fields of 1.2, 1.3 and 2.6, then more */
	buf_reset(&f);
	buf_init(&raw);
	buf_init(&p);
	put_header(&f, 1, 3);
	session_payload(&p);
	buf_add(&p, "\x02\x01\x00mo\x01\x07\x02\x00more", 13);
	rec(&raw, 1, &p);
	put_chunk(&f, 1, 0, raw.data, raw.len);
	t = load((struct blob){ f.data, f.len });
	cr_assert_eq(t->session.sampler, TRACE_SAMPLER_PERF);
	cr_assert_eq(t->session.kernel, TRACE_KERNEL_SAMPLED);
	cr_assert_eq(t->session.kernel_paranoid, 0);
	cr_assert_eq(t->session.priority, 'm', "1.3's fields come next");
	cr_assert_eq(t->session.part_kind, TRACE_PART_ROTATED, "then 2.6's");
	cr_assert_eq(t->session.recording, 7);
	cr_assert_eq(t->session.part, 2);
	trace_free(t);

	/* a 1.2 session says nothing of the recorder's priority */
	buf_reset(&f);
	buf_reset(&raw);
	buf_reset(&p);
	put_header(&f, 1, 2);
	session_payload(&p);
	buf_add(&p, "\x02\x01\x00", 3);
	rec(&raw, 1, &p);
	put_chunk(&f, 1, 0, raw.data, raw.len);
	t = load((struct blob){ f.data, f.len });
	cr_assert_eq(t->session.kernel, TRACE_KERNEL_SAMPLED);
	cr_assert_eq(t->session.priority, TRACE_PRIORITY_UNKNOWN);
	cr_assert_eq(t->session.rt_priority, 0);
	trace_free(t);

	/* a session cut inside the 1.3 fields does not parse */
	buf_reset(&f);
	buf_reset(&raw);
	buf_reset(&p);
	put_header(&f, 1, 3);
	session_payload(&p);
	buf_add(&p, "\x02\x01\x00\x02", 4);
	rec(&raw, 1, &p);
	put_chunk(&f, 1, 0, raw.data, raw.len);
	cr_assert_eq(trace_load_mem(f.data, f.len, &t), TRACE_E_EMPTY);

	/* a session cut inside the 1.2 fields does not parse */
	buf_reset(&f);
	buf_reset(&raw);
	buf_reset(&p);
	put_header(&f, 1, 2);
	session_payload(&p);
	buf_add(&p, "\x02\x01", 2);
	rec(&raw, 1, &p);
	put_chunk(&f, 1, 0, raw.data, raw.len);
	cr_assert_eq(trace_load_mem(f.data, f.len, &t), TRACE_E_EMPTY);
	buf_release(&f);
	buf_release(&raw);
	buf_release(&p);
}

Test(trace_reader, newer_minor_read)
{
	struct buf f;
	struct trace *t;

	buf_init(&f);
	hand_trace(&f, 1, 9);
	t = load((struct blob){ f.data, f.len });
	cr_assert_eq(t->status.major, 1);
	cr_assert_eq(t->status.minor, 9);
	cr_assert_eq(t->session.rate_hz, 100);
	trace_free(t);
	buf_release(&f);
}

Test(trace_reader, not_a_trace)
{
	struct trace *t;
	struct buf f;
	char dir[] = "/tmp/test_trace.XXXXXX";

	/* empty, or cut in the magic: a writer stopped before its first chunk */
	cr_assert_eq(trace_load_mem("", 0, &t), TRACE_E_EMPTY);
	cr_assert_eq(trace_load_mem("\x89PRO", 4, &t), TRACE_E_EMPTY);
	cr_assert_eq(trace_load_mem("\x89PRX", 4, &t), TRACE_E_MAGIC);
	cr_assert_eq(trace_load_mem("#!/bin/sh\necho hello\n", 21, &t), TRACE_E_MAGIC);
	cr_assert_eq(trace_load_mem("\x89PROF\r\n\x1a\x01\x00", 10, &t), TRACE_E_EMPTY);
	cr_assert_eq(trace_load("/nonexistent/prof.trace", &t), -ENOENT);
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(trace_load(dir, &t), -EISDIR);
	rmdir(dir);
	cr_assert_eq(trace_load("/dev/null", &t), TRACE_E_EMPTY);

	/* a header with no chunk after it */
	buf_init(&f);
	put_header(&f, 1, 0);
	cr_assert_eq(trace_load_mem(f.data, f.len, &t), TRACE_E_EMPTY);
	f.data[9] ^= 1; /* a flipped header byte: caught by its checksum */
	cr_assert_eq(trace_load_mem(f.data, f.len, &t), TRACE_E_CORRUPT);
	buf_release(&f);
	cr_assert_not_null(strstr(prof_strerror(TRACE_E_MAGIC), "not a prof trace"));
}

Test(trace_reader, load_from_file)
{
	char path[] = "/tmp/test_trace.XXXXXX";
	int fd = mkstemp(path);
	struct trace_writer *w;
	struct trace *t;
	uint64_t a = 0x1234;

	cr_assert_geq(fd, 0);
	w = open_writer(fd);
	cr_assert_eq(trace_writer_sample(w, 1, 1, 1, 0, &a, 1), 0);
	cr_assert_eq(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	close(fd);
	cr_assert_eq(trace_load(path, &t), 0);
	cr_assert_eq(t->nsamples, 1);
	cr_assert_eq(t->status.file_bytes, t->status.file_bytes);
	trace_free(t);
	unlink(path);
}

/* Appends a chunk of this type and sequence number whose header is intact
 * and says raw_len and comp_len, followed by frame_len bytes of frame. */
static void lying_header(struct buf *f, uint16_t type, uint32_t seq, uint32_t raw_len,
			 uint32_t comp_len, const void *frame, size_t frame_len)
{
	uint8_t h[24];

	memcpy(h, "\xd7PCK", 4);
	put_le16(h + 4, type);
	put_le16(h + 6, 0);
	put_le32(h + 8, seq);
	put_le32(h + 12, raw_len);
	put_le32(h + 16, comp_len);
	put_le32(h + 20, XXH32(h, 20, 0));
	buf_add(f, h, 24);
	buf_add(f, frame, frame_len);
}

/* A chunk header with the given lengths after a valid session chunk. */
static void lying_chunk(struct buf *f, uint32_t raw_len, uint32_t comp_len, const void *frame,
			size_t frame_len)
{
	hand_trace(f, 1, 0);
	lying_header(f, 1, 1, raw_len, comp_len, frame, frame_len);
}

Test(trace_reader, absurd_lengths_rejected_before_allocating)
{
	struct buf f;
	struct trace *t;
	uint8_t frame[64] = { 0 };
	size_t flen;

	/* raw length of 4 GiB */
	buf_init(&f);
	lying_chunk(&f, UINT32_MAX, 16, frame, 16);
	t = load((struct blob){ f.data, f.len });
	cr_assert_eq(only_loss(t, TRACE_LOSS_DAMAGED, 1, 1, "4 GiB")->damage, TRACE_DAMAGE_LENGTH);
	cr_assert_eq(t->status.chunks, 1);
	trace_free(t);

	/* compressed length beyond the end of the file: a cut trace */
	buf_reset(&f);
	lying_chunk(&f, 100, 1u << 20, frame, 16);
	t = load((struct blob){ f.data, f.len });
	only_loss(t, TRACE_LOSS_CUT, 1, 1, "beyond the end");
	cr_assert_eq(t->status.chunks_damaged, 0);
	cr_assert_eq(t->status.bytes_cut, 24 + 16);
	trace_free(t);

	/* compressed length past the cap: damaged, whatever follows */
	buf_reset(&f);
	lying_chunk(&f, 100, 1u << 30, frame, 16);
	t = load((struct blob){ f.data, f.len });
	cr_assert_eq(only_loss(t, TRACE_LOSS_DAMAGED, 1, 1, "1 GiB")->damage, TRACE_DAMAGE_LENGTH);
	cr_assert_eq(t->status.bytes_damaged, 24 + 16);
	cr_assert_eq(t->status.bytes_cut, 0);
	trace_free(t);

	/* a frame whose content size (1 GiB) is past the cap, and agrees
	 * with the chunk header */
	put_le32(frame, 0xFD2FB528u);
	frame[4] = 0x04 | 0x80 | 0x20; /* checksum, 4-byte FCS, single segment */
	put_le32(frame + 5, 1u << 30);
	put_le32(frame + 9, 0x00000001u); /* a last, raw, empty block */
	buf_reset(&f);
	lying_chunk(&f, 1u << 30, 17, frame, 17);
	t = load((struct blob){ f.data, f.len });
	cr_assert_eq(only_loss(t, TRACE_LOSS_DAMAGED, 1, 1, "frame")->damage, TRACE_DAMAGE_LENGTH);
	trace_free(t);

	/* a frame that disagrees with the chunk header's raw length */
	flen = ZSTD_compress(frame, sizeof(frame), "hello", 5, 1);
	cr_assert(!ZSTD_isError(flen));
	buf_reset(&f);
	lying_chunk(&f, 4, (uint32_t)flen, frame, flen);
	t = load((struct blob){ f.data, f.len });
	cr_assert_eq(only_loss(t, TRACE_LOSS_DAMAGED, 1, 1, "frame")->damage, TRACE_DAMAGE_FRAME); /* and no checksum flag either */
	trace_free(t);

	/* a huge window and no content size */
	memset(frame, 0, sizeof(frame));
	put_le32(frame, 0xFD2FB528u);
	frame[4] = 0x04;                 /* checksum only: window descriptor follows */
	frame[5] = 0xF8;                 /* exponent 31: a 2 TiB window */
	put_le32(frame + 6, 0x00000001u);
	buf_reset(&f);
	lying_chunk(&f, 0, 13, frame, 13);
	t = load((struct blob){ f.data, f.len });
	cr_assert_eq(only_loss(t, TRACE_LOSS_DAMAGED, 1, 1, "frame")->damage, TRACE_DAMAGE_FRAME);
	trace_free(t);

	/* and a window that large with a small declared size */
	frame[4] = 0x04 | 0x40;          /* checksum, 2-byte FCS */
	frame[5] = 0xF8;
	put_le16(frame + 6, 5 - 256);
	buf_reset(&f);
	lying_chunk(&f, 5, 20, frame, 20);
	t = load((struct blob){ f.data, f.len });
	cr_assert_eq(only_loss(t, TRACE_LOSS_DAMAGED, 1, 1, "frame")->damage, TRACE_DAMAGE_FRAME);
	trace_free(t);
	buf_release(&f);
}

/* The records as man/prof-trace.5 lets a writer write them, built by hand:
 * records before the session, a second session, an image id used twice,
 * an unload of no image, threads without a thread-start first, nodes and
 * samples records at their limits (count 0, repeated table entries,
 * residuals far from the period, values of enumerations and flag bits
 * this reader does not know), two end records, an overlapping nodes
 * record, and a chunk of unknown type whose frame is broken. */
Test(trace_reader, records_read_as_the_page_says)
{
	struct buf f, raw, p;
	struct trace *t;
	const struct trace_thread *th;
	uint64_t times[] = { 100, 90, 200 }, period = 1000000, out[2];
	uint8_t broken[24];

	buf_init(&f);
	buf_init(&raw);
	buf_init(&p);
	put_header(&f, 1, 1);
	/* chunk 0: a thread name, then the session, then another session */
	buf_put_uvarint(&p, 7);
	buf_put_uvarint(&p, 50);
	buf_put_bytes(&p, "late", 4);
	rec(&raw, 5, &p);
	buf_reset(&p);
	session_payload(&p);
	rec(&raw, 1, &p);
	p.data[3] = 55; /* a rate of 55 Hz: ignored */
	rec(&raw, 1, &p);
	put_chunk(&f, 1, 0, raw.data, raw.len);

	/* chunk 1 */
	buf_reset(&raw);
	for (int i = 0; i < 2; i++) {   /* image 5, twice */
		buf_reset(&p);
		buf_put_uvarint(&p, 5);
		buf_addch(&p, TRACE_IDENT_NONE);
		buf_put_bytes(&p, "", 0);
		buf_addch(&p, TRACE_ARCH_X86_64);
		buf_put_bytes(&p, i ? "b" : "a", 1);
		buf_put_uvarint(&p, i ? 0x3000 : 0x1000);
		buf_put_uvarint(&p, 0x1000);
		buf_put_uvarint(&p, 0);
		buf_put_uvarint(&p, 0);
		buf_put_uvarint(&p, 0);
		rec(&raw, 2, &p);
	}
	buf_reset(&p);
	buf_put_uvarint(&p, 5);
	buf_put_uvarint(&p, 300);
	rec(&raw, 3, &p);               /* unloads the second image 5 */
	buf_reset(&p);
	buf_put_uvarint(&p, 9);
	buf_put_uvarint(&p, 10);
	rec(&raw, 3, &p);               /* no image 9: ignored */
	for (int i = 0; i < 2; i++) {   /* two ends: the last counts */
		buf_reset(&p);
		buf_put_uvarint(&p, 7);
		buf_put_uvarint(&p, i ? 950 : 900);
		rec(&raw, 6, &p);
	}
	buf_reset(&p);
	buf_put_uvarint(&p, 7);
	buf_put_uvarint(&p, 40);
	rec(&raw, 4, &p);               /* a start before the first name */
	buf_reset(&p);
	buf_put_uvarint(&p, 7);
	buf_put_uvarint(&p, 20);
	buf_put_bytes(&p, "early", 5);
	rec(&raw, 5, &p);
	buf_reset(&p);
	buf_put_uvarint(&p, 1);
	buf_put_uvarint(&p, 0);
	rec(&raw, 7, &p);               /* no nodes at all */
	buf_reset(&p);
	buf_put_uvarint(&p, 1);
	buf_put_uvarint(&p, 2);
	buf_put_uvarint(&p, 0);
	buf_put_uvarint(&p, 1);
	buf_put_svarint(&p, 0x1100);
	buf_put_svarint(&p, 0x10);
	rec(&raw, 7, &p);               /* node 1 at 0x1100, node 2 at 0x1110 under it */
	buf_reset(&p);
	buf_put_uvarint(&p, 3);
	buf_put_uvarint(&p, 2);
	buf_put_uvarint(&p, 7);
	buf_put_uvarint(&p, 7);         /* tid 7 twice */
	buf_put_uvarint(&p, 3);
	buf_put_svarint(&p, 2);
	buf_put_svarint(&p, -1);
	buf_put_svarint(&p, 1);         /* nodes 2, 1, 2 */
	buf_put_uvarint(&p, times[0]);
	buf_put_svarint(&p, (int64_t)period);
	/* the residuals, encoded as the page tells a writer to */
	for (int byte = 0; byte < 3; byte++) {
		for (int i = 1; i < 3; i++) {
			uint64_t u = times[i] - times[i - 1] - period + 32768;
			if (byte < 2)
				buf_addch(&p, (uint8_t)(u >> (8 * byte)));
			else
				buf_put_svarint(&p, (int64_t)u >> 16);
		}
	}
	buf_add(&p, "\0\1\0", 3);       /* thread column */
	buf_add(&p, "\1\11\2", 3);      /* states: 9 is none this reader knows */
	buf_add(&p, "\0\x80\1", 3);     /* flags: bit 7 is none this reader knows */
	buf_add(&p, "\0\1\2", 3);       /* stack column */
	rec(&raw, 8, &p);
	for (int i = 0; i < 2; i++) {   /* two end records: the last counts */
		buf_reset(&p);
		buf_put_uvarint(&p, i ? 1100 : 1000);
		buf_addch(&p, (uint8_t)i);
		buf_put_svarint(&p, i ? 0 : 77);
		rec(&raw, 10, &p);
	}
	put_chunk(&f, 1, 1, raw.data, raw.len);

	/* chunk 2: nodes that overlap those of chunk 1 */
	buf_reset(&raw);
	buf_reset(&p);
	buf_put_uvarint(&p, 2);
	buf_put_uvarint(&p, 1);
	buf_put_uvarint(&p, 1);
	buf_put_svarint(&p, 4);
	rec(&raw, 7, &p);
	put_chunk(&f, 1, 2, raw.data, raw.len);
	/* chunk 3: an unknown type, its frame no zstd frame */
	memset(broken, 0, sizeof(broken));
	lying_header(&f, 99, 3, 7, sizeof(broken), broken, sizeof(broken));

	t = load((struct blob){ f.data, f.len });
	cr_assert_eq(t->session.rate_hz, 100);
	th = trace_thread_find(t, 7);
	cr_assert_not_null(th);
	cr_assert_eq(th->time_start, 40);
	cr_assert_eq(th->time_end, 950);
	cr_assert_str_eq(trace_thread_name_at(th, 0), "early");
	cr_assert_str_eq(trace_thread_name_at(th, 30), "early");
	cr_assert_str_eq(trace_thread_name_at(th, 60), "late");
	cr_assert_eq(t->nimages, 2);
	cr_assert_eq(t->images[0].time_unloaded, 0);
	cr_assert_eq(t->images[1].time_unloaded, 300);
	cr_assert_eq(t->nsamples, 3);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(t->samples[i].time, times[i], "sample %d", i);
		cr_assert_eq(t->samples[i].tid, 7);
	}
	cr_assert_eq(trace_stack(t, t->samples[0].stack, out, 2), 2);
	cr_assert_eq(out[0], 0x1110);
	cr_assert_eq(out[1], 0x1100);
	cr_assert_eq(trace_stack(t, t->samples[1].stack, out, 2), 1);
	cr_assert_eq(t->samples[2].stack, t->samples[0].stack);
	cr_assert_eq(t->samples[1].state, 9);
	cr_assert_str_eq(trace_state_name(t->samples[1].state), "unknown");
	cr_assert_eq(t->samples[1].flags, 0x80);
	cr_assert_eq(t->samples[2].flags & TRACE_SAMPLE_TRUNCATED, TRACE_SAMPLE_TRUNCATED);
	cr_assert_eq(t->end.time, 1100);
	cr_assert_eq(t->end.has_exit, 1);
	cr_assert_eq(t->status.nlosses, 2);
	cr_assert_eq(t->status.losses[0].damage, TRACE_DAMAGE_RECORD);
	cr_assert_eq(t->status.losses[0].seq, 2);
	cr_assert_eq(t->status.losses[1].damage, TRACE_DAMAGE_FRAME);
	cr_assert_eq(t->status.losses[1].seq, 3);
	cr_assert_eq(t->status.losses[1].held, TRACE_HELD_OTHER);
	trace_free(t);
	buf_release(&f);
	buf_release(&raw);
	buf_release(&p);
}

Test(trace_reader, hostile_records_rejected)
{
	struct buf f, raw, p;
	struct trace *t;

	buf_init(&f);
	buf_init(&raw);
	buf_init(&p);
	hand_trace(&f, 1, 0);
	/* a samples record claiming 2^40 samples */
	buf_put_uvarint(&p, 1ull << 40);
	buf_put_uvarint(&p, 1);
	rec(&raw, 8, &p);
	put_chunk(&f, 1, 1, raw.data, raw.len);
	/* a nodes record starting at id 2^32 - 2 with 5 nodes */
	buf_reset(&raw);
	buf_reset(&p);
	buf_put_uvarint(&p, UINT32_MAX - 1);
	buf_put_uvarint(&p, 5);
	buf_add(&p, "0123456789", 10);
	rec(&raw, 7, &p);
	put_chunk(&f, 1, 2, raw.data, raw.len);
	/* a session with 2^30 arguments (ignored: the first session wins, but
	 * a second one must still not allocate) */
	buf_reset(&raw);
	buf_reset(&p);
	session_payload(&p);
	p.len -= 6;
	buf_put_uvarint(&p, 1u << 30);
	rec(&raw, 1, &p);
	/* two samples pointing at a node that does not exist */
	buf_reset(&p);
	buf_put_uvarint(&p, 2);    /* samples */
	buf_put_uvarint(&p, 1);    /* threads */
	buf_put_uvarint(&p, 77);
	buf_put_uvarint(&p, 1);    /* stacks */
	buf_put_svarint(&p, 999);
	buf_put_uvarint(&p, 100);  /* first time */
	buf_put_svarint(&p, 10);   /* period */
	buf_add(&p, "\0\x80", 2); /* bits 0-7, then 8-15, of the one residual */
	buf_put_svarint(&p, 0);    /* and the rest of it */
	buf_add(&p, "\0\0\1\1\0\0\0\0", 8);
	rec(&raw, 8, &p);
	put_chunk(&f, 1, 3, raw.data, raw.len);

	t = load((struct blob){ f.data, f.len });
	cr_assert_eq(t->status.chunks_damaged, 2);
	cr_assert_eq(t->status.chunks, 2);
	cr_assert_eq(t->status.samples_dropped, 2); /* node 999, twice */
	cr_assert_eq(t->nsamples, 0);
	cr_assert_eq(t->session.argc, 1);
	trace_free(t);
	buf_release(&f);
	buf_release(&raw);
	buf_release(&p);
}

/* The end record's exited is an enumeration: 1 says the target exited,
 * and any value but 1 says nothing of its end. */
Test(trace_reader, end_exited_read_as_an_enumeration)
{
	static const uint8_t exited[] = { 1, 0, 2, 255 };
	struct buf f, raw, p;

	buf_init(&f);
	buf_init(&raw);
	buf_init(&p);
	for (size_t i = 0; i < sizeof(exited); i++) {
		struct trace *t;

		buf_reset(&f);
		buf_reset(&raw);
		buf_reset(&p);
		hand_trace(&f, 1, 2);
		buf_put_uvarint(&p, 1000);
		buf_addch(&p, exited[i]);
		buf_put_svarint(&p, 3 << 8);
		rec(&raw, 10, &p);
		put_chunk(&f, 1, 1, raw.data, raw.len);
		t = load((struct blob){ f.data, f.len });
		cr_assert(t->has_end);
		cr_assert_eq(t->end.time, 1000);
		cr_assert_eq(t->end.has_exit, exited[i] == 1, "exited %u", exited[i]);
		trace_free(t);
	}
	buf_release(&f);
	buf_release(&raw);
	buf_release(&p);
}

/* An identity is a build-id of 2 to 64 bytes or a 16-byte UUID; any other
 * kind or length is read as none, and its bytes are not kept. */
Test(trace_reader, identity_of_another_kind_or_length_is_none)
{
	static const struct { uint8_t kind, len, keep; } ids[] = {
		{ TRACE_IDENT_GNU_BUILD_ID, 20, 1 }, { TRACE_IDENT_GNU_BUILD_ID, 2, 1 },
		{ TRACE_IDENT_GNU_BUILD_ID, 64, 1 }, { TRACE_IDENT_MACHO_UUID, 16, 1 },
		{ TRACE_IDENT_GNU_BUILD_ID, 1, 0 }, { TRACE_IDENT_MACHO_UUID, 8, 0 },
		{ TRACE_IDENT_MACHO_UUID, 20, 0 }, { TRACE_IDENT_NONE, 4, 0 }, { TRACE_IDENT_GO_BUILD_ID, 1, 1 },
		{ TRACE_IDENT_GO_BUILD_ID, 64, 1 }, { TRACE_IDENT_GO_BUILD_ID, 0, 0 },
		{ TRACE_IDENT_CONTENT, TRACE_IDENT_CONTENT_LEN, 1 }, { TRACE_IDENT_CONTENT, 20, 0 },
		{ TRACE_IDENT_CONTENT, 32, 0 }, { 5, 16, 0 },
	};
	const size_t n = sizeof(ids) / sizeof(ids[0]);
	uint8_t bytes[64];
	struct buf f, raw, p;
	struct trace *t;

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(0xa0 + i);
	buf_init(&f);
	buf_init(&raw);
	buf_init(&p);
	hand_trace(&f, 1, 2);
	for (size_t i = 0; i < n; i++) {
		buf_reset(&p);
		buf_put_uvarint(&p, i + 1);
		buf_addch(&p, ids[i].kind);
		buf_put_bytes(&p, bytes, ids[i].len);
		buf_addch(&p, TRACE_ARCH_X86_64);
		buf_put_bytes(&p, "lib", 3);
		buf_put_uvarint(&p, 0x1000 * (i + 1));
		buf_put_uvarint(&p, 0x1000);
		buf_put_uvarint(&p, 0);
		buf_put_uvarint(&p, 0);
		buf_put_uvarint(&p, 0);
		rec(&raw, 2, &p);
	}
	put_chunk(&f, 1, 1, raw.data, raw.len);
	t = load((struct blob){ f.data, f.len });
	cr_assert_eq(t->nimages, n);
	for (size_t i = 0; i < n; i++) {
		const struct trace_image *img = &t->images[i];

		if (ids[i].keep) {
			cr_assert_eq(img->ident_kind, ids[i].kind, "image %zu", i);
			cr_assert_eq(img->ident_len, ids[i].len, "image %zu", i);
			cr_assert_arr_eq(img->ident, bytes, ids[i].len, "image %zu", i);
		} else {
			cr_assert_eq(img->ident_kind, TRACE_IDENT_NONE, "image %zu", i);
			cr_assert_eq(img->ident_len, 0, "image %zu", i);
		}
		cr_assert_eq(img->start, 0x1000 * (i + 1), "image %zu", i);
	}
	trace_free(t);
	buf_release(&f);
	buf_release(&raw);
	buf_release(&p);
}

/* --- images over time ---------------------------------------------------- */

Test(trace_reader, image_at_follows_load_times)
{
	struct trace_image img[4] = {
		{ .id = 1, .start = 0x1000, .size = 0x1000 },                      /* throughout */
		{ .id = 2, .start = 0x10000, .size = 0x1000, .time_unloaded = 500 },
		{ .id = 3, .start = 0x10000, .size = 0x1000, .time_loaded = 520, .time_unloaded = 900 },
		{ .id = 4, .start = 0x10800, .size = 0x100, .time_loaded = 600 },  /* over part of 3 */
	};
	struct trace t = { .nimages = 4, .images = img };

	cr_assert_eq(trace_image_at(&t, 0, 0x1fff, 12345), 0);
	cr_assert_eq(trace_image_at(&t, 0, 0x2000, 0), -1);
	cr_assert_eq(trace_image_at(&t, 0, 0x10010, 499), 1);
	cr_assert_eq(trace_image_at(&t, 0, 0x10010, 500), 2); /* none loaded: the next one */
	cr_assert_eq(trace_image_at(&t, 0, 0x10010, 520), 2);
	cr_assert_eq(trace_image_at(&t, 0, 0x10810, 599), 2);
	cr_assert_eq(trace_image_at(&t, 0, 0x10810, 600), 3); /* the later mapping */
	cr_assert_eq(trace_image_at(&t, 0, 0x10810, 100), 1);
	cr_assert_eq(trace_image_at(&t, 0, 0x10010, 900), -1); /* unloaded, none after */
	cr_assert_eq(trace_image_at(&t, 0, 0x10810, 900), 3);
}

/* Of images loaded at one time over one address, the one whose image
 * record comes last in the file wins, loaded at the sample's time or
 * soonest after it; two present from the start are loaded at one time. */
Test(trace_reader, image_at_same_load_time_takes_the_last_record)
{
	struct trace_image img[5] = {
		{ .id = 1, .start = 0x1000, .size = 0x1000 },
		{ .id = 2, .start = 0x1000, .size = 0x1000 },
		{ .id = 3, .start = 0x1800, .size = 0x1000, .time_loaded = 700 },
		{ .id = 4, .start = 0x1800, .size = 0x1000, .time_loaded = 700 },
		{ .id = 5, .start = 0x1800, .size = 0x800, .time_loaded = 700 },
	};
	struct trace t = { .nimages = 5, .images = img };

	cr_assert_eq(trace_image_at(&t, 0, 0x1100, 50), 1);   /* the second of two */
	cr_assert_eq(trace_image_at(&t, 0, 0x1900, 50), 1);
	cr_assert_eq(trace_image_at(&t, 0, 0x1900, 700), 4);  /* the third of three */
	cr_assert_eq(trace_image_at(&t, 0, 0x2100, 700), 3);  /* the second of two */
	cr_assert_eq(trace_image_at(&t, 0, 0x2100, 50), 3);   /* and the next, the same */
	img[0].time_unloaded = img[1].time_unloaded = 100;
	cr_assert_eq(trace_image_at(&t, 0, 0x1900, 200), 4);
}

/* A writer that keeps its nodes across an unload and a load at the same
 * address: the reader copies them, so that each sample's frames name the
 * image of its time, and every sample of a node sees the same images. */
Test(trace_reader, nodes_split_where_an_image_is_replaced)
{
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	struct trace_image exe = { .id = 1, .path = "app", .start = 0x1000, .size = 0x1000 };
	struct trace_image a = { .id = 2, .path = "liba.so", .start = 0x10000, .size = 0x1000 };
	struct trace_image b = { .id = 3, .path = "libb.so", .start = 0x10000, .size = 0x1000,
				 .time_loaded = 500 };
	uint64_t s1[] = { 0x10100, 0x10200, 0x1100 }, s2[] = { 0x10300, 0x10200, 0x1100 };
	uint64_t s3[] = { 0x1100 }, times[] = { 100, 200, 600, 650, 700, 2000 }, out[3];
	const uint64_t *stacks[] = { s1, s2, s1, s3, s2, s1 };
	const size_t depths[] = { 3, 3, 3, 1, 3, 3 };
	const long images[] = { 1, 1, 2, 0, 2, -1 };
	struct hmap seen;
	struct blob bl;
	struct trace *t;

	cr_assert_eq(trace_writer_image(w, 1, &exe), 0);
	cr_assert_eq(trace_writer_image(w, 1, &a), 0);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(trace_writer_sample(w, times[i], 1, 1, 0, stacks[i], depths[i]), 0);
	cr_assert_eq(trace_writer_image_unload(w, 2, 500), 0);
	cr_assert_eq(trace_writer_image(w, 1, &b), 0);
	cr_assert_eq(trace_writer_image_unload(w, 3, 1500), 0);
	for (int i = 2; i < 6; i++)
		cr_assert_eq(trace_writer_sample(w, times[i], 1, 1, 0, stacks[i], depths[i]), 0);
	cr_assert_eq(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	bl = fd_bytes(fd);
	close(fd);
	t = load(bl);
	assert_whole(t);
	cr_assert_eq(t->nsamples, 6);
	/* 0x10200 and 0x10100 for libb, 0x10300 under that 0x10200, and
	 * 0x10200 and 0x10100 for no image at all */
	cr_assert_eq(t->status.nodes_split, 5);
	cr_assert_eq(t->nnodes, 1 + 4 + 5);
	cr_assert_neq(t->samples[0].stack, t->samples[2].stack);
	cr_assert_neq(t->samples[2].stack, t->samples[5].stack);
	cr_assert_eq(t->samples[3].stack, 1); /* nothing there changes */
	hmap_init(&seen);
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct trace_sample *smp = &t->samples[i];
		size_t n = trace_stack(t, smp->stack, out, 3);

		cr_assert_eq(n, depths[i]);
		cr_assert_arr_eq(out, stacks[i], n * sizeof(*out));
		cr_assert_eq(trace_image_at(t, 0, out[0], smp->time), images[i], "sample %zu", i);
		for (uint32_t node = smp->stack; node; node = t->nodes[node].parent) {
			uint64_t *img = hmap_put(&seen, node, 0,
						 (uint64_t)trace_image_at(t, 0, t->nodes[node].addr, smp->time), NULL);
			cr_assert_eq(*img, (uint64_t)trace_image_at(t, 0, t->nodes[node].addr, smp->time),
				     "node %u seen with two images", node);
			cr_assert_lt(t->nodes[node].parent, node);
		}
	}
	hmap_release(&seen);
	trace_free(t);
	free(bl.p);
}

/* Every node of every sample sees one view of its address, the image and
 * the code range that name it at the sample's time: what the split
 * promises, so that a node can be named at the time of any sample. */
static void assert_one_view_per_node(const struct trace *t)
{
	struct hmap seen;

	hmap_init(&seen);
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct trace_sample *smp = &t->samples[i];
		uint32_t proc = trace_sample_process(t, smp);

		for (uint32_t node = smp->stack; node; node = t->nodes[node].parent) {
			uint64_t addr = t->nodes[node].addr;
			uint64_t view = (uint64_t)(trace_image_at(t, proc, addr, smp->time) + 2) << 32 |
					(uint64_t)(trace_code_at(t, proc, addr, smp->time) + 2);
			uint64_t *v = hmap_put(&seen, node, 0, view, NULL);

			cr_assert_eq(*v, view, "node %u (%#llx) seen in two views", node, (unsigned long long)addr);
			cr_assert_lt(t->nodes[node].parent, node);
		}
	}
	hmap_release(&seen);
}

/* JIT memory reused: a code range loaded over part of an older one names
 * its addresses from its time on. A writer that keeps its nodes by address
 * alone (ours) gives the samples before and after one node; the reader
 * copies it, and the nodes below it, so that each sample's frames are named
 * by the code of its time. A range that overlaps none is left alone. */
Test(trace_reader, nodes_split_where_a_code_range_is_reused)
{
	const uint64_t start = test_session().start_monotonic_ns;
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	struct trace_image exe = { .id = 1, .path = "node", .start = 0x1000, .size = 0x1000 };
	struct trace_code old = { start + 10, 0x20000, 0x100, 0, TRACE_CODE_PERF_MAP, "JS:*old", NULL, 0 };
	struct trace_code reused = { start + 500, 0x20080, 0x40, 0, TRACE_CODE_PERF_MAP, "JS:*new", NULL, 0 };
	struct trace_code alone = { start + 10, 0x30000, 0x100, 0, TRACE_CODE_JITDUMP, "JS:*alone", NULL, 0 };
	/* leaf in the reused part, its caller in the old range's other part,
	 * then the image; and a stack in the range no other overlaps */
	uint64_t s1[] = { 0x20090, 0x20010, 0x1100 }, s2[] = { 0x30010, 0x20090, 0x1100 };
	uint64_t s3[] = { 0x30020, 0x1100 }, out[3];
	const uint64_t *stacks[] = { s1, s2, s3, s1, s2, s3 };
	const size_t depths[] = { 3, 3, 2, 3, 3, 2 };
	const uint64_t times[] = { 100, 200, 300, 600, 700, 800 };
	const char *leaf_code[] = { "JS:*old", "JS:*alone", "JS:*alone", "JS:*new", "JS:*alone", "JS:*alone" };
	const char *caller_code[] = { "JS:*old", "JS:*old", NULL, "JS:*old", "JS:*new", NULL };
	struct blob bl;
	struct trace *t;

	cr_assert_eq(trace_writer_process(w, 1, 42, 0, start), 0);
	cr_assert_eq(trace_writer_thread_start(w, 1, 42, start), 0);
	cr_assert_eq(trace_writer_image(w, 1, &exe), 0);
	cr_assert_eq(trace_writer_code(w, 1, &old), 0);
	cr_assert_eq(trace_writer_code(w, 1, &alone), 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(trace_writer_sample(w, start + times[i], 42, 1, 0, stacks[i], depths[i]), 0);
	cr_assert_eq(trace_writer_code(w, 1, &reused), 0);
	for (int i = 3; i < 6; i++)
		cr_assert_eq(trace_writer_sample(w, start + times[i], 42, 1, 0, stacks[i], depths[i]), 0);
	cr_assert_eq(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	bl = fd_bytes(fd);
	close(fd);
	t = load(bl);
	assert_whole(t);
	cr_assert_eq(t->nsamples, 6);
	cr_assert_eq(t->ncode, 3);
	/* s1's leaf (and nothing under it, its callers see one view), and
	 * s2's caller with the leaf under it: three copies */
	cr_assert_eq(t->status.nodes_split, 3);
	cr_assert_neq(t->samples[0].stack, t->samples[3].stack);
	cr_assert_neq(t->samples[1].stack, t->samples[4].stack);
	cr_assert_eq(t->samples[2].stack, t->samples[5].stack, "nothing there changes");
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct trace_sample *smp = &t->samples[i];
		size_t n = trace_stack(t, smp->stack, out, 3);
		long k;

		cr_assert_eq(n, depths[i]);
		cr_assert_arr_eq(out, stacks[i], n * sizeof(*out));
		k = trace_code_at(t, 0, out[0], smp->time);
		cr_assert_geq(k, 0);
		cr_assert_str_eq(t->code[k].name, leaf_code[i], "sample %zu", i);
		k = trace_code_at(t, 0, out[1], smp->time);
		if (caller_code[i])
			cr_assert_str_eq(t->code[k].name, caller_code[i], "sample %zu", i);
		else
			cr_assert_eq(k, -1);
	}
	assert_one_view_per_node(t);
	trace_free(t);
	free(bl.p);
}

/* Code ranges that overlap none of their process's, in a trace of one
 * process whose images neither overlap nor unload: nothing is split, and
 * the nodes are the writer's. With a second process that has a range at
 * the same addresses, a node its samples share is split per process, as
 * for images. */
Test(trace_reader, code_ranges_without_overlap_split_nothing)
{
	const uint64_t start = test_session().start_monotonic_ns;
	struct trace_code a = { start, 0x20000, 0x100, 0, TRACE_CODE_PERF_MAP, "JS:*a", NULL, 0 };
	struct trace_code b = { start + 400, 0x20100, 0x100, 0, TRACE_CODE_PERF_MAP, "JS:*b", NULL, 0 };
	struct trace_code c = { start + 400, 0x20000, 0x200, 0, TRACE_CODE_JITDUMP, "JS:*c", NULL, 0 };
	uint64_t s1[] = { 0x20010, 0x20110 }, s2[] = { 0x20110, 0x20010 };
	struct blob bl;
	struct trace *t;

	for (int procs = 1; procs <= 2; procs++) {
		int fd = new_fd();
		struct trace_writer *w = open_writer(fd);
		size_t nodes;

		cr_assert_eq(trace_writer_process(w, 1, 42, 0, start), 0);
		cr_assert_eq(trace_writer_thread_start(w, 1, 42, start), 0);
		cr_assert_eq(trace_writer_code(w, 1, &a), 0);
		cr_assert_eq(trace_writer_code(w, 1, &b), 0);
		if (procs == 2) {
			cr_assert_eq(trace_writer_process(w, 2, 43, 1, start + 1), 0);
			cr_assert_eq(trace_writer_thread_start(w, 2, 43, start + 1), 0);
			cr_assert_eq(trace_writer_code(w, 2, &c), 0);
		}
		for (int i = 0; i < 4; i++) {
			cr_assert_eq(trace_writer_sample(w, start + 100 * (i + 1), 42, 1, 0, i & 1 ? s2 : s1, 2), 0);
			if (procs == 2)
				cr_assert_eq(trace_writer_sample(w, start + 100 * (i + 1) + 50, 43, 1, 0,
								 i & 1 ? s2 : s1, 2), 0);
		}
		cr_assert_eq(trace_writer_finish(w, NULL), 0);
		trace_writer_free(w);
		bl = fd_bytes(fd);
		close(fd);
		t = load(bl);
		assert_whole(t);
		nodes = 1 + 4;   /* two stacks of two, no node shared */
		if (procs == 1) {
			cr_assert_eq(t->status.nodes_split, 0);
			cr_assert_eq(t->nnodes, nodes);
		} else {
			cr_assert_eq(t->status.nodes_split, 4, "every node, once for the second process");
			cr_assert_eq(t->nnodes, nodes + 4);
			cr_assert_eq(t->nsamples, 8);
		}
		assert_one_view_per_node(t);
		trace_free(t);
		free(bl.p);
	}
}

/* What holds an address: a file's image, else a code range, else
 * anonymous memory, an image of anonymous memory ("//anon", as perf_event
 * names it) counting as none. */
Test(trace_reader, region_of_an_address)
{
	struct trace_image img[3] = {
		{ .id = 1, .path = "/usr/bin/node", .start = 0x1000, .size = 0x1000 },
		{ .id = 2, .path = "//anon", .start = 0x7000, .size = 0x1000 },
		{ .id = 3, .path = "[vdso]", .start = 0x3000, .size = 0x1000 },
	};
	struct trace_code code[2] = {
		{ 0, 0x7100, 0x100, 0, TRACE_CODE_PERF_MAP, "JS:*a", NULL, 0 },
		{ 0, 0x9000, 0x100, 0, TRACE_CODE_JITDUMP, "JS:*b", NULL, 0 },
	};
	struct trace t = { .nimages = 3, .images = img, .ncode = 2, .code = code, .code_max_size = 0x100 };
	long i, k;

	cr_assert_eq(trace_region_at(&t, 0, 0x1010, 5, &i, &k), TRACE_REGION_IMAGE);
	cr_assert_eq(i, 0);
	cr_assert_eq(k, -1);
	cr_assert_eq(trace_region_at(&t, 0, 0x3010, 5, NULL, NULL), TRACE_REGION_IMAGE);
	cr_assert_eq(trace_region_at(&t, 0, 0x7010, 5, &i, &k), TRACE_REGION_ANON);
	cr_assert_eq(i, 1);
	cr_assert_eq(trace_region_at(&t, 0, 0x7110, 5, &i, &k), TRACE_REGION_JIT);
	cr_assert_eq(k, 0);
	cr_assert_eq(trace_region_at(&t, 0, 0x9010, 5, &i, &k), TRACE_REGION_JIT);
	cr_assert_eq(i, -1);
	cr_assert_eq(k, 1);
	cr_assert_eq(trace_region_at(&t, 0, 0xa010, 5, &i, &k), TRACE_REGION_ANON);
	cr_assert_eq(i, -1);
	cr_assert_eq(k, -1);
	cr_assert_eq(trace_region_at(&t, 1, 0x9010, 5, NULL, NULL), TRACE_REGION_ANON, "another process");
	cr_assert(trace_image_anonymous(&img[1]));
	cr_assert_not(trace_image_anonymous(&img[0]));
	cr_assert_not(trace_image_anonymous(&img[2]));
	cr_assert_str_eq(trace_region_name(TRACE_REGION_JIT), "jit");
	cr_assert_str_eq(trace_region_name(TRACE_REGION_ANON), "anon");
}

/* The reader copies nodes only up to a cap, 8 times the nodes read plus
 * 2^20 in all, as man/prof-trace.5 states: past it, a sample whose stack
 * needs a copy is dropped and counted. Here 64 images are loaded one after
 * the other over one deep stack, and each sample needs a copy of all of
 * it. */
Test(trace_reader, samples_past_the_split_cap_dropped)
{
	enum { NIMAGES = 64, DEPTH = 20000 };
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	uint64_t *stack = malloc(DEPTH * sizeof(*stack));
	size_t nread = 1 + DEPTH, cap = 8 * nread + (1u << 20), kept;
	struct blob bl;
	struct trace *t;

	for (size_t i = 0; i < DEPTH; i++)
		stack[i] = 0x10000 + 2 * i;
	for (uint32_t k = 1; k <= NIMAGES; k++) {
		struct trace_image img = { .id = k, .path = "lib.so", .start = 0x10000,
					   .size = 0x10000, .time_loaded = 1000 * k };
		cr_assert_eq(trace_writer_image(w, 1, &img), 0);
		cr_assert_eq(trace_writer_sample(w, 1000 * k + 500, 1, 1, 0, stack, DEPTH), 0);
	}
	cr_assert_eq(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	bl = fd_bytes(fd);
	close(fd);
	t = load(bl);
	/* the first sample keeps the nodes read; each copy takes DEPTH more */
	kept = 1 + (cap - nread) / DEPTH;
	cr_assert_lt(kept, NIMAGES);
	cr_assert_eq(t->nsamples, kept);
	cr_assert_eq(t->status.samples_dropped, NIMAGES - kept);
	cr_assert_leq(t->nnodes, cap);
	cr_assert(t->status.complete);
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct trace_sample *smp = &t->samples[i];
		uint32_t node = smp->stack;
		size_t d = 0;

		cr_assert_eq(smp->time, 1000 * (i + 1) + 500);
		while (d < DEPTH && node && t->nodes[node].addr == stack[d])
			d++, node = t->nodes[node].parent;
		cr_assert(d == DEPTH && !node, "sample %zu differs at depth %zu", i, d);
		cr_assert_eq(trace_image_at(t, 0, stack[0], smp->time), (long)i);
	}
	trace_free(t);
	free(bl.p);
	free(stack);
}

/* --- the small functions ------------------------------------------------ */

Test(trace_names, every_value_named)
{
	cr_assert_str_eq(trace_os_name(TRACE_OS_LINUX), "linux");
	cr_assert_str_eq(trace_os_name(TRACE_OS_MACOS), "macos");
	cr_assert_str_eq(trace_os_name(99), "unknown");
	cr_assert_str_eq(trace_os_name(-1), "unknown");
	cr_assert_str_eq(trace_arch_name(TRACE_ARCH_X86_64), "x86_64");
	cr_assert_str_eq(trace_arch_name(TRACE_ARCH_ARM64), "arm64");
	cr_assert_str_eq(trace_mode_name(TRACE_MODE_WALL), "wall");
	cr_assert_str_eq(trace_mode_name(TRACE_MODE_CPU), "cpu");
	cr_assert_str_eq(trace_state_name(TRACE_STATE_SLEEPING), "sleeping");
	cr_assert_str_eq(trace_state_name(TRACE_STATE_DISK), "disk");
	cr_assert_str_eq(trace_state_name(TRACE_STATE_PREEMPTED), "preempted");
	cr_assert_str_eq(trace_sampler_name(TRACE_SAMPLER_UNKNOWN), "unknown");
	cr_assert_str_eq(trace_sampler_name(TRACE_SAMPLER_TICK), "tick");
	cr_assert_str_eq(trace_sampler_name(TRACE_SAMPLER_PERF), "perf");
	cr_assert_str_eq(trace_sampler_name(3), "unknown");
	cr_assert_str_eq(trace_kernel_name(TRACE_KERNEL_UNKNOWN), "unknown");
	cr_assert_str_eq(trace_kernel_name(TRACE_KERNEL_SAMPLED), "sampled");
	cr_assert_str_eq(trace_kernel_name(TRACE_KERNEL_REFUSED), "refused");
	cr_assert_str_eq(trace_kernel_name(TRACE_KERNEL_NOT_SAMPLED), "not-sampled");
	cr_assert_str_eq(trace_kernel_name(4), "unknown");
	cr_assert_str_eq(trace_state_name(TRACE_STATE__COUNT), "unknown");
	cr_assert_str_eq(trace_ident_kind_name(TRACE_IDENT_GNU_BUILD_ID), "gnu-build-id");
	cr_assert_str_eq(trace_ident_kind_name(TRACE_IDENT_MACHO_UUID), "macho-uuid");
	cr_assert_str_eq(trace_counter_name(TRACE_COUNTER_STOP_DEPTH), "stop-depth");
	cr_assert_str_eq(trace_counter_name(TRACE_COUNTER_SAMPLES_LOST), "samples-lost");
	cr_assert_str_eq(trace_counter_name(TRACE_COUNTER_UNSTARTED), "unstarted");
	cr_assert_str_eq(trace_counter_name(TRACE_COUNTER__COUNT), "unknown");
	cr_assert_str_eq(trace_mark_source_name(TRACE_MARK_CONTROL), "control");
	cr_assert_str_eq(trace_mark_source_name(TRACE_MARK_APP), "app");
	cr_assert_str_eq(trace_mark_source_name(3), "unknown");
	for (int e = TRACE_E_MAGIC; e <= TRACE_E_USAGE; e++)
		cr_assert_str_neq(prof_strerror(e), "unknown error");
	cr_assert_str_eq(prof_strerror(-ENOENT), strerror(ENOENT));
}

/* What held a short rate back, each cause named by its own phrase, in
 * the order they are judged. */
Test(trace_names, rate_note_names_the_cause)
{
	uint64_t c[TRACE_COUNTER__COUNT] = { 0 };
	char buf[320];

	cr_assert(!trace_rate_short(TRACE_MODE_WALL, 1000, 950, 1.0, 1));
	cr_assert(trace_rate_short(TRACE_MODE_WALL, 1000, 600, 1.0, 1));
	cr_assert(!trace_rate_short(TRACE_MODE_WALL, 1000, 50, 0.09, 1)); /* too short to judge */
	cr_assert(!trace_rate_short(TRACE_MODE_CPU, 1000, 850, 1.0, 100)); /* a sample a thread forgiven */
	cr_assert_not_null(strstr(trace_rate_note(TRACE_SAMPLER_TICK, c, 1000, 600, 1.0, buf, sizeof(buf)),
				  "could not keep up"));
	cr_assert_not_null(strstr(trace_rate_note(TRACE_SAMPLER_PERF, c, 1000, 600, 1.0, buf, sizeof(buf)),
				  "no kernel setting held it back"));
	c[TRACE_COUNTER_SAMPLES_LOST] = 400;
	cr_assert_not_null(strstr(trace_rate_note(TRACE_SAMPLER_PERF, c, 1000, 600, 1.0, buf, sizeof(buf)),
				  "400 samples were lost, the recorder not draining"));
	c[TRACE_COUNTER_UNSTARTED] = 300;
	cr_assert_not_null(strstr(trace_rate_note(TRACE_SAMPLER_PERF, c, 1000, 600, 1.0, buf, sizeof(buf)),
				  "300 ticks fell while new threads waited for their first run"));
	c[TRACE_COUNTER_MAX_SAMPLE_RATE] = 500;
	cr_assert_not_null(strstr(trace_rate_note(TRACE_SAMPLER_PERF, c, 1000, 600, 1.0, buf, sizeof(buf)),
				  "kernel.perf_event_max_sample_rate was 500"));
	c[TRACE_COUNTER_THROTTLED] = 3;
	cr_assert_not_null(strstr(trace_rate_note(TRACE_SAMPLER_PERF, c, 1000, 600, 1.0, buf, sizeof(buf)),
				  "throttled sampling 3 times"));
}

Test(trace_names, stack_of_hand_built_trace_is_bounded)
{
	/* a cycle no loaded trace can contain: trace_stack still ends */
	struct trace_node nodes[3] = { { 0, 0 }, { 0x10, 2 }, { 0x20, 1 } };
	struct trace t = { 0 };
	uint64_t out[8];

	t.nodes = nodes;
	t.nnodes = 3;
	cr_assert_leq(trace_stack(&t, 1, out, 8), 3);
	cr_assert_eq(trace_stack(&t, 7, out, 8), 0);
	cr_assert_eq(trace_stack(NULL, 1, out, 8), 0);
	cr_assert_str_eq(trace_thread_name_at(NULL, 5), "");
}

/* Damaged chunk contents behind valid frames and checksums: what a hostile
 * file, rather than a bad disk, looks like. The records must be parsed
 * defensively; the test passes if nothing crashes (run it under ASan). */
Test(trace_reader, hostile_chunk_contents_never_crash)
{
	struct multi m = write_multi(3, 50, 1);
	struct buf raw[8];
	size_t nraw = 0, pos = 16;

	/* the raw contents of every chunk, by the documented layout */
	while (pos + 24 <= m.b.n && nraw < 8) {
		uint32_t rlen = get_le32(m.b.p + pos + 12), clen = get_le32(m.b.p + pos + 16);
		buf_init(&raw[nraw]);
		buf_grow(&raw[nraw], rlen);
		cr_assert_eq(ZSTD_decompress(raw[nraw].data, rlen + 1, m.b.p + pos + 24, clen), rlen);
		raw[nraw++].len = rlen;
		pos += 24 + clen;
	}
	cr_assert_eq(pos, m.b.n);
	rng_state = 2024;
	for (int iter = 0; iter < 3000; iter++) {
		struct buf f;
		struct trace *t;
		int r;

		buf_init(&f);
		put_header(&f, 1, 0);
		for (size_t c = 0; c < nraw; c++) {
			struct buf d;
			buf_init(&d);
			buf_add(&d, raw[c].data, raw[c].len);
			if (c > 0 || iter % 4 == 0) {
				int flips = 1 + (int)(rng() % 4);
				for (int k = 0; k < flips && d.len; k++) {
					size_t at = rng() % d.len;
					switch (rng() % 3) {
					case 0: d.data[at] ^= (uint8_t)(1u << (rng() % 8)); break;
					case 1: d.data[at] = (uint8_t)rng(); break;
					default: d.data[at] = 0xff; break;
					}
				}
				if (rng() % 8 == 0)
					d.len = rng() % (d.len + 1);
			}
			put_chunk(&f, (uint16_t)(c + 1 == nraw ? 2 : 1), (uint32_t)c, d.data, d.len);
			buf_release(&d);
		}
		r = trace_load_mem(f.data, f.len, &t);
		if (r == 0) {
			char *dg = digest_str(t);
			for (size_t i = 0; i < t->nsamples; i++)
				cr_assert_lt(t->samples[i].stack, t->nnodes);
			for (size_t i = 1; i < t->nnodes; i++)
				cr_assert_lt(t->nodes[i].parent, i);
			free(dg);
			trace_free(t);
		} else {
			cr_assert(r == TRACE_E_EMPTY || r == TRACE_E_TOOBIG || r == TRACE_E_CORRUPT,
				  "%d", r);
		}
		buf_release(&f);
	}
	for (size_t c = 0; c < nraw; c++)
		buf_release(&raw[c]);
	free_multi(&m);
}

/* A signal trampoline told for an image (2.2) is on that image when read;
 * one for an image not recorded is dropped, and an empty range refused. */
Test(trace_reader, signal_frames_of_an_image)
{
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	struct trace_image libc = { .id = 1, .path = "libc.so.6", .start = 0x10000, .size = 0x10000 };
	struct blob bl;
	struct trace *t;

	cr_assert_eq(trace_writer_image(w, 1, &libc), 0);
	cr_assert_eq(trace_writer_signal_frame(w, 1, 0x1c04f, 0x1c060), 0);
	cr_assert_eq(trace_writer_signal_frame(w, 9, 0x1c04f, 0x1c060), 0);
	cr_assert_eq(trace_writer_signal_frame(w, 1, 0x1c04f, 0x1c04f), TRACE_E_USAGE);
	cr_assert_eq(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	bl = fd_bytes(fd);
	close(fd);
	t = load(bl);
	assert_whole(t);
	cr_assert_eq(t->status.minor, TRACE_FORMAT_MINOR);
	cr_assert_eq(t->nimages, 1);
	cr_assert_eq(t->images[0].nsignal, 1);
	cr_assert_eq(t->images[0].signal[0].start, 0x1c04f);
	cr_assert_eq(t->images[0].signal[0].end, 0x1c060);
	trace_free(t);
	free(bl.p);
}

/* A recording lasts to its end record when it finished. Cut before the
 * chunk that holds the end record, it lasts to its latest sample, which
 * is not its last: samples are in the order they were written. */
Test(trace_reader, duration_to_the_end_record_or_the_latest_sample)
{
	const uint64_t start = test_session().start_monotonic_ns, ms = 1000000;
	const uint64_t times[] = { start + 1 * ms, start + 3 * ms, start + 2 * ms };
	const uint64_t addr = 0x401000;
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	struct trace_end end = { .time = start + 10 * ms };
	uint64_t data_end;
	struct blob bl;
	struct trace *t;

	cr_assert_eq(trace_writer_thread_start(w, 1, 7, start), 0);
	for (size_t i = 0; i < 3; i++)
		cr_assert_eq(trace_writer_sample(w, times[i], 7, TRACE_STATE_RUNNING, 0, &addr, 1), 0);
	cr_assert_eq(trace_writer_flush(w), 0);
	data_end = trace_writer_bytes(w);
	cr_assert_eq(trace_writer_finish(w, &end), 0);
	trace_writer_free(w);
	bl = fd_bytes(fd);
	close(fd);

	t = load(bl);
	assert_whole(t);
	cr_assert_eq(trace_end_ns(t), start + 10 * ms);
	cr_assert_eq(trace_duration_ns(t), 10 * ms);
	trace_free(t);

	/* unfinished: the file ends after the samples' chunk */
	cr_assert_eq(trace_load_mem(bl.p, data_end, &t), 0);
	cr_assert(!t->has_end);
	only_loss(t, TRACE_LOSS_UNFINISHED, 2, 0, "unfinished");
	cr_assert_eq(t->nsamples, 3);
	cr_assert_eq(trace_end_ns(t), start + 3 * ms);
	cr_assert_eq(trace_duration_ns(t), 3 * ms);
	trace_free(t);

	/* cut inside the chunk of the end record */
	cr_assert_eq(trace_load_mem(bl.p, data_end + 10, &t), 0);
	cr_assert(!t->has_end);
	only_loss(t, TRACE_LOSS_CUT, 2, 1, "cut");
	cr_assert_eq(trace_duration_ns(t), 3 * ms);
	trace_free(t);

	/* nothing but the session: no end, no duration */
	cr_assert_eq(trace_load_mem(bl.p, data_end, &t), 0);
	t->nsamples = 0;
	cr_assert_eq(trace_end_ns(t), 0);
	cr_assert_eq(trace_duration_ns(t), 0);
	/* an end before the start lasts nothing */
	t->has_end = 1;
	t->end.time = start - ms;
	cr_assert_eq(trace_end_ns(t), start - ms);
	cr_assert_eq(trace_duration_ns(t), 0);
	trace_free(t);
	free(bl.p);
}

/* A time since the start is 0 before the start in ns, and negative in
 * seconds. */
Test(trace_reader, time_since_start)
{
	struct trace t = { .session = { .start_monotonic_ns = 5000000000ull } };

	cr_assert_eq(trace_since_start_ns(&t, 5000000000ull), 0);
	cr_assert_eq(trace_since_start_ns(&t, 5250000000ull), 250000000);
	cr_assert_eq(trace_since_start_ns(&t, 4000000000ull), 0);
	cr_assert_eq(trace_since_start_ns(&t, 0), 0);
	cr_assert_float_eq(trace_since_start_s(&t, 5250000000ull), 0.25, 1e-12);
	cr_assert_float_eq(trace_since_start_s(&t, 4500000000ull), -0.5, 1e-12);
	cr_assert_float_eq(trace_since_start_s(&t, 5000000000ull), 0.0, 1e-12);
}

/* Marks (2.3) come back in order of time, those of one time in the order
 * written, each with its source, across chunks; a mark without a name or
 * of no source the format knows is refused. */
Test(trace_writer, marks_read_back_in_order)
{
	const uint64_t start = test_session().start_monotonic_ns;
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	struct blob bl;
	struct trace *t;

	cr_assert_eq(trace_writer_mark(w, start + 300, TRACE_MARK_CONTROL, "b"), 0);
	cr_assert_eq(trace_writer_flush(w), 0);
	cr_assert_eq(trace_writer_mark(w, start + 100, TRACE_MARK_APP, "a"), 0);
	cr_assert_eq(trace_writer_mark(w, start + 300, TRACE_MARK_APP, "b again"), 0);
	cr_assert_eq(trace_writer_mark(w, start + 400, TRACE_MARK_UNKNOWN, "frame \"1\"\n"), 0);
	cr_assert_eq(trace_writer_mark(w, start, TRACE_MARK_APP, ""), TRACE_E_USAGE);
	cr_assert_eq(trace_writer_mark(w, start, TRACE_MARK_APP, NULL), TRACE_E_USAGE);
	cr_assert_eq(trace_writer_mark(w, start, TRACE_MARK_APP + 1, "x"), TRACE_E_USAGE);
	cr_assert_eq(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	bl = fd_bytes(fd);
	close(fd);
	t = load(bl);
	assert_whole(t);
	cr_assert_eq(t->status.minor, TRACE_FORMAT_MINOR);
	cr_assert_eq(t->nmarks, 4);
	cr_assert_str_eq(t->marks[0].name, "a");
	cr_assert_eq(t->marks[0].time, start + 100);
	cr_assert_eq(t->marks[0].source, TRACE_MARK_APP);
	cr_assert_str_eq(t->marks[1].name, "b");
	cr_assert_eq(t->marks[1].source, TRACE_MARK_CONTROL);
	cr_assert_str_eq(t->marks[2].name, "b again");
	cr_assert_str_eq(t->marks[3].name, "frame \"1\"\n");
	cr_assert_eq(t->marks[3].source, TRACE_MARK_UNKNOWN);
	cr_assert_eq(trace_mark_find(t, "b", 0), 1);
	cr_assert_eq(trace_mark_find(t, "b", start + 301), -1);
	cr_assert_eq(trace_mark_find(t, "a", start + 100), 0);
	cr_assert_eq(trace_mark_find(t, "c", 0), -1);
	trace_free(t);
	free(bl.p);
}

/* Named code ranges (2.4) come back in order of process and start, each
 * with its source, file and line, and an address names the range loaded
 * last at the sample's time: a range reused at a later time names its
 * new code from then on, and the old before it. Ranges of no size or
 * name are refused. */
Test(trace_writer, code_ranges_named_by_time)
{
	const uint64_t start = test_session().start_monotonic_ns;
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	struct blob bl;
	struct trace *t;
	struct trace_code big = { 0, 0x5000, 0x1000, 0, TRACE_CODE_VDSO, "__vdso_gettimeofday", NULL, 0 };
	struct trace_code old = { start + 10, 0x10000, 0x100, 0, TRACE_CODE_PERF_MAP, "JS:*fib", "a.js", 3 };
	struct trace_code reused = { start + 500, 0x10080, 0x40, 0, TRACE_CODE_JITDUMP, "JS:*add", NULL, 0 };
	struct trace_code bad = old;

	cr_assert_eq(trace_writer_process(w, 1, 42, 0, start), 0);
	cr_assert_eq(trace_writer_code(w, 1, &reused), 0);
	cr_assert_eq(trace_writer_flush(w), 0);
	cr_assert_eq(trace_writer_code(w, 1, &old), 0);
	cr_assert_eq(trace_writer_code(w, 1, &big), 0);
	bad.size = 0;
	cr_assert_eq(trace_writer_code(w, 1, &bad), TRACE_E_USAGE);
	bad = old;
	bad.name = "";
	cr_assert_eq(trace_writer_code(w, 1, &bad), TRACE_E_USAGE);
	cr_assert_eq(trace_writer_code(w, 0, &old), TRACE_E_USAGE);
	cr_assert_eq(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	bl = fd_bytes(fd);
	close(fd);
	t = load(bl);
	assert_whole(t);
	cr_assert_eq(t->ncode, 3);
	cr_assert_eq(t->code_max_size, 0x1000);
	cr_assert_str_eq(t->code[0].name, "__vdso_gettimeofday");
	cr_assert_eq(t->code[0].source, TRACE_CODE_VDSO);
	cr_assert_null(t->code[0].file);
	cr_assert_str_eq(t->code[1].name, "JS:*fib");
	cr_assert_str_eq(t->code[1].file, "a.js");
	cr_assert_eq(t->code[1].line, 3);
	cr_assert_eq(t->code[1].time, start + 10);
	cr_assert_str_eq(t->code[2].name, "JS:*add");
	cr_assert_eq(trace_code_at(t, 0, 0x5fff, start), 0);
	cr_assert_eq(trace_code_at(t, 0, 0x6000, start), -1);
	cr_assert_eq(trace_code_at(t, 0, 0x10090, start + 100), 1);
	cr_assert_eq(trace_code_at(t, 0, 0x10090, start + 500), 2);
	cr_assert_eq(trace_code_at(t, 0, 0x100c0, start + 600), 1);
	cr_assert_eq(trace_code_at(t, 0, 0x10010, start), 1, "a load is noticed after it happens");
	cr_assert_eq(trace_code_at(t, 1, 0x10010, start + 100), -1);
	cr_assert_eq(trace_code_count(t, 0, 0x5000, 0x7000), 1);
	cr_assert_eq(trace_code_count(t, 0, 0x10000, 0x10100), 2);
	cr_assert_eq(trace_code_count(t, 0, 0x10001, 0x10080), 0, "ranges count by their start");
	cr_assert_eq(trace_code_count(t, 1, 0, UINT64_MAX), 0);
	cr_assert_str_eq(trace_code_source_name(TRACE_CODE_JITDUMP), "jitdump");
	trace_free(t);
	free(bl.p);
}

/* A chunk (seq) of one mark record: time, source, then a name length
 * and the n bytes of name given, which may fall short of it. */
static void put_mark_chunk(struct buf *f, uint32_t seq, uint64_t time, uint8_t source, uint64_t len,
			   const char *name, size_t n)
{
	struct buf raw, p;

	buf_init(&raw);
	buf_init(&p);
	buf_put_uvarint(&p, time);
	buf_addch(&p, source);
	buf_put_uvarint(&p, len);
	buf_add(&p, name, n);
	rec(&raw, 15, &p);
	put_chunk(f, 1, seq, raw.data, raw.len);
	buf_release(&raw);
	buf_release(&p);
}

/* A mark record read as the page says: a source the reader does not know
 * is unknown; a record cut inside its name damages its chunk alone; a
 * name over the string cap is refused before it is allocated. */
Test(trace_reader, mark_records_read_as_the_page_says)
{
	struct buf f;
	struct trace *t;

	buf_init(&f);
	hand_trace(&f, 2, 3);
	put_mark_chunk(&f, 1, 1000, 7, 4, "tick", 4);
	put_mark_chunk(&f, 2, 2000, 1, 10, "cut", 3);
	put_mark_chunk(&f, 3, 3000, 2, TRACE_MAX_STRING + 1, "", 0);

	t = load((struct blob){ f.data, f.len });
	cr_assert_eq(t->status.chunks_damaged, 2);
	cr_assert_eq(t->nmarks, 1);
	cr_assert_eq(t->marks[0].time, 1000);
	cr_assert_eq(t->marks[0].source, TRACE_MARK_UNKNOWN);
	cr_assert_str_eq(t->marks[0].name, "tick");
	trace_free(t);
	buf_release(&f);
}

/* Pauses (2.3) come back in order of start, whole when the marks beside
 * them had to be sorted too; the paused time between two instants counts
 * each instant once, overlapping pauses too. */
Test(trace_writer, pauses_read_back_and_summed)
{
	const uint64_t start = test_session().start_monotonic_ns;
	int fd = new_fd();
	struct trace_writer *w = open_writer(fd);
	struct blob bl;
	struct trace *t;

	cr_assert_eq(trace_writer_pause(w, start + 500, start + 700), 0);
	cr_assert_eq(trace_writer_pause(w, start + 100, start + 300), 0);
	cr_assert_eq(trace_writer_pause(w, start + 200, start + 400), 0);
	cr_assert_eq(trace_writer_pause(w, start + 900, start + 800), TRACE_E_USAGE);
	cr_assert_eq(trace_writer_mark(w, start + 600, TRACE_MARK_CONTROL, "late"), 0);
	cr_assert_eq(trace_writer_mark(w, start + 150, TRACE_MARK_CONTROL, "early"), 0);
	cr_assert_eq(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	bl = fd_bytes(fd);
	close(fd);
	t = load(bl);
	assert_whole(t);
	cr_assert_eq(t->npauses, 3);
	cr_assert_eq(t->nmarks, 2);
	cr_assert_str_eq(t->marks[0].name, "early");
	cr_assert_eq(t->pauses[0].start, start + 100);
	cr_assert_eq(t->pauses[1].start, start + 200);
	cr_assert_eq(t->pauses[2].end, start + 700);
	cr_assert_eq(trace_paused_ns(t, 0, UINT64_MAX), 500);
	cr_assert_eq(trace_paused_ns(t, start + 250, start + 600), 250);
	cr_assert_eq(trace_paused_ns(t, start + 700, start + 900), 0);
	trace_free(t);
	free(bl.p);
}
