/*
 * trace_pack.h: symbol packs, the frames a trace's addresses became, kept
 * for machines that do not have the debug files.
 *
 * A pack holds, per image identity (GNU build-id or Mach-O UUID), the
 * link-time addresses that were looked up and, for each, its frames
 * innermost first: the functions inlined there, then the function that
 * holds the code, each with its source file, line and language. It lives
 * in a file of its own (the trace's container with another magic) or is
 * appended to a trace, as chunks of a type old readers skip; the bytes are
 * in man/prof-trace.5. What a frame means is report/'s business: this
 * module only stores and checks.
 *
 * Since 2.5 a pack may also hold, for annotating where the files are
 * gone, the machine code of an image's sampled functions (ranges of bytes
 * at link-time addresses) and, for the whole pack, lines of source text
 * keyed by the path the frames name. Each lives in chunks of its own
 * types, which a 2.4 reader skips.
 *
 * Library code: functions return 0 or a negative TRACE_E_* / -errno that
 * prof_strerror() describes.
 */
#ifndef FORMAT_TRACE_PACK_H
#define FORMAT_TRACE_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "format/trace.h"

/* The most frames one address may have: an inline chain this deep is
 * already absurd. */
#define TRACE_PACK_MAX_FRAMES 64

/* A range of code holds at most TRACE_PACK_MAX_CODE_RANGE bytes, and an
 * image at most TRACE_PACK_MAX_CODE. A source line holds at most
 * TRACE_PACK_MAX_LINE bytes (a longer one is cut), and a pack at most
 * TRACE_PACK_MAX_SOURCE bytes of source, counting one byte more a line. */
#define TRACE_PACK_MAX_CODE_RANGE (1u << 20)
#define TRACE_PACK_MAX_CODE (16u << 20)
#define TRACE_PACK_MAX_LINE 4096
#define TRACE_PACK_MAX_SOURCE (16u << 20)

/* The language of a frame's code, as stored. A value this reader does not
 * know reads as unknown. */
enum trace_pack_lang {
	TRACE_PACK_LANG_UNKNOWN,
	TRACE_PACK_LANG_C,
	TRACE_PACK_LANG_CXX,
	TRACE_PACK_LANG_RUST,
	TRACE_PACK_LANG_GO,     /* 2.1 */
};

struct trace_pack_frame {
	uint32_t name;  /* index into the image's strings: the function, as a
	                 * report names it by default (a C++ name without
	                 * return type and parameters) */
	uint32_t signature; /* 1 + index of its full signature (a C++ name with
	                 * return type and parameters), or 0 if that is the
	                 * name, or the pack is older than signatures */
	uint32_t file;  /* 1 + index of the source file, or 0 if unknown */
	uint32_t line;  /* 0 if unknown */
	uint8_t lang;   /* enum trace_pack_lang */
};

struct trace_pack_addr {
	uint64_t offset; /* the link-time address looked up */
	uint32_t first;  /* its frames: frames[first .. first + n) */
	uint32_t n;      /* 1 to TRACE_PACK_MAX_FRAMES */
};

/* Bytes of an image's code, as in its file, from link-time address start. */
struct trace_pack_code {
	uint64_t start;
	uint8_t *bytes;
	uint32_t len;   /* 1 to TRACE_PACK_MAX_CODE_RANGE */
};

/* One image's frames and code (from one chunk, when read: a large image
 * may take several, and its frames and its code are in chunks of their
 * own). */
struct trace_pack_image {
	uint8_t ident_kind;             /* enum trace_ident_kind, never NONE */
	uint8_t ident_len;
	uint8_t ident[TRACE_MAX_IDENT];
	char *path;                     /* the path the trace recorded */
	char **strings;
	size_t nstrings, cap_strings;
	struct trace_pack_addr *addrs;  /* by offset, ascending, no repeats */
	size_t naddrs, cap_addrs;
	struct trace_pack_frame *frames;
	size_t nframes, cap_frames;
	struct trace_pack_code *code;   /* by start, ascending, none
	                                 * overlapping another (2.5) */
	size_t ncode, cap_code;
	uint64_t code_bytes;            /* over all ranges */
};

/* A run of consecutive lines of a source file: line first + k is
 * text[off[k] .. off[k + 1] - 1), without its newline and followed by a
 * NUL (the text itself may hold one). */
struct trace_pack_run {
	uint32_t first;  /* from 1 */
	uint32_t n;      /* at least 1 */
	uint32_t *off;   /* n + 1 offsets */
	char *text;
};

/* Lines of one source file, under the path its frames name (DWARF's
 * compilation directory and file name). */
struct trace_pack_source {
	char *path;
	struct trace_pack_run *runs;    /* by first line, ascending, none
	                                 * overlapping another */
	size_t nruns, cap_runs;
};

struct trace_pack {
	struct trace_pack_image *images; /* in file order */
	size_t nimages, cap_images;
	struct trace_pack_source *sources; /* by path; a path read from
	                                  * several chunks has an entry from
	                                  * each, in file order (2.5) */
	size_t nsources, cap_sources;
	uint64_t source_bytes;           /* as TRACE_PACK_MAX_SOURCE counts */
	struct trace_load_status status; /* of trace_pack_load(): chunks read,
	                                  * skipped, corrupt, bytes lost */
};

/* A new empty pack; caller frees with trace_pack_free(), which takes
 * NULL. */
struct trace_pack *trace_pack_new(void);
void trace_pack_free(struct trace_pack *s);

/* Loads the symbols chunks of the file at path: a symbol pack, or a trace
 * with a pack embedded (then only those chunks are read). Corrupt chunks
 * are skipped and counted in status. Fails only when the file cannot be
 * read or is neither (TRACE_E_MAGIC). Caller frees *out. */
int trace_pack_load(const char *path, struct trace_pack **out);
/* As trace_pack_load(), from n borrowed bytes. */
int trace_pack_load_mem(const void *p, size_t n, struct trace_pack **out);

/* Adds what one decompressed chunk of a pack's type (symbols, code or
 * sources: TRACE_CHUNK_PACK_TYPES) holds to s: what the trace reader does
 * with the chunks of an embedded pack. Returns 0 or TRACE_E_CORRUPT /
 * TRACE_E_TOOBIG, leaving s as it was. */
int trace_pack_parse_chunk(struct trace_pack *s, int type, const uint8_t *raw, size_t n);

/* Adds an empty image to s and returns it (borrowed until the next add or
 * trace_pack_free()). ident_len must be valid for the kind (2 to 64 bytes
 * of build-id, 16 of UUID); path is copied. */
struct trace_pack_image *trace_pack_add_image(struct trace_pack *s, int ident_kind,
					      const uint8_t *ident, size_t ident_len,
					      const char *path);

/* Adds a copy of the n bytes at p to img, as its code at link-time
 * address start. Returns 0; TRACE_E_USAGE if n is 0, or the range ends
 * past 2^64 - 1 or overlaps one img holds; TRACE_E_TOOBIG if n exceeds
 * TRACE_PACK_MAX_CODE_RANGE or img would hold more than
 * TRACE_PACK_MAX_CODE bytes. */
int trace_pack_add_code(struct trace_pack_image *img, uint64_t start, const uint8_t *p, size_t n);
/* How many of the size bytes of code at link-time address addr img holds,
 * from addr to at most the end of the range that holds addr (0 if none
 * does), with *code pointing at them. Borrowed until trace_pack_free(). */
/* The range of img's code that holds link-time address addr: sets
 * [*start, *end) and returns 0, or TRACE_E_USAGE if none holds it (pack
 * --asm stores a function a range). */
int trace_pack_image_code_range(const struct trace_pack_image *im, uint64_t addr, uint64_t *start,
				uint64_t *end);
size_t trace_pack_image_code(const struct trace_pack_image *im, uint64_t addr, uint64_t size,
			     const uint8_t **code);

/* Adds lines first to first + n - 1 of the source file at path to s: line
 * first + k is the lens[k] bytes at lines[k], without its newline, cut at
 * TRACE_PACK_MAX_LINE bytes (before a UTF-8 sequence the cut would
 * split). The runs of a path are added in ascending order. Returns 0;
 * TRACE_E_USAGE if path is empty or too long, first or n is 0, the lines
 * pass 2^32 - 1, or s holds a line of path at or after first;
 * TRACE_E_TOOBIG if s would hold more than TRACE_PACK_MAX_SOURCE bytes of
 * source. */
int trace_pack_add_source(struct trace_pack *s, const char *path, uint32_t first,
			  const char *const *lines, const size_t *lens, uint32_t n);
/* Whether s holds any line of the source file at path. */
int trace_pack_has_source(const struct trace_pack *s, const char *path);
/* The text of line of the source file at path, NUL-terminated, with its
 * length in *len; NULL if s does not hold it. Where chunks disagree, the
 * first in the file counts. Borrowed until trace_pack_free(). */
const char *trace_pack_source_line(const struct trace_pack *s, const char *path, uint32_t line,
				   size_t *len);

/* Writes s to fd: the frames of every image with at least one address,
 * the code of every image with some, and the source lines; after a file
 * header when header is set (a new pack file), else as chunks appended to
 * a trace, numbered from seq. Images and sources are checked as the reader
 * would (TRACE_E_USAGE if one would not read back). *bytes (if non-NULL) gets
 * the bytes written. A failed write leaves no partial chunk in a regular
 * file. */
int trace_pack_write(int fd, const struct trace_pack *s, int header, uint32_t seq,
		     uint64_t *bytes);

#endif
