/*
 * trace_names.c: the words prof uses for the numbers in a trace, what
 * makes an image identity, and the text of every trace error.
 *
 * The names are part of prof's output ('prof-report info' prints them), so
 * they are stable. trace_strerror() can name the version of the newest
 * trace this thread refused, which is what tells a user to upgrade.
 */
#include "format/trace.h"
#include "format/trace_chunk.h"

#include <stdio.h>
#include <string.h>

static const char *pick(const char *const *names, size_t n, int v)
{
	if (v < 0 || (size_t)v >= n || !names[v])
		return "unknown";
	return names[v];
}

#define PICK(names, v) pick(names, sizeof(names) / sizeof(names[0]), v)

const char *trace_os_name(int os)
{
	static const char *const names[] = { "unknown", "linux", "macos" };
	return PICK(names, os);
}

const char *trace_arch_name(int arch)
{
	static const char *const names[] = { "unknown", "x86_64", "arm64" };
	return PICK(names, arch);
}

const char *trace_mode_name(int mode)
{
	static const char *const names[] = { "unknown", "wall", "cpu" };
	return PICK(names, mode);
}

const char *trace_state_name(int state)
{
	static const char *const names[] = {
		"unknown", "running", "sleeping", "disk", "stopped", "other",
	};
	return PICK(names, state);
}

const char *trace_ident_kind_name(int kind)
{
	static const char *const names[] = { "none", "gnu-build-id", "macho-uuid" };
	return PICK(names, kind);
}

const char *trace_counter_name(int counter)
{
	static const char *const names[] = {
		"samples-lost", "threads-vanished", "stop-end", "stop-unreadable",
		"stop-not-up", "stop-misaligned", "stop-loop", "stop-depth",
	};
	return PICK(names, counter);
}

const char *trace_damage_name(int damage)
{
	static const char *const names[] = {
		"no intact chunk header",
		"a length over 64 MiB",
		"its frame runs into the next chunk",
		"not one zstd frame as the format requires",
		"content checksum mismatch",
		"its contents do not parse",
		"out of sequence",
		"after the footer",
		"the footer disagrees with the chunks before it",
	};
	return PICK(names, damage);
}

int trace_ident_valid(int kind, size_t len)
{
	if (kind == TRACE_IDENT_MACHO_UUID)
		return len == 16;
	return kind == TRACE_IDENT_GNU_BUILD_ID && len >= 2 && len <= TRACE_MAX_IDENT;
}

int trace_ident_same(int kind, size_t len, const uint8_t *ident, int kind2, size_t len2,
		     const uint8_t *ident2)
{
	return kind == kind2 && len == len2 && len <= TRACE_MAX_IDENT && !memcmp(ident, ident2, len);
}

/* The version of the last trace refused with TRACE_E_MAJOR on this thread;
 * set by the reader, read by trace_strerror(). */
static _Thread_local uint16_t refused_major, refused_minor;
static _Thread_local char major_msg[160];

void trace_note_refused_version(uint16_t major, uint16_t minor)
{
	refused_major = major;
	refused_minor = minor;
}

const char *trace_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case TRACE_E_MAGIC:
		return "not a prof trace (bad magic number)";
	case TRACE_E_MAJOR:
		if (refused_major)
			snprintf(major_msg, sizeof(major_msg),
				 "trace format version %u.%u is newer than this prof supports (%d.x); upgrade prof",
				 refused_major, refused_minor, TRACE_FORMAT_MAJOR);
		else
			snprintf(major_msg, sizeof(major_msg),
				 "trace format version is newer than this prof supports (%d.x); upgrade prof",
				 TRACE_FORMAT_MAJOR);
		return major_msg;
	case TRACE_E_CORRUPT:
		return "trace is corrupt (a length, checksum or record is wrong)";
	case TRACE_E_TOOBIG:
		return "trace length or count exceeds a limit";
	case TRACE_E_ZSTD:
		return "zstd could not compress or decompress a trace chunk";
	case TRACE_E_EMPTY:
		return "trace holds no session: chunk 0, which holds it, is missing, damaged or cut";
	case TRACE_E_USAGE:
		return "trace API misused (internal error)";
	}
	if (err < 0 && err > -4096)
		return strerror(-err);
	return "unknown trace error";
}
