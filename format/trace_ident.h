/*
 * trace_ident.h: the identity of an ELF file, which says that two files are the
 * same build.
 *
 * The recorder writes one for every image, and the report takes a file for
 * an image only if the file's identity, made the same way, is the one
 * recorded. A file's identity is, in order of preference:
 *   - its GNU build-id note (NT_GNU_BUILD_ID), as linkers write it;
 *   - Go's build ID: the string of the note named "Go" of type 4 that Go's
 *     linker writes (.note.go.buildid), printable ASCII of at most
 *     TRACE_IDENT_GO_MAX bytes; whole when it fits in TRACE_MAX_IDENT (64) bytes,
 *     else its last '/'-separated part, the content ID of the link, which
 *     is what names the file's bytes. A malformed note is ignored;
 *   - a content hash of its loadable segments (PT_LOAD), TRACE_IDENT_CONTENT_LEN
 *     bytes: le64 n, the file bytes those segments hold, then the
 *     XXH3-128, big-endian, of each segment's header fields (le64 offset,
 *     vaddr, filesz, memsz, le32 flags) followed by, in segment order,
 *     their bytes if n is at most TRACE_IDENT_CONTENT_BOUND, or otherwise
 *     TRACE_IDENT_CONTENT_BLOCKS blocks of TRACE_IDENT_CONTENT_BLOCK bytes at evenly
 *     spaced offsets of those bytes, the first at 0 and the last at the
 *     end; the ELF header's e_shoff, e_shnum and e_shstrndx, which say
 *     where the section headers are, are hashed as zeros. Stripping debug
 *     sections leaves it as it is; changing one byte of code or data (in
 *     the hashed part) changes it.
 * The file is read through a callback, so the recorder reads it with
 * pread(2) and the report from its own mapping.
 */
#ifndef FORMAT_TRACE_IDENT_H
#define FORMAT_TRACE_IDENT_H

#include <stddef.h>
#include <stdint.h>

#include "common/elf.h"

#define TRACE_IDENT_GO_MAX 1024                     /* longer notes are malformed */
#define TRACE_IDENT_CONTENT_LEN 24
#define TRACE_IDENT_CONTENT_BOUND ((uint64_t)64 << 20)
#define TRACE_IDENT_CONTENT_BLOCK ((uint64_t)64 << 10)
#define TRACE_IDENT_CONTENT_BLOCKS 1024u            /* BLOCKS * BLOCK == BOUND */

/* Reads len bytes at file offset off into buf: 0, or a negative errno. */
typedef int (*trace_ident_read_fn)(void *ctx, uint64_t off, void *buf, size_t len);

/* Go's build ID of e, as above: 0 with *len bytes in out (which holds
 * 64), ELF_E_NOTFOUND, or ELF_E_CORRUPT for a malformed note. */
int trace_ident_go(const struct elf_file *e, uint8_t *out, size_t *len);
/* The content hash of e into out (TRACE_IDENT_CONTENT_LEN bytes), reading the
 * segments' bytes through read. Returns 0, ELF_E_CORRUPT when a segment
 * lies outside the file of size bytes, ELF_E_NOTFOUND when there is no
 * PT_LOAD, or what read returned. */
int trace_ident_content(const struct elf_file *e, uint64_t size, trace_ident_read_fn read, void *ctx, uint8_t *out);
/* e's identity: *kind (enum trace_ident_kind) and *len bytes in out (64),
 * the first of the three above that it has. Returns 0 or what
 * trace_ident_content() returned. */
int trace_ident_of_elf(const struct elf_file *e, uint64_t size, trace_ident_read_fn read, void *ctx, int *kind,
		 uint8_t *out, size_t *len);
/* Whether a content identity hashed only sampled blocks: the loadable
 * bytes it counts exceed TRACE_IDENT_CONTENT_BOUND. */
int trace_ident_content_sampled(const uint8_t *ident);
/* The loadable bytes a content identity counts. */
uint64_t trace_ident_content_bytes(const uint8_t *ident);

/* The image cache, where the recorder keeps copies of files by identity
 * (prof-record --keep-images) and the report looks for them:
 * $PROF_IMAGE_CACHE if set, else $XDG_CACHE_HOME/prof/images, else
 * $HOME/.cache/prof/images; NULL if none of them is set. Caller frees. */
char *trace_ident_cache_dir(void);
/* Where the file named base (a path's last part) of this identity is
 * kept in the cache dir: DIR/KIND/HEX/BASE, KIND as
 * trace_ident_kind_name() says it, HEX the identity in lowercase hex.
 * NULL for an identity trace_ident_valid() refuses, or a base that is
 * empty, "." or "..". Caller frees. */
char *trace_ident_cache_path(const char *dir, int kind, const uint8_t *ident, size_t len, const char *base);

#endif
