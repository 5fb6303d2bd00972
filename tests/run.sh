#!/bin/sh
# tests/run.sh: run every test and print one closing line.
#
# The Criterion unit tests, each end-to-end script in tests/e2e, and the man
# page lint. Exits non-zero if anything failed.
set -u
BUILD=${BUILD:-build}
RESULTS=$(mktemp)
BIN=${BIN:-}
export BUILD BIN RESULTS
status=0

# Each Criterion binary: its tested/failing counts join the total. Without
# Criterion make builds none, and says why.
if [ -n "${UNIT_SKIPPED:-}" ]; then
	echo "skip unit-tests: $UNIT_SKIPPED" >> "$RESULTS"
fi
for u in "$BUILD"/tests/test_*; do
	[ -z "${UNIT_SKIPPED:-}" ] || break
	[ -x "$u" ] || continue
	echo "== $u"
	# --verbose lists skipped tests, which the summary leaves out.
	out=$("$u" --jobs 2 --verbose 2>&1); rc=$?
	echo "$out" | grep -v -e '^\[----\]' -e '^\[RUN \]' -e '^\[PASS\]' | tail -20
	echo "$out" | sed -n 's/^\[SKIP\] \(.*\)/skip \1/p' >> "$RESULTS"
	syn=$(echo "$out" | grep 'Synthesis:' | tail -1)
	tested=$(echo "$syn" | sed -n 's/.*Tested: \([0-9]*\).*/\1/p')
	failing=$(echo "$syn" | sed -n 's/.*Failing: \([0-9]*\).*/\1/p')
	crashing=$(echo "$syn" | sed -n 's/.*Crashing: \([0-9]*\).*/\1/p')
	if [ -z "$tested" ]; then
		echo "fail $u: no Criterion summary (exit $rc)" >> "$RESULTS"
		continue
	fi
	bad=$((failing + crashing))
	i=0; while [ $i -lt $((tested - bad)) ]; do echo "pass $u" >> "$RESULTS"; i=$((i + 1)); done
	[ $bad -gt 0 ] && echo "$out" | grep -E '\[FAIL\]|CRASH|Assertion' | sed "s|^|fail $u: |" | head -$bad >> "$RESULTS"
	[ $rc -ne 0 ] && [ $bad -eq 0 ] && echo "fail $u: exit status $rc" >> "$RESULTS"
done

for t in tests/e2e/test_*.sh; do
	[ -e "$t" ] || continue
	echo "== $t"
	t0=$(date +%s)
	if ! bash "$t"; then
		echo "fail $t: exited non-zero" >> "$RESULTS"
	fi
	# A script run as root that removes or replaces /dev/null breaks
	# every script after it, and the machine: name the culprit.
	if [ ! -c /dev/null ]; then
		echo "fail $t: left /dev/null a regular file or removed it" >> "$RESULTS"
		echo "  FAIL  $t left /dev/null other than the null device"
	fi
	# How long each script takes, so the slow ones are plain to see.
	echo "   $t: $(($(date +%s) - t0)) s"
done

echo "== man pages"
for m in man/*.[0-9]; do
	[ -e "$m" ] || continue
	if ! command -v mandoc > /dev/null 2>&1; then
		echo "skip mandoc-lint $m: mandoc is not installed" >> "$RESULTS"
		continue
	fi
	if out=$(mandoc -Tlint -W warning "$m" 2>&1) && [ -z "$out" ]; then
		echo "pass mandoc-lint $m" >> "$RESULTS"
	else
		echo "  FAIL  mandoc -Tlint $m"; echo "$out"
		echo "fail mandoc-lint $m" >> "$RESULTS"
	fi
done

pass=$(grep -c '^pass' "$RESULTS")
fail=$(grep -c '^fail' "$RESULTS")
skip=$(grep -c '^skip' "$RESULTS")
if [ "$fail" -gt 0 ]; then
	echo; echo "failures:"; grep '^fail' "$RESULTS" | sed 's/^fail /  /'
	status=1
fi
if [ "$skip" -gt 0 ]; then
	echo; echo "skipped:"; grep '^skip' "$RESULTS" | sed 's/^skip /  /'
fi
rm -f "$RESULTS"
echo
echo "check: $pass passed, $fail failed, $skip skipped"
exit $status
