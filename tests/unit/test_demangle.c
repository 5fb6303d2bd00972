/*
 * test_demangle.c: C++ and Rust names through libiberty, checked against
 * known forms, against c++filt(1) on every C++ name libstdc++ exports, and
 * against the symbols of a Rust program compiled here in both manglings;
 * then plain C names, Go names left alone, Mach-O underscores, and hostile
 * input.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/elf.h"
#include "build_dir.h"
#include "report/dwarf/demangle.h"
#include "object_file.h"

#define LIBSTDCXX "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"

/* One timeout for the suite: a per-test .timeout makes Criterion 2.4 leak
 * its watchdog record when the test runs long (LeakSanitizer sees it). */
TestSuite(demangle, .timeout = 120);

static void expect(const char *mangled, unsigned flags, const char *want)
{
	char *got = demangle_name(mangled, flags);

	if (!want) {
		cr_expect_null(got, "'%s' demangled to '%s', want it left alone", mangled, got);
	} else {
		cr_expect_not_null(got, "'%s' not demangled, want '%s'", mangled, want);
		if (got)
			cr_expect_str_eq(got, want, "'%s'", mangled);
	}
	free(got);
}

static int have(const char *tool)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

struct names {
	char **v;
	size_t n, cap;
	const char *prefix; /* only names starting with this */
};

static int collect(void *ctx, const struct elf_symbol *sym)
{
	struct names *ns = ctx;

	if (strncmp(sym->name, ns->prefix, strlen(ns->prefix)) != 0)
		return 0;
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? 2 * ns->cap : 256;
		ns->v = realloc(ns->v, ns->cap * sizeof(*ns->v));
		cr_assert_not_null(ns->v);
	}
	ns->v[ns->n++] = strdup(sym->name);
	return 0;
}

static void names_of(const char *path, const char *prefix, struct names *ns)
{
	struct mapped m;
	struct elf_file e;

	memset(ns, 0, sizeof(*ns));
	ns->prefix = prefix;
	cr_assert_eq(map_file(path, &m), 0, "cannot map %s", path);
	cr_assert_eq(elf_parse(&e, m.p, m.n), 0);
	elf_symbols(&e, collect, ns);
	munmap(m.p, m.n);
}

static void names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
}

Test(demangle, cxx_known_names)
{
	expect("_Z3fooi", 0, "foo(int)");
	expect("_ZN2ns5Outer5innerEPKcm", 0, "ns::Outer::inner(char const*, unsigned long)");
	expect("_ZNKSt6vectorIiSaIiEE4sizeEv", 0, "std::vector<int, std::allocator<int> >::size() const");
	expect("_Z3fooIiEvT_", 0, "void foo<int>(int)");
	expect("_ZN12_GLOBAL__N_16helperEv", 0, "(anonymous namespace)::helper()");
	expect("_ZN3foo3barEv.constprop.0", 0, "foo::bar() [clone .constprop.0]");
	expect("_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC2EPKcRKS3_", 0,
	       "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
	       "::basic_string(char const*, std::allocator<char> const&)");
	/* c++filt's verbose form of the std:: abbreviations. */
	expect("_ZNSs4_RepC2Ev", 0,
	       "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::_Rep::_Rep()");
	expect("_ZZ4mainE1x", 0, "main::x");
	expect("_ZTV3Foo", 0, "vtable for Foo");
}

/* Every C++ name libstdc++ exports, through us and through one c++filt. */
Test(demangle, cxx_matches_cxxfilt_on_libstdcxx)
{
	char tmpl[] = "/tmp/test_demangle.XXXXXX", in[64], out[64], cmd[256], line[65536];
	struct names ns;
	size_t i, same = 0;
	FILE *f;

	if (!have("c++filt"))
		cr_skip_test("c++filt (binutils) is not installed");
	if (access(LIBSTDCXX, R_OK) != 0)
		cr_skip_test("no " LIBSTDCXX);
	names_of(LIBSTDCXX, "_Z", &ns);
	cr_assert_gt(ns.n, 1000, "only %zu C++ names in " LIBSTDCXX, ns.n);
	cr_assert_not_null(mkdtemp(tmpl));
	snprintf(in, sizeof(in), "%s/in", tmpl);
	snprintf(out, sizeof(out), "%s/out", tmpl);
	f = fopen(in, "w");
	cr_assert_not_null(f);
	for (i = 0; i < ns.n; i++)
		fprintf(f, "%s\n", ns.v[i]);
	cr_assert_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "c++filt < %s > %s", in, out);
	cr_assert_eq(system(cmd), 0);
	f = fopen(out, "r");
	cr_assert_not_null(f);
	for (i = 0; i < ns.n && fgets(line, sizeof(line), f); i++) {
		char *got = demangle_name(ns.v[i], 0);

		line[strcspn(line, "\n")] = 0;
		cr_expect_str_eq(got ? got : ns.v[i], line, "'%s'", ns.v[i]);
		same += got && !strcmp(got, line);
		free(got);
	}
	cr_expect_eq(i, ns.n, "c++filt printed %zu lines for %zu names", i, ns.n);
	fclose(f);
	printf("demangle: %zu of %zu libstdc++ names demangled as c++filt does\n", same, ns.n);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpl);
	cr_expect_eq(system(cmd), 0);
	names_free(&ns);
}

Test(demangle, rust_legacy_hash_removed)
{
	expect("_ZN4core3fmt5write17h0123456789abcdefE", 0, "core::fmt::write");
	expect("_ZN3std2rt10lang_start17h5a7e3c0b9d1f2a46E", 0, "std::rt::lang_start");
	/* "$LT$" and friends are Rust's escapes for <, >, spaces. */
	expect("_ZN66_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop"
	       "17h1b2c3d4e5f607182E", 0, "<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop");
}

Test(demangle, rust_v0)
{
	/* Crate disambiguators ("Cs..._") are dropped. */
	expect("_RNvCs1234_7mycrate3foo", 0, "mycrate::foo");
	expect("_RNvMNtCs6GmmlP4bgsG_1r6shapesNtB2_6Circle4area", 0, "<r::shapes::Circle>::area");
	expect("_RNvNtCs1234_7mycrate5inner3bar", 0, "mycrate::inner::bar");
}

/* A v0 crate disambiguator as verbose output shows it: "crate[1f2e3d]". */
static int has_disambiguator(const char *s)
{
	for (const char *p = strchr(s, '['); p; p = strchr(p + 1, '[')) {
		size_t n = strspn(p + 1, "0123456789abcdef");
		if (n > 0 && p[1 + n] == ']')
			return 1;
	}
	return 0;
}

/* The symbols of a real Rust program: the method reads crate::module::
 * Type::method (legacy) or <crate::module::Type>::method (v0), and no
 * demangled name keeps a hash or a disambiguator. */
Test(demangle, rust_program_symbols)
{
	static const struct { const char *file, *prefix, *want; } kinds[] = {
		{ "shapes", "_ZN", "shapes::geometry::Shape::area" },
		{ "shapes-v0", "_R", "<shapes::geometry::Shape>::area" },
	};
	char path[PATH_MAX + 64];

	find_build_dir();
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct names ns;
		size_t found = 0, demangled = 0;

		snprintf(path, sizeof(path), "%s/testdata/rust/%s", build_dir, kinds[k].file);
		if (access(path, R_OK) != 0)
			cr_skip_test("no Rust fixture %s (make builds it when rustc is installed)", path);
		names_of(path, kinds[k].prefix, &ns);
		for (size_t i = 0; i < ns.n; i++) {
			char *got = demangle_name(ns.v[i], 0);
			const char *h;

			if (!got)
				continue;
			demangled++;
			found += !strcmp(got, kinds[k].want);
			/* A legacy hash would read "::h" and 16 hex digits at the end. */
			h = strstr(got, "::h");
			if (h && strlen(h) == 19 && strspn(h + 3, "0123456789abcdef") == 16)
				cr_expect(0, "'%s' kept its hash: '%s'", ns.v[i], got);
			if (kinds[k].prefix[1] == 'R')
				cr_expect(!has_disambiguator(got), "'%s' kept a disambiguator: '%s'",
					  ns.v[i], got);
			free(got);
		}
		cr_expect_eq(found, 1, "%s: no symbol demangles to '%s'", kinds[k].file, kinds[k].want);
		/* The standard library may come prebuilt in either mangling, so
		 * only our own crate's names are sure to be of this kind. */
		cr_expect_eq(demangled, ns.n, "%s: only %zu of %zu names demangled",
			     kinds[k].file, demangled, ns.n);
		printf("demangle: rust %s: %zu of %zu names demangled\n", kinds[k].file, demangled, ns.n);
		names_free(&ns);
	}
}

Test(demangle, plain_c_names_unchanged)
{
	static const char *const plain[] = {
		"main", "printf", "_start", "__libc_start_main", "_IO_puts", "msort_with_tmp",
		"fixture_spin.constprop.0", "_", "", "_Z", "_R", "_ZN", "_Zebra", "_Rust",
	};

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		expect(plain[i], 0, NULL);
		cr_expect_eq(demangle_plain(plain[i], 0), plain[i]);
	}
}

/* Go's names are not mangled: package paths with slashes and dots,
 * methods on pointers, closures, generics' shapes and the linker's own
 * names all stay as they are (report/symbols/symtab.c drops ".abi0"). */
Test(demangle, go_names_unchanged)
{
	static const char *const go[] = {
		"main.hxGoHot", "internal/poll.(*FD).Read", "runtime.goexit.abi0", "main.main.func1",
		"type..eq.[2]interface {}", "main.Map[go.shape.int_0]", "gopkg.in/yaml%2ev3.Unmarshal",
		"_rt0_amd64_linux", "go:buildid", "runtime.gcBgMarkWorker.func2",
	};

	for (size_t i = 0; i < sizeof(go) / sizeof(go[0]); i++) {
		int lang = -1;

		expect(go[i], 0, NULL);
		cr_expect_null(demangle_name_lang(go[i], 0, &lang), "'%s'", go[i]);
		cr_expect_eq(lang, DEMANGLE_LANG_NONE, "'%s'", go[i]);
		cr_expect_eq(demangle_plain(go[i], 0), go[i]);
	}
}

/* The mangling read is reported with the name. */
Test(demangle, language_of_the_mangling)
{
	static const struct { const char *name; unsigned flags; int lang; } v[] = {
		{ "_ZN2ns5Outer5innerEPKcm", 0, DEMANGLE_LANG_CXX },
		{ "__ZN2ns5Outer5innerEPKcm", DEMANGLE_MACHO, DEMANGLE_LANG_CXX },
		{ "_ZN4core3fmt5write17h0123456789abcdefE", 0, DEMANGLE_LANG_RUST },
		{ "_RNvCs1234_7mycrate3foo", 0, DEMANGLE_LANG_RUST },
		{ "main", 0, DEMANGLE_LANG_NONE },
		{ "_Zebra", 0, DEMANGLE_LANG_NONE },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int lang = -1;
		char *got = demangle_name_lang(v[i].name, v[i].flags, &lang);

		cr_expect_eq(lang, v[i].lang, "'%s': language %d, want %d", v[i].name, lang, v[i].lang);
		cr_expect_eq(got != NULL, v[i].lang != DEMANGLE_LANG_NONE, "'%s'", v[i].name);
		free(got);
	}
}

Test(demangle, macho_underscore)
{
	expect("__ZN2ns5Outer5innerEPKcm", DEMANGLE_MACHO, "ns::Outer::inner(char const*, unsigned long)");
	expect("__ZN4core3fmt5write17h0123456789abcdefE", DEMANGLE_MACHO, "core::fmt::write");
	expect("__RNvCs1234_7mycrate3foo", DEMANGLE_MACHO, "mycrate::foo");
	/* The underscore is Mach-O's, so without the flag these are not mangled. */
	expect("__ZN2ns5Outer5innerEPKcm", 0, NULL);
	/* A C name: left alone, and shown without the underscore. */
	expect("_main", DEMANGLE_MACHO, NULL);
	cr_expect_str_eq(demangle_plain("_main", DEMANGLE_MACHO), "main");
	cr_expect_str_eq(demangle_plain("_main", 0), "_main");
	cr_expect_str_eq(demangle_plain("main", DEMANGLE_MACHO), "main");
	cr_expect_str_eq(demangle_plain("", DEMANGLE_MACHO), "");
	/* Only one underscore goes. */
	expect("___Z3fooi", DEMANGLE_MACHO, NULL);
}

static uint64_t rng = 88172645463325252u;

static unsigned next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 32);
}

/* Hostile names: every prefix of real names, random bytes behind the
 * mangling prefixes, deep nesting, and an over-long name. Nothing may
 * crash, and whatever comes back is a string. */
Test(demangle, garbage_never_crashes)
{
	static const char *const seeds[] = {
		"_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEC2EPKcRKS3_",
		"_ZN66_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop17h1b2c3d4e5f607182E",
		"_RNvMNtCs6GmmlP4bgsG_1r6shapesNtB2_6Circle4area",
		"_ZZ4mainE1x", "_Z3fooIiEvT_",
	};
	static const char *const prefixes[] = { "_Z", "_ZN", "_R", "_RN", "__Z", "_GLOBAL__sub_I_" };
	static const char alphabet[] = "0123456789_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz$.";
	char buf[512];
	char *big;
	size_t i, n, len;

	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		len = strlen(seeds[i]);
		for (n = 0; n <= len; n++) {
			memcpy(buf, seeds[i], n);
			buf[n] = 0;
			free(demangle_name(buf, 0));
			free(demangle_name(buf, DEMANGLE_MACHO));
		}
	}
	for (i = 0; i < 200000; i++) {
		const char *pre = prefixes[next_rand() % 6];
		size_t pl = strlen(pre);
		char *got;

		len = pl + next_rand() % 64;
		memcpy(buf, pre, pl);
		for (n = pl; n < len; n++)
			buf[n] = i % 2 ? (char)(next_rand() % 255 + 1)
				       : alphabet[next_rand() % (sizeof(alphabet) - 1)];
		buf[len] = 0;
		got = demangle_name(buf, 0);
		if (got)
			cr_assert_lt(strlen(got), 1u << 20);
		free(got);
	}
	/* Nesting far past libiberty's recursion limit. */
	big = malloc(DEMANGLE_MAX_INPUT + 16);
	cr_assert_not_null(big);
	strcpy(big, "_Z1fP");
	for (n = 5; n < 3 * 1000; n++)
		big[n] = "PKP"[n % 3];
	strcpy(big + n, "i");
	free(demangle_name(big, 0));
	for (n = 0; n + 4 < 4000; n += 4)
		memcpy(big + n, "_ZN1", 4);
	big[n] = 0;
	free(demangle_name(big, 0));
	/* Longer than the cap: not even tried, even though it is valid. */
	strcpy(big, "_ZN");
	for (n = 3; n < DEMANGLE_MAX_INPUT; n += 2)
		memcpy(big + n, "1a", 2);
	strcpy(big + n, "Ev");
	cr_expect_gt(strlen(big), DEMANGLE_MAX_INPUT);
	expect(big, 0, NULL);
	free(big);
}
