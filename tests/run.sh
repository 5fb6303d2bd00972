#!/bin/sh
# tests/run.sh: run every test and print one closing line.
#
# The Criterion unit tests, each end-to-end script in tests/e2e, and the man
# page lint. Exits non-zero if anything failed.
set -u
BUILD=${BUILD:-build}
RESULTS=$(mktemp)
export BUILD RESULTS
status=0

echo "== unit tests"
if "$BUILD/tests/unit-tests" --jobs 2; then
	echo "pass unit-tests" >> "$RESULTS"
else
	echo "fail unit-tests" >> "$RESULTS"
fi

for t in tests/e2e/test_*.sh; do
	[ -e "$t" ] || continue
	echo "== $t"
	if ! bash "$t"; then
		echo "fail $t: exited non-zero" >> "$RESULTS"
	fi
done

echo "== man pages"
for m in man/*.[0-9]; do
	[ -e "$m" ] || continue
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
