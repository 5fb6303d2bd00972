/*
 * demangle.c: libiberty's demanglers, called the way c++filt calls them,
 * except that Rust is tried first and without DMGL_VERBOSE.
 *
 * Legacy Rust names are valid Itanium names too, so the Itanium demangler
 * would print them with their "::h<hash>" tail; libiberty's Rust
 * demangler recognises them (and v0 names) and, without DMGL_VERBOSE,
 * drops the hash and the crate disambiguators. Everything else goes to the
 * Itanium demangler with c++filt's own flags (DMGL_PARAMS | DMGL_ANSI |
 * DMGL_VERBOSE), so a C++ name reads exactly as c++filt(1) prints it, or
 * without DMGL_PARAMS (DEMANGLE_NO_PARAMS) as "c++filt -p" prints it.
 * libiberty keeps its recursion limit on; the length cap bounds the stack
 * it allocates in proportion to the name. libiberty returns malloc()ed
 * strings, and NULL when it runs out of memory, which only means the
 * mangled name is shown.
 */
#include "report/dwarf/demangle.h"

#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>

const char *demangle_plain(const char *name, unsigned flags)
{
	if ((flags & DEMANGLE_MACHO) && name[0] == '_')
		return name + 1;
	return name;
}

char *demangle_name_lang(const char *name, unsigned flags, int *lang)
{
	const char *p = demangle_plain(name, flags);
	char *out;

	*lang = DEMANGLE_LANG_NONE;
	/* Itanium ("_Z", "_GLOBAL_" constructor tables) and Rust ("_R",
	 * legacy "_ZN") names; a C name is not even looked at. */
	if (p[0] != '_' || (p[1] != 'Z' && p[1] != 'R' && strncmp(p, "_GLOBAL_", 8) != 0))
		return NULL;
	if (strnlen(p, DEMANGLE_MAX_INPUT + 1) > DEMANGLE_MAX_INPUT)
		return NULL;
	if ((out = cplus_demangle(p, DMGL_PARAMS | DMGL_ANSI | DMGL_RUST)))
		*lang = DEMANGLE_LANG_RUST;
	else if ((out = cplus_demangle(p, (flags & DEMANGLE_NO_PARAMS ? 0 : DMGL_PARAMS) | DMGL_ANSI |
					       DMGL_VERBOSE | DMGL_GNU_V3)))
		*lang = DEMANGLE_LANG_CXX;
	if (out && !out[0]) {
		free(out);
		out = NULL;
		*lang = DEMANGLE_LANG_NONE;
	}
	return out;
}

char *demangle_name(const char *name, unsigned flags)
{
	int lang;

	return demangle_name_lang(name, flags, &lang);
}
