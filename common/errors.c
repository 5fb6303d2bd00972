/*
 * errors.c: the text of every error code, in one table, and the note that
 * gives one failure its particulars on this thread.
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
		       PPROF_E_ZLIB < THREAD_SPLIT_E_NOTEMPTY && THREAD_SPLIT_E_NOTEMPTY < CFI_E_CORRUPT &&
		       CFI_E_UNSUPPORTED < MAPS_E_PARSE && MAPS_E_NOLOAD < PERF_E_CORRUPT &&
		       PERF_E_CORRUPT < SOURCE_PERF_E_RATE && SOURCE_PERF_E_MLOCK < DYLD_E_UNREADABLE &&
		       DYLD_E_HEADER < TARGET_E_EXEC && TARGET_E_NATIVE < JITDUMP_E_MAGIC &&
		       JITDUMP_E_CORRUPT < DISASM_E_ARCH && DISASM_E_ARCH < SYMTAB_E_NOSYMBOL &&
		       SYMTAB_E_NOSYMBOL <= PROF_E_LAST,
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
	{ TRACE_E_EMPTY, "trace holds no session: the file is empty, or chunk 0, which holds it, is missing, damaged or cut" },
	{ TRACE_E_USAGE, "trace API misused (internal error)" },
	{ TRACE_E_MACHINES, "traces recorded on different machines or architectures cannot be one timeline" },
	{ TRACE_E_TWICE, "the same file of a recording twice" },

	{ ELF_E_NOTELF, "not an ELF file" },
	{ ELF_E_UNSUPPORTED, "unsupported ELF file (not 64-bit little-endian)" },
	{ ELF_E_CORRUPT, "corrupt ELF file" },
	{ ELF_E_NOTFOUND, "not found in ELF file" },

	{ MACHO_E_NOTMACHO, "not a Mach-O file" },
	{ MACHO_E_UNSUPPORTED, "unsupported Mach-O file (not 64-bit little-endian arm64 or x86_64)" },
	{ MACHO_E_CORRUPT, "corrupt Mach-O file" },
	{ MACHO_E_NOTFOUND, "not found in Mach-O file" },

	{ OBJFILE_E_FORMAT, "neither ELF nor Mach-O" },
	{ OBJFILE_E_NOIDENT, "the file has no identity (no build-id, UUID or loadable segment)" },
	{ OBJFILE_E_MISMATCH, "another build of the file" },

	{ LOCATE_E_NOTFOUND, "no file with a matching identity" },
	{ LOCATE_E_NOIDENT, "the trace records no identity for this image" },

	{ DWINFO_E_NODEBUG, "no DWARF debug information" },
	{ DWINFO_E_CORRUPT, "corrupt DWARF debug information" },
	{ DWINFO_E_COMPRESSED, "bad or oversized compressed debug section" },

	{ PPROF_E_ZLIB, "zlib could not compress the profile" },

	{ THREAD_SPLIT_E_NOTEMPTY, "the directory is not empty" },

	{ CFI_E_CORRUPT, "corrupt call-frame information" },
	{ CFI_E_NOTFOUND, "no call-frame information for the address" },
	{ CFI_E_UNSUPPORTED, "unsupported call-frame information" },

	{ MAPS_E_PARSE, "malformed maps line" },
	{ MAPS_E_NOLOAD, "no load segment covers the mapped offset" },

	{ PERF_E_CORRUPT, "malformed perf_event record" },

	{ SOURCE_PERF_E_RATE, "the rate is above kernel.perf_event_max_sample_rate" },
	{ SOURCE_PERF_E_MLOCK, "no room for a ring buffer (see kernel.perf_event_mlock_kb)" },

	{ DYLD_E_UNREADABLE, "target memory is unreadable" },
	{ DYLD_E_VERSION, "unknown dyld_all_image_infos version or size" },
	{ DYLD_E_COUNT, "absurd image count in dyld_all_image_infos" },
	{ DYLD_E_BUSY, "dyld is changing the image list" },
	{ DYLD_E_PATH, "image path is not terminated" },
	{ DYLD_E_HEADER, "no 64-bit Mach-O header, load commands too large, or an absurd __TEXT" },

	{ TARGET_E_EXEC, "cannot execute the command" },
	{ TARGET_E_NOTHREADS, "no thread of the process could be traced" },
	{ TARGET_E_REGS, "the kernel refuses its threads' registers (thread_get_state: invalid argument)" },
	{ TARGET_E_ROSETTA, "it runs x86_64 code under Rosetta, which this arm64 prof-record cannot sample; "
			    "try the x86_64 prof-record, under Rosetta too (arch -x86_64 prof-record ...)" },
	{ TARGET_E_NATIVE, "this prof-record is the x86_64 build, run by Rosetta, and the process is native "
			   "arm64: use the arm64 prof-record" },

	{ JITDUMP_E_MAGIC, "not a jitdump file (no JiTD magic in either byte order)" },
	{ JITDUMP_E_CORRUPT, "corrupt jitdump file (a header or record size no record can follow)" },

	{ DISASM_E_ARCH, "no disassembler for the architecture" },

	{ SYMTAB_E_NOSYMBOL, "no function symbol holds the address" },
};

/* The code of the failure this thread noted particulars of, 0 once the
 * note has been read (or was never written), and them. */
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
	int was = noted;

	/* Read once: the failure it belongs to is the one described next
	 * (see errors.h). */
	noted = 0;
	if (err == 0)
		return "success";
	if (err == was)
		return note;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		if (texts[i].code == err)
			return texts[i].text;
	if (err < 0 && err > PROF_E_LAST)
		return strerror(-err);
	return "unknown error";
}
