#!/usr/bin/env bash
# The fuzz targets (fuzz/fuzz_<name>.c): each one's entry point replays the
# committed inputs that once crashed it (testdata/bad/<name>/) and its seeds,
# in this build, sanitized or not, and the libFuzzer build replays the
# former too; then each libFuzzer target runs for FUZZ_SECONDS (4 unless
# set; 0 skips it), two at a time, and any crash, leak, hang or runaway
# allocation fails it (fuzz/run.sh).
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
shopt -s nullglob

FUZZ_SECONDS=${FUZZ_SECONDS:-4}
FB=$TOP/build-fuzz
names=$(for f in fuzz/fuzz_*.c; do n=${f#fuzz/fuzz_}; echo "${n%.c}"; done)

for n in $names; do
	replay=$BUILD/fuzz/replay_$n
	if [ ! -x "$replay" ]; then
		fail "fuzz-replay-$n" "$replay was not built"
		continue
	fi
	rm -rf "$TMP/seeds-$n"
	BUILD=$BUILD sh fuzz/seeds.sh "$n" "$TMP/seeds-$n"
	bad=(testdata/bad/"$n"/*)
	set -- "$TMP/seeds-$n"/* "${bad[@]}"
	if [ $# -eq 0 ]; then
		skip "fuzz-replay-$n" "no seeds in fuzz/seeds.sh and no inputs in testdata/bad/$n"
		continue
	fi
	if out=$(timeout 300 "$replay" "$@" 2>&1); then
		ok "fuzz-replay-$n ($# inputs, ${#bad[@]} of them from testdata/bad/$n)"
	else
		fail "fuzz-replay-$n" "$(echo "$out" | grep -m3 -E 'ERROR|SUMMARY|runtime error|cannot')"
	fi
done

rt=$(clang -print-file-name=libclang_rt.fuzzer-"$(uname -m)".a 2> /dev/null)
if [ ! -f "$rt" ]; then
	skip "fuzz-run" "clang's libFuzzer runtime is missing (Debian: libclang-rt-14-dev)"
	exit 0
fi
# The committed inputs once more, through the libFuzzer builds: clang's
# UBSan sees arithmetic that gcc's optimiser may drop first (the CFI
# input's overflow is one), so this is the replay that holds the line.
for n in $names; do
	bad=(testdata/bad/"$n"/*)
	if [ ! -x "$FB/fuzz_$n" ]; then
		fail "fuzz-$n" "$FB/fuzz_$n was not built"
	elif [ ${#bad[@]} -gt 0 ]; then
		if out=$(timeout 300 "$FB/fuzz_$n" -timeout=10 "${bad[@]}" 2>&1); then
			ok "fuzz-bad-$n (${#bad[@]} inputs of testdata/bad/$n)"
		else
			fail "fuzz-bad-$n" "$(echo "$out" | grep -m3 -E 'ERROR|SUMMARY|runtime error')"
		fi
	fi
done
if [ "$FUZZ_SECONDS" = 0 ]; then
	skip "fuzz-run" "FUZZ_SECONDS=0"
	exit 0
fi
BUILD=$BUILD FUZZ_BUILD=$FB sh fuzz/run.sh "$FUZZ_SECONDS" $(for n in $names; do [ -x "$FB/fuzz_$n" ] && echo "$n"; done) > /dev/null
for n in $names; do
	[ -x "$FB/fuzz_$n" ] || continue
	st=$(cat "$FB/logs/$n.status" 2> /dev/null)
	case $st in
	ok*) ok "fuzz-$n (${st#ok })" ;;
	*) fail "fuzz-$n" "${st:-no result}; log $FB/logs/$n.log" ;;
	esac
done
exit 0
