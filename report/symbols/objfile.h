/*
 * objfile.h: a file that may serve an image: ELF, thin Mach-O, or one slice
 * of a universal (fat) Mach-O, mapped read-only, with its identity, its
 * DWARF sections and its function symbols in one shape whatever the format.
 *
 * The locator opens candidates through here; the symbolizer reads the
 * accepted one. Everything in the file is untrusted: the parsers in
 * common/ check every offset, and this layer only chooses and translates.
 */
#ifndef REPORT_OBJFILE_H
#define REPORT_OBJFILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/elf.h"
#include "common/errors.h"
#include "common/macho.h"
#include "format/trace.h"
#include "report/dwarf/dwinfo.h"

struct objfile {
	const uint8_t *map;   /* the whole file, mapped */
	size_t mapsize;
	const uint8_t *data;  /* the object: the file, or the chosen slice */
	size_t size;
	int is_macho;         /* a Mach-O object, else ELF */
	int kind;             /* its identity's: enum trace_ident_kind */
	struct elf_file elf;  /* ELF */
	struct macho_file macho; /* Mach-O */
	uint8_t ident[TRACE_MAX_IDENT];
	size_t ident_len;
	int has_dwarf;        /* it holds a .debug_info / __debug_info section */
};

struct objfile_symbol {
	const char *name;     /* as in the file, borrowed from the mapping */
	uint64_t start, size; /* link-time; size 0 if the format gives none */
	uint64_t limit;       /* the end of its section: no symbol reaches past */
};

/* Writes the lowercase hex of n bytes at p into out (2n+1 bytes): how an
 * identity is shown and, only so, put into a path. */
void objfile_hex(char *out, const uint8_t *p, size_t n);

/* Maps the regular file at path and opens the object in it whose identity
 * is kind/ident (for a fat file, the slice with that UUID). Returns 0, or a
 * negative error and, in *why, a heap string saying why the file is not
 * that object ("build-id mismatch (the file has ...)"). Release with
 * objfile_release() on success only. */
int objfile_open(struct objfile *of, const char *path, int kind, const uint8_t *ident,
		 size_t ident_len, char **why);
void objfile_release(struct objfile *of);

/* Every identity in the file at path (one per slice of a fat file) without
 * keeping it open: cb gets each kind/ident. For indexing directories, so
 * it reads only headers and refuses anything but a regular file. Returns 0
 * or a negative error. */
int objfile_identities(const char *path,
		       void (*cb)(void *ctx, int kind, const uint8_t *ident, size_t len),
		       void *ctx);

/* The DWARF sections, named as ELF names them (".debug_info"), for
 * dwinfo_new(). Caller frees *secs; the data is borrowed from of. */
int objfile_dwarf_sections(const struct objfile *of, struct dwinfo_section **secs, size_t *n);

/* Calls cb for every defined function symbol; Mach-O names keep their
 * leading underscore. Returns 0 or a negative error. */
int objfile_symbols(const struct objfile *of,
		    void (*cb)(void *ctx, const struct objfile_symbol *sym), void *ctx);

/* The .gnu_debuglink file name of an ELF object (borrowed), or NULL. */
const char *objfile_debuglink(const struct objfile *of);

/* The bytes of of at link-time addresses [addr, addr + size), up to the
 * end of the section that holds addr: sets *code (borrowed from of) and
 * returns how many, or returns 0 if no section holds bytes of the file
 * there. The sections are ELF's allocated SHT_PROGBITS ones and those of
 * Mach-O's __TEXT segment. A debug file holds no code: its .text is
 * SHT_NOBITS, a dSYM's __TEXT has no bytes in the file. */
size_t objfile_code(const struct objfile *of, uint64_t addr, uint64_t size, const uint8_t **code);

/* The architecture of of's code: an enum trace_arch of format/trace.h,
 * TRACE_ARCH_UNKNOWN for a machine prof does not record. */
int objfile_arch(const struct objfile *of);

#endif
