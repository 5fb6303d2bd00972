/*
 * test_cfi.c: the .eh_frame reader against readelf, and against hostile
 * bytes.
 *
 * For the fixtures and this machine's libc, libm and libstdc++ (whose CIEs
 * have personalities, "zPLR"), `readelf --debug-dump=
 * frames-interp` prints every FDE's table of rows (LOC, CFA, then one
 * column per register it mentions). Each row's first and last address is
 * looked up with cfi_table_row(), through .eh_frame_hdr and through the
 * index built without it, and the CFA, return-address and rbp rules must
 * say what readelf says. Then truncated, garbage and self-referencing
 * sections must give errors, never a crash or a hang.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/elf.h"
#include "record/cfi.h"

struct loaded {
	void *map;
	size_t size;
	struct cfi_sections s;
};

static int load(const char *path, struct loaded *l)
{
	struct elf_file e;
	struct elf_section eh, hdr;
	struct stat st;
	int fd = open(path, O_RDONLY);

	memset(l, 0, sizeof(*l));
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		return -1;
	}
	l->size = (size_t)st.st_size;
	l->map = mmap(NULL, l->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (l->map == MAP_FAILED)
		return -1;
	if (elf_parse(&e, l->map, l->size) < 0 || elf_section_by_name(&e, ".eh_frame", &eh) < 0)
		return -1;
	l->s.arch = e.machine == 183 ? CFI_ARCH_ARM64 : CFI_ARCH_X86_64;   /* EM_AARCH64 */
	l->s.eh_frame = eh.data;
	l->s.eh_frame_len = eh.size;
	l->s.eh_frame_addr = eh.addr;
	if (elf_section_by_name(&e, ".eh_frame_hdr", &hdr) == 0) {
		l->s.hdr = hdr.data;
		l->s.hdr_len = hdr.size;
		l->s.hdr_addr = hdr.addr;
	}
	return 0;
}

static const char *fixture(const char *name)
{
	static char path[4096];
	const char *b = getenv("BUILD");
	snprintf(path, sizeof(path), "%s/testdata/%s", b && b[0] ? b : "build", name);
	return path;
}

/* The DWARF register number of a register readelf names, on x86_64
 * ("rbp") or arm64 ("x29", "sp"). */
static int reg_number(int arch, const char *name)
{
	static const char *const names[] = { "rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip" };
	char *end;
	long n;

	if (arch == CFI_ARCH_ARM64) {
		if (strcmp(name, "sp") == 0)
			return CFI_ARM64_SP;
		if (name[0] != 'x' || !name[1])
			return -1;
		n = strtol(name + 1, &end, 10);
		return *end || n > 30 ? -1 : (int)n;
	}
	for (int i = 0; i < 17; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

/* The column of the frame pointer, as readelf heads it. */
static const char *fp_column(int arch) { return arch == CFI_ARCH_ARM64 ? "x29" : "rbp"; }

/* Whether our rule matches a readelf cell ("u", "s", "c-8", "v+8", "exp", a register). */
static int rule_matches(int arch, const struct cfi_rule *r, const char *cell)
{
	if (strcmp(cell, "u") == 0)
		return r->kind == CFI_RULE_UNDEFINED || r->kind == CFI_RULE_SAME;
	if (strcmp(cell, "s") == 0)
		return r->kind == CFI_RULE_SAME;
	if (cell[0] == 'c' && (cell[1] == '-' || cell[1] == '+'))
		return r->kind == CFI_RULE_OFFSET && r->offset == strtoll(cell + 1, NULL, 10);
	if (cell[0] == 'v' && (cell[1] == '-' || cell[1] == '+'))
		return r->kind == CFI_RULE_VAL_OFFSET && r->offset == strtoll(cell + 1, NULL, 10);
	if (strcmp(cell, "exp") == 0)
		return r->kind == CFI_RULE_EXPR && r->expr_len > 0;
	if (strcmp(cell, "vexp") == 0)
		return r->kind == CFI_RULE_VAL_EXPR && r->expr_len > 0;
	if (cell[0] == 'r' && cell[1] >= '0' && cell[1] <= '9')
		return r->kind == CFI_RULE_REGISTER && r->reg == atoi(cell + 1);
	return r->kind == CFI_RULE_REGISTER && r->reg == reg_number(arch, cell);
}

static int cfa_matches(int arch, const struct cfi_row *row, const char *cell)
{
	char name[16];
	const char *sign;
	size_t n;

	if (strcmp(cell, "exp") == 0)
		return row->cfa_kind == CFI_CFA_EXPR;
	sign = strpbrk(cell, "+-");
	if (!sign || (n = (size_t)(sign - cell)) >= sizeof(name))
		return 0;
	memcpy(name, cell, n);
	name[n] = 0;
	return row->cfa_kind == CFI_CFA_REG && row->cfa_reg == reg_number(arch, name) &&
	       row->cfa_offset == strtoll(sign, NULL, 10);
}

struct tally {
	unsigned rows, checked;
};

static void check_one(int arch, const struct cfi_table *t, uint64_t pc, const char *cfa, int rbp_col,
		      int ra_col, char cells[][32], const char *line, struct tally *ty)
{
	struct cfi_row row;
	int e = cfi_table_row(t, pc, &row);

	cr_assert_eq(e, 0, "pc 0x%llx: %s (readelf: %s)", (unsigned long long)pc, prof_strerror(e), line);
	cr_assert(cfa_matches(arch, &row, cfa), "pc 0x%llx: CFA kind %d reg %d off %lld, readelf %s",
		  (unsigned long long)pc, row.cfa_kind, row.cfa_reg, (long long)row.cfa_offset, line);
	if (ra_col >= 0)
		cr_assert(rule_matches(arch, &row.ra, cells[ra_col]), "pc 0x%llx: ra kind %d off %lld, readelf %s",
			  (unsigned long long)pc, row.ra.kind, (long long)row.ra.offset, line);
	if (rbp_col >= 0)
		cr_assert(rule_matches(arch, &row.fp, cells[rbp_col]), "pc 0x%llx: rbp kind %d off %lld, readelf %s",
			  (unsigned long long)pc, row.fp.kind, (long long)row.fp.offset, line);
	else
		cr_assert_eq(row.fp.kind, CFI_RULE_SAME, "pc 0x%llx: rbp kind %d, readelf has no rbp column",
			     (unsigned long long)pc, row.fp.kind);
	ty->checked++;
}

/* Runs readelf on path and checks every row of every FDE against t. */
static void against_readelf(int arch, const char *path, const struct cfi_table *t, struct tally *ty)
{
	char cmd[4200], line[1024];
	char cols[40][32];
	int ncols = 0, in_fde = 0, rbp_col = -1, ra_col = -1;
	uint64_t fde_end = 0, prev = 0;
	char prev_cfa[32] = "", prev_cells[40][32];
	char prev_line[1024] = "";
	int have_prev = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf --wide --debug-dump=frames-interp '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a, b;
		char *s;

		line[strcspn(line, "\n")] = 0;
		if ((s = strstr(line, " FDE ")) && (s = strstr(line, "pc=")) && sscanf(s, "pc=%llx..%llx", &a, &b) == 2) {
			if (have_prev)
				check_one(arch, t, fde_end - 1, prev_cfa, rbp_col, ra_col, prev_cells, prev_line, ty);
			have_prev = 0;
			in_fde = 1;
			fde_end = b;
			ncols = 0;
			continue;
		}
		if (strstr(line, " CIE ")) {
			if (have_prev)
				check_one(arch, t, fde_end - 1, prev_cfa, rbp_col, ra_col, prev_cells, prev_line, ty);
			have_prev = 0;
			in_fde = 0;
			continue;
		}
		if (!in_fde)
			continue;
		if (strstr(line, "LOC") && strstr(line, "CFA")) {
			char *tok = strtok(line, " ");
			ncols = 0;
			rbp_col = ra_col = -1;
			while (tok && ncols < 40) {
				snprintf(cols[ncols], sizeof(cols[ncols]), "%s", tok);
				if (strcmp(tok, fp_column(arch)) == 0)
					rbp_col = ncols;
				if (strcmp(tok, "ra") == 0)
					ra_col = ncols;
				ncols++;
				tok = strtok(NULL, " ");
			}
			continue;
		}
		if (ncols >= 2 && sscanf(line, "%llx", &a) == 1 && strchr(line, ' ')) {
			char cells[40][32], copy[1024];
			int n = 0;
			char *tok;

			snprintf(copy, sizeof(copy), "%s", line);
			/* A register cell reads "r9 (r9)": one cell. */
			for (tok = strtok(copy, " "); tok && n < 40; tok = strtok(NULL, " "))
				if (tok[0] != '(' || n == 0)
					snprintf(cells[n++], sizeof(cells[0]), "%s", tok);
			if (n != ncols)
				continue;
			/* The previous row ends just before this one. */
			if (have_prev && a > prev)
				check_one(arch, t, a - 1, prev_cfa, rbp_col, ra_col, prev_cells, prev_line, ty);
			check_one(arch, t, a, cells[1], rbp_col, ra_col, cells, line, ty);
			ty->rows++;
			prev = a;
			snprintf(prev_cfa, sizeof(prev_cfa), "%s", cells[1]);
			memcpy(prev_cells, cells, sizeof(cells));
			snprintf(prev_line, sizeof(prev_line), "%s", line);
			have_prev = 1;
		}
	}
	if (have_prev)
		check_one(arch, t, fde_end - 1, prev_cfa, rbp_col, ra_col, prev_cells, prev_line, ty);
	pclose(p);
}

static void cross_check(const char *path, unsigned min_rows)
{
	struct loaded l;
	struct cfi_table *t;
	struct tally ty = { 0, 0 };

	if (access(path, R_OK) != 0)
		cr_skip_test("'%s' is not here", path);
	if (system("readelf --version > /dev/null 2>&1") != 0)
		cr_skip_test("readelf is not installed");
	cr_assert_eq(load(path, &l), 0, "cannot load .eh_frame of '%s'", path);
	/* Through .eh_frame_hdr, then through our own index. */
	for (int pass = 0; pass < 2; pass++) {
		struct cfi_sections s = l.s;
		if (pass == 1)
			s.hdr = NULL, s.hdr_len = 0;
		cr_assert_eq(cfi_table_new(&s, &t), 0);
		cr_assert_eq(cfi_table_uses_hdr(t), pass == 0 && l.s.hdr != NULL);
		memset(&ty, 0, sizeof(ty));
		against_readelf(l.s.arch, path, t, &ty);
		cr_assert_geq(ty.rows, min_rows, "only %u rows of readelf checked in '%s'", ty.rows, path);
		cr_log_info("%s: %u readelf rows, %u lookups, %s", path, ty.rows, ty.checked,
			    pass == 0 ? "through .eh_frame_hdr" : "through the built index");
		cfi_table_free(t);
	}
	munmap(l.map, l.size);
}

Test(cfi, readelf_fixture_frameless) { cross_check(fixture("frameless"), 10); }
Test(cfi, readelf_fixture_qsort_cmp) { cross_check(fixture("qsort_cmp"), 10); }
Test(cfi, readelf_fixture_split) { cross_check(fixture("split"), 10); }
Test(cfi, readelf_libc, .timeout = 120) { cross_check("/lib/x86_64-linux-gnu/libc.so.6", 5000); }
Test(cfi, readelf_libm, .timeout = 120) { cross_check("/lib/x86_64-linux-gnu/libm.so.6", 500); }
/* C++: CIEs with a personality and LSDA ("zPLR"). */
Test(cfi, readelf_libstdcxx, .timeout = 120) { cross_check("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", 1000); }
/* arm64 with pointer authentication: negate_ra_state, the B key's "zRB". */
Test(cfi, readelf_arm64_pac_ret) { cross_check(fixture("arm64/pacret"), 10); }

/* glibc's PLT entries: CFA = rsp + 8 + ((rip & 15) >= 11 ? 8 : 0). */
Test(cfi, plt_expression)
{
	static const uint8_t expr[] = { 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22 };
	struct cfi_regs r = { .sp = 0x7ffd0000, .pc = 0x1020 };
	uint64_t v;

	cr_assert_eq(cfi_expr_eval(CFI_ARCH_X86_64, expr, sizeof(expr), &r, &v), 0);
	cr_assert_eq(v, 0x7ffd0008);
	r.pc = 0x102b;
	cr_assert_eq(cfi_expr_eval(CFI_ARCH_X86_64, expr, sizeof(expr), &r, &v), 0);
	cr_assert_eq(v, 0x7ffd0010);
	/* Truncated, underflowing and memory-reading expressions are refused. */
	cr_assert_lt(cfi_expr_eval(CFI_ARCH_X86_64, expr, 1, &r, &v), 0);
	cr_assert_lt(cfi_expr_eval(CFI_ARCH_X86_64, (const uint8_t[]){ 0x22 }, 1, &r, &v), 0);
	cr_assert_lt(cfi_expr_eval(CFI_ARCH_X86_64, (const uint8_t[]){ 0x77, 0x00, 0x06 }, 3, &r, &v), 0);
	cr_assert_lt(cfi_expr_eval(CFI_ARCH_X86_64, expr, 0, &r, &v), 0);
}

/* The PLT FDE of a fixture gives that expression, and it evaluates. */
Test(cfi, plt_row_of_fixture)
{
	struct loaded l;
	struct cfi_table *t;
	struct cfi_row row;
	struct elf_file e;
	struct elf_section plt;
	struct cfi_regs r = { .sp = 0x1000 };
	uint64_t v;

	if (load(fixture("split"), &l) < 0)
		cr_skip_test("no split fixture");
	cr_assert_eq(elf_parse(&e, l.map, l.size), 0);
	cr_assert_eq(elf_section_by_name(&e, ".plt", &plt), 0);
	cr_assert_eq(cfi_table_new(&l.s, &t), 0);
	cr_assert_eq(cfi_table_row(t, plt.addr + 0x10, &row), 0);
	cr_assert_eq(row.cfa_kind, CFI_CFA_EXPR);
	r.pc = plt.addr + 0x10;
	cr_assert_eq(cfi_expr_eval(CFI_ARCH_X86_64, row.expr, row.expr_len, &r, &v), 0);
	cr_assert_eq(v, 0x1008);
	cfi_table_free(t);
	munmap(l.map, l.size);
}

/* Every prefix of a real section, and flipped bytes all over it, give
 * answers or errors; the lookups must not crash or loop. */
Test(cfi, hostile_truncated_and_garbage, .timeout = 60)
{
	struct loaded l;
	uint8_t *copy;
	size_t n;
	unsigned seed = 12345;

	if (load(fixture("split"), &l) < 0)
		cr_skip_test("no split fixture");
	n = l.s.eh_frame_len;
	copy = malloc(n);
	for (size_t cut = 0; cut <= n; cut += 3) {
		struct cfi_sections s = { .arch = CFI_ARCH_X86_64, .eh_frame = l.s.eh_frame,
					  .eh_frame_len = cut, .eh_frame_addr = l.s.eh_frame_addr };
		struct cfi_table *t;
		struct cfi_row row;
		if (cfi_table_new(&s, &t) == 0) {
			for (uint64_t pc = 0x1000; pc < 0x1400; pc += 7)
				cfi_table_row(t, pc, &row);
			cfi_table_free(t);
		}
	}
	for (int round = 0; round < 300; round++) {
		struct cfi_sections s = l.s;
		struct cfi_table *t;
		struct cfi_row row;
		memcpy(copy, l.s.eh_frame, n);
		for (int k = 0; k < 8; k++) {
			seed = seed * 1103515245u + 12345u;
			copy[(seed >> 8) % n] = (uint8_t)(seed >> 3);
		}
		s.eh_frame = copy;
		if (round & 1)
			s.hdr = NULL, s.hdr_len = 0;
		if (cfi_table_new(&s, &t) == 0) {
			for (uint64_t pc = 0x1000; pc < 0x1400; pc += 5)
				cfi_table_row(t, pc, &row);
			cfi_table_free(t);
		}
	}
	free(copy);
	/* A garbage .eh_frame_hdr over a good .eh_frame: its table may point
	 * anywhere, and every FDE it names is checked before use. */
	if (l.s.hdr) {
		uint8_t *hdr = malloc(l.s.hdr_len);
		for (int round = 0; round < 300; round++) {
			struct cfi_sections s = l.s;
			struct cfi_table *t;
			struct cfi_row row;
			memcpy(hdr, l.s.hdr, l.s.hdr_len);
			for (int k = 0; k < 4; k++) {
				seed = seed * 1103515245u + 12345u;
				hdr[(seed >> 8) % l.s.hdr_len] = (uint8_t)(seed >> 3);
			}
			if (round % 3 == 0)
				s.hdr_len = (seed >> 4) % l.s.hdr_len;
			s.hdr = hdr;
			if (cfi_table_new(&s, &t) == 0) {
				for (uint64_t pc = 0x1000; pc < 0x1400; pc += 5)
					cfi_table_row(t, pc, &row);
				cfi_table_free(t);
			}
		}
		free(hdr);
	}
	munmap(l.map, l.size);
}

/* Hand-made sections: a CIE whose FDE points at itself, a length past the
 * end, an endless run of advance_loc, a remember_state overflow. */
Test(cfi, hostile_synthetic)
{
	struct cfi_table *t;
	struct cfi_row row;
	/* CIE: len 16, id 0, v1, "zR", caf 1, daf -8, ra 16, zlen 1, enc 0x1b,
	 * def_cfa rsp+8, offset ra c-8, padding. */
	uint8_t good[] = {
		0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b, 0x0c, 7, 8, 0x90, 1, 0, 0,
		/* FDE: len, cie ptr (to 0), pc pcrel sdata4, range, zlen 0, insns */
		0x18, 0, 0, 0, 0x1c, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0x41, 0x0e, 16, 0x0a, 0x0a, 0x0b, 0,
		0, 0, 0, 0,
	};
	struct cfi_sections s = { .arch = CFI_ARCH_X86_64, .eh_frame = good, .eh_frame_len = sizeof(good),
				  .eh_frame_addr = 0x1000 };
	uint32_t pcrel = (uint32_t)(0x2000 - (0x1000 + 24 + 8));

	memcpy(good + 24 + 8, &pcrel, 4);
	cr_assert_eq(cfi_table_new(&s, &t), 0);
	cr_assert_eq(cfi_table_count(t), 1);
	cr_assert_eq(cfi_table_row(t, 0x2000, &row), 0);
	cr_assert_eq(row.cfa_reg, 7);
	cr_assert_eq(row.cfa_offset, 8);
	cr_assert_eq(row.ra.kind, CFI_RULE_OFFSET);
	cr_assert_eq(row.ra.offset, -8);
	cr_assert_eq(cfi_table_row(t, 0x2001, &row), 0);
	cr_assert_eq(row.cfa_offset, 16);
	cr_assert_eq(cfi_table_row(t, 0x2040, &row), CFI_E_NOTFOUND);
	cr_assert_eq(cfi_table_row(t, 0x1fff, &row), CFI_E_NOTFOUND);
	cfi_table_free(t);

	/* The FDE's CIE pointer at itself: not a CIE. */
	{
		uint8_t bad[sizeof(good)];
		memcpy(bad, good, sizeof(bad));
		bad[28] = 4;
		s.eh_frame = bad;
		cr_assert_lt(cfi_table_new(&s, &t), 0);
		/* A length past the end. */
		memcpy(bad, good, sizeof(bad));
		bad[24] = 0xf0;
		cr_assert_lt(cfi_table_new(&s, &t), 0);
		/* restore_state with nothing remembered. */
		memcpy(bad, good, sizeof(bad));
		bad[44] = 0x0b;
		cr_assert_eq(cfi_table_new(&s, &t), 0);
		cr_assert_eq(cfi_table_row(t, 0x2001, &row), CFI_E_CORRUPT);
		cfi_table_free(t);
	}
	s.eh_frame = NULL;
	s.eh_frame_len = 0;
	cr_assert_lt(cfi_table_new(&s, &t), 0);
	cfi_table_free(NULL);
}
