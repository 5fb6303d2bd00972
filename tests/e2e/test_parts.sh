#!/usr/bin/env bash
# End-to-end: several traces reported as one timeline. A synthetic
# recording (tests/unit/parts.h, written by tests/tools/parts_trace) is
# written whole, cut into three rotated parts, and kept as three
# snapshots of 2 s a second apart, so each overlaps the one before. The
# parts, given in any order, and the snapshots must report exactly as the
# whole (folded, top, threads); every single-trace command takes several;
# info lists the files, and the gap where a part is missing; info --json
# validates; a trace named twice, the same part under two names, traces
# of two machines and an unreadable file are refused, each saying which;
# and pack writes one pack for several, and refuses --embed with several.
. "$(dirname "$0")/lib.sh"

PARTS=$BUILD/tests/tools/parts_trace
SYNTH=$BUILD/tests/tools/synth_trace

if [ ! -x "$PARTS" ] || [ ! -x "$SYNTH" ]; then
	skip "parts" "$PARTS or $SYNTH is not built (make fixtures)"
	exit 0
fi

cd "$TMP" || exit 1
"$PARTS" whole.trace whole
for i in 1 2 3; do "$PARTS" prof.$i.trace rotated $i 3 || fail "parts-write" "part $i"; done
for i in 1 2 3; do "$PARTS" snap.$i.trace snapshot $i $((i * 1000)) 2000 || fail "parts-write" "snapshot $i"; done

# same CASE CMD [ARGS...]: the command on the parts (given out of order)
# and on the snapshots prints what it prints on the whole trace.
same() {
	local c=$1 out
	shift
	"$REPORT" "$@" whole.trace > "$c.whole" 2> "$c.err" || { fail "$c" "whole: $(head -1 "$c.err")"; return; }
	"$REPORT" "$@" prof.2.trace prof.3.trace prof.1.trace > "$c.parts" 2> "$c.err" ||
		{ fail "$c" "parts: $(head -1 "$c.err")"; return; }
	"$REPORT" "$@" snap.1.trace snap.2.trace snap.3.trace > "$c.snaps" 2>> "$c.err" ||
		{ fail "$c" "snapshots: $(head -1 "$c.err")"; return; }
	if [ ! -s "$c.whole" ]; then
		fail "$c" "no output"
	elif ! cmp -s "$c.whole" "$c.parts"; then
		fail "$c" "the parts differ from the whole: $(diff "$c.whole" "$c.parts" | head -3 | tr '\n' '|')"
	elif ! cmp -s "$c.whole" "$c.snaps"; then
		fail "$c" "the snapshots differ from the whole: $(diff "$c.whole" "$c.snaps" | head -3 | tr '\n' '|')"
	elif [ -s "$c.err" ]; then
		fail "$c" "said: $(head -1 "$c.err")"
	else
		ok "$c"
	fi
}

same parts-folded-as-whole folded
same parts-folded-thread-frames-as-whole folded --thread-frames
same parts-top-as-whole top
same parts-threads-as-whole threads
same parts-window-from-merged-start folded --from 0.9 --to 2.1

# Every other single-trace command takes several, and writes something.
# several CASE OUT ARGS...: prof-report ARGS on the three parts exits 0
# and writes OUT.
several() {
	local c=$1 o=$2 out
	shift 2
	if out=$("$REPORT" "$@" prof.1.trace prof.2.trace prof.3.trace 2>&1) && [ -s "$o" ]; then
		ok "$c"
	else
		fail "$c" "$(echo "$out" | head -2 | tr '\n' '|')"
	fi
}
several parts-svg-takes-several p.svg svg -o p.svg
several parts-html-takes-several p.html html -o p.html
several parts-export-speedscope-takes-several p.json export --format speedscope -o p.json
several parts-export-pprof-takes-several p.pb.gz export --format pprof -o p.pb.gz
several parts-threads-split-takes-several split/index.html threads --split split
grep -q '2970 samples' <("$REPORT" svg prof.1.trace prof.2.trace prof.3.trace) && ok "parts-svg-all-samples" \
	|| fail "parts-svg-all-samples" "the graph's subtitle does not count the samples of all three"

# info: one line per file, in order of their start, and the gap a
# missing part leaves, named.
"$REPORT" info prof.3.trace prof.1.trace prof.2.trace > info.txt 2>&1
if grep -q '^files: 3, as one timeline' info.txt &&
   grep -A1 '^files:' info.txt | grep -q '^  prof.1.trace: rotated part 1 of recording 0000000000000001, 0.000 s to 1.000 s, 990 samples, finished cleanly$' &&
   grep -q '^  prof.3.trace: rotated part 3 .*, 2.000 s to 3.000 s, 990 samples' info.txt &&
   ! grep -q '^  gap' info.txt; then
	ok "parts-info-lists-files"
else
	fail "parts-info-lists-files" "$(sed -n '/^files/,/^images/p' info.txt | head -5 | tr '\n' '|')"
fi
grep -q "^load of 'prof.2.trace':" info.txt && ok "parts-info-load-per-file" \
	|| fail "parts-info-load-per-file" "no load section of prof.2.trace"
"$REPORT" info prof.1.trace prof.3.trace > gap.txt 2>&1
grep -q "^  gap:     1.000 s between 'prof.1.trace' and 'prof.3.trace': part 2 of the recording is not here$" gap.txt \
	&& ok "parts-info-missing-part-gap" \
	|| fail "parts-info-missing-part-gap" "$(grep -E 'gap|prof' gap.txt | head -3 | tr '\n' '|')"
"$REPORT" info snap.1.trace snap.2.trace snap.3.trace > snap.txt 2>&1
grep -q "^  overlap: 1.000 s between 'snap.1.trace' and 'snap.2.trace': 990 samples of the later were in the snapshots before it, counted once$" snap.txt \
	&& ok "parts-info-snapshot-overlap" \
	|| fail "parts-info-snapshot-overlap" "$(grep -E 'overlap|snap' snap.txt | head -3 | tr '\n' '|')"
"$REPORT" info whole.trace > one.txt
grep -q '^files' one.txt && fail "parts-info-one-file-unchanged" "a single trace lists files" \
	|| ok "parts-info-one-file-unchanged"

# info --json on several validates, and says the same.
if ! python3 -c 'import jsonschema' 2> /dev/null; then
	skip "parts-info-json" "python3-jsonschema is not installed (mk/setup.sh installs it)"
elif "$REPORT" info --json prof.1.trace prof.3.trace > gap.json &&
     err=$(python3 - "$TOP/schema/prof-info.schema.json" gap.json 2>&1 <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
info = json.load(open(sys.argv[2]))
jsonschema.validate(info, schema, cls=jsonschema.Draft7Validator)
assert [f["path"] for f in info["files"]] == ["prof.1.trace", "prof.3.trace"], info["files"]
assert [f["part"] for f in info["files"]] == [1, 3]
assert info["files"][0]["kind"] == "rotated" and info["files"][0]["recording"] == "0000000000000001"
assert info["samples"] == 1980 and all(f["complete"] and f["lost"] is None for f in info["files"])
g = info["gaps"]
assert len(g) == 1 and g[0]["missing"] == {"from": 2, "to": 2} and not g[0]["overlap"], g
assert abs(g[0]["seconds"] - 1.0) < 1e-9, g
PY
     ); then
	ok "parts-info-json"
else
	fail "parts-info-json" "$(echo "${err:-info --json failed}" | tail -2 | tr '\n' '|')"
fi

# Loss warnings name the file they are about.
head -c 500 prof.2.trace > cut.2.trace
out=$("$REPORT" folded prof.1.trace cut.2.trace 2>&1 > /dev/null)
case $out in
*"warning: 'cut.2.trace' is incomplete"*) ok "parts-loss-names-its-file" ;;
*) fail "parts-loss-names-its-file" "$out" ;;
esac

# Refusals: each names the files, and the exit status says which kind.
# expect CASE STATUS TEXT ARGS...: prof-report ARGS exits STATUS and says TEXT.
expect() {
	local c=$1 want=$2 text=$3 out rc
	shift 3
	out=$("$REPORT" "$@" 2>&1 > /dev/null); rc=$?
	if [ $rc -eq "$want" ] && [[ $out == *"$text"* ]]; then
		ok "$c"
	else
		fail "$c" "exit $rc: $(echo "$out" | head -2 | tr '\n' '|')"
	fi
}
expect parts-named-twice-refused 2 "'prof.1.trace' is named twice; name each trace once" \
	folded prof.1.trace prof.2.trace prof.1.trace
ln -s prof.1.trace link.trace
expect parts-same-file-twice-refused 2 "'link.trace' is the same file as 'prof.1.trace'" folded prof.1.trace link.trace
cp prof.2.trace copy.trace
expect parts-same-part-twice-refused 1 "'prof.2.trace' and 'copy.trace' are one file (part 2 of the recording" \
	folded prof.2.trace copy.trace
"$SYNTH" -o mac.trace --host "Darwin 23.0 arm64" --thread TID=1,NAME=main --sample TID=1,STACK=0x1000
expect parts-other-machine-refused 1 "'prof.1.trace' was recorded on 'Linux 6.1.0 x86_64' (linux, x86_64) and 'mac.trace' on 'Darwin 23.0 arm64' (macos, arm64)" \
	folded prof.1.trace mac.trace
expect parts-unreadable-named 1 "cannot read 'none.trace'" folded prof.1.trace none.trace
expect parts-diff-unchanged 0 "" diff --folded prof.1.trace prof.2.trace

# pack: one pack for several, named by -o, used for all of them; --embed
# takes one trace.
expect parts-pack-needs-output 2 "several traces make one pack: name it with -o FILE" pack prof.1.trace prof.2.trace
expect parts-pack-embed-one 2 "option '--embed' takes one trace" pack --embed prof.1.trace prof.2.trace
if "$REPORT" pack -o all.syms prof.1.trace prof.2.trace 2> pack.err && [ -s all.syms ]; then
	ok "parts-pack-writes-one"
else
	fail "parts-pack-writes-one" "$(head -2 pack.err | tr '\n' '|')"
fi
