/*
 * errors.h: every error code of prof's libraries, and the one function
 * that describes them all, as zstd's ZSTD_getErrorName() does its codes.
 *
 * A library function returns 0 (or a count) on success and a negative
 * value on failure: -errno for what the system refused, or one of the
 * codes below. Each module has a range of its own, its first code and the
 * 99 above it, all from PROF_E_FIRST to PROF_E_LAST, so no code is an
 * errno (those are -1 to -4095) and a code says which module it comes
 * from. prof_strerror() describes any of them, and any -errno.
 */
#ifndef COMMON_ERRORS_H
#define COMMON_ERRORS_H

enum prof_error {
	/* format/trace.h, format/trace_pack.h: traces and symbol packs */
	TRACE_E_MAGIC = -20000,      /* not a prof trace */
	TRACE_E_MAJOR,               /* written by a newer, incompatible version */
	TRACE_E_CORRUPT,             /* a length, checksum or record is wrong */
	TRACE_E_TOOBIG,              /* a length or count exceeds a cap */
	TRACE_E_ZSTD,                /* zstd refused to compress or decompress */
	TRACE_E_EMPTY,               /* no session chunk: nothing can be read */
	TRACE_E_USAGE,               /* the caller broke the API contract */
	TRACE_E_MACHINES,            /* traces to merge of different machines */
	TRACE_E_TWICE,               /* traces to merge that are one file twice */

	/* common/elf.h */
	ELF_E_NOTELF = -19900,       /* no ELF magic */
	ELF_E_UNSUPPORTED,           /* not ELF64 little-endian */
	ELF_E_CORRUPT,               /* a header, table or string is out of bounds */
	ELF_E_NOTFOUND,              /* the requested section or note is absent */

	/* common/macho.h */
	MACHO_E_NOTMACHO = -19800,   /* no Mach-O or universal magic */
	MACHO_E_UNSUPPORTED,         /* a Mach-O, but not 64-bit little-endian arm64/x86_64 */
	MACHO_E_CORRUPT,             /* a header, command, table or string is out of bounds */
	MACHO_E_NOTFOUND,            /* the requested command, segment or table is absent */

	/* report/symbols/objfile.h */
	OBJFILE_E_FORMAT = -19700,   /* neither ELF nor Mach-O */
	OBJFILE_E_NOIDENT,           /* no build-id / LC_UUID in the file */
	OBJFILE_E_MISMATCH,          /* an identity other than the one wanted */

	/* report/symbols/locate.h */
	LOCATE_E_NOTFOUND = -19600,  /* no candidate matched; see the tries */
	LOCATE_E_NOIDENT,            /* the trace records no usable identity */

	/* report/dwarf/dwinfo.h */
	DWINFO_E_NODEBUG = -19500,   /* no (or an empty) .debug_info */
	DWINFO_E_CORRUPT,            /* not one unit header reads */
	DWINFO_E_COMPRESSED,         /* a compressed section is malformed, of an
	                              * unknown kind, or larger than DWINFO_MAX_SECTION */

	/* report/output/pprof.h */
	PPROF_E_ZLIB = -19400,       /* zlib refused to compress */

	/* report/output/thread_split.h */
	THREAD_SPLIT_E_NOTEMPTY = -19300, /* the directory already holds something */

	/* record/cfi.h */
	CFI_E_CORRUPT = -19200,      /* a length, pointer or instruction runs out of bounds */
	CFI_E_NOTFOUND,              /* no FDE covers the pc */
	CFI_E_UNSUPPORTED,           /* an encoding, opcode or expression we do not handle */

	/* record/maps.h */
	MAPS_E_PARSE = -19100,       /* a line of the maps text is malformed */
	MAPS_E_NOLOAD,               /* no PT_LOAD segment covers the mapped offset */

	/* record/perf.h */
	PERF_E_CORRUPT = -19000,     /* a record is shorter than its fields say */

	/* record/source_perf.h */
	SOURCE_PERF_E_RATE = -18900, /* -F is above kernel.perf_event_max_sample_rate */
	SOURCE_PERF_E_MLOCK,        /* a ring buffer exceeds perf_event_mlock_kb */

	/* record/dyld.h */
	DYLD_E_UNREADABLE = -18800,  /* target memory could not be read */
	DYLD_E_VERSION,              /* an all_image_infos version this reader does not know */
	DYLD_E_COUNT,                /* more images than DYLD_MAX_IMAGES */
	DYLD_E_BUSY,                 /* dyld is changing the list (infoArray is NULL): try later */
	DYLD_E_PATH,                 /* a path with no NUL within DYLD_PATH_MAX bytes */
	DYLD_E_HEADER,               /* no 64-bit Mach-O header, commands over the cap, absurd __TEXT */

	/* record/target.h */
	TARGET_E_EXEC = -18700,      /* the launched command could not be executed */
	TARGET_E_NOTHREADS,          /* attaching found no thread it could trace */
	TARGET_E_REGS,               /* the system refused a thread's registers as asked for */
	TARGET_E_ROSETTA,            /* macOS: an x86_64 process run by Rosetta, for an arm64 recorder */
	TARGET_E_NATIVE,             /* macOS: a native arm64 process, for a recorder run by Rosetta */

	/* record/jitdump.h */
	JITDUMP_E_MAGIC = -18600,    /* no jitdump magic in either byte order */
	JITDUMP_E_CORRUPT,           /* a header or record size no record can follow */

	/* report/symbols/disasm.h */
	DISASM_E_ARCH = -18500,      /* Capstone cannot disassemble the architecture */

	/* report/symbols/symtab.h */
	SYMTAB_E_NOSYMBOL = -18400,  /* no function symbol holds the address */
};

/* The bounds of every module's range. */
#define PROF_E_FIRST (-20000)
#define PROF_E_LAST (-10001)

/* Describes err: a code above, a -errno, or 0. The text is static, or,
 * for the failure a module noted with prof_error_note(), this thread's
 * note ("trace format version 2.0 is newer ..."), valid until the next
 * note. */
const char *prof_strerror(int err);
/* Notes, for the failure err its caller is about to return, the text of
 * err with its particulars, in place of the static one. A note belongs to
 * that one failure: the next prof_strerror() on this thread returns it if
 * it asks for err, and clears it whichever code it asks for, so a later
 * failure with the same code (another -EIO) is described by its own text,
 * never by an earlier failure's note. A new note replaces the last. */
void prof_error_note(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
