/*
 * trace_chunk.c: the container below the records, for every prof file: a
 * file header, then chunks, each a checksummed header and one zstd frame.
 *
 * Writing goes through a sink that compresses a chunk's bytes as one frame
 * with its content checksum and writes header and frame in one loop,
 * never seeking; after a failed write it cuts a regular file back to its
 * last whole chunk. Reading walks the chunks of a whole file held in
 * memory. Each chunk header carries its own checksum, so a length is
 * believed only once the header is intact, and is then checked against
 * the bytes that remain and against TRACE_MAX_CHUNK before anything is
 * allocated; the zstd frame must declare exactly the raw length and carry
 * a content checksum, so a decompressed chunk is either exactly what was
 * written or rejected. The walk follows the sequence numbers, so that it
 * can name what is gone: numbers that never appear are missing chunks, a
 * chunk that is there but fails is damaged (and skipped by its length,
 * which its header vouches for, unless its frame fails its checksums and
 * holds the next intact header: a torn write), bytes between intact
 * chunks are damaged too, and only a chunk that the end of the file runs
 * into is cut. What the chunks hold is the business of their readers:
 * the trace's records (format/trace_reader.c) and symbol packs
 * (format/trace_pack.c).
 */
#include "format/trace_chunk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include "common/bytes.h"
#include "common/diag.h"
#include "format/trace.h"

/* Level 3 is zstd's default: cheap enough for a once-a-second flush, and the
 * sample columns gain little from higher levels. */
#define CHUNK_ZSTD_LEVEL 3
/* zstd window log accepted: a chunk never exceeds TRACE_MAX_CHUNK, so no
 * honest frame needs a larger window. */
#define CHUNK_WINDOW_LOG_MAX 26

/* --- headers -------------------------------------------------------------- */

void trace_file_header_encode(uint8_t *p, const char *magic, uint16_t major, uint16_t minor)
{
	memcpy(p, magic, TRACE_MAGIC_LEN);
	put_le16(p + 8, major);
	put_le16(p + 10, minor);
	put_le32(p + 12, XXH32(p, 12, 0));
}

int trace_file_header_check(const uint8_t *p, size_t n, const char *magic, uint16_t *major,
			    uint16_t *minor)
{
	/* An empty file, or one cut inside the magic: a writer that stopped
	 * before its first chunk (which goes out with the header). */
	if (n < TRACE_MAGIC_LEN)
		return n == 0 || memcmp(p, magic, n) == 0 ? TRACE_E_EMPTY : TRACE_E_MAGIC;
	if (memcmp(p, magic, TRACE_MAGIC_LEN) != 0)
		return TRACE_E_MAGIC;
	if (n < TRACE_HEADER_LEN)
		return TRACE_E_EMPTY;
	if (get_le32(p + 12) != XXH32(p, 12, 0))
		return TRACE_E_CORRUPT;
	*major = get_le16(p + 8);
	*minor = get_le16(p + 10);
	if (*major > TRACE_FORMAT_MAJOR) {
		prof_error_note(TRACE_E_MAJOR,
				"trace format version %u.%u is newer than this prof supports (%d.x); upgrade prof",
				*major, *minor, TRACE_FORMAT_MAJOR);
		return TRACE_E_MAJOR;
	}
	return *major < 1 ? TRACE_E_CORRUPT : 0;
}

void trace_chunk_header_encode(uint8_t *p, const struct trace_chunk_header *h)
{
	memcpy(p, TRACE_SYNC, TRACE_SYNC_LEN);
	put_le16(p + 4, h->type);
	put_le16(p + 6, h->flags);
	put_le32(p + 8, h->seq);
	put_le32(p + 12, h->raw_len);
	put_le32(p + 16, h->comp_len);
	put_le32(p + 20, XXH32(p, 20, 0));
}

int trace_chunk_header_decode(const uint8_t *p, struct trace_chunk_header *h)
{
	if (memcmp(p, TRACE_SYNC, TRACE_SYNC_LEN) != 0)
		return TRACE_E_CORRUPT;
	if (get_le32(p + 20) != XXH32(p, 20, 0))
		return TRACE_E_CORRUPT;
	h->type = get_le16(p + 4);
	h->flags = get_le16(p + 6);
	h->seq = get_le32(p + 8);
	h->raw_len = get_le32(p + 12);
	h->comp_len = get_le32(p + 16);
	return 0;
}

/* --- strings ------------------------------------------------------------- */

void trace_put_string(struct buf *b, const char *s)
{
	buf_put_bytes(b, s, strlen(s));
}

char *trace_get_string(struct cursor *c)
{
	const uint8_t *p;
	size_t len;

	if (cursor_bytes(c, TRACE_MAX_STRING, &p, &len) < 0)
		return NULL;
	return xstrndup((const char *)p, len);
}

/* --- reading -------------------------------------------------------------- */

static int read_file(const char *path, uint8_t **out, size_t *outlen)
{
	uint8_t *data = NULL;
	size_t len = 0, cap = 0;
	struct stat st;
	int fd, r = 0;

	*out = NULL;
	*outlen = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		r = -EISDIR;
		goto out;
	}
	/* read(2) rather than mmap: a file truncated under us must not turn
	 * into SIGBUS. Pipes and devices are read to their end. */
	if (S_ISREG(st.st_mode) && st.st_size > 0)
		data = xgrow(NULL, &cap, (size_t)st.st_size + 1, 1);
	for (;;) {
		ssize_t got;
		if (len == cap)
			data = xgrow(data, &cap, len + 65536, 1);
		got = read(fd, data + len, cap - len);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto out;
		}
		if (got == 0)
			break;
		len += (size_t)got;
	}
out:
	close(fd);
	if (r < 0) {
		free(data);
		return r;
	}
	*out = data;
	*outlen = len;
	return 0;
}

int trace_load_path(const char *path, int (*load)(const void *p, size_t n, void *out), void *out)
{
	uint8_t *data;
	size_t len;
	int r;

	if (!path)
		return TRACE_E_USAGE;
	if ((r = read_file(path, &data, &len)) < 0)
		return r;
	r = load(data, len, out);
	free(data);
	return r;
}

/* Checks that p holds exactly one zstd frame with a content checksum that
 * declares raw_len bytes. */
static int check_frame(const uint8_t *p, size_t n, uint32_t raw_len)
{
	unsigned long long content;
	size_t size;

	if (n < 6 || get_le32(p) != TRACE_ZSTD_MAGIC)
		return TRACE_E_CORRUPT;
	if (!(p[4] & 0x04)) /* Content_Checksum_flag of the frame header */
		return TRACE_E_CORRUPT;
	content = ZSTD_getFrameContentSize(p, n);
	if (content == ZSTD_CONTENTSIZE_UNKNOWN || content == ZSTD_CONTENTSIZE_ERROR)
		return TRACE_E_CORRUPT;
	if (content != raw_len)
		return TRACE_E_CORRUPT;
	size = ZSTD_findFrameCompressedSize(p, n);
	if (ZSTD_isError(size) || size != n)
		return TRACE_E_CORRUPT;
	return 0;
}

/* The first position in [from, to] where an intact chunk header starts, or
 * SIZE_MAX. */
static size_t next_header(const uint8_t *p, size_t n, size_t from, size_t to)
{
	struct trace_chunk_header h;

	if (n < TRACE_CHUNK_HEADER_LEN)
		return SIZE_MAX;
	if (to > n - TRACE_CHUNK_HEADER_LEN)
		to = n - TRACE_CHUNK_HEADER_LEN;
	for (size_t pos = from; pos <= to; pos++) {
		const uint8_t *q = memmem(p + pos, to - pos + TRACE_SYNC_LEN, TRACE_SYNC, TRACE_SYNC_LEN);
		if (!q)
			break;
		pos = (size_t)(q - p);
		if (trace_chunk_header_decode(p + pos, &h) == 0)
			return pos;
	}
	return SIZE_MAX;
}

void trace_load_status_release(struct trace_load_status *st)
{
	free(st->losses);
	st->losses = NULL;
	st->nlosses = 0;
}

void trace_loss_note(struct trace_load_status *st, const struct trace_loss *loss)
{
	switch (loss->kind) {
	case TRACE_LOSS_MISSING:
		st->chunks_missing += loss->nseq;
		break;
	case TRACE_LOSS_DAMAGED:
		st->chunks_damaged += loss->nseq;
		st->bytes_damaged += loss->bytes;
		break;
	case TRACE_LOSS_CUT:
		st->bytes_cut += loss->bytes;
		break;
	}
	if (st->nlosses >= TRACE_MAX_LOSSES) {
		st->losses_unlisted++;
		return;
	}
	/* Grown by doubling: the count is a power of two when it is full. */
	if (!(st->nlosses & (st->nlosses - 1)))
		st->losses = xrealloc(st->losses, (st->nlosses ? 2 * st->nlosses : 1) * sizeof(*loss));
	st->losses[st->nlosses++] = *loss;
}

/* One walk over a file's chunks. */
struct walk {
	const uint8_t *p;
	size_t n;
	const struct trace_walk *w;
	struct trace_load_status *st;
	uint64_t expect;   /* the sequence number the next chunk should have */
	int footer;        /* a footer was read: only other types may follow */
	ZSTD_DCtx *dctx;
	uint8_t *raw;      /* a decompressed chunk */
	size_t cap;
};

static uint8_t held(uint16_t type)
{
	switch (type) {
	case TRACE_CHUNK_DATA: return TRACE_HELD_RECORDS;
	case TRACE_CHUNK_FOOTER: return TRACE_HELD_FOOTER;
	case TRACE_CHUNK_PACK:
	case TRACE_CHUNK_CODE:
	case TRACE_CHUNK_SOURCES: return TRACE_HELD_SYMBOLS;
	default: return TRACE_HELD_OTHER;
	}
}

static uint32_t seq32(uint64_t seq)
{
	return seq > UINT32_MAX ? UINT32_MAX : (uint32_t)seq;
}

/* Notes loss l, stamped with where the reader is. */
static void note(struct walk *k, struct trace_loss l)
{
	l.samples_before = k->w->mark ? k->w->mark(k->w->ctx) : 0;
	trace_loss_note(k->st, &l);
}

/* Notes the chunk at pos, with an intact header h and bytes bytes in the
 * file, as damaged, and takes its sequence number. */
static void damaged_chunk(struct walk *k, const struct trace_chunk_header *h, int why, size_t pos,
			  size_t bytes)
{
	note(k, (struct trace_loss){ .kind = TRACE_LOSS_DAMAGED, .damage = (uint8_t)why,
				     .held = held(h->type),
				     .seq = h->seq, .nseq = 1, .offset = pos,
				     .bytes = bytes });
	if (h->seq >= k->expect)
		k->expect = (uint64_t)h->seq + 1;
}

/* Bytes from start to end that are no chunk, before an intact chunk
 * header with sequence number seq: they held the chunks whose numbers
 * are skipped, if any. */
static void damaged_bytes(struct walk *k, size_t start, size_t end, uint64_t seq)
{
	uint64_t nseq = seq > k->expect ? seq - k->expect : 0;

	note(k, (struct trace_loss){ .kind = TRACE_LOSS_DAMAGED, .damage = TRACE_DAMAGE_HEADER,
				     .seq = seq32(k->expect), .nseq = seq32(nseq),
				     .offset = start, .bytes = end - start });
	k->expect += nseq;
}

enum { CHUNK_USED, CHUNK_SKIPPED, CHUNK_DAMAGED };

/* Reads the chunk at pos, whose header h is intact and whose frame is in
 * bounds. Returns CHUNK_USED, CHUNK_SKIPPED, or CHUNK_DAMAGED with *why
 * set to an enum trace_damage. A chunk out of place (out of sequence, or
 * after the footer) is not used, but its frame is decompressed all the
 * same: only a frame that passes its checksums is known to be whole, and
 * one that is not may have been torn by the chunk after it. */
static int walk_chunk(struct walk *k, const struct trace_chunk_header *h, size_t pos, int *why)
{
	const struct trace_walk *w = k->w;
	const uint8_t *frame = k->p + pos + TRACE_CHUNK_HEADER_LEN;
	int misplaced = 0;
	size_t got;

	if (h->seq < k->expect)
		misplaced = TRACE_DAMAGE_SEQUENCE;
	else if (k->footer && (h->type == TRACE_CHUNK_DATA || h->type == TRACE_CHUNK_FOOTER))
		misplaced = TRACE_DAMAGE_AFTER_FOOTER;
	if (check_frame(frame, h->comp_len, h->raw_len) < 0) {
		*why = TRACE_DAMAGE_FRAME;
		return CHUNK_DAMAGED;
	}
	if (!misplaced && (h->type >= 32 || !(w->types & (1u << h->type))))
		return CHUNK_SKIPPED;
	if (h->raw_len + 1 > k->cap) {
		free(k->raw);
		k->cap = h->raw_len + 1;
		k->raw = xmalloc(k->cap);
	}
	got = ZSTD_decompressDCtx(k->dctx, k->raw, k->cap, frame, h->comp_len);
	if (ZSTD_isError(got) || got != h->raw_len) {
		*why = TRACE_DAMAGE_CONTENT;
		return CHUNK_DAMAGED;
	}
	if (misplaced) {
		*why = misplaced;
		return CHUNK_DAMAGED;
	}
	if (w->fn(w->ctx, &(struct trace_chunk){ .h = *h, .offset = pos, .raw = k->raw, .len = got }) < 0) {
		*why = TRACE_DAMAGE_RECORD;
		return CHUNK_DAMAGED;
	}
	if (h->type == TRACE_CHUNK_FOOTER)
		k->footer = 1;
	return CHUNK_USED;
}

/* Whether the n bytes at p could be the start of a chunk header. */
static int header_prefix(const uint8_t *p, size_t n)
{
	return memcmp(p, TRACE_SYNC, n < TRACE_SYNC_LEN ? n : TRACE_SYNC_LEN) == 0;
}

int trace_walk_chunks(const uint8_t *p, size_t n, const struct trace_walk *w,
		      struct trace_load_status *st)
{
	struct walk k = { .p = p, .n = n, .w = w, .st = st };
	size_t pos = TRACE_HEADER_LEN;
	size_t bad = SIZE_MAX; /* where damaged bytes began, until a header is found */

	k.dctx = ZSTD_createDCtx();
	if (!k.dctx ||
	    ZSTD_isError(ZSTD_DCtx_setParameter(k.dctx, ZSTD_d_windowLogMax, CHUNK_WINDOW_LOG_MAX))) {
		ZSTD_freeDCtx(k.dctx);
		return TRACE_E_ZSTD;
	}
	while (n - pos >= TRACE_CHUNK_HEADER_LEN) {
		struct trace_chunk_header h;
		size_t next, end;
		int why = 0, r;

		if (trace_chunk_header_decode(p + pos, &h) < 0) {
			if (bad == SIZE_MAX)
				bad = pos;
			next = next_header(p, n, pos + 1, n);
			pos = next == SIZE_MAX ? n : next;
			continue;
		}
		if (bad != SIZE_MAX)
			damaged_bytes(&k, bad, pos, h.seq);
		else if (h.seq > k.expect)
			note(&k, (struct trace_loss){ .kind = TRACE_LOSS_MISSING,
						      .seq = seq32(k.expect),
						      .nseq = seq32(h.seq - k.expect),
						      .offset = pos });
		bad = SIZE_MAX;
		if (h.raw_len > TRACE_MAX_CHUNK || h.comp_len > TRACE_MAX_CHUNK) {
			next = next_header(p, n, pos + 1, n);
			if (next == SIZE_MAX)
				next = n;
			damaged_chunk(&k, &h, TRACE_DAMAGE_LENGTH, pos, next - pos);
			pos = next;
			continue;
		}
		if (h.comp_len > n - pos - TRACE_CHUNK_HEADER_LEN) {
			/* The length is checksummed, so the file ends inside
			 * this chunk: a cut, unless an intact chunk follows. */
			next = next_header(p, n, pos + 1, n);
			if (next == SIZE_MAX) {
				note(&k, (struct trace_loss){ .kind = TRACE_LOSS_CUT,
							      .held = held(h.type),
							      .seq = h.seq, .nseq = 1, .offset = pos,
							      .bytes = n - pos });
				pos = n;
				break;
			}
			damaged_chunk(&k, &h, TRACE_DAMAGE_TORN, pos, next - pos);
			pos = next;
			continue;
		}
		end = pos + TRACE_CHUNK_HEADER_LEN + h.comp_len;
		r = walk_chunk(&k, &h, pos, &why);
		if (r == CHUNK_DAMAGED) {
			/* A torn write can leave an intact header inside the
			 * frame: the chunk ends there, and the walk goes on.
			 * A frame that passed its checksums is whole, whatever
			 * bytes it holds, and is skipped whole. */
			if (why == TRACE_DAMAGE_FRAME || why == TRACE_DAMAGE_CONTENT) {
				next = next_header(p, n, pos + 1, end - 1);
				if (next != SIZE_MAX) {
					why = TRACE_DAMAGE_TORN;
					end = next;
				}
			}
			damaged_chunk(&k, &h, why, pos, end - pos);
		} else {
			if (end == n)
				st->ends_whole = 1;
			if (r == CHUNK_SKIPPED)
				st->chunks_skipped++;
			else
				st->chunks++;
			k.expect = (uint64_t)h.seq + 1;
		}
		pos = end;
		progress_update(w->progress, pos);
	}
	if (bad != SIZE_MAX) {
		/* Damage to the end: at least one chunk was there. */
		note(&k, (struct trace_loss){ .kind = TRACE_LOSS_DAMAGED,
					      .damage = TRACE_DAMAGE_HEADER, .open = 1,
					      .seq = seq32(k.expect), .nseq = 1, .offset = bad,
					      .bytes = n - bad });
	} else if (pos < n) {
		/* Too few bytes for a header: the start of one, cut, or
		 * bytes that are no chunk. */
		struct trace_loss l = { .kind = TRACE_LOSS_CUT, .seq = seq32(k.expect), .nseq = 1,
					.offset = pos, .bytes = n - pos };
		if (!header_prefix(p + pos, n - pos)) {
			l.kind = TRACE_LOSS_DAMAGED;
			l.damage = TRACE_DAMAGE_HEADER;
			l.nseq = 0;
		}
		note(&k, l);
	}
	st->next_seq = seq32(k.expect);
	ZSTD_freeDCtx(k.dctx);
	free(k.raw);
	return 0;
}

/* --- writing -------------------------------------------------------------- */

static int write_all(struct trace_sink *k, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t r = write(k->fd, p, n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		p += r;
		n -= (size_t)r;
		k->bytes += (uint64_t)r;
	}
	return 0;
}

/* After a failed write of which the last partial bytes reached fd, takes
 * them back off a regular file so that it ends with a whole chunk. Returns
 * whether the bytes are gone. */
static int drop_partial(int fd, uint64_t partial)
{
	struct stat st;
	off_t end;

	if (!partial)
		return 1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	end = lseek(fd, 0, SEEK_CUR);
	if (end < (off_t)partial || ftruncate(fd, end - (off_t)partial) < 0)
		return 0;
	return lseek(fd, end - (off_t)partial, SEEK_SET) >= 0;
}

int trace_sink_init(struct trace_sink *k, int fd, uint32_t seq)
{
	memset(k, 0, sizeof(*k));
	k->fd = fd;
	k->seq = seq;
	buf_init(&k->out);
	k->cctx = ZSTD_createCCtx();
	if (!k->cctx ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(k->cctx, ZSTD_c_compressionLevel, CHUNK_ZSTD_LEVEL)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(k->cctx, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(k->cctx, ZSTD_c_contentSizeFlag, 1)))
		return TRACE_E_ZSTD;
	return 0;
}

void trace_sink_release(struct trace_sink *k)
{
	ZSTD_freeCCtx(k->cctx);
	buf_release(&k->out);
	memset(k, 0, sizeof(*k));
}

void trace_sink_header(struct trace_sink *k, const char *magic)
{
	trace_file_header_encode(k->header, magic, TRACE_FORMAT_MAJOR, TRACE_FORMAT_MINOR);
	k->header_staged = 1;
}

/* Writes k->out, all or nothing. */
static int write_out(struct trace_sink *k)
{
	uint64_t before = k->bytes;
	int r = write_all(k, k->out.data, k->out.len);

	if (r < 0) {
		if (drop_partial(k->fd, k->bytes - before))
			k->bytes = before;
		return r;
	}
	k->header_staged = 0;
	return 0;
}

int trace_sink_flush(struct trace_sink *k)
{
	if (!k->header_staged)
		return 0;
	buf_reset(&k->out);
	buf_add(&k->out, k->header, sizeof(k->header));
	return write_out(k);
}

/* Compresses raw into one zstd frame, ending a zstd block at each offset in
 * k->seg: columns of different kinds then get their own entropy tables,
 * which is worth far more than the few bytes a block header costs. */
static int compress(struct trace_sink *k, const struct buf *raw, uint8_t *dst, size_t cap,
		    size_t *len)
{
	ZSTD_outBuffer out = { dst, cap, 0 };
	ZSTD_inBuffer in = { raw->data ? raw->data : (const uint8_t *)"", 0, 0 };
	size_t left;

	ZSTD_CCtx_reset(k->cctx, ZSTD_reset_session_only);
	if (ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(k->cctx, raw->len)))
		return TRACE_E_ZSTD;
	for (size_t i = 0; i <= k->nseg; i++) {
		size_t end = i < k->nseg ? k->seg[i] : raw->len;
		ZSTD_EndDirective op = i < k->nseg ? ZSTD_e_flush : ZSTD_e_end;

		if (end < in.size || end > raw->len)
			continue;
		in.size = end;
		do {
			left = ZSTD_compressStream2(k->cctx, &out, &in, op);
			if (ZSTD_isError(left) || (left && out.pos == out.size))
				return TRACE_E_ZSTD;
		} while (left != 0);
	}
	k->nseg = 0;
	*len = out.pos;
	return 0;
}

int trace_sink_encode(struct trace_sink *k, uint16_t type, const struct buf *raw)
{
	struct trace_chunk_header h = { 0 };
	size_t bound, clen, at = k->header_staged ? sizeof(k->header) : 0;
	int r;

	if (raw->len > TRACE_MAX_CHUNK)
		return TRACE_E_TOOBIG;
	/* Each early block end can cost a block header beyond the bound. */
	bound = ZSTD_compressBound(raw->len) + 8 * (k->nseg + 1);
	buf_reset(&k->out);
	buf_grow(&k->out, at + TRACE_CHUNK_HEADER_LEN + bound);
	memcpy(k->out.data, k->header, at);
	if ((r = compress(k, raw, k->out.data + at + TRACE_CHUNK_HEADER_LEN, bound, &clen)) < 0)
		return r;
	if (clen > TRACE_MAX_CHUNK)
		return TRACE_E_TOOBIG;
	h.type = type;
	h.seq = k->seq;
	h.raw_len = (uint32_t)raw->len;
	h.comp_len = (uint32_t)clen;
	trace_chunk_header_encode(k->out.data + at, &h);
	k->out.len = at + TRACE_CHUNK_HEADER_LEN + clen;
	return 0;
}

int trace_sink_chunk(struct trace_sink *k, uint16_t type, const struct buf *raw)
{
	int r = trace_sink_encode(k, type, raw);

	if (r == 0 && (r = write_out(k)) == 0)
		k->seq++;
	return r;
}

int trace_sink_copy(struct trace_sink *k, const uint8_t *chunk, size_t len)
{
	struct trace_chunk_header h;
	size_t at = k->header_staged ? sizeof(k->header) : 0;
	int r;

	if (len < TRACE_CHUNK_HEADER_LEN || trace_chunk_header_decode(chunk, &h) < 0)
		return TRACE_E_USAGE;
	h.seq = k->seq;
	buf_reset(&k->out);
	buf_add(&k->out, k->header, at);
	buf_add(&k->out, chunk, len);
	trace_chunk_header_encode(k->out.data + at, &h);
	if ((r = write_out(k)) == 0)
		k->seq++;
	return r;
}
