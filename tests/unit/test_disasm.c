/*
 * test_disasm.c: the disassembler on known bytes of both architectures,
 * undecodable ones included, and the code bytes of real files
 * (objfile_code()) cut into instructions, checked against llvm-objdump
 * -d: an ELF program and a Mach-O one, and their debug files, which hold
 * no code.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/trace.h"
#include "report/symbols/disasm.h"
#include "report/symbols/objfile.h"
#include "build_dir.h"
#include "object_file.h"

TestSuite(disasm, .init = find_build_dir);

struct known {
	const char *bytes;       /* hex */
	uint64_t addr;
	const char *mnemonic, *operands;
	size_t size;
};

/* Decodes each case alone, with its bytes and no more. */
static void check_known(int arch, const struct known *k, size_t n)
{
	struct disasm *d;

	cr_assert_eq(disasm_new(arch, &d), 0);
	for (size_t i = 0; i < n; i++) {
		uint8_t code[16];
		size_t len = strlen(k[i].bytes) / 2;
		struct disasm_insn insn;

		for (size_t j = 0; j < len; j++)
			cr_assert_eq(sscanf(k[i].bytes + 2 * j, "%2hhx", &code[j]), 1);
		cr_assert_eq(disasm_one(d, code, len, k[i].addr, &insn), k[i].size, "%s", k[i].bytes);
		cr_assert_eq(insn.size, k[i].size);
		cr_assert_eq(insn.address, k[i].addr);
		cr_assert_str_eq(insn.mnemonic, k[i].mnemonic, "%s", k[i].bytes);
		cr_assert_str_eq(insn.operands, k[i].operands, "%s", k[i].bytes);
		cr_assert_eq(insn.bad, !strcmp(k[i].mnemonic, "(bad)"));
		cr_assert_arr_eq(insn.bytes, code, k[i].size);
	}
	disasm_free(d);
}

/* A frame's prologue and epilogue, a memory operand as the objdumps write
 * it (no spaces), and bytes that are no instruction: 06 is invalid in
 * 64-bit mode, and an instruction cut short is "(bad)" byte by byte. */
Test(disasm, x86_64_in_att_syntax)
{
	static const struct known k[] = {
		{ "55", 0x1000, "pushq", "%rbp", 1 },
		{ "4889e5", 0x1001, "movq", "%rsp, %rbp", 3 },
		{ "488b04c4", 0x1004, "movq", "(%rsp,%rax,8), %rax", 4 },
		{ "e8fb0f0000", 0x1000, "callq", "0x2000", 5 },
		{ "c3", 0x1008, "retq", "", 1 },
		{ "06", 0x1009, "(bad)", "", 1 },
		{ "4889", 0x100a, "(bad)", "", 1 },
	};

	check_known(TRACE_ARCH_X86_64, k, sizeof(k) / sizeof(*k));
}

/* Targets as addresses, as llvm-objdump writes them (bl, b.ne, tbz, a
 * literal load, adrp's page), a negative post-index offset signed, and
 * undecodable words: "(bad)" over 4 bytes, or over what remains. */
Test(disasm, arm64_as_llvm_objdump_writes_it)
{
	static const struct known k[] = {
		{ "fd7bbfa9", 0x1000, "stp", "x29, x30, [sp, #-0x10]!", 4 },
		{ "10000094", 0x1000, "bl", "0x1040", 4 },
		{ "c1ffff54", 0x1000, "b.ne", "0xff8", 4 },
		{ "63002836", 0x1000, "tbz", "w3, #5, 0x100c", 4 },
		{ "50000018", 0x1000, "ldr", "w16, 0x1008", 4 },
		{ "080000d0", 0x1000, "adrp", "x8, 0x3000", 4 },
		{ "80875ef8", 0x1000, "ldr", "x0, [x28], #-0x18", 4 },
		{ "c0035fd6", 0x1004, "ret", "", 4 },
		{ "00000000", 0x1008, "(bad)", "", 4 },
		{ "fd7b", 0x100c, "(bad)", "", 2 },
	};

	check_known(TRACE_ARCH_ARM64, k, sizeof(k) / sizeof(*k));
}

Test(disasm, unknown_architecture_refused)
{
	struct disasm *d = NULL;

	cr_assert_eq(disasm_new(TRACE_ARCH_UNKNOWN, &d), DISASM_E_ARCH);
	cr_assert_null(d);
	cr_assert_not_null(strstr(prof_strerror(DISASM_E_ARCH), "unknown"));
	disasm_free(NULL);
}

/* The path of fixture name under the build directory, or a skip if make
 * did not build it (the Mach-O fixtures need clang and ld64.lld). */
static void fixture(const char *name, char *out, size_t n)
{
	snprintf(out, n, "%s/testdata/%s", build_dir, name);
	if (access(out, R_OK))
		cr_skip_test("no fixture %s (make fixtures says why)", out);
}

static void need_objdump(void)
{
	if (system("command -v llvm-objdump >/dev/null 2>&1"))
		cr_skip_test("llvm-objdump is not installed");
}

/* One instruction line of llvm-objdump -d, "    1430: 55    \tpushq\t%rbp":
 * its address and bytes. */
static int objdump_line(const char *line, uint64_t *addr, uint8_t *bytes, size_t *n)
{
	int used = 0;

	if (sscanf(line, " %" SCNx64 ":%n", addr, &used) != 1 || !used)
		return 0;
	line += used;
	for (*n = 0; *n < 16; (*n)++, line += 2) {
		while (*line == ' ')
			line++;
		if (!isxdigit((unsigned char)line[0]) || !isxdigit((unsigned char)line[1]) ||
		    (line[2] != ' ' && line[2] != '\t') || sscanf(line, "%2hhx", &bytes[*n]) != 1)
			break;
	}
	return *n > 0;
}

/* objfile_code() at [lo, hi) of the file at path holds the bytes
 * llvm-objdump -d shows there, and the disassembler cuts them at the
 * same addresses, into instructions it decodes. */
static void check_code(const char *path, int arch, uint64_t lo, uint64_t hi)
{
	struct objfile of;
	struct disasm *d;
	const uint8_t *code;
	char cmd[PATH_MAX + 128], line[512], *why = NULL;
	size_t n, off = 0, count = 0;
	FILE *p;

	cr_assert_eq(objfile_open(&of, path, TRACE_IDENT_NONE, NULL, 0, &why), 0, "%s: %s", path, why);
	cr_assert_eq(objfile_arch(&of), arch);
	n = objfile_code(&of, lo, hi - lo, &code);
	cr_assert_eq(n, hi - lo, "%s holds %zu bytes at 0x%" PRIx64, path, n, lo);
	cr_assert_eq(disasm_new(arch, &d), 0);
	snprintf(cmd, sizeof(cmd), "llvm-objdump -d --start-address=0x%" PRIx64
		 " --stop-address=0x%" PRIx64 " '%s'", lo, hi, path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		uint8_t want[16];
		uint64_t addr;
		size_t len;
		struct disasm_insn insn;

		if (!objdump_line(line, &addr, want, &len))
			continue;
		cr_assert_eq(addr, lo + off, "llvm-objdump: %s", line);
		cr_assert_eq(disasm_one(d, code + off, n - off, addr, &insn), len, "at 0x%" PRIx64 ": %s",
			     addr, line);
		cr_assert_arr_eq(insn.bytes, want, len, "at 0x%" PRIx64, addr);
		cr_assert_not(insn.bad, "(bad) at 0x%" PRIx64 ": %s", addr, line);
		off += len;
		count++;
	}
	pclose(p);
	cr_assert_eq(off, n, "llvm-objdump shows %zu of the %zu bytes", off, n);
	cr_assert_gt(count, 4);
	disasm_free(d);
	objfile_release(&of);
}

/* A debug file's code sections have no bytes: objfile_code() gives none. */
static void check_no_code(const char *path, uint64_t addr)
{
	struct objfile of;
	const uint8_t *code = NULL;
	char *why = NULL;

	cr_assert_eq(objfile_open(&of, path, TRACE_IDENT_NONE, NULL, 0, &why), 0, "%s: %s", path, why);
	cr_assert_eq(objfile_code(&of, addr, 16, &code), 0, "%s", path);
	cr_assert_null(code);
	objfile_release(&of);
}

/* split's run(), by its symbol's address and size; the split debug file
 * objcopy --only-keep-debug made of it (mk/debugfiles.mk) has the symbol
 * but no code. */
Test(disasm, elf_code_as_llvm_objdump_shows_it)
{
	char exe[PATH_MAX + 128], debug[PATH_MAX + 128];
	uint64_t addr, size;

	need_objdump();
	fixture("split", exe, sizeof(exe));
	fixture("stripped/.debug/split.debug", debug, sizeof(debug));
	addr = nm_symbol("nm", exe, "run", &size);
	cr_assert_gt(size, 16, "nm gives no size for run in %s", exe);
	check_code(exe, TRACE_ARCH_X86_64, addr, addr + size);
	check_no_code(debug, addr);
}

/* app-arm64's path_a, up to path_b, which follows it; its dSYM's __TEXT
 * has no bytes. */
Test(disasm, macho_code_as_llvm_objdump_shows_it)
{
	char exe[PATH_MAX + 128], dsym[PATH_MAX + 128];
	uint64_t a, b, size;

	need_objdump();
	if (system("command -v llvm-nm >/dev/null 2>&1"))
		cr_skip_test("llvm-nm is not installed");
	fixture("macho/app-arm64", exe, sizeof(exe));
	fixture("macho/app-arm64.dSYM/Contents/Resources/DWARF/app-arm64", dsym, sizeof(dsym));
	a = nm_symbol("llvm-nm", exe, "_path_a", &size);
	b = nm_symbol("llvm-nm", exe, "_path_b", &size);
	cr_assert_gt(b, a);
	check_code(exe, TRACE_ARCH_ARM64, a, b);
	check_no_code(dsym, a);
}
