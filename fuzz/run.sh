#!/bin/sh
# fuzz/run.sh SECONDS NAME...: runs each libFuzzer target build-fuzz/fuzz_NAME
# for SECONDS, two at a time (the machines this is tested on have two cores).
#
# Each starts from a corpus of seeds (fuzz/seeds.sh) that grows across runs
# in build-fuzz/corpus/NAME, and from the committed inputs of
# testdata/bad/NAME/. A crash, a leak, an input slower than 10 s or one
# that needs more than 1 GB fails the target: the input is saved in
# build-fuzz/crashes/NAME/ and the log is build-fuzz/logs/NAME.log. Each
# target's result is one line in build-fuzz/logs/NAME.status ("ok ..." or
# "fail ..."), printed too. Exits 1 if any target failed.
set -u
secs=${1:?usage: fuzz/run.sh SECONDS NAME...}
shift
BUILD=${BUILD:-build}
FB=${FUZZ_BUILD:-build-fuzz}
export BUILD
names=$*

one() { # one NAME: runs the target, writes its status line (in a subshell)
	name=$1
	corpus=$FB/corpus/$name
	crashes=$FB/crashes/$name
	log=$FB/logs/$name.log
	bad=testdata/bad/$name
	mkdir -p "$corpus" "$crashes" "$FB/logs"
	[ -d "$bad" ] || bad=
	rm -f "$FB/logs/$name.status"
	sh fuzz/seeds.sh "$name" "$corpus"
	"$FB/fuzz_$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 \
		-artifact_prefix="$crashes/" "$corpus" ${bad:+"$bad"} > "$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1)
	if [ $rc -eq 0 ] && [ -n "$runs" ]; then
		echo "ok $runs runs in ${secs} s, corpus $(ls "$corpus" | wc -l) inputs" > "$FB/logs/$name.status"
	else
		echo "fail exit $rc: $(grep -m1 -E 'ERROR|SUMMARY|runtime error' "$log"), input saved in $crashes/" \
			> "$FB/logs/$name.status"
	fi
	echo "fuzz $name: $(cat "$FB/logs/$name.status")"
}

while [ $# -gt 0 ]; do
	a=$1; shift
	( one "$a" ) &
	p1=$!
	p2=
	if [ $# -gt 0 ]; then
		b=$1; shift
		( one "$b" ) &
		p2=$!
	fi
	wait $p1
	[ -n "$p2" ] && wait $p2
done
status=0
for n in $names; do
	grep -q '^ok' "$FB/logs/$n.status" 2> /dev/null || status=1
done
exit $status
