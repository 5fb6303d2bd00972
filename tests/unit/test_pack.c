/*
 * test_pack.c: symbol packs. The format side (trace_pack) written and read
 * back, split over chunks, appended to a real trace that must still load,
 * and fed hostile bytes: cut at every byte, flipped bytes, absurd counts,
 * indexes out of range; and the same of code and source lines. The report
 * side (pack) serving frames to the symbolizer for an image that has no
 * file, by identity only, code and lines, and a pack rebuilt from what a
 * pack served coming out the same. Building (pack_build) the code of the
 * sampled functions of a real binary (the symbols fixture), which must be
 * its bytes, and the source lines of their frames with context, which
 * must be the file's.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/bytes.h"
#include "common/diag.h"
#include "common/elf.h"
#include "format/trace.h"
#include "format/trace_chunk.h"
#include "format/trace_pack.h"
#include "report/symbols/pack.h"
#include "report/output/pack_build.h"
#include "report/symbols/symbolize.h"
#include "blob.h"
#include "build_dir.h"
#include "hand_trace.h"
#include "object_file.h"

static uint32_t add_string(struct trace_pack_image *img, const char *s)
{
	img->strings = xgrow(img->strings, &img->cap_strings, img->nstrings + 1, sizeof(*img->strings));
	img->strings[img->nstrings] = strdup(s);
	return (uint32_t)img->nstrings++;
}

/* Adds an address with n frames named NAME0.., in file FILE, lines 10.. */
static void add_addr(struct trace_pack_image *img, uint64_t offset, uint32_t n, const char *name,
		     const char *file)
{
	char buf[64];
	uint32_t f = file ? add_string(img, file) + 1 : 0;

	img->addrs = xgrow(img->addrs, &img->cap_addrs, img->naddrs + 1, sizeof(*img->addrs));
	img->addrs[img->naddrs++] = (struct trace_pack_addr){ offset, (uint32_t)img->nframes, n };
	img->frames = xgrow(img->frames, &img->cap_frames, img->nframes + n, sizeof(*img->frames));
	for (uint32_t i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "%s%u", name, i);
		img->frames[img->nframes++] = (struct trace_pack_frame){
			.name = add_string(img, buf), .file = f, .line = 10 + i,
			.lang = TRACE_PACK_LANG_C };
	}
}

static const uint8_t ident_a[] = { 1, 2, 3, 4 };
static const uint8_t ident_b[16] = { 0xaa, 0xbb, 0xcc };

/* Two images: a build-id one with an inline chain, a Mach-O one. */
static struct trace_pack *sample_pack(void)
{
	struct trace_pack *s = trace_pack_new();
	struct trace_pack_image *img;

	img = trace_pack_add_image(s, TRACE_IDENT_GNU_BUILD_ID, ident_a, 4, "/nonexistent/libfake.so");
	add_addr(img, 0xff, 1, "main", "main.c");
	add_addr(img, 0x200, 3, "a", "a.c");
	add_addr(img, 0x300, 1, "b", NULL);
	/* Signatures of the second and third frames of 0x200. */
	img->frames[2].signature = add_string(img, "void a1(int)") + 1;
	img->frames[3].signature = add_string(img, "int a2<int>(int, char*)") + 1;
	img = trace_pack_add_image(s, TRACE_IDENT_MACHO_UUID, ident_b, 16, "/Applications/X.app/X");
	add_addr(img, 0x4000, 2, "swift", "x.swift");
	return s;
}

/* Every field of s as text, chunks merged per identity, for comparing. */
static char *describe(const struct trace_pack *s)
{
	struct buf b;

	buf_init(&b);
	for (size_t i = 0; i < s->nimages; i++) {
		const struct trace_pack_image *img = &s->images[i];
		if (!img->naddrs)  /* a chunk of code */
			continue;
		buf_addf(&b, "image %d/%u %s\n", img->ident_kind, img->ident_len, img->path);
		for (size_t k = 0; k < img->naddrs; k++) {
			const struct trace_pack_addr *a = &img->addrs[k];
			buf_addf(&b, " 0x%llx:", (unsigned long long)a->offset);
			for (uint32_t j = 0; j < a->n; j++) {
				const struct trace_pack_frame *f = &img->frames[a->first + j];
				buf_addf(&b, " %s@%s:%u/%u", img->strings[f->name],
					 f->file ? img->strings[f->file - 1] : "-", f->line, f->lang);
				if (f->signature)
					buf_addf(&b, "[%s]", img->strings[f->signature - 1]);
			}
			buf_addch(&b, '\n');
		}
	}
	buf_addch(&b, 0);
	return buf_detach(&b);
}

static struct blob write_pack(const struct trace_pack *s)
{
	int fd = new_fd(), r;
	uint64_t bytes;
	struct blob b;

	r = trace_pack_write(fd, s, 1, 0, &bytes);
	cr_assert_eq(r, 0, "write: %s", prof_strerror(r));
	b = fd_bytes(fd);
	cr_assert_eq(bytes, b.n);
	close(fd);
	return b;
}

Test(trace_pack, round_trip)
{
	struct trace_pack *s = sample_pack(), *back;
	struct blob b = write_pack(s);
	char *want = describe(s), *got;

	cr_assert_eq(memcmp(b.p, "\x89PSYM\r\n\x1a", 8), 0);
	cr_assert_eq(trace_pack_load_mem(b.p, b.n, &back), 0);
	got = describe(back);
	cr_assert_str_eq(got, want);
	cr_assert_eq(back->status.chunks, 2);
	cr_assert_eq(back->status.chunks_damaged, 0);
	free(want);
	free(got);
	free(b.p);
	trace_pack_free(s);
	trace_pack_free(back);
}

Test(trace_pack, large_image_split_over_self_contained_chunks)
{
	struct trace_pack *s = trace_pack_new(), *back, *one = NULL;
	struct trace_pack_image *img =
		trace_pack_add_image(s, TRACE_IDENT_GNU_BUILD_ID, ident_a, 4, "/big");
	struct blob b;
	size_t total = 0;

	for (uint64_t i = 0; i < 60000; i++)
		add_addr(img, 16 * i + 1, 2, "some_rather_long_function_name_", "src/file.c");
	b = write_pack(s);
	cr_assert_eq(trace_pack_load_mem(b.p, b.n, &back), 0);
	cr_assert_gt(back->nimages, 1, "a pack of %zu bytes in one chunk", b.n);
	for (size_t i = 0; i < back->nimages; i++) {
		cr_assert_eq(back->images[i].addrs[0].offset, 16 * total + 1);
		total += back->images[i].naddrs;
	}
	cr_assert_eq(total, 60000);
	/* Each chunk reads on its own: cut the file after the first. */
	{
		size_t first_end = TRACE_HEADER_LEN + TRACE_CHUNK_HEADER_LEN + get_le32(b.p + 32);
		cr_assert_eq(trace_pack_load_mem(b.p, first_end, &one), 0);
		cr_assert_eq(one->nimages, 1);
		cr_assert_eq(one->images[0].naddrs, back->images[0].naddrs);
		cr_assert_str_eq(one->images[0].strings[one->images[0].frames[0].name],
				 "some_rather_long_function_name_0");
	}
	free(b.p);
	trace_pack_free(s);
	trace_pack_free(back);
	trace_pack_free(one);
}

Test(trace_pack, cut_at_every_byte)
{
	struct trace_pack *s = sample_pack(), *back;
	struct blob b = write_pack(s);
	char *want = describe(s), *got;
	size_t first_end = TRACE_HEADER_LEN + TRACE_CHUNK_HEADER_LEN + get_le32(b.p + 32);

	for (size_t n = 0; n <= b.n; n++) {
		uint8_t *copy = malloc(n + 1);
		int r;

		memcpy(copy, b.p, n);
		r = trace_pack_load_mem(copy, n, &back);
		if (n < TRACE_HEADER_LEN) {
			cr_assert_lt(r, 0, "cut at %zu", n);
		} else {
			cr_assert_eq(r, 0, "cut at %zu: %s", n, prof_strerror(r));
			/* The whole chunks before the cut, and only those. */
			got = describe(back);
			cr_assert_eq(strncmp(got, want, strlen(got)), 0, "cut at %zu", n);
			cr_assert_eq(back->nimages == 2, n == b.n, "cut at %zu", n);
			cr_assert_eq(back->status.chunks_damaged, 0);
			cr_assert_eq(back->status.bytes_cut == 0,
				     n == TRACE_HEADER_LEN || n == first_end || n == b.n, "cut at %zu", n);
			free(got);
			trace_pack_free(back);
		}
		free(copy);
	}
	free(want);
	free(b.p);
	trace_pack_free(s);
}

Test(trace_pack, flipped_bytes_never_give_wrong_frames)
{
	struct trace_pack *s = sample_pack(), *back;
	struct blob b = write_pack(s);
	char *want = describe(s);

	for (size_t i = 0; i < b.n; i++) {
		for (int bit = 0; bit < 8; bit += 3) {
			int r;

			b.p[i] ^= (uint8_t)(1u << bit);
			r = trace_pack_load_mem(b.p, b.n, &back);
			if (r == 0) {
				/* Whatever survived is exactly what was written:
				 * each image read is one of the originals. */
				char *got = describe(back);
				for (char *line = strtok(got, "\n"); line; line = strtok(NULL, "\n"))
					cr_assert(strstr(want, line), "byte %zu bit %d: '%s'", i, bit, line);
				free(got);
				trace_pack_free(back);
			}
			b.p[i] ^= (uint8_t)(1u << bit);
		}
	}
	free(want);
	free(b.p);
	trace_pack_free(s);
}

/* Parses one hand-made chunk payload. */
static int parse(const struct buf *raw)
{
	struct trace_pack *s = trace_pack_new();
	int r = trace_pack_parse_chunk(s, TRACE_CHUNK_PACK, raw->data, raw->len);

	if (r < 0)
		cr_assert_eq(s->nimages, 0);
	trace_pack_free(s);
	return r;
}

/* A chunk payload: identity, path, strings, then what body holds. */
static void chunk_raw(struct buf *raw, int kind, size_t ident_len, uint64_t nstrings,
		      uint64_t naddrs)
{
	static const uint8_t id[64] = { 9, 9, 9 };

	buf_reset(raw);
	buf_addch(raw, kind);
	buf_put_bytes(raw, id, ident_len);
	buf_put_bytes(raw, "/p", 2);
	buf_put_uvarint(raw, nstrings);
	for (uint64_t i = 0; i < nstrings && i < 4; i++)
		buf_put_bytes(raw, "fn", 2);
	buf_put_uvarint(raw, naddrs);
}

static void frame(struct buf *raw, uint64_t name, uint64_t file, uint64_t line)
{
	buf_put_uvarint(raw, name);
	buf_put_uvarint(raw, file);
	buf_put_uvarint(raw, line);
	buf_addch(raw, 1);
}

Test(trace_pack, hostile_chunks_rejected)
{
	struct buf raw;

	buf_init(&raw);
	/* The well-formed base case: two strings, one address, one frame. */
	chunk_raw(&raw, TRACE_IDENT_GNU_BUILD_ID, 4, 2, 1);
	buf_put_uvarint(&raw, 0x10);
	buf_put_uvarint(&raw, 1);
	frame(&raw, 0, 2, 7);
	cr_assert_eq(parse(&raw), 0);

	/* Identities: none, too short, a UUID that is not 16 bytes. */
	chunk_raw(&raw, TRACE_IDENT_NONE, 4, 2, 1);
	cr_assert_lt(parse(&raw), 0);
	chunk_raw(&raw, TRACE_IDENT_GNU_BUILD_ID, 1, 2, 1);
	cr_assert_lt(parse(&raw), 0);
	chunk_raw(&raw, TRACE_IDENT_MACHO_UUID, 15, 2, 1);
	cr_assert_lt(parse(&raw), 0);
	/* Absurd counts: more strings or addresses than bytes left. */
	chunk_raw(&raw, TRACE_IDENT_GNU_BUILD_ID, 4, 1ull << 40, 1);
	cr_assert_lt(parse(&raw), 0);
	chunk_raw(&raw, TRACE_IDENT_GNU_BUILD_ID, 4, 2, 1ull << 40);
	cr_assert_lt(parse(&raw), 0);
	chunk_raw(&raw, TRACE_IDENT_GNU_BUILD_ID, 4, 0, 1);
	cr_assert_lt(parse(&raw), 0);
	/* Too many frames for one address. */
	chunk_raw(&raw, TRACE_IDENT_GNU_BUILD_ID, 4, 2, 1);
	buf_put_uvarint(&raw, 0x10);
	buf_put_uvarint(&raw, TRACE_PACK_MAX_FRAMES + 1);
	for (int i = 0; i <= TRACE_PACK_MAX_FRAMES; i++)
		frame(&raw, 0, 0, 1);
	cr_assert_lt(parse(&raw), 0);
	/* A name or file index past the table. */
	chunk_raw(&raw, TRACE_IDENT_GNU_BUILD_ID, 4, 2, 1);
	buf_put_uvarint(&raw, 0x10);
	buf_put_uvarint(&raw, 1);
	frame(&raw, 2, 0, 1);
	cr_assert_lt(parse(&raw), 0);
	chunk_raw(&raw, TRACE_IDENT_GNU_BUILD_ID, 4, 2, 1);
	buf_put_uvarint(&raw, 0x10);
	buf_put_uvarint(&raw, 1);
	frame(&raw, 0, 3, 1);
	cr_assert_lt(parse(&raw), 0);
	/* Offsets that repeat, and one that wraps around 2^64. */
	chunk_raw(&raw, TRACE_IDENT_GNU_BUILD_ID, 4, 2, 2);
	buf_put_uvarint(&raw, 0x10);
	buf_put_uvarint(&raw, 1);
	frame(&raw, 0, 0, 1);
	buf_put_uvarint(&raw, 0);
	buf_put_uvarint(&raw, 1);
	frame(&raw, 0, 0, 1);
	cr_assert_lt(parse(&raw), 0);
	chunk_raw(&raw, TRACE_IDENT_GNU_BUILD_ID, 4, 2, 2);
	buf_put_uvarint(&raw, UINT64_MAX);
	buf_put_uvarint(&raw, 1);
	frame(&raw, 0, 0, 1);
	buf_put_uvarint(&raw, 2);
	buf_put_uvarint(&raw, 1);
	frame(&raw, 0, 0, 1);
	cr_assert_lt(parse(&raw), 0);
	/* A line past u32, and a payload cut in a frame. */
	chunk_raw(&raw, TRACE_IDENT_GNU_BUILD_ID, 4, 2, 1);
	buf_put_uvarint(&raw, 0x10);
	buf_put_uvarint(&raw, 1);
	frame(&raw, 0, 0, 1ull << 33);
	cr_assert_lt(parse(&raw), 0);
	raw.len -= 2;
	cr_assert_lt(parse(&raw), 0);

	/* The signature table: one entry reads; bytes after it are for
	 * later versions; a frame past the last, frames that do not ascend,
	 * a string index of 0 or past the table, more entries than frames,
	 * or a table cut short make the chunk damaged. */
	static const uint64_t bad[][5] = {
		{ 1, 1, 1 },          /* frame 1 of 1 */
		{ 2, 0, 1, 0, 1 },    /* frame 0 twice */
		{ 1, 0, 0 },          /* string 0 */
		{ 1, 0, 3 },          /* string 3 of 2 */
		{ 2, 0, 1 },          /* cut */
		{ 1ull << 20, 0, 1 }, /* more entries than frames */
	};
	static const size_t nbad[] = { 3, 5, 3, 3, 3, 3 };
	for (size_t k = 0; k <= sizeof(bad) / sizeof(bad[0]); k++) {
		struct trace_pack *sp = trace_pack_new();

		chunk_raw(&raw, TRACE_IDENT_GNU_BUILD_ID, 4, 2, 1);
		buf_put_uvarint(&raw, 0x10);
		buf_put_uvarint(&raw, 1);
		frame(&raw, 0, 0, 1);
		if (k == sizeof(bad) / sizeof(bad[0])) {
			buf_put_uvarint(&raw, 1);
			buf_put_uvarint(&raw, 0);
			buf_put_uvarint(&raw, 2);
			buf_put_bytes(&raw, "later", 5);
			cr_assert_eq(trace_pack_parse_chunk(sp, TRACE_CHUNK_PACK, raw.data, raw.len), 0);
			cr_assert_eq(sp->images[0].frames[0].signature, 2);
		} else {
			for (size_t j = 0; j < nbad[k]; j++)
				buf_put_uvarint(&raw, bad[k][j]);
			cr_assert_lt(trace_pack_parse_chunk(sp, TRACE_CHUNK_PACK, raw.data, raw.len), 0, "case %zu", k);
		}
		trace_pack_free(sp);
	}
	buf_release(&raw);
}

Test(trace_pack, writer_refuses_what_would_not_read_back)
{
	struct trace_pack *s = sample_pack();
	int fd = new_fd();

	s->images[0].addrs[1].offset = s->images[0].addrs[0].offset; /* not ascending */
	cr_assert_eq(trace_pack_write(fd, s, 1, 0, NULL), TRACE_E_USAGE);
	close(fd);
	trace_pack_free(s);
}

Test(trace_pack, not_a_pack_refused)
{
	struct trace_pack *s;
	static const uint8_t junk[32] = "this is not a pack, nor a trace";

	cr_assert_eq(trace_pack_load_mem(junk, sizeof(junk), &s), TRACE_E_MAGIC);
	cr_assert_null(s);
	cr_assert_lt(trace_pack_load("/nonexistent/x.syms", &s), 0);
}

/* A pack file's header gives the trace format's version and follows its
 * rules: a newer major is refused with the upgrade message, any minor of
 * this major reads, and major 0 does not exist. */
Test(trace_pack, pack_file_of_a_newer_major_refused)
{
	static const uint16_t versions[][2] = { { 3, 0 }, { 1, 9 }, { 0, 3 } };
	struct trace_pack *s = sample_pack();
	struct blob b = write_pack(s);
	char *want = describe(s);

	trace_pack_free(s);
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		const char *msg;
		int r;

		trace_file_header_encode(b.p, TRACE_PACK_MAGIC, versions[i][0], versions[i][1]);
		r = trace_pack_load_mem(b.p, b.n, &s);
		if (versions[i][0] == 1) {
			char *got;

			cr_assert_eq(r, 0, "%s", prof_strerror(r));
			cr_assert_eq(s->status.minor, 9);
			got = describe(s);
			cr_assert_str_eq(got, want);
			free(got);
			trace_pack_free(s);
			continue;
		}
		cr_assert_null(s);
		if (versions[i][0] == 0) {
			cr_assert_eq(r, TRACE_E_CORRUPT);
			continue;
		}
		cr_assert_eq(r, TRACE_E_MAJOR);
		msg = prof_strerror(r);
		cr_assert_not_null(strstr(msg, "3.0"), "%s", msg);
		cr_assert_not_null(strstr(msg, "upgrade prof"), "%s", msg);
	}
	free(want);
	free(b.p);
}

/* A real trace, written by the recorder's writer, with a pack appended. */
static struct blob trace_with_pack(const struct trace_pack *s, size_t *trace_len)
{
	static char *argv[] = { "./t" };
	struct trace_session ses = { .os = TRACE_OS_LINUX, .rate_hz = 100, .argc = 1, .argv = argv };
	struct trace_writer *w;
	struct trace *t;
	uint64_t stack[2] = { 0x1200, 0x1100 };
	int fd = new_fd();
	struct blob b;

	cr_assert_eq(trace_writer_new(fd, &ses, &w), 0);
	cr_assert_eq(trace_writer_image(w, 1, &image), 0);
	for (int i = 0; i < 50; i++)
		cr_assert_eq(trace_writer_sample(w, 1000 + 10 * (uint64_t)i, 7, 1, 0, stack, 2), 0);
	cr_assert_eq(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	*trace_len = (size_t)lseek(fd, 0, SEEK_END);
	b = fd_bytes(fd);
	cr_assert_eq(trace_load_mem(b.p, b.n, &t), 0);
	cr_assert_eq(trace_pack_write(fd, s, 0, t->status.next_seq, NULL), 0);
	trace_free(t);
	free(b.p);
	b = fd_bytes(fd);
	close(fd);
	return b;
}

Test(trace_pack, embedded_pack_keeps_the_trace_valid)
{
	struct trace_pack *s = sample_pack(), *back;
	size_t trace_len;
	struct blob b = trace_with_pack(s, &trace_len);
	struct trace *t;
	char *want = describe(s), *got;

	cr_assert_eq(trace_load_mem(b.p, b.n, &t), 0);
	cr_assert_eq(t->nsamples, 50);
	cr_assert(t->status.has_footer);
	cr_assert_eq(t->status.chunks_damaged + t->status.chunks_skipped, 0);
	cr_assert_eq(t->status.bytes_cut, 0);
	cr_assert_not_null(t->pack);
	got = describe(t->pack);
	cr_assert_str_eq(got, want);
	free(got);
	trace_free(t);
	/* trace_pack_load() reads the pack out of the trace too. */
	cr_assert_eq(trace_pack_load_mem(b.p, b.n, &back), 0);
	got = describe(back);
	cr_assert_str_eq(got, want);
	free(got);
	trace_pack_free(back);
	/* Cut anywhere in the pack: the samples all stay. */
	for (size_t n = trace_len; n < b.n; n++) {
		cr_assert_eq(trace_load_mem(b.p, n, &t), 0, "cut at %zu", n);
		cr_assert_eq(t->nsamples, 50, "cut at %zu", n);
		trace_free(t);
	}
	free(want);
	free(b.p);
	trace_pack_free(s);
}

/* --- code and sources (2.5) -------------------------------------------- */

static const uint8_t code_main[] = { 0x55, 0x48, 0x89, 0xe5, 0x90, 0x5d, 0xc3 };
static const uint8_t code_a[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0xc3 };

/* Adds the n lines of text to s as path's run from first. */
static void add_run(struct trace_pack *s, const char *path, uint32_t first,
		    const char *const *text, uint32_t n)
{
	size_t lens[8];

	for (uint32_t i = 0; i < n; i++)
		lens[i] = strlen(text[i]);
	cr_assert_eq(trace_pack_add_source(s, path, first, text, lens, n), 0);
}

/* sample_pack() with code for both images and the source lines of two
 * files, one in two runs. */
static struct trace_pack *full_pack(void)
{
	static const char *const main_c[] = { "int main(void)", "{", "", "\treturn a();" };
	static const char *const a_c[] = { "static int a(void)", "{" };
	static const char *const a_c2[] = { "\treturn 0;", "}" };
	struct trace_pack *s = sample_pack();

	cr_assert_eq(trace_pack_add_code(&s->images[0], 0xf8, code_main, sizeof(code_main)), 0);
	cr_assert_eq(trace_pack_add_code(&s->images[0], 0x1f8, code_a, sizeof(code_a)), 0);
	/* Adjacent to the one before, and added out of order. */
	cr_assert_eq(trace_pack_add_code(&s->images[0], 0xf8 + sizeof(code_main), code_a, 2), 0);
	cr_assert_eq(trace_pack_add_code(&s->images[1], 0x4000, code_a, sizeof(code_a)), 0);
	add_run(s, "/src/main.c", 9, main_c, 4);
	add_run(s, "/src/a.c", 1, a_c, 2);
	add_run(s, "/src/a.c", 20, a_c2, 2);
	return s;
}

/* describe() and the code and source lines of s, one a line. */
static char *describe_all(const struct trace_pack *s)
{
	char *frames = describe(s);
	struct buf b;

	buf_init(&b);
	buf_addstr(&b, frames);
	free(frames);
	for (size_t i = 0; i < s->nimages; i++) {
		const struct trace_pack_image *img = &s->images[i];
		for (size_t k = 0; k < img->ncode; k++) {
			buf_addf(&b, "code %d/%u 0x%llx:", img->ident_kind, img->ident_len,
				 (unsigned long long)img->code[k].start);
			for (uint32_t j = 0; j < img->code[k].len; j++)
				buf_addf(&b, " %02x", img->code[k].bytes[j]);
			buf_addch(&b, '\n');
		}
	}
	for (size_t i = 0; i < s->nsources; i++) {
		const struct trace_pack_source *src = &s->sources[i];
		for (size_t r = 0; r < src->nruns; r++)
			for (uint32_t l = 0; l < src->runs[r].n; l++)
				buf_addf(&b, "%s:%u:%s\n", src->path, src->runs[r].first + l,
					 src->runs[r].text + src->runs[r].off[l]);
	}
	buf_addch(&b, 0);
	return buf_detach(&b);
}

/* The code of the first image of s with identity ident that holds addr. */
static size_t code_of(const struct trace_pack *s, const uint8_t *ident, size_t len, uint64_t addr,
		      uint64_t size, const uint8_t **code)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nimages && !n; i++)
		if (s->images[i].ident_len == len && !memcmp(s->images[i].ident, ident, len))
			n = trace_pack_image_code(&s->images[i], addr, size, code);
	return n;
}

Test(trace_pack, code_and_sources_round_trip)
{
	struct trace_pack *s = full_pack(), *back;
	struct blob b = write_pack(s);
	char *want = describe_all(s), *got;
	const uint8_t *p;
	const char *line;
	size_t len;

	cr_assert_eq(trace_pack_load_mem(b.p, b.n, &back), 0);
	got = describe_all(back);
	cr_assert_str_eq(got, want);
	/* Two symbols chunks, a code chunk for each image, one of sources. */
	cr_assert_eq(back->status.chunks, 5);
	cr_assert_eq(back->status.chunks_damaged, 0);

	/* From an address to the end of its range, at most size bytes. */
	cr_assert_eq(code_of(back, ident_a, 4, 0xf8, 100, &p), sizeof(code_main));
	cr_assert_eq(memcmp(p, code_main, sizeof(code_main)), 0);
	cr_assert_eq(code_of(back, ident_a, 4, 0xfb, 2, &p), 2);
	cr_assert_eq(p[0], 0xe5);
	cr_assert_eq(code_of(back, ident_a, 4, 0xff, 100, &p), 2, "the adjacent range");
	cr_assert_eq(p[0], code_a[0]);
	cr_assert_eq(code_of(back, ident_a, 4, 0x1fc, 100, &p), 1);
	cr_assert_eq(code_of(back, ident_a, 4, 0xf7, 100, &p), 0);
	cr_assert_null(p);
	cr_assert_eq(code_of(back, ident_a, 4, 0x101, 100, &p), 0);
	cr_assert_eq(code_of(back, ident_a, 4, 0x1f8, 0, &p), 0);
	cr_assert_eq(code_of(back, ident_b, 16, 0x4004, 8, &p), 1);

	cr_assert(trace_pack_has_source(back, "/src/a.c"));
	cr_assert(trace_pack_has_source(back, "/src/main.c"));
	cr_assert_not(trace_pack_has_source(back, "/src/b.c"));
	cr_assert_not(trace_pack_has_source(back, "/src/a"));
	line = trace_pack_source_line(back, "/src/main.c", 12, &len);
	cr_assert_str_eq(line, "\treturn a();");
	cr_assert_eq(len, 12);
	line = trace_pack_source_line(back, "/src/main.c", 11, &len);
	cr_assert_str_eq(line, "");
	cr_assert_eq(len, 0);
	cr_assert_str_eq(trace_pack_source_line(back, "/src/a.c", 21, &len), "}");
	cr_assert_null(trace_pack_source_line(back, "/src/a.c", 3, &len));
	cr_assert_null(trace_pack_source_line(back, "/src/a.c", 22, &len));
	cr_assert_null(trace_pack_source_line(back, "/src/main.c", 8, &len));
	cr_assert_null(trace_pack_source_line(back, "/src/b.c", 1, &len));
	free(want);
	free(got);
	free(b.p);
	trace_pack_free(s);
	trace_pack_free(back);
}

/* A 2.4 reader knew only the symbols chunks: what it reads of a 2.5 pack
 * is its frames, whole, with the new chunks skipped and none damaged; and
 * a pack without the new parts reads as one that has none. */
static int frames_only(void *ctx, const struct trace_chunk *c)
{
	return trace_pack_parse_chunk(ctx, c->h.type, c->raw, c->len);
}

Test(trace_pack, older_readers_skip_code_and_sources)
{
	struct trace_pack *s = full_pack(), *old = trace_pack_new(), *plain;
	struct trace_walk w = { .types = 1u << TRACE_CHUNK_PACK, .fn = frames_only, .ctx = old };
	struct blob b = write_pack(s), f;
	char *want = describe(s), *got;
	size_t len;

	cr_assert_eq(trace_walk_chunks(b.p, b.n, &w, &old->status), 0);
	cr_assert_eq(old->status.chunks_skipped, 3);
	cr_assert_eq(old->status.chunks_damaged, 0);
	got = describe(old);
	cr_assert_str_eq(got, want);
	free(got);
	trace_pack_free(old);

	trace_pack_free(s);
	s = sample_pack();
	f = write_pack(s);
	cr_assert_eq(trace_pack_load_mem(f.p, f.n, &plain), 0);
	for (size_t i = 0; i < plain->nimages; i++)
		cr_assert_eq(plain->images[i].ncode, 0);
	cr_assert_not(trace_pack_has_source(plain, "/src/a.c"));
	cr_assert_null(trace_pack_source_line(plain, "/src/a.c", 1, &len));
	trace_pack_free(plain);
	free(want);
	free(b.p);
	free(f.p);
	trace_pack_free(s);
}

/* Cut anywhere or with a byte flipped, a pack with code and sources reads
 * only what was written: never a wrong byte of code or line of text. */
Test(trace_pack, code_and_sources_cut_or_flipped_never_wrong)
{
	struct trace_pack *s = full_pack(), *back;
	struct blob b = write_pack(s);
	char *want = describe_all(s);

	for (size_t n = TRACE_HEADER_LEN; n <= b.n; n++) {
		uint8_t *copy = malloc(n + 1);
		char *got;

		memcpy(copy, b.p, n);
		cr_assert_eq(trace_pack_load_mem(copy, n, &back), 0, "cut at %zu", n);
		got = describe_all(back);
		for (char *line = strtok(got, "\n"); line; line = strtok(NULL, "\n"))
			cr_assert(strstr(want, line), "cut at %zu: '%s'", n, line);
		free(got);
		trace_pack_free(back);
		free(copy);
	}
	for (size_t i = TRACE_HEADER_LEN; i < b.n; i++) {
		b.p[i] ^= 0x10;
		if (trace_pack_load_mem(b.p, b.n, &back) == 0) {
			char *got = describe_all(back);
			for (char *line = strtok(got, "\n"); line; line = strtok(NULL, "\n"))
				cr_assert(strstr(want, line), "byte %zu: '%s'", i, line);
			free(got);
			trace_pack_free(back);
		}
		b.p[i] ^= 0x10;
	}
	free(want);
	free(b.p);
	trace_pack_free(s);
}

/* Sources over several chunks: each reads by itself, and a file split
 * between two reads back whole. */
Test(trace_pack, sources_split_over_self_contained_chunks)
{
	static char line[200];
	const char *lines[1] = { line };
	size_t lens[1] = { sizeof(line) - 1 }, len;
	struct trace_pack *s = trace_pack_new(), *back, *one;
	struct blob b;
	size_t first_end;

	memset(line, 'x', sizeof(line) - 1);
	/* 12000 lines of 200 bytes, every other line, in two files. */
	for (uint32_t i = 0; i < 12000; i++)
		cr_assert_eq(trace_pack_add_source(s, i < 6000 ? "/a.c" : "/b.c", 2 * i + 1, lines,
						   lens, 1), 0);
	b = write_pack(s);
	cr_assert_eq(trace_pack_load_mem(b.p, b.n, &back), 0);
	cr_assert_gt(back->status.chunks, 1);
	cr_assert_eq(back->status.chunks_damaged, 0);
	cr_assert_gt(back->nsources, 2, "a file was split");
	for (uint32_t i = 0; i < 12000; i++) {
		const char *t = trace_pack_source_line(back, i < 6000 ? "/a.c" : "/b.c", 2 * i + 1, &len);
		cr_assert(t && len == sizeof(line) - 1 && !memcmp(t, line, len), "line %u", 2 * i + 1);
		cr_assert_null(trace_pack_source_line(back, i < 6000 ? "/a.c" : "/b.c", 2 * i + 2, &len));
	}
	first_end = TRACE_HEADER_LEN + TRACE_CHUNK_HEADER_LEN + get_le32(b.p + 32);
	cr_assert_eq(trace_pack_load_mem(b.p, first_end, &one), 0);
	cr_assert(trace_pack_has_source(one, "/a.c"));
	cr_assert_str_eq(trace_pack_source_line(one, "/a.c", 1, &len), line);
	cr_assert_null(trace_pack_source_line(one, "/b.c", 23999, &len));
	free(b.p);
	trace_pack_free(s);
	trace_pack_free(back);
	trace_pack_free(one);
}

Test(trace_pack, code_and_sources_caps_and_refusals)
{
	struct trace_pack *s = trace_pack_new();
	struct trace_pack_image *img = trace_pack_add_image(s, TRACE_IDENT_GNU_BUILD_ID, ident_a, 4, "/x");
	uint8_t *big = calloc(1, TRACE_PACK_MAX_CODE_RANGE + 1);
	char *wide = malloc(TRACE_PACK_MAX_LINE + 8);
	const char *lines[2] = { wide, "" };
	size_t lens[2] = { TRACE_PACK_MAX_LINE + 8, 0 }, len;
	const char *t;
	uint32_t i;

	/* Code: empty, past 2^64, overlapping either side, over the caps. */
	cr_assert_eq(trace_pack_add_code(img, 0x100, big, 0x100), 0);
	cr_assert_eq(trace_pack_add_code(img, 0x80, big, 0), TRACE_E_USAGE);
	cr_assert_eq(trace_pack_add_code(img, UINT64_MAX - 1, big, 2), TRACE_E_USAGE);
	cr_assert_eq(trace_pack_add_code(img, 0x1ff, big, 1), TRACE_E_USAGE);
	cr_assert_eq(trace_pack_add_code(img, 0x80, big, 0x81), TRACE_E_USAGE);
	cr_assert_eq(trace_pack_add_code(img, 0x100, big, 1), TRACE_E_USAGE);
	cr_assert_eq(trace_pack_add_code(img, 0x80, big, 0x80), 0);
	cr_assert_eq(trace_pack_add_code(img, 0x200, big, TRACE_PACK_MAX_CODE_RANGE + 1),
		     TRACE_E_TOOBIG);
	for (i = 0; img->code_bytes + TRACE_PACK_MAX_CODE_RANGE <= TRACE_PACK_MAX_CODE; i++)
		cr_assert_eq(trace_pack_add_code(img, (uint64_t)(i + 1) << 24, big,
						 TRACE_PACK_MAX_CODE_RANGE), 0);
	cr_assert_eq(trace_pack_add_code(img, 1ull << 40, big, TRACE_PACK_MAX_CODE_RANGE),
		     TRACE_E_TOOBIG);
	cr_assert_eq(img->code_bytes, TRACE_PACK_MAX_CODE - TRACE_PACK_MAX_CODE_RANGE + 0x180);

	/* A line over the cap is cut, before a UTF-8 character it would
	 * split (U+00E9 across the cut). */
	memset(wide, 'y', TRACE_PACK_MAX_LINE + 8);
	wide[TRACE_PACK_MAX_LINE - 1] = (char)0xc3;
	wide[TRACE_PACK_MAX_LINE] = (char)0xa9;
	cr_assert_eq(trace_pack_add_source(s, "/w.c", 5, lines, lens, 2), 0);
	t = trace_pack_source_line(s, "/w.c", 5, &len);
	cr_assert_eq(len, TRACE_PACK_MAX_LINE - 1);
	cr_assert_eq(t[len], 0);
	cr_assert_eq(memcmp(t, wide, len), 0);
	cr_assert_str_eq(trace_pack_source_line(s, "/w.c", 6, &len), "");
	/* Runs of a path in ascending order only; no line 0, no empty path,
	 * no run past line 2^32 - 1. */
	cr_assert_eq(trace_pack_add_source(s, "/w.c", 6, lines, lens, 1), TRACE_E_USAGE);
	cr_assert_eq(trace_pack_add_source(s, "/w.c", 1, lines, lens, 1), TRACE_E_USAGE);
	cr_assert_eq(trace_pack_add_source(s, "/v.c", 0, lines, lens, 1), TRACE_E_USAGE);
	cr_assert_eq(trace_pack_add_source(s, "", 1, lines, lens, 1), TRACE_E_USAGE);
	cr_assert_eq(trace_pack_add_source(s, "/v.c", UINT32_MAX, lines, lens, 2), TRACE_E_USAGE);
	cr_assert_eq(trace_pack_add_source(s, "/v.c", UINT32_MAX, lines, lens, 1), 0);
	cr_assert_eq(trace_pack_add_source(s, "/w.c", 7, lines, lens, 1), 0);
	/* The pack's source text: full lines up to the cap, not one more. */
	lens[0] = TRACE_PACK_MAX_LINE - 1;
	for (i = 100; s->source_bytes + TRACE_PACK_MAX_LINE <= TRACE_PACK_MAX_SOURCE; i++)
		cr_assert_eq(trace_pack_add_source(s, "/w.c", i, lines, lens, 1), 0);
	cr_assert_eq(trace_pack_add_source(s, "/w.c", i, lines, lens, 1), TRACE_E_TOOBIG);
	cr_assert_null(trace_pack_source_line(s, "/w.c", i, &len));
	/* What was added up to the caps reads back. */
	{
		struct blob b = write_pack(s);
		struct trace_pack *back;

		cr_assert_eq(trace_pack_load_mem(b.p, b.n, &back), 0);
		cr_assert_eq(back->status.chunks_damaged, 0);
		cr_assert_eq(back->source_bytes, s->source_bytes);
		cr_assert_eq(code_of(back, ident_a, 4, 0x80, 0x200, (const uint8_t **)&t), 0x80);
		trace_pack_free(back);
		free(b.p);
	}
	free(big);
	free(wide);
	trace_pack_free(s);
}

/* Parses one hand-made chunk payload of type type. */
static int parse_as(int type, const struct buf *raw)
{
	struct trace_pack *s = trace_pack_new();
	int r = trace_pack_parse_chunk(s, type, raw->data, raw->len);

	if (r < 0)
		cr_assert(s->nimages == 0 && s->nsources == 0);
	trace_pack_free(s);
	return r;
}

/* A code chunk's payload: identity, path, the count n, then the ranges:
 * (gap, length) pairs, each with length bytes (at most 16) unless cut,
 * as many as there are of n in ranges (2 at most). */
static void code_raw(struct buf *raw, uint64_t n, const uint64_t *ranges, int cut)
{
	static const uint8_t id[4] = { 9, 9, 9, 9 }, bytes[16] = { 0x90 };

	buf_reset(raw);
	buf_addch(raw, TRACE_IDENT_GNU_BUILD_ID);
	buf_put_bytes(raw, id, 4);
	buf_put_bytes(raw, "/p", 2);
	buf_put_uvarint(raw, n);
	for (size_t i = 0; i < n && i < 2; i++) {
		buf_put_uvarint(raw, ranges[2 * i]);
		buf_put_uvarint(raw, ranges[2 * i + 1]);
		if (!cut)
			buf_add(raw, bytes, ranges[2 * i + 1] < 16 ? ranges[2 * i + 1] : 16);
	}
}

Test(trace_pack, hostile_code_chunks_rejected)
{
	static const uint64_t good[] = { 0x100, 4, 0, 4 };  /* adjacent ranges */
	static const uint64_t empty[] = { 0x100, 0, 0, 0 };
	static const uint64_t huge[] = { 0x100, TRACE_PACK_MAX_CODE_RANGE + 1, 0, 0 };
	static const uint64_t wraps[] = { UINT64_MAX - 2, 4, 0, 0 };
	static const uint64_t gap_wraps[] = { UINT64_MAX - 8, 4, 8, 1 };
	struct buf raw;

	buf_init(&raw);
	code_raw(&raw, 2, good, 0);
	cr_assert_eq(parse_as(TRACE_CHUNK_CODE, &raw), 0);
	buf_addstr(&raw, "later");   /* bytes after the ranges */
	cr_assert_eq(parse_as(TRACE_CHUNK_CODE, &raw), 0);
	code_raw(&raw, 0, good, 0);
	cr_assert_lt(parse_as(TRACE_CHUNK_CODE, &raw), 0);
	code_raw(&raw, 1ull << 40, good, 1);
	cr_assert_lt(parse_as(TRACE_CHUNK_CODE, &raw), 0);
	code_raw(&raw, 1, empty, 0);
	cr_assert_lt(parse_as(TRACE_CHUNK_CODE, &raw), 0);
	code_raw(&raw, 1, huge, 1);
	cr_assert_lt(parse_as(TRACE_CHUNK_CODE, &raw), 0);
	code_raw(&raw, 1, wraps, 0);
	cr_assert_lt(parse_as(TRACE_CHUNK_CODE, &raw), 0);
	code_raw(&raw, 2, gap_wraps, 0);
	cr_assert_lt(parse_as(TRACE_CHUNK_CODE, &raw), 0);
	code_raw(&raw, 2, good, 0);
	raw.len--;   /* the last range's bytes cut short */
	cr_assert_lt(parse_as(TRACE_CHUNK_CODE, &raw), 0);
	/* An identity that is none. */
	code_raw(&raw, 2, good, 0);
	raw.data[0] = TRACE_IDENT_NONE;
	cr_assert_lt(parse_as(TRACE_CHUNK_CODE, &raw), 0);
	buf_release(&raw);
}

/* A sources chunk's payload of one file at path: its runs as (gap,
 * lines) pairs, each line "l" unless long is set (then one line of
 * TRACE_PACK_MAX_LINE + 1 bytes). */
static void sources_raw(struct buf *raw, uint64_t nfiles, const char *path, size_t nruns,
			const uint64_t *runs, int long_line)
{
	buf_reset(raw);
	buf_put_uvarint(raw, nfiles);
	buf_put_bytes(raw, path, strlen(path));
	buf_put_uvarint(raw, nruns);
	for (size_t i = 0; i < nruns; i++) {
		buf_put_uvarint(raw, runs[2 * i]);
		buf_put_uvarint(raw, runs[2 * i + 1]);
		for (uint64_t k = 0; k < runs[2 * i + 1] && k < 4; k++) {
			if (long_line) {
				buf_put_uvarint(raw, TRACE_PACK_MAX_LINE + 1);
				for (int j = 0; j <= TRACE_PACK_MAX_LINE; j++)
					buf_addch(raw, 'z');
			} else {
				buf_put_bytes(raw, "l", 1);
			}
		}
	}
}

Test(trace_pack, hostile_sources_chunks_rejected)
{
	static const uint64_t good[] = { 0, 2, 0, 1 };          /* lines 1-2, 3 */
	static const uint64_t empty[] = { 0, 0 };
	static const uint64_t past[] = { UINT32_MAX - 1, 2 };    /* lines 2^32-1, 2^32 */
	static const uint64_t last[] = { UINT32_MAX - 1, 1 };    /* line 2^32-1 */
	static const uint64_t after_last[] = { UINT32_MAX - 1, 1, 0, 1 };
	static const uint64_t gap_wraps[] = { 0, 1, UINT64_MAX, 1 };
	struct trace_pack *s;
	struct buf raw;
	size_t len;

	buf_init(&raw);
	sources_raw(&raw, 1, "/s.c", 2, good, 0);
	cr_assert_eq(parse_as(TRACE_CHUNK_SOURCES, &raw), 0);
	s = trace_pack_new();
	buf_addstr(&raw, "later");   /* bytes after the files */
	cr_assert_eq(trace_pack_parse_chunk(s, TRACE_CHUNK_SOURCES, raw.data, raw.len), 0);
	cr_assert_str_eq(trace_pack_source_line(s, "/s.c", 3, &len), "l");
	cr_assert_null(trace_pack_source_line(s, "/s.c", 4, &len));
	trace_pack_free(s);
	sources_raw(&raw, 1, "/s.c", 1, last, 0);
	cr_assert_eq(parse_as(TRACE_CHUNK_SOURCES, &raw), 0);

	sources_raw(&raw, 0, "/s.c", 2, good, 0);
	cr_assert_lt(parse_as(TRACE_CHUNK_SOURCES, &raw), 0);
	sources_raw(&raw, 1ull << 40, "/s.c", 2, good, 0);
	cr_assert_lt(parse_as(TRACE_CHUNK_SOURCES, &raw), 0);
	sources_raw(&raw, 2, "/s.c", 2, good, 0);   /* the second file missing */
	cr_assert_lt(parse_as(TRACE_CHUNK_SOURCES, &raw), 0);
	sources_raw(&raw, 1, "", 2, good, 0);
	cr_assert_lt(parse_as(TRACE_CHUNK_SOURCES, &raw), 0);
	sources_raw(&raw, 1, "/s.c", 0, good, 0);
	cr_assert_lt(parse_as(TRACE_CHUNK_SOURCES, &raw), 0);
	sources_raw(&raw, 1, "/s.c", 1, empty, 0);
	cr_assert_lt(parse_as(TRACE_CHUNK_SOURCES, &raw), 0);
	sources_raw(&raw, 1, "/s.c", 1, past, 0);
	cr_assert_lt(parse_as(TRACE_CHUNK_SOURCES, &raw), 0);
	sources_raw(&raw, 1, "/s.c", 2, after_last, 0);
	cr_assert_lt(parse_as(TRACE_CHUNK_SOURCES, &raw), 0);
	sources_raw(&raw, 1, "/s.c", 2, gap_wraps, 0);
	cr_assert_lt(parse_as(TRACE_CHUNK_SOURCES, &raw), 0);
	sources_raw(&raw, 1, "/s.c", 1, last, 1);
	cr_assert_lt(parse_as(TRACE_CHUNK_SOURCES, &raw), 0);
	sources_raw(&raw, 1, "/s.c", 2, good, 0);
	raw.len--;   /* the last line cut short */
	cr_assert_lt(parse_as(TRACE_CHUNK_SOURCES, &raw), 0);
	buf_release(&raw);
}

/* --- serving frames --------------------------------------------------- */

static struct symbolize *pack_symbolizer(const struct trace *t, struct pack *p, int lines,
					 int no_inline)
{
	struct symbolize_opts o = { .debug_root = "", .debuginfod_cache = "", .pack = p,
				    .lines = lines, .no_inline = no_inline };
	struct symbolize *sym;

	sym = symbolize_new(t, &o);
	return sym;
}

/* The frames of addr as "name|name|...", innermost first. */
static char *frames_of(struct symbolize *sym, uint64_t addr, int leaf)
{
	const struct symbolize_frame *fr;
	struct buf b;
	size_t n;

	n = symbolize_addr(sym, 0, addr, 100, leaf, &fr);
	buf_init(&b);
	for (size_t i = 0; i < n; i++)
		buf_addf(&b, "%s%s%s", i ? "|" : "", fr[i].name, fr[i].resolved ? "" : "?");
	buf_addch(&b, 0);
	return buf_detach(&b);
}

#define CHECK_FRAMES(sym, addr, leaf, want)                  \
	do {                                                 \
		char *got_ = frames_of(sym, addr, leaf);     \
		cr_assert_str_eq(got_, want);                \
		free(got_);                                  \
	} while (0)

Test(pack, serves_images_without_a_file)
{
	struct trace t;
	struct pack *p = pack_new();
	struct symbolize *sym;

	make_trace(&t);
	pack_add(p, sample_pack(), "x.syms", 1);
	sym = pack_symbolizer(&t, p, 0, 0);
	/* A leaf is looked up at its offset, a return address one before. */
	CHECK_FRAMES(sym, 0x1200, 1, "a0|a1|a2");
	CHECK_FRAMES(sym, 0x1100, 0, "main0");
	CHECK_FRAMES(sym, 0x1300, 1, "b0");
	/* Not in the pack: unresolved, as without one. */
	CHECK_FRAMES(sym, 0x1300, 0, "libfake.so+0x300?");
	cr_assert_not_null(symbolize_image_pack(sym, 0));
	cr_assert_str_eq(pack_image_origin(symbolize_image_pack(sym, 0)), "x.syms");
	cr_assert_eq(pack_image_naddrs(symbolize_image_pack(sym, 0)), 3);
	symbolize_free(sym);

	sym = pack_symbolizer(&t, p, 1, 0);
	CHECK_FRAMES(sym, 0x1200, 1, "a0 (a.c:10)|a1 (a.c:11)|a2 (a.c:12)");
	CHECK_FRAMES(sym, 0x1300, 1, "b0");
	symbolize_free(sym);
	sym = pack_symbolizer(&t, p, 1, 1);
	CHECK_FRAMES(sym, 0x1200, 1, "a2 (a.c:12)");
	symbolize_free(sym);
	pack_free(p);
}

Test(pack, another_identity_is_never_served)
{
	struct trace t;
	struct trace_image other = image;
	struct pack *p = pack_new();
	struct symbolize *sym;

	other.ident[3] ^= 1;
	make_trace(&t);
	t.images = &other;
	pack_add(p, sample_pack(), "x.syms", 1);
	sym = pack_symbolizer(&t, p, 0, 0);
	CHECK_FRAMES(sym, 0x1200, 1, "libfake.so+0x200?");
	cr_assert_null(symbolize_image_pack(sym, 0));
	symbolize_free(sym);
	pack_free(p);
}

Test(pack, first_pack_with_the_identity_serves_it)
{
	struct trace t;
	struct pack *p = pack_new();
	struct trace_pack *second = sample_pack();
	struct symbolize *sym;

	free(second->images[0].strings[second->images[0].frames[1].name]);
	second->images[0].strings[second->images[0].frames[1].name] = strdup("other");
	make_trace(&t);
	pack_add(p, sample_pack(), "first.syms", 1);
	pack_add(p, second, "second.syms", 1);
	sym = pack_symbolizer(&t, p, 0, 0);
	CHECK_FRAMES(sym, 0x1200, 1, "a0|a1|a2");
	cr_assert_str_eq(pack_image_origin(symbolize_image_pack(sym, 0)), "first.syms");
	symbolize_free(sym);
	pack_free(p);
}

/* Code comes with the image's frames, from the pack that serves them;
 * a source file from the first pack that holds it, all its lines. */
Test(pack, serves_code_and_source_lines)
{
	static const char *const other_a[] = { "other text", "second pack", "line 3" };
	static const char *const only[] = { "only in the second" };
	struct pack *p = pack_new();
	struct trace_pack *second = trace_pack_new();
	const struct pack_image *pi;
	const uint8_t *code;
	size_t len;

	add_run(second, "/src/a.c", 1, other_a, 3);
	add_run(second, "/src/only.c", 7, only, 1);
	pack_add(p, full_pack(), "first.syms", 1);
	pack_add(p, second, "second.syms", 1);
	pi = pack_find(p, &image);
	cr_assert_not_null(pi);
	cr_assert_eq(pack_image_code(pi, 0x1f9, 16, &code), 4);
	cr_assert_eq(memcmp(code, code_a + 1, 4), 0);
	cr_assert_eq(pack_image_code(pi, 0x300, 16, &code), 0);
	cr_assert_null(code);

	cr_assert_not_null(pack_source_origin(p, "/src/a.c"));
	cr_assert_not_null(pack_source_origin(p, "/src/only.c"));
	cr_assert_null(pack_source_origin(p, "/src/none.c"));
	cr_assert_null(pack_source_origin(NULL, "/src/a.c"));
	cr_assert_str_eq(pack_source_line(p, "/src/a.c", 1, &len), "static int a(void)");
	cr_assert_eq(len, 18);
	/* The first pack holds the file, not the line: the second is not
	 * asked, as its text may be of another version of the file. */
	cr_assert_null(pack_source_line(p, "/src/a.c", 3, &len));
	cr_assert_eq(len, 0);
	cr_assert_str_eq(pack_source_line(p, "/src/only.c", 7, &len), "only in the second");
	cr_assert_null(pack_source_line(p, "/src/none.c", 1, &len));
	pack_free(p);
}

Test(pack, rebuilt_from_a_pack_it_is_the_same)
{
	struct trace t;
	struct pack *p = pack_new(), *have;
	struct trace_pack *built, *again;
	struct pack_build_stats st;
	struct symbolize *sym;
	struct stacks *stacks;
	char *got;

	make_trace(&t);
	pack_add(p, sample_pack(), "x.syms", 1);
	sym = pack_symbolizer(&t, p, 0, 0);
	stacks = stacks_new(&t, sym);
	built = pack_build(stacks, &(struct pack_build_opts){ .sym = sym }, &st);
	/* The trace samples 0x1200 and 0x1300 as leaves under 0x1100, and
	 * 0x9000, in no image: the pack's three addresses in use. */
	cr_assert_eq(st.images, 1);
	cr_assert_eq(st.addrs, 3);
	cr_assert_eq(st.frames, 5);
	got = describe(built);
	cr_assert_str_eq(got, "image 1/4 /nonexistent/libfake.so\n"
			      " 0xff: main0@main.c:10/1\n"
			      " 0x200: a0@a.c:10/1 a1@a.c:11/1[void a1(int)] a2@a.c:12/1[int a2<int>(int, char*)]\n"
			      " 0x300: b0@-:10/1\n");
	free(got);
	free(st.used);
	free(st.named);
	/* What a pack already holds is not built again. */
	have = pack_new();
	pack_add(have, built, "embedded", 1);
	again = pack_build(stacks, &(struct pack_build_opts){ .have = have, .sym = sym }, &st);
	cr_assert_eq(st.addrs, 0);
	free(st.used);
	free(st.named);
	trace_pack_free(again);
	stacks_free(stacks);
	symbolize_free(sym);
	pack_free(have);
	pack_free(p);
}

/* --- building code and sources ------------------------------------------ */

#define FIX_BIAS 0x555500000000ull

static char fix_exe[PATH_MAX + 32];
static struct trace_image fix_image;
static struct trace_node fix_nodes[4];
static struct trace_sample fix_samples[2];

/* The trace of the symbols fixture, mapped in *m, that test_report.c
 * writes, in memory: main -> beta -> alpha sampled, and main -> beta. */
static void fixture_trace(struct trace *t, struct mapped *m)
{
	struct elf_file e;
	const uint8_t *id;
	size_t n;

	find_build_dir();
	snprintf(fix_exe, sizeof(fix_exe), "%s/testdata/symbols", build_dir);
	*m = must_map(fix_exe);
	cr_assert_eq(elf_parse(&e, m->p, m->n), 0);
	cr_assert_eq(elf_build_id(&e, &id, &n), 0);
	fix_image = (struct trace_image){ .id = 1, .ident_kind = TRACE_IDENT_GNU_BUILD_ID,
					  .ident_len = (uint8_t)n, .arch = TRACE_ARCH_X86_64,
					  .path = fix_exe, .start = FIX_BIAS, .size = 0x10000,
					  .bias = FIX_BIAS };
	memcpy(fix_image.ident, id, n);
	fix_nodes[1] = (struct trace_node){ FIX_BIAS + nm_addr(fix_exe, "main") + 5, 0 };
	fix_nodes[2] = (struct trace_node){ FIX_BIAS + nm_addr(fix_exe, "beta") + 5, 1 };
	fix_nodes[3] = (struct trace_node){ FIX_BIAS + nm_addr(fix_exe, "alpha") + 1, 2 };
	fix_samples[0] = (struct trace_sample){ 100, 10, 3, TRACE_STATE_RUNNING, 0, 0 };
	fix_samples[1] = (struct trace_sample){ 110, 10, 2, TRACE_STATE_RUNNING, 0, 0 };
	make_trace(t);
	t->images = &fix_image;
	t->nodes = fix_nodes;
	t->nnodes = 4;
	t->samples = fix_samples;
	t->nsamples = 2;
}

static struct symbolize *file_symbolizer(const struct trace *t)
{
	return symbolize_new(t, &(struct symbolize_opts){ .debug_root = "", .debuginfod_cache = "" });
}

Test(pack_build, asm_stores_the_code_of_sampled_functions_as_the_binary_has_it)
{
	static const char *const fn[] = { "alpha", "beta", "main" };
	struct trace t;
	struct mapped m;
	struct elf_file e;
	struct elf_section text;
	struct symbolize *sym;
	struct stacks *stacks;
	struct trace_pack *built, *back, *plain, *again;
	struct pack_build_stats st;
	struct pack *have = pack_new();
	uint64_t total = 0;
	struct blob b;

	fixture_trace(&t, &m);
	cr_assert_eq(elf_parse(&e, m.p, m.n), 0);
	cr_assert_eq(elf_section_by_name(&e, ".text", &text), 0);
	sym = file_symbolizer(&t);
	stacks = stacks_new(&t, sym);
	built = pack_build(stacks, &(struct pack_build_opts){ .sym = sym, .code = 1 }, &st);
	cr_assert_eq(st.functions, 3);
	cr_assert_eq(st.code_missing, 0);
	free(st.used);
	free(st.named);
	/* Written and read back, served by the pack: each function whole,
	 * from its symbol's address for its size, byte for byte the file's. */
	b = write_pack(built);
	cr_assert_eq(trace_pack_load_mem(b.p, b.n, &back), 0);
	pack_add(have, back, "fixture.syms", 1);
	for (size_t i = 0; i < 3; i++) {
		uint64_t size, at = nm_symbol("nm", fix_exe, fn[i], &size);
		const uint8_t *code;

		cr_assert_gt(size, 0);
		cr_assert_eq(pack_image_code(pack_find(have, &fix_image), at, UINT64_MAX, &code), size,
			     "%s", fn[i]);
		cr_assert_eq(memcmp(code, m.p + text.offset + (at - text.addr), size), 0, "%s", fn[i]);
		total += size;
	}
	cr_assert_eq(st.code_bytes, total);

	/* Off by default; and what a pack holds is not stored again. */
	plain = pack_build(stacks, &(struct pack_build_opts){ .sym = sym }, &st);
	cr_assert(plain->nimages == 1 && plain->images[0].ncode == 0);
	cr_assert_eq(st.functions, 0);
	free(st.used);
	free(st.named);
	again = pack_build(stacks, &(struct pack_build_opts){ .have = have, .sym = sym, .code = 1 },
			   &st);
	cr_assert_eq(st.addrs + st.functions + st.code_missing, 0);
	free(st.used);
	free(st.named);
	trace_pack_free(again);
	trace_pack_free(plain);
	trace_pack_free(built);
	pack_free(have);
	free(b.p);
	stacks_free(stacks);
	symbolize_free(sym);
	munmap(m.p, m.n);
}

/* The lines of the file at path, without their newlines; *n gets how
 * many. The caller frees each and the array. */
static char **read_lines(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	char **v = NULL, *line = NULL;
	size_t cap = 0;
	ssize_t len;

	cr_assert_not_null(f, "cannot open %s", path);
	*n = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		if (len && line[len - 1] == '\n')
			line[len - 1] = 0;
		v = realloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = strdup(line);
	}
	free(line);
	fclose(f);
	return v;
}

Test(pack_build, sources_store_the_lines_of_the_frames_with_context)
{
	struct srcfile *finder = srcfile_new(NULL);
	static const int leaf[] = { 1, 0, 0 };
	struct trace t;
	struct mapped m;
	struct symbolize *sym;
	struct stacks *stacks;
	struct trace_pack *built, *plain, *again;
	struct pack_build_stats st;
	struct pack *have = pack_new();
	const char *file = NULL;
	uint32_t want[16];
	size_t nwant = 0, nlines, stored = 0, len;
	char **lines;

	fixture_trace(&t, &m);
	sym = file_symbolizer(&t);
	/* The lines the frames name, as the symbolizer gives them. */
	for (size_t i = 0; i < 3; i++) {
		const struct symbolize_frame *fr;
		size_t n = symbolize_addr(sym, 0, fix_nodes[3 - i].addr, 100, leaf[i], &fr);

		for (size_t k = 0; k < n; k++) {
			cr_assert(fr[k].file && fr[k].line, "the fixture has line tables");
			cr_assert(!file || !strcmp(file, fr[k].file));
			file = fr[k].file;
			want[nwant++] = fr[k].line;
		}
	}
	stacks = stacks_new(&t, sym);
	built = pack_build(stacks, &(struct pack_build_opts){ .sym = sym, .sources = 1, .source = finder }, &st);
	cr_assert_eq(st.sources_missing, 0);
	cr_assert_eq(st.source_files, 1);
	/* Each line of the file is there, as the file has it, exactly when a
	 * frame's line is at most PACK_BUILD_CONTEXT lines away. */
	lines = read_lines(file, &nlines);
	for (size_t l = 1; l <= nlines + 1; l++) {
		const char *got = trace_pack_source_line(built, file, (uint32_t)l, &len);
		int near = 0;

		for (size_t k = 0; k < nwant; k++)
			near |= l + PACK_BUILD_CONTEXT >= want[k] && l <= want[k] + PACK_BUILD_CONTEXT;
		if (!near || l > nlines) {
			cr_assert_null(got, "line %zu", l);
			continue;
		}
		cr_assert_not_null(got, "line %zu", l);
		cr_assert_str_eq(got, lines[l - 1], "line %zu", l);
		cr_assert_eq(len, strlen(lines[l - 1]));
		stored++;
	}
	cr_assert_eq(st.source_lines, stored);
	cr_assert_gt(stored, 2 * PACK_BUILD_CONTEXT);
	cr_assert_lt(stored, nlines, "the file's other lines are not stored");
	free(st.used);
	free(st.named);

	/* Off by default; and what a pack holds is not stored again. */
	plain = pack_build(stacks, &(struct pack_build_opts){ .sym = sym }, &st);
	cr_assert_eq(plain->nsources, 0);
	cr_assert_eq(st.source_lines + st.source_files, 0);
	free(st.used);
	free(st.named);
	pack_add(have, built, "built", 1);
	again = pack_build(stacks, &(struct pack_build_opts){ .have = have, .sym = sym, .sources = 1, .source = finder },
			   &st);
	cr_assert_eq(again->nsources, 0);
	cr_assert_eq(st.source_lines, 0);
	free(st.used);
	free(st.named);
	for (size_t i = 0; i < nlines; i++)
		free(lines[i]);
	free(lines);
	trace_pack_free(again);
	trace_pack_free(plain);
	pack_free(have);
	stacks_free(stacks);
	symbolize_free(sym);
	munmap(m.p, m.n);
	srcfile_free(finder);
}

/* Runs of lines a pack serves in a file with CRLF line ends and no newline
 * at its end: each frame's line with its context, runs whose contexts
 * meet merged, lines a pack held left out, and a file that cannot be
 * read named. */
Test(pack_build, sources_runs_crlf_held_lines_and_missing_files)
{
	struct srcfile *finder = srcfile_new(NULL);
	char dir[] = "/tmp/test_pack.XXXXXX", path[64], text[16];
	const char *one[] = { "held" };
	size_t one_len[] = { 4 }, len;
	struct trace t;
	struct trace_pack *tp = trace_pack_new(), *built;
	struct trace_pack_image *img;
	struct pack *p = pack_new(), *have = pack_new();
	struct trace_pack *held = trace_pack_new();
	struct pack_build_stats st;
	struct symbolize *sym;
	struct stacks *stacks;
	const struct trace_pack_source *src;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a.c", dir);
	f = fopen(path, "w");
	for (int l = 1; l <= 60; l++)
		fprintf(f, l < 60 ? "line %d\r\n" : "line %d", l);
	fclose(f);
	/* 0x200: lines 10 to 12 of a.c; 0x300: line 57; 0xff: a file that is
	 * not there. */
	img = trace_pack_add_image(tp, image.ident_kind, image.ident, image.ident_len, image.path);
	add_addr(img, 0xff, 1, "main", "/nonexistent/main.c");
	add_addr(img, 0x200, 3, "a", path);
	add_addr(img, 0x300, 1, "b", path);
	img->frames[img->nframes - 1].line = 57;
	pack_add(p, tp, "x.syms", 1);
	/* A pack that holds lines 5 to 8 already. */
	cr_assert_eq(trace_pack_add_source(held, path, 5, one, one_len, 1), 0);
	cr_assert_eq(trace_pack_add_source(held, path, 8, one, one_len, 1), 0);
	pack_add(have, held, "held", 1);

	make_trace(&t);
	sym = pack_symbolizer(&t, p, 0, 0);
	stacks = stacks_new(&t, sym);
	built = pack_build(stacks, &(struct pack_build_opts){ .have = have, .sym = sym, .sources = 1, .source = finder },
			   &st);
	cr_assert_eq(built->nsources, 1);
	src = &built->sources[0];
	cr_assert_str_eq(src->path, path);
	/* 5 to 17, without 5 and 8; 52 to 60, the end of the file. */
	cr_assert_eq(src->nruns, 3);
	cr_assert(src->runs[0].first == 6 && src->runs[0].n == 2);
	cr_assert(src->runs[1].first == 9 && src->runs[1].n == 9);
	cr_assert(src->runs[2].first == 52 && src->runs[2].n == 9);
	cr_assert_eq(st.source_lines, 20);
	cr_assert_eq(st.source_files, 1);
	for (uint32_t l = 52; l <= 60; l++) {
		snprintf(text, sizeof(text), "line %u", l);
		cr_assert_str_eq(trace_pack_source_line(built, path, l, &len), text);
		cr_assert_eq(len, strlen(text));
	}
	cr_assert_eq(st.sources_missing, 1);
	cr_assert_str_eq(st.missing, "/nonexistent/main.c");
	cr_assert_str_eq(st.missing_why, "No such file or directory");
	/* An image no file serves gives no code. */
	free(st.used);
	free(st.named);
	free(st.missing);
	trace_pack_free(built);
	built = pack_build(stacks, &(struct pack_build_opts){ .sym = sym, .code = 1 }, &st);
	cr_assert_eq(st.functions, 0);
	cr_assert_eq(st.code_missing, 3);
	free(st.used);
	free(st.named);
	trace_pack_free(built);
	stacks_free(stacks);
	symbolize_free(sym);
	pack_free(p);
	pack_free(have);
	unlink(path);
	rmdir(dir);
	srcfile_free(finder);
}
