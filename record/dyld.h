/*
 * dyld.h: a macOS process's image list, read from its memory.
 *
 * dyld keeps a struct dyld_all_image_infos in every process (its address
 * is what task_info TASK_DYLD_INFO gives): a version, the array of loaded
 * images (each a Mach-O header address and a path address), the
 * timestamp dyld bumps whenever that array changes (dlopen, dlclose), and
 * the shared cache's UUID, base and slide. Each image's Mach-O header and
 * load commands are mapped in the process too: LC_UUID names the build,
 * and __TEXT's link-time vmaddr against the load address gives the slide.
 *
 * Nothing here calls the OS. Every byte comes through a read callback, and
 * all of it is untrusted: counts, sizes and string lengths are capped, and
 * the load commands are parsed by common/macho.c. The offsets are those of
 * the 64-bit layout (arm64 and x86_64).
 *
 * Functions return 0 or a negative DYLD_E_* (or MACHO_E_*) code, described
 * by prof_strerror(). Nothing prints.
 */
#ifndef RECORD_DYLD_H
#define RECORD_DYLD_H

#include <stddef.h>
#include <stdint.h>

#include "common/errors.h" /* DYLD_E_* */
#include "record/memory.h"

#define DYLD_MAX_IMAGES 16384
#define DYLD_PATH_MAX 1024
#define DYLD_CMDS_MAX (256u << 10)   /* sizeofcmds above this is refused */
#define DYLD_TEXT_MAX (UINT64_C(1) << 32)  /* and a __TEXT this large */

/* Field offsets in struct dyld_all_image_infos, 64-bit layout, with the
 * version that introduced each. Tests build the struct from these. */
#define DYLD_OFF_VERSION 0
#define DYLD_OFF_COUNT 4
#define DYLD_OFF_ARRAY 8
#define DYLD_OFF_DYLD_ADDRESS 32      /* version 2 */
#define DYLD_OFF_CACHE_SLIDE 152      /* version 12 */
#define DYLD_OFF_CACHE_UUID 160       /* version 13 */
#define DYLD_OFF_CACHE_BASE 176       /* version 15, and the next two */
#define DYLD_OFF_TIMESTAMP 184
#define DYLD_OFF_DYLD_PATH 192
#define DYLD_INFOS_SIZE 200           /* the bytes read: through dyldPath */
#define DYLD_IMAGE_INFO_SIZE 24       /* imageLoadAddress, imageFilePath, imageFileModDate */
#define DYLD_VERSION_MAX 64           /* later versions only append fields */

struct dyld_infos {
	uint32_t version;
	uint32_t count;            /* infoArrayCount */
	uint64_t array;            /* infoArray; 0 while dyld changes it */
	uint64_t dyld_address;     /* dyld's own Mach-O header, 0 if unknown */
	uint64_t dyld_path;        /* address of dyld's path, 0 if unknown */
	uint64_t timestamp;        /* infoArrayChangeTimestamp, 0 before version 15 */
	int has_cache;             /* the three below are known (version 15 on) */
	uint64_t cache_slide, cache_base;
	uint8_t cache_uuid[16];
};

struct dyld_image {
	uint64_t load_address;     /* where its Mach-O header is mapped */
	uint64_t path_address;
};

/* What an image's header and load commands say. */
struct dyld_macho {
	uint32_t cputype, filetype, flags;
	int has_uuid;
	uint8_t uuid[16];
	uint64_t text_vmaddr, text_vmsize;  /* __TEXT at link time */
	uint64_t slide;            /* load address - __TEXT vmaddr */
};

/* Reads the all_image_infos at addr, of size bytes as TASK_DYLD_INFO
 * reported (fields past size are left 0). Returns 0, DYLD_E_UNREADABLE or
 * DYLD_E_VERSION. A NULL infoArray is not an error here: out->array is 0. */
int dyld_read_infos(memory_read_fn read, void *ctx, uint64_t addr, uint64_t size,
		    struct dyld_infos *out);

/* Reads the info array of in into *out (a heap array of *n entries that
 * the caller frees; NULL when empty). Returns 0, DYLD_E_BUSY when
 * in->array is 0 but images are counted, DYLD_E_COUNT, or
 * DYLD_E_UNREADABLE. */
int dyld_read_images(memory_read_fn read, void *ctx, const struct dyld_infos *in,
		     struct dyld_image **out, size_t *n);

/* Reads the NUL-terminated string at addr into buf of size bytes, page by
 * page so that a string ending just before unmapped memory still reads.
 * Returns 0, DYLD_E_UNREADABLE, or DYLD_E_PATH when no NUL comes within
 * size - 1 bytes (buf then holds nothing useful). */
int dyld_read_string(memory_read_fn read, void *ctx, uint64_t addr, char *buf, size_t size);

/* Reads the Mach-O header at load_address and its load commands (at most
 * DYLD_CMDS_MAX bytes), and fills *out from LC_UUID and __TEXT. Returns 0,
 * DYLD_E_UNREADABLE, DYLD_E_HEADER (also for a __TEXT that is empty, over
 * DYLD_TEXT_MAX or past the end of the address space), or the MACHO_E_* of a header or
 * command that common/macho.c refuses (truncated commands, an unsupported
 * cputype) or of a missing __TEXT (MACHO_E_NOTFOUND). A missing LC_UUID is
 * not an error: out->has_uuid is 0. */
int dyld_read_macho(memory_read_fn read, void *ctx, uint64_t load_address, struct dyld_macho *out);

#endif
