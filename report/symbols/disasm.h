/*
 * disasm.h: machine code to text, one instruction at a time, for
 * `annotate --asm`.
 *
 * A thin layer over Capstone, for the two architectures prof records:
 * x86_64 in AT&T syntax, as objdump and perf print it, and arm64 as
 * llvm-objdump prints it. "MNEMONIC OPERANDS" reads as llvm-objdump -d
 * --no-show-raw-insn reads, at the same addresses, once Capstone's text
 * is brought to it here: x86_64 memory operands without spaces
 * ("(%r12,%rax,8)"), arm64 branch and literal targets as addresses
 * ("b.ne 0x57c", "adrp x8, 0x8000"), and arm64 post-index offsets signed
 * ("[x28], #-0x18", where Capstone 4 writes #0xffffffffffffffe8).
 *
 * What still differs from llvm-objdump 14 (Capstone 4.0.2, Debian 12;
 * the counts are of the .text of Debian 12's libc.so.6, 339397
 * instructions on x86_64, 277028 on arm64):
 *   - numbers are hex above 9, as GNU objdump writes them, where LLVM
 *     writes decimal: "subq $0x18, %rsp" for "subq $24, %rsp", "ldr w13,
 *     [x8, #0x10]" for "#16"; x86_64 immediates are unsigned
 *     ("andq $0xfffffffffffffff0, %rsp" for "$-16");
 *   - neither branch targets nor rip-relative operands are named
 *     ("callq 0x1400", no "<fixture_now_ns>", no "# 0x2004 <...>"): the
 *     caller names them if it wants;
 *   - arm64 aliases that Capstone 4 does not prefer, where LLVM prints
 *     "mov": movz (18379), movn (2277), orr from wzr (222) and ins (43);
 *     system registers lower case ("mrs x20, tpidr_el0" for
 *     TPIDR_EL0); register lists without inner spaces ("{v1.16b}"); adr
 *     with the absolute target, where LLVM 14 writes the offset;
 *   - x86_64 spellings: "movd %rax, %xmm1" for movq (237),
 *     "cvtsi2sdq" for cvtsi2sd, "fucomip" for fucompi, x87 operands
 *     ("fmulp %st(1)" for "fmulp %st, %st(1)"), xchg's operands in the
 *     other order, a shift by one with its "$1" ("shrq $1, %rdx" for
 *     "shrq %rdx"), a lock or rep prefix in the mnemonic ("lock
 *     cmpxchgl"), and "f3 c3" as "retq" for "rep retq";
 *   - x86_64 instructions Capstone 4 does not know are "(bad)": some of
 *     AVX-512 and its mask registers (kmovq, vptestnmb; 1470 in libc's
 *     string functions), where LLVM decodes them.
 *
 * Library code: nothing here prints; errors are negative codes that
 * prof_strerror() describes.
 */
#ifndef REPORT_DISASM_H
#define REPORT_DISASM_H

#include <stddef.h>
#include <stdint.h>

#include "common/errors.h"

struct disasm;

struct disasm_insn {
	uint64_t address;
	size_t size;             /* bytes it covers, >= 1 */
	uint8_t bytes[16];       /* its first min(size, 16) bytes */
	char mnemonic[32];       /* "movq", "b.ne"; "(bad)" if undecodable */
	char operands[160];      /* "%rsp, %rbp"; "" if none */
	int bad;                 /* undecodable: size is 1 byte on x86_64,
	                          * 4 on arm64 (or what remains), as objdump
	                          * shows such bytes */
};

/* A disassembler for arch (enum trace_arch of format/trace.h). Returns 0
 * and a new one in *out (caller frees with disasm_free()), or
 * DISASM_E_ARCH for an architecture Capstone is not built for (noted
 * with the architecture), or -ENOMEM. */
int disasm_new(int arch, struct disasm **out);
void disasm_free(struct disasm *d);

/* Decodes the instruction at the first len bytes of code, which sit at
 * address addr, into *insn. Returns its size: >= 1 when len >= 1 (an
 * undecodable one is "(bad)", bad set), 0 when len is 0. */
size_t disasm_one(struct disasm *d, const uint8_t *code, size_t len, uint64_t addr,
		  struct disasm_insn *insn);

#endif
