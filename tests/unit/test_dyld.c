/*
 * test_dyld.c: dyld's image list and the Mach-O headers it points at,
 * read from a synthetic process's memory.
 *
 * The memory holds the real Mach-O fixtures of mk/macho.mk, mapped at
 * slid addresses as dyld maps them, and a dyld_all_image_infos written at
 * the field offsets of the 64-bit layout, with its info array and path
 * strings. The UUIDs found are checked against llvm-dwarfdump on the same
 * files. Then every way the list and the headers can be wrong in a hostile
 * or half-updated process: absurd counts and versions, unreadable or
 * wrapping addresses, unterminated paths, truncated and looping load
 * commands, and every truncation and many corruptions of a real header.
 */
#include "fake_darwin.h"

#include "record/dyld.h"

#define INFOS UINT64_C(0x7ff84a000000)
#define APP_SLIDE UINT64_C(0x4000)
#define LIB_SLIDE UINT64_C(0x104560000)

static const uint8_t cache_uuid[16] = { 0xca, 0xce, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 };

/* The UUID llvm-dwarfdump reports for file's only architecture, or a skip. */
static void dwarfdump_uuid(const char *name, uint8_t uuid[16])
{
	char path[PATH_MAX + 64], cmd[PATH_MAX + 128], hex[64] = "";
	FILE *p;
	size_t k = 0;

	if (system("command -v llvm-dwarfdump >/dev/null 2>&1") != 0)
		cr_skip_test("no llvm-dwarfdump to check UUIDs against");
	fake_fmt(cmd, sizeof(cmd), "llvm-dwarfdump --uuid '%s'", fake_fixture(name, path, sizeof(path)));
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_eq(fscanf(p, "UUID: %63s", hex), 1, "no UUID from %s", cmd);
	pclose(p);
	for (const char *h = hex; *h && k < 16; h++) {
		unsigned v;
		if (*h == '-')
			continue;
		cr_assert_eq(sscanf(h, "%2x", &v), 1);
		uuid[k++] = (uint8_t)v;
		h++;
	}
	cr_assert_eq(k, 16);
}

/* app-arm64 and libwork.dylib at their slides, listed by dyld. */
static void arm64_process(struct fake_mem *m, struct fake_file *app, struct fake_file *lib,
			  uint64_t loads[2])
{
	struct fake_infos in = { .cache_slide = 0x2a8000, .cache_base = 0x180000000,
				 .timestamp = 7, .dyld_path = "/usr/lib/dyld" };
	struct fake_image img[2];

	memcpy(in.cache_uuid, cache_uuid, 16);
	*app = fake_load("app-arm64");
	*lib = fake_load("libwork.dylib");
	loads[0] = fake_map_macho(m, app, APP_SLIDE, NULL);
	loads[1] = fake_map_macho(m, lib, LIB_SLIDE, NULL);
	img[0] = (struct fake_image){ loads[0], "/Applications/App.app/Contents/MacOS/App" };
	img[1] = (struct fake_image){ loads[1], "/usr/local/lib/libwork.dylib" };
	fake_dyld_write(m, INFOS, &in, img, 2);
}

Test(dyld, infos_fields)
{
	struct fake_mem m = { 0 };
	struct fake_file app, lib;
	struct dyld_infos in;
	uint64_t loads[2];
	char path[64];

	arm64_process(&m, &app, &lib, loads);
	cr_assert_eq(dyld_read_infos(fake_read, &m, INFOS, 328, &in), 0);
	cr_assert_eq(in.version, 17);
	cr_assert_eq(in.count, 2);
	cr_assert_eq(in.array, INFOS + 256);
	cr_assert_eq(in.timestamp, 7);
	cr_assert(in.has_cache);
	cr_assert_eq(in.cache_slide, 0x2a8000);
	cr_assert_eq(in.cache_base, 0x180000000);
	cr_assert_arr_eq(in.cache_uuid, cache_uuid, 16);
	cr_assert_eq(dyld_read_string(fake_read, &m, in.dyld_path, path, sizeof(path)), 0);
	cr_assert_str_eq(path, "/usr/lib/dyld");
	fake_mem_free(&m);
	free(app.p);
	free(lib.p);
}

Test(dyld, images_uuids_and_slides)
{
	struct fake_mem m = { 0 };
	struct fake_file app, lib;
	struct dyld_infos in;
	struct dyld_image *list;
	struct dyld_macho h;
	uint8_t want[16];
	uint64_t loads[2];
	size_t n;
	char path[DYLD_PATH_MAX];

	arm64_process(&m, &app, &lib, loads);
	cr_assert_eq(dyld_read_infos(fake_read, &m, INFOS, 328, &in), 0);
	cr_assert_eq(dyld_read_images(fake_read, &m, &in, &list, &n), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(list[0].load_address, UINT64_C(0x100000000) + APP_SLIDE);
	cr_assert_eq(list[1].load_address, LIB_SLIDE);
	cr_assert_eq(dyld_read_string(fake_read, &m, list[0].path_address, path, sizeof(path)), 0);
	cr_assert_str_eq(path, "/Applications/App.app/Contents/MacOS/App");
	cr_assert_eq(dyld_read_string(fake_read, &m, list[1].path_address, path, sizeof(path)), 0);
	cr_assert_str_eq(path, "/usr/local/lib/libwork.dylib");

	cr_assert_eq(dyld_read_macho(fake_read, &m, list[0].load_address, &h), 0);
	dwarfdump_uuid("app-arm64", want);
	cr_assert(h.has_uuid);
	cr_assert_arr_eq(h.uuid, want, 16);
	cr_assert_eq(h.cputype, MACHO_CPU_TYPE_ARM64);
	cr_assert_eq(h.filetype, MACHO_MH_EXECUTE);
	cr_assert_eq(h.text_vmaddr, UINT64_C(0x100000000));
	cr_assert_eq(h.slide, APP_SLIDE);
	cr_assert_eq(h.text_vmsize, fake_text(&app).vmsize);

	cr_assert_eq(dyld_read_macho(fake_read, &m, list[1].load_address, &h), 0);
	dwarfdump_uuid("libwork.dylib", want);
	cr_assert_arr_eq(h.uuid, want, 16);
	cr_assert_eq(h.filetype, MACHO_MH_DYLIB);
	cr_assert_eq(h.text_vmaddr, 0);
	cr_assert_eq(h.slide, LIB_SLIDE);
	free(list);
	fake_mem_free(&m);
	free(app.p);
	free(lib.p);
}

Test(dyld, x86_64_image)
{
	struct fake_mem m = { 0 };
	struct fake_file app = fake_load("app-x86_64");
	struct dyld_macho h;
	uint8_t want[16];
	uint64_t load = fake_map_macho(&m, &app, 0x2d000, NULL);

	cr_assert_eq(dyld_read_macho(fake_read, &m, load, &h), 0);
	dwarfdump_uuid("app-x86_64", want);
	cr_assert_arr_eq(h.uuid, want, 16);
	cr_assert_eq(h.cputype, MACHO_CPU_TYPE_X86_64);
	cr_assert_eq(h.slide, 0x2d000);
	fake_mem_free(&m);
	free(app.p);
}

/* dlopen: dyld rewrites the array and bumps the timestamp. */
Test(dyld, dlopen_changes_timestamp_and_list)
{
	struct fake_mem m = { 0 };
	struct fake_file app, lib;
	struct dyld_infos a, b;
	struct dyld_image *list;
	uint64_t loads[2];
	size_t n;
	struct fake_infos in = { .timestamp = 8 };
	struct fake_image img[3] = { { 0, "/App" }, { 0, "/libwork.dylib" }, { 0, "/again.dylib" } };

	arm64_process(&m, &app, &lib, loads);
	cr_assert_eq(dyld_read_infos(fake_read, &m, INFOS, 328, &a), 0);
	img[0].load = loads[0];
	img[1].load = loads[1];
	img[2].load = fake_map_macho(&m, &lib, LIB_SLIDE + 0x100000, NULL);
	fake_dyld_write(&m, INFOS, &in, img, 3);
	cr_assert_eq(dyld_read_infos(fake_read, &m, INFOS, 328, &b), 0);
	cr_assert_neq(a.timestamp, b.timestamp);
	cr_assert_eq(dyld_read_images(fake_read, &m, &b, &list, &n), 0);
	cr_assert_eq(n, 3);
	cr_assert_eq(list[2].load_address, LIB_SLIDE + 0x100000);
	free(list);
	fake_mem_free(&m);
	free(app.p);
	free(lib.p);
}

Test(dyld, versions_and_sizes)
{
	struct fake_mem m = { 0 };
	struct dyld_infos in;
	struct fake_infos fi = { .version = 12, .timestamp = 5, .cache_slide = 9, .dyld_address = 0x1000 };
	uint8_t *p = fake_dyld_write(&m, INFOS, &fi, NULL, 0);

	/* Before version 15 there is no timestamp or cache base to read. */
	cr_assert_eq(dyld_read_infos(fake_read, &m, INFOS, 328, &in), 0);
	cr_assert_eq(in.version, 12);
	cr_assert_eq(in.dyld_address, 0x1000);
	cr_assert_not(in.has_cache);
	cr_assert_eq(in.timestamp, 0);
	/* A size that stops short of the timestamp leaves it out too. */
	put_le32(p, 17);
	cr_assert_eq(dyld_read_infos(fake_read, &m, INFOS, DYLD_OFF_TIMESTAMP, &in), 0);
	cr_assert_not(in.has_cache);
	cr_assert_eq(dyld_read_infos(fake_read, &m, INFOS, DYLD_INFOS_SIZE, &in), 0);
	cr_assert(in.has_cache);
	cr_assert_eq(in.timestamp, 5);
	/* Too small for the array pointer, version 0, a version from nowhere. */
	cr_assert_eq(dyld_read_infos(fake_read, &m, INFOS, 15, &in), DYLD_E_VERSION);
	put_le32(p, 0);
	cr_assert_eq(dyld_read_infos(fake_read, &m, INFOS, 328, &in), DYLD_E_VERSION);
	put_le32(p, 0x7fffffff);
	cr_assert_eq(dyld_read_infos(fake_read, &m, INFOS, 328, &in), DYLD_E_VERSION);
	cr_assert_str_eq(prof_strerror(DYLD_E_VERSION), "unknown dyld_all_image_infos version or size");
	/* Unmapped. */
	cr_assert_eq(dyld_read_infos(fake_read, &m, INFOS + FAKE_INFOS_REGION, 328, &in), DYLD_E_UNREADABLE);
	fake_mem_free(&m);
}

Test(dyld, busy_absurd_and_unreadable_lists)
{
	struct fake_mem m = { 0 };
	struct dyld_infos in = { .version = 17, .count = 2, .array = 0 };
	struct dyld_image *list = (void *)1;
	size_t n = 9;

	fake_map(&m, INFOS, 4096);
	/* dyld sets infoArray to NULL while it changes the list. */
	cr_assert_eq(dyld_read_images(fake_read, &m, &in, &list, &n), DYLD_E_BUSY);
	cr_assert_null(list);
	cr_assert_eq(n, 0);
	in.count = 0;
	cr_assert_eq(dyld_read_images(fake_read, &m, &in, &list, &n), 0);
	cr_assert_eq(n, 0);
	in.array = INFOS;
	in.count = 0xffffffff;
	cr_assert_eq(dyld_read_images(fake_read, &m, &in, &list, &n), DYLD_E_COUNT);
	in.count = DYLD_MAX_IMAGES + 1;
	cr_assert_eq(dyld_read_images(fake_read, &m, &in, &list, &n), DYLD_E_COUNT);
	/* More entries than are mapped, and an array that wraps. */
	in.count = 4096 / DYLD_IMAGE_INFO_SIZE + 1;
	cr_assert_eq(dyld_read_images(fake_read, &m, &in, &list, &n), DYLD_E_UNREADABLE);
	in.count = 2;
	in.array = UINT64_MAX - 8;
	cr_assert_eq(dyld_read_images(fake_read, &m, &in, &list, &n), DYLD_E_UNREADABLE);
	cr_assert_null(list);
	fake_mem_free(&m);
}

/* An array that points back at the struct itself reads as entries whose
 * "headers" are nothing of the kind: each is refused, none crashes. */
Test(dyld, list_pointing_at_itself)
{
	struct fake_mem m = { 0 };
	struct fake_infos fi = { .timestamp = 1 };
	struct fake_image img[1] = { { INFOS, "/self" } };
	struct dyld_infos in;
	struct dyld_image *list;
	struct dyld_macho h;
	size_t n;
	uint8_t *p = fake_dyld_write(&m, INFOS, &fi, img, 1);

	put_le32(p + DYLD_OFF_COUNT, 8);
	put_le64(p + DYLD_OFF_ARRAY, INFOS);
	cr_assert_eq(dyld_read_infos(fake_read, &m, INFOS, 328, &in), 0);
	cr_assert_eq(dyld_read_images(fake_read, &m, &in, &list, &n), 0);
	cr_assert_eq(n, 8);
	for (size_t i = 0; i < n; i++)
		cr_assert_lt(dyld_read_macho(fake_read, &m, list[i].load_address, &h), 0);
	free(list);
	fake_mem_free(&m);
}

Test(dyld, strings)
{
	struct fake_mem m = { 0 };
	char s[DYLD_PATH_MAX];
	uint8_t *p = fake_map(&m, 0x10000, 8192);

	/* Ends with the mapping: read page by page, it is still whole. */
	memset(p + 8000, 'a', 191);
	cr_assert_eq(dyld_read_string(fake_read, &m, 0x10000 + 8000, s, sizeof(s)), 0);
	cr_assert_eq(strlen(s), 191);
	/* Runs into unmapped memory. */
	memset(p + 8000, 'b', 192);
	cr_assert_eq(dyld_read_string(fake_read, &m, 0x10000 + 8000, s, sizeof(s)), DYLD_E_UNREADABLE);
	/* No NUL within the cap. */
	memset(p, 'c', 4000);
	cr_assert_eq(dyld_read_string(fake_read, &m, 0x10000, s, sizeof(s)), DYLD_E_PATH);
	cr_assert_eq(strlen(s), sizeof(s) - 1);
	cr_assert_eq(dyld_read_string(fake_read, &m, 0x10000, s, 0), DYLD_E_PATH);
	/* Wraps past the end of the address space. */
	cr_assert_eq(dyld_read_string(fake_read, &m, UINT64_MAX - 2, s, sizeof(s)), DYLD_E_UNREADABLE);
	fake_mem_free(&m);
}

/* A small Mach-O header made by hand: one LC_SEGMENT_64 __TEXT (72
 * bytes) and one LC_UUID (24 bytes). */
static uint8_t *hand_header(struct fake_mem *m, uint64_t at)
{
	uint8_t *p = fake_map(m, at, 4096);
	put_le32(p, 0xfeedfacf);
	put_le32(p + 4, MACHO_CPU_TYPE_ARM64);
	put_le32(p + 12, MACHO_MH_DYLIB);
	put_le32(p + 16, 2);          /* ncmds */
	put_le32(p + 20, 72 + 24);    /* sizeofcmds */
	put_le32(p + 32, 0x19);       /* LC_SEGMENT_64 */
	put_le32(p + 36, 72);
	memcpy(p + 40, "__TEXT", 6);
	put_le64(p + 56, 0x1000);     /* vmaddr */
	put_le64(p + 64, 0x4000);     /* vmsize */
	put_le32(p + 104, 0x1b);      /* LC_UUID */
	put_le32(p + 108, 24);
	memset(p + 112, 0x5a, 16);
	return p;
}

Test(dyld, hostile_headers)
{
	struct fake_mem m = { 0 };
	struct dyld_macho h;
	uint64_t at = 0x200000;
	uint8_t *p = hand_header(&m, at);

	cr_assert_eq(dyld_read_macho(fake_read, &m, at, &h), 0);
	cr_assert_eq(h.slide, at - 0x1000);
	cr_assert_eq(h.text_vmsize, 0x4000);
	cr_assert_eq(h.uuid[15], 0x5a);
	/* No LC_UUID is no error. */
	put_le32(p + 104, 0x26);
	cr_assert_eq(dyld_read_macho(fake_read, &m, at, &h), 0);
	cr_assert_not(h.has_uuid);

	/* A looping command (cmdsize 0) and one running past sizeofcmds. */
	put_le32(p + 108, 0);
	cr_assert_eq(dyld_read_macho(fake_read, &m, at, &h), MACHO_E_CORRUPT);
	put_le32(p + 108, 4000);
	cr_assert_eq(dyld_read_macho(fake_read, &m, at, &h), MACHO_E_CORRUPT);
	p = hand_header(&m, at);
	put_le32(p + 16, 1000000);   /* ncmds */
	cr_assert_eq(dyld_read_macho(fake_read, &m, at, &h), MACHO_E_CORRUPT);
	p = hand_header(&m, at);
	/* sizeofcmds over the cap, and past the mapping. */
	put_le32(p + 20, 0xfffffff0);
	cr_assert_eq(dyld_read_macho(fake_read, &m, at, &h), DYLD_E_HEADER);
	put_le32(p + 20, 8192);
	cr_assert_eq(dyld_read_macho(fake_read, &m, at, &h), DYLD_E_UNREADABLE);
	p = hand_header(&m, at);
	/* __TEXT empty, of 1 TiB, or ending past the address space. */
	put_le64(p + 64, 0);
	cr_assert_eq(dyld_read_macho(fake_read, &m, at, &h), DYLD_E_HEADER);
	put_le64(p + 64, UINT64_C(1) << 40);
	cr_assert_eq(dyld_read_macho(fake_read, &m, at, &h), DYLD_E_HEADER);
	p = hand_header(&m, at);
	memcpy(p + 40, "__DATA", 6);
	cr_assert_eq(dyld_read_macho(fake_read, &m, at, &h), MACHO_E_NOTFOUND);
	/* Not a 64-bit Mach-O; a 64-bit one for another CPU. */
	p = hand_header(&m, at);
	put_le32(p, 0xfeedface);
	cr_assert_eq(dyld_read_macho(fake_read, &m, at, &h), DYLD_E_HEADER);
	p = hand_header(&m, at);
	put_le32(p + 4, 18);          /* PowerPC */
	cr_assert_eq(dyld_read_macho(fake_read, &m, at, &h), MACHO_E_UNSUPPORTED);
	/* Unmapped, and a header at the very end of the address space. */
	cr_assert_eq(dyld_read_macho(fake_read, &m, 0x900000, &h), DYLD_E_UNREADABLE);
	cr_assert_eq(dyld_read_macho(fake_read, &m, UINT64_MAX - 16, &h), DYLD_E_UNREADABLE);
	fake_mem_free(&m);
}

/* Every prefix of a real header and its load commands that is mapped
 * alone: the reader must refuse each one cleanly. */
Test(dyld, every_truncation_of_a_real_header)
{
	struct fake_mem m = { 0 };
	struct fake_file app = fake_load("app-arm64");
	uint32_t len = 32 + get_le32(app.p + 20);
	struct dyld_macho h;

	for (uint32_t cut = 0; cut < len; cut++) {
		uint8_t *p = fake_map(&m, 0x100000000, cut);
		memcpy(p, app.p, cut);
		cr_assert_lt(dyld_read_macho(fake_read, &m, 0x100000000, &h), 0, "a cut at %u was accepted", cut);
	}
	fake_mem_free(&m);
	free(app.p);
}

/* Random bytes of the load commands changed, 4000 times, under the
 * sanitizers in make check SANITIZE=...: any result but a crash. */
Test(dyld, corrupted_load_commands)
{
	struct fake_mem m = { 0 };
	struct fake_file app = fake_load("app-arm64");
	uint32_t len = 32 + get_le32(app.p + 20);
	uint64_t seed = 0x9e3779b97f4a7c15u;
	struct dyld_macho h;
	int ok = 0;

	for (int round = 0; round < 4000; round++) {
		uint8_t *p = fake_map(&m, 0x100000000, len);
		memcpy(p, app.p, len);
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			p[32 + (seed >> 33) % (len - 32)] = (uint8_t)(seed >> 24);
		}
		ok += dyld_read_macho(fake_read, &m, 0x100000000, &h) == 0;
	}
	/* Most bytes (padding, section names) do not matter. */
	cr_assert_gt(ok, 0);
	cr_assert_lt(ok, 4000);
	fake_mem_free(&m);
	free(app.p);
}
