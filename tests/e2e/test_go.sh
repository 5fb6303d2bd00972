#!/usr/bin/env bash
# End-to-end: a Go program, testdata/go/hxgo.go, whose CPU time divides
# 3:1 between main.hxGoHot and main.hxGoCold on four goroutines (main's
# among them), built here with the go command and recorded for a second:
# both functions named from Go's DWARF, their split within 5 points of
# 3:1 and of perf report's on the same program, an inline frame
# (main.hxGoStep, which Go's DWARF gives as inlined into both), Go's
# runtime named (runtime.mallocgc, under the goroutine that allocates),
# at least 95% of the stacks whole, Go's frames in Go's colour under
# --colors lang; the symbol table's names alone (a build without DWARF)
# as Go writes them; and the stacks of wall mode, blocked threads too,
# whole, with perf_event's sampler and ptrace's. Go walks its stacks by frame pointer (it writes .debug_frame
# but no .eh_frame). A stack is whole when it reaches the function Go's
# runtime starts it with: runtime.goexit (a goroutine's, main's too),
# runtime.mstart (a thread's system stack), runtime.mcall (the system
# stack the scheduler runs on) or runtime.rt0_go (before the scheduler);
# the report cuts what a walk finds past it (report/model/stacks.h). The cases
# say how many stacks end elsewhere, and where.
. "$(dirname "$0")/lib.sh"

if ! command -v go > /dev/null 2>&1; then
	skip "go" "go is not installed (Debian golang-go)"
	exit 0
fi

GO_SRC=$TOP/testdata/go/hxgo.go
GO_BIN=$BUILD/testdata/go/hxgo
# Linker flags for the fixture: none, as go build makes it, so that it has
# Go's build ID and no GNU build-id; the recorder identifies it by the
# former (format/trace_ident.h).
GO_LDFLAGS=${GO_LDFLAGS-}

# go_build OUT LDFLAGS: the fixture, with the build's caches under
# $BUILD rather than in $HOME, and no C toolchain (nothing uses cgo).
go_build() {
	local out=$1
	mkdir -p "$(dirname "$out")" &&
	(cd "$TOP/testdata/go" && GOCACHE="$BUILD/go-cache" GOPATH="$BUILD/go-path" GO111MODULE=off \
		CGO_ENABLED=0 GOFLAGS='' go build -ldflags="$2" -o "$out" hxgo.go)
}
if ! out=$(go_build "$GO_BIN" "$GO_LDFLAGS" 2>&1); then
	fail "go-build" "$(echo "$out" | tail -3)"
	exit 0
fi

# The sampler: cpu mode where perf_event is allowed, else ptrace's wall
# mode, else nothing can be recorded here. cpu mode samples at perf's
# own default rate, so that a second gives some 4000 samples and the two
# profilers' shares differ by 1 point at one standard deviation (at
# 997 Hz by nearly 2: two runs 6 points apart were seen).
mode=cpu hz=3997 secs=1
out=$("$RECORD" -q --mode cpu -f -o "$TMP/probe.trace" -- true 2>&1)
if [ $? -ne 0 ] && echo "$out" | grep -q 'perf_event'; then
	if ! why=$(ptrace_ok); then
		skip "go" "perf_event_open not permitted ($(echo "$out" | head -1)), and $why"
		exit 0
	fi
	mode=wall hz=997 secs=2
fi

within() { [ "$1" -ge $(($2 - $3)) ] && [ "$1" -le $(($2 + $3)) ]; }
# hot_share FOLDED: percent (integer) of main.hxGoHot's and main.hxGoCold's
# samples that are main.hxGoHot's.
hot_share() {
	awk '{ n = $NF } /;main\.hxGoHot(;| )/ { h += n } /;main\.hxGoCold(;| )/ { c += n }
	     END { if (h + c == 0) print -1; else printf "%d\n", h * 100 / (h + c) + 0.5 }' "$1"
}
# tops FOLDED: the stacks' outermost frames (after the program's), most
# first, as "NAME COUNT, ..." for a message.
tops() {
	awk '{ n = $NF; split($0, f, ";"); r = f[2]; sub(/ [0-9]+$/, "", r); c[r] += n }
	     END { for (r in c) print c[r], r }' "$1" | sort -nr | head -6 | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1 }'
}
# roots FOLDED: percent (integer, rounded down) of the samples whose stack is whole.
ROOTS='^[^;]*;runtime\.(goexit|mstart|mcall|rt0_go)(;| [0-9]+$)'
roots() { share "$1" "$ROOTS"; }
# whole NAME TRACE FOLDED: at least 95% of the samples whole, 90% of
# ptrace's: it stops threads in Go's signal handler (runtime.sigtramp)
# and on the system stack above a goroutine's (runtime.systemstack),
# where the frame records lead to no root, 1 to 2% each (95.8 to 97.1%
# whole in four runs).
whole() {
	local want=95 r sampler
	sampler=$("$REPORT" info "$2" 2> /dev/null | awk '$1 == "sampler:" { print $2 }')
	[ "$sampler" = perf ] || want=90
	r=$(roots "$3")
	[ "$r" -ge $want ] && ok "$1 (${r}%, $sampler sampler; outermost: $(tops "$3"))" \
		|| fail "$1" "${r}% reach a root, want >= $want ($sampler sampler); outermost: $(tops "$3")"
	# info counts them too, and says where the others were cut
	"$REPORT" info "$2" > "$TMP/roots.info" 2>&1
	set -- "$1" "$(awk '$1 == "go" && $2 == "stacks:" { print $3, $5 }' "$TMP/roots.info")" \
		"$(awk '$1 == "cut" && match($0, /: [0-9]+ \(/) { n += substr($0, RSTART + 2, RLENGTH - 4) } END { print n + 0 }' "$TMP/roots.info")"
	local w=${2% *} n=${2#* }
	if [ -n "$w" ] && [ $((w * 100 / n - r)) -le 1 ] && [ $((r - w * 100 / n)) -le 1 ] && [ $((w + $3)) = "$n" ]; then
		ok "$1-counted-by-info ($w of $n whole)"
	else
		fail "$1-counted-by-info" "info says '$2' and $3 cut, folded ${r}%: $(grep -A5 '^go stacks' "$TMP/roots.info" | tr '\n' '|')"
	fi
}
heaviest() { sort -t' ' -k2 -nr "$1" | head -3 | cut -c1-200 | tr '\n' '|'; }

"$RECORD" -q -f --mode $mode -F $hz -o "$TMP/go.trace" -- "$GO_BIN" $secs > "$TMP/go.out" 2> "$TMP/go.err" \
	|| { fail "go-record" "exit $?: $(tail -3 "$TMP/go.err")"; exit 0; }
"$REPORT" folded "$TMP/go.trace" > "$TMP/go.folded" 2> "$TMP/go.err" \
	|| { fail "go-report" "$(tail -3 "$TMP/go.err")"; exit 0; }

grep -q ';main\.hxGoHot[; ]' "$TMP/go.folded" && grep -q ';main\.hxGoCold[; ]' "$TMP/go.folded" \
	&& ok "go-names-$mode" || fail "go-names-$mode" "no main.hxGoHot or main.hxGoCold: $(heaviest "$TMP/go.folded")"
grep -q ';main\.hxGoAlloc;runtime\.makeslice;runtime\.mallocgc[; ]' "$TMP/go.folded" \
	&& ok "go-runtime-names-$mode" \
	|| fail "go-runtime-names-$mode" "no main.hxGoAlloc;runtime.makeslice;runtime.mallocgc: $(grep -c mallocgc "$TMP/go.folded") stacks name mallocgc"

# named by Go's build ID, as `go tool buildid` prints it (its last part)
gid=$(go tool buildid "$GO_BIN" 2> /dev/null | awk -F/ '{ print (length($0) > 64 ? $NF : $0) }')
"$REPORT" info "$TMP/go.trace" 2> /dev/null | grep -qx "    ident:    go-build-id $gid" \
	&& ok "go-identified-by-its-build-id-$mode" \
	|| fail "go-identified-by-its-build-id-$mode" "want go-build-id '$gid': $("$REPORT" info "$TMP/go.trace" 2>&1 | grep -m2 'ident:' | tr '\n' '|')"

hot=$(hot_share "$TMP/go.folded")
within "$hot" 75 5 && ok "go-split-$mode (main.hxGoHot ${hot}% of the two)" \
	|| fail "go-split-$mode" "main.hxGoHot ${hot}% of the two, want 75: $(heaviest "$TMP/go.folded")"

whole "go-stacks-whole-$mode" "$TMP/go.trace" "$TMP/go.folded"

# The inline frame: hxGoStep above hxGoHot, and gone with --no-inline,
# the samples kept by the function that holds the code.
"$REPORT" folded --no-inline "$TMP/go.trace" > "$TMP/go-ni.folded"
if grep -q ';main\.hxGoHot;main\.hxGoStep[; ]' "$TMP/go.folded" && ! grep -q 'hxGoStep' "$TMP/go-ni.folded" \
   && [ "$(hot_share "$TMP/go-ni.folded")" = "$hot" ]; then
	ok "go-inline-frame-$mode"
else
	fail "go-inline-frame-$mode" "$(grep -c ';main\.hxGoHot;main\.hxGoStep' "$TMP/go.folded") stacks with hxGoHot;hxGoStep, $(grep -c hxGoStep "$TMP/go-ni.folded") with --no-inline"
fi

# --colors lang: Go's hue (178 to 188 degrees) for a function of main and
# for runtime.goexit, whose code is assembly in a unit of DW_LANG_Go.
go_hue() { [ "$1" -ge 176 ] && [ "$1" -le 190 ]; }
"$REPORT" svg --colors lang "$TMP/go.trace" -o "$TMP/go-lang.svg"
h1=$(hue_of 'main\.hxGoHot' "$TMP/go-lang.svg")
h2=$(hue_of 'runtime\.goexit' "$TMP/go-lang.svg")
go_hue "$h1" && go_hue "$h2" && grep -q '<g id="legend">.*>Go<' "$TMP/go-lang.svg" \
	&& ok "go-colors-lang" || fail "go-colors-lang" "main.hxGoHot's hue $h1, runtime.goexit's $h2, want 176 to 190, and Go in the legend"

# perf on the same program, as long, as often: its self samples by symbol
# (hxGoStep is inlined, so perf counts it as the function that holds it).
if ! command -v perf > /dev/null 2>&1; then
	skip "go-split-against-perf" "perf is not installed (Debian linux-perf)"
elif ! out=$(perf_record -q -g -F $hz -o "$TMP/perf.data" -- "$GO_BIN" $secs 2>&1 > /dev/null); then
	skip "go-split-against-perf" "perf record cannot run here: $(echo "$out" | head -1)"
else
	perf report -i "$TMP/perf.data" --stdio --no-children --sort sym -g none 2> /dev/null > "$TMP/perf.txt"
	p=$(awk '$NF == "main.hxGoHot" { h = $1 } $NF == "main.hxGoCold" { c = $1 }
		 END { sub(/%/, "", h); sub(/%/, "", c); if (h + c == 0) print -1; else printf "%d\n", h * 100 / (h + c) + 0.5 }' "$TMP/perf.txt")
	if [ "$p" -lt 0 ]; then
		fail "go-split-against-perf" "perf report names neither: $(grep -v '^#' "$TMP/perf.txt" | head -3 | tr '\n' '|')"
	else
		within "$hot" "$p" 5 && ok "go-split-against-perf (prof ${hot}%, perf ${p}%)" \
			|| fail "go-split-against-perf" "prof ${hot}%, perf report ${p}%"
	fi
fi

# The symbol table alone: a build without DWARF (-w; the same code, the
# same build-id, as a stripped file has), half a second. Go's names as Go
# writes them, runtime.goexit without the ".abi0" of its assembly, and
# Go's colour.
if ! out=$(go_build "$TMP/nodwarf/hxgo" "$GO_LDFLAGS -w" 2>&1); then
	fail "go-build-without-dwarf" "$(echo "$out" | tail -3)"
else
	"$RECORD" -q -f --mode $mode -o "$TMP/nodwarf.trace" -- "$TMP/nodwarf/hxgo" 0.5 > /dev/null 2>&1
	"$REPORT" folded "$TMP/nodwarf.trace" > "$TMP/nodwarf.folded" 2>&1
	"$REPORT" svg --colors lang "$TMP/nodwarf.trace" -o "$TMP/nodwarf.svg" 2>&1
	h=$(hue_of 'main\.hxGoHot' "$TMP/nodwarf.svg")
	if grep -q '^hxgo;runtime\.goexit;' "$TMP/nodwarf.folded" && grep -q ';main\.hxGoHot[; ]' "$TMP/nodwarf.folded" \
	   && ! grep -q '\.abi0' "$TMP/nodwarf.folded" && go_hue "$h"; then
		ok "go-symbol-table-names"
	else
		fail "go-symbol-table-names" "hue $h: $(heaviest "$TMP/nodwarf.folded")"
	fi
fi

# Wall mode: every thread at every tick, the runtime's idle ones blocked
# on their system stacks too (in the scheduler, after runtime.mcall; the
# monitor thread under runtime.mstart). perf_event's own where the kernel
# allows it, else ptrace's.
if [ $mode = cpu ]; then
	"$RECORD" -q -f --mode wall -o "$TMP/wall.trace" -- "$GO_BIN" 0.5 > /dev/null 2> "$TMP/wall.err"
	if "$REPORT" folded "$TMP/wall.trace" > "$TMP/wall.folded" 2>> "$TMP/wall.err"; then
		whole "go-stacks-whole-wall" "$TMP/wall.trace" "$TMP/wall.folded"
	else
		fail "go-stacks-whole-wall" "$(tail -2 "$TMP/wall.err")"
	fi
	# And the ptrace sampler, which stops each thread at each tick.
	if ! why=$(ptrace_ok); then
		skip "go-stacks-whole-ptrace" "$why"
	elif "$RECORD" -q -f --sampler ptrace -o "$TMP/ptrace.trace" -- "$GO_BIN" 0.5 > /dev/null 2> "$TMP/ptrace.err" &&
	     "$REPORT" folded "$TMP/ptrace.trace" > "$TMP/ptrace.folded" 2>> "$TMP/ptrace.err"; then
		whole "go-stacks-whole-ptrace" "$TMP/ptrace.trace" "$TMP/ptrace.folded"
	else
		fail "go-stacks-whole-ptrace" "$(tail -2 "$TMP/ptrace.err")"
	fi
fi
exit 0
