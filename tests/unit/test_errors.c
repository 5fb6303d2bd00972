/*
 * test_errors.c: the one error registry: every code described, each by a
 * text of its own, none an errno's, each module's codes in a range of its
 * own; errnos and success described too; and a module's note giving a code
 * its particulars.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "common/errors.h"

/* Every code of the registry, by name and module, as a test lists them. */
#define MAX_CODES 10
static const struct {
	const char *module;
	int codes[MAX_CODES]; /* ends at the first 0 */
} modules[] = {
	{ "trace", { TRACE_E_MAGIC, TRACE_E_MAJOR, TRACE_E_CORRUPT, TRACE_E_TOOBIG, TRACE_E_ZSTD,
		     TRACE_E_EMPTY, TRACE_E_USAGE, TRACE_E_MACHINES, TRACE_E_TWICE } },
	{ "elf", { ELF_E_NOTELF, ELF_E_UNSUPPORTED, ELF_E_CORRUPT, ELF_E_NOTFOUND } },
	{ "macho", { MACHO_E_NOTMACHO, MACHO_E_UNSUPPORTED, MACHO_E_CORRUPT, MACHO_E_NOTFOUND } },
	{ "objfile", { OBJFILE_E_FORMAT, OBJFILE_E_NOIDENT, OBJFILE_E_MISMATCH } },
	{ "locate", { LOCATE_E_NOTFOUND, LOCATE_E_NOIDENT } },
	{ "dwinfo", { DWINFO_E_NODEBUG, DWINFO_E_CORRUPT, DWINFO_E_COMPRESSED } },
	{ "pprof", { PPROF_E_ZLIB } },
	{ "thread_split", { THREAD_SPLIT_E_NOTEMPTY } },
	{ "cfi", { CFI_E_CORRUPT, CFI_E_NOTFOUND, CFI_E_UNSUPPORTED } },
	{ "maps", { MAPS_E_PARSE, MAPS_E_NOLOAD } },
	{ "perf", { PERF_E_CORRUPT } },
	{ "source_perf", { SOURCE_PERF_E_RATE, SOURCE_PERF_E_MLOCK } },
	{ "dyld", { DYLD_E_UNREADABLE, DYLD_E_VERSION, DYLD_E_COUNT, DYLD_E_BUSY, DYLD_E_PATH,
		    DYLD_E_HEADER } },
	{ "target", { TARGET_E_EXEC, TARGET_E_NOTHREADS, TARGET_E_REGS, TARGET_E_ROSETTA,
		      TARGET_E_NATIVE } },
	{ "jitdump", { JITDUMP_E_MAGIC, JITDUMP_E_CORRUPT } },
	{ "disasm", { DISASM_E_ARCH } },
	{ "symtab", { SYMTAB_E_NOSYMBOL } },
};
#define NMODULES (sizeof(modules) / sizeof(modules[0]))

static int codes[NMODULES * MAX_CODES];
static size_t ncodes;

/* The codes, flat. */
static void list_codes(void)
{
	ncodes = 0;
	for (size_t m = 0; m < NMODULES; m++)
		for (size_t i = 0; i < MAX_CODES && modules[m].codes[i]; i++)
			codes[ncodes++] = modules[m].codes[i];
}

/* A module's codes lie in its range, the first and the 99 above it, and
 * no two modules share a range. */
Test(errors, each_module_has_a_range_of_its_own)
{
	long range[NMODULES];

	for (size_t m = 0; m < NMODULES; m++) {
		int first = modules[m].codes[0];

		cr_assert_eq((first - PROF_E_FIRST) % 100, 0, "%s starts at %d", modules[m].module, first);
		range[m] = (first - PROF_E_FIRST) / 100;
		for (size_t i = 0; i < MAX_CODES && modules[m].codes[i]; i++)
			cr_assert(modules[m].codes[i] >= first && modules[m].codes[i] < first + 100,
				  "%s code %d", modules[m].module, modules[m].codes[i]);
		for (size_t k = 0; k < m; k++)
			cr_assert_neq(range[m], range[k], "%s and %s", modules[m].module, modules[k].module);
	}
}

Test(errors, every_code_has_a_text_of_its_own)
{
	list_codes();
	for (size_t i = 0; i < ncodes; i++) {
		const char *t = prof_strerror(codes[i]);

		cr_assert(codes[i] >= PROF_E_FIRST && codes[i] <= PROF_E_LAST, "code %d is out of range",
			  codes[i]);
		cr_assert_str_neq(t, "unknown error", "code %d", codes[i]);
		for (size_t k = 0; k < i; k++)
			cr_assert_str_neq(t, prof_strerror(codes[k]), "codes %d and %d", codes[i], codes[k]);
	}
}

/* No code past the list has a text: the list is the registry. */
Test(errors, no_code_without_its_name_here)
{
	size_t described = 0;

	list_codes();
	for (int e = PROF_E_FIRST; e <= PROF_E_LAST; e++)
		described += strcmp(prof_strerror(e), "unknown error") != 0;
	cr_assert_eq(described, ncodes);
}

Test(errors, errnos_and_success)
{
	cr_assert_str_eq(prof_strerror(0), "success");
	cr_assert_str_eq(prof_strerror(-ENOENT), strerror(ENOENT));
	cr_assert_str_eq(prof_strerror(-ENOSPC), strerror(ENOSPC));
	cr_assert_str_eq(prof_strerror(PROF_E_FIRST - 1), "unknown error");
	cr_assert_str_eq(prof_strerror(1), "unknown error");
}

Test(errors, a_note_gives_a_code_its_particulars)
{
	const char *plain = prof_strerror(TRACE_E_MAJOR);

	cr_assert_null(strstr(plain, "9.1"));
	prof_error_note(TRACE_E_MAJOR, "trace format version %d.%d is newer", 9, 1);
	cr_assert_str_eq(prof_strerror(TRACE_E_MAJOR), "trace format version 9.1 is newer");
	cr_assert_str_eq(prof_strerror(TRACE_E_MAGIC), "not a prof trace (bad magic number)");
}

/* A note is the particulars of the one failure that set it: read once, by
 * the description of that failure. */
Test(errors, a_note_is_read_once)
{
	prof_error_note(-EIO, "cannot let thread %d run again: %s", 5, strerror(EIO));
	cr_assert_str_eq(prof_strerror(-EIO), "cannot let thread 5 run again: Input/output error");
	cr_assert_str_eq(prof_strerror(-EIO), strerror(EIO), "a later -EIO has its own text");
}

/* A failure noted but reported as another (a recording stopped by one
 * error, then the disk): a later failure with the noted code, say a write's
 * -EIO, is not described by the earlier failure's note. */
Test(errors, a_note_does_not_outlive_its_failure)
{
	prof_error_note(-EIO, "cannot let thread %d run again: %s", 5, strerror(EIO));
	cr_assert_str_eq(prof_strerror(-ESRCH), strerror(ESRCH));
	cr_assert_str_eq(prof_strerror(-EIO), strerror(EIO));

	prof_error_note(TRACE_E_MAJOR, "trace format version %d.%d is newer", 9, 1);
	prof_error_note(TARGET_E_REGS, "the registers of thread %d", 3);
	cr_assert_str_eq(prof_strerror(TRACE_E_MAJOR), "trace format version is newer than this prof supports; upgrade prof",
			 "a new note replaces the last");
}
