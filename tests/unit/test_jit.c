/*
 * test_jit.c: the parsers of what runtimes say of the code they compile,
 * fed hand-made bytes: perf map lines (record/perfmap.h), well-formed and
 * malformed, names of 100 KB, a file that grows while it is read, lines
 * past the cap, and overlapping entries through the trace's rule; and
 * jitdump records (record/jitdump.h) in both byte orders, cut at every
 * byte, fed a byte at a time, with a bad magic, lying sizes, moves, debug
 * entries good and bad, and record ids no reader knows; and the report's
 * names for them (report/symbols/codename.h, the symbolizer).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/bytes.h"
#include "format/trace.h"
#include "record/jitdump.h"
#include "record/perfmap.h"
#include "report/symbols/codename.h"
#include "report/symbols/symbolize.h"
#include "blob.h"

/*
 * Perf maps.
 */

#define MAX_SEEN 64

struct seen {
	size_t n;
	uint64_t start[MAX_SEEN], size[MAX_SEEN];
	char *name[MAX_SEEN];
	int cut[MAX_SEEN];
};

static int on_entry(void *ctx, const struct perfmap_entry *e)
{
	struct seen *s = ctx;

	cr_assert_lt(s->n, MAX_SEEN);
	s->start[s->n] = e->start;
	s->size[s->n] = e->size;
	s->name[s->n] = strndup(e->name, e->name_len);
	s->cut[s->n] = e->cut;
	s->n++;
	return 0;
}

static void seen_free(struct seen *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->name[i]);
	memset(s, 0, sizeof(*s));
}

/* Feeds the whole text at once: returns the bytes consumed. */
static size_t feed_all(struct perfmap *m, const char *text, struct seen *s)
{
	return perfmap_feed(m, text, strlen(text), on_entry, s);
}

Test(perfmap, lines_as_perf_reads_them)
{
	struct perfmap m;
	struct seen s = { 0 };
	const char *text = "7fd364006180 30c JS:*hot /tmp/w.js:1:13\n"
			   "0x10 0X20 name with  spaces\r\n"
			   "30\t40\tLcom/example/Foo;::bar\n"
			   "ffffffffffffff00 ff at the very top\n";

	perfmap_init(&m);
	cr_assert_eq(feed_all(&m, text, &s), strlen(text));
	cr_assert_eq(s.n, 4);
	cr_assert_eq(s.start[0], 0x7fd364006180);
	cr_assert_eq(s.size[0], 0x30c);
	cr_assert_str_eq(s.name[0], "JS:*hot /tmp/w.js:1:13");
	cr_assert_eq(s.start[1], 0x10);
	cr_assert_eq(s.size[1], 0x20);
	cr_assert_str_eq(s.name[1], "name with  spaces");
	cr_assert_str_eq(s.name[2], "Lcom/example/Foo;::bar");
	cr_assert_eq(s.start[3] + s.size[3], UINT64_MAX, "a range may end at the top");
	cr_assert_eq(m.lines, 4);
	cr_assert_eq(m.bad, 0);
	seen_free(&s);
}

Test(perfmap, malformed_lines_counted_and_skipped)
{
	static const char *const bad[] = {
		"",                            /* blank */
		"10",                          /* no size */
		"10 20",                       /* no name */
		"10 20   ",                    /* a name of blanks */
		"xyz 20 name",                 /* not hex */
		"10 2g name",                  /* a size not hex */
		"10 0 name",                   /* no size */
		"10 40000001 name",            /* past a gigabyte */
		"ffffffffffffff00 101 name",   /* past 2^64 */
		"12345678901234567 1 name",    /* 17 digits */
		"10-20 name",                  /* no blank */
		"0x 20 name",                  /* no digits */
	};
	struct perfmap m;
	struct seen s = { 0 };
	struct buf b;

	buf_init(&b);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		buf_addf(&b, "%s\n", bad[i]);
	/* one with a NUL in its name */
	buf_add(&b, "10 20 na\0me\n", 12);
	buf_addstr(&b, "40 8 good\n");
	perfmap_init(&m);
	cr_assert_eq(perfmap_feed(&m, (const char *)b.data, b.len, on_entry, &s), b.len);
	cr_assert_eq(s.n, 1);
	cr_assert_str_eq(s.name[0], "good");
	cr_assert_eq(m.lines, sizeof(bad) / sizeof(*bad) + 2);
	cr_assert_eq(m.bad, sizeof(bad) / sizeof(*bad) + 1);
	seen_free(&s);
	buf_release(&b);
}

/* The last line waits for its newline: a writer may be half-way through. */
Test(perfmap, half_a_line_waits_for_its_newline)
{
	struct perfmap m;
	struct seen s = { 0 };
	const char *text = "10 20 first\n30 40 sec";

	perfmap_init(&m);
	cr_assert_eq(feed_all(&m, text, &s), strlen("10 20 first\n"));
	cr_assert_eq(s.n, 1);
	cr_assert_eq(feed_all(&m, "30 40 second\n", &s), strlen("30 40 second\n"));
	cr_assert_eq(s.n, 2);
	cr_assert_str_eq(s.name[1], "second");
	seen_free(&s);
}

/* A file that grows a byte at a time, read after each byte from where the
 * last read stopped: every line once, whole, in order. */
Test(perfmap, growth_read_a_byte_at_a_time)
{
	const char *text = "1000 10 a\n2000 20 b b\n3000 30 JS:~c node:internal/x:1:1\n4000 40 d\n";
	size_t len = strlen(text), off = 0;
	struct perfmap m;
	struct seen s = { 0 };

	perfmap_init(&m);
	for (size_t end = 1; end <= len; end++)
		off += perfmap_feed(&m, text + off, end - off, on_entry, &s);
	cr_assert_eq(off, len);
	cr_assert_eq(s.n, 4);
	cr_assert_str_eq(s.name[1], "b b");
	cr_assert_str_eq(s.name[2], "JS:~c node:internal/x:1:1");
	cr_assert_eq(s.start[3], 0x4000);
	seen_free(&s);
}

/* A name of 100 KB is cut to PERFMAP_NAME_MAX bytes, never in the middle
 * of a character; the lines after it are read. */
Test(perfmap, names_of_100_kb_cut)
{
	struct perfmap m;
	struct seen s = { 0 };
	struct buf b;

	buf_init(&b);
	buf_addstr(&b, "10 20 x");
	for (int i = 0; i < 50 * 1024; i++)
		buf_addstr(&b, "\xc3\xa9"); /* é, two bytes */
	buf_addstr(&b, "\n30 40 after\n");
	perfmap_init(&m);
	cr_assert_eq(perfmap_feed(&m, (const char *)b.data, b.len, on_entry, &s), b.len);
	cr_assert_eq(s.n, 2);
	cr_assert(s.cut[0]);
	cr_assert_eq(strlen(s.name[0]), PERFMAP_NAME_MAX - 1, "x and 2047 whole characters");
	cr_assert_eq(s.name[0][0], 'x');
	cr_assert_eq((unsigned char)s.name[0][PERFMAP_NAME_MAX - 2], 0xa9);
	cr_assert_str_eq(s.name[1], "after");
	cr_assert_eq(m.cut, 1);
	seen_free(&s);
	buf_release(&b);
}

/* A line longer than PERFMAP_LINE_MAX, fed in pieces as a reader would
 * (it cannot hold it all), is skipped to its newline. */
Test(perfmap, line_past_the_cap_skipped)
{
	static char big[PERFMAP_LINE_MAX];
	struct perfmap m;
	struct seen s = { 0 };

	memset(big, 'y', sizeof(big));
	memcpy(big, "10 20 ", 6);
	perfmap_init(&m);
	cr_assert_eq(perfmap_feed(&m, big, sizeof(big) / 4, on_entry, &s), 0, "a quarter of the cap waits");
	/* the reader's buffer, full without a newline: the line is given up */
	cr_assert_eq(perfmap_feed(&m, big, sizeof(big), on_entry, &s), sizeof(big));
	memset(big, 'y', 6);
	cr_assert_eq(perfmap_feed(&m, big, sizeof(big), on_entry, &s), sizeof(big));
	cr_assert_eq(perfmap_feed(&m, "yyy\n50 8 next\n", 14, on_entry, &s), 14);
	cr_assert_eq(s.n, 1);
	cr_assert_str_eq(s.name[0], "next");
	cr_assert_eq(m.bad, 1);
	cr_assert_eq(m.lines, 2);
	seen_free(&s);
}

/* Entries that overlap pass through in file order; written as one read's
 * code ranges (one time), the trace names an address by the last of
 * them, as a runtime that reuses memory means it. */
Test(perfmap, overlapping_entries_the_last_names)
{
	const char *text = "1000 1000 outer\n1100 100 first\n1100 100 second\n1180 100 straddles\n";
	struct trace_session sess = { .os = TRACE_OS_LINUX, .arch = TRACE_ARCH_X86_64,
				      .mode = TRACE_MODE_CPU, .rate_hz = 99, .pid = 7,
				      .start_monotonic_ns = 1000, .host = "h" };
	struct perfmap m;
	struct seen s = { 0 };
	struct trace_writer *w;
	struct trace *t;
	struct blob b;
	int fd = new_fd();

	perfmap_init(&m);
	feed_all(&m, text, &s);
	cr_assert_eq(s.n, 4);
	cr_assert_eq(trace_writer_new(fd, &sess, &w), 0);
	cr_assert_eq(trace_writer_process(w, 1, 7, 0, 1000), 0);
	for (size_t i = 0; i < s.n; i++) {
		struct trace_code c = { .time = 2000, .start = s.start[i], .size = s.size[i],
					.source = TRACE_CODE_PERF_MAP, .name = s.name[i] };
		cr_assert_eq(trace_writer_code(w, 1, &c), 0);
	}
	cr_assert_eq(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	b = fd_bytes(fd);
	close(fd);
	cr_assert_eq(trace_load_mem(b.p, b.n, &t), 0);
	cr_assert_str_eq(t->code[trace_code_at(t, 0, 0x1000, 3000)].name, "outer");
	cr_assert_str_eq(t->code[trace_code_at(t, 0, 0x1150, 3000)].name, "second");
	cr_assert_str_eq(t->code[trace_code_at(t, 0, 0x1190, 3000)].name, "straddles");
	cr_assert_str_eq(t->code[trace_code_at(t, 0, 0x1250, 3000)].name, "straddles");
	cr_assert_str_eq(t->code[trace_code_at(t, 0, 0x1280, 3000)].name, "outer");
	cr_assert_eq(trace_code_at(t, 0, 0x2000, 3000), -1);
	trace_free(t);
	free(b.p);
	seen_free(&s);
}

/*
 * Jitdumps.
 */

struct dump {
	struct buf b;
	int big;                  /* big-endian */
};

static void d32(struct dump *d, uint32_t v)
{
	uint8_t x[4];

	for (int i = 0; i < 4; i++)
		x[i] = (uint8_t)(v >> (d->big ? 24 - 8 * i : 8 * i));
	buf_add(&d->b, x, 4);
}

static void d64(struct dump *d, uint64_t v)
{
	if (d->big) {
		d32(d, (uint32_t)(v >> 32));
		d32(d, (uint32_t)v);
	} else {
		d32(d, (uint32_t)v);
		d32(d, (uint32_t)(v >> 32));
	}
}

static void dump_header(struct dump *d, int big, uint64_t flags)
{
	buf_init(&d->b);
	d->big = big;
	d32(d, JITDUMP_MAGIC);
	d32(d, 1);
	d32(d, JITDUMP_HEADER_SIZE);
	d32(d, 62);
	d32(d, 0);
	d32(d, 4242);
	d64(d, 100);
	d64(d, flags);
}

static void dump_load(struct dump *d, uint64_t time, uint64_t addr, uint64_t size, uint64_t index,
		      const char *name)
{
	size_t len = strlen(name) + 1;

	d32(d, JITDUMP_CODE_LOAD);
	d32(d, (uint32_t)(56 + len + size));
	d64(d, time);
	d32(d, 4242);
	d32(d, 4243);
	d64(d, addr);
	d64(d, addr);
	d64(d, size);
	d64(d, index);
	buf_add(&d->b, name, len);
	for (uint64_t i = 0; i < size; i++)
		buf_addch(&d->b, (char)0xcc);
}

static void dump_move(struct dump *d, uint64_t time, uint64_t from, uint64_t to, uint64_t size,
		      uint64_t index)
{
	d32(d, JITDUMP_CODE_MOVE);
	d32(d, 64);
	d64(d, time);
	d32(d, 4242);
	d32(d, 4243);
	d64(d, to);
	d64(d, from);
	d64(d, to);
	d64(d, size);
	d64(d, index);
}

/* A debug record for the code at addr: entries of (line, file). */
static void dump_debug(struct dump *d, uint64_t time, uint64_t addr, size_t n, const uint32_t *lines,
		       const char *const *files)
{
	size_t total = 32;

	for (size_t i = 0; i < n; i++)
		total += 16 + strlen(files[i]) + 1;
	d32(d, JITDUMP_CODE_DEBUG_INFO);
	d32(d, (uint32_t)total);
	d64(d, time);
	d64(d, addr);
	d64(d, n);
	for (size_t i = 0; i < n; i++) {
		d64(d, addr + 0x40 + i);
		d32(d, lines[i]);
		d32(d, 7);
		buf_add(&d->b, files[i], strlen(files[i]) + 1);
	}
}

/* A record of an id no reader knows, of n bytes of body. */
static void dump_other(struct dump *d, uint32_t id, size_t n)
{
	d32(d, id);
	d32(d, (uint32_t)(16 + n));
	d64(d, 0);
	for (size_t i = 0; i < n; i++)
		buf_addch(&d->b, (char)i);
}

struct code_seen {
	size_t n;
	struct {
		uint64_t time, start, size, index;
		char name[64], file[64];
		size_t name_len;
		uint32_t line;
		int moved, has_file;
	} c[MAX_SEEN];
};

static int on_code(void *ctx, const struct jitdump_code *c)
{
	struct code_seen *s = ctx;

	cr_assert_lt(s->n, MAX_SEEN);
	s->c[s->n].time = c->time;
	s->c[s->n].start = c->start;
	s->c[s->n].size = c->size;
	s->c[s->n].index = c->index;
	snprintf(s->c[s->n].name, sizeof(s->c[s->n].name), "%s", c->name);
	s->c[s->n].name_len = strlen(c->name);
	s->c[s->n].has_file = c->file != NULL;
	snprintf(s->c[s->n].file, sizeof(s->c[s->n].file), "%s", c->file ? c->file : "");
	s->c[s->n].line = c->line;
	s->c[s->n].moved = c->moved;
	s->n++;
	return 0;
}

/* The dump of every kind of record, in either byte order. */
static void every_record(struct dump *d, int big)
{
	static const uint32_t lines[] = { 3, 9 };
	static const char *const files[] = { "/src/fib.js", "\xff" };
	static const char *const heap[] = { "\x11\x90\x01" };

	dump_header(d, big, 0);
	dump_debug(d, 10, 0x7000, 2, lines, files);
	dump_load(d, 11, 0x7000, 0x40, 1, "JS:*fib /src/fib.js:3:13");
	dump_other(d, JITDUMP_CODE_UNWINDING_INFO, 40);
	dump_load(d, 12, 0x8000, 0x20, 2, "stub");
	dump_other(d, 77, 3);
	dump_debug(d, 13, 0x9000, 1, lines, heap);
	dump_load(d, 14, 0x9000, 0x10, 3, "JS:~main /src/fib.js:9:1");
	dump_move(d, 15, 0x7000, 0xa000, 0x40, 1);
	dump_other(d, JITDUMP_CODE_CLOSE, 0);
}

static void check_every_record(const struct code_seen *s)
{
	cr_assert_eq(s->n, 4);
	cr_assert_str_eq(s->c[0].name, "JS:*fib /src/fib.js:3:13");
	cr_assert_eq(s->c[0].start, 0x7000);
	cr_assert_eq(s->c[0].size, 0x40);
	cr_assert_eq(s->c[0].time, 11);
	cr_assert(s->c[0].has_file);
	cr_assert_str_eq(s->c[0].file, "/src/fib.js");
	cr_assert_eq(s->c[0].line, 3);
	cr_assert_str_eq(s->c[1].name, "stub");
	cr_assert_not(s->c[1].has_file, "a debug record is for the load that follows it only");
	cr_assert_str_eq(s->c[2].name, "JS:~main /src/fib.js:9:1");
	cr_assert_not(s->c[2].has_file, "a file name of heap bytes is not kept");
	cr_assert_eq(s->c[2].line, 0);
	cr_assert(s->c[3].moved);
	cr_assert_eq(s->c[3].start, 0xa000);
	cr_assert_eq(s->c[3].time, 15);
	cr_assert_str_eq(s->c[3].name, "JS:*fib /src/fib.js:3:13");
	cr_assert_str_eq(s->c[3].file, "/src/fib.js");
}

Test(jitdump, every_record_little_endian)
{
	struct dump d;
	struct code_seen s = { 0 };
	struct jitdump *j = jitdump_new();

	every_record(&d, 0);
	cr_assert_eq(jitdump_feed(j, d.b.data, d.b.len, on_code, &s), (long)d.b.len);
	check_every_record(&s);
	cr_assert_eq(jitdump_header(j)->pid, 4242);
	cr_assert_eq(jitdump_header(j)->elf_mach, 62);
	cr_assert_not(jitdump_header(j)->swapped);
	cr_assert_eq(jitdump_stats(j)->records, 9);
	cr_assert_eq(jitdump_stats(j)->bad, 0);
	jitdump_free(j);
	buf_release(&d.b);
}

/* The other byte order, as the header's magic says: the same codes. */
Test(jitdump, other_endianness)
{
	struct dump d;
	struct code_seen s = { 0 };
	struct jitdump *j = jitdump_new();

	every_record(&d, 1);
	cr_assert_eq(d.b.data[0], 0x4a, "written big-endian");
	cr_assert_eq(jitdump_feed(j, d.b.data, d.b.len, on_code, &s), (long)d.b.len);
	check_every_record(&s);
	cr_assert(jitdump_header(j)->swapped);
	cr_assert_eq(jitdump_header(j)->pid, 4242);
	cr_assert_eq(jitdump_header(j)->timestamp, 100);
	jitdump_free(j);
	buf_release(&d.b);
}

Test(jitdump, bad_magic_ends_it)
{
	struct dump d;
	struct code_seen s = { 0 };
	struct jitdump *j = jitdump_new();

	every_record(&d, 0);
	d.b.data[1] ^= 0x20;
	cr_assert_eq(jitdump_feed(j, d.b.data, d.b.len, on_code, &s), JITDUMP_E_MAGIC);
	cr_assert_eq(jitdump_feed(j, d.b.data, d.b.len, on_code, &s), JITDUMP_E_MAGIC, "and stays so");
	cr_assert_eq(s.n, 0);
	cr_assert_null(jitdump_header(j));
	jitdump_free(j);
	/* a header whose size is less than a header */
	j = jitdump_new();
	every_record(&d, 0);
	d.b.data[8] = 8;
	cr_assert_eq(jitdump_feed(j, d.b.data, d.b.len, on_code, &s), JITDUMP_E_CORRUPT);
	jitdump_free(j);
	buf_release(&d.b);
}

/* The dump cut at every byte: what is whole before the cut is read, the
 * record the cut falls in waits, and the rest, fed later, completes it. */
Test(jitdump, truncated_at_every_byte)
{
	struct dump d;

	every_record(&d, 0);
	for (size_t cut = 0; cut <= d.b.len; cut++) {
		struct code_seen s = { 0 };
		struct jitdump *j = jitdump_new();
		long used = jitdump_feed(j, d.b.data, cut, on_code, &s);

		cr_assert_geq(used, 0, "cut at %zu", cut);
		cr_assert_leq((size_t)used, cut);
		cr_assert_leq(s.n, 4);
		cr_assert_eq(jitdump_feed(j, d.b.data + used, d.b.len - (size_t)used, on_code, &s),
			     (long)(d.b.len - (size_t)used), "cut at %zu", cut);
		check_every_record(&s);
		jitdump_free(j);
	}
	buf_release(&d.b);
}

/* A byte at a time, from where the last call stopped, as a file that
 * grows: the same codes, each once. */
Test(jitdump, fed_a_byte_at_a_time)
{
	struct dump d;
	struct code_seen s = { 0 };
	struct jitdump *j = jitdump_new();
	size_t off = 0;

	every_record(&d, 1);
	for (size_t end = 1; end <= d.b.len; end++) {
		long used = jitdump_feed(j, d.b.data + off, end - off, on_code, &s);

		cr_assert_geq(used, 0);
		off += (size_t)used;
	}
	cr_assert_eq(off, d.b.len);
	check_every_record(&s);
	jitdump_free(j);
	buf_release(&d.b);
}

/* Sizes that lie: smaller than the prefix, or past the cap, end the
 * parse (no later record can be found); a size too small for the
 * record's fields, or one that swallows the next record, skips by the
 * size given, whatever it covers; fields that make no range are skipped. */
Test(jitdump, lying_sizes)
{
	struct dump d;
	struct code_seen s = { 0 };
	struct jitdump *j;
	size_t at;

	/* a size of 8: less than the prefix */
	dump_header(&d, 0, 0);
	dump_load(&d, 1, 0x1000, 4, 1, "a");
	at = d.b.len;
	dump_load(&d, 2, 0x2000, 4, 2, "b");
	put_le32(d.b.data + at + 4, 8);
	j = jitdump_new();
	cr_assert_eq(jitdump_feed(j, d.b.data, d.b.len, on_code, &s), JITDUMP_E_CORRUPT);
	cr_assert_eq(s.n, 1, "the load before it was read");
	jitdump_free(j);
	/* past the cap */
	put_le32(d.b.data + at + 4, JITDUMP_RECORD_MAX + 1);
	j = jitdump_new();
	s.n = 0;
	cr_assert_eq(jitdump_feed(j, d.b.data, d.b.len, on_code, &s), JITDUMP_E_CORRUPT);
	jitdump_free(j);
	buf_release(&d.b);

	/* too small for a load's fields, then one that says more than the
	 * file holds: the first skipped, the second waits */
	dump_header(&d, 0, 0);
	at = d.b.len;
	dump_load(&d, 1, 0x1000, 4, 1, "a");
	put_le32(d.b.data + at + 4, 40);
	/* the bytes after the short record's 40 must make a record: pad */
	d.b.len = at + 40;
	dump_load(&d, 2, 0x2000, 4, 2, "b");
	at = d.b.len;
	dump_load(&d, 3, 0x3000, 4, 3, "c");
	put_le32(d.b.data + at + 4, 100000);
	j = jitdump_new();
	s.n = 0;
	cr_assert_eq(jitdump_feed(j, d.b.data, d.b.len, on_code, &s), (long)at);
	cr_assert_eq(s.n, 1);
	cr_assert_str_eq(s.c[0].name, "b");
	cr_assert_eq(jitdump_stats(j)->bad, 1);
	jitdump_free(j);
	buf_release(&d.b);

	/* a name with no NUL inside its record, no size, a range past 2^64,
	 * an empty name, a debug record counting more entries than fit, and
	 * a move of an index never loaded: each skipped, the rest read */
	dump_header(&d, 0, 0);
	at = d.b.len;
	dump_load(&d, 1, 0x1000, 4, 1, "abcdefgh");
	put_le32(d.b.data + at + 4, 56 + 4);        /* cuts the name */
	d.b.len = at + 60;
	dump_load(&d, 1, 0x1000, 0, 2, "nosize");
	dump_load(&d, 1, UINT64_MAX - 1, 4, 3, "wraps");
	dump_load(&d, 1, 0x1000, 4, 4, "");
	at = d.b.len;
	dump_debug(&d, 1, 0x5000, 0, NULL, NULL);
	put_le64(d.b.data + at + 24, 1000);         /* entries */
	dump_move(&d, 1, 0x1000, 0x6000, 4, 99);
	dump_load(&d, 1, 0x5000, 4, 5, "last");
	j = jitdump_new();
	s.n = 0;
	cr_assert_eq(jitdump_feed(j, d.b.data, d.b.len, on_code, &s), (long)d.b.len);
	cr_assert_eq(s.n, 1);
	cr_assert_str_eq(s.c[0].name, "last");
	cr_assert_not(s.c[0].has_file);
	cr_assert_eq(jitdump_stats(j)->bad, 5);
	cr_assert_eq(jitdump_stats(j)->unknown_moves, 1);
	jitdump_free(j);
	buf_release(&d.b);
}

/* A load whose code is larger than what is read of a record: its head is
 * read, the code skipped as it is fed, and the record after it found. */
Test(jitdump, long_records_skipped_past_their_head)
{
	struct dump d;
	struct code_seen s = { 0 };
	struct jitdump *j = jitdump_new();
	size_t off = 0, piece = 4096;

	dump_header(&d, 0, 0);
	dump_load(&d, 1, 0x10000, 3 * JITDUMP_HEAD_MAX, 1, "big");
	dump_load(&d, 2, 0x90000, 8, 2, "after");
	while (off < d.b.len) {
		size_t end = off + piece < d.b.len ? off + piece : d.b.len;
		long used = jitdump_feed(j, d.b.data + off, end - off, on_code, &s);

		cr_assert_geq(used, 0);
		if (!used) {
			piece *= 2;  /* a reader reads on until a record fits */
			continue;
		}
		off += (size_t)used;
	}
	cr_assert_eq(s.n, 2);
	cr_assert_str_eq(s.c[0].name, "big");
	cr_assert_eq(s.c[0].size, 3 * JITDUMP_HEAD_MAX);
	cr_assert_str_eq(s.c[1].name, "after");
	jitdump_free(j);
	buf_release(&d.b);
}

/* A name longer than JITDUMP_NAME_MAX is cut, a timestamp flag noted. */
Test(jitdump, long_names_cut_and_flags_kept)
{
	struct dump d;
	struct code_seen s = { 0 };
	struct jitdump *j = jitdump_new();
	char *name = malloc(10000);

	memset(name, 'n', 9999);
	name[9999] = 0;
	dump_header(&d, 0, JITDUMP_FLAGS_ARCH_TIMESTAMP);
	dump_load(&d, 1, 0x1000, 4, 1, name);
	cr_assert_eq(jitdump_feed(j, d.b.data, d.b.len, on_code, &s), (long)d.b.len);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(s.c[0].name_len, JITDUMP_NAME_MAX);
	cr_assert_eq(jitdump_header(j)->flags, JITDUMP_FLAGS_ARCH_TIMESTAMP);
	jitdump_free(j);
	buf_release(&d.b);
	free(name);
}

/*
 * The report's names for code records.
 */

Test(codename, v8_names_trimmed_to_the_function)
{
	static const struct {
		const char *raw, *name, *file;
		uint32_t line;
		int js;
	} cases[] = {
		{ "JS:*hot /tmp/w.js:1:13", "hot", "/tmp/w.js", 1, 1 },
		{ "JS:~cold file:///home/me/a.mjs:20:14", "cold", "file:///home/me/a.mjs", 20, 1 },
		{ "JS:^f node:internal/util:801:18", "f", "node:internal/util", 801, 1 },
		{ "JS:+g [eval]:1:1", "g", "[eval]", 1, 1 },
		{ "JS:~ node:internal/main/run_main_module:1:1", "(anonymous)", "node:internal/main/run_main_module", 1, 1 },
		{ "JS:~ :1:1", "(anonymous)", NULL, 0, 1 },
		{ "JS:~get x /tmp/my dir/a.js:5:3", "get x", "/tmp/my dir/a.js", 5, 1 },
		{ "JS:*Foo.bar", "Foo.bar", NULL, 0, 1 },
		{ "JS:*", "(anonymous)", NULL, 0, 1 },
		{ "LazyCompile:*fib /home/me/fib.js:3", "fib", "/home/me/fib.js", 3, 1 },
		{ "Function:~main /a.js:9", "main", "/a.js", 9, 1 },
		{ "Script:~ /a.js:1", "(anonymous)", "/a.js", 1, 1 },
		{ "Eval:~ [eval]:1:1", "(anonymous)", "[eval]", 1, 1 },
		{ "py::fib:/home/me/fib.py", "fib", "/home/me/fib.py", 0, 0 },
		{ "py::<module>:C:\\x\\a.py", "<module>", "C:\\x\\a.py", 0, 0 },
		{ "Builtin:ArrayPrototypePush", "Builtin:ArrayPrototypePush", NULL, 0, 0 },
		{ "RegExp:a+b", "RegExp:a+b", NULL, 0, 0 },
		{ "Lcom/example/Foo;::bar", "Lcom/example/Foo;::bar", NULL, 0, 0 },
		{ "py::", "py::", NULL, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct codename cn;

		codename_parse(cases[i].raw, &cn);
		cr_assert_eq(cn.name_len, strlen(cases[i].name), "%s", cases[i].raw);
		cr_assert(!memcmp(cn.name, cases[i].name, cn.name_len), "%s: %.*s", cases[i].raw,
			  (int)cn.name_len, cn.name);
		if (cases[i].file) {
			cr_assert_not_null(cn.file, "%s", cases[i].raw);
			cr_assert_eq(cn.file_len, strlen(cases[i].file), "%s: %.*s", cases[i].raw,
				     (int)cn.file_len, cn.file);
			cr_assert(!memcmp(cn.file, cases[i].file, cn.file_len), "%s", cases[i].raw);
		} else {
			cr_assert_null(cn.file, "%s", cases[i].raw);
		}
		cr_assert_eq(cn.line, cases[i].line, "%s", cases[i].raw);
		cr_assert_eq(cn.js, cases[i].js, "%s", cases[i].raw);
	}
}

/* A trace of one process with an image whose file is nowhere (as the
 * vDSO's is) and code ranges in and out of it, in trace_code_at()'s order. */
static struct trace_image code_image = {
	.id = 1, .ident_kind = TRACE_IDENT_GNU_BUILD_ID, .ident_len = 4, .ident = { 9, 9, 9, 9 },
	.path = "[vdso]", .start = 0x1000, .size = 0x1000, .bias = 0x1000,
};
static struct trace_code code_ranges[] = {
	{ 0, 0x1800, 0x40, 0, TRACE_CODE_VDSO, "__vdso_clock_gettime", NULL, 0 },
	{ 0, 0x9000, 0x100, 0, TRACE_CODE_PERF_MAP, "JS:*fib /src/a.js:3:13", NULL, 0 },
	{ 500, 0x9000, 0x100, 0, TRACE_CODE_JITDUMP, "JS:~other", "/src/b.js", 7 },
	{ 0, 0xa000, 0x10, 0, TRACE_CODE_PERF_MAP, "py::work:/src/w.py", NULL, 0 },
};

static void code_trace(struct trace *t)
{
	memset(t, 0, sizeof(*t));
	t->session.pid = 7;
	t->nimages = 1;
	t->images = &code_image;
	t->ncode = sizeof(code_ranges) / sizeof(*code_ranges);
	t->code = code_ranges;
	t->code_max_size = 0x100;
}

static const struct symbolize_frame *one(struct symbolize *s, uint64_t addr, uint64_t time, int leaf)
{
	const struct symbolize_frame *f;

	cr_assert_eq(symbolize_addr(s, 0, addr, time, leaf, &f), 1);
	return f;
}

Test(codename, the_symbolizer_names_code_from_the_trace)
{
	struct trace t;
	struct symbolize *s;
	const struct symbolize_frame *f;

	code_trace(&t);
	s = symbolize_new(&t, &(struct symbolize_opts){ .debug_root = "", .debuginfod_cache = "" });
	f = one(s, 0x9010, 100, 1);
	cr_assert_str_eq(f->name, "fib");
	cr_assert_str_eq(f->file, "/src/a.js");
	cr_assert_eq(f->line, 3);
	cr_assert_eq(f->lang, SYMBOLIZE_LANG_JS);
	cr_assert(f->resolved);
	cr_assert_eq(f->image, -1);
	cr_assert_str_eq(f->image_label, "[jit]");
	cr_assert_eq(f->code, 1);
	/* the range loaded over it names it from its time on, with the
	 * record's file and line, as the name gives none */
	f = one(s, 0x9010, 600, 1);
	cr_assert_str_eq(f->name, "other");
	cr_assert_str_eq(f->file, "/src/b.js");
	cr_assert_eq(f->line, 7);
	/* in an image no file names: the vDSO's function */
	f = one(s, 0x1810, 100, 1);
	cr_assert_str_eq(f->name, "__vdso_clock_gettime");
	cr_assert_eq(f->image, 0);
	cr_assert_str_eq(f->image_label, "[vdso]");
	cr_assert_eq(f->offset, 0x810);
	cr_assert_eq(f->lang, SYMBOLIZE_LANG_C);
	f = one(s, 0x1840, 100, 1);
	cr_assert_str_eq(f->name, "[vdso]+0x840");
	cr_assert_not(f->resolved);
	/* a return address just past a range is its call's */
	cr_assert_str_eq(one(s, 0x9100, 100, 0)->name, "fib");
	cr_assert_str_eq(one(s, 0x9100, 100, 1)->name, "[unknown]+0x9100");
	f = one(s, 0xa004, 100, 1);
	cr_assert_str_eq(f->name, "work");
	cr_assert_str_eq(f->file, "/src/w.py");
	cr_assert_eq(f->lang, SYMBOLIZE_LANG_JIT);
	symbolize_free(s);

	/* --lines shows the location; --addresses none of it */
	s = symbolize_new(&t, &(struct symbolize_opts){ .debug_root = "", .debuginfod_cache = "", .lines = 1 });
	cr_assert_str_eq(one(s, 0x9010, 100, 1)->name, "fib (a.js:3)");
	cr_assert_str_eq(one(s, 0x9010, 600, 1)->name, "other (b.js:7)");
	symbolize_free(s);
	s = symbolize_new(&t, &(struct symbolize_opts){ .debug_root = "", .debuginfod_cache = "", .addresses = 1 });
	cr_assert_str_eq(one(s, 0x9010, 100, 1)->name, "[unknown]+0x9010");
	cr_assert_str_eq(one(s, 0x1810, 100, 1)->name, "[vdso]+0x810");
	symbolize_free(s);
}
