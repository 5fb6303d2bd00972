/*
 * trace_codec.h: the byte layout shared by the trace writer and reader.
 *
 * Internal to format/: nothing outside this directory includes it. Every
 * constant here is a byte on disk, and man/prof-trace.5 documents each one;
 * change them together or not at all.
 */
#ifndef FORMAT_TRACE_CODEC_H
#define FORMAT_TRACE_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* File header: magic, major (le16), minor (le16), xxh32 of bytes 0..11. */
#define TRACE_MAGIC "\x89PROF\r\n\x1a"
#define TRACE_MAGIC_LEN 8
#define TRACE_HEADER_LEN 16

/* Chunk header: sync, type (le16), flags (le16), seq (le32), raw length
 * (le32), compressed length (le32), xxh32 of bytes 0..19. */
#define TRACE_SYNC "\xd7PCK"
#define TRACE_SYNC_LEN 4
#define TRACE_CHUNK_HEADER_LEN 24

enum trace_chunk_type {
	TRACE_CHUNK_DATA = 1,   /* a sequence of records */
	TRACE_CHUNK_FOOTER = 2, /* totals; the trace was finished */
};

enum trace_record_type {
	TRACE_REC_SESSION = 1,
	TRACE_REC_IMAGE = 2,
	TRACE_REC_IMAGE_UNLOAD = 3,
	TRACE_REC_THREAD_START = 4,
	TRACE_REC_THREAD_NAME = 5,
	TRACE_REC_THREAD_END = 6,
	TRACE_REC_NODES = 7,
	TRACE_REC_SAMPLES = 8,
	TRACE_REC_COUNTERS = 9,
	TRACE_REC_END = 10,
};

/* A delta's residual against the period is stored offset by this, so that
 * jitter of either sign leaves the high part 0. */
#define TRACE_RESIDUAL_BIAS 32768u

/* The writer ends a chunk by itself once its raw bytes pass this. */
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
/* Writes the TRACE_HEADER_LEN bytes of the file header to p. */
void trace_file_header_encode(uint8_t *p, uint16_t major, uint16_t minor);

/* Remembers, for trace_strerror(TRACE_E_MAJOR) on this thread, the version
 * of a trace the reader refused. */
void trace_note_refused_version(uint16_t major, uint16_t minor);

#endif
