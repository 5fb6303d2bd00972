/*
 * demangle.h: symbol names as their language writes them.
 *
 * C++ (Itanium ABI, "_Z..."), Rust legacy ("_ZN...17h<16 hex>E") and Rust
 * v0 ("_R...") names are demangled with libiberty. C++ reads as c++filt(1)
 * prints it, return type and parameter lists included, or with
 * DEMANGLE_NO_PARAMS as "c++filt -p" prints it: the qualified name with its
 * template arguments, without return type, parameters or qualifiers, as
 * perf shows it. Rust loses its hashes: the legacy "::h<hash>" suffix and
 * v0 crate disambiguators, and reads the same either way. Names are untrusted
 * (they come from debug files): anything longer than DEMANGLE_MAX_INPUT
 * bytes is left alone, because libiberty's stack use grows with the length.
 *
 * Mach-O nlist names carry one extra leading underscore ("__ZN...",
 * "_main"); DEMANGLE_MACHO says the name came from there.
 */
#ifndef REPORT_DEMANGLE_H
#define REPORT_DEMANGLE_H

/* The longest name (in bytes, without its NUL) that is demangled. */
#define DEMANGLE_MAX_INPUT (16 * 1024)

enum demangle_flags {
	DEMANGLE_MACHO = 1 << 0, /* strip the Mach-O '_' before reading the name */
	DEMANGLE_NO_PARAMS = 1 << 1, /* C++ without return type and parameters */
};

/* Returns the demangled form of name (caller frees), or NULL if name is
 * not a mangled C++ or Rust name, is too long, or memory ran out: the
 * caller then shows demangle_plain(name, flags). */
char *demangle_name(const char *name, unsigned flags);

enum demangle_lang {
	DEMANGLE_LANG_NONE, /* not a mangled name */
	DEMANGLE_LANG_CXX,  /* Itanium C++ */
	DEMANGLE_LANG_RUST, /* Rust, legacy or v0 */
	DEMANGLE_LANG_GO,   /* Go: never mangled, so never set here; symtab.h
	                     * sets it for the names of a Go program */
};

/* As demangle_name(), and sets *lang to the mangling that was read. */
char *demangle_name_lang(const char *name, unsigned flags, int *lang);

/* The name as its language knows it when it is not mangled: name itself,
 * or with DEMANGLE_MACHO, name without its one leading '_'. Borrowed from
 * name. */
const char *demangle_plain(const char *name, unsigned flags);

#endif
