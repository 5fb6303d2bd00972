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
 *
 * The DWARF expression evaluator is checked one group of operations at a
 * time against a small fake memory, with each kind of bad expression
 * (loops, overflow, underflow, unreadable memory, division by zero, cut
 * operands, branches outside) giving its exact error; then the three
 * expression instructions in a hand-made .eh_frame, and the signal frame
 * rules of the __restore_rt of the libc this test runs on.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/ucontext.h>
#include <unistd.h>

#include "common/bytes.h"
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

/*
 * DWARF expressions. The operations' numbers are spelt out here from the
 * DWARF standard rather than taken from cfi.c's names, so that a wrong
 * number there fails a test.
 */
enum {
	OP_addr = 0x03, OP_deref = 0x06, OP_const1u = 0x08, OP_const1s, OP_const2u, OP_const2s,
	OP_const4u, OP_const4s, OP_const8u, OP_const8s, OP_constu, OP_consts, OP_dup, OP_drop,
	OP_over, OP_pick, OP_swap, OP_rot, OP_abs = 0x19, OP_and, OP_div, OP_minus, OP_mod, OP_mul,
	OP_neg, OP_not, OP_or, OP_plus, OP_plus_uconst, OP_shl, OP_shr, OP_shra, OP_xor, OP_bra,
	OP_eq, OP_ge, OP_gt, OP_le, OP_lt, OP_ne, OP_skip, OP_lit0 = 0x30, OP_lit31 = 0x4f,
	OP_breg0 = 0x70, OP_bregx = 0x92, OP_deref_size = 0x94, OP_nop = 0x96,
};
#define OP_lit(n) (OP_lit0 + (n))
#define OP_breg(n) (OP_breg0 + (n))

/* An expression's bytes and their count, as the evaluator takes them. */
#define BYTES(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })

/* Target memory for the expressions: len bytes at base. Every read is
 * counted, and a read not wholly inside fails. */
struct fake_mem {
	uint64_t base;
	const uint8_t *bytes;
	size_t len;
	unsigned reads;
};

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct fake_mem *m = ctx;

	m->reads++;
	if (addr < m->base || addr - m->base > m->len || len > m->len - (addr - m->base))
		return -1;
	memcpy(buf, m->bytes + (addr - m->base), len);
	return 0;
}

/* 16 bytes at 0x5000: 01 02 ... 10. */
static const uint8_t mem_bytes[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static struct fake_mem mem = { 0x5000, mem_bytes, sizeof(mem_bytes), 0 };
static const struct cfi_regs regs = { .pc = 0x401000, .sp = 0x7ffd1000, .fp = 0x7ffd1100, .lr = 0x402000 };

/* The expression's result or error on x86_64, over mem. */
static int eval(const uint8_t *expr, size_t len, uint64_t *v)
{
	*v = 0xdeadbeef;
	return cfi_expr_eval_mem(CFI_ARCH_X86_64, expr, len, &regs, fake_read, &mem, v);
}

static void expect_value(const uint8_t *expr, size_t len, uint64_t want, int line)
{
	uint64_t v;
	int e = eval(expr, len, &v);

	cr_assert_eq(e, 0, "line %d: %s", line, prof_strerror(e));
	cr_assert_eq(v, want, "line %d: 0x%llx, want 0x%llx", line, (unsigned long long)v,
		     (unsigned long long)want);
}

static void expect_error(const uint8_t *expr, size_t len, int want, int line)
{
	uint64_t v;
	int e = eval(expr, len, &v);

	cr_assert_eq(e, want, "line %d: %d (%s), want %s", line, e, e ? prof_strerror(e) : "a value",
		     prof_strerror(want));
}

#define VALUE(want, ...) expect_value(BYTES(__VA_ARGS__), (want), __LINE__)
#define ERROR(want, ...) expect_error(BYTES(__VA_ARGS__), (want), __LINE__)

Test(cfi, expr_constants)
{
	VALUE(0, OP_lit(0));
	VALUE(31, OP_lit(31));
	VALUE(0x1122334455667788, OP_addr, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11);
	VALUE(0xff, OP_const1u, 0xff);
	VALUE(UINT64_MAX, OP_const1s, 0xff);
	VALUE(0xfffe, OP_const2u, 0xfe, 0xff);
	VALUE((uint64_t)-2, OP_const2s, 0xfe, 0xff);
	VALUE(0x80000000, OP_const4u, 0, 0, 0, 0x80);
	VALUE((uint64_t)INT32_MIN, OP_const4s, 0, 0, 0, 0x80);
	VALUE(0x8000000000000001, OP_const8u, 1, 0, 0, 0, 0, 0, 0, 0x80);
	VALUE(0x8000000000000001, OP_const8s, 1, 0, 0, 0, 0, 0, 0, 0x80);
	VALUE(624485, OP_constu, 0xe5, 0x8e, 0x26);
	VALUE((uint64_t)-123456, OP_consts, 0xc0, 0xbb, 0x78);
	/* The last value pushed is the result. */
	VALUE(2, OP_lit(1), OP_lit(2));
}

Test(cfi, expr_registers)
{
	uint64_t v;

	VALUE(regs.sp + 160, OP_breg(7), 0xa0, 0x01);
	VALUE(regs.sp - 8, OP_breg(7), 0x78);
	VALUE(regs.fp + 16, OP_breg(6), 0x10);
	VALUE(regs.pc, OP_breg(16), 0);
	VALUE(regs.sp - 8, OP_bregx, 7, 0x78);
	/* rax, r15 and a register past the DWARF numbers are not carried. */
	ERROR(CFI_E_UNSUPPORTED, OP_breg(0), 0);
	ERROR(CFI_E_UNSUPPORTED, OP_breg(15), 0);
	ERROR(CFI_E_UNSUPPORTED, OP_bregx, 0xc8, 0x01, 0);
	/* arm64 numbers its registers otherwise. */
	cr_assert_eq(cfi_expr_eval(CFI_ARCH_ARM64, BYTES(OP_breg(31), 0x10), &regs, &v), 0);
	cr_assert_eq(v, regs.sp + 16);
	cr_assert_eq(cfi_expr_eval(CFI_ARCH_ARM64, BYTES(OP_breg(29), 0), &regs, &v), 0);
	cr_assert_eq(v, regs.fp);
	cr_assert_eq(cfi_expr_eval(CFI_ARCH_ARM64, BYTES(OP_bregx, 30, 0), &regs, &v), 0);
	cr_assert_eq(v, regs.lr);
	cr_assert_eq(cfi_expr_eval(CFI_ARCH_ARM64, BYTES(OP_breg(7), 0), &regs, &v), CFI_E_UNSUPPORTED);
}

Test(cfi, expr_deref)
{
	uint64_t v;

	VALUE(0x0807060504030201, OP_const2u, 0x00, 0x50, OP_deref);
	VALUE(0x02, OP_const2u, 0x01, 0x50, OP_deref_size, 1);
	VALUE(0x0302, OP_const2u, 0x01, 0x50, OP_deref_size, 2);
	VALUE(0x05040302, OP_const2u, 0x01, 0x50, OP_deref_size, 4);
	VALUE(0x100f0e0d0c0b0a09, OP_const2u, 0x08, 0x50, OP_deref_size, 8);
	/* Sizes libgcc does not read. */
	ERROR(CFI_E_CORRUPT, OP_const2u, 0x00, 0x50, OP_deref_size, 0);
	ERROR(CFI_E_CORRUPT, OP_const2u, 0x00, 0x50, OP_deref_size, 3);
	ERROR(CFI_E_CORRUPT, OP_const2u, 0x00, 0x50, OP_deref_size, 9);
	/* Without a reader, memory is refused. */
	cr_assert_eq(cfi_expr_eval(CFI_ARCH_X86_64, BYTES(OP_const2u, 0x00, 0x50, OP_deref), &regs, &v),
		     CFI_E_UNSUPPORTED);
}

Test(cfi, expr_stack_operations)
{
	VALUE(7, OP_lit(7), OP_dup, OP_drop);
	VALUE(14, OP_lit(7), OP_dup, OP_plus);
	VALUE(1, OP_lit(1), OP_lit(2), OP_drop);
	VALUE(1, OP_lit(1), OP_lit(2), OP_over);
	VALUE(3, OP_lit(1), OP_lit(2), OP_lit(3), OP_pick, 0);
	VALUE(1, OP_lit(1), OP_lit(2), OP_lit(3), OP_pick, 2);
	VALUE(1, OP_lit(1), OP_lit(2), OP_swap);
	VALUE(2, OP_lit(1), OP_lit(2), OP_swap, OP_drop);
	/* rot: 1 2 3 becomes 3 1 2. */
	VALUE(2, OP_lit(1), OP_lit(2), OP_lit(3), OP_rot);
	VALUE(1, OP_lit(1), OP_lit(2), OP_lit(3), OP_rot, OP_drop);
	VALUE(3, OP_lit(1), OP_lit(2), OP_lit(3), OP_rot, OP_drop, OP_drop);
}

Test(cfi, expr_arithmetic)
{
	VALUE(12, OP_lit(5), OP_lit(7), OP_plus);
	VALUE(0x1005, OP_lit(5), OP_plus_uconst, 0x80, 0x20);
	VALUE((uint64_t)-2, OP_lit(5), OP_lit(7), OP_minus);
	VALUE(35, OP_lit(5), OP_lit(7), OP_mul);
	/* div is signed and truncates toward zero. */
	VALUE(3, OP_lit(7), OP_lit(2), OP_div);
	VALUE((uint64_t)-3, OP_const1s, 0xf9, OP_lit(2), OP_div);
	VALUE((uint64_t)-3, OP_lit(7), OP_const1s, 0xfe, OP_div);
	/* mod is unsigned: 2^64 - 1 is 5 mod 10. */
	VALUE(1, OP_lit(7), OP_lit(2), OP_mod);
	VALUE(5, OP_const1s, 0xff, OP_lit(10), OP_mod);
	VALUE((uint64_t)-5, OP_lit(5), OP_neg);
	VALUE(5, OP_const1s, 0xfb, OP_abs);
	VALUE(5, OP_lit(5), OP_abs);
	VALUE(~(uint64_t)5, OP_lit(5), OP_not);
	VALUE(0x4, OP_lit(12), OP_lit(6), OP_and);
	VALUE(0xe, OP_lit(12), OP_lit(6), OP_or);
	VALUE(0xa, OP_lit(12), OP_lit(6), OP_xor);
	VALUE(0x30, OP_lit(3), OP_lit(4), OP_shl);
	VALUE(0, OP_lit(3), OP_const1u, 64, OP_shl);
	VALUE(0x3, OP_lit(12), OP_lit(2), OP_shr);
	VALUE((uint64_t)-16 >> 2, OP_const1s, 0xf0, OP_lit(2), OP_shr);
	VALUE((uint64_t)-4, OP_const1s, 0xf0, OP_lit(2), OP_shra);
	VALUE(UINT64_MAX, OP_const1s, 0xf0, OP_const1u, 200, OP_shra);
}

/* INT64_MIN / -1 overflows: it must not trap, and wraps to itself, as
 * does its absolute value. */
Test(cfi, expr_int64_min)
{
	VALUE((uint64_t)INT64_MIN, OP_const8s, 0, 0, 0, 0, 0, 0, 0, 0x80, OP_const1s, 0xff, OP_div);
	VALUE((uint64_t)INT64_MIN, OP_const8s, 0, 0, 0, 0, 0, 0, 0, 0x80, OP_const1s, 0xff, OP_mod);
	VALUE((uint64_t)INT64_MIN, OP_const8s, 0, 0, 0, 0, 0, 0, 0, 0x80, OP_abs);
	VALUE((uint64_t)INT64_MIN, OP_const8s, 0, 0, 0, 0, 0, 0, 0, 0x80, OP_neg);
}

/* Comparisons are signed and give 1 or 0. */
Test(cfi, expr_comparisons)
{
	VALUE(1, OP_lit(3), OP_lit(3), OP_eq);
	VALUE(0, OP_lit(3), OP_lit(4), OP_eq);
	VALUE(1, OP_lit(3), OP_lit(4), OP_ne);
	VALUE(0, OP_lit(3), OP_lit(3), OP_ne);
	VALUE(1, OP_const1s, 0xff, OP_lit(1), OP_lt);
	VALUE(0, OP_lit(1), OP_const1s, 0xff, OP_lt);
	VALUE(1, OP_lit(3), OP_lit(3), OP_le);
	VALUE(0, OP_lit(4), OP_lit(3), OP_le);
	VALUE(1, OP_lit(1), OP_const1s, 0xff, OP_gt);
	VALUE(0, OP_lit(3), OP_lit(3), OP_gt);
	VALUE(1, OP_lit(3), OP_lit(3), OP_ge);
	VALUE(0, OP_const1s, 0xff, OP_lit(0), OP_ge);
}

Test(cfi, expr_control_flow)
{
	VALUE(1, OP_lit(1), OP_nop, OP_nop);
	/* skip counts from past its operand. */
	VALUE(1, OP_lit(1), OP_skip, 1, 0, OP_lit(2));
	VALUE(1, OP_lit(1), OP_skip, 0, 0);
	/* bra pops its condition and branches when it is not zero. */
	VALUE(7, OP_lit(7), OP_lit(1), OP_bra, 1, 0, OP_lit(2));
	VALUE(2, OP_lit(7), OP_lit(0), OP_bra, 1, 0, OP_lit(2));
	/* A loop that counts 5 down to 0, and one that ends a skip forward. */
	VALUE(0, OP_lit(5), OP_lit(1), OP_minus, OP_dup, OP_bra, 0xfa, 0xff);
	VALUE(9, OP_lit(9), OP_lit(1), OP_bra, 4, 0, OP_nop, OP_skip, 0xfc, 0xff);
	/* glibc's PLT expression: CFA = rsp + 8 + ((rip & 15) >= 11 ? 8 : 0). */
	VALUE(regs.sp + 8, OP_breg(7), 8, OP_breg(16), 0, OP_lit(15), OP_and, OP_lit(11), OP_ge,
	      OP_lit(3), OP_shl, OP_plus);
}

/* An expression that loops forever stops at the step limit. */
Test(cfi, expr_bad_loops)
{
	ERROR(CFI_E_UNSUPPORTED, OP_skip, 0xfd, 0xff);
	ERROR(CFI_E_UNSUPPORTED, OP_lit(1), OP_dup, OP_bra, 0xfc, 0xff);
	ERROR(CFI_E_UNSUPPORTED, OP_lit(1), OP_nop, OP_dup, OP_drop, OP_lit(1), OP_bra, 0xfa, 0xff);
}

/* 32 entries fit; the 33rd, pushed one way or another, does not. */
Test(cfi, expr_bad_stack_overflow)
{
	uint8_t e[40];
	uint64_t v;

	memset(e, OP_lit(1), sizeof(e));
	cr_assert_eq(eval(e, 32, &v), 0);
	cr_assert_eq(eval(e, 33, &v), CFI_E_UNSUPPORTED);
	cr_assert_eq(eval(e, sizeof(e), &v), CFI_E_UNSUPPORTED);
	ERROR(CFI_E_UNSUPPORTED, OP_lit(1), OP_dup, OP_skip, 0xfc, 0xff);
	ERROR(CFI_E_UNSUPPORTED, OP_lit(1), OP_lit(2), OP_over, OP_skip, 0xfc, 0xff);
}

/* Every operation that pops, on too short a stack; and no result. */
Test(cfi, expr_bad_underflow)
{
	ERROR(CFI_E_CORRUPT, OP_drop);
	ERROR(CFI_E_CORRUPT, OP_dup);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_over);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_pick, 1);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_swap);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_lit(2), OP_rot);
	ERROR(CFI_E_CORRUPT, OP_deref);
	ERROR(CFI_E_CORRUPT, OP_deref_size, 4);
	ERROR(CFI_E_CORRUPT, OP_plus_uconst, 8);
	ERROR(CFI_E_CORRUPT, OP_neg);
	ERROR(CFI_E_CORRUPT, OP_abs);
	ERROR(CFI_E_CORRUPT, OP_not);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_plus);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_div);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_eq);
	ERROR(CFI_E_CORRUPT, OP_bra, 0, 0);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_drop);
	ERROR(CFI_E_CORRUPT, OP_nop);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_skip, 0, 0, OP_drop);
}

/* A read the memory refuses stops the evaluation with an error. */
Test(cfi, expr_bad_unmapped_memory)
{
	mem.reads = 0;
	ERROR(CFI_E_UNSUPPORTED, OP_const2u, 0xff, 0x4f, OP_deref);           /* before */
	ERROR(CFI_E_UNSUPPORTED, OP_const2u, 0x09, 0x50, OP_deref);           /* across the end */
	ERROR(CFI_E_UNSUPPORTED, OP_const2u, 0x0f, 0x50, OP_deref_size, 2);
	ERROR(CFI_E_UNSUPPORTED, OP_const2u, 0x10, 0x50, OP_deref_size, 1);   /* just past */
	ERROR(CFI_E_UNSUPPORTED, OP_lit(0), OP_not, OP_deref);                /* 2^64 - 1 */
	cr_assert_eq(mem.reads, 5);
	/* And the first failure ends it: no further reads. */
	ERROR(CFI_E_UNSUPPORTED, OP_lit(0), OP_deref, OP_const2u, 0x00, 0x50, OP_deref);
	cr_assert_eq(mem.reads, 6);
}

Test(cfi, expr_bad_division_by_zero)
{
	ERROR(CFI_E_CORRUPT, OP_lit(7), OP_lit(0), OP_div);
	ERROR(CFI_E_CORRUPT, OP_lit(7), OP_lit(0), OP_mod);
	ERROR(CFI_E_CORRUPT, OP_lit(0), OP_lit(0), OP_div);
}

/* Each operation with an operand, cut short: nothing is read past the end. */
Test(cfi, expr_bad_truncated)
{
	uint64_t v;

	ERROR(CFI_E_CORRUPT, OP_addr, 1, 2, 3, 4, 5, 6, 7);
	ERROR(CFI_E_CORRUPT, OP_const1u);
	ERROR(CFI_E_CORRUPT, OP_const1s);
	ERROR(CFI_E_CORRUPT, OP_const2u, 1);
	ERROR(CFI_E_CORRUPT, OP_const2s, 1);
	ERROR(CFI_E_CORRUPT, OP_const4u, 1, 2, 3);
	ERROR(CFI_E_CORRUPT, OP_const4s, 1, 2, 3);
	ERROR(CFI_E_CORRUPT, OP_const8u, 1, 2, 3, 4, 5, 6, 7);
	ERROR(CFI_E_CORRUPT, OP_const8s, 1, 2, 3, 4, 5, 6, 7);
	ERROR(CFI_E_CORRUPT, OP_constu, 0x80);
	ERROR(CFI_E_CORRUPT, OP_consts, 0x80);
	ERROR(CFI_E_CORRUPT, OP_breg(7));
	ERROR(CFI_E_CORRUPT, OP_breg(7), 0x80);
	ERROR(CFI_E_CORRUPT, OP_breg(0));       /* cut short before its register is refused */
	ERROR(CFI_E_CORRUPT, OP_bregx, 7);
	ERROR(CFI_E_CORRUPT, OP_bregx, 0x87);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_plus_uconst);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_plus_uconst, 0xff);
	ERROR(CFI_E_CORRUPT, OP_const2u, 0x00, 0x50, OP_deref_size);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_pick);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_skip);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_skip, 0);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_lit(1), OP_bra, 0);
	/* A LEB128 longer than 64 bits of value. */
	ERROR(CFI_E_CORRUPT, OP_constu, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f);
	/* Nothing at all. */
	cr_assert_eq(eval(mem_bytes, 0, &v), CFI_E_CORRUPT);
	cr_assert_eq(eval(NULL, 0, &v), CFI_E_CORRUPT);
}

/* A branch may land on the end of the expression, not beyond either end. */
Test(cfi, expr_bad_branch_outside)
{
	VALUE(1, OP_lit(1), OP_skip, 1, 0, OP_nop);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_skip, 2, 0, OP_nop);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_skip, 0xff, 0x7f);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_skip, 0xfb, 0xff);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_skip, 0x00, 0x80);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_lit(1), OP_bra, 1, 0);
	ERROR(CFI_E_CORRUPT, OP_lit(1), OP_lit(1), OP_bra, 0xfa, 0xff);
	/* Not taken, it does not matter where it points. */
	VALUE(1, OP_lit(1), OP_lit(0), OP_bra, 0xff, 0x7f);
}

Test(cfi, expr_bad_unknown_operations)
{
	ERROR(CFI_E_UNSUPPORTED, 0x50);         /* DW_OP_reg0: a location, not a value */
	ERROR(CFI_E_UNSUPPORTED, 0x90, 7);      /* DW_OP_regx */
	ERROR(CFI_E_UNSUPPORTED, 0x9c);         /* DW_OP_call_frame_cfa */
	ERROR(CFI_E_UNSUPPORTED, 0x00);
	ERROR(CFI_E_UNSUPPORTED, 0xe0);         /* DW_OP_lo_user */
	ERROR(CFI_E_UNSUPPORTED, OP_lit(1), 0xff);
}

/*
 * An .eh_frame at 0x1000 of one CIE ("zR", pc-relative sdata4 pointers,
 * CFA = rsp + 8, the return address at CFA - 8) and one FDE for [0x2000,
 * 0x2040) whose instructions are insns. Returns its length.
 */
static size_t eh_frame_with(uint8_t *out, size_t cap, const uint8_t *insns, size_t n)
{
	static const uint8_t cie[] = {
		0x14, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b, 0x0c, 7, 8, 0x90, 1, 0, 0,
	};
	size_t body = 4 + 4 + 4 + 1 + n, len = (body + 3) / 4 * 4;  /* DW_CFA_nop pads */

	cr_assert_leq(sizeof(cie) + 4 + len, cap);
	memset(out, 0, cap);
	memcpy(out, cie, sizeof(cie));
	put_le32(out + 24, (uint32_t)len);
	put_le32(out + 28, 28);                                    /* back to the CIE */
	put_le32(out + 32, (uint32_t)(0x2000 - (0x1000 + 32)));    /* pc, pc-relative */
	put_le32(out + 36, 0x40);
	memcpy(out + 41, insns, n);
	return sizeof(cie) + 4 + len;
}

/* The three expression instructions give rows that borrow their bytes
 * from the section, and those evaluate as the rules say. */
Test(cfi, expr_rules_in_eh_frame)
{
	static const uint8_t insns[] = {
		0x41,                                   /* advance_loc 1 */
		0x0f, 4, OP_breg(7), 0xa0, 0x01, OP_deref, /* def_cfa_expression: *(rsp + 160) */
		0x10, 16, 3, OP_breg(7), 0xa8, 0x01,    /* expression ra: at rsp + 168 */
		0x16, 6, 2, OP_breg(7), 0x20,           /* val_expression rbp: rsp + 32 */
		0x41,                                   /* advance_loc 1 */
		0x16, 16, 3, OP_breg(6), 8, OP_deref,   /* val_expression ra: *(rbp + 8) */
		0x10, 6, 2, OP_breg(6), 0,              /* expression rbp: at rbp */
		0x10, 3, 1, OP_nop,                     /* expression rbx: not a column kept */
	};
	uint8_t sec[128], stack[176];
	struct cfi_sections s = { .arch = CFI_ARCH_X86_64, .eh_frame = sec, .eh_frame_addr = 0x1000 };
	struct cfi_regs r = { .sp = 0x7000, .fp = 0x7010, .pc = 0x2001 };
	struct fake_mem m = { 0x7000, stack, sizeof(stack), 0 };
	struct cfi_table *t;
	struct cfi_row row;
	uint64_t v;

	s.eh_frame_len = eh_frame_with(sec, sizeof(sec), insns, sizeof(insns));
	memset(stack, 0, sizeof(stack));
	put_le64(stack + 160, 0x7100);          /* the CFA */
	put_le64(stack + 168, 0x401234);        /* the return address */
	put_le64(stack + 0x10, 0x7200);         /* rbp's saved value ... */
	put_le64(stack + 0x18, 0x405678);       /* ... and the return address above it */
	cr_assert_eq(cfi_table_new(&s, &t), 0);

	cr_assert_eq(cfi_table_row(t, 0x2000, &row), 0);
	cr_assert_eq(row.cfa_kind, CFI_CFA_REG);
	cr_assert_eq(row.ra.kind, CFI_RULE_OFFSET);

	cr_assert_eq(cfi_table_row(t, 0x2001, &row), 0);
	cr_assert_eq(row.start, 0x2001);
	cr_assert_eq(row.end, 0x2002);
	cr_assert_eq(row.cfa_kind, CFI_CFA_EXPR);
	cr_assert_eq(row.expr_len, 4);
	cr_assert_eq(row.expr, sec + 41 + 3, "the CFA expression is borrowed from the section");
	cr_assert_eq(row.ra.kind, CFI_RULE_EXPR);
	cr_assert_eq(row.ra.expr_len, 3);
	cr_assert_eq(memcmp(row.ra.expr, insns + 10, 3), 0);
	cr_assert_eq(row.fp.kind, CFI_RULE_VAL_EXPR);
	cr_assert_eq(row.fp.expr_len, 2);
	cr_assert_eq(memcmp(row.fp.expr, insns + 16, 2), 0);
	cr_assert_eq(cfi_expr_eval_mem(CFI_ARCH_X86_64, row.expr, row.expr_len, &r, fake_read, &m, &v), 0);
	cr_assert_eq(v, 0x7100);
	cr_assert_eq(cfi_expr_eval_mem(CFI_ARCH_X86_64, row.ra.expr, row.ra.expr_len, &r, fake_read, &m, &v), 0);
	cr_assert_eq(v, 0x7000 + 168, "EXPR gives the address the value is saved at");
	cr_assert_eq(cfi_expr_eval_mem(CFI_ARCH_X86_64, row.fp.expr, row.fp.expr_len, &r, fake_read, &m, &v), 0);
	cr_assert_eq(v, 0x7020, "VAL_EXPR gives the value itself");

	/* The later row: the kinds swap over, the CFA expression stays. */
	cr_assert_eq(cfi_table_row(t, 0x2030, &row), 0);
	cr_assert_eq(row.start, 0x2002);
	cr_assert_eq(row.cfa_kind, CFI_CFA_EXPR);
	cr_assert_eq(row.ra.kind, CFI_RULE_VAL_EXPR);
	cr_assert_eq(row.fp.kind, CFI_RULE_EXPR);
	cr_assert_eq(cfi_expr_eval_mem(CFI_ARCH_X86_64, row.ra.expr, row.ra.expr_len, &r, fake_read, &m, &v), 0);
	cr_assert_eq(v, 0x405678);
	cr_assert_eq(cfi_expr_eval_mem(CFI_ARCH_X86_64, row.fp.expr, row.fp.expr_len, &r, fake_read, &m, &v), 0);
	cr_assert_eq(v, 0x7010);
	cfi_table_free(t);

	/* An expression longer than what is left of the FDE. */
	{
		static const uint8_t cut[] = { 0x41, 0x0f, 40, OP_breg(7), 0 };
		static const uint8_t cut_reg[] = { 0x41, 0x10, 16, 40, OP_breg(7), 0 };
		static const uint8_t cut_val[] = { 0x41, 0x16, 6 };
		const uint8_t *bad[] = { cut, cut_reg, cut_val };
		size_t bad_len[] = { sizeof(cut), sizeof(cut_reg), sizeof(cut_val) };

		for (int i = 0; i < 3; i++) {
			s.eh_frame_len = eh_frame_with(sec, sizeof(sec), bad[i], bad_len[i]);
			cr_assert_eq(cfi_table_new(&s, &t), 0);
			cr_assert_eq(cfi_table_row(t, 0x2000, &row), 0, "the row before is whole");
			cr_assert_eq(cfi_table_row(t, 0x2001, &row), CFI_E_CORRUPT, "instructions %d", i);
			cfi_table_free(t);
		}
	}
}

/*
 * glibc's signal trampoline, __restore_rt, as the libc this test runs on
 * has it. The kernel makes a handler return into it with rsp at the
 * ucontext of its rt_sigframe (the return address, pretcode, popped), and
 * glibc's FDE (augmentation "zRS") finds every register saved in that
 * ucontext's mcontext: CFA = *(rsp + offset of rsp), rip at rsp + offset
 * of rip, rbp at rsp + offset of rbp, the offsets being <sys/ucontext.h>'s.
 */
#if defined(__x86_64__)
struct object_of {
	uint64_t addr;      /* in: an address */
	uint64_t bias;      /* out: the load bias of the object holding it */
	char path[4096];
	int found;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct object_of *o = ctx;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && o->addr - start < ph->p_memsz) {
			o->bias = info->dlpi_addr;
			snprintf(o->path, sizeof(o->path), "%s", info->dlpi_name);
			o->found = 1;
			return 1;
		}
	}
	return 0;
}

static void on_signal(int sig) { (void)sig; }

/* Appends DW_OP_breg7 off: the bytes glibc writes for "at rsp + off". */
static size_t breg7(uint8_t *p, size_t off)
{
	size_t n = 0;

	p[n++] = OP_breg(7);
	do {
		p[n] = off & 0x7f;
		off >>= 7;
		/* Signed LEB128: a last byte with bit 6 set would read negative. */
		if (off || (p[n] & 0x40))
			p[n] |= 0x80;
		n++;
	} while (p[n - 1] & 0x80);
	return n;
}

Test(cfi, glibc_restore_rt)
{
	const size_t o_rsp = offsetof(ucontext_t, uc_mcontext.gregs[REG_RSP]);
	const size_t o_rip = offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP]);
	const size_t o_rbp = offsetof(ucontext_t, uc_mcontext.gregs[REG_RBP]);
	struct sigaction sa, old, ours;
	struct object_of o = { 0 };
	struct loaded l;
	struct cfi_table *t;
	struct cfi_row row;
	/* The rt_sigframe: pretcode, then the ucontext (then siginfo, not read). */
	uint8_t frame[8 + sizeof(ucontext_t)], want[16];
	const uint64_t base = 0x7ffe0000, sp = base + 8;
	struct fake_mem m = { base, frame, sizeof(frame), 0 };
	struct cfi_regs r = { .sp = sp, .fp = 0x1111, .pc = 0x2222 };
	uint64_t pc, v;
	size_t n;
	int e;

	/* glibc's sigaction() installs __restore_rt as the restorer, and
	 * gives it back in the old action. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	cr_assert_eq(sigaction(SIGUSR1, &sa, &old), 0);
	cr_assert_eq(sigaction(SIGUSR1, &old, &ours), 0);
	if (!ours.sa_restorer)
		cr_skip_test("the libc sets no sa_restorer");
	o.addr = (uint64_t)(uintptr_t)ours.sa_restorer;
	dl_iterate_phdr(find_object, &o);
	if (!o.found || !o.path[0])
		cr_skip_test("no shared object holds the restorer at 0x%llx", (unsigned long long)o.addr);
	pc = o.addr - o.bias;
	cr_assert_eq(load(o.path, &l), 0, "cannot load .eh_frame of '%s'", o.path);
	cr_assert_eq(cfi_table_new(&l.s, &t), 0);
	e = cfi_table_row(t, pc, &row);
	if (e == CFI_E_NOTFOUND)
		cr_skip_test("'%s' has no FDE for its restorer at 0x%llx", o.path, (unsigned long long)pc);
	cr_assert_eq(e, 0, "'%s' at 0x%llx: %s", o.path, (unsigned long long)pc, prof_strerror(e));
	cr_log_info("%s: __restore_rt at 0x%llx, rsp/rip/rbp saved at +%zu/+%zu/+%zu", o.path,
		    (unsigned long long)pc, o_rsp, o_rip, o_rbp);

	cr_assert_eq(row.signal_frame, 1);
	cr_assert_eq(row.cfa_kind, CFI_CFA_EXPR);
	n = breg7(want, o_rsp);
	want[n++] = OP_deref;
	cr_assert_eq(row.expr_len, n);
	cr_assert_eq(memcmp(row.expr, want, n), 0, "CFA is not DW_OP_breg7 %zu; DW_OP_deref", o_rsp);
	cr_assert_eq(row.ra.kind, CFI_RULE_EXPR);
	n = breg7(want, o_rip);
	cr_assert_eq(row.ra.expr_len, n);
	cr_assert_eq(memcmp(row.ra.expr, want, n), 0, "ra is not at DW_OP_breg7 %zu", o_rip);
	cr_assert_eq(row.fp.kind, CFI_RULE_EXPR);

	memset(frame, 0xa5, sizeof(frame));
	put_le64(frame, o.addr);
	put_le64(frame + 8 + o_rsp, 0x7ffd2000);
	put_le64(frame + 8 + o_rip, 0x401234);
	put_le64(frame + 8 + o_rbp, 0x7ffd2100);
	cr_assert_eq(cfi_expr_eval_mem(CFI_ARCH_X86_64, row.expr, row.expr_len, &r, fake_read, &m, &v), 0);
	cr_assert_eq(v, 0x7ffd2000, "CFA 0x%llx", (unsigned long long)v);
	cr_assert_eq(cfi_expr_eval_mem(CFI_ARCH_X86_64, row.ra.expr, row.ra.expr_len, &r, fake_read, &m, &v), 0);
	cr_assert_eq(v, sp + o_rip);
	cr_assert_eq(fake_read(&m, v, &v, 8), 0);
	cr_assert_eq(v, 0x401234, "rip 0x%llx", (unsigned long long)v);
	cr_assert_eq(cfi_expr_eval_mem(CFI_ARCH_X86_64, row.fp.expr, row.fp.expr_len, &r, fake_read, &m, &v), 0);
	cr_assert_eq(v, sp + o_rbp);
	cr_assert_eq(fake_read(&m, v, &v, 8), 0);
	cr_assert_eq(v, 0x7ffd2100, "rbp 0x%llx", (unsigned long long)v);
	cfi_table_free(t);
	munmap(l.map, l.size);
}
#else
Test(cfi, glibc_restore_rt) { cr_skip_test("the signal frame layout checked is x86_64's"); }
#endif
