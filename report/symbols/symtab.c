/*
 * symtab.c: address to function name, by binary search over a sorted array.
 *
 * Symbol tables are unordered and full of noise (objects, sections, files,
 * undefined imports, aliases). objfile.h hands us the defined function
 * symbols of an ELF or Mach-O file; we demangle them (twice for C++: the
 * name without parameters, and the full signature where it differs),
 * sort them by address
 * and collapse aliases to one name, so a lookup is a single binary search.
 * Names live in one pool owned by the table, which is why the mapped file
 * can be released afterwards.
 *
 * Go is not mangled, but its linker names an assembly function of the
 * old calling convention "pkg.name.abi0": in a Go program (one that
 * defines runtime.goexit, the function every goroutine returns to) that
 * suffix is dropped, so that a name reads as Go's DWARF, pprof and the
 * runtime's own tracebacks write it, and every name with a package path
 * (a '.') is Go's; the others are the C of cgo.
 */
#include "report/symbols/symtab.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/diag.h"
#include "report/dwarf/demangle.h"

struct symtab_entry {
	uint64_t start, size, limit;
	size_t name;     /* offset into pool: the name without parameters */
	size_t sig;      /* offset into pool: the full signature (== name
	                  * unless a C++ name has parameters) */
	size_t seq;      /* the order the file lists it in */
	uint8_t lang;    /* enum demangle_lang */
};

struct symtab {
	struct symtab_entry *v;
	size_t n, cap;
	struct buf pool;
};

struct collect {
	struct symtab *st;
	int macho;
};

static void collect(void *ctx, const struct objfile_symbol *sym)
{
	struct collect *c = ctx;
	struct symtab *st = c->st;
	struct symtab_entry *e;
	unsigned flags = c->macho ? DEMANGLE_MACHO : 0;
	int lang;
	char *plain = demangle_name_lang(sym->name, flags | DEMANGLE_NO_PARAMS, &lang);
	char *full = lang == DEMANGLE_LANG_CXX ? demangle_name(sym->name, flags) : NULL;
	const char *name = plain ? plain : demangle_plain(sym->name, flags);

	st->v = xgrow(st->v, &st->cap, st->n + 1, sizeof(*st->v));
	e = &st->v[st->n++];
	e->start = sym->start;
	e->size = sym->size;
	e->limit = sym->limit;
	e->seq = st->n - 1;
	e->lang = (uint8_t)lang;
	e->name = e->sig = st->pool.len;
	buf_add(&st->pool, name, strlen(name) + 1);
	if (full && strcmp(full, name)) {
		e->sig = st->pool.len;
		buf_add(&st->pool, full, strlen(full) + 1);
	}
	free(plain);
	free(full);
}

/* A Go program's names as Go writes them: without the ".abi0" of its
 * assembly, and of the Go language, if st holds runtime.goexit. */
static void go_names(struct symtab *st)
{
	static const char abi0[] = ".abi0";
	const size_t nabi0 = sizeof(abi0) - 1;
	size_t i;

	for (i = 0; i < st->n; i++) {
		const char *name = (const char *)st->pool.data + st->v[i].name;

		if (!strcmp(name, "runtime.goexit") || !strcmp(name, "runtime.goexit.abi0"))
			break;
	}
	if (i == st->n)
		return;
	for (i = 0; i < st->n; i++) {
		char *name = (char *)st->pool.data + st->v[i].name;
		size_t len = strlen(name);

		if (st->v[i].lang != DEMANGLE_LANG_NONE || !strchr(name, '.'))
			continue;
		st->v[i].lang = DEMANGLE_LANG_GO;
		if (len > nabi0 && !strcmp(name + len - nabi0, abi0))
			name[len - nabi0] = 0;
	}
}

static const struct symtab *sort_ctx;

/* By address and name, each name first where the file first lists it. */
static int cmp_name(const void *a, const void *b)
{
	const struct symtab_entry *x = a, *y = b;
	int c;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	c = strcmp((const char *)sort_ctx->pool.data + x->name,
		   (const char *)sort_ctx->pool.data + y->name);
	if (c)
		return c;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* By address; then the preferred alias first: the larger size, then the
 * one listed later. */
static int cmp_entry(const void *a, const void *b)
{
	const struct symtab_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return (x->seq < y->seq) - (x->seq > y->seq);
}

/* Sorts st->v with cmp and keeps the first entry of each run that same()
 * says is one (both read names through sort_ctx). */
static void sort_unique(struct symtab *st, int (*cmp)(const void *, const void *),
			int (*same)(const struct symtab_entry *, const struct symtab_entry *))
{
	size_t i, j;

	sort_ctx = st;
	qsort(st->v, st->n, sizeof(*st->v), cmp);
	for (i = j = 0; i < st->n; i++)
		if (j == 0 || !same(&st->v[j - 1], &st->v[i]))
			st->v[j++] = st->v[i];
	sort_ctx = NULL;
	st->n = j;
}

static int same_name(const struct symtab_entry *x, const struct symtab_entry *y)
{
	return x->start == y->start && strcmp((const char *)sort_ctx->pool.data + x->name,
					      (const char *)sort_ctx->pool.data + y->name) == 0;
}

static int same_start(const struct symtab_entry *x, const struct symtab_entry *y)
{
	return x->start == y->start;
}

int symtab_new(const struct objfile *of, struct symtab **out)
{
	struct symtab *st = xcalloc(1, sizeof(*st));
	struct collect c = { st, of->is_macho };
	int err;

	buf_init(&st->pool);
	err = objfile_symbols(of, collect, &c);
	if (err < 0) {
		symtab_free(st);
		return err;
	}
	go_names(st);
	/* An ELF file's .dynsym repeats names of its .symtab: such a name
	 * keeps the place .symtab gave it. Then one name an address, as
	 * llvm-symbolizer picks it among aliases. */
	if (st->n) {
		sort_unique(st, cmp_name, same_name);
		sort_unique(st, cmp_entry, same_start);
	}
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

/* The entry whose function holds addr, and in *end where that function
 * ends, or NULL. */
static const struct symtab_entry *holder(const struct symtab *st, uint64_t addr, uint64_t *end)
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
	/* Without a size, a symbol reaches to the next one, but never past
	 * the end of its section. */
	if (e->size)
		*end = e->size > UINT64_MAX - e->start ? UINT64_MAX : e->start + e->size;
	else
		*end = i + 1 < st->n && st->v[i + 1].start < e->limit ? st->v[i + 1].start : e->limit;
	return addr - e->start < *end - e->start ? e : NULL;
}

const char *symtab_lookup(const struct symtab *st, uint64_t addr, uint64_t *start, int *lang,
			  const char **signature)
{
	uint64_t end;
	const struct symtab_entry *e = holder(st, addr, &end);

	if (!e)
		return NULL;
	if (start)
		*start = e->start;
	if (lang)
		*lang = e->lang;
	if (signature)
		*signature = (const char *)st->pool.data + e->sig;
	return (const char *)st->pool.data + e->name;
}

int symtab_range(const struct symtab *st, uint64_t addr, uint64_t *start, uint64_t *end)
{
	const struct symtab_entry *e = holder(st, addr, end);

	if (!e)
		return SYMTAB_E_NOSYMBOL;
	*start = e->start;
	return 0;
}
