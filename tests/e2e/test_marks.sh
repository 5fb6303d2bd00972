#!/usr/bin/env bash
# End-to-end: marks (trace format 2.3) in a synthetic trace of 300
# samples at 100 Hz, 0x1000 for the first and last hundred and 0x1100 for
# the middle one, with marks "a" at 1.0 s and 2.5 s and "b" at 2.0 s.
# A trace paused for a second halfway (marks-pause-*) has its pause in
# info, and no report counts the paused time: not the achieved rate, not
# diff --normalize duration against the same samples unpaused.
# info lists them with their sources; --from and --to take mark:NAME
# (--to the first of its name after --from), mixed with seconds; a mark
# that is not there, or a --to not after --from, is an error that names it.
. "$(dirname "$0")/lib.sh"

SYNTH=$BUILD/tests/tools/synth_trace
if [ ! -x "$SYNTH" ]; then
	skip "marks" "no synth_trace in $BUILD/tests/tools (make builds it)"
	exit 0
fi
T=$TMP/m.trace
"$SYNTH" -o "$T" --os linux --arch x86_64 --rate 100 --command prog --thread TID=1,NAME=main \
	--sample TID=1,STACK=0x1000:0x2000 --count 100 --sample TID=1,STACK=0x1100:0x2000 --count 100 \
	--sample TID=1,STACK=0x1000:0x2000 --count 100 \
	--mark AT=100,NAME=a --mark 'AT=200,NAME=b "2",SOURCE=app' --mark AT=250,NAME=a \
	|| { fail "marks" "synth_trace failed"; exit 0; }

"$REPORT" info "$T" > "$TMP/info" 2>&1
want='marks: 3
  1.000 s: "a" (control)
  2.000 s: "b \"2\"" (app)
  2.500 s: "a" (control)'
got=$(sed -n '/^marks:/,/^$/p' "$TMP/info" | sed '/^$/d')
[ "$got" = "$want" ] && ok "marks-info-lists" || fail "marks-info-lists" "$got"

# info --json holds the same marks, names as written, valid by its schema.
if python3 -c 'import jsonschema' 2> /dev/null; then
	"$REPORT" info --json "$T" > "$TMP/info.json" 2>&1
	got=$(python3 - "$TOP/schema/prof-info.schema.json" "$TMP/info.json" <<'PY' 2>&1
import json, sys, jsonschema
d = json.load(open(sys.argv[2], encoding="utf-8"))
jsonschema.validate(d, json.load(open(sys.argv[1])), cls=jsonschema.Draft7Validator)
print(";".join("%s@%.2f/%s" % (m["name"], m["time"], m["source"]) for m in d["marks"]),
      d["paused"], len(d["pauses"]))
PY
)
	want='a@1.00/control;b "2"@2.00/app;a@2.50/control 0 0'
	[ "$got" = "$want" ] && ok "marks-info-json" || fail "marks-info-json" "$got"
else
	skip "marks-info-json" "python3-jsonschema is not installed (mk/setup.sh installs it)"
fi

# count ARGS...: the samples folded keeps with ARGS.
count() {
	"$REPORT" folded --addresses "$@" "$T" 2> "$TMP/err" | awk '{ n += $NF } END { print n + 0 }'
}
# Sample k is at k/100 s; --from keeps its instant, --to leaves its own out.
n=$(count --from mark:a --to 'mark:b "2"')
[ "$n" = 100 ] && ok "marks-from-to" || fail "marks-from-to" "kept $n samples, want 100 (1.00 to 1.99 s)"
n=$(count --from 'mark:b "2"' --to mark:a)
[ "$n" = 50 ] && ok "marks-to-after-from" || fail "marks-to-after-from" "kept $n, want 50 (2.00 to 2.49 s)"
n=$(count --from 2.2 --to mark:a)
[ "$n" = 30 ] && ok "marks-seconds-and-mark" || fail "marks-seconds-and-mark" "kept $n, want 30 (2.20 to 2.49 s)"
n=$(count --from mark:a --to 1.5)
[ "$n" = 50 ] && ok "marks-mark-and-seconds" || fail "marks-mark-and-seconds" "kept $n, want 50"

"$REPORT" folded --from mark:c "$T" > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "no mark 'c'" "$TMP/err" && ok "marks-missing-named" \
	|| fail "marks-missing-named" "exit $rc: $(cat "$TMP/err")"
"$REPORT" folded --from 3 --to mark:b "$T" > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "no mark 'b' after '--from'" "$TMP/err" && ok "marks-none-after-from" \
	|| fail "marks-none-after-from" "exit $rc: $(cat "$TMP/err")"
"$REPORT" folded --from mark:a --to 0.5 "$T" > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 1 ] && grep -q "must be later than '--from'" "$TMP/err" && ok "marks-to-before-from" \
	|| fail "marks-to-before-from" "exit $rc: $(cat "$TMP/err")"
"$REPORT" folded --from mark: "$T" > /dev/null 2> "$TMP/err"; rc=$?
[ $rc = 2 ] && ok "marks-empty-name-usage" || fail "marks-empty-name-usage" "exit $rc: $(cat "$TMP/err")"

# --- a pause: 50 samples, a second paused, 50 samples ---------------------
"$SYNTH" -o "$TMP/p.trace" --rate 100 --mode wall --command prog --thread TID=1,NAME=main \
	--sample TID=1,STACK=0x1000 --count 50 --sample TID=1,STACK=0x1000 --count 50 --skip 100 \
	--pause FROM=51,TO=151 || { fail "marks-pause" "synth_trace failed"; exit 0; }
"$SYNTH" -o "$TMP/q.trace" --rate 100 --mode wall --command prog --thread TID=1,NAME=main \
	--sample TID=1,STACK=0x1000 --count 100 || { fail "marks-pause" "synth_trace failed"; exit 0; }
"$REPORT" info "$TMP/p.trace" > "$TMP/pinfo" 2>&1
want='duration:   2.010 s, 1.000 s of it paused
rate:       100 Hz asked, 99 Hz achieved (100 samples over 1.010 s of thread time)
pauses: 1, 1.000 s
  0.510 s to 1.510 s'
got=$(grep -A1 -e "^duration:" -e "^pauses:" "$TMP/pinfo" | grep -v "^--")
[ "$got" = "$want" ] && ok "marks-pause-info" || fail "marks-pause-info" "$got"
"$REPORT" diff --check --normalize duration --addresses "$TMP/q.trace" "$TMP/p.trace" > "$TMP/d" 2>&1
rc=$?
[ $rc = 0 ] && ok "marks-pause-diff-duration" || fail "marks-pause-diff-duration" "exit $rc: $(cat "$TMP/d")"
exit 0
