#!/usr/bin/env bash
# End-to-end: prof-report export, read back by tools we did not write.
#
# pprof: go tool pprof must read the export and agree exactly with
# prof-report's own views of the same trace: -top's flat and cum counts
# with top's self and total, -traces (made into folded stacks) with folded,
# -tags with the per-thread counts; on the committed synthetic trace
# testdata/golden/tables.trace (exact counts, hostile thread names), on a
# recording of testdata/split.c (75%/25%) and of testdata/inline.c (inline
# chains as several lines). -raw shows the mapping's build-id and the line
# info. protoc --decode_raw of the export is compared with a golden file.
#
# speedscope: the export passes the file format's schema
# (tests/e2e/speedscope_schema.mjs) and says what folded says, hostile
# names included; the browser test (tests/browser/speedscope.mjs) opens it
# in the speedscope package in headless Chromium.
#
# To regenerate the golden files after an intended change of format:
#   GOLDEN_UPDATE=1 bash tests/e2e/test_export.sh
. "$(dirname "$0")/lib.sh"

G=$TOP/testdata/golden
TR=$G/tables.trace
UPDATE=${GOLDEN_UPDATE:-}
SYNTH=$BUILD/tests/tools/synth_trace
PLAYWRIGHT_DIR=${PLAYWRIGHT_DIR:-$TOP/build/node}
SPEEDSCOPE=$PLAYWRIGHT_DIR/node_modules/speedscope/dist/release
CHROMIUM=${CHROMIUM:-$(command -v chromium || echo /usr/bin/chromium)}
export PLAYWRIGHT_DIR CHROMIUM
have() { command -v "$1" > /dev/null 2>&1; }

# --- the command line ------------------------------------------------------
# expect_usage NAME STATUS PATTERN ARGS...: prof-report ARGS exits STATUS
# and says PATTERN on stderr.
expect_usage() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$REPORT" "$@" > "$TMP/out" 2> "$TMP/err" < /dev/null; rc=$?
	if [ $rc = "$want" ] && grep -q -- "$pat" "$TMP/err"; then ok "$name"
	else fail "$name" "exit $rc: $(head -2 "$TMP/err")"; fi
}
expect_usage export-no-format 2 "missing option '--format FORMAT': pprof or speedscope" export "$TR"
expect_usage export-bad-format 2 "option '--format': 'svg' is not pprof or speedscope" export --format svg "$TR"
expect_usage export-no-thread-frames 2 "prof-report export: unknown option '--thread-frames'" export --format pprof --thread-frames "$TR"
expect_usage export-pprof-no-lines 2 "'--lines' does not apply to pprof" export --format pprof --lines "$TR"
expect_usage export-missing-trace 1 "cannot read '$TMP/none.trace'" export --format pprof "$TMP/none.trace" -o "$TMP/x"
expect_usage export-unwritable-output 1 "cannot create '$TMP/no/dir/x.pb.gz'" export --format pprof "$TR" -o "$TMP/no/dir/x.pb.gz"
"$REPORT" export -h | grep -q '^usage: prof-report export --format FORMAT' && ok "export-help" \
	|| fail "export-help" "no usage line"

# Standard output: '-o -' and no -o write what -o FILE writes; pprof data
# is not written to a terminal.
"$REPORT" export --format pprof "$TR" -o "$TMP/t.pb.gz"
"$REPORT" export --format pprof "$TR" -o - > "$TMP/t-dash.pb.gz"
"$REPORT" export --format pprof "$TR" | cat > "$TMP/t-pipe.pb.gz"
cmp -s "$TMP/t.pb.gz" "$TMP/t-dash.pb.gz" && cmp -s "$TMP/t.pb.gz" "$TMP/t-pipe.pb.gz" \
	&& ok "export-stdout-same-bytes" || fail "export-stdout-same-bytes" "-o -, a pipe and -o FILE differ"
if have script; then
	out=$(script -qec "'$REPORT' export --format pprof '$TR'; echo \"status \$?\"" /dev/null 2>&1)
	case $out in
	*"not writing binary pprof data to a terminal; use -o FILE or a pipe"*"status 1"*) ok "export-pprof-not-to-terminal" ;;
	*) fail "export-pprof-not-to-terminal" "$(echo "$out" | head -3)" ;;
	esac
else
	skip "export-pprof-not-to-terminal" "no script(1) to give prof-report a terminal"
fi

# --- determinism and golden files ----------------------------------------
"$REPORT" export --format pprof "$TR" -o "$TMP/t2.pb.gz"
hdr=$(od -An -tx1 -N10 "$TMP/t.pb.gz" | tr -d ' \n')
# gzip magic, deflate, no flags (no name), mtime 0, maximum compression, OS unknown
if cmp -s "$TMP/t.pb.gz" "$TMP/t2.pb.gz" && [ "$hdr" = 1f8b08000000000002ff ]; then
	ok "export-pprof-deterministic"
else
	fail "export-pprof-deterministic" "two exports differ, or the gzip header is $hdr"
fi

# golden FILE TEXT-FILE: TEXT-FILE must equal testdata/golden/export/FILE.
mkdir -p "$G/export"
golden() {
	if [ -n "$UPDATE" ]; then
		cp "$2" "$G/export/$1"
		ok "export-golden-$1 (updated)"
	elif cmp -s "$2" "$G/export/$1"; then
		ok "export-golden-$1"
	else
		fail "export-golden-$1" "differs from testdata/golden/export/$1: $(diff "$G/export/$1" "$2" | head -6 | tr '\n' '|')"
	fi
}
if have protoc; then
	gzip -dc "$TMP/t.pb.gz" | protoc --decode_raw > "$TMP/tables.pprof.txt"
	golden tables.pprof.txt "$TMP/tables.pprof.txt"
else
	skip "export-golden-tables.pprof.txt" "protoc is not installed (Debian protobuf-compiler)"
fi
"$REPORT" export --format speedscope "$TR" -o "$TMP/tables.speedscope.json"
golden tables.speedscope.json "$TMP/tables.speedscope.json"

# --- go tool pprof reads it ----------------------------------------------
# Frames of folded output without the root: what pprof shows.
strip_root() { grep ';' "$1" | sed 's/^[^;]*;//' | awk '{ n = $NF; sub(/ [0-9]+$/, ""); c[$0] += n } END { for (s in c) print s " " c[s] }' | sort; }
# pprof -traces as folded stacks, root first, summed.
pprof_folded() {
	go tool pprof -traces -sample_index=samples -symbolize=none "$@" 2> /dev/null | awk '
		/^-----------\+/ { flush(); next }
		/^ +[0-9]+ +[^ ]/ && n == 0 && !/:  / { count = $1; sub(/^ +[0-9]+ +/, ""); f[n++] = $0; next }
		n > 0 { sub(/^ +/, ""); f[n++] = $0 }
		function flush(  s, i) { if (n) { s = ""; for (i = n - 1; i >= 0; i--) { sub(/ \(inline\)$/, "", f[i]); s = s (s == "" ? "" : ";") f[i] } c[s] += count } n = 0 }
		END { flush(); for (s in c) print s " " c[s] }' | sort
}
# pprof -top as "NAME FLAT CUM", and prof-report top as "NAME SELF TOTAL".
# pprof marks a function inlined everywhere "(inline)", and one inlined at
# some of its places and not at others "(partial-inline)": the inline
# fixture's fixture_now_ns when samples fall both in the copy inlined
# into run's loop (5 runs of 12) and in its own, which main calls at its
# start and end (none of those 12; once in a sanitized suite's run).
# Each address of anonymous memory that nothing names is a function of
# its own in pprof, as the export names it, and all of them one row,
# [anon], in top: pprof's are summed into one, which is top's row where
# no stack has two of them, as in the traces here.
pprof_top() {
	go tool pprof -top -sample_index=samples -symbolize=none -nodecount=100000 -nodefraction=0 "$@" 2> /dev/null \
		| awk 'f && NF >= 6 { name = $6; for (i = 7; i <= NF; i++) name = name " " $i; sub(/ \((partial-)?inline\)$/, "", name)
			if (name ~ /^(\[unknown\]|anon)\+0x[0-9a-f]+$/) { af += $1; ac += $4; a = 1 } else print name, $1, $4 }
			/flat%/ { f = 1 } END { if (a) print "[anon]", af, ac }' | sort
}
report_top() { "$REPORT" top "$@" | awk 'NF >= 5 && $1 ~ /^[0-9.]+%$/ { name = $5; for (i = 6; i <= NF; i++) name = name " " $i; print name, $3, $4 }' | sort; }
# Samples per tid, from folded --thread-frames ("NAME [TID]" under the
# root), of the stacks with a frame (pprof -tags leaves out empty ones).
tid_counts() { "$REPORT" folded --thread-frames "$@" | awk -F';' 'NF >= 3 { n = $NF; sub(/.* /, "", n); t = $2; sub(/.*\[/, "", t); sub(/\].*/, "", t); c[t] += n } END { for (t in c) print t, c[t] }' | sort; }
pprof_tids() {
	go tool pprof -tags -symbolize=none -sample_index=samples "$@" 2> /dev/null | awk '
		/^ *tid:/ { f = 1; next } /^ *[a-z]+:/ { f = 0 }
		f && /%\): / { v = $0; sub(/.*%\): /, "", v); print v, int($1) }' | sort
}

# agree NAME PB TRACE [OPTIONS]: pprof's top, traces and tags of PB are
# prof-report's top, folded and per-thread counts of TRACE with OPTIONS.
agree() {
	local name=$1 pb=$2 tr=$3
	shift 3
	pprof_top "$pb" > "$TMP/$name.ptop"; report_top "$@" "$tr" > "$TMP/$name.rtop"
	if [ -s "$TMP/$name.rtop" ] && cmp -s "$TMP/$name.ptop" "$TMP/$name.rtop"; then
		ok "$name-top ($(wc -l < "$TMP/$name.rtop") functions, flat and cum as top's self and total)"
	else
		fail "$name-top" "pprof -top and top differ: $(diff "$TMP/$name.rtop" "$TMP/$name.ptop" | head -4 | tr '\n' '|')"
	fi
	pprof_folded "$pb" > "$TMP/$name.pfold"; "$REPORT" folded "$@" "$tr" > "$TMP/$name.folded"
	strip_root "$TMP/$name.folded" > "$TMP/$name.rfold"
	if [ -s "$TMP/$name.rfold" ] && cmp -s "$TMP/$name.pfold" "$TMP/$name.rfold"; then
		ok "$name-traces ($(wc -l < "$TMP/$name.rfold") stacks as folded says)"
	else
		fail "$name-traces" "pprof -traces and folded differ: $(diff "$TMP/$name.rfold" "$TMP/$name.pfold" | head -4 | tr '\n' '|')"
	fi
	pprof_tids "$pb" > "$TMP/$name.ptid"; tid_counts "$@" "$tr" > "$TMP/$name.rtid"
	if [ -s "$TMP/$name.rtid" ] && cmp -s "$TMP/$name.ptid" "$TMP/$name.rtid"; then
		ok "$name-tags ($(wc -l < "$TMP/$name.rtid") threads' tid labels)"
	else
		fail "$name-tags" "pprof -tags and the per-thread counts differ: $(diff "$TMP/$name.rtid" "$TMP/$name.ptid" | head -4 | tr '\n' '|')"
	fi
}

if ! have go; then
	skip "export-pprof-go" "go is not installed (Debian golang-go), so go tool pprof cannot read the export"
else
	agree export-pprof-synthetic "$TMP/t.pb.gz" "$TR"
	"$REPORT" export --format pprof --focus 'libg' --exclude '0x600$' "$TR" -o "$TMP/f.pb.gz"
	agree export-pprof-focus-exclude "$TMP/f.pb.gz" "$TR" --focus 'libg' --exclude '0x600$'
	"$REPORT" export --format pprof --tid 101 --state running "$TR" -o "$TMP/tid.pb.gz"
	agree export-pprof-tid-state "$TMP/tid.pb.gz" "$TR" --tid 101 --state running
	# Thread names and states as labels, hostile names included.
	go tool pprof -tags -symbolize=none -sample_index=samples "$TMP/t.pb.gz" > "$TMP/tags" 2> /dev/null
	if grep -qF "): <b>&\"x'" "$TMP/tags" \
		&& grep -qF '): ../../x' "$TMP/tags" && grep -q '^ *state: Total' "$TMP/tags" \
		&& grep -q '): sleeping' "$TMP/tags"; then
		ok "export-pprof-thread-and-state-labels"
	else
		fail "export-pprof-thread-and-state-labels" "$(head -12 "$TMP/tags" | tr '\n' '|')"
	fi
fi

# Hand-built traces: without the tool that writes them, said once here.
# (Without go, export-pprof-go above has said so for every pprof case.)
[ -x "$SYNTH" ] || skip "export-synthetic" "no synth_trace tool in $BUILD/tests/tools (make builds it)"

# An export of no samples is still read; a Mach-O UUID is the build-id.
if have go && [ -x "$SYNTH" ]; then
	"$REPORT" export --format pprof --tid 999 "$TR" -o "$TMP/empty.pb.gz"
	go tool pprof -top "$TMP/empty.pb.gz" 2> /dev/null | grep -q 'Total samples = 0' && ok "export-pprof-empty" \
		|| fail "export-pprof-empty" "$(go tool pprof -top "$TMP/empty.pb.gz" 2>&1 | head -3)"
	"$SYNTH" -o "$TMP/mac.trace" --os macos --arch arm64 --command App \
		--image "KIND=uuid,IDENT=0123abcd-4567-89ef-0123-456789abcdef,PATH=/Applications/App.app/Contents/MacOS/App,START=0x100004000,SIZE=0x8000,BIAS=0x4000" \
		--thread TID=1,NAME=main --sample TID=1,STACK=0x100004010
	"$REPORT" export --format pprof "$TMP/mac.trace" -o "$TMP/mac.pb.gz"
	go tool pprof -raw -symbolize=none "$TMP/mac.pb.gz" 2> /dev/null \
		| grep -q '^1: 0x100004000/0x10000c000/0x0 /Applications/App.app/Contents/MacOS/App 0123abcd456789ef0123456789abcdef *$' \
		&& ok "export-pprof-macho-uuid-mapping" \
		|| fail "export-pprof-macho-uuid-mapping" "$(go tool pprof -raw -symbolize=none "$TMP/mac.pb.gz" 2>&1 | grep -A1 '^Mappings' | tr '\n' '|')"
fi
# Ticks in the kernel: a [kernel] frame above the user leaf, or alone.
if [ -x "$SYNTH" ]; then
	"$SYNTH" -o "$TMP/kernel.trace" --os linux --arch x86_64 --sampler perf --kernel sampled \
		--image KIND=none,PATH=/nonexistent/app,START=0x400000,SIZE=0x10000,BIAS=0x400000 \
		--thread TID=1,NAME=main --sample TID=1,STACK=0x401100:0x401000 --count 3 \
		--sample TID=1,KERNEL=1,STACK=0x401100:0x401000 --count 2 --sample TID=1,KERNEL=1
	"$REPORT" export --format speedscope "$TMP/kernel.trace" -o "$TMP/kernel.speedscope.json"
	if have go; then
		"$REPORT" export --format pprof "$TMP/kernel.trace" -o "$TMP/kernel.pb.gz"
		agree export-pprof-kernel "$TMP/kernel.pb.gz" "$TMP/kernel.trace"
	fi
fi

# --- recordings ----------------------------------------------------------
recorded=
if ! why=$(ptrace_ok); then
	skip "export-recorded" "$why"
elif ! "$RECORD" -q -o "$TMP/split.trace" -- "$FIX/split" 1 > /dev/null 2>&1 \
	|| ! "$RECORD" -q -o "$TMP/inline.trace" -- "$FIX/inline" 1 > /dev/null 2>&1; then
	fail "export-recorded" "prof-record failed on split or inline"
else
	recorded=1
	"$REPORT" export --format pprof "$TMP/split.trace" -o "$TMP/split.pb.gz"
	"$REPORT" export --format pprof "$TMP/inline.trace" -o "$TMP/inline.pb.gz"
fi
if [ -n "$recorded" ] && have go; then
	agree export-pprof-split "$TMP/split.pb.gz" "$TMP/split.trace"
	agree export-pprof-inline "$TMP/inline.pb.gz" "$TMP/inline.trace"
	"$REPORT" export --format pprof --no-inline "$TMP/inline.trace" -o "$TMP/inline-ni.pb.gz"
	agree export-pprof-no-inline "$TMP/inline-ni.pb.gz" "$TMP/inline.trace" --no-inline
	# The 75/25 split, as pprof computes it from the export.
	a=$(awk '$1 == "path_a" { print $3 }' "$TMP/export-pprof-split.ptop")
	b=$(awk '$1 == "path_b" { print $3 }' "$TMP/export-pprof-split.ptop")
	if [ -n "$a" ] && [ -n "$b" ] && [ $((a * 100 / (a + b))) -ge 65 ] && [ $((a * 100 / (a + b))) -le 85 ]; then
		ok "export-pprof-split-75-25 (path_a $a, path_b $b samples)"
	else
		fail "export-pprof-split-75-25" "path_a '$a', path_b '$b'"
	fi
	grep -q '(inline)' <(go tool pprof -traces "$TMP/inline.pb.gz" 2> /dev/null) && ok "export-pprof-inline-lines" \
		|| fail "export-pprof-inline-lines" "no inline frame in go tool pprof -traces"
	# -raw: the mapping of split with its build-id, as readelf reads it,
	# and symbolized; path_a's location with its file and line.
	go tool pprof -raw "$TMP/split.pb.gz" > "$TMP/split.raw" 2> /dev/null
	id=$(readelf -n "$FIX/split" | awk '/Build ID/ { print $3 }')
	if [ -n "$id" ] && grep -qE "^1: 0x[0-9a-f]+/0x[0-9a-f]+/0x0 $FIX/split $id \[FN\]\[FL\]\[LN\]" "$TMP/split.raw" \
		&& grep -qE "M=1 path_a $TOP/testdata/split.c:[0-9]+ " "$TMP/split.raw" \
		&& grep -q '^PeriodType: cpu nanoseconds\|^PeriodType: wall nanoseconds' "$TMP/split.raw"; then
		ok "export-pprof-raw-mapping-and-lines"
	else
		fail "export-pprof-raw-mapping-and-lines" "build-id '$id': $(grep -A2 '^Mappings' "$TMP/split.raw" | tr '\n' '|')"
	fi
fi

# --- speedscope ----------------------------------------------------------
if ! have node; then
	skip "export-speedscope" "node is not installed"
else
	published=
	[ -f "$SPEEDSCOPE/file-format-schema.json" ] && published=$SPEEDSCOPE/file-format-schema.json
	[ -n "$published" ] || skip "export-speedscope-schema-published" "no speedscope package in $PLAYWRIGHT_DIR: the schema copy is not compared with the published one"
	# schema NAME FILE: FILE passes the schema check.
	schema() {
		local out
		if out=$(node "$TOP/tests/e2e/speedscope_schema.mjs" "$2" $published 2>&1); then ok "$1"
		else fail "$1" "$(echo "$out" | head -3 | tr '\n' '|')"; fi
	}
	schema export-speedscope-schema-synthetic "$TMP/tables.speedscope.json"
	"$REPORT" export --format speedscope --tid 999 "$TR" -o "$TMP/empty.json"
	schema export-speedscope-schema-empty "$TMP/empty.json"
	# as_folded NAME JSON TRACE RATE: JSON says what folded says of
	# TRACE: per thread (profile name "NAME [TID]"), the same stacks with
	# the same counts (the weights divided by the period).
	as_folded() {
		node -e '
			const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
			const f = d.shared.frames, c = {};
			for (const p of d.profiles) {
				const per = p.unit === "nanoseconds" ? Math.round(1e9 / Number(process.argv[2])) : 1;
				p.samples.forEach((s, i) => {
					const k = [p.name, ...s.map((x) => f[x].name)].map((n) => n.replace(/;/g, "\\x3b")).join(";");
					c[k] = (c[k] || 0) + p.weights[i] / per;
				});
			}
			for (const k of Object.keys(c).sort()) console.log(k + " " + c[k]);' "$2" "$4" \
			> "$TMP/ss.folded"
		"$REPORT" folded --thread-frames "$3" | sed 's/^[^;]*;//' | sort > "$TMP/ss.want"
		LC_ALL=C sort "$TMP/ss.folded" > "$TMP/ss.got"; LC_ALL=C sort "$TMP/ss.want" > "$TMP/ss.want2"
		cmp -s "$TMP/ss.got" "$TMP/ss.want2" && ok "$1 ($(wc -l < "$TMP/ss.want2") thread stacks)" \
			|| fail "$1" "$(diff "$TMP/ss.want2" "$TMP/ss.got" | head -4 | tr '\n' '|')"
	}
	as_folded export-speedscope-as-folded "$TMP/tables.speedscope.json" "$TR" 1000
	[ -x "$SYNTH" ] && as_folded export-speedscope-kernel-as-folded "$TMP/kernel.speedscope.json" \
		"$TMP/kernel.trace" 1000
	# --lines: a frame per line, with its line field.
	"$REPORT" export --format speedscope --lines "$TR" -o "$TMP/lines.json"
	schema export-speedscope-schema-lines "$TMP/lines.json"
	# A thread name with a control byte, invalid UTF-8, quotes and markup.
	if [ -x "$SYNTH" ]; then
		"$SYNTH" -o "$TMP/hostile.trace" --os linux --arch x86_64 --command hostile \
			--image KIND=none,PATH=/nonexistent/app,START=0x400000,SIZE=0x10000,BIAS=0x400000 \
			--thread $'TID=7,NAME=t\x01\xff"</script>\\' --sample TID=7,STACK=0x401000 --count 3
		"$REPORT" export --format speedscope "$TMP/hostile.trace" -o "$TMP/hostile.json"
		schema export-speedscope-schema-hostile "$TMP/hostile.json"
		name=$(node -e 'console.log(JSON.stringify(JSON.parse(require("fs").readFileSync(process.argv[1])).profiles[0].name))' "$TMP/hostile.json")
		[ "$name" = '"t\u0001\\xff\"</script>\\ [7]"' ] && ok "export-speedscope-hostile-name" \
			|| fail "export-speedscope-hostile-name" "decodes as $name"
	else
		skip "export-speedscope-hostile-name" "no synth_trace tool in $BUILD/tests/tools"
	fi
	if [ -n "$recorded" ]; then
		"$REPORT" export --format speedscope "$TMP/split.trace" -o "$TMP/split.json"
		schema export-speedscope-schema-split "$TMP/split.json"
	fi
	if ptrace_ok > /dev/null && "$RECORD" -q -o "$TMP/inject.trace" -- "$FIX/inject" > /dev/null 2>&1; then
		"$REPORT" export --format speedscope "$TMP/inject.trace" -o "$TMP/inject.json"
		schema export-speedscope-schema-inject "$TMP/inject.json"
		node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1]));
			const n = d.shared.frames.map((f) => f.name);
			process.exit(n.includes("</text><script>window.__pwned=1;document.title='"'"'pwned'"'"'</script>")
				&& n.includes("a\"b'"'"'c&d]]>e;f") ? 0 : 1)' "$TMP/inject.json" \
			&& ok "export-speedscope-inject-names-intact" || fail "export-speedscope-inject-names-intact" "a hostile name did not survive"
	else
		skip "export-speedscope-inject" "testdata/inject could not be recorded"
	fi

	# The browser: the speedscope package opens the exports.
	if [ "${BUILD%-san}" != "$BUILD" ]; then
		# The exports are written, which is what the sanitizers check;
		# the plain suite opens the same ones.
		skip "export-speedscope-browser" "a sanitized build; the plain suite opens the same exports in speedscope"
	elif [ ! -f "$SPEEDSCOPE/index.html" ]; then
		skip "export-speedscope-browser" "the speedscope npm package is not in $PLAYWRIGHT_DIR (mk/setup.sh installs it)"
	elif [ -z "$recorded" ] || [ ! -f "$TMP/inject.json" ]; then
		skip "export-speedscope-browser" "no recording to open"
	else
		timeout 180 node "$TOP/tests/browser/speedscope.mjs" "$SPEEDSCOPE/index.html" \
			"split=$TMP/split.json" "inject=$TMP/inject.json" > "$TMP/browser.out" 2> "$TMP/browser.err"
		rc=$?
		browser_results "$TMP/browser.out" speedscope-
		[ $rc = 0 ] || fail "speedscope-browser" "speedscope.mjs exited $rc: $(tail -3 "$TMP/browser.err")"
	fi
fi
