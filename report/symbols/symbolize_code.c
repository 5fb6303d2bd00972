/*
 * symbolize_code.c: the code of an image's functions, until annotate's
 * symbolizer provides it (see symbolize_code.h).
 *
 * A function's bounds are those of the innermost function symbol with a
 * size that holds the address; its bytes are those of the executable ELF
 * section that holds them in the file the symbolizer accepted. A Mach-O
 * file, or a debug file whose code sections hold no bytes, gives none.
 */
#include "report/symbols/symbolize_code.h"

#include "common/elf.h"
#include "report/symbols/objfile.h"

/* The ELF machine numbers of the architectures a trace names. */
#define EM_X86_64 62
#define EM_AARCH64 183

/* The file image i was located in, or NULL. */
static const struct locate_result *image_file(struct symbolize *s, size_t i)
{
	int err;
	const struct locate_result *src = symbolize_image_source(s, i, &err);

	return err == 0 && src->found ? src : NULL;
}

size_t symbolize_image_code(struct symbolize *s, size_t i, uint64_t addr, uint64_t size,
			    const uint8_t **code, int *arch, const char **from)
{
	const struct locate_result *src = image_file(s, i);
	const struct elf_file *e;

	*code = NULL;
	if (!src || src->obj.is_macho)
		return 0;
	e = &src->obj.elf;
	for (unsigned k = 1; k < e->shnum; k++) {
		struct elf_section sec;
		uint64_t n;

		if (elf_section(e, k, &sec) < 0 || !sec.data || !(sec.flags & ELF_SHF_EXECINSTR) ||
		    (sec.flags & ELF_SHF_COMPRESSED) || addr < sec.addr || addr - sec.addr >= sec.size)
			continue;
		n = sec.size - (addr - sec.addr);
		*code = sec.data + (addr - sec.addr);
		*arch = e->machine == EM_X86_64    ? TRACE_ARCH_X86_64
			: e->machine == EM_AARCH64 ? TRACE_ARCH_ARM64
						   : TRACE_ARCH_UNKNOWN;
		*from = src->path;
		return (size_t)(n < size ? n : size);
	}
	return 0;
}

struct bounds {
	uint64_t at, lo, hi;
	int found;
};

static void holds_at(void *ctx, const struct objfile_symbol *sym)
{
	struct bounds *b = ctx;

	if (sym->size && sym->start <= b->at && b->at - sym->start < sym->size &&
	    (!b->found || sym->start > b->lo)) {
		b->lo = sym->start;
		b->hi = sym->start + sym->size;
		b->found = 1;
	}
}

int symbolize_image_function(struct symbolize *s, size_t i, uint64_t at, uint64_t *lo,
			     uint64_t *hi)
{
	const struct locate_result *src = image_file(s, i);
	struct bounds b = { .at = at };
	int err;

	if (!src)
		return LOCATE_E_NOTFOUND;
	if ((err = objfile_symbols(&src->obj, holds_at, &b)) < 0)
		return err;
	if (!b.found)
		return ELF_E_NOTFOUND;
	*lo = b.lo;
	*hi = b.hi;
	return 0;
}
