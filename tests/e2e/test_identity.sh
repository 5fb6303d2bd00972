#!/usr/bin/env bash
# End-to-end: every image gets an identity, and only the file that has it
# names the image's code (format/trace_ident.h). A program linked without a
# build-id is named from the file at its path, and refused once that file
# is rebuilt; a program deleted, or replaced by another build, while it
# runs, and one run from a path that exists only in its own mount
# namespace, are named from the file they really ran, which the recorder
# read through /proc/PID/map_files and kept in the image cache. A target
# that maps a device, or swaps the file it mapped for a FIFO, a link to
# /proc/self/mem or a truncated copy, costs the recorder nothing: the image
# is recorded, without an identity and with the reason.
. "$(dirname "$0")/lib.sh"

CC=${CC:-cc}
nobid() { $CC -O1 -g -fno-omit-frame-pointer -Wl,--build-id=none -I"$TOP/testdata" "$@"; }
if ! nobid -o "$TMP/lines" "$TOP/testdata/split.c" 2> "$TMP/cc.err"; then
	skip identity "cannot build a fixture without a build-id: $(head -1 "$TMP/cc.err")"
	exit 0
fi
# another build of the same source: the same size is not promised
nobid -O2 -o "$TMP/lines.other" "$TOP/testdata/split.c"
if readelf -n "$TMP/lines" | grep -q 'Build ID'; then
	fail no-build-id-fixture "the linker wrote a build-id"
fi

# named FOLDED NAME: whether path_a and path_b are named, about 3:1.
named() {
	local a b
	a=$(share "$1" ';path_a(;|$)') b=$(share "$1" ';path_b(;|$)')
	if [ "$a" -ge 60 ] && [ "$a" -le 90 ] && [ "$b" -ge 10 ]; then
		ok "$2 (path_a ${a}%, path_b ${b}%)"
	else
		fail "$2" "path_a ${a}%, path_b ${b}%: $(sort -t' ' -k2 -nr "$1" | head -3 | tr '\n' '|')"
	fi
}

# image_info TRACE PATH: the info block of the image recorded at PATH.
image_info() {
	"$REPORT" info "$1" 2>&1 | awk -v p="$2" '/^  image [0-9]+: / { on = ($3 == p) } on'
}

# --- a program linked without a build-id -------------------------------
"$RECORD" -q -f -o "$TMP/nobid.trace" -- "$TMP/lines" 0.5 2> "$TMP/rec.err" > /dev/null
"$REPORT" folded "$TMP/nobid.trace" > "$TMP/nobid.folded" 2>&1
named "$TMP/nobid.folded" no-build-id-named-from-its-path
info=$(image_info "$TMP/nobid.trace" "$TMP/lines")
echo "$info" | grep -Eq '^    ident:    content [0-9a-f]{48}$' \
	&& echo "$info" | grep -q "^    symbols:  $TMP/lines (DWARF" \
	&& ok no-build-id-has-a-content-identity \
	|| fail no-build-id-has-a-content-identity "$(echo "$info" | tr '\n' '|')"
# a content identity matches the same code stripped of its sections, and
# the unstripped file, under --symbols by any name, serves it
strip -s -o "$TMP/lines.stripped" "$TMP/lines"
mkdir -p "$TMP/syms" && cp "$TMP/lines" "$TMP/syms/lines.unstripped"
cp "$TMP/lines" "$TMP/lines.orig"
cp "$TMP/lines.stripped" "$TMP/lines"
"$REPORT" info --symbols "$TMP/syms" "$TMP/nobid.trace" > "$TMP/stripped.info" 2>&1
"$REPORT" folded --symbols "$TMP/syms" "$TMP/nobid.trace" > "$TMP/stripped.folded" 2>&1
grep -q "^    symbols:  $TMP/syms/lines.unstripped (DWARF" "$TMP/stripped.info" \
	&& grep -q "not used $TMP/lines: it matches but has no debug information" "$TMP/stripped.info" \
	&& ok stripped-copy-has-the-same-content-identity \
	|| fail stripped-copy-has-the-same-content-identity "$(grep -E 'symbols:|not used' "$TMP/stripped.info" | head -4 | tr '\n' '|')"
named "$TMP/stripped.folded" stripped-named-from-symbols-by-content

# refused: rebuilt, the same size with a byte changed late in its last
# loadable segment (its first pages as they were), truncated
refused() {
	local info
	"$REPORT" folded "$TMP/nobid.trace" > "$TMP/r.folded" 2>&1
	info=$(image_info "$TMP/nobid.trace" "$TMP/lines")
	if echo "$info" | grep -q "not used $TMP/lines: the file at $TMP/lines has changed since the recording" &&
	   ! grep -q 'path_a' "$TMP/r.folded"; then
		ok "$1"
	else
		fail "$1" "$(echo "$info" | grep -E 'symbols|not used' | tr '\n' '|')"
	fi
}
cp "$TMP/lines.other" "$TMP/lines"
refused rebuilt-file-refused
cp "$TMP/lines.orig" "$TMP/lines"
last=$(readelf -lW "$TMP/lines" | awk '$1 == "LOAD" { off = $2; sz = $5 } END { print off, sz }')
last=$(( ${last% *} + ${last#* } - 1 ))
printf '\x5a' | dd of="$TMP/lines" bs=1 seek="$last" conv=notrunc status=none
[ "$(stat -c %s "$TMP/lines")" = "$(stat -c %s "$TMP/lines.orig")" ] && cmp -s <(head -c 4096 "$TMP/lines") <(head -c 4096 "$TMP/lines.orig") \
	|| fail same-size-file-crafted "the crafted copy differs in size or first page"
refused same-size-same-first-page-refused
head -c $(($(stat -c %s "$TMP/lines.orig") / 2)) "$TMP/lines.orig" > "$TMP/lines"
"$REPORT" info "$TMP/nobid.trace" 2>&1 | grep -q "not used $TMP/lines: " && ! "$REPORT" folded "$TMP/nobid.trace" 2>&1 | grep -q path_a \
	&& ok truncated-copy-refused \
	|| fail truncated-copy-refused "$(image_info "$TMP/nobid.trace" "$TMP/lines" | tr '\n' '|')"
cp "$TMP/lines.orig" "$TMP/lines"

# a pack made while the file is there names it after it is gone
if "$REPORT" pack "$TMP/nobid.trace" 2> "$TMP/pack.err"; then
	mv "$TMP/lines" "$TMP/lines.away"
	"$REPORT" folded "$TMP/nobid.trace" > "$TMP/packed.folded" 2>&1
	named "$TMP/packed.folded" no-build-id-named-from-a-pack
	mv "$TMP/lines.away" "$TMP/lines"
	rm -f "$TMP/nobid.trace.syms"
else
	fail no-build-id-named-from-a-pack "$(cat "$TMP/pack.err")"
fi

# one file, two processes: identified and hashed once
"$RECORD" -v -f -o "$TMP/two.trace" -- sh -c "'$TMP/lines' 0.3 & '$TMP/lines' 0.3; wait" > /dev/null 2> "$TMP/two.err"
grep -q 'image files: [0-9]*, each read once; 1 given a content hash' "$TMP/two.err" \
	&& [ "$("$REPORT" info "$TMP/two.trace" | grep -c "^  image [0-9]*: $TMP/lines\$")" -ge 2 ] \
	&& ok one-file-two-processes-hashed-once \
	|| fail one-file-two-processes-hashed-once "$(grep 'image files' "$TMP/two.err")"

# --- the image cache: --keep-images, and its cap ----------------------------
# An old file that fills the cap goes when a recording keeps another; a
# file larger than the cap is not kept, and the recorder says so.
old=$PROF_IMAGE_CACHE/content/00112233445566778899aabbccddeeff0011223344556677/old
mkdir -p "${old%/*}"
head -c $((1024 * 1024)) /dev/zero > "$old"
touch -d '2020-01-01' "$old"
"$RECORD" -q -f --keep-images --image-cache-max 1 -o "$TMP/keep.trace" -- "$TMP/lines" 0.2 > /dev/null 2> "$TMP/keep.err"
kept=$(find "$PROF_IMAGE_CACHE" -type f -name lines | wc -l)
if [ "$kept" = 1 ] && [ ! -e "$old" ] && [ ! -d "${old%/*}" ] &&
   grep -q "warning: cannot keep '.*libc.so.6' in the image cache: File too large" "$TMP/keep.err"; then
	ok keep-images-within-the-cap
else
	fail keep-images-within-the-cap "kept $kept, old $(ls "$old" 2>&1), $(tr '\n' '|' < "$TMP/keep.err")"
fi
"$RECORD" -q -f --keep-images -o "$TMP/keep.trace" -- "$TMP/lines" 0.2 > /dev/null 2> "$TMP/keep.err"
n=$(find "$PROF_IMAGE_CACHE/gnu-build-id" -type f -name 'libc.so.6' 2> /dev/null | wc -l)
[ "$n" = 1 ] && [ ! -s "$TMP/keep.err" ] && ok keep-images-keeps-every-image-with-samples \
	|| fail keep-images-keeps-every-image-with-samples "$n libc copies: $(find "$PROF_IMAGE_CACHE" -type f | tr '\n' ' ') $(tr '\n' '|' < "$TMP/keep.err")"
rm -rf "$PROF_IMAGE_CACHE"

# --- deleted, or replaced, while it runs; attached with -p ---------------
if ! why=$(ptrace_ok attach); then
	skip identity-attach "$why"
else
	for how in deleted replaced; do
		cp "$TMP/lines.orig" "$TMP/$how"
		"$TMP/$how" 3 > /dev/null &
		pid=$!
		sleep 0.3
		if [ $how = deleted ]; then
			rm "$TMP/$how"
		else
			cp "$TMP/lines.other" "$TMP/$how.new" && mv "$TMP/$how.new" "$TMP/$how"
		fi
		"$RECORD" -q -f -o "$TMP/$how.trace" -d 1 -p $pid 2> "$TMP/rec.err"
		kill $pid 2> /dev/null
		wait $pid 2> /dev/null
		"$REPORT" folded "$TMP/$how.trace" > "$TMP/$how.folded" 2>&1
		named "$TMP/$how.folded" "$how-while-running-named"
		info=$(image_info "$TMP/$how.trace" "$TMP/$how")
		echo "$info" | grep -q '^    read:     the file mapped (/proc/PID/map_files); deleted or replaced while it ran$' \
			&& echo "$info" | grep -q "^    symbols:  $PROF_IMAGE_CACHE/content/[0-9a-f]*/$how (DWARF" \
			&& ok "$how-while-running-kept-in-the-cache" \
			|| fail "$how-while-running-kept-in-the-cache" "$(echo "$info" | tr '\n' '|')"
	done
fi

# --- a path only its own mount namespace has ------------------------------
if [ "$(id -u)" != 0 ] || ! unshare -m true 2> /dev/null; then
	skip mount-namespace "unshare -m needs root here"
else
	mkdir -p "$TMP/ns" "$TMP/mnt"
	cp "$TMP/lines.orig" "$TMP/ns/lines"
	"$RECORD" -q -f -o "$TMP/ns.trace" -- unshare -m sh -c \
		"mount --bind '$TMP/ns' '$TMP/mnt' && exec '$TMP/mnt/lines' 0.5" 2> "$TMP/rec.err" > /dev/null
	"$REPORT" folded "$TMP/ns.trace" > "$TMP/ns.folded" 2>&1
	named "$TMP/ns.folded" mount-namespace-path-named
	info=$(image_info "$TMP/ns.trace" "$TMP/mnt/lines")
	echo "$info" | grep -q 'its path led the recorder elsewhere' \
		&& echo "$info" | grep -Eq '^    ident:    content [0-9a-f]{48}$' \
		&& ok mount-namespace-identity-recorded \
		|| fail mount-namespace-identity-recorded "$(echo "$info" | tr '\n' '|')"
fi

# --- what a target can do to the files it maps ----------------------------
# mapper_case NAME MODE WHY [RUNAS...]: the recording ends on time, the
# image is there, without an identity, for the reason WHY.
mapper_case() {
	local name=$1 mode=$2 want=$3 file=$TMP/m/$1.so
	shift 3
	cp "$TMP/lines.orig" "$file"
	chmod 666 "$file"
	if ! timeout 20 "$@" "$RECORD" -q -f -o "$TMP/m/$name.trace" -- "$FIX/mapper" 0.5 "$mode" "$file" \
		> /dev/null 2> "$TMP/m/$name.err"; then
		fail "$name" "the recording failed: $(tail -2 "$TMP/m/$name.err" | tr '\n' '|')"
		return
	fi
	[ "$mode" = device ] && file=/dev/zero
	info=$(image_info "$TMP/m/$name.trace" "$file")
	if echo "$info" | grep -q "no identity: .*$want" && echo "$info" | grep -q '^    ident:    none -$'; then
		ok "$name"
	else
		fail "$name" "$(echo "$info" | grep -E 'ident|read' | tr '\n' '|'), wanted '$want'"
	fi
}
mkdir -p "$TMP/m"
chmod 711 "$TMP"
chmod 777 "$TMP/m"
mapper_case mapped-device device 'not a regular file'
mapper_case truncated-under-the-mapping truncate 'damaged'
# A 4 GiB file, sparse, whose last loadable segment runs to its end: its
# content hash reads 64 MiB of it, and says so.
le64() { local v=$1 i; for i in 0 1 2 3 4 5 6 7; do printf '\\x%02x' $(((v >> (8 * i)) & 255)); done; }
big=$TMP/m/huge.so
cp "$TMP/lines.orig" "$big"
truncate -s 4G "$big"
phoff=$(($(readelf -hW "$big" | awk '/Start of program headers/ { print $5 }')))
ph=$(readelf -lW "$big" | awk '/^  [A-Z]/ && $1 != "Type" { i++ } $1 == "LOAD" { n = i - 1; off = $2 } END { print n, off }')
n=${ph% *} off=$((${ph#* }))
printf "$(le64 $((4 * 1024 * 1024 * 1024 - off)))$(le64 $((4 * 1024 * 1024 * 1024 - off)))" |
	dd of="$big" bs=1 seek=$((phoff + n * 56 + 32)) conv=notrunc status=none
if timeout 60 "$RECORD" -q -f -o "$TMP/m/huge.trace" -- "$FIX/mapper" 0.3 plain "$big" > /dev/null 2> "$TMP/m/huge.err"; then
	info=$(image_info "$TMP/m/huge.trace" "$big")
	echo "$info" | grep -Eq "^    ident:    content [0-9a-f]{48} \(of [0-9]+ loadable bytes, 64 MiB sampled\)\$" \
		&& ok huge-sparse-file-hashed-within-the-bound \
		|| fail huge-sparse-file-hashed-within-the-bound "$(echo "$info" | grep -E 'ident|read' | tr '\n' '|')"
else
	fail huge-sparse-file-hashed-within-the-bound "$(tail -2 "$TMP/m/huge.err")"
fi
rm -f "$big"

# Without privilege, /proc/PID/map_files is closed: the recorder goes by
# path, and finds what the target put there.
nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null; then
	skip unprivileged-recorder "needs root to run the recorder as nobody"
elif ! $nobody test -x "$RECORD" -a -x "$FIX/mapper" -a -w "$TMP/m"; then
	skip unprivileged-recorder "nobody cannot reach the build here"
else
	mapper_case unprivileged-path-swapped-for-fifo fifo 'path: not a regular file' $nobody
	mapper_case unprivileged-path-swapped-for-proc-self-mem mem 'another file than the one mapped' $nobody
fi
