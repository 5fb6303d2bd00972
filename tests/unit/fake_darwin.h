/*
 * fake_darwin.h: a synthetic macOS process's memory, for the dyld and
 * darwin tests. Include it once per test file.
 *
 * A struct fake_mem is a few regions of bytes at made-up addresses; its
 * read callback serves a range only if it lies in one region, as a real
 * process's unmapped gaps would refuse it. fake_map_macho() lays a real
 * Mach-O fixture's __TEXT at a slid address the way dyld maps it (header
 * and load commands first), and fake_dyld_write() writes a
 * dyld_all_image_infos with its info array and path strings at the field
 * offsets of the 64-bit layout (record/dyld.h names them).
 */
#ifndef TESTS_UNIT_FAKE_DARWIN_H
#define TESTS_UNIT_FAKE_DARWIN_H

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_dir.h"
#include "common/bytes.h"
#include "common/macho.h"
#include "record/dyld.h"

#define FAKE_REGIONS 32

/* snprintf into a buffer of the tests' own, failing the test rather than
 * cutting a path or a command short. */
#define fake_fmt(buf, n, ...) \
	do { \
		if ((size_t)snprintf((buf), (n), __VA_ARGS__) >= (size_t)(n)) \
			cr_assert_fail("a path or command is too long"); \
	} while (0)

struct fake_region {
	uint64_t addr;
	uint8_t *bytes;
	size_t len;
};

struct fake_mem {
	struct fake_region r[FAKE_REGIONS];
	size_t n;
	/* Optional: called before every read, to change memory under the
	 * reader (dyld updating its list meanwhile). */
	void (*on_read)(struct fake_mem *m, uint64_t addr);
	void *user;
};

/* Maps len zeroed bytes at addr, replacing a region that starts there;
 * returns them. */
static inline uint8_t *fake_map(struct fake_mem *m, uint64_t addr, size_t len)
{
	size_t i;
	for (i = 0; i < m->n && m->r[i].addr != addr; i++)
		;
	if (i == m->n) {
		cr_assert_lt(m->n, FAKE_REGIONS);
		m->n++;
	} else {
		free(m->r[i].bytes);
	}
	m->r[i] = (struct fake_region){ addr, calloc(1, len ? len : 1), len };
	cr_assert_not_null(m->r[i].bytes);
	return m->r[i].bytes;
}

static inline void fake_unmap(struct fake_mem *m, uint64_t addr)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->r[i].addr == addr) {
			free(m->r[i].bytes);
			m->r[i] = m->r[--m->n];
			return;
		}
}

static inline void fake_mem_free(struct fake_mem *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->r[i].bytes);
	m->n = 0;
}

static inline int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct fake_mem *m = ctx;
	if (m->on_read)
		m->on_read(m, addr);
	for (size_t i = 0; i < m->n; i++) {
		const struct fake_region *r = &m->r[i];
		if (addr >= r->addr && addr - r->addr <= r->len && len <= r->len - (addr - r->addr)) {
			memcpy(buf, r->bytes + (addr - r->addr), len);
			return 0;
		}
	}
	return -1;
}

/* --- fixtures -------------------------------------------------------- */

/* The path of a Mach-O fixture, written into path of n bytes; the test
 * is skipped when make did not build it. */
static inline const char *fake_fixture(const char *name, char *path, size_t n)
{
	if (!build_dir[0])
		find_build_dir();
	fake_fmt(path, n, "%s/testdata/macho/%s", build_dir, name);
	if (access(path, R_OK) != 0)
		cr_skip_test("no fixture %s (make fixtures says why)", path);
	return path;
}

struct fake_file {
	uint8_t *p;
	size_t n;
};

static inline struct fake_file fake_load(const char *name)
{
	char path[PATH_MAX + 64];
	struct fake_file f = { 0 };
	FILE *fp = fopen(fake_fixture(name, path, sizeof(path)), "rb");

	cr_assert_not_null(fp, "cannot open %s", path);
	fseek(fp, 0, SEEK_END);
	f.n = (size_t)ftell(fp);
	rewind(fp);
	f.p = malloc(f.n);
	cr_assert_eq(fread(f.p, 1, f.n, fp), f.n);
	fclose(fp);
	return f;
}

/* The __TEXT segment of a thin fixture. */
static inline struct macho_segment fake_text(const struct fake_file *f)
{
	struct macho_file m;
	struct macho_segment s;
	cr_assert_eq(macho_parse(&m, f->p, f->n), 0);
	cr_assert_eq(macho_segment_by_name(&m, "__TEXT", &s), 0);
	return s;
}

/* Maps f's __TEXT at its vmaddr + slide, as dyld does; returns the load
 * address (where the Mach-O header lands) and the mapped bytes in *bytes. */
static inline uint64_t fake_map_macho(struct fake_mem *m, const struct fake_file *f, uint64_t slide,
			       uint8_t **bytes)
{
	struct macho_segment s = fake_text(f);
	uint64_t load = s.vmaddr + slide;
	uint8_t *p = fake_map(m, load, (size_t)s.vmsize);

	cr_assert_eq(s.fileoff, 0);
	cr_assert_leq(s.filesize, f->n);
	memcpy(p, f->p, (size_t)(s.filesize < s.vmsize ? s.filesize : s.vmsize));
	if (bytes)
		*bytes = p;
	return load;
}

/* --- dyld's struct ---------------------------------------------------- */

struct fake_image {
	uint64_t load;
	const char *path;
};

struct fake_infos {
	uint32_t version;          /* 0 means 17, what macOS 12 to 14 have */
	uint64_t dyld_address;
	const char *dyld_path;
	uint64_t cache_slide, cache_base;
	uint8_t cache_uuid[16];
	uint64_t timestamp;
};

#define FAKE_INFOS_REGION 65536

/* Writes the all_image_infos at base, its info array at base + 256 and the
 * path strings after it, all in one region of FAKE_INFOS_REGION bytes
 * (which it returns, for tests to damage). */
static inline uint8_t *fake_dyld_write(struct fake_mem *m, uint64_t base, const struct fake_infos *in,
				const struct fake_image *img, size_t n)
{
	uint8_t *p = fake_map(m, base, FAKE_INFOS_REGION);
	size_t arr = 256, str = arr + n * DYLD_IMAGE_INFO_SIZE;

	cr_assert_lt(str + 4096, (size_t)FAKE_INFOS_REGION);
	put_le32(p + DYLD_OFF_VERSION, in->version ? in->version : 17);
	put_le32(p + DYLD_OFF_COUNT, (uint32_t)n);
	put_le64(p + DYLD_OFF_ARRAY, n ? base + arr : 0);
	put_le64(p + DYLD_OFF_DYLD_ADDRESS, in->dyld_address);
	put_le64(p + DYLD_OFF_CACHE_SLIDE, in->cache_slide);
	memcpy(p + DYLD_OFF_CACHE_UUID, in->cache_uuid, 16);
	put_le64(p + DYLD_OFF_CACHE_BASE, in->cache_base);
	put_le64(p + DYLD_OFF_TIMESTAMP, in->timestamp);
	if (in->dyld_path) {
		put_le64(p + DYLD_OFF_DYLD_PATH, base + str);
		memcpy(p + str, in->dyld_path, strlen(in->dyld_path) + 1);
		str += strlen(in->dyld_path) + 1;
	}
	for (size_t i = 0; i < n; i++) {
		uint8_t *e = p + arr + i * DYLD_IMAGE_INFO_SIZE;
		put_le64(e, img[i].load);
		put_le64(e + 8, base + str);
		put_le64(e + 16, 0x5f000000 + i);   /* imageFileModDate: unused */
		memcpy(p + str, img[i].path, strlen(img[i].path) + 1);
		str += strlen(img[i].path) + 1;
	}
	return p;
}

#endif
