/*
 * maps.h: the loaded-image table of a Linux process, from the text of
 * /proc/PID/maps.
 *
 * The parsing and grouping here are portable and never touch the OS, so a
 * unit test can feed them a string. maps_linux.c does the reading of
 * /proc and of the mapped files, and turns the groups into trace images.
 */
#ifndef RECORD_MAPS_H
#define RECORD_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "common/elf.h"
#include "common/errors.h" /* MAPS_E_* */

/* One line of /proc/PID/maps. path is borrowed from the parsed text and is
 * not NUL-terminated: use path_len. */
struct maps_entry {
	uint64_t start, end, offset, inode;
	unsigned dev_major, dev_minor;
	char perms[5];
	const char *path;
	size_t path_len;
};

/* A mapped file (or [vdso]): its mappings merged. Owned by the array that
 * maps_group() returns; path is a heap string. */
struct maps_group {
	char *path;
	uint64_t inode;
	unsigned dev_major, dev_minor;
	uint64_t start, end;   /* lowest and highest mapped address */
	uint64_t vma_end;      /* the end of the first mapping, which starts at start */
	uint64_t offset;       /* file offset mapped at start */
	int executable;        /* some mapping is executable */
};

/* Calls cb for each line of len bytes of maps text, stopping early if cb
 * returns non-zero (which is returned). Returns 0 or MAPS_E_PARSE. */
int maps_parse(const char *text, size_t len, int (*cb)(void *ctx, const struct maps_entry *e),
	       void *ctx);

/* Groups the file-backed mappings of the maps text into one struct
 * maps_group per mapped file, in address order, plus [vdso]. Anonymous
 * mappings between the segments of one file (.bss, guard gaps) do not split
 * it. On success *out is a new array of *n groups, freed with
 * maps_groups_free(), and *top is the end of the highest mapping of any
 * kind in the user half of the address space (top byte clear, so not
 * x86_64's [vsyscall]): usually the stack's, near the top of the address
 * space; 0 if there is none. */
int maps_group(const char *text, size_t len, struct maps_group **out, size_t *n, uint64_t *top);
void maps_groups_free(struct maps_group *g, size_t n);

/* The load bias (runtime address - link-time address) of an ELF file that
 * has file offset map_offset mapped at map_start: found from the PT_LOAD
 * segment whose page-aligned file range holds map_offset. Returns 0 or
 * MAPS_E_NOLOAD. */
int maps_elf_bias(const struct elf_file *e, uint64_t map_start, uint64_t map_offset, uint64_t *bias);

#endif
