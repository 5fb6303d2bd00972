#!/usr/bin/env bash
# End-to-end: C++ frame names in both styles. Every instruction of
# testdata/dwarf/names.cc, as GCC and clang build it with full DWARF and
# as clang builds it with line tables only, is sampled once in a synthetic
# trace, and each frame prof-report gives (inline chains included) is
# compared with llvm-symbolizer's frame at that address: its linkage name
# (or the symbol table's, for the function that holds the code, as
# llvm-symbolizer takes it), demangled by "c++filt -p" for the default
# names and by c++filt for --signatures. A frame whose DWARF has no
# linkage name (main, an extern "C" function, a GCC lambda inlined) must
# end in its DWARF name, qualified or not. Clone suffixes (" [clone
# .isra.0]") are left out on both sides: llvm-symbolizer takes them from
# the symbol table, prof-report from DWARF. Then a pack keeps both styles,
# and Rust names read the same in both.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/oracle.sh"

have() { command -v "$1" > /dev/null 2>&1; }

# text_addresses OBJ: the address of every instruction of OBJ's .text, as
# oracle.sh's addresses() but without the PLT and _init, which no symbol
# of their own section names.
text_addresses() {
	llvm-objdump -d --no-show-raw-insn --section=.text "$1" |
		awk '/^ *[0-9a-f]+:/ { sub(/:.*/, ""); sub(/^ */, ""); print "0x" $0 }'
}

# synth ADDRS TRACE PATH OBJ: a trace of one sample at each address of the
# file ADDRS (below 2^32: an image of OBJ's build-id at PATH, slid to
# 0x555500000000), under a marker
# frame that keeps each sample's stack apart, as oracle.sh's are.
synth() {
	local args id
	id=$(readelf -n "$4" | awk '/Build ID/ { print $3 }')
	mapfile -t args < <(awk '{ a = $1; sub(/^0x0*/, "", a); a = sprintf("%8s", a); gsub(/ /, "0", a)
		printf "--sample\nTID=1,STACK=0x5555%s:0x%x\n", a, 3735879680 + NR - 1 }' "$1")
	"$SYNTH" -o "$2" --os linux --arch x86_64 --command names --thread TID=1,NAME=main \
		--image "KIND=gnu-build-id,IDENT=$id,PATH=$3,START=0x555500000000,SIZE=0x1000000,BIAS=0x555500000000" \
		"${args[@]}"
}

# frames_of ORACLE: llvm-symbolizer's answers as "INDEX<TAB>name;name..."
# innermost first, addresses with a "??" frame left out.
frames_of() {
	awk -F'\n' -v RS= '{ s = ""; for (k = 1; k < NF; k += 2) {
		if ($k == "??") { s = ""; break }
		s = s (s == "" ? "" : ";") $k }
		if (s != "") print NR - 1 "\t" s }' "$1"
}

# demangled WANT FILTER: each mangled frame of WANT through FILTER (c++filt
# or c++filt -p); a name that is not mangled becomes "*NAME", which the
# comparison takes as NAME or anything ending in "::NAME".
demangled() {
	local want=$1
	shift
	cut -f2 "$want" | tr ';' '\n' | awk '/^_Z/' | sort -u > "$TMP/mangled"
	"$@" < "$TMP/mangled" > "$TMP/demangled"
	awk -F'\t' 'FILENAME == ARGV[1] { m[FNR] = $0; next } FILENAME == ARGV[2] { d[m[FNR]] = $0; next }
		{ n = split($2, f, ";"); s = ""
		  for (k = 1; k <= n; k++) s = s (k > 1 ? ";" : "") (f[k] in d ? d[f[k]] : "*" f[k])
		  print $1 "\t" s }' "$TMP/mangled" "$TMP/demangled" "$want" | sed 's/ \[clone [^]]*\]//g'
}

# differ WANT GOT: the addresses whose frames differ, "INDEX<TAB>want<TAB>got".
differ() {
	awk -F'\t' 'FILENAME == ARGV[1] { got[$1] = $2; next }
		{ g = ($1 in got) ? got[$1] : "(missing)"; nw = split($2, w, ";"); ng = split(g, h, ";")
		  bad = nw != ng
		  for (k = 1; k <= nw && !bad; k++)
			if (w[k] ~ /^\*/) { t = substr(w[k], 2); bad = h[k] != t && substr(h[k], length(h[k]) - length(t) - 1) != "::" t }
			else bad = h[k] != w[k]
		  if (bad) print $1 "\t" $2 "\t" g }' "$2" "$1"
}

# names_case VARIANT: both styles of FIX/dwarf/names-VARIANT against the
# oracles. Leaves the trace and its addresses in TMP for the cases after.
names_case() {
	local v=$1 obj=$FIX/dwarf/names-$1 n d
	text_addresses "$obj" > "$TMP/$v.addrs"
	synth "$TMP/$v.addrs" "$TMP/$v.trace" "$obj" "$obj" || { fail "cxx-names-$v" "synth_trace failed"; return; }
	llvm-symbolizer --obj="$obj" --inlining --functions=linkage --no-demangle < "$TMP/$v.addrs" > "$TMP/$v.oracle"
	frames_of "$TMP/$v.oracle" > "$TMP/$v.want"
	demangled "$TMP/$v.want" c++filt -p > "$TMP/$v.plain.want"
	demangled "$TMP/$v.want" c++filt > "$TMP/$v.sig.want"
	"$REPORT" folded "$TMP/$v.trace" 2> "$TMP/$v.err" | sed 's/ \[clone [^];]*\]//g' > "$TMP/$v.folded"
	"$REPORT" folded --signatures "$TMP/$v.trace" 2>> "$TMP/$v.err" | sed 's/ \[clone [^];]*\]//g' > "$TMP/$v.sig.folded"
	folded_by_index "$TMP/$v.folded" > "$TMP/$v.plain.got"
	folded_by_index "$TMP/$v.sig.folded" > "$TMP/$v.sig.got"
	n=$(wc -l < "$TMP/$v.want")
	for style in plain sig; do
		differ "$TMP/$v.$style.want" "$TMP/$v.$style.got" > "$TMP/$v.$style.diff"
		d=$(wc -l < "$TMP/$v.$style.diff")
		local what=names; [ $style = sig ] && what=signatures
		if [ "$n" -gt 100 ] && [ "$d" -eq 0 ]; then
			ok "cxx-$what-$v ($n addresses, $(cut -f2 "$TMP/$v.$style.want" | tr ';' '\n' | wc -l) frames as llvm-symbolizer and $( [ $style = sig ] && echo c++filt || echo 'c++filt -p') name them)"
		else
			fail "cxx-$what-$v" "$d of $n differ, e.g. $(head -2 "$TMP/$v.$style.diff" | tr '\t' '|')"
		fi
	done
}

if [ ! -x "$SYNTH" ] || ! have llvm-symbolizer || ! have llvm-objdump || ! have c++filt; then
	skip "cxx-names" "no synth_trace, llvm-symbolizer, llvm-objdump or c++filt"
	exit 0
fi
ran=
for v in gcc clang g1; do
	if [ ! -x "$FIX/dwarf/names-$v" ]; then
		skip "cxx-names-$v" "$(cat "$FIX/dwarf/names-$v.skipped" 2> /dev/null || echo "no fixture $FIX/dwarf/names-$v (make fixtures builds it)")"
		continue
	fi
	names_case $v
	ran="$ran $v"
done

# What the fixtures hold was seen: each shape of name, in the default style.
for v in $ran; do
	miss=
	for want in 'std::__introsort_loop<' 'geo::Vec::operator+' 'geo::scale<double>' 'geo::Box<long>::twice' \
		'(anonymous namespace)::hidden' 'plain_c_spin'; do
		grep -qF -- "$want" "$TMP/$v.folded" || miss="$miss '$want'"
	done
	# GCC's lambda, and clang's of internal linkage.
	grep -qE 'main::(\{lambda\(int\)#1\}|\$_0)::operator\(\)' "$TMP/$v.folded" || miss="$miss 'the lambda'"
	# Inlined with a scope: only full DWARF knows one.
	[ $v != g1 ] && ! grep -qE ';geo::Vec::dot;|;geo::Vec::norm2;' "$TMP/$v.folded" && miss="$miss 'geo::Vec::dot inlined'"
	if [ -z "$miss" ]; then
		ok "cxx-names-$v-shapes (templates, std::sort, operators, a class template, an anonymous namespace, a lambda, extern \"C\")"
	else
		fail "cxx-names-$v-shapes" "not named:$miss"
	fi
done

# A pack keeps both styles: the trace reported from it alone, its binary
# gone, names each address as the binary did.
v=$(echo $ran | cut -d' ' -f1)
if [ -n "$v" ]; then
	obj=$FIX/dwarf/names-$v
	"$REPORT" pack -o "$TMP/$v.syms" "$TMP/$v.trace" 2> /dev/null
	# The same samples, at a path where no file is.
	mkdir -p "$TMP/gone"
	synth "$TMP/$v.addrs" "$TMP/gone.trace" "$TMP/gone/names-$v" "$obj"
	"$REPORT" folded --pack "$TMP/$v.syms" "$TMP/gone.trace" 2> /dev/null | sed 's/ \[clone [^];]*\]//g' > "$TMP/gone.folded"
	"$REPORT" folded --signatures --pack "$TMP/$v.syms" "$TMP/gone.trace" 2> /dev/null | sed 's/ \[clone [^];]*\]//g' > "$TMP/gone.sig.folded"
	if [ -s "$TMP/gone.sig.folded" ] && cmp -s "$TMP/gone.folded" "$TMP/$v.folded" &&
	   cmp -s "$TMP/gone.sig.folded" "$TMP/$v.sig.folded" &&
	   ! cmp -s "$TMP/gone.folded" "$TMP/gone.sig.folded"; then
		ok "cxx-names-pack-keeps-both-styles ($v, $(wc -l < "$TMP/gone.folded") stacks)"
	else
		fail "cxx-names-pack-keeps-both-styles" "$(diff "$TMP/$v.folded" "$TMP/gone.folded" | head -3; diff "$TMP/$v.sig.folded" "$TMP/gone.sig.folded" | head -3)"
	fi
fi

# Rust: the same names in both styles (a Rust name has no parameter list).
if [ -x "$FIX/rust/shapes" ]; then
	obj=$FIX/rust/shapes
	nm "$obj" | awk 'NF == 3 && ($2 == "t" || $2 == "T") { print "0x" $1 }' | sort -u | head -2000 > "$TMP/rust.addrs"
	i=$(wc -l < "$TMP/rust.addrs")
	synth "$TMP/rust.addrs" "$TMP/rust.trace" "$obj" "$obj"
	"$REPORT" folded "$TMP/rust.trace" > "$TMP/rust.folded" 2> /dev/null
	"$REPORT" folded --signatures "$TMP/rust.trace" > "$TMP/rust.sig.folded" 2> /dev/null
	if [ "$i" -gt 10 ] && cmp -s "$TMP/rust.folded" "$TMP/rust.sig.folded" && grep -q 'shapes::geometry::' "$TMP/rust.folded"; then
		ok "rust-names-same-in-both-styles ($i functions)"
	else
		fail "rust-names-same-in-both-styles" "$(diff "$TMP/rust.folded" "$TMP/rust.sig.folded" | head -4)"
	fi
else
	skip "rust-names-same-in-both-styles" "no Rust fixture $FIX/rust/shapes (make builds it when rustc is installed)"
fi
