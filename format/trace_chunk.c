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
 * written or rejected. A chunk that fails is counted and the walk
 * resynchronises on the next intact chunk header; a chunk cut by the end
 * of the file ends the walk and its bytes are reported as lost. What the
 * chunks hold is the business of their readers: the trace's records
 * (format/trace_reader.c) and symbol packs (format/trace_syms.c).
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
	if (n < TRACE_MAGIC_LEN || memcmp(p, magic, TRACE_MAGIC_LEN) != 0)
		return TRACE_E_MAGIC;
	if (n < TRACE_HEADER_LEN)
		return TRACE_E_EMPTY;
	if (get_le32(p + 12) != XXH32(p, 12, 0))
		return TRACE_E_CORRUPT;
	*major = get_le16(p + 8);
	*minor = get_le16(p + 10);
	if (*major > TRACE_FORMAT_MAJOR) {
		trace_note_refused_version(*major, *minor);
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

static int header_at(const uint8_t *p, size_t n, size_t pos, struct trace_chunk_header *h)
{
	if (n - pos < TRACE_CHUNK_HEADER_LEN)
		return TRACE_E_CORRUPT;
	return trace_chunk_header_decode(p + pos, h);
}

/* Finds the next intact chunk header after pos, or returns n. */
static size_t resync(const uint8_t *p, size_t n, size_t pos)
{
	struct trace_chunk_header h;

	for (pos++; n - pos >= TRACE_CHUNK_HEADER_LEN; pos++) {
		const uint8_t *q = memmem(p + pos, n - pos, TRACE_SYNC, TRACE_SYNC_LEN);
		if (!q)
			break;
		pos = (size_t)(q - p);
		if (header_at(p, n, pos, &h) == 0)
			return pos;
	}
	return n;
}

/* Reads one chunk whose header is intact and whose payload is in bounds.
 * Returns 0 if it was used, 1 if skipped as unknown, or a negative error. */
static int walk_chunk(const struct trace_walk *w, ZSTD_DCtx *dctx, uint8_t **raw, size_t *cap,
		      const struct trace_chunk_header *h, const uint8_t *p)
{
	size_t got;
	int r;

	if ((r = check_frame(p, h->comp_len, h->raw_len)) < 0)
		return r;
	if (h->type >= 32 || !(w->types & (1u << h->type)))
		return 1;
	if (h->raw_len + 1 > *cap) {
		free(*raw);
		*cap = h->raw_len + 1;
		*raw = xmalloc(*cap);
	}
	got = ZSTD_decompressDCtx(dctx, *raw, *cap, p, h->comp_len);
	if (ZSTD_isError(got) || got != h->raw_len)
		return TRACE_E_CORRUPT; /* the content checksum, most likely */
	return w->fn(w->ctx, h->type, *raw, got);
}

int trace_walk_chunks(const uint8_t *p, size_t n, const struct trace_walk *w,
		      struct trace_load_status *st)
{
	size_t pos = TRACE_HEADER_LEN, good_end = TRACE_HEADER_LEN, cap = 0;
	uint8_t *raw = NULL;
	ZSTD_DCtx *dctx = ZSTD_createDCtx();

	if (!dctx ||
	    ZSTD_isError(ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, CHUNK_WINDOW_LOG_MAX))) {
		ZSTD_freeDCtx(dctx);
		return TRACE_E_ZSTD;
	}
	while (n - pos >= TRACE_CHUNK_HEADER_LEN) {
		struct trace_chunk_header h;
		int r;

		if (header_at(p, n, pos, &h) < 0 || h.raw_len > TRACE_MAX_CHUNK ||
		    h.comp_len > TRACE_MAX_CHUNK) {
			st->chunks_corrupt++;
			pos = resync(p, n, pos);
			continue;
		}
		if (h.comp_len > n - pos - TRACE_CHUNK_HEADER_LEN) {
			/* Cut short: the end of the file, unless an intact
			 * chunk follows (a torn write in the middle). */
			size_t next = resync(p, n, pos);
			if (next < n)
				st->chunks_corrupt++;
			pos = next;
			continue;
		}
		r = walk_chunk(w, dctx, &raw, &cap, &h, p + pos + TRACE_CHUNK_HEADER_LEN);
		if (r < 0) {
			st->chunks_corrupt++;
			pos = resync(p, n, pos);
			continue;
		}
		if (r == 1)
			st->chunks_skipped++;
		else
			st->chunks++;
		st->next_seq = h.seq + 1;
		pos += TRACE_CHUNK_HEADER_LEN + h.comp_len;
		good_end = pos;
	}
	st->tail_bytes_lost = n - good_end;
	ZSTD_freeDCtx(dctx);
	free(raw);
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

int trace_sink_header(struct trace_sink *k, const char *magic)
{
	uint8_t hdr[TRACE_HEADER_LEN];

	trace_file_header_encode(hdr, magic, TRACE_FORMAT_MAJOR, TRACE_FORMAT_MINOR);
	return write_all(k, hdr, sizeof(hdr));
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

int trace_sink_chunk(struct trace_sink *k, uint16_t type, const struct buf *raw)
{
	struct trace_chunk_header h = { 0 };
	size_t bound, clen;
	uint64_t before = k->bytes;
	int r;

	if (raw->len > TRACE_MAX_CHUNK)
		return TRACE_E_TOOBIG;
	/* Each early block end can cost a block header beyond the bound. */
	bound = ZSTD_compressBound(raw->len) + 8 * (k->nseg + 1);
	buf_reset(&k->out);
	buf_grow(&k->out, TRACE_CHUNK_HEADER_LEN + bound);
	if ((r = compress(k, raw, k->out.data + TRACE_CHUNK_HEADER_LEN, bound, &clen)) < 0)
		return r;
	if (clen > TRACE_MAX_CHUNK)
		return TRACE_E_TOOBIG;
	h.type = type;
	h.seq = k->seq;
	h.raw_len = (uint32_t)raw->len;
	h.comp_len = (uint32_t)clen;
	trace_chunk_header_encode(k->out.data, &h);
	k->out.len = TRACE_CHUNK_HEADER_LEN + clen;
	r = write_all(k, k->out.data, k->out.len);
	if (r < 0) {
		if (drop_partial(k->fd, k->bytes - before))
			k->bytes = before;
		return r;
	}
	k->seq++;
	return 0;
}
