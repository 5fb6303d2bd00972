/*
 * symtab.h: an ELF symbol table, sorted for address lookup.
 *
 * Built once per file from its function symbols (ELF .symtab and .dynsym,
 * Mach-O nlist), with the names demangled and copied, so the table
 * outlives the mapped file.
 * Addresses are link-time addresses, as the file's symbols store them: a
 * runtime address minus the image's bias.
 */
#ifndef REPORT_SYMTAB_H
#define REPORT_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

#include "common/errors.h"
#include "report/symbols/objfile.h"

struct symtab;

/* Builds a table from of's function symbols. Returns 0 and a new table in
 * *out (caller frees with symtab_free()), or a negative prof_strerror()
 * error. A file without symbols gives an empty table, not an error. */
int symtab_new(const struct objfile *of, struct symtab **out);
void symtab_free(struct symtab *st);

/* Returns the name of the function containing link-time address addr, or
 * NULL: a C++ name qualified, with its template arguments, without return
 * type and parameters ("c++filt -p"). *signature (if non-NULL) gets the
 * full signature, as c++filt prints it (the name itself for anything but
 * C++). *start and *lang (if non-NULL) get the symbol's address and the
 * enum demangle_lang of its mangling (DEMANGLE_LANG_GO for a Go program's
 * names, which lose the ".abi0" of Go's assembly). A symbol with a
 * size covers [value, value+size); one without a size covers up to the
 * next symbol, within its section. Among aliases at one address the one
 * with the largest size wins, then the one the file lists last, as
 * llvm-symbolizer chooses. The name is borrowed until symtab_free(). */
const char *symtab_lookup(const struct symtab *st, uint64_t addr, uint64_t *start, int *lang,
			  const char **signature);
/* The number of distinct symbols in the table. */
size_t symtab_count(const struct symtab *st);
/* The link-time range [*start, *end) of the function that holds addr, by
 * symtab_lookup()'s rules. Returns 0, or SYMTAB_E_NOSYMBOL (*start
 * untouched) if no symbol holds it. */
int symtab_range(const struct symtab *st, uint64_t addr, uint64_t *start, uint64_t *end);

#endif
