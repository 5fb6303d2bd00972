/*
 * symtab.c: address to function name, by binary search over a sorted array.
 *
 * ELF symbol tables are unordered and full of noise (objects, sections,
 * files, undefined imports, aliases). We keep only defined function
 * symbols, sort them by address, and collapse aliases to one name, so a
 * lookup is a single binary search. Names live in one pool owned by the
 * table, which is why the mapped file can be released afterwards.
 */
#include "symtab.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/diag.h"

struct symtab_entry {
	uint64_t start, size;
	size_t name;     /* offset into pool */
	uint8_t global;
};

struct symtab {
	struct symtab_entry *v;
	size_t n, cap;
	struct buf pool;
};

static int collect(void *ctx, const struct elf_symbol *sym)
{
	struct symtab *st = ctx;
	struct symtab_entry *e;

	if (sym->type != STT_FUNC && sym->type != STT_GNU_IFUNC)
		return 0;
	if (sym->shndx == SHN_UNDEF || sym->shndx == SHN_ABS || !sym->name[0])
		return 0;
	st->v = xgrow(st->v, &st->cap, st->n + 1, sizeof(*st->v));
	e = &st->v[st->n++];
	e->start = sym->value;
	e->size = sym->size;
	e->global = sym->bind == STB_GLOBAL;
	e->name = st->pool.len;
	buf_add(&st->pool, sym->name, strlen(sym->name) + 1);
	return 0;
}

static const struct symtab *sort_ctx;

/* By address; then the preferred alias first (global, larger size,
 * smaller name). */
static int cmp_entry(const void *a, const void *b)
{
	const struct symtab_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->global != y->global)
		return x->global ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp((const char *)sort_ctx->pool.data + x->name,
		      (const char *)sort_ctx->pool.data + y->name);
}

int symtab_new_elf(const struct elf_file *e, struct symtab **out)
{
	struct symtab *st = xcalloc(1, sizeof(*st));
	size_t i, j;
	int err;

	buf_init(&st->pool);
	err = elf_symbols(e, collect, st);
	if (err < 0 && err != ELF_E_NOTFOUND) {
		symtab_free(st);
		return err;
	}
	if (st->n) {
		sort_ctx = st;
		qsort(st->v, st->n, sizeof(*st->v), cmp_entry);
		sort_ctx = NULL;
	}
	/* Keep the first (preferred) entry of each address. */
	for (i = j = 0; i < st->n; i++)
		if (j == 0 || st->v[j - 1].start != st->v[i].start)
			st->v[j++] = st->v[i];
	st->n = j;
	*out = st;
	return 0;
}

void symtab_free(struct symtab *st)
{
	if (!st)
		return;
	free(st->v);
	buf_release(&st->pool);
	free(st);
}

size_t symtab_count(const struct symtab *st)
{
	return st->n;
}

const char *symtab_lookup(const struct symtab *st, uint64_t addr, uint64_t *start)
{
	size_t lo = 0, hi = st->n, i;
	const struct symtab_entry *e;

	/* Find the last entry with start <= addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (st->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	i = lo - 1;
	e = &st->v[i];
	if (e->size ? addr - e->start >= e->size
		    : i + 1 == st->n)
		return NULL;
	if (start)
		*start = e->start;
	return (const char *)st->pool.data + e->name;
}
