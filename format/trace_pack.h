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

/* One image's frames (from one chunk, when read: a large image may take
 * several). */
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
};

struct trace_pack {
	struct trace_pack_image *images; /* in file order */
	size_t nimages, cap_images;
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

/* Adds the image in one decompressed symbols chunk to s: what the trace
 * reader does with the chunks of an embedded pack. Returns 0 or
 * TRACE_E_CORRUPT / TRACE_E_TOOBIG, leaving s as it was. */
int trace_pack_parse_chunk(struct trace_pack *s, const uint8_t *raw, size_t n);

/* Adds an empty image to s and returns it (borrowed until the next add or
 * trace_pack_free()). ident_len must be valid for the kind (2 to 64 bytes
 * of build-id, 16 of UUID); path is copied. */
struct trace_pack_image *trace_pack_add_image(struct trace_pack *s, int ident_kind,
					      const uint8_t *ident, size_t ident_len,
					      const char *path);

/* Writes every image of s with at least one address to fd: after a file
 * header when header is set (a new pack file), else as chunks appended to
 * a trace, numbered from seq. Images are checked as the reader would
 * (TRACE_E_USAGE if one would not read back). *bytes (if non-NULL) gets
 * the bytes written. A failed write leaves no partial chunk in a regular
 * file. */
int trace_pack_write(int fd, const struct trace_pack *s, int header, uint32_t seq,
		     uint64_t *bytes);

#endif
