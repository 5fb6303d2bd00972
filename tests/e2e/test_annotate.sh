#!/usr/bin/env bash
# End-to-end: prof-report annotate on the annotate fixture, whose function
# loops runs two loops, each on its own line (marked LOOP_A and LOOP_B),
# in a 3:1 ratio of time, LOOP_B through mix_step, inlined. prof-record
# launches it for a fixed amount of work (2.6 s of CPU time on the build
# machine), and perf record -p samples the same process from when it
# starts to its end, so both see the same run.
# Checked, from annotate --json:
#   - annotate-loop-shares: LOOP_A's and LOOP_B's lines hold 75% and 25%
#     of loops' samples (in total), within 5 points each, of at least
#     800 (about 2400 at 999 Hz; at 800 a share's standard deviation is
#     1.5 points);
#   - annotate-perf-agrees: perf annotate's share of each line (its
#     "Sorted summary" of -l, where mix_step's lines count for LOOP_B, the
#     line that inlined them) is prof's within 5 points, of at least 500
#     perf samples;
#   - annotate-asm-objdump: with --asm, the instructions of loops, their
#     addresses and mnemonics, are llvm-objdump's (tests/e2e/asm.sh
#     normalizes the spellings of the two disassemblers);
#   - annotate-inlined-under-call-site: mix_step is in the "inlined" list
#     of LOOP_B's line, at a line of its body, with samples, and none of
#     its lines is a line of loops;
#   - annotate-source-moved-*: with the source directory hidden (a tmpfs
#     over it, in a mount namespace of the report's own) and a copy of
#     the file in another tree, the lines have no text and the report
#     names the paths it tried (the DWARF's, and one under a --source-dir
#     where it is not); with --source-dir on the new tree, and with
#     --source-map from the old one to it, the lines' text is the file's;
#   - annotate-from-pack: from a pack made with --asm --sources, with the
#     sources and the binary hidden, the lines' text, the instructions,
#     each instruction's line and the function's span of lines are those
#     shown with the files;
#   - annotate-json-schema: both documents are valid against
#     schema/prof-annotate.schema.json;
#   - annotate-text: the text view marks LOOP_A's line hot and lists
#     mix_step under LOOP_B's line;
#   - annotate-source-md5-*, annotate-source-shorter: a source that is
#     not the build's (its MD5, from clang's DWARF 5, differs; it is
#     shorter than the line table says) is passed over for the build's,
#     or shown with a warning;
#   - annotate-source-crlf, -huge-line, -binary: CRLF line ends, a line of
#     100 KB with an escape byte in it, and a file with a NUL byte.
# perf's, llvm-objdump's and the moved source's cases are skipped, with
# the reason, where their tools (perf and objdump, llvm-objdump, unshare
# and mount) cannot run here.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/asm.sh"

# The paths as the DWARF has them: the compiler ran at the top of the
# tree, and took its directory as getcwd(3) gives it, without symbolic
# links.
PTOP=$(cd "$TOP" && pwd -P)
SRC=$PTOP/testdata/annotate.c
FIXTURE=$FIX/annotate
have() { command -v "$1" > /dev/null 2>&1; }

if ! have python3; then
	skip "annotate" "python3 is not installed"
	exit 0
fi
if [ ! -x "$FIXTURE" ]; then
	fail "annotate-fixture" "no $FIXTURE (make fixtures)"
	exit 0
fi
# The lines, from the markers in the source: each loop's, and those of
# mix_step's body (its signature to its closing brace).
LA=$(grep -n '/\* LOOP_A \*/$' "$SRC" | cut -d: -f1)
LB=$(grep -n '/\* LOOP_B \*/$' "$SRC" | cut -d: -f1)
read -r H0 H1 < <(awk '/^ALWAYS_INLINE uint64_t mix_step\(/ { s = NR } s && !e && /^}/ { e = NR } END { print s, e }' "$SRC")
if [ -z "$LA" ] || [ -z "$LB" ] || [ -z "$H0" ] || [ -z "$H1" ]; then
	fail "annotate-fixture" "the markers of $SRC: LOOP_A '$LA', LOOP_B '$LB', mix_step '$H0'-'$H1'"
	exit 0
fi

# --- one run, sampled by both -----------------------------------------------
# cpu mode, or wall mode where perf_event refuses it: the fixture is
# always on a CPU, so both give its time.
mode=cpu
if ! out=$("$RECORD" -q --mode cpu -f -o "$TMP/probe.trace" -- true 2>&1); then
	mode=wall
	if ! out2=$("$RECORD" -q --mode wall -f -o "$TMP/probe.trace" -- true 2>&1); then
		skip "annotate" "prof-record cannot record here: $(echo "$out" | head -1); $(echo "$out2" | head -1)"
		exit 0
	fi
fi
perf_why=
if ! have perf; then
	perf_why="perf is not installed"
elif ! have objdump || ! have addr2line; then
	perf_why="perf annotate needs objdump and addr2line (binutils), not installed"
fi
# perf attaches once the fixture runs and records until it exits (perf
# takes a few tenths of a second to start). The fixture does 10000 units
# of work, not a number of seconds: cpu mode's samples, and perf's, count
# the CPU time it gets, which on a loaded machine is a fraction of the
# time that passes (2 s of a loaded machine gave 777 and 594 samples,
# 2.4 s of a quiet one 2200 and 1800).
"$RECORD" -q --mode $mode -F 999 -f -o "$TMP/a.trace" -- "$FIXTURE" -n 10000 > /dev/null 2> "$TMP/rec.err" &
rec=$!
if [ -z "$perf_why" ]; then
	pid=
	for _ in $(seq 100); do pid=$(pgrep -P $rec -x annotate) && break; sleep 0.05; done
	if [ -z "$pid" ]; then
		perf_why="the fixture did not start under prof-record"
	elif ! perf_record -q -N -F 999 -o "$TMP/perf.data" -p "$pid" > /dev/null 2> "$TMP/perf.err"; then
		# Refused (perf_event_paranoid, a container's seccomp) is a
		# skip; any other failure is one.
		if grep -qiE 'permission|paranoid|not supported|operation not permitted' "$TMP/perf.err"; then
			perf_why="perf record refused: $(head -1 "$TMP/perf.err")"
		else
			fail "annotate-perf-recorded" "perf record -p: $(head -2 "$TMP/perf.err" | tr '\n' ' ')"
			perf_why="perf record failed"
		fi
	fi
fi
wait $rec
rc=$?
if [ $rc -ne 0 ]; then
	fail "annotate-recorded" "prof-record exit $rc: $(head -2 "$TMP/rec.err" | tr '\n' ' ')"
	exit 0
fi

# facts JSON...: each annotate --json output flattened, for awk, into
# JSON.facts, one tab-separated fact a line about the function loops:
#   function TOTAL SELF
#   line N TOTAL SELF FILE          each of its lines (FILE's base name)
#   text N TEXT                     where the line has its text (TEXT
#                                   as it is, tabs too)
#   inlined N FUNCTION FILE LINE TOTAL   each inlined entry under line N
#   insn ADDRESS TEXT               each instruction (--asm)
#   insnline ADDRESS LINE           its line (--asm)
#   span FIRST LAST                 the lines the line table spans
#   error MESSAGE                   where it has none of these
# (one python3 for them all: it can take half a second to start).
facts() {
	python3 - "$@" <<'PY'
import json, os, sys
for path in sys.argv[1:]:
    with open(path + ".facts", "w") as out:
        put = lambda *f: out.write("\t".join(str(x).replace("\n", " ") for x in f) + "\n")
        try:
            doc = json.load(open(path))
            fn = [f for f in doc["functions"] if f["name"] == "loops"]
            if not fn:
                put("error", "no function loops among %s" % [f.get("name") for f in doc["functions"]])
                continue
            fn = fn[0]
            put("function", fn["total"], fn["self"])
            for l in fn.get("lines", []):
                put("line", l["line"], l["total"], l["self"], os.path.basename(l["file"]))
                if "text" in l:
                    put("text", l["line"], l["text"])
                for i in l.get("inlined", []):
                    put("inlined", l["line"], i["function"], os.path.basename(i["file"]), i["line"], i["total"])
            for i in fn.get("instructions", []):
                put("insn", i["address"], i["text"])
                put("insnline", i["address"], i["line"])
            src = fn.get("source", {})
            put("span", src.get("first_line"), src.get("last_line"))
        except Exception as e:
            put("error", "%s: %s" % (type(e).__name__, e))
PY
}
# fact KIND FILE [N]: the facts of KIND (of line N), without the kind.
fact() { awk -F'\t' -v k="$1" -v n="${3:-}" '$1 == k && (n == "" || $2 == n) { sub(/^[^\t]*\t/, ""); print }' "$2.facts"; }
# why_not FILE: annotate's exit status and errors, and the facts' error.
why_not() { echo "exit $(cat "$1.rc"): $(head -2 "$1.err" | tr '\n' ' ')$(fact error "$1")"; }

# --- the reports ------------------------------------------------------------
# annotate OUT ARGS...: prof-report annotate --function '^loops$' ARGS on
# the trace, its output in OUT, errors in OUT.err, exit status in OUT.rc.
annotate() {
	local out=$1
	shift
	"$REPORT" annotate --function '^loops$' "$@" "$TMP/a.trace" > "$out" 2> "$out.err"
	echo $? > "$out.rc"
}
annotate "$TMP/a.json" --json
annotate "$TMP/asm.json" --asm --json

# The source tree moved: these reports run in a mount namespace of their
# own where a tmpfs hides the directory the DWARF names (the fixture was
# built from $SRC), and the file is copied to another tree, at the same
# path under it.
old=$(dirname "$SRC")
new=$TMP/moved/tree
mkdir -p "$new/${old#"$PTOP"/}"
cp "$SRC" "$new/${old#"$PTOP"/}/"
moved_why=
if ! have unshare; then
	moved_why="unshare is not installed (util-linux)"
elif ! out=$(unshare -m sh -c 'mount -t tmpfs -o size=64k prof-test "$0" && [ ! -e "$1" ]' "$old" "$SRC" 2>&1); then
	moved_why="cannot hide $old in a mount namespace (unshare -m and a tmpfs, as root): $(echo "$out" | head -1)"
else
	mrun() { # mrun OUT ARGS...: annotate, in the namespace where $old is hidden
		local out=$1
		shift
		unshare -m sh -c 'mount -t tmpfs -o size=64k prof-test "$0" && exec "$@"' "$old" \
			"$REPORT" annotate --function '^loops$' "$@" "$TMP/a.trace" > "$out" 2> "$out.err"
		echo $? > "$out.rc"
	}
	mrun "$TMP/m0.json" --json
	mkdir -p "$TMP/nowhere"
	mrun "$TMP/m0.txt" --source-dir "$TMP/nowhere"
	mrun "$TMP/m1.json" --json --source-dir "$new"
	mrun "$TMP/m2.json" --json --source-map "$PTOP=$new"
	# Archived: a pack with the code and the sources, and neither the
	# sources nor the binary (nor a copy in an image cache) to be found.
	"$REPORT" pack --asm --sources -o "$TMP/a.pack" "$TMP/a.trace" 2> "$TMP/pack.err"
	PROF_IMAGE_CACHE=$TMP/no-cache unshare -m sh -c \
		'mount -t tmpfs -o size=64k prof-test "$0" && mount -t tmpfs -o size=64k prof-test "$1" && shift && exec "$@"' \
		"$old" "$(dirname "$FIXTURE")" "$REPORT" annotate --function '^loops$' --asm --json \
		--pack "$TMP/a.pack" "$TMP/a.trace" > "$TMP/p.json" 2> "$TMP/p.json.err"
	echo $? > "$TMP/p.json.rc"
fi
facts "$TMP/a.json" "$TMP/asm.json" $([ -n "$moved_why" ] || echo "$TMP/m0.json" "$TMP/m1.json" "$TMP/m2.json" "$TMP/p.json")

# --- the documents' schema --------------------------------------------------
if ! python3 -c 'import jsonschema' 2> /dev/null; then
	skip "annotate-json-schema" "python3-jsonschema is not installed (mk/setup.sh installs it)"
elif err=$(python3 - "$TOP/schema/prof-annotate.schema.json" "$TMP/a.json" "$TMP/asm.json" 2>&1 <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
for path in sys.argv[2:]:
    jsonschema.validate(json.load(open(path)), schema, cls=jsonschema.Draft7Validator)
PY
); then
	ok "annotate-json-schema (annotate --json and --asm --json)"
else
	fail "annotate-json-schema" "$(echo "$err" | tail -3 | tr '\n' '|')"
fi

# --- the text view ----------------------------------------------------------
# LOOP_A's line marked hot, mix_step listed under LOOP_B's line, and the
# lines of loops that have no samples and are far from those that do
# folded into one "..." row.
"$REPORT" annotate --function '^loops$' --context 0 "$TMP/a.trace" > "$TMP/a.txt" 2> "$TMP/a.txt.err"
if awk -v la="$LA" -v lb="$LB" '
	$0 ~ "\\* +" la "  " { hot = 1 }
	$0 ~ " " lb "  " { under = NR }
	under && NR == under + 1 && / inlined mix_step \(annotate\.c:[0-9]+\)/ { inl = 1 }
	END { exit !(hot && inl) }' "$TMP/a.txt"; then
	ok "annotate-text (line $LA marked hot, mix_step under line $LB)"
else
	fail "annotate-text" "$(head -12 "$TMP/a.txt" | tr '\n' '|') $(head -2 "$TMP/a.txt.err")"
fi

# --- the loops' shares ------------------------------------------------------
# share FILE N: line N's percent of loops' total samples.
share() {
	awk -F'\t' -v n="$2" '$1 == "function" { t = $2 } $1 == "line" && $2 == n && $5 == "annotate.c" { s += $3 }
		END { if (t) printf "%.1f\n", s * 100 / t; else print "x" }' "$1.facts"
}
pa=$(share "$TMP/a.json" "$LA") pb=$(share "$TMP/a.json" "$LB")
total=$(fact function "$TMP/a.json" | cut -f1)
if [ "$pa" = x ]; then
	fail "annotate-loop-shares" "no figures for loops: $(why_not "$TMP/a.json")"
elif awk -v a="$pa" -v b="$pb" -v n="$total" 'BEGIN { d = a - 75; e = b - 25
	exit !(n >= 800 && d <= 5 && d >= -5 && e <= 5 && e >= -5) }'; then
	ok "annotate-loop-shares (lines $LA and $LB: $pa% and $pb% of $total samples)"
else
	fail "annotate-loop-shares" "lines $LA and $LB: $pa% and $pb% of $total samples (want 75 and 25 +- 5 of >= 800)"
fi

# --- perf annotate's figures ------------------------------------------------
# perf annotate --stdio -l begins its output for the symbol with "Sorted
# summary for file BINARY": a line "PERCENT FILE:LINE" for each source
# line, in percent of the symbol's samples, each line the innermost one
# addr2line gives (mix_step's code is at mix_step's lines); it leaves out
# instructions of 0.5% or less. Then the listing, whose header says how
# many samples: "Percent | Source code & Disassembly of annotate for
# cpu-clock:ppp (N samples, ...". perf_lines prints "LINE PERCENT" for
# annotate.c's lines, and "samples N".
perf_lines() {
	perf annotate -i "$1" --stdio -l -s loops 2> /dev/null | awk '
		/^Sorted summary for file / { on = 1; next }
		/Source code & Disassembly of / { on = 0
			if (match($0, /\([0-9]+ samples/)) print "samples", substr($0, RSTART + 1, RLENGTH - 9) + 0 }
		on && $1 ~ /^[0-9.]+$/ && $2 ~ /^annotate\.c:[0-9]+$/ { sub(/^annotate\.c:/, "", $2); print $2, $1 }'
}
if [ -n "$perf_why" ]; then
	skip "annotate-perf-agrees" "$perf_why"
else
	perf_lines "$TMP/perf.data" > "$TMP/perf.lines"
	read -r fa fb fo fn < <(awk -v la="$LA" -v lb="$LB" -v h0="$H0" -v h1="$H1" '
		$1 == "samples" { n = $2; next }
		{ if ($1 == la) a += $2; else if ($1 == lb || ($1 >= h0 && $1 <= h1)) b += $2; else o += $2 }
		END { printf "%.1f %.1f %.1f %d\n", a, b, o, n }' "$TMP/perf.lines")
	figures="perf: lines $LA and $LB (with mix_step's, $H0-$H1) $fa% and $fb% of $fn samples, other lines $fo%"
	if [ "$pa" = x ]; then
		fail "annotate-perf-agrees" "$figures; prof: none"
	elif awk -v a="$pa" -v b="$pb" -v c="$fa" -v d="$fb" -v n="$fn" 'BEGIN { x = a - c; y = b - d
		exit !(n >= 500 && x <= 5 && x >= -5 && y <= 5 && y >= -5) }'; then
		ok "annotate-perf-agrees ($figures; prof $pa% and $pb%)"
	else
		fail "annotate-perf-agrees" "$figures; prof $pa% and $pb% (want within 5 points, of >= 500 perf samples)"
	fi
fi

# --- the instructions -------------------------------------------------------
if ! have llvm-objdump || ! have readelf; then
	skip "annotate-asm-objdump" "llvm-objdump (Debian package llvm) or readelf (binutils) is not installed"
else
	objdump_listing "$FIXTURE" loops | asm_norm x86_64 > "$TMP/asm.want"
	fact insn "$TMP/asm.json" | asm_norm x86_64 > "$TMP/asm.got"
	range=$(symbol_range "$FIXTURE" loops)
	if [ ! -s "$TMP/asm.got" ]; then
		fail "annotate-asm-objdump" "no instructions: $(why_not "$TMP/asm.json")"
	elif [ -z "$range" ] || [ ! -s "$TMP/asm.want" ]; then
		fail "annotate-asm-objdump" "no loops in $FIXTURE for llvm-objdump and readelf: range '$range'"
	elif diffs=$(asm_compare "$TMP/asm.want" "$TMP/asm.got" $range); then
		ok "annotate-asm-objdump ($(wc -l < "$TMP/asm.got") instructions of loops, 0x${range% *}-0x${range#* }, as llvm-objdump's)"
	else
		fail "annotate-asm-objdump" "$(echo "$diffs" | head -6 | tr '\n' ' ')"
	fi
fi

# --- inlined code under its call site ---------------------------------------
# mix_step under LOOP_B's line, at a line of its body, with samples, no
# more than the line's; and no line of loops in mix_step's body.
lbt=$(fact line "$TMP/a.json" "$LB" | awk -F'\t' '$4 == "annotate.c" { print $2 }')
inl=$(fact inlined "$TMP/a.json" "$LB" | awk -F'\t' -v h0="$H0" -v h1="$H1" -v t="${lbt:-0}" '
	$2 == "mix_step" && $3 == "annotate.c" && $4 >= h0 && $4 <= h1 && $5 > 0 && $5 <= t { n += $5 } END { print n + 0 }')
stray=$(fact line "$TMP/a.json" | awk -F'\t' -v h0="$H0" -v h1="$H1" '$4 == "annotate.c" && $1 >= h0 && $1 <= h1 { print $1 }' | tr '\n' ' ')
if [ "$inl" -gt 0 ] && [ -z "$stray" ]; then
	ok "annotate-inlined-under-call-site (mix_step: $inl of line $LB's $lbt samples)"
else
	fail "annotate-inlined-under-call-site" "want mix_step at lines $H0-$H1 under line $LB ($lbt samples), with samples: inlined under it: $(fact inlined "$TMP/a.json" "$LB" | tr '\t\n' ' ;'); lines of loops in mix_step's body: '$stray' $(fact error "$TMP/a.json")"
fi

# --- the source tree moved --------------------------------------------------
if [ -n "$moved_why" ]; then
	skip "annotate-source-moved" "$moved_why"
else
	want_a=$(sed -n "${LA}p" "$SRC")
	want_b=$(sed -n "${LB}p" "$SRC")
	text() { fact text "$1" "$2" | cut -f2-; } # text FILE N: line N's text
	text_ok() { [ "$(text "$1" "$LA")" = "$want_a" ] && [ "$(text "$1" "$LB")" = "$want_b" ]; }
	# Not found, the lines are there without text, and the text report
	# (with --source-dir on an empty directory) names the paths it
	# tried: the DWARF's, and one under that directory.
	lines0=$(fact line "$TMP/m0.json" | wc -l)
	if [ "$lines0" -gt 0 ] && [ -z "$(fact text "$TMP/m0.json")" ] &&
	   cat "$TMP/m0.txt" "$TMP/m0.txt.err" | grep -qF "$SRC" && cat "$TMP/m0.txt" "$TMP/m0.txt.err" | grep -qF "$TMP/nowhere/"; then
		ok "annotate-source-moved-missing ($lines0 lines without text; $SRC and a path under --source-dir named as tried)"
	else
		fail "annotate-source-moved-missing" "$lines0 lines, $(fact text "$TMP/m0.json" | wc -l) with text (want none); $SRC named $(cat "$TMP/m0.txt" "$TMP/m0.txt.err" | grep -cF "$SRC") times, $TMP/nowhere/... $(cat "$TMP/m0.txt" "$TMP/m0.txt.err" | grep -cF "$TMP/nowhere/") (want both); $(why_not "$TMP/m0.json") $(head -2 "$TMP/m0.txt.err" | tr '\n' ' ')"
	fi
	for m in "1 source-dir" "2 source-map"; do
		set -- $m
		if text_ok "$TMP/m$1.json"; then
			ok "annotate-source-moved-$2 (lines $LA and $LB read from the moved tree)"
		else
			fail "annotate-source-moved-$2" "line $LA: '$(text "$TMP/m$1.json" "$LA")'; $(why_not "$TMP/m$1.json")"
		fi
	done
	# From the pack alone: the lines' text and the instructions as
	# they were with the files.
	if text_ok "$TMP/p.json" && [ -s "$TMP/asm.json.facts" ] &&
	   cmp -s <(fact insn "$TMP/asm.json") <(fact insn "$TMP/p.json") && [ -n "$(fact insn "$TMP/p.json")" ] &&
	   cmp -s <(fact insnline "$TMP/asm.json") <(fact insnline "$TMP/p.json") &&
	   [ "$(fact span "$TMP/asm.json")" = "$(fact span "$TMP/p.json")" ]; then
		ok "annotate-from-pack (lines $LA and $LB, $(fact insn "$TMP/p.json" | wc -l) instructions and their lines, the span $(fact span "$TMP/p.json" | tr '\t' -), with the sources and the binary hidden)"
	else
		fail "annotate-from-pack" "line $LA: '$(text "$TMP/p.json" "$LA")', $(fact insn "$TMP/p.json" | wc -l) instructions (with the files: $(fact insn "$TMP/asm.json" | wc -l)); $(why_not "$TMP/p.json") $(head -2 "$TMP/pack.err" | tr '\n' ' ')"
	fi
fi

# --- sources that are not the build's ---------------------------------------
# clang's DWARF 5 gives each file's MD5: a copy of inline.c with a line
# added at its top differs, so the original is shown where it is found
# (the copy named as tried), and the copy, with a warning, where it is
# hidden. GCC's gives none: a copy of annotate.c cut short of its loops
# is shown with a warning, its lines past the end without text.
CLANG5=$FIX/dwarf/clang-dwarf5
if [ ! -x "$CLANG5" ]; then
	skip "annotate-source-md5" "no $CLANG5: $(cat "$CLANG5.skipped" 2> /dev/null || echo "make fixtures")"
elif ! "$RECORD" -q --mode $mode -F 999 -f -o "$TMP/c.trace" -- "$CLANG5" 0.5 > /dev/null 2> "$TMP/c.err"; then
	fail "annotate-source-md5" "prof-record: $(head -2 "$TMP/c.err" | tr '\n' ' ')"
else
	mkdir -p "$TMP/changed/testdata"
	{ echo "/* changed */"; cat "$PTOP/testdata/inline.c"; } > "$TMP/changed/testdata/inline.c"
	"$REPORT" annotate --limit 1 --json --source-map "$PTOP=$TMP/changed" "$TMP/c.trace" > "$TMP/c.json" 2> "$TMP/c.json.err"
	if python3 - "$TMP/c.json" "$PTOP/testdata/inline.c" "$TMP/changed/testdata/inline.c" <<'PY'
import json, sys
src = json.load(open(sys.argv[1]))["functions"][0]["source"]
tried = {t["path"]: t["why"] for t in src["tried"]}
assert src["path"] == sys.argv[2] and src["match"] == "md5", src
assert tried[sys.argv[3]] == "its MD5 is not the build's", tried
PY
	then
		ok "annotate-source-md5-matches (the build's file chosen over a changed copy the map names first)"
	else
		fail "annotate-source-md5-matches" "$(head -c 600 "$TMP/c.json") $(head -2 "$TMP/c.json.err")"
	fi
	if [ -n "$moved_why" ]; then
		skip "annotate-source-md5-differs" "$moved_why"
	else
		unshare -m sh -c 'mount -t tmpfs -o size=64k prof-test "$0" && exec "$@"' "$old" \
			"$REPORT" annotate --limit 1 --source-map "$PTOP=$TMP/changed" "$TMP/c.trace" > "$TMP/c.txt" 2> "$TMP/c.txt.err"
		if grep -qF "the source \"$TMP/changed/testdata/inline.c\" does not match the build (its MD5" "$TMP/c.txt.err" &&
		   grep -q '^  source .*(does not match the build)$' "$TMP/c.txt"; then
			ok "annotate-source-md5-differs (the changed copy shown, with a warning, where the build's is hidden)"
		else
			fail "annotate-source-md5-differs" "$(head -3 "$TMP/c.txt" | tr '\n' '|') $(head -2 "$TMP/c.txt.err" | tr '\n' ' ')"
		fi
	fi
fi
mkdir -p "$TMP/short/testdata"
head -n $((LA - 2)) "$SRC" > "$TMP/short/testdata/annotate.c"
"$REPORT" annotate --function '^loops$' --json --source-map "$PTOP=$TMP/short" "$TMP/a.trace" > "$TMP/s.json" 2> "$TMP/s.json.err"
echo $? > "$TMP/s.json.rc"
facts "$TMP/s.json"
if grep -qF "the source \"$TMP/short/testdata/annotate.c\" has $((LA - 2)) lines, but the line table names line" "$TMP/s.json.err" &&
   [ -n "$(fact line "$TMP/s.json" "$LA")" ] && [ -z "$(fact text "$TMP/s.json" "$LA")" ]; then
	ok "annotate-source-shorter (line $LA past the end of a copy of $((LA - 2)) lines: no text, a warning)"
else
	fail "annotate-source-shorter" "$(why_not "$TMP/s.json")"
fi

# --- hostile sources --------------------------------------------------------
# The same file with CRLF line ends (read as the lines), with LOOP_A's
# line 100 KB long and an escape byte in it (cut at 512 bytes in the text
# view, the rest counted; the escape shown as \x1b), and with a NUL byte
# (a binary file, refused and named, for the file at the DWARF's path).
hostile() { # hostile NAME: writes $TMP/NAME/testdata/annotate.c
	mkdir -p "$TMP/$1/testdata"
	case $1 in
	crlf) sed 's/$/\r/' "$SRC" ;;
	huge) head -n $((LA - 1)) "$SRC"; printf '\033'; head -c 100000 /dev/zero | tr '\0' x; echo
	      tail -n +$((LA + 1)) "$SRC" ;;
	binary) { head -n 5 "$SRC"; printf 'a\0b\n'; tail -n +6 "$SRC"; } ;;
	esac > "$TMP/$1/testdata/annotate.c"
}
for h in crlf huge binary; do hostile $h; done
"$REPORT" annotate --function '^loops$' --json --source-map "$PTOP=$TMP/crlf" "$TMP/a.trace" > "$TMP/h1.json" 2> "$TMP/h1.json.err"
"$REPORT" annotate --function '^loops$' --source-map "$PTOP=$TMP/huge" "$TMP/a.trace" > "$TMP/h2.txt" 2> "$TMP/h2.txt.err"
"$REPORT" annotate --function '^loops$' --json --source-map "$PTOP=$TMP/binary" "$TMP/a.trace" > "$TMP/h3.json" 2> "$TMP/h3.json.err"
echo 0 > "$TMP/h1.json.rc"
echo 0 > "$TMP/h3.json.rc"
facts "$TMP/h1.json" "$TMP/h3.json"
if [ "$(fact text "$TMP/h1.json" "$LA" | cut -f2-)" = "$(sed -n "${LA}p" "$SRC")" ]; then
	ok "annotate-source-crlf (line $LA read without its carriage return)"
else
	fail "annotate-source-crlf" "line $LA: '$(fact text "$TMP/h1.json" "$LA" | cut -f2- | od -c | head -2 | tr '\n' ' ')'"
fi
hl=$(awk -v la="$LA" '$0 ~ "^ .* " la "  " { print; exit }' "$TMP/h2.txt")
if [ -n "$hl" ] && [ "${#hl}" -lt 700 ] && echo "$hl" | grep -qF '\x1bxxx' &&
   echo "$hl" | grep -q "\[99489 bytes more\]$"; then
	ok "annotate-source-huge-line (a line of 100001 bytes cut to 512, the rest counted, the escape shown)"
else
	fail "annotate-source-huge-line" "${#hl} bytes: '$(echo "$hl" | cut -c1-120)...$(echo "$hl" | tail -c 40)'"
fi
if python3 - "$TMP/h3.json" "$TMP/binary/testdata/annotate.c" "$SRC" <<'PY'
import json, sys
src = json.load(open(sys.argv[1]))["functions"][0]["source"]
t = {x["path"]: x["why"] for x in src["tried"]}
assert t[sys.argv[2]] == "a binary file (a NUL byte in its first 64 KiB)", t
assert src["path"] == sys.argv[3], src
PY
then
	ok "annotate-source-binary (a file with a NUL byte refused, and named so; the next candidate used)"
else
	fail "annotate-source-binary" "$(head -c 400 "$TMP/h3.json") $(why_not "$TMP/h3.json")"
fi
exit 0
