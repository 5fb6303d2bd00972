#!/usr/bin/env bash
# End-to-end: symbol packs. A fixture with inline chains is copied into a
# temporary directory and recorded; the trace is packed, the binary is
# deleted (and nothing else can serve it: no debuginfod cache, no build-id
# tree entry), and every report made from the pack must be byte-identical
# to the one made with the binary, with and without --lines and
# --no-inline. Then the same with the pack embedded in the trace, an embed
# that is repeated, and packs that are cut, damaged or of another build.
# --asm and --sources, off by default, store the code of a sampled
# function as the binary has it and the text of a sampled line, seen in
# the pack's chunks decompressed by the fuzzer's seed tool trace_raw.
. "$(dirname "$0")/lib.sh"

export DEBUGINFOD_CACHE_PATH=$TMP/no-cache

# An image the trace records no identity for: named, with the reason, and
# a failure with --check. Synthetic, so it runs without ptrace.
if [ -x "$BUILD/tests/tools/synth_trace" ]; then
	"$BUILD/tests/tools/synth_trace" -o "$TMP/noid.trace" --os linux --command app \
		--image "KIND=none,PATH=/nonexistent/app,START=0x1000,SIZE=0x1000,BIAS=0x1000" \
		--thread TID=1,NAME=main --sample TID=1,STACK=0x1100:0x1050 --sample TID=1,STACK=0x1200:0x1050
	out=$("$REPORT" pack --check -o "$TMP/noid.syms" "$TMP/noid.trace" 2>&1); rc=$?
	[ $rc -eq 1 ] && echo "$out" | grep -q "^prof-report: left out image 1 'app' (3 addresses): the trace records no identity for it" &&
		echo "$out" | grep -q "^prof-report: 1 image with samples left out of the pack; make" \
		&& ok "pack-check-names-an-image-without-identity" \
		|| fail "pack-check-names-an-image-without-identity" "exit $rc: $out"
else
	skip "pack-check-names-an-image-without-identity" "no synth_trace in $BUILD/tests/tools"
fi

if ! why=$(ptrace_ok); then
	skip "pack" "$why"
	exit 0
fi

D=$TMP/app
mkdir -p "$D"
cp "$FIX/inline" "$D/inline"
cp "$FIX/frameless" "$D/frameless"
if ! "$RECORD" -q -o "$D/t.trace" -- "$D/inline" 1 > /dev/null 2> "$TMP/record.err"; then
	fail "pack-record" "$(tail -3 "$TMP/record.err")"
	exit 0
fi
"$RECORD" -q -o "$D/other.trace" -- "$D/frameless" 1 > /dev/null 2>&1

VARIANTS=("" "--lines" "--no-inline" "--lines --no-inline")
# reports TRACE DIR: every report of TRACE, into DIR, one file each.
reports() {
	local trace=$1 dir=$2 v i=0
	mkdir -p "$dir"
	for v in "${VARIANTS[@]}"; do
		# shellcheck disable=SC2086
		"$REPORT" folded $v "$trace" > "$dir/folded.$i" 2>> "$dir/err"
		# shellcheck disable=SC2086
		"$REPORT" svg $v "$trace" > "$dir/svg.$i" 2>> "$dir/err"
		# the language and image of each frame, and whether it is named
		# shellcheck disable=SC2086
		"$REPORT" svg --colors lang $v "$trace" > "$dir/svg.lang.$i" 2>> "$dir/err"
		# shellcheck disable=SC2086
		"$REPORT" top $v "$trace" > "$dir/top.$i" 2>> "$dir/err"
		# shellcheck disable=SC2086
		"$REPORT" threads $v "$trace" > "$dir/threads.$i" 2>> "$dir/err"
		i=$((i + 1))
	done
}
# same NAME WANT GOT: ok if every report in GOT is byte-identical to WANT's.
same() {
	local name=$1 want=$2 got=$3 f bad=""
	for f in "$want"/folded.* "$want"/svg.* "$want"/top.* "$want"/threads.*; do
		cmp -s "$f" "$got/${f##*/}" || bad="$bad ${f##*/}"
	done
	if [ -z "$bad" ]; then
		ok "$name ($(ls "$want" | grep -vc err) reports byte-identical)"
	else
		fail "$name" "differ:$bad; e.g. $(diff "$want/${bad## }" "$got/${bad## }" 2>&1 | head -4 | tr '\n' '|')"
	fi
}
# served_by TRACE [OPTIONS]: the 'symbols:' line of the inline image in info.
served_by() {
	"$REPORT" info "$@" 2> /dev/null | awk -v img="$D/inline" '$3 == img { on = 1 } on && /symbols:/ { print; exit }'
}

cp "$D/t.trace" "$D/e.trace"
reports "$D/t.trace" "$TMP/with-binary"
grep -q 'rotate_mix (inline.c' "$TMP/with-binary/folded.1" \
	&& ok "pack-fixture-has-inline-frames" \
	|| fail "pack-fixture-has-inline-frames" "$(head -3 "$TMP/with-binary/folded.1")"

# --- a pack file next to the trace
if "$REPORT" pack "$D/t.trace" 2> "$TMP/pack.err" && [ -s "$D/t.trace.syms" ]; then
	ok "pack-writes-trace.syms ($(head -1 "$TMP/pack.err"))"
else
	fail "pack-writes-trace.syms" "$(cat "$TMP/pack.err")"
fi
# With every file here, --check fails only for an image left out (the
# vDSO, which has no file, if a sample fell in it), and never the program.
"$REPORT" pack --check -o "$TMP/check.syms" "$D/t.trace" 2> "$TMP/check.err"; rc=$?
if ! grep -q "left out image [0-9]* 'inline'" "$TMP/check.err" &&
	if grep -q 'left out' "$TMP/check.err"; then [ $rc -eq 1 ]; else [ $rc -eq 0 ]; fi; then
	ok "pack-check-with-the-files (exit $rc$(sed -n "s/.*left out image [0-9]* \('[^']*'\).*/, left out: \1/p" "$TMP/check.err" | head -1))"
else
	fail "pack-check-with-the-files" "exit $rc: $(cat "$TMP/check.err")"
fi
check_rc=$rc

# --- code and sources
# in_pack PACK HEX: whether the decompressed chunks of PACK hold the bytes
# whose hex (two digits a byte, nothing between) is HEX.
in_pack() {
	"$BUILD/fuzz/trace_raw" "$1" "$TMP/raw" &&
		od -An -v -tx1 "$TMP/raw" | tr -d ' \n' | sed 's/../& /g' | grep -q "$(echo "$2" | sed 's/../& /g')"
}
hex() { od -An -v -tx1 | tr -d ' \n'; }
# The text of the leaf line of the top stack that ends in inline.c, and the bytes of run(), a
# noinline function in every stack, as the binary has them.
line=$(awk '/\(inline\.c:[0-9]+\) [0-9]+$/ && $NF > n { n = $NF; top = $0 } END { print top }' \
	"$TMP/with-binary/folded.1" | sed -n 's/.*(inline\.c:\([0-9]*\)) [0-9]*$/\1/p')
text=$(sed -n "${line:-0}p" "$TOP/testdata/inline.c")
read -r addr size < <(nm -S "$D/inline" | awk '$4 == "run" { print $1, $2 }')
read -r taddr toff < <(readelf -SW "$D/inline" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".text" { print $3, $4 }')
code=$(dd if="$D/inline" bs=1 skip=$((0x$addr - 0x$taddr + 0x$toff)) count=$((0x$size)) 2> /dev/null | hex)
if [ ! -x "$BUILD/fuzz/trace_raw" ] || [ -z "$text" ] || [ -z "$code" ]; then
	skip "pack-asm-and-sources" "no trace_raw in $BUILD/fuzz, or no line or code of run() found (line '$line', run at '$addr')"
else
	texthex=$(printf '%s' "$text" | hex)
	in_pack "$D/t.trace.syms" "$texthex" && fail "pack-sources-off-by-default" "line $line is in the pack" \
		|| ok "pack-sources-off-by-default"
	"$REPORT" pack --check --asm --sources -o "$TMP/full.syms" "$D/t.trace" 2> "$TMP/full.err"; rc=$?
	in_pack "$TMP/full.syms" "$texthex" && grep -q '; [1-9][0-9]* source lines of [1-9]' "$TMP/full.err" \
		&& ok "pack-sources-stored (line $line: $(sed -n 's/.*; \([0-9]* source lines.*\)/\1/p' "$TMP/full.err"))" \
		|| fail "pack-sources-stored" "line $line '$text' not in the pack: $(cat "$TMP/full.err")"
	in_pack "$TMP/full.syms" "$code" && grep -q 'the code of [1-9][0-9]* functions' "$TMP/full.err" \
		&& ok "pack-asm-stores-bytes (run, $((0x$size)) bytes as the binary has them)" \
		|| fail "pack-asm-stores-bytes" "run's $((0x$size)) bytes not in the pack: $(cat "$TMP/full.err")"
	[ $rc = "$check_rc" ] && ok "pack-check-ignores-code-and-sources (exit $rc)" \
		|| fail "pack-check-ignores-code-and-sources" "exit $rc, $check_rc without them: $(cat "$TMP/full.err")"
fi

rm "$D/inline"
case $(served_by "$D/t.trace") in
*"pack $D/t.trace.syms"*) ok "pack-info-names-the-pack" ;;
*) fail "pack-info-names-the-pack" "$(served_by "$D/t.trace")" ;;
esac
reports "$D/t.trace" "$TMP/from-pack"
same "pack-reports-identical-without-the-binary" "$TMP/with-binary" "$TMP/from-pack"
[ ! -s "$TMP/from-pack/err" ] && ok "pack-reports-no-warnings" || fail "pack-reports-no-warnings" "$(head -3 "$TMP/from-pack/err")"

# The pack is what serves it: without it the frames are hex.
mv "$D/t.trace.syms" "$TMP/t.syms"
"$REPORT" folded "$D/t.trace" > "$TMP/none.folded" 2>&1
grep -q 'inline+0x' "$TMP/none.folded" && ! grep -q 'rotate_mix' "$TMP/none.folded" \
	&& ok "pack-without-it-frames-are-unresolved" \
	|| fail "pack-without-it-frames-are-unresolved" "$(head -2 "$TMP/none.folded")"
# Packed again now, the program is left out: named, with the reason, and
# exit 0; a failure with --check.
out=$("$REPORT" pack -o "$TMP/gone.syms" "$D/t.trace" 2>&1); rc=$?
n=$(awk '{ line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";")
	for (i = 1; i <= k; i++) if (f[i] ~ /^inline\+0x/) a[f[i]] = 1 }
	END { print length(a) }' "$TMP/none.folded")
# Its count is of addresses looked up (a leaf and a return address one
# byte apart are one), so it is near the report's unnamed frames, not equal.
k=$(echo "$out" | sed -n "s/^prof-report: left out image [0-9]* 'inline' (\([0-9]*\) addresses): no file with a matching identity; 'prof-report info' lists the paths tried.*/\1/p")
[ $rc -eq 0 ] && [ -n "$k" ] && [ "$k" -gt 0 ] && [ "$k" -le $((2 * n)) ] && [ $((2 * k)) -ge "$n" ] \
	&& ok "pack-names-the-image-left-out ($k addresses; the report shows $n unnamed frames)" \
	|| fail "pack-names-the-image-left-out" "exit $rc, $n addresses unnamed: $out"
out=$("$REPORT" pack --check -o "$TMP/gone.syms" "$D/t.trace" 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "image.* with samples left out of the pack; make their files available" \
	&& ok "pack-check-fails-when-an-image-is-left-out" \
	|| fail "pack-check-fails-when-an-image-is-left-out" "exit $rc: $out"
# --pack FILE does what TRACE.syms does.
"$REPORT" folded --lines --pack "$TMP/t.syms" "$D/t.trace" > "$TMP/opt.folded" 2>&1
cmp -s "$TMP/opt.folded" "$TMP/with-binary/folded.1" && ok "pack-option" \
	|| fail "pack-option" "$(diff "$TMP/with-binary/folded.1" "$TMP/opt.folded" | head -3)"
if [ -s "$TMP/full.syms" ]; then
	"$REPORT" folded --lines --pack "$TMP/full.syms" "$D/t.trace" > "$TMP/full.folded" 2>&1
	cmp -s "$TMP/full.folded" "$TMP/with-binary/folded.1" && ok "pack-with-code-and-sources-serves-the-same-frames" \
		|| fail "pack-with-code-and-sources-serves-the-same-frames" "$(diff "$TMP/with-binary/folded.1" "$TMP/full.folded" | head -3)"
fi

# --- embedded
cp "$FIX/inline" "$D/inline"   # the same build, back for the embed
if "$REPORT" pack --embed "$D/e.trace" 2> "$TMP/embed.err"; then
	ok "pack-embed ($(cat "$TMP/embed.err"))"
else
	fail "pack-embed" "$(cat "$TMP/embed.err")"
fi
size1=$(stat -c %s "$D/e.trace")
"$REPORT" pack --embed "$D/e.trace" 2> "$TMP/embed2.err"
size2=$(stat -c %s "$D/e.trace")
[ "$size1" = "$size2" ] && grep -q 'nothing to add' "$TMP/embed2.err" \
	&& ok "pack-embed-twice-adds-nothing ($size1 bytes)" \
	|| fail "pack-embed-twice-adds-nothing" "$size1 -> $size2 bytes: $(cat "$TMP/embed2.err")"
# Code (with the frames of its instructions) and sources join an
# embedded pack later, once.
"$REPORT" pack --embed --asm --sources "$D/e.trace" 2> "$TMP/embed3.err"
size3=$(stat -c %s "$D/e.trace")
"$REPORT" pack --embed --asm --sources "$D/e.trace" 2> "$TMP/embed4.err"
[ "$size3" -gt "$size2" ] && [ "$(stat -c %s "$D/e.trace")" = "$size3" ] &&
	grep -q '^prof-report: appended to .*: [1-9][0-9]* addresses of [0-9]* images in [0-9]* bytes.*the code of [1-9]' "$TMP/embed3.err" &&
	grep -q 'nothing to add' "$TMP/embed4.err" \
	&& ok "pack-embed-adds-code-and-sources-once ($size2 -> $size3 bytes)" \
	|| fail "pack-embed-adds-code-and-sources-once" "$size2 -> $size3 bytes: $(cat "$TMP/embed3.err" "$TMP/embed4.err")"
rm "$D/inline"
"$REPORT" info "$D/t.trace" > "$TMP/t.info" 2>&1
"$REPORT" info "$D/e.trace" > "$TMP/e.info" 2>&1
if grep -q '^samples: *'"$(awk '/^samples:/ { print $2 }' "$TMP/t.info")"'$' "$TMP/e.info" &&
	grep -q 'chunks damaged *0 ' "$TMP/e.info" && grep -q 'chunks missing *0$' "$TMP/e.info" &&
	grep -q 'finished cleanly *yes' "$TMP/e.info" && grep -q 'bytes cut *0$' "$TMP/e.info"; then
	ok "pack-embedded-trace-stays-valid"
else
	fail "pack-embedded-trace-stays-valid" "$(grep -E '^samples|chunks|finished' "$TMP/e.info" | tr '\n' '|')"
fi
case $(served_by "$D/e.trace") in
*"pack $D/e.trace "*) ok "pack-info-names-the-embedded-pack" ;;
*) fail "pack-info-names-the-embedded-pack" "$(served_by "$D/e.trace")" ;;
esac
reports "$D/e.trace" "$TMP/from-embedded"
same "pack-embedded-reports-identical-without-the-binary" "$TMP/with-binary" "$TMP/from-embedded"
# Re-packing a trace whose binary is gone keeps what its pack held.
"$REPORT" pack "$D/e.trace" -o "$TMP/re.syms" 2> /dev/null
"$REPORT" folded --lines --pack "$TMP/re.syms" "$D/t.trace" > "$TMP/re.folded" 2>&1
cmp -s "$TMP/re.folded" "$TMP/with-binary/folded.1" && ok "pack-repack-from-a-pack" \
	|| fail "pack-repack-from-a-pack" "$(diff "$TMP/with-binary/folded.1" "$TMP/re.folded" | head -3)"

# --- hostile packs
size=$(stat -c %s "$TMP/t.syms")
head -c $((size - 7)) "$TMP/t.syms" > "$TMP/cut.syms"
out=$("$REPORT" folded --pack "$TMP/cut.syms" "$D/t.trace" 2>&1 > /dev/null); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "pack '$TMP/cut.syms' is incomplete: cut short" \
	&& ok "pack-cut-short-warns" || fail "pack-cut-short-warns" "exit $rc: $out"
cp "$TMP/t.syms" "$TMP/flip.syms"
printf '\xff' | dd of="$TMP/flip.syms" bs=1 seek=$((size / 2)) conv=notrunc 2> /dev/null
out=$("$REPORT" folded --pack "$TMP/flip.syms" "$D/t.trace" 2>&1 > /dev/null); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "pack '$TMP/flip.syms' is incomplete: chunk [0-9]* damaged$" \
	&& ok "pack-flipped-byte-skips-the-chunk" || fail "pack-flipped-byte-skips-the-chunk" "exit $rc: $out"
out=$("$REPORT" folded --pack "$TOP/testdata/inline.c" "$D/t.trace" 2>&1 > /dev/null); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "^prof-report: cannot read pack '$TOP/testdata/inline.c': not a prof trace" \
	&& ok "pack-not-a-pack-refused" || fail "pack-not-a-pack-refused" "exit $rc: $out"
out=$("$REPORT" folded --pack "$TMP/missing.syms" "$D/t.trace" 2>&1 > /dev/null); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "cannot read pack '$TMP/missing.syms': No such file or directory" \
	&& ok "pack-missing-refused" || fail "pack-missing-refused" "exit $rc: $out"
# A pack of another program: its identities match nothing here.
"$REPORT" pack "$D/other.trace" -o "$TMP/other.syms" 2> /dev/null
"$REPORT" folded --pack "$TMP/other.syms" "$D/t.trace" > "$TMP/other.folded" 2>&1
case $(served_by "$D/t.trace" --pack "$TMP/other.syms") in *"symbols:  none"*) w=1 ;; *) w=0 ;; esac
cmp -s "$TMP/other.folded" "$TMP/none.folded" && [ $w = 1 ] \
	&& ok "pack-of-another-build-serves-nothing" \
	|| fail "pack-of-another-build-serves-nothing" "$(diff "$TMP/none.folded" "$TMP/other.folded" | head -3)"
# A damaged TRACE.syms next to the trace: a warning, never a failure.
echo garbage > "$D/t.trace.syms"
out=$("$REPORT" folded "$D/t.trace" 2>&1 > /dev/null); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "warning: not using pack '$D/t.trace.syms': not a prof trace" \
	&& ok "pack-bad-side-pack-warns" || fail "pack-bad-side-pack-warns" "exit $rc: $out"
rm -f "$D/t.trace.syms"
# Bad usage.
"$REPORT" pack --embed -o x "$D/t.trace" > /dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "pack-embed-and-output-is-bad-usage" || fail "pack-embed-and-output-is-bad-usage" "exit $rc"
cp "$D/t.trace" "$TMP/t.copy"
out=$("$REPORT" pack "$D/t.trace" -o "$D/t.trace" 2>&1); rc=$?
[ $rc -eq 1 ] && cmp -s "$D/t.trace" "$TMP/t.copy" && echo "$out" | grep -q "is the trace itself" \
	&& ok "pack-never-over-its-trace" || fail "pack-never-over-its-trace" "exit $rc: $out"
