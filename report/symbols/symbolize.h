/*
 * symbolize.h: raw addresses of a trace become frames with names.
 *
 * One address can become several frames: the functions inlined at that
 * address, innermost first, then the function that holds the code. Each
 * frame carries a name and, where known, a source file and line.
 *
 * A C++ function is named as perf names it: qualified, with its template
 * arguments, without return type or parameters (its linkage name as
 * "c++filt -p" prints it, or its DWARF name in the scopes of its
 * declaration); --signatures names it by its full signature instead, as
 * c++filt and llvm-symbolizer print it. The function that holds the code
 * takes the symbol table's name when its DWARF has no linkage name and
 * the symbol is a mangled one (DWARF of -gline-tables-only, GCC's
 * lambdas), as llvm-symbolizer does.
 *
 * The sources, tried per image, in the file found by report/symbols/locate.h
 * (never one whose identity differs from the trace's): its DWARF
 * (report/dwarf/dwinfo.h), for inline chains and file:line, then its symbol
 * table (report/symbols/symtab.h), for the name alone. An image for which no file
 * is found is served by a symbol pack (report/symbols/pack.h) that holds its
 * identity, if one was given, with the frames its DWARF or symbol table
 * gave where the pack was made. Anything unresolved
 * becomes one frame named "IMAGE+0xOFFSET", where IMAGE is the basename of the image's
 * path and OFFSET is the file-relative (link-time) address addr - bias,
 * the address addr2line and llvm-symbolizer --obj take for that file. An
 * address in no image is "[unknown]+0xADDR", with the raw address.
 *
 * An address that no image's file names, in no image or in one without a
 * file (the vDSO), is named by the trace's code record of the process
 * that holds it at the sample's time (trace_code_at()), if one does: code
 * a runtime compiled, whose name is trimmed as report/symbols/codename.h
 * says and whose source location is the frame's file and line (the
 * name's, else the record's), or a function of the vDSO, as perf names
 * it. A return address is looked up at addr - 1 there too.
 *
 * A return address (every frame but the leaf) is looked up at addr - 1, so
 * the call instruction, not the one after it, names the caller; a shown
 * offset is always that of the recorded address.
 *
 * Each image's file is located, opened and parsed once, on first use, and
 * each unique (image, address, leaf) is resolved once and cached. With
 * fetch set and DEBUGINFOD_URLS naming servers, the file of an image that
 * has no file with DWARF here is asked of the servers
 * (report/symbols/fetch.h), unless it has no file at all and a symbol pack
 * serves it, and only when an address of it is resolved: images without
 * samples are never fetched.
 */
#ifndef REPORT_SYMBOLIZE_H
#define REPORT_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#include "common/progress.h"
#include "format/trace.h"
#include "report/symbols/locate.h"
#include "report/symbols/pack.h"

/* The language a frame's code is in, as far as can be told: from its
 * source file's suffix, else the language of its DWARF unit; for a symbol,
 * from its mangling, or Go for a Go program's names (report/symbols/symtab.h);
 * for code a runtime compiled (a code record), JavaScript for V8's, JIT
 * for any other runtime's, C for the vDSO's functions. */
enum symbolize_lang {
	SYMBOLIZE_LANG_UNKNOWN = TRACE_PACK_LANG_UNKNOWN, /* as a symbol pack stores them */
	SYMBOLIZE_LANG_C = TRACE_PACK_LANG_C,
	SYMBOLIZE_LANG_CXX = TRACE_PACK_LANG_CXX,
	SYMBOLIZE_LANG_RUST = TRACE_PACK_LANG_RUST,
	SYMBOLIZE_LANG_GO = TRACE_PACK_LANG_GO,
	/* Only of code records, which no pack holds: */
	SYMBOLIZE_LANG_JS = 16,
	SYMBOLIZE_LANG_JIT = 17,
};

struct symbolize_frame {
	const char *name;  /* never NULL; borrowed until symbolize_free() */
	const char *signature; /* never NULL: the full signature of a C++
	                    * function (return type and parameters, as c++filt
	                    * prints its linkage name), else its name; never
	                    * with --lines' " (FILE:LINE)" */
	const char *file;  /* source file, or NULL */
	const uint8_t *file_md5; /* the MD5 of file's contents that its DWARF
	                    * gives (16 bytes), or NULL */
	uint32_t line;     /* 0 if unknown */
	int inlined;       /* 1 if inlined into the next frame */
	int resolved;      /* named by DWARF or a symbol table (or a signal
	                    * trampoline that nothing names) */
	int signal;        /* a signal trampoline: the next frame out is the
	                    * interrupted code, at its exact pc */
	int lang;          /* enum symbolize_lang */
	long image;        /* index into trace->images, or -1 */
	const char *image_label; /* the IMAGE of IMAGE+0xOFFSET, or NULL if
	                    * image < 0; "[jit]" for code a runtime compiled */
	uint64_t offset;   /* addr - bias, or the raw address if image < 0 */
	long code;         /* index into trace->code of the code range that
	                    * named it, or -1 */
};

struct symbolize_opts {
	const char *const *symbol_dirs; /* --symbols (borrowed) */
	size_t nsymbol_dirs;
	const char *debug_root;         /* NULL: /usr/lib/debug; "": none */
	const char *debuginfod_cache;   /* NULL: from the environment; "": none */
	int fetch;                      /* ask debuginfod servers (DEBUGINFOD_URLS)
	                                 * for debug files not found here */
	int addresses;                  /* --addresses: raw IMAGE+0xOFFSET only */
	int no_inline;                  /* --no-inline: only the outermost function */
	int lines;                      /* --lines: names get " (FILE:LINE)" */
	int signatures;                 /* --signatures: a C++ frame's name is its
	                                 * full signature, not its qualified name */
	int names_only;                 /* the caller shows names only (not with
	                                 * lines): frames get no file or line, a
	                                 * DWARF frame's language is unknown, and
	                                 * no line table is read */
	struct pack *pack;              /* symbol packs, or NULL (borrowed) */
	struct progress *progress;      /* told the name of each image while its
	                                 * file is found and read (a detail of
	                                 * the caller's phase), or NULL */
};

struct symbolize;

/* Creates a symbolizer for t (borrowed until symbolize_free()); o may be
 * NULL and is copied. Files are opened lazily. Caller frees. */
struct symbolize *symbolize_new(const struct trace *t, const struct symbolize_opts *o);
void symbolize_free(struct symbolize *s);

/* Resolves addr, seen at time in process (an index in the trace's
 * processes), as a leaf frame (leaf != 0) or a return address: sets *frames to its frames, innermost first, and returns how
 * many (at least 1: an unresolved address is a frame too). The frames and
 * their strings are borrowed until symbolize_free(). */
size_t symbolize_addr(struct symbolize *s, uint32_t process, uint64_t addr, uint64_t time, int leaf,
		      const struct symbolize_frame **frames);

/* The frames of link-time address at of image i as a leaf, as
 * symbolize_addr() gives them for the address it is loaded at. Borrowed
 * until symbolize_free(). */
size_t symbolize_image_addr(struct symbolize *s, size_t i, uint64_t at,
			    const struct symbolize_frame **frames);
/* The link-time addresses in [lo, hi) where a row of image i's line table
 * begins, ascending, at most max into starts (dwinfo_rows()); for an
 * image a symbol pack serves, the addresses the pack holds frames of
 * there. Returns how many, 0 for an image with neither. */
size_t symbolize_image_rows(struct symbolize *s, size_t i, uint64_t lo, uint64_t hi, uint64_t *starts,
			    size_t max);

/* The link-time address looked up for an address at offset in its image:
 * offset itself for a leaf, offset - 1 for a return address. */
uint64_t symbolize_lookup_offset(uint64_t offset, int leaf);

/* Whether addr, seen at time in process, is in a signal trampoline the
 * recorder crossed (struct trace_image's signal): looked up as it is,
 * named "[signal handler called]" where nothing names it, and exact
 * pc the frame it returns to. */
int symbolize_is_signal(const struct symbolize *s, uint32_t process, uint64_t addr, uint64_t time);

/* The index of the image that addr names at time in process, or -1: the
 * trace format's rule, trace_image_at(). */
long symbolize_image_find(const struct symbolize *s, uint32_t process, uint64_t addr, uint64_t time);

/* Locates image i's file now if not yet done (never fetching it: only a
 * resolved address does), and returns what was found: the accepted file or
 * every path refused, and the fetch asked for, if one was. *err gets
 * locate_image()'s result (0 when found). Borrowed until symbolize_free(). */
const struct locate_result *symbolize_image_source(struct symbolize *s, size_t i, int *err);
/* The symbol pack that serves image i (for which no file was found), or
 * NULL. Borrowed until symbolize_free(). */
const struct pack_image *symbolize_image_pack(struct symbolize *s, size_t i);
/* The label of image i in frame names: the IMAGE of IMAGE+0xOFFSET.
 * Borrowed until symbolize_free(). */
const char *symbolize_image_label(const struct symbolize *s, size_t i);
/* Whether debug files are fetched: fetch was set and DEBUGINFOD_URLS
 * names servers. */
int symbolize_fetching(const struct symbolize *s);
/* The number of function symbols image i's file provides (0 if none). */
size_t symbolize_image_nsymbols(struct symbolize *s, size_t i);
/* Whether image i's file has DWARF that is in use: 1, or 0 with *err
 * (if non-NULL) saying why not (0 if it has no DWARF sections at all). */
int symbolize_image_dwarf(struct symbolize *s, size_t i, int *err);
/* The link-time range [*lo, *hi) of the function that holds link-time
 * address at in image i, by its file's symbol table (symtab_range()), or
 * for an image a symbol pack serves, the range of code the pack holds
 * there (pack --asm stores a function a range).
 * Returns 0, or a negative error: the locator's if no file serves the
 * image, SYMTAB_E_NOSYMBOL if no symbol holds at. */
int symbolize_image_function(struct symbolize *s, size_t i, uint64_t at, uint64_t *lo,
			     uint64_t *hi);
/* The code bytes of image i at link-time [addr, addr + size), up to the
 * end of the section that holds addr: sets *code and returns how many,
 * from the file the locator accepted if it holds them (a split debug
 * file does not), else from the first of the image's own files, its
 * recorded path and its copy in the image cache, whose identity is the
 * recorded one (opened once, on first need), else from the symbol pack
 * that serves the image. *from names the file (or pack) the
 * bytes came from, and *arch (an enum trace_arch) is its architecture
 * (the trace's for the image if the file's is unknown). Returns 0 if no
 * file holds them, *from then saying why in words. *code and *from are
 * borrowed until symbolize_free(). */
size_t symbolize_image_code(struct symbolize *s, size_t i, uint64_t addr, uint64_t size,
			    const uint8_t **code, int *arch, const char **from);

#endif
