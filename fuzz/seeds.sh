#!/bin/sh
# fuzz/seeds.sh NAME DIR: copies the seed inputs of fuzz target NAME, made
# from testdata/ and the fixtures the build made, into DIR. A target with
# no seeds listed here starts from its testdata/bad/NAME/ inputs alone.
# Run from the top of the tree, with BUILD set to the build directory.
set -eu
name=$1 dir=$2
BUILD=${BUILD:-build}
fix=$BUILD/testdata
mkdir -p "$dir"

# elf_fixtures: the ELF programs, library and debug file of the build.
elf_fixtures() {
	for f in "$fix"/split "$fix"/threads "$fix"/frameless "$fix"/libdlwork.so \
		 "$fix"/stripped/split "$fix"/stripped/.debug/split.debug; do
		[ -f "$f" ] && echo "$f"
	done
}

case $name in
trace)
	for t in testdata/golden/*.trace; do
		cp "$t" "$dir/"
		"$BUILD"/fuzz/trace_raw "$t" "$dir/$(basename "$t").raw"
	done
	;;
elf)
	elf_fixtures | while read -r f; do cp "$f" "$dir/$(echo "$f" | tr / _)"; done
	;;
cfi)
	# The fixtures' own CFI, and a real library's: zlib's has personality
	# routines and LSDAs.
	elf_fixtures | while read -r f; do cp "$f" "$dir/$(echo "$f" | tr / _)"; done
	for f in /lib/x86_64-linux-gnu/libz.so.1; do
		[ -f "$f" ] && cp -L "$f" "$dir/$(basename "$f")"
	done
	;;
macho)
	find "$fix/macho" -type f ! -name '*.plist' 2> /dev/null | while read -r f; do
		cp "$f" "$dir/$(echo "$f" | tr / _)"
	done
	;;
esac
exit 0
