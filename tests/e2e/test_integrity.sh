#!/usr/bin/env bash
# End-to-end: what prof-report says of a real trace that lost bytes, as
# prof-trace(5) "Reading chunks" and "The footer" promise. The chunks are
# found by walking their headers with od(1), from the page's layout, not
# with prof's own reader. Each chunk in turn is taken out, damaged in its
# header and damaged in its frame, and info must name exactly that chunk;
# a cut must be a cut, and damage to the last chunk never one. Every
# command warns about a loss once, in one line.
. "$(dirname "$0")/lib.sh"

if ! why=$(ptrace_ok); then
	skip "integrity" "$why"
	exit 0
fi

# chunks FILE: "OFFSET LENGTH" of each chunk, header included.
chunks() {
	local f=$1 size pos=16 comp
	size=$(stat -c %s "$f")
	while [ $((pos + 24)) -le "$size" ]; do
		comp=$(od -An -tu4 -j $((pos + 16)) -N4 "$f" | tr -d ' ')
		echo "$pos $((24 + comp))"
		pos=$((pos + 24 + comp))
	done
}
# without FILE OFFSET LENGTH OUT: FILE without those bytes.
without() {
	{ head -c "$2" "$1"; tail -c +$(($2 + $3 + 1)) "$1"; } > "$4"
}
# flipped FILE OFFSET OUT: FILE with bit 6 of one byte flipped.
flipped() {
	local v
	cp "$1" "$3"
	v=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "$(printf '\\%03o' $((v ^ 0x40)))" | dd of="$3" bs=1 seek="$2" conv=notrunc 2> /dev/null
}
# losses INFO: the loss lines of info's load section.
losses() { sed -n '/^  finished cleanly/,$p' "$1" | tail -n +2; }
# warned ERR FILE WHAT: whether ERR holds only the warning that FILE is
# incomplete for WHAT, with the samples dropped because their stacks were
# lost with it, if any.
warned() {
	local w
	w=$(cat "$1")
	case $w in
	"prof-report: warning: '$2' is incomplete: $3") return 0 ;;
	"prof-report: warning: '$2' is incomplete: $3, "[0-9]*" sample dropped") return 0 ;;
	"prof-report: warning: '$2' is incomplete: $3, "[0-9]*" samples dropped") return 0 ;;
	esac
	return 1
}
# info_of FILE NAME: runs info into $TMP/NAME.info and .err; its exit status.
info_of() { "$REPORT" info "$1" > "$TMP/$2.info" 2> "$TMP/$2.err"; }
field() { awk -v k="$2" 'index($0, "  " k " ") == 1 { print $(NF - (k == "chunks damaged" ? 2 : 0)) }' "$1"; }
# samples INFO WHAT N: the Nth word of the line "  samples WHAT ...": the
# count is the 3rd, the footer's the 6th of the samples missing line.
samples() { awk -v w="$2" -v n="$3" '$1 == "samples" && $2 == w { print $n }' "$1"; }
# read_chunks INFO: the chunks read whole.
read_chunks() { awk '$1 == "chunks" && $2 ~ /^[0-9]+$/ { print $2 }' "$1"; }
# number WORD: WORD, if it is a number.
number() { case $1 in "" | *[!0-9]*) return 1 ;; esac; echo "$1"; }

"$RECORD" --mode wall -q -o "$TMP/t.trace" -- "$FIX/threads" 5 > /dev/null
chunks "$TMP/t.trace" > "$TMP/chunks"
n=$(wc -l < "$TMP/chunks")
size=$(stat -c %s "$TMP/t.trace")
last=$(tail -1 "$TMP/chunks")
if [ "$n" -lt 5 ] || [ $((${last% *} + ${last#* })) -ne "$size" ]; then
	fail "integrity-chunks-walked" "$n chunks, ending at $((${last% *} + ${last#* })) of $size bytes"
	exit 0
fi
ok "integrity-chunks-walked ($n chunks, $size bytes)"

info_of "$TMP/t.trace" whole
if grep -q '^  finished cleanly   yes$' "$TMP/whole.info" && [ -z "$(losses "$TMP/whole.info")" ] \
	&& [ ! -s "$TMP/whole.err" ]; then
	ok "integrity-whole-trace-reads-whole"
else
	fail "integrity-whole-trace-reads-whole" "$(losses "$TMP/whole.info") $(cat "$TMP/whole.err")"
fi

# --- each chunk taken out. The loss line gives the times of the samples
# read on either side of the chunk, where there are any: samples before it
# are those of the chunks before (chunk 0 holds the session alone), each
# counted by the footer as missing when its chunk is the one taken out;
# samples after it are the footer's count less those before, those
# missing and those dropped (whose stacks went with the chunk).
if ! total=$(number "$(samples "$TMP/whole.info" missing 6)"); then
	fail "integrity-every-chunk-taken-out-is-named" "the whole trace's footer counts no samples: $(grep '^  samples' "$TMP/whole.info")"
	exit 0
fi
k=0
before=0
bad=
while read -r off len; do
	without "$TMP/t.trace" "$off" "$len" "$TMP/d.trace"
	info_of "$TMP/d.trace" d; rc=$?
	l=$(losses "$TMP/d.info")
	if [ $k -eq 0 ]; then
		# the session is in chunk 0: nothing can be read without it
		[ $rc -eq 1 ] && grep -q "cannot read '$TMP/d.trace': .*chunk 0" "$TMP/d.err" \
			|| bad="$bad chunk 0: exit $rc, $(cat "$TMP/d.err");"
	elif [ $k -eq $((n - 1)) ]; then
		# the footer was last: nothing after it says it is gone
		[ $rc -eq 0 ] && [ "$l" = "  no footer after chunk $((k - 1)): the recording did not finish cleanly, and what it wrote last may be lost" ] \
			&& grep -q '^  finished cleanly   no$' "$TMP/d.info" \
			&& [ "$(cat "$TMP/d.err")" = "prof-report: warning: '$TMP/d.trace' is incomplete: not finished cleanly (no footer)" ] \
			|| bad="$bad footer $k: $l $(cat "$TMP/d.err");"
	elif ! missing=$(number "$(samples "$TMP/d.info" missing 3)") \
		|| ! dropped=$(number "$(samples "$TMP/d.info" dropped 3)"); then
		bad="$bad chunk $k: no samples counted: $l $(cat "$TMP/d.err");"
	else
		after=$((total - before - missing - dropped))
		t='[0-9]+\.[0-9]{3} s'
		want="^  chunk $k missing at byte $off"
		if [ $before -gt 0 ] && [ $after -gt 0 ]; then
			want="$want: samples between $t and $t lost\$"
		elif [ $before -gt 0 ]; then
			want="$want: samples after $t lost\$"
		elif [ $after -gt 0 ]; then
			want="$want: samples before $t lost\$"
		else
			want="$want\$"
		fi
		[ $rc -eq 0 ] && [ "$(echo "$l" | wc -l)" = 1 ] && echo "$l" | grep -Eq "$want" \
			&& [ "$(field "$TMP/d.info" 'chunks missing')" = 1 ] \
			&& grep -q '^  finished cleanly   no$' "$TMP/d.info" \
			&& warned "$TMP/d.err" "$TMP/d.trace" "chunk $k missing" \
			|| bad="$bad chunk $k: '$l', not /$want/ ($before samples before, $after after), $(cat "$TMP/d.err");"
		before=$((before + missing))
	fi
	k=$((k + 1))
done < "$TMP/chunks"
[ -z "$bad" ] && ok "integrity-every-chunk-taken-out-is-named ($n chunks)" \
	|| fail "integrity-every-chunk-taken-out-is-named" "$bad"

# --- each chunk damaged, in its header and in its frame. A byte of a
# frame can be flipped with nothing decoded changed (a match then copies
# the same bytes from elsewhere in a run of equal ones, about 1 flip in
# 130 of a wall trace's chunk here): the content checksum holds, and
# nothing is lost. Such a flip must leave every report as it was, and the
# next byte is flipped instead, up to 16 times.
"$REPORT" folded "$TMP/t.trace" > "$TMP/whole.folded"
bad=
unchanged=0
k=0
while read -r off len; do
	if [ $k -gt 0 ]; then
		for at in $((off + 21)) $((off + 24 + len / 2 - 12)); do
			for try in $(seq 16); do
				flipped "$TMP/t.trace" "$at" "$TMP/f.trace"
				info_of "$TMP/f.trace" f; rc=$?
				l=$(losses "$TMP/f.info")
				[ -z "$l" ] && [ $at -gt $((off + 24)) ] && [ $rc -eq 0 ] && [ ! -s "$TMP/f.err" ] || break
				"$REPORT" folded "$TMP/f.trace" > "$TMP/f.folded"
				if ! cmp -s "$TMP/f.folded" "$TMP/whole.folded" \
					|| ! cmp -s <(tail -n +2 "$TMP/f.info") <(tail -n +2 "$TMP/whole.info"); then
					l="unnoticed, but the report changed"
					break
				fi
				unchanged=$((unchanged + 1))
				at=$((at + 1))
			done
			case $l in
			"  chunk $k damaged at bytes $off-$((off + len)) ("*) good=1 ;;
			"  chunk $k (the footer) damaged at bytes $off-$((off + len)) ("*) good=$([ $k -eq $((n - 1)) ] && echo 1) ;;
			"  chunk $k (and any after it) damaged at bytes $off-$((off + len)) ("*) good=$([ $k -eq $((n - 1)) ] && echo 1) ;;
			*) good= ;;
			esac
			[ $rc -eq 0 ] && [ -n "$good" ] && [ "$(echo "$l" | wc -l)" = 1 ] \
				&& [ "$(field "$TMP/f.info" 'chunks damaged')" = 1 ] \
				&& [ "$(field "$TMP/f.info" 'bytes cut')" = 0 ] \
				&& warned "$TMP/f.err" "$TMP/f.trace" "chunk $k damaged" \
				|| bad="$bad byte $at of chunk $k: $l $(cat "$TMP/f.err");"
		done
	fi
	k=$((k + 1))
done < "$TMP/chunks"
[ -z "$bad" ] && ok "integrity-every-chunk-damaged-is-named-never-cut ($((2 * (n - 1))) cases, $unchanged flips that changed nothing)" \
	|| fail "integrity-every-chunk-damaged-is-named-never-cut" "$bad"

# --- the last chunk damaged whole: damage, not a cut (the footer's frame)
set -- $last
flipped "$TMP/t.trace" $(($1 + $2 - 2)) "$TMP/last.trace"
info_of "$TMP/last.trace" last
if [ "$(field "$TMP/last.info" 'chunks damaged')" = 1 ] && [ "$(field "$TMP/last.info" 'bytes cut')" = 0 ] \
	&& ! grep -q 'cut short' "$TMP/last.err" "$TMP/last.info"; then
	ok "integrity-damaged-last-chunk-is-no-cut"
else
	fail "integrity-damaged-last-chunk-is-no-cut" "$(losses "$TMP/last.info") $(cat "$TMP/last.err")"
fi

# --- a cut in the middle of a chunk: a cut, and nothing damaged
set -- $(sed -n "$((n - 1))p" "$TMP/chunks")
head -c $(($1 + $2 / 2)) "$TMP/t.trace" > "$TMP/cut.trace"
info_of "$TMP/cut.trace" cut
if [ "$(losses "$TMP/cut.info" | cut -d: -f1)" = "  chunk $((n - 2)) cut short at byte $1, where the file ends $(($2 / 2)) bytes into it" ] \
	&& [ "$(field "$TMP/cut.info" 'bytes cut')" = $(($2 / 2)) ] \
	&& [ "$(field "$TMP/cut.info" 'chunks damaged')" = 0 ] \
	&& [ "$(cat "$TMP/cut.err")" = "prof-report: warning: '$TMP/cut.trace' is incomplete: cut short ($(($2 / 2)) bytes of chunk $((n - 2)) lost)" ]; then
	ok "integrity-cut-is-a-cut"
else
	fail "integrity-cut-is-a-cut" "$(losses "$TMP/cut.info") $(cat "$TMP/cut.err")"
fi

# --- one duration: to the end record, and on a trace that lost it (cut
# above, in the chunk that held it) to the latest sample read. info (in
# ms), the pprof export (duration_nanos, field 10, in ns) and the graph's
# subtitle (in tenths of a second) say the same of either trace.
# durations FILE NAME: "INFO PPROF SVG" as each prints it, then the pprof
# duration printed as info and as the subtitle print theirs.
durations() {
	local info ns svg
	info=$("$REPORT" info "$1" 2> /dev/null | awk '$1 == "duration:" { print $2 }')
	"$REPORT" export --format pprof -o "$TMP/$2.pb.gz" "$1" 2> /dev/null
	ns=$(gzip -dc "$TMP/$2.pb.gz" | protoc --decode_raw | sed -n 's/^10: //p')
	"$REPORT" svg -o "$TMP/$2.svg" "$1" 2> /dev/null
	svg=$(sed -n 's/.*<text id="subtitle"[^>]*>[^<]*, \([0-9.]*\) s, [0-9]* samples.*/\1/p' "$TMP/$2.svg")
	echo "${info:--} ${ns:--} ${svg:--}"
	awk -v ns="${ns:-0}" 'BEGIN { printf "%.3f %s %.1f\n", ns / 1e9, ns, ns / 1e9 }'
}
if ! command -v protoc > /dev/null 2>&1; then
	skip "integrity-unfinished-durations-agree" "protoc is not installed (Debian protobuf-compiler) to read the pprof export"
else
	bad=
	for f in t cut; do
		{ read -r said; read -r want; } <<< "$(durations "$TMP/$f.trace" "dur-$f")"
		[ "$said" = "$want" ] && [ "${want%% *}" != 0.000 ] \
			|| bad="$bad $f.trace: info, pprof, svg say '$said', not '$want';"
	done
	grep -q '^duration:   [0-9.]* s (to the last sample; no end record)$' "$TMP/cut.info" \
		|| bad="$bad cut.trace: $(grep '^duration' "$TMP/cut.info"), not to the last sample;"
	[ -z "$bad" ] && ok "integrity-unfinished-durations-agree ($said)" \
		|| fail "integrity-unfinished-durations-agree" "$bad"
fi

# --- a pack is appended only where a chunk read whole ends the file
bad=
for f in cut last; do
	cp "$TMP/$f.trace" "$TMP/$f-embed.trace"
	"$REPORT" pack --embed "$TMP/$f-embed.trace" 2> "$TMP/embed.err"; rc=$?
	[ $rc -eq 1 ] && cmp -s "$TMP/$f.trace" "$TMP/$f-embed.trace" \
		&& grep -q "'$TMP/$f-embed.trace' ends in a partial or damaged chunk; write the pack to a file of its own with -o" "$TMP/embed.err" \
		|| bad="$bad $f: exit $rc, $(cat "$TMP/embed.err");"
done
[ -z "$bad" ] && ok "integrity-pack-not-embedded-after-a-cut-or-damage" \
	|| fail "integrity-pack-not-embedded-after-a-cut-or-damage" "$bad"

# --- every command warns once: a trace with chunk 2 out, against the whole
set -- $(sed -n 3p "$TMP/chunks")
without "$TMP/t.trace" "$1" "$2" "$TMP/d.trace"
bad=
for cmd in folded "svg -o $TMP/d.svg" top threads "export --format speedscope -o $TMP/d.json" \
	"threads --split $TMP/split" "diff --folded $TMP/t.trace"; do
	"$REPORT" $cmd "$TMP/d.trace" > /dev/null 2> "$TMP/cmd.err"; rc=$?
	[ $rc -eq 0 ] && [ "$(wc -l < "$TMP/cmd.err")" = 1 ] && warned "$TMP/cmd.err" "$TMP/d.trace" "chunk 2 missing" \
		|| bad="$bad $cmd: exit $rc, $(cat "$TMP/cmd.err");"
done
[ -z "$bad" ] && ok "integrity-every-command-warns-once" || fail "integrity-every-command-warns-once" "$bad"

# --- an embedded symbol pack: its chunks lost are named, and the trace
# still finished cleanly. Nothing counts them, so the last one taken whole
# leaves no sign (prof-trace(5) "Symbol packs"): the chunks before it read,
# and packing again puts back its addresses alone.
cp "$TMP/t.trace" "$TMP/e.trace"
"$REPORT" pack --embed "$TMP/e.trace" 2> "$TMP/pack.err"
# packed ERR: the addresses the pack command said it wrote
packed() { sed -n "s/^prof-report: appended to '.*': \([0-9]*\) addresses of .*/\1/p" "$1"; }
all=$(packed "$TMP/pack.err")
chunks "$TMP/e.trace" | tail -n +$((n + 1)) > "$TMP/pack-chunks"
ns=$(wc -l < "$TMP/pack-chunks")
bad=
k=$n
while read -r off len; do
	without "$TMP/e.trace" "$off" "$len" "$TMP/d.trace"
	info_of "$TMP/d.trace" d
	if [ $k -lt $((n + ns - 1)) ]; then
		[ "$(losses "$TMP/d.info")" = "  chunk $k missing at byte $off" ] \
			&& warned "$TMP/d.err" "$TMP/d.trace" "chunk $k missing" \
			|| bad="$bad chunk $k: $(losses "$TMP/d.info") $(cat "$TMP/d.err");"
	else
		"$REPORT" pack --embed "$TMP/d.trace" 2> "$TMP/repack.err"
		"$REPORT" pack --embed "$TMP/d.trace" 2> "$TMP/repack2.err"
		again=$(packed "$TMP/repack.err")
		[ -z "$(losses "$TMP/d.info")" ] && [ ! -s "$TMP/d.err" ] \
			&& [ "$(read_chunks "$TMP/d.info")" = $((n + ns - 1)) ] \
			&& [ -n "$all" ] && [ "${again:-0}" -gt 0 ] && [ "$again" -lt "$all" ] \
			&& grep -q "nothing to add: '$TMP/d.trace' already holds" "$TMP/repack2.err" \
			|| bad="$bad last chunk $k: $(losses "$TMP/d.info") $(cat "$TMP/d.err"), $(read_chunks "$TMP/d.info") chunks read, packed again: $(cat "$TMP/repack.err" "$TMP/repack2.err");"
	fi
	grep -q '^  finished cleanly   yes$' "$TMP/d.info" || bad="$bad chunk $k: not finished cleanly;"
	flipped "$TMP/e.trace" $((off + len - 2)) "$TMP/f.trace"
	info_of "$TMP/f.trace" f
	[ "$(losses "$TMP/f.info")" = "  chunk $k (symbols) damaged at bytes $off-$((off + len)) (content checksum mismatch)" ] \
		&& grep -q '^  finished cleanly   yes$' "$TMP/f.info" \
		|| bad="$bad chunk $k damaged: $(losses "$TMP/f.info") $(cat "$TMP/f.err");"
	k=$((k + 1))
done < "$TMP/pack-chunks"
if [ "$ns" -gt 0 ] && [ -z "$bad" ]; then
	ok "integrity-embedded-pack-losses-named ($ns symbols chunks; the last packed again: $again of $all addresses)"
else
	fail "integrity-embedded-pack-losses-named" "$ns symbols chunks: $bad $(cat "$TMP/pack.err")"
fi
