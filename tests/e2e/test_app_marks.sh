#!/usr/bin/env bash
# End-to-end: marks a launched program writes itself, one name a line, to
# the file prof-record names in its environment as $PROF_MARKS.
# - app-marks-c, app-marks-rust: examples/marks.c and examples/marks.rs,
#   as documented, mark "one", "two" and "done" around two phases; info
#   --json lists the three with source "app", and --from mark:one --to
#   mark:two holds phase_one's samples, --from mark:two --to mark:done
#   phase_two's (90% or more: a mark is stamped as the recorder reads it,
#   within 10 ms of its write);
# - app-marks-removed: the file is gone after the recording;
# - app-marks-bad-lines: a line with a NUL byte and one of 5000 bytes are
#   refused with one warning, an empty line is skipped, and the marks
#   around them are kept.
. "$(dirname "$0")/lib.sh"

if ! why=$(ptrace_ok launch); then
	skip "app-marks" "$why"
	exit 0
fi
if ! python3 -c 'import json' 2> /dev/null; then
	skip "app-marks" "python3 is not installed"
	exit 0
fi

# phases NAME PROGRAM: the marks and each phase's share of its window.
phases() {
	local name=$1 prog=$2 got
	if ! "$RECORD" -q -o "$TMP/$name.trace" "$prog" > /dev/null 2> "$TMP/$name.err"; then
		fail "$name" "prof-record failed: $(tail -2 "$TMP/$name.err")"
		return
	fi
	got=$("$REPORT" info --json "$TMP/$name.trace" | python3 -c 'import json, sys
print(" ".join(m["name"] + "/" + m["source"] for m in json.load(sys.stdin)["marks"]))')
	[ "$got" = "one/app two/app done/app" ] || { fail "$name" "marks: $got"; return; }
	# share FROM TO FUNCTION: the percentage of the window's samples in it.
	share() {
		"$REPORT" folded --from "mark:$1" --to "mark:$2" "$TMP/$name.trace" 2> /dev/null |
			awk -v f="$3" '{ n = $NF; t += n; if ($0 ~ f) h += n }
				END { print t ? int(h * 100 / t) : -1 }'
	}
	local one two
	one=$(share one two phase_one)
	two=$(share two done phase_two)
	[ "$one" -ge 90 ] && [ "$two" -ge 90 ] && ok "$name (phase_one $one%, phase_two $two% of their windows)" \
		|| fail "$name" "phase_one $one% of its window, phase_two $two% of its"
}

if gcc -O2 -g -fno-omit-frame-pointer -o "$TMP/marks-c" "$TOP/examples/marks.c" 2> "$TMP/cc.err"; then
	phases app-marks-c "$TMP/marks-c"
else
	fail "app-marks-c" "examples/marks.c does not build: $(head -3 "$TMP/cc.err")"
fi
if ! command -v rustc > /dev/null; then
	skip "app-marks-rust" "rustc is not installed"
elif [ "${BUILD%-san}" != "$BUILD" ]; then
	skip "app-marks-rust" "a sanitized build; the Rust example is the C one's twin, run by the plain suite"
elif rustc -O -g -C force-frame-pointers=yes -o "$TMP/marks-rs" "$TOP/examples/marks.rs" 2> "$TMP/rc.err"; then
	phases app-marks-rust "$TMP/marks-rs"
else
	fail "app-marks-rust" "examples/marks.rs does not build: $(head -3 "$TMP/rc.err")"
fi

"$RECORD" -q -o "$TMP/r.trace" sh -c 'echo "$PROF_MARKS"' > "$TMP/path" 2> "$TMP/r.err"
p=$(cat "$TMP/path")
[ -n "$p" ] && [ ! -e "$p" ] && ok "app-marks-removed" || fail "app-marks-removed" "'$p': $(ls -l "$p" 2>&1)"

"$RECORD" -o "$TMP/b.trace" sh -c 'echo first >> "$PROF_MARKS"
	printf "a\000b\n\n" >> "$PROF_MARKS"
	head -c 5000 /dev/zero | tr "\000" x >> "$PROF_MARKS"
	printf "\nlast\n" >> "$PROF_MARKS"' 2> "$TMP/b.err"
rc=$?
got=$("$REPORT" info --json "$TMP/b.trace" | python3 -c 'import json, sys
print(" ".join(m["name"] for m in json.load(sys.stdin)["marks"]))')
warned=$(grep -c 'is not a mark' "$TMP/b.err")
[ $rc = 0 ] && [ "$got" = "first last" ] && [ "$warned" = 1 ] && ok "app-marks-bad-lines" \
	|| fail "app-marks-bad-lines" "exit $rc, marks '$got', $warned warnings: $(cat "$TMP/b.err")"
exit 0
