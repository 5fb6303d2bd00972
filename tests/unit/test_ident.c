/*
 * test_ident.c: the identities format/trace_ident.h gives ELF files that
 * have no GNU build-id: Go's build ID note, read strictly, and the content
 * hash, which must see every loadable byte up to its bound, and stay within
 * the bound past it.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/elf.h"
#include "format/trace.h"
#include "format/trace_ident.h"

/* An ELF header and program headers: a PT_NOTE of the note bytes given at
 * offset 0x1000, and a PT_LOAD of load bytes at 0x2000. */
static size_t make_elf(uint8_t *p, size_t cap, const uint8_t *note, size_t note_len, uint64_t load)
{
	memset(p, 0, cap);
	memcpy(p, "\177ELF", 4);
	p[4] = 2;
	p[5] = 1;
	p[6] = 1;
	put_le16(p + 16, 3);
	put_le16(p + 18, 62);
	put_le64(p + 32, 64);         /* phoff */
	put_le16(p + 52, 64);
	put_le16(p + 54, 56);
	put_le16(p + 56, 2);          /* phnum */
	put_le32(p + 64, ELF_PT_NOTE);
	put_le64(p + 64 + 8, 0x1000);
	put_le64(p + 64 + 32, note_len);
	put_le64(p + 64 + 48, 4);
	put_le32(p + 120, ELF_PT_LOAD);
	put_le32(p + 120 + 4, 5);
	put_le64(p + 120 + 8, 0x2000);
	put_le64(p + 120 + 16, 0x2000);
	put_le64(p + 120 + 32, load);
	put_le64(p + 120 + 40, load);
	if (note_len)
		memcpy(p + 0x1000, note, note_len);
	return 0x2000;
}

/* A note named "Go" (padded to 4 as Go's linker does) of type 4. */
static size_t go_note(uint8_t *out, const char *desc, size_t n)
{
	size_t pad = (n + 3) & ~(size_t)3;

	put_le32(out, 4);
	put_le32(out + 4, (uint32_t)n);
	put_le32(out + 8, ELF_NT_GO_BUILD_ID);
	memcpy(out + 12, "Go\0\0", 4);
	memset(out + 16, 0, pad);
	memcpy(out + 16, desc, n);
	return 16 + pad;
}

static int go_of(const char *desc, size_t n, uint8_t *out, size_t *len)
{
	static uint8_t file[0x3000], note[2048];
	struct elf_file e;
	size_t nl = go_note(note, desc, n);

	make_elf(file, sizeof(file), note, nl, 0x100);
	cr_assert_eq(elf_parse(&e, file, sizeof(file)), 0);
	return trace_ident_go(&e, out, len);
}

Test(ident, go_build_id_whole_when_it_fits)
{
	uint8_t out[TRACE_MAX_IDENT];
	size_t len;
	const char *id = "abcDEF123_-/xyz";

	cr_assert_eq(go_of(id, strlen(id), out, &len), 0);
	cr_assert_eq(len, strlen(id));
	cr_assert_arr_eq(out, id, len);
}

Test(ident, go_build_id_of_a_binary_is_its_last_part)
{
	/* go build's four parts of 20: 83 bytes, over the 64 a trace holds */
	const char *id = "Nz2K0tQgi4Nb6uQtg1Hv/1bI5Ct6xw4v8e_FIv0ws/aG9SsL0K8iXoWfOQbWpf/1Ca9sSVz3RpmBaBxN_bp";
	uint8_t out[TRACE_MAX_IDENT];
	size_t len;

	cr_assert_gt(strlen(id), TRACE_MAX_IDENT);
	cr_assert_eq(go_of(id, strlen(id), out, &len), 0);
	cr_assert_eq(len, 20);
	cr_assert_arr_eq(out, "1Ca9sSVz3RpmBaBxN_bp", 20);
}

Test(ident, go_build_id_malformed_is_refused)
{
	uint8_t out[TRACE_MAX_IDENT];
	char big[TRACE_IDENT_GO_MAX + 8];
	size_t len;

	memset(big, 'a', sizeof(big));
	cr_assert_eq(go_of(big, sizeof(big), out, &len), ELF_E_CORRUPT, "too long");
	cr_assert_eq(go_of(big, 100, out, &len), ELF_E_CORRUPT, "long, with no part that fits");
	cr_assert_eq(go_of("ab\xc3\xa9/cd", 7, out, &len), ELF_E_CORRUPT, "not ASCII");
	cr_assert_eq(go_of("ab cd", 5, out, &len), ELF_E_CORRUPT, "a space");
	cr_assert_eq(go_of("ab\0cd", 5, out, &len), ELF_E_CORRUPT, "a NUL");
	memset(big, 'a', 70);
	big[69] = '/';
	cr_assert_eq(go_of(big, 70, out, &len), ELF_E_CORRUPT, "an empty last part");
}

Test(ident, go_note_with_another_name_is_not_go)
{
	static uint8_t file[0x3000], note[64];
	uint8_t out[TRACE_MAX_IDENT];
	struct elf_file e;
	size_t len, nl = go_note(note, "abcd", 4);

	memcpy(note + 12, "Gox\0", 4);
	make_elf(file, sizeof(file), note, nl, 0x100);
	cr_assert_eq(elf_parse(&e, file, sizeof(file)), 0);
	cr_assert_eq(trace_ident_go(&e, out, &len), ELF_E_NOTFOUND);
}

/* A file of virtual bytes: the headers, then zeros, except one byte. */
struct vfile {
	const uint8_t *head;
	size_t head_len;
	uint64_t poke;      /* an offset whose byte is 1, or 0 for none */
	uint64_t read;      /* bytes read */
};

static int vread(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct vfile *v = ctx;

	memset(buf, 0, len);
	for (size_t i = 0; i < len; i++)
		if (off + i < v->head_len)
			((uint8_t *)buf)[i] = v->head[off + i];
	if (v->poke >= off && v->poke < off + len)
		((uint8_t *)buf)[v->poke - off] = 1;
	v->read += len;
	return 0;
}

static void content_of(uint64_t load, uint64_t poke, uint8_t *out, uint64_t *read)
{
	static uint8_t head[0x2000];
	struct vfile v = { head, sizeof(head), poke, 0 };
	struct elf_file e;

	make_elf(head, sizeof(head), NULL, 0, load);
	cr_assert_eq(elf_parse(&e, head, sizeof(head)), 0);
	cr_assert_eq(trace_ident_content(&e, 0x2000 + load, vread, &v, out), 0);
	*read = v.read;
}

Test(ident, content_sees_every_byte_under_the_bound)
{
	uint8_t a[TRACE_IDENT_CONTENT_LEN], b[TRACE_IDENT_CONTENT_LEN];
	uint64_t read;
	const uint64_t load = 48 << 20;

	content_of(load, 0, a, &read);
	cr_assert_eq(read, load);
	cr_assert_eq(trace_ident_content_bytes(a), load);
	cr_assert(!trace_ident_content_sampled(a));
	/* the same first pages and the same size, one byte changed late on */
	content_of(load, 0x2000 + load - 3, b, &read);
	cr_assert(memcmp(a, b, sizeof(a)) != 0);
	content_of(load, 0x2000 + 4096, b, &read);
	cr_assert(memcmp(a, b, sizeof(a)) != 0);
	/* a truncated copy: another size */
	content_of(load - 4096, 0, b, &read);
	cr_assert(memcmp(a, b, sizeof(a)) != 0);
}

Test(ident, content_of_a_huge_file_stays_within_the_bound)
{
	uint8_t a[TRACE_IDENT_CONTENT_LEN], b[TRACE_IDENT_CONTENT_LEN];
	const uint64_t load = (uint64_t)4 << 30;
	uint64_t read;

	content_of(load, 0, a, &read);
	cr_assert_eq(read, TRACE_IDENT_CONTENT_BOUND);
	cr_assert(trace_ident_content_sampled(a));
	cr_assert_eq(trace_ident_content_bytes(a), load);
	/* the last block is hashed, and the first */
	content_of(load, 0x2000 + load - 1, b, &read);
	cr_assert(memcmp(a, b, sizeof(a)) != 0);
	content_of(load, 0x2000, b, &read);
	cr_assert(memcmp(a, b, sizeof(a)) != 0);
}

Test(ident, content_refuses_a_segment_past_the_file)
{
	static uint8_t head[0x2000];
	struct vfile v = { head, sizeof(head), 0, 0 };
	uint8_t out[TRACE_IDENT_CONTENT_LEN];
	struct elf_file e;

	make_elf(head, sizeof(head), NULL, 0, 0x10000);
	cr_assert_eq(elf_parse(&e, head, sizeof(head)), 0);
	cr_assert_eq(trace_ident_content(&e, 0x2000 + 0x8000, vread, &v, out), ELF_E_CORRUPT);
	cr_assert_eq(v.read, 0);
}

Test(ident, cache_path_is_by_kind_and_hex)
{
	const uint8_t id[TRACE_IDENT_CONTENT_LEN] = { 0xab, 0x01 };
	char *p = trace_ident_cache_path("/c", TRACE_IDENT_CONTENT, id, sizeof(id), "app");

	cr_assert_str_eq(p, "/c/content/ab01" "00000000000000000000000000000000000000000000" "/app");
	free(p);
	cr_assert_null(trace_ident_cache_path("/c", TRACE_IDENT_CONTENT, id, 20, "app"));
	cr_assert_null(trace_ident_cache_path("/c", TRACE_IDENT_CONTENT, id, sizeof(id), ".."));
	cr_assert_null(trace_ident_cache_path("/c", TRACE_IDENT_CONTENT, id, sizeof(id), ""));
}
