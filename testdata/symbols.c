/*
 * symbols: the program the symbol-table, ELF and in-process report unit
 * tests read (tests/unit/test_symtab.c, test_elf.c, test_report.c), and
 * never run: two global functions, one calling the other twice, a static
 * one above them, and a global object, each a symbol of its own. make
 * builds it with -O1 (mk/dwarf.mk), so that none is inlined or cloned.
 * Then code as assembly leaves it: a function of 48 bytes with a label
 * (STT_NOTYPE) 16 bytes in, as glibc's arm64 _start holds __wrap_main,
 * and an ARM mapping symbol ($d) 16 bytes further; and a label in
 * read-only data. Their bytes are zeros: they are never run.
 */
__asm__(".text\n"
	".globl asm_entry\n"
	".type asm_entry, %function\n"
	"asm_entry: .skip 16\n"
	"asm_label: .skip 16\n"
	"\"$d\": .skip 16\n"
	".size asm_entry, . - asm_entry\n"
	".section .rodata\n"
	"asm_data_label: .skip 16\n"
	".text\n");

int symbols_global = 3;

__attribute__((noinline)) int alpha(int x)
{
	return x * symbols_global + 1;
}

__attribute__((noinline)) int beta(int x)
{
	return alpha(x) + alpha(x + 1);
}

static __attribute__((noinline)) int gamma_local(int x)
{
	return beta(x) - 2;
}

int shared_impl(int x)
{
	return x * 5 - 1;
}
extern int shared_alias(int) __attribute__((alias("shared_impl")));
extern int shared_weak(int) __attribute__((weak, alias("shared_impl")));

int main(int argc, char **argv)
{
	(void)argv;
	return gamma_local(argc);
}
