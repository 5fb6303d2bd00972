/*
 * errors.c: the text of every error code, in one table, and the note that
 * gives one code its particulars on this thread.
 */
#include "errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Each module's last code is below the next module's first: the ranges
 * are disjoint. */
_Static_assert(TRACE_E_USAGE < ELF_E_NOTELF && ELF_E_NOTFOUND < MACHO_E_NOTMACHO &&
		       MACHO_E_NOTFOUND < OBJFILE_E_FORMAT && OBJFILE_E_MISMATCH < LOCATE_E_NOTFOUND &&
		       LOCATE_E_NOIDENT < DWINFO_E_NODEBUG && DWINFO_E_COMPRESSED < PPROF_E_ZLIB &&
		       PPROF_E_ZLIB < THREAD_SPLIT_E_NOTEMPTY && THREAD_SPLIT_E_NOTEMPTY <= PROF_E_LAST,
	       "the error ranges overlap");

static const struct {
	int code;
	const char *text;
} texts[] = {
	{ TRACE_E_MAGIC, "not a prof trace (bad magic number)" },
	{ TRACE_E_MAJOR, "trace format version is newer than this prof supports; upgrade prof" },
	{ TRACE_E_CORRUPT, "trace is corrupt (a length, checksum or record is wrong)" },
	{ TRACE_E_TOOBIG, "trace length or count exceeds a limit" },
	{ TRACE_E_ZSTD, "zstd could not compress or decompress a trace chunk" },
	{ TRACE_E_EMPTY, "trace holds no session: chunk 0, which holds it, is missing, damaged or cut" },
	{ TRACE_E_USAGE, "trace API misused (internal error)" },

	{ ELF_E_NOTELF, "not an ELF file" },
	{ ELF_E_UNSUPPORTED, "unsupported ELF file (not 64-bit little-endian)" },
	{ ELF_E_CORRUPT, "corrupt ELF file" },
	{ ELF_E_NOTFOUND, "not found in ELF file" },

	{ MACHO_E_NOTMACHO, "not a Mach-O file" },
	{ MACHO_E_UNSUPPORTED, "unsupported Mach-O file (not 64-bit little-endian arm64 or x86_64)" },
	{ MACHO_E_CORRUPT, "corrupt Mach-O file" },
	{ MACHO_E_NOTFOUND, "not found in Mach-O file" },

	{ OBJFILE_E_FORMAT, "neither ELF nor Mach-O" },
	{ OBJFILE_E_NOIDENT, "the file has no build-id or UUID" },
	{ OBJFILE_E_MISMATCH, "another build of the file" },

	{ LOCATE_E_NOTFOUND, "no file with a matching build-id or UUID" },
	{ LOCATE_E_NOIDENT, "the trace records no build-id or UUID for this image" },

	{ DWINFO_E_NODEBUG, "no DWARF debug information" },
	{ DWINFO_E_CORRUPT, "corrupt DWARF debug information" },
	{ DWINFO_E_COMPRESSED, "bad or oversized compressed debug section" },

	{ PPROF_E_ZLIB, "zlib could not compress the profile" },

	{ THREAD_SPLIT_E_NOTEMPTY, "the directory is not empty" },
};

/* The code this thread noted particulars of, and them. */
static _Thread_local int noted;
static _Thread_local char note[256];

void prof_error_note(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
	noted = err;
}

const char *prof_strerror(int err)
{
	if (err == 0)
		return "success";
	if (err == noted)
		return note;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		if (texts[i].code == err)
			return texts[i].text;
	if (err < 0 && err > PROF_E_LAST)
		return strerror(-err);
	return "unknown error";
}
