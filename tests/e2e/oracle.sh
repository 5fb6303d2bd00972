# tests/e2e/oracle.sh: prof-report's names against llvm-symbolizer's, for
# the scripts that compare them (sourced after lib.sh). SYNTH is the
# synthetic trace writer of tests/tools.
SYNTH=$BUILD/tests/tools/synth_trace

# addresses OBJ: the link-time address of every instruction in OBJ's code,
# one hex number a line, as llvm-objdump disassembles it.
addresses() {
	llvm-objdump -d --no-show-raw-insn "$1" | awk '/^ *[0-9a-f]+:/ { sub(/:.*/, ""); sub(/^ */, ""); print "0x" $0 }'
}

# folded_by_index FOLDED: each line of folded output from oracle's traces
# as "INDEX<TAB>frame;frame;...", innermost frame first, where INDEX is
# that of the marker frame under which the address was sampled.
folded_by_index() {
	awk 'function hex(h,  v, k) { v = 0; for (k = 1; k <= length(h); k++)
			v = v * 16 + index("0123456789abcdef", substr(h, k, 1)) - 1; return v }
		{ line = $0; sub(/ [0-9]+$/, "", line); n = split(line, f, ";");
		for (k = 1; k <= n; k++) if (f[k] ~ /^\[unknown\]\+0xdead/) break;
		idx = hex(substr(f[k], 17)); s = "";
		for (j = n; j > k; j--) s = s (s == "" ? "" : ";") f[j];
		print idx "\t" s }' "$1" | sort -n
}

# compare WANT GOT: the lines of WANT ("INDEX<TAB>frames") that GOT gives
# otherwise or not at all, as "INDEX<TAB>wanted<TAB>got", got "(missing)"
# for an address prof-report left out of its output. A wanted "*+0xADDR"
# is an address nobody names: GOT must give one frame that ends so.
compare() {
	awk -F'\t' 'NR == FNR { got[$1] = $2; next }
		!($1 in got) { print $1 "\t" $2 "\t(missing)"; next }
		{ g = got[$1]; w = $2 }
		w ~ /^\*/ { if (g ~ /;/ || substr(g, length(g) - length(w) + 2) != substr(w, 2)) print $1 "\t" w "\t" g; next }
		g != w { print $1 "\t" w "\t" g }' "$2" "$1"
}

# oracle NAME OBJ DEBUG SLIDE SYMDIR SYNTH_ARGS...: writes a trace with one
# sample per instruction of OBJ (or per address of the file $ADDRS, when
# set) at address + SLIDE, under a marker frame that keeps each sample's
# stack apart, reports it with --lines, and compares each address's
# frames with llvm-symbolizer's on DEBUG. An address that prof-report
# leaves out of its output is a difference.
oracle() {
	local name=$1 obj=$2 debug=$3 slide=$4 symdir=$5
	shift 5
	local args=() i=0 a at mark
	if [ -n "${ADDRS:-}" ]; then
		cp "$ADDRS" "$TMP/$name.addrs"
	else
		addresses "$obj" > "$TMP/$name.addrs"
	fi
	# printf -v: two $(printf) subshells an address were most of the
	# time of this loop.
	while read -r a; do
		printf -v at '0x%x' $((a + slide))
		printf -v mark '0x%x' $((0xdead0000 + i))
		args+=(--sample "TID=1,STACK=$at:$mark")
		i=$((i + 1))
	done < "$TMP/$name.addrs"
	"$SYNTH" -o "$TMP/$name.trace" "$@" --thread TID=1,NAME=main "${args[@]}" || { fail "$name" "synth_trace failed"; return; }
	"$REPORT" folded --lines --symbols "$symdir" "$TMP/$name.trace" > "$TMP/$name.folded" 2> "$TMP/$name.err" \
		|| { fail "$name" "prof-report failed: $(cat "$TMP/$name.err")"; return; }
	llvm-symbolizer --obj="$debug" ${ARCH:+--default-arch=$ARCH} --inlining --functions=short --demangle < "$TMP/$name.addrs" > "$TMP/$name.oracle"
	# Both sides as "INDEX<TAB>frame;frame;..." innermost first, in the
	# form --lines prints: "name (base:line)".
	awk -F'\n' -v RS= '{ s = ""; for (k = 1; k < NF; k += 2) {
		f = $k; loc = $(k + 1); n = split(loc, p, ":"); file = p[1]; line = p[2];
		sub(/.*\//, "", file);
		if (f == "??" || line == 0) { s = ""; break }
		fr = (file == "??" || file == "") ? f : (line == 0 ? f " (" file ")" : f " (" file ":" line ")");
		s = s (s == "" ? "" : ";") fr }
		if (s != "") print NR - 1 "\t" s }' "$TMP/$name.oracle" > "$TMP/$name.want"
	folded_by_index "$TMP/$name.folded" > "$TMP/$name.got"
	# --no-inline: one frame an address, the oracle's outermost one.
	"$REPORT" folded --lines --no-inline --symbols "$symdir" "$TMP/$name.trace" > "$TMP/$name.ni.folded" 2>&1
	folded_by_index "$TMP/$name.ni.folded" > "$TMP/$name.ni.got"
	local total want_n diff_n
	total=$(wc -l < "$TMP/$name.addrs")
	want_n=$(wc -l < "$TMP/$name.want")
	# Addresses without a line (padding, PLT, code the compiler made up)
	# are left out: their names are compared below.
	compare "$TMP/$name.want" "$TMP/$name.got" > "$TMP/$name.diff"
	diff_n=$(wc -l < "$TMP/$name.diff")
	if [ "$want_n" -gt 10 ] && [ "$diff_n" -eq 0 ]; then
		ok "$name ($want_n of $total addresses match llvm-symbolizer)"
	else
		fail "$name" "$diff_n of $want_n differ, e.g. $(head -2 "$TMP/$name.diff" | tr '\t' '|')"
	fi
	sed 's/\t.*;/\t/' "$TMP/$name.want" > "$TMP/$name.ni.want"
	compare "$TMP/$name.ni.want" "$TMP/$name.ni.got" > "$TMP/$name.ni.diff"
	diff_n=$(wc -l < "$TMP/$name.ni.diff")
	[ "$want_n" -gt 10 ] && [ "$diff_n" -eq 0 ] && ok "$name-no-inline (the outermost frame of each of $want_n)" \
		|| fail "$name-no-inline" "$diff_n of $want_n differ, e.g. $(head -2 "$TMP/$name.ni.diff" | tr '\t' '|')"
	# Names alone, of every address. Where DWARF covers an address,
	# llvm-symbolizer's names. Where none does, llvm-symbolizer says ?? for
	# short names, and falls back to the symbol table for linkage names,
	# which prof-report must give then: code built without debug info (a
	# thunk of LLVM's function merging, a linker's branch island after the
	# last function, _init). An address that no symbol of its section
	# precedes (a stub, the PLT) prof-report must leave unnamed, giving its
	# image and address: llvm-symbolizer can name it after a symbol of
	# another section without a size (ELF's _init before the PLT).
	awk -F'\n' -v RS= '{ s = ""; for (k = 1; k < NF; k += 2) {
		if ($k == "??") { s = ""; break }
		s = s (s == "" ? "" : ";") $k }
		print NR - 1 "\t" s }' "$TMP/$name.oracle" > "$TMP/$name.names.dwarf"
	awk -F'\t' 'NR == FNR { addr[NR - 1] = $0; next } $2 == "" { print addr[$1] }' \
		"$TMP/$name.addrs" "$TMP/$name.names.dwarf" > "$TMP/$name.nodwarf.addrs"
	llvm-symbolizer --obj="$debug" ${ARCH:+--default-arch=$ARCH} --functions=linkage --demangle \
		< "$TMP/$name.nodwarf.addrs" > "$TMP/$name.nodwarf.oracle"
	llvm-objdump -h "$obj" | awk '$1 ~ /^[0-9]+$/ && NF >= 4 { print "section", $3, $4 }' > "$TMP/$name.layout"
	llvm-nm --defined-only "$obj" | awk '{ print "symbol", $1 }' >> "$TMP/$name.layout"
	awk -F'\t' -v kinds="$TMP/$name.names.kinds" '
		function hex(h,  v, k) { h = tolower(h); sub(/^0x/, "", h); v = 0
			for (k = 1; k <= length(h); k++) v = v * 16 + index("0123456789abcdef", substr(h, k, 1)) - 1
			return v }
		# Whether a symbol of the section that holds address a lies at
		# or below it.
		function owned(a,  i, j) {
			for (i = 0; i < nsec; i++)
				if (a >= start[i] && a < start[i] + size[i]) break
			if (i == nsec) return 1
			for (j = 0; j < nsym; j++)
				if (sym[j] >= start[i] && sym[j] <= a) return 1
			return 0 }
		FILENAME == ARGV[1] { split($0, f, " ")
			if (f[1] == "section") { size[nsec] = hex(f[2]); start[nsec++] = hex(f[3]) }
			else sym[nsym++] = hex(f[2])
			next }
		FILENAME == ARGV[2] { addr[FNR - 1] = $0; next }
		FILENAME == ARGV[3] { if ($0 != "" && (++k) % 2) table_name[n++] = $0; next }
		$2 != "" { print; dwarf++; next }
		{ s = table_name[m++]; a = addr[$1] }
		s != "??" && owned(hex(a)) { print $1 "\t" s; table++; next }
		{ sub(/^0x0*/, "", a); print $1 "\t*+0x" a; none++ }
		END { printf "%d %d %d\n", dwarf, table, none > kinds }' \
		"$TMP/$name.layout" "$TMP/$name.addrs" "$TMP/$name.nodwarf.oracle" "$TMP/$name.names.dwarf" \
		> "$TMP/$name.names.want"
	"$REPORT" folded --symbols "$symdir" "$TMP/$name.trace" > "$TMP/$name.names.folded" 2>&1
	folded_by_index "$TMP/$name.names.folded" > "$TMP/$name.names.got"
	compare "$TMP/$name.names.want" "$TMP/$name.names.got" > "$TMP/$name.names.diff"
	local dwarf table none
	read -r dwarf table none < "$TMP/$name.names.kinds"
	diff_n=$(wc -l < "$TMP/$name.names.diff")
	[ "$dwarf" -gt 10 ] && [ "$diff_n" -eq 0 ] && ok "$name-names (all $total addresses: $dwarf named from DWARF and $table from the symbol table as llvm-symbolizer names them, $none without a symbol left unnamed)" \
		|| fail "$name-names" "$diff_n of $total differ, e.g. $(head -2 "$TMP/$name.names.diff" | tr '\t' '|')"
}
