# tests/e2e/asm.sh: prof-report annotate --asm's instruction listing
# against llvm-objdump's, for the scripts that compare them (sourced after
# lib.sh): test_annotate.sh on x86_64, test_arm64.sh on arm64.
#
# Both listings become "ADDRESS<TAB>MNEMONIC" lines, the address in hex
# without 0x, after the same normalization. prof-report disassembles with
# Capstone 4 (AT&T syntax on x86_64), the oracle is LLVM 14's; where they
# spell the same instruction apart, both sides are brought to one
# spelling. The differences, found by disassembling the .text of libc,
# prof-report and the Rust fixture (x86_64, 470,000 instructions) and of
# the static arm64 annotate fixture (91,000) with both:
#   x86_64
#   - LLVM prints a lock prefix as an instruction of its own, at its byte,
#     and the instruction after it at the next address ("lock" then
#     "addq"); Capstone as one ("lock addq"): a bare prefix is joined to
#     the instruction after it;
#   - movd and movq: Capstone names the REX.W form between a 64-bit
#     general register and an XMM register movd, LLVM movq;
#   - cvtsi2sd and cvtsi2ss: Capstone suffixes the source's size (l or q)
#     where it is a register, LLVM only where it is memory;
#   - fcomip and fucomip: LLVM 14 spells them fcompi and fucompi;
#   - rep ret (f3 c3): Capstone drops the prefix, LLVM keeps it (and
#     LLVM after 14 spells retq ret);
#   - Capstone 4 decodes none of AVX-512's mask-register instructions
#     (kmovd, vpcmpeqb into k, vptestmb...) nor rdpkru and wrpkru; that
#     is a real difference, left to show (in libc's string functions, none
#     in the fixtures);
#   arm64
#   - LLVM prints the preferred aliases, Capstone 4 the instructions:
#     movz and movn are mov (LLVM keeps movz for #0, lsl #16), orr from
#     wzr or xzr is mov, ins is mov;
#   both
#   - undecodable bytes: Capstone's .byte, LLVM's <unknown>, objdump's and
#     prof-report's (bad).
# Operands are not compared: the two print immediates and branch targets
# differently (decimal or hex, a symbol after the target).

# asm_norm ARCH: reads "ADDRESS<TAB>TEXT" lines (TEXT the instruction as
# the disassembler printed it, mnemonic first, address in hex with or
# without 0x) in address order, writes "ADDRESS<TAB>MNEMONIC", normalized.
asm_norm() {
	awk -F'\t' -v arch="$1" '
	function hex(h,  v, k) { h = tolower(h); sub(/^0x/, "", h); v = 0
		for (k = 1; k <= length(h); k++) v = v * 16 + index("0123456789abcdef", substr(h, k, 1)) - 1
		return v }
	function prefix(w) { return w ~ /^(lock|rep|repe|repz|repne|repnz|data16|notrack|bnd|xacquire|xrelease)$/ }
	function emit(a, t,  n, w, k, m, ops) {
		t = tolower(t); gsub(/[ \t]+/, " ", t); sub(/^ /, "", t); sub(/ $/, "", t)
		n = split(t, w, " ")
		m = ""
		for (k = 1; k <= n && prefix(w[k]); k++) m = m w[k] " "
		if (k <= n) m = m w[k]; else sub(/ $/, "", m)
		ops = ""
		for (k++; k <= n; k++) ops = ops (ops == "" ? "" : " ") w[k]
		if (m ~ /^(\.byte|<unknown>|\(bad\))/) m = "(bad)"
		if (arch == "x86_64") {
			if (m ~ /^(rep |repz )?retq?$/) m = "retq"
			if (m == "movd" && ops ~ /(^|, ?)%r([a-z][a-z]|[0-9]+)(,|$)/) m = "movq"
			if (m ~ /^cvtsi2s[sd][lq]$/) m = substr(m, 1, 8)
			if (m == "fcompi") m = "fcomip"
			if (m == "fucompi") m = "fucomip"
		} else if (arch == "arm64") {
			if (m == "movz" || m == "movn" || m == "ins") m = "mov"
			if (m == "orr" && ops ~ /^[wx][0-9]+, ?[wx]zr,/) m = "mov"
		}
		printf "%x\t%s\n", a, m
	}
	{ a = hex($1); t = $0; sub(/^[^\t]*\t/, "", t) }
	# A bare prefix (LLVM prints lock so) goes with the instruction at
	# the next byte.
	held != "" { if (a == hold_a + 1) { emit(hold_a, held " " t); held = ""; next }
		     emit(hold_a, held); held = "" }
	{ x = tolower(t); gsub(/[ \t]/, "", x) }
	prefix(x) { held = x; hold_a = a; next }
	{ emit(a, t) }
	END { if (held != "") emit(hold_a, held) }'
}

# objdump_listing OBJ SYMBOL: llvm-objdump's disassembly of SYMBOL in OBJ
# as "ADDRESS<TAB>TEXT" lines: link-time addresses, up to the next
# symbol (its padding too), without its comments and branch targets'
# symbols.
objdump_listing() {
	llvm-objdump -d --no-show-raw-insn --disassemble-symbols="$2" "$1" |
		awk '/^ *[0-9a-f]+:/ { a = $0; sub(/:.*/, "", a); sub(/^ */, "", a)
			t = $0; sub(/^ *[0-9a-f]+:[ \t]*/, "", t); sub(/[ \t]*#.*/, "", t); sub(/[ \t]+<[^>]*>$/, "", t)
			gsub(/\t+/, " ", t); print a "\t" t }'
}

# symbol_range OBJ SYMBOL: "START END" (hex, without 0x) of the function
# SYMBOL in OBJ's symbol table, END its first byte past st_size.
symbol_range() {
	readelf -sW "$1" | awk -v s="$2" '
	function hex(h,  v, k) { h = tolower(h); v = 0
		for (k = 1; k <= length(h); k++) v = v * 16 + index("0123456789abcdef", substr(h, k, 1)) - 1
		return v }
	$4 == "FUNC" && $8 == s { printf "%x %x\n", hex($2), hex($2) + $3; exit }'
}

# asm_compare WANT GOT START END: the oracle's normalized listing WANT
# (which may run past END, to the next symbol) against prof-report's GOT:
# every instruction of WANT in [START, END) is in GOT, and nothing is in
# GOT that WANT lacks. Prints the differences, "want: LINE" and "got:
# LINE", and returns non-zero, where there are any.
asm_compare() {
	local s=$3 e=$4
	awk -F'\t' -v s="$s" -v e="$e" '
	function hex(h,  v, k) { h = tolower(h); v = 0
		for (k = 1; k <= length(h); k++) v = v * 16 + index("0123456789abcdef", substr(h, k, 1)) - 1
		return v }
	BEGIN { lo = hex(s); hi = hex(e) }
	FILENAME == ARGV[1] { want[$0] = 1; a = hex($1); if (a >= lo && a < hi) { need[$0] = 1; nn++ }; next }
	{ got[$0] = 1 }
	END { bad = 0
		if (!nn) { printf "want: nothing from %s to %s\n", s, e; bad = 1 }
		for (k in need) if (!(k in got)) { print "want: " k; bad = 1 }
		for (k in got) if (!(k in want)) { print "got:  " k; bad = 1 }
		exit bad }' "$1" "$2" | sort -t: -k2
	return "${PIPESTATUS[0]}"
}

# json_insns JSON FUNCTION: the instructions of FUNCTION in annotate --asm
# --json's output JSON, as "ADDRESS<TAB>TEXT" lines; none, and python3's
# complaint on stderr, where there are none.
json_insns() {
	python3 -c 'import json, sys
for f in json.load(open(sys.argv[1]))["functions"]:
    if f["name"] == sys.argv[2]:
        for i in f.get("instructions", []):
            print("%s\t%s" % (i["address"], i["text"]))' "$1" "$2"
}
