/*
 * symbolize.c: the cache in front of the locator and the symbol tables.
 *
 * Profiles repeat the same few thousand addresses millions of times, so
 * the work is organised around two memos: per image, the located file and
 * its symbol table (built on first use, kept for the life of the
 * symbolizer), and per (image, address, leaf), the frames it became. An
 * address is asked of the file's DWARF first, which gives the inline chain
 * and file:line; where the DWARF knows no function there, the symbol table
 * names it; failing both, it keeps its IMAGE+0xOFFSET. Names that are not
 * borrowed from those are formatted once and kept in a list owned here.
 */
#include "report/symbols/symbolize.h"

#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/dwconst.h"
#include "common/hmap.h"
#include "common/progress.h"
#include "report/dwarf/demangle.h"
#include "report/dwarf/dwinfo.h"
#include "report/symbols/codename.h"
#include "report/symbols/symtab.h"
#include "common/timing.h"

struct symbolize_image {
	int located;             /* locate_image() has run */
	long same;               /* >= 0: an earlier image with this identity,
	                          * whose file and table are shared, not owned */
	int err;                 /* its result */
	struct locate_result src;
	struct symtab *symtab;   /* NULL if no usable file */
	struct dwinfo *dw;       /* NULL if the file has no usable DWARF */
	int dw_err;              /* why not, if it has DWARF sections */
	const struct pack_image *pack; /* when no file was found: a pack's */
	char *label;             /* the IMAGE of IMAGE+0xOFFSET */
	int own_tried;           /* its own file was looked for */
	char *own_path;          /* its own file, the recorded build, where the
	                          * accepted one holds no code: NULL if none */
	struct objfile own;      /* open when own_path is set */
};

/* The most frames one address becomes: an inline chain of DWARF or of a
 * symbol pack, or one frame. */
#define MAX_CHAIN (DWINFO_MAX_FRAMES > TRACE_PACK_MAX_FRAMES ? DWINFO_MAX_FRAMES \
							      : TRACE_PACK_MAX_FRAMES)
/* Frames are kept in blocks that never move, so that what
 * symbolize_addr() hands out stays valid; an address's frames are
 * contiguous in one block. */
#define BLOCK_FRAMES 4096

struct frame_block {
	struct frame_block *next;
	size_t used;
	struct symbolize_frame f[BLOCK_FRAMES];
};

struct symbolize {
	const struct trace *t;
	struct symbolize_opts o;
	struct symbolize_image *images;
	struct hmap cache;       /* (code+1 << 33 | image+1 << 1 | leaf, addr) -> entry index */
	struct locate_index *index;     /* the --symbols directories */
	struct fetch *fetch;            /* debuginfod servers, or NULL */
	struct frame_block *blocks;     /* all cached frames, newest first */
	struct { const struct symbolize_frame *f; size_t n; } *entries;
	size_t nentries, capentries;
	char **strings;          /* names formatted here */
	size_t nstrings, capstrings;
};

static const char *keep(struct symbolize *s, char *str)
{
	s->strings = xgrow(s->strings, &s->capstrings, s->nstrings + 1, sizeof(*s->strings));
	s->strings[s->nstrings++] = str;
	return str;
}

static char *image_label(const struct trace_image *img)
{
	const char *p = img->path ? img->path : "", *b = strrchr(p, '/');

	b = b ? b + 1 : p;
	if (!b[0])
		return xasprintf("[image %u]", img->id);
	return xstrdup(b);
}

struct symbolize *symbolize_new(const struct trace *t, const struct symbolize_opts *o)
{
	struct symbolize *s = xcalloc(1, sizeof(*s));
	size_t i;

	s->t = t;
	if (o)
		s->o = *o;
	if (s->o.nsymbol_dirs && !s->o.addresses) {
		int prev = timing_enter(TIMING_LOCATE);

		s->index = locate_index_new(s->o.symbol_dirs, s->o.nsymbol_dirs);
		timing_leave(prev);
	}
	if (s->o.fetch && !s->o.addresses)
		s->fetch = fetch_new(s->o.progress);
	s->images = xcalloc(t->nimages ? t->nimages : 1, sizeof(*s->images));
	for (i = 0; i < t->nimages; i++) {
		locate_result_init(&s->images[i].src);
		s->images[i].same = -1;
		s->images[i].label = image_label(&t->images[i]);
	}
	hmap_init(&s->cache);
	return s;
}

void symbolize_free(struct symbolize *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->t->nimages; i++) {
		if (s->images[i].same < 0) {
			dwinfo_free(s->images[i].dw);
			symtab_free(s->images[i].symtab);
			locate_result_release(&s->images[i].src);
			if (s->images[i].own_path)
				objfile_release(&s->images[i].own);
			free(s->images[i].own_path);
		}
		free(s->images[i].label);
	}
	free(s->images);
	locate_index_free(s->index);
	fetch_free(s->fetch);
	for (i = 0; i < s->nstrings; i++)
		free(s->strings[i]);
	free(s->strings);
	while (s->blocks) {
		struct frame_block *b = s->blocks;

		s->blocks = b->next;
		free(b);
	}
	free(s->entries);
	hmap_release(&s->cache);
	free(s);
}

long symbolize_image_find(const struct symbolize *s, uint32_t process, uint64_t addr, uint64_t time)
{
	return trace_image_at(s->t, process, addr, time);
}

/* fetch: whether the servers may be asked for its file. */
static struct symbolize_image *load_image(struct symbolize *s, size_t i, int fetch)
{
	struct symbolize_image *si = &s->images[i];
	const struct pack_image *pack;
	size_t j;
	int err, prev;

	if (si->located)
		return si;
	si->located = 1;
	/* One file per identity: a library mapped twice, or reloaded after
	 * dlclose, shares the first image's file and table. */
	for (j = 0; j < i; j++) {
		const struct trace_image *a = &s->t->images[j], *b = &s->t->images[i];
		if (a->ident_kind != TRACE_IDENT_NONE &&
		    trace_ident_same(a->ident_kind, a->ident_len, a->ident, b->ident_kind, b->ident_len,
				     b->ident) &&
		    !strcmp(a->path ? a->path : "", b->path ? b->path : "")) {
			struct symbolize_image *o = load_image(s, j, fetch);
			si->same = o->same >= 0 ? o->same : (long)j;
			si->err = o->err;
			si->src = o->src;
			si->symtab = o->symtab;
			si->dw = o->dw;
			si->dw_err = o->dw_err;
			si->pack = o->pack;
			return si;
		}
	}
	prev = timing_enter(TIMING_LOCATE);
	progress_detail(s->o.progress, si->label);
	/* A pack at hand serves the image if no file does: no server is
	 * asked then, only in the place of a file without DWARF, which the
	 * pack would not replace. */
	pack = pack_find(s->o.pack, &s->t->images[i]);
	si->err = locate_image(&s->t->images[i], &(struct locate_opts){
		.index = s->index,
		.debug_root = s->o.debug_root,
		.debuginfod_cache = s->o.debuginfod_cache,
		.fetch = fetch ? s->fetch : NULL,
		.packed = pack != NULL,
	}, &si->src);
	if (si->err < 0) {
		si->pack = pack;
		goto out;
	}
	timing_enter(TIMING_SYMBOLS);
	if (symtab_new(&si->src.obj, &si->symtab) < 0)
		si->symtab = NULL;
	timing_enter(TIMING_INDEX);
	if (si->src.obj.has_dwarf) {
		struct dwinfo_section *secs = NULL;
		size_t n = 0;

		err = objfile_dwarf_sections(&si->src.obj, &secs, &n);
		if (err == 0)
			err = dwinfo_new(secs, n, &si->dw);
		if (err == 0 && s->o.names_only && !s->o.lines)
			dwinfo_names_only(si->dw);
		if (err < 0) {
			si->dw = NULL;
			si->dw_err = err;
		}
		free(secs);
	}
out:
	progress_detail(s->o.progress, NULL);
	timing_leave(prev);
	return si;
}

const struct locate_result *symbolize_image_source(struct symbolize *s, size_t i, int *err)
{
	struct symbolize_image *si = load_image(s, i, 0);
	if (err)
		*err = si->err;
	return &si->src;
}

const struct pack_image *symbolize_image_pack(struct symbolize *s, size_t i)
{
	return load_image(s, i, 0)->pack;
}

int symbolize_fetching(const struct symbolize *s)
{
	return s->fetch != NULL;
}

const char *symbolize_image_label(const struct symbolize *s, size_t i)
{
	return s->images[i].label;
}

size_t symbolize_image_nsymbols(struct symbolize *s, size_t i)
{
	struct symbolize_image *si = load_image(s, i, 0);
	return si->symtab ? symtab_count(si->symtab) : 0;
}

int symbolize_image_dwarf(struct symbolize *s, size_t i, int *err)
{
	struct symbolize_image *si = load_image(s, i, 0);
	if (err)
		*err = si->dw_err;
	return si->dw != NULL;
}

int symbolize_image_function(struct symbolize *s, size_t i, uint64_t at, uint64_t *lo,
			     uint64_t *hi)
{
	struct symbolize_image *si = load_image(s, i, 0);

	if (si->same >= 0)
		si = &s->images[si->same];
	/* A pack stores a function's code as a range. */
	if (si->pack && pack_image_code_range(si->pack, at, lo, hi) == 0)
		return 0;
	if (si->err < 0)
		return si->err;
	if (!si->symtab)
		return SYMTAB_E_NOSYMBOL;
	return symtab_range(si->symtab, at, lo, hi);
}

/* Opens, once, the first of img's own files (its recorded path, then its
 * copy in the image cache) that is the recorded build and not the file
 * the locator accepted. Returns it, or NULL if there is none. */
static const struct objfile *own_file(struct symbolize_image *si, const struct trace_image *img)
{
	char *paths[2];

	if (si->own_tried)
		return si->own_path ? &si->own : NULL;
	si->own_tried = 1;
	paths[0] = img->path && img->path[0] == '/' ? xstrdup(img->path) : NULL;
	paths[1] = locate_image_copy(img, NULL);
	for (size_t k = 0; k < 2; k++) {
		char *why = NULL;

		if (!si->own_path && paths[k] && strcmp(paths[k], si->src.path) &&
		    objfile_open(&si->own, paths[k], img->ident_kind, img->ident, img->ident_len,
				 &why) == 0) {
			si->own_path = paths[k];
			paths[k] = NULL;
		}
		free(why);
		free(paths[k]);
	}
	return si->own_path ? &si->own : NULL;
}

/* The bytes of of, the file at path, at [addr, addr + size), if it holds
 * them. */
static size_t file_code(const struct objfile *of, const char *path, uint64_t addr, uint64_t size,
			const uint8_t **code, int *arch, const char **from)
{
	size_t n = objfile_code(of, addr, size, code);

	if (n) {
		*from = path;
		if (objfile_arch(of) != TRACE_ARCH_UNKNOWN)
			*arch = objfile_arch(of);
	}
	return n;
}

size_t symbolize_image_code(struct symbolize *s, size_t i, uint64_t addr, uint64_t size,
			    const uint8_t **code, int *arch, const char **from)
{
	struct symbolize_image *si = load_image(s, i, 0);
	const struct trace_image *img = &s->t->images[i];
	const struct objfile *own;
	size_t n;

	if (si->same >= 0)
		si = &s->images[si->same];
	*arch = img->arch;
	/* Without an accepted file, the image's own files were refused. */
	if (si->err == 0) {
		if ((n = file_code(&si->src.obj, si->src.path, addr, size, code, arch, from)))
			return n;
		if ((own = own_file(si, img)) &&
		    (n = file_code(own, si->own_path, addr, size, code, arch, from)))
			return n;
	}
	if (si->pack && (n = pack_image_code(si->pack, addr, size, code))) {
		*from = pack_image_origin(si->pack);
		return n;
	}
	*from = si->pack ? "neither a file of this build nor the symbol pack holds its code"
			 : "no file of this build holds its code";
	return 0;
}

/* The next frame of the address being resolved: in the newest block,
 * which resolve()'s caller made room in. */
static struct symbolize_frame *new_frame(struct symbolize *s)
{
	struct symbolize_frame *f = &s->blocks->f[s->blocks->used++];

	memset(f, 0, sizeof(*f));
	f->code = -1;
	return f;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* The frame's name as outputs show it: with --lines, "NAME (FILE:LINE)",
 * and "NAME (FILE:?)" where the line table gives the file but no line. */
static const char *frame_name(struct symbolize *s, const char *name, const char *file,
			      uint32_t line)
{
	if (!s->o.lines || !file)
		return name;
	if (!line)
		return keep(s, xasprintf("%s (%s:?)", name, base_name(file)));
	return keep(s, xasprintf("%s (%s:%u)", name, base_name(file), (unsigned)line));
}

static int lang_of_file(const char *file)
{
	const char *dot = file ? strrchr(base_name(file), '.') : NULL;
	static const char *const cxx[] = { ".cc", ".cpp", ".cxx", ".c++", ".C", ".hpp", ".hh", ".hxx" };

	if (!dot)
		return SYMBOLIZE_LANG_UNKNOWN;
	if (!strcmp(dot, ".rs"))
		return SYMBOLIZE_LANG_RUST;
	for (size_t i = 0; i < sizeof(cxx) / sizeof(*cxx); i++)
		if (!strcmp(dot, cxx[i]))
			return SYMBOLIZE_LANG_CXX;
	if (!strcmp(dot, ".c") || !strcmp(dot, ".h"))
		return SYMBOLIZE_LANG_C;
	if (!strcmp(dot, ".go"))
		return SYMBOLIZE_LANG_GO;
	return SYMBOLIZE_LANG_UNKNOWN;
}

/* A DWARF frame's language: its file's, else its unit's, which names the
 * language of code in files without a telling suffix (Go's runtime is
 * partly assembly, "asm_amd64.s", in units of DW_LANG_Go; C++'s headers
 * may have no suffix at all). */
static int lang_of_dwarf(const char *file, unsigned dw_lang)
{
	int lang = lang_of_file(file);

	if (lang != SYMBOLIZE_LANG_UNKNOWN || !file)
		return lang;
	switch (dw_lang) {
	case DW_LANG_C89: case DW_LANG_C: case DW_LANG_C99: case DW_LANG_C11: case DW_LANG_C17:
		return SYMBOLIZE_LANG_C;
	case DW_LANG_C_plus_plus: case DW_LANG_C_plus_plus_03: case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
		return SYMBOLIZE_LANG_CXX;
	case DW_LANG_Rust:
		return SYMBOLIZE_LANG_RUST;
	case DW_LANG_Go:
		return SYMBOLIZE_LANG_GO;
	default:
		return SYMBOLIZE_LANG_UNKNOWN;
	}
}

static int lang_of_mangling(int demangle_lang)
{
	switch (demangle_lang) {
	case DEMANGLE_LANG_CXX:
		return SYMBOLIZE_LANG_CXX;
	case DEMANGLE_LANG_RUST:
		return SYMBOLIZE_LANG_RUST;
	case DEMANGLE_LANG_GO:
		return SYMBOLIZE_LANG_GO;
	default:
		return SYMBOLIZE_LANG_C;
	}
}

/* Appends one resolved frame of an inline chain of n, the i-th from the
 * innermost, named function or, with --signatures, signature. */
static struct symbolize_frame *chain_frame(struct symbolize *s, long img, uint64_t rel,
					   const char *function, const char *signature,
					   const char *file, uint32_t line, int lang, int i, int n)
{
	struct symbolize_frame *f = new_frame(s);

	f->code = -1;
	f->signature = signature;
	if (s->o.signatures)
		function = signature;

	f->image = img;
	f->image_label = s->images[img].label;
	f->offset = rel;
	f->file = file;
	f->line = line;
	f->inlined = i < n - 1;
	f->resolved = 1;
	f->lang = lang;
	f->name = frame_name(s, function, file, line);
	return f;
}

/* The first frame of a chain of n that is shown: --no-inline keeps the
 * function that holds the code, at the line of the call that was inlined
 * there. */
static int chain_start(const struct symbolize *s, int n)
{
	return s->o.no_inline && n > 0 ? n - 1 : 0;
}

/* Appends the DWARF frames for link-time address at, innermost first, or
 * nothing if the DWARF knows no function there. */
static void resolve_dwarf(struct symbolize *s, struct symbolize_image *si, long img,
			  uint64_t rel, uint64_t at)
{
	struct dwinfo_frame fr[DWINFO_MAX_FRAMES];
	int n = dwinfo_lookup(si->dw, at, fr, DWINFO_MAX_FRAMES);

	/* The function that holds the code, without a linkage name in its
	 * DWARF: a mangled symbol there names it better. */
	if (n > 0 && !fr[n - 1].linkage && si->symtab) {
		const char *sig, *name;
		int lang;

		name = symtab_lookup(si->symtab, at, NULL, &lang, &sig);
		if (name && lang == DEMANGLE_LANG_CXX) {
			fr[n - 1].function = name;
			fr[n - 1].signature = sig;
		}
	}
	for (int i = chain_start(s, n); i < n; i++)
		chain_frame(s, img, rel, fr[i].function, fr[i].signature, fr[i].file, fr[i].line,
			    lang_of_dwarf(fr[i].file, fr[i].lang), i, n)->file_md5 = fr[i].file_md5;
}

/* Appends the frames a symbol pack holds for link-time address at, or
 * nothing if it has none. */
static void resolve_pack(struct symbolize *s, const struct pack_image *pi, long img, uint64_t rel,
			 uint64_t at)
{
	const struct trace_pack_frame *fr;
	char *const *str;
	int n = (int)pack_image_lookup(pi, at, &fr, &str);

	for (int i = chain_start(s, n); i < n; i++)
		chain_frame(s, img, rel, str[fr[i].name],
			    fr[i].signature ? str[fr[i].signature - 1] : str[fr[i].name],
			    fr[i].file ? str[fr[i].file - 1] : NULL, fr[i].line, fr[i].lang, i, n);
}

uint64_t symbolize_lookup_offset(uint64_t offset, int leaf)
{
	return leaf || offset == 0 ? offset : offset - 1;
}

static int in_signal(const struct trace_image *img, uint64_t addr)
{
	for (size_t i = 0; i < img->nsignal; i++)
		if (addr >= img->signal[i].start && addr < img->signal[i].end)
			return 1;
	return 0;
}

int symbolize_is_signal(const struct symbolize *s, uint32_t process, uint64_t addr, uint64_t time)
{
	long img = symbolize_image_find(s, process, addr, time);

	return img >= 0 && in_signal(&s->t->images[img], addr);
}

/* Appends the frame that code range k names, of image img (-1: none),
 * at rel (its offset in the image, or the raw address). */
static void code_frame(struct symbolize *s, long img, long k, uint64_t rel)
{
	const struct trace_code *c = &s->t->code[k];
	struct symbolize_frame *f = new_frame(s);
	struct codename cn;
	const char *name, *file = NULL;
	uint32_t line = 0;

	f->image = img;
	f->image_label = img >= 0 ? s->images[img].label : "[jit]";
	f->offset = rel;
	f->code = k;
	f->resolved = 1;
	if (c->source == TRACE_CODE_VDSO) {
		f->lang = SYMBOLIZE_LANG_C;
		f->name = f->signature = c->name;
		return;
	}
	codename_parse(c->name, &cn);
	f->lang = cn.js ? SYMBOLIZE_LANG_JS : SYMBOLIZE_LANG_JIT;
	name = cn.name == c->name && cn.name_len == strlen(c->name) ? c->name
								   : keep(s, xstrndup(cn.name, cn.name_len));
	/* The location the name gives, else the record's (a jitdump's
	 * debug entry): the same frame from a perf map and a jitdump. */
	if (cn.file) {
		file = keep(s, xstrndup(cn.file, cn.file_len));
		line = cn.line;
	} else if (c->file) {
		file = c->file;
		line = c->line;
	}
	if (s->o.names_only && !s->o.lines) {
		file = NULL;
		line = 0;
	}
	f->file = file;
	f->line = line;
	f->signature = name;
	f->name = frame_name(s, name, file, line);
}

/* Appends the frames for addr to the newest block; code (-1: none) is the
 * code range that holds it. */
static void resolve(struct symbolize *s, long img, long code, uint64_t addr, int leaf)
{
	struct symbolize_frame *f;
	const char *name = NULL, *sig = NULL;
	size_t before = s->blocks->used;
	uint64_t rel, at;
	int lang = DEMANGLE_LANG_NONE, signal;

	if (img < 0) {
		if (code >= 0 && !s->o.addresses) {
			code_frame(s, -1, code, addr);
			return;
		}
		f = new_frame(s);
		f->image = -1;
		f->code = -1;
		f->offset = addr;
		f->name = f->signature = keep(s, xasprintf("[unknown]+0x%llx", (unsigned long long)addr));
		return;
	}
	/* A handler returns to a trampoline's first instruction, and a
	 * return address into it is exactly that: no call precedes it. */
	signal = in_signal(&s->t->images[img], addr);
	rel = addr - s->t->images[img].bias;
	at = symbolize_lookup_offset(rel, leaf || signal);
	if (!s->o.addresses) {
		struct symbolize_image *si = load_image(s, (size_t)img, 1);
		if (si->dw)
			resolve_dwarf(s, si, img, rel, at);
		else if (si->pack)
			resolve_pack(s, si->pack, img, rel, at);
		if (s->blocks->used > before) {
			for (size_t i = before; i < s->blocks->used; i++)
				s->blocks->f[i].signal = signal;
			return;
		}
		if (si->symtab)
			name = symtab_lookup(si->symtab, at, NULL, &lang, &sig);
		if (name && s->o.signatures)
			name = sig;
		if (!name && !signal && code >= 0) {
			code_frame(s, img, code, rel);
			return;
		}
	}
	f = new_frame(s);
	f->code = -1;
	f->image = img;
	f->image_label = s->images[img].label;
	f->offset = rel;
	f->signal = signal;
	if (!name && signal && !s->o.addresses)
		name = "[signal handler called]";
	f->resolved = name != NULL;
	f->lang = name ? lang_of_mangling(lang) : SYMBOLIZE_LANG_UNKNOWN;
	f->name = name ? name
		       : keep(s, xasprintf("%s+0x%llx", s->images[img].label,
					   (unsigned long long)rel));
	f->signature = sig ? sig : f->name;
}

/* The frames of addr in image img (-1: none) and code range code (-1:
 * none), from the cache or resolved now. */
static size_t lookup(struct symbolize *s, long img, long code, uint64_t addr, int leaf,
		     const struct symbolize_frame **frames)
{
	uint64_t *slot;
	int added;

	leaf = !!leaf;
	slot = hmap_put(&s->cache, (uint64_t)(code + 1) << 33 | ((uint64_t)(img + 1) << 1) | (uint64_t)leaf,
			addr, s->nentries, &added);
	if (added) {
		int prev = timing_enter(TIMING_LOOKUP);
		size_t first;

		if (!s->blocks || BLOCK_FRAMES - s->blocks->used < MAX_CHAIN + 1) {
			struct frame_block *b = xmalloc(sizeof(*b));

			b->next = s->blocks;
			b->used = 0;
			s->blocks = b;
		}
		first = s->blocks->used;
		resolve(s, img, code, addr, leaf);
		s->entries = xgrow(s->entries, &s->capentries, s->nentries + 1,
				   sizeof(*s->entries));
		s->entries[s->nentries].f = &s->blocks->f[first];
		s->entries[s->nentries].n = s->blocks->used - first;
		s->nentries++;
		timing_leave(prev);
	}
	*frames = s->entries[*slot].f;
	return s->entries[*slot].n;
}

size_t symbolize_addr(struct symbolize *s, uint32_t process, uint64_t addr, uint64_t time, int leaf,
		      const struct symbolize_frame **frames)
{
	long img = symbolize_image_find(s, process, addr, time);
	/* A return address's call is the byte before it, in code ranges too. */
	long code = s->t->ncode && !s->o.addresses
			    ? trace_code_at(s->t, process, leaf || !addr ? addr : addr - 1, time) : -1;

	return lookup(s, img, code, addr, leaf, frames);
}

size_t symbolize_image_addr(struct symbolize *s, size_t i, uint64_t at,
			    const struct symbolize_frame **frames)
{
	return lookup(s, (long)i, -1, at + s->t->images[i].bias, 1, frames);
}

size_t symbolize_image_rows(struct symbolize *s, size_t i, uint64_t lo, uint64_t hi, uint64_t *starts,
			    size_t max)
{
	struct symbolize_image *si = s->o.addresses ? NULL : load_image(s, i, 1);

	if (si && si->same >= 0)
		si = &s->images[si->same];
	if (si && si->dw)
		return dwinfo_rows(si->dw, lo, hi, starts, max);
	/* A pack holds the frames of addresses, not a line table: of every
	 * instruction of the functions it holds the code of (pack --asm). */
	return si && si->pack ? pack_image_addrs(si->pack, lo, hi, starts, max) : 0;
}
