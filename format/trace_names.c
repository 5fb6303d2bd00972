/*
 * trace_names.c: the words prof uses for the numbers in a trace, the text
 * of every trace error, and the two fixed-size headers both sides share.
 *
 * The names are part of prof's output ('prof-report info' prints them), so
 * they are stable. trace_strerror() can name the version of the newest
 * trace this thread refused, which is what tells a user to upgrade.
 */
#include "format/trace.h"
#include "format/trace_codec.h"

#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "common/bytes.h"

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
		return "trace holds no session: nothing can be read (cut short before its first chunk?)";
	case TRACE_E_USAGE:
		return "trace API misused (internal error)";
	}
	if (err < 0 && err > -4096)
		return strerror(-err);
	return "unknown trace error";
}

void trace_file_header_encode(uint8_t *p, const char *magic, uint16_t major, uint16_t minor)
{
	memcpy(p, magic, TRACE_MAGIC_LEN);
	put_le16(p + 8, major);
	put_le16(p + 10, minor);
	put_le32(p + 12, XXH32(p, 12, 0));
}

int trace_file_header_check(const uint8_t *p, size_t n, const char *magic, uint16_t *major,
			    uint16_t *minor)
{
	if (n < TRACE_MAGIC_LEN || memcmp(p, magic, TRACE_MAGIC_LEN) != 0)
		return TRACE_E_MAGIC;
	if (n < TRACE_HEADER_LEN)
		return TRACE_E_EMPTY;
	if (get_le32(p + 12) != XXH32(p, 12, 0))
		return TRACE_E_CORRUPT;
	*major = get_le16(p + 8);
	*minor = get_le16(p + 10);
	if (*major > TRACE_FORMAT_MAJOR) {
		trace_note_refused_version(*major, *minor);
		return TRACE_E_MAJOR;
	}
	return *major < 1 ? TRACE_E_CORRUPT : 0;
}

void trace_chunk_header_encode(uint8_t *p, const struct trace_chunk_header *h)
{
	memcpy(p, TRACE_SYNC, TRACE_SYNC_LEN);
	put_le16(p + 4, h->type);
	put_le16(p + 6, h->flags);
	put_le32(p + 8, h->seq);
	put_le32(p + 12, h->raw_len);
	put_le32(p + 16, h->comp_len);
	put_le32(p + 20, XXH32(p, 20, 0));
}

int trace_chunk_header_decode(const uint8_t *p, struct trace_chunk_header *h)
{
	if (memcmp(p, TRACE_SYNC, TRACE_SYNC_LEN) != 0)
		return TRACE_E_CORRUPT;
	if (get_le32(p + 20) != XXH32(p, 20, 0))
		return TRACE_E_CORRUPT;
	h->type = get_le16(p + 4);
	h->flags = get_le16(p + 6);
	h->seq = get_le32(p + 8);
	h->raw_len = get_le32(p + 12);
	h->comp_len = get_le32(p + 16);
	return 0;
}
