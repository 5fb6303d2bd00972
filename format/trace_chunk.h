/*
 * trace_chunk.h: the container every prof file is made of, below the
 * records: a file header, then self-delimiting chunks, each a header with
 * its own checksum and one zstd frame.
 *
 * Internal to format/: the trace writer and reader (records), and symbol
 * packs (format/trace_pack.c), are built on it, and nothing outside this
 * directory includes it but the fuzz target and its seed tool. Every
 * constant here is a byte on disk, and man/prof-trace.5 documents each one;
 * change them together or not at all.
 */
#ifndef FORMAT_TRACE_CHUNK_H
#define FORMAT_TRACE_CHUNK_H

#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "common/buf.h"
#include "common/progress.h"

struct cursor;
struct trace_load_status;
struct trace_loss;

/* File header: magic, major (le16), minor (le16), xxh32 of bytes 0..11.
 * A trace and a symbol pack differ only in the magic. */
#define TRACE_MAGIC "\x89PROF\r\n\x1a"
#define TRACE_PACK_MAGIC "\x89PSYM\r\n\x1a"
#define TRACE_MAGIC_LEN 8
#define TRACE_HEADER_LEN 16

/* Chunk header: sync, type (le16), flags (le16), seq (le32), raw length
 * (le32), compressed length (le32), xxh32 of bytes 0..19. */
#define TRACE_SYNC "\xd7PCK"
#define TRACE_SYNC_LEN 4
#define TRACE_CHUNK_HEADER_LEN 24

enum trace_chunk_type {
	TRACE_CHUNK_DATA = 1,   /* a sequence of records (format/trace_codec.h) */
	TRACE_CHUNK_FOOTER = 2, /* totals; the trace was finished */
	TRACE_CHUNK_PACK = 3,   /* a symbol pack's frames of one image (1.1) */
	TRACE_CHUNK_CODE = 4,   /* a symbol pack's code of one image (2.5) */
	TRACE_CHUNK_SOURCES = 5, /* a symbol pack's source lines (2.5) */
};
/* The types a symbol pack is made of, as trace_walk's types. */
#define TRACE_CHUNK_PACK_TYPES \
	(1u << TRACE_CHUNK_PACK | 1u << TRACE_CHUNK_CODE | 1u << TRACE_CHUNK_SOURCES)

/* A writer ends a chunk by itself once its raw bytes pass this. */
#define TRACE_CHUNK_TARGET (1u << 20)

/* The zstd frame magic (RFC 8878), little-endian on disk. */
#define TRACE_ZSTD_MAGIC 0xFD2FB528u

struct trace_chunk_header {
	uint16_t type;
	uint16_t flags;
	uint32_t seq;
	uint32_t raw_len;
	uint32_t comp_len;
};

/* Writes the TRACE_CHUNK_HEADER_LEN bytes of h, checksum included, to p. */
void trace_chunk_header_encode(uint8_t *p, const struct trace_chunk_header *h);
/* Decodes TRACE_CHUNK_HEADER_LEN bytes at p. Returns 0, or TRACE_E_CORRUPT
 * when the sync marker or the header checksum is wrong. */
int trace_chunk_header_decode(const uint8_t *p, struct trace_chunk_header *h);
/* Writes the TRACE_HEADER_LEN bytes of a file header with this magic
 * (TRACE_MAGIC_LEN bytes) to p. */
void trace_file_header_encode(uint8_t *p, const char *magic, uint16_t major, uint16_t minor);
/* Checks the file header of the n bytes at p against magic: returns 0 with
 * the version in *major and *minor, TRACE_E_MAGIC, TRACE_E_EMPTY (an empty
 * file, or a magic or a header cut short), TRACE_E_CORRUPT or TRACE_E_MAJOR (its version noted
 * for prof_strerror()). */
int trace_file_header_check(const uint8_t *p, size_t n, const char *magic, uint16_t *major,
			    uint16_t *minor);

/* Reads the whole file at path (with read(2), so that a file cut under us
 * is no SIGBUS) and returns load(bytes, length, out), the bytes borrowed
 * for the call; or a negative errno. */
int trace_load_path(const char *path, int (*load)(const void *p, size_t n, void *out), void *out);

/* One intact chunk as the walk hands it over: its header, the file
 * offset of that header, and its decompressed bytes (borrowed for the
 * call). */
struct trace_chunk {
	struct trace_chunk_header h;
	uint64_t offset;
	const uint8_t *raw;
	size_t len;
};

/* The walk over the chunks of a file, shared by every reader. The walk
 * decompresses each intact chunk whose type has its bit (1 << type) in
 * types and hands it to fn; fn returns 0 if it used it or a negative
 * error (the chunk then counts as damaged).
 * Intact chunks of other types are skipped. mark, if set, tells where the
 * reader is (the trace reader: how many samples it has read), and is
 * stamped on each loss as its samples_before. progress, if set, hears
 * after each chunk how many bytes of the file are behind (its phase is
 * the caller's). */
struct trace_walk {
	uint32_t types;
	int (*fn)(void *ctx, const struct trace_chunk *c);
	uint64_t (*mark)(void *ctx);
	void *ctx;
	struct progress *progress;
};
/* Walks the n bytes at p from the end of the file header, as
 * man/prof-trace.5 "Reading chunks" says: counts chunks read and skipped,
 * follows the sequence numbers, and notes each loss (chunks missing,
 * damaged, cut) into st, with next_seq and ends_whole. Returns 0, or
 * TRACE_E_ZSTD if zstd could not be set up. */
int trace_walk_chunks(const uint8_t *p, size_t n, const struct trace_walk *w,
		      struct trace_load_status *st);
/* Counts loss into st (chunks_missing, chunks_damaged, bytes_damaged or
 * bytes_cut) and lists it if fewer than TRACE_MAX_LOSSES are listed. */
void trace_loss_note(struct trace_load_status *st, const struct trace_loss *loss);

/* Where chunks are written: one file descriptor, the sequence numbers and
 * the compressor. Writes are all or nothing: after a failed write a
 * regular file is cut back to its last whole chunk. */
struct trace_sink {
	int fd;           /* borrowed */
	uint32_t seq;     /* of the next chunk */
	uint64_t bytes;   /* written to fd so far */
	ZSTD_CCtx *cctx;
	struct buf out;   /* [file header] + chunk header + compressed frame */
	size_t seg[8];    /* offsets in the next chunk where zstd blocks end */
	size_t nseg;
	uint8_t header[TRACE_HEADER_LEN];
	int header_staged;  /* header goes out with the next write */
};
/* Starts a sink on fd whose first chunk gets sequence number seq. Returns
 * 0 or TRACE_E_ZSTD; release it with trace_sink_release() either way. */
int trace_sink_init(struct trace_sink *k, int fd, uint32_t seq);
void trace_sink_release(struct trace_sink *k);
/* A file header with this magic and the current version, written with the
 * first chunk, in the same write(2): a writer killed in between leaves an
 * empty file, never a header without its first chunk (a trace without its
 * session). trace_sink_flush() writes it alone where no chunk follows. */
void trace_sink_header(struct trace_sink *k, const char *magic);
/* Writes a file header still staged, if any. Returns 0 or a negative
 * error, with nothing of it left in a regular file. */
int trace_sink_flush(struct trace_sink *k);
/* Compresses raw into one zstd frame, ending blocks at k->seg (which it
 * then clears), and writes it behind a chunk header of this type. Returns
 * 0, or a negative error with nothing of the chunk left in a regular
 * file. */
int trace_sink_chunk(struct trace_sink *k, uint16_t type, const struct buf *raw);
/* As trace_sink_chunk(), but leaves the chunk (and a staged file header
 * before it) in k->out instead of writing it, and its sequence number
 * unused: for chunks kept in memory. */
int trace_sink_encode(struct trace_sink *k, uint16_t type, const struct buf *raw);
/* Writes a chunk that trace_sink_encode() made (len bytes from its chunk
 * header on) as the next chunk of k: its header gets k's next sequence
 * number. Returns 0, or a negative error with nothing of it left in a
 * regular file. */
int trace_sink_copy(struct trace_sink *k, const uint8_t *chunk, size_t len);

/* The string of every chunk's contents: a uvarint length of at most
 * TRACE_MAX_STRING, then the bytes. trace_put_string() appends s;
 * trace_get_string() reads one into a new heap string, or returns NULL
 * with c poisoned. */
void trace_put_string(struct buf *b, const char *s);
char *trace_get_string(struct cursor *c);

#endif
