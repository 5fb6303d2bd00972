/*
 * dwinfo.h: DWARF line and inline information for one object file, read
 * (by report/dwarf/dwdie.c and report/dwarf/dwline.c) from sections the caller has
 * already found.
 *
 * The caller maps the file and parses it (ELF, thin Mach-O, a slice of a
 * universal binary), then hands over its sections by name; this module
 * never opens a file. An address becomes its inline chain: the innermost
 * inlined function with its file:line from the line table, then each
 * function it was inlined into with the call site of the inlining, ending
 * with the concrete function, as `llvm-symbolizer --inlining` reports it.
 * DWARF 2 to 5 are read, with .debug_ranges or .debug_rnglists, and ELF
 * SHF_COMPRESSED sections (zlib, zstd) are inflated here, with a cap.
 *
 * Objects are 64-bit little-endian (x86_64 and arm64, ELF or Mach-O).
 * Everything in the sections is untrusted: damage gives an error or fewer
 * frames, never a crash or a hang. Library code: returns 0 or a count, or
 * a negative DWINFO_E_* error (common/errors.h, prof_strerror()).
 */
#ifndef REPORT_DWINFO_H
#define REPORT_DWINFO_H

#include <stddef.h>
#include <stdint.h>

#include "common/errors.h"

/* The largest section, once decompressed, that is accepted. */
#define DWINFO_MAX_SECTION (1ull << 30)
/* No inline chain is longer than this, so a frames array this long is
 * never too short. */
#define DWINFO_MAX_FRAMES 64

/* The sections read are .debug_info, _abbrev, _line, _line_str, _str,
 * _str_offsets, _addr, _ranges and _rnglists; any others are ignored, and
 * of two with one name the first counts. Mach-O names them "__debug_info"
 * in segment __DWARF, cut to 16 characters ("__debug_str_offs"): the
 * caller passes the ELF names. */
struct dwinfo_section {
	const char *name;      /* ".debug_info", ".debug_line", ... */
	const uint8_t *data;   /* borrowed for the life of the dwinfo */
	uint64_t size, addr;
	int compressed;        /* ELF SHF_COMPRESSED: data starts with an Elf64_Chdr
	                        * (ELFCOMPRESS_ZLIB 1, ELFCOMPRESS_ZSTD 2) */
};

struct dwinfo_frame {
	const char *function;  /* never NULL: the demangled linkage name if the
	                        * function has a mangled one, a C++ name without
	                        * return type and parameters ("c++filt -p"); else
	                        * its DW_AT_name, in a C++ unit qualified by the
	                        * namespaces, classes and functions that hold the
	                        * DIE that carries it (both names found through
	                        * DW_AT_abstract_origin and DW_AT_specification) */
	const char *signature; /* never NULL: the full signature as c++filt prints
	                        * the linkage name, or function if there is none */
	int linkage;           /* 1 if named from a mangled linkage name */
	const char *file;      /* the full path as llvm-symbolizer prints it
	                        * (DW_AT_comp_dir, the line table's directory, the
	                        * file name), or NULL if unknown */
	const uint8_t *file_md5; /* the MD5 of file's contents that the line
	                        * table gives (DWARF 5), 16 bytes, or NULL */
	uint32_t line, column; /* 0 if unknown */
	uint16_t lang;         /* the DW_AT_language of the unit that holds
	                        * addr, or 0 */
};

struct dwinfo;

/* Opens the DWARF in the nsecs sections at secs. Copies the descriptions
 * (names included); the data stays borrowed until dwinfo_free(). Indexes
 * the address ranges of every compilation unit now; each unit's functions
 * and lines are read on the first lookup that falls in it. Returns 0 and a
 * new dwinfo in *out (caller frees with dwinfo_free()), DWINFO_E_NODEBUG
 * if there is no .debug_info, DWINFO_E_COMPRESSED, or DWINFO_E_CORRUPT.
 * Units after a damaged unit header are lost, the ones before it kept. */
int dwinfo_new(const struct dwinfo_section *secs, size_t nsecs, struct dwinfo **out);
void dwinfo_free(struct dwinfo *d);

/* Resolves link-time address addr into at most max frames: frames[0] is the
 * innermost function inlined at addr, with the file:line:column of addr
 * from the line table; each next frame is the function the previous one
 * was inlined into, with the DW_AT_call_file/line/column of that inlining;
 * the last is the concrete (out-of-line) function. A function without any
 * name gives no frame; a chain longer than max keeps its innermost max.
 * Returns the number of frames stored: 0 if addr is in no function the
 * DWARF describes, and damage in a unit only means fewer frames, so no
 * error is returned today (a negative dwinfo_* value would be one). The
 * strings are borrowed until dwinfo_free(). Not thread-safe: a lookup may
 * read a unit. */
int dwinfo_lookup(struct dwinfo *d, uint64_t addr, struct dwinfo_frame *frames, size_t max);

/* The addresses in [lo, hi) where a row of the line table of the unit
 * that holds lo begins (lo itself first, if a row covers it), ascending:
 * stores at most max in starts and returns how many. Each is an address
 * to look up for the source line of the code from it to the next. 0 if
 * no unit holds lo or lines are not read (dwinfo_names_only()). */
size_t dwinfo_rows(struct dwinfo *d, uint64_t lo, uint64_t hi, uint64_t *starts, size_t max);

/* From now on, lookups give names and inline chains only: every frame's
 * file is NULL and its line and column 0, and no line table is read.
 * For callers that show nothing else; call it before the first lookup. */
void dwinfo_names_only(struct dwinfo *d);

/* The number of compilation units indexed, and how many of them have been
 * read so far (for 'info' and for measurements). */
size_t dwinfo_units(const struct dwinfo *d, size_t *loaded);

#endif
