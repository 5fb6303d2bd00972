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

# oracle NAME OBJ DEBUG SLIDE SYMDIR SYNTH_ARGS...: writes a trace with one
# sample per instruction of OBJ (or per address of the file $ADDRS, when
# set) at address + SLIDE, under a marker frame that keeps each sample's
# stack apart, reports it with --lines, and compares each address's
# frames with llvm-symbolizer's on DEBUG.
oracle() {
	local name=$1 obj=$2 debug=$3 slide=$4 symdir=$5
	shift 5
	local args=() i=0 a
	if [ -n "${ADDRS:-}" ]; then
		cp "$ADDRS" "$TMP/$name.addrs"
	else
		addresses "$obj" > "$TMP/$name.addrs"
	fi
	while read -r a; do
		args+=(--sample "TID=1,STACK=$(printf '0x%x' $((a + slide))):$(printf '0x%x' $((0xdead0000 + i)))")
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
	# are left out: llvm-symbolizer names them from the symbol table.
	join -t "$(printf '\t')" -j 1 <(sort -k1,1 "$TMP/$name.want") <(sort -k1,1 "$TMP/$name.got") \
		| awk -F'\t' '$2 != $3' > "$TMP/$name.diff"
	diff_n=$(wc -l < "$TMP/$name.diff")
	if [ "$want_n" -gt 10 ] && [ "$diff_n" -eq 0 ]; then
		ok "$name ($want_n of $total addresses match llvm-symbolizer)"
	else
		fail "$name" "$diff_n of $want_n differ, e.g. $(head -2 "$TMP/$name.diff" | tr '\t' '|')"
	fi
	join -t "$(printf '\t')" -j 1 <(sed 's/\t.*;/\t/' "$TMP/$name.want" | sort -k1,1) <(sort -k1,1 "$TMP/$name.ni.got") \
		| awk -F'\t' '$2 != $3' > "$TMP/$name.ni.diff"
	diff_n=$(wc -l < "$TMP/$name.ni.diff")
	[ "$want_n" -gt 10 ] && [ "$diff_n" -eq 0 ] && ok "$name-no-inline (the outermost frame of each of $want_n)" \
		|| fail "$name-no-inline" "$diff_n of $want_n differ, e.g. $(head -2 "$TMP/$name.ni.diff" | tr '\t' '|')"
	# Names alone, of every address that llvm-symbolizer names, with a
	# line or without (from the symbol table, where there is no DWARF).
	awk -F'\n' -v RS= '{ s = ""; for (k = 1; k < NF; k += 2) {
		if ($k == "??") { s = ""; break }
		s = s (s == "" ? "" : ";") $k }
		if (s != "") print NR - 1 "\t" s }' "$TMP/$name.oracle" > "$TMP/$name.names.want"
	"$REPORT" folded --symbols "$symdir" "$TMP/$name.trace" > "$TMP/$name.names.folded" 2>&1
	folded_by_index "$TMP/$name.names.folded" > "$TMP/$name.names.got"
	want_n=$(wc -l < "$TMP/$name.names.want")
	join -t "$(printf '\t')" -j 1 <(sort -k1,1 "$TMP/$name.names.want") <(sort -k1,1 "$TMP/$name.names.got") \
		| awk -F'\t' '$2 != $3' > "$TMP/$name.names.diff"
	diff_n=$(wc -l < "$TMP/$name.names.diff")
	[ "$want_n" -gt 10 ] && [ "$diff_n" -eq 0 ] && ok "$name-names ($want_n of $total addresses named as llvm-symbolizer names them)" \
		|| fail "$name-names" "$diff_n of $want_n differ, e.g. $(head -2 "$TMP/$name.names.diff" | tr '\t' '|')"
}
