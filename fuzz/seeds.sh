#!/bin/sh
# fuzz/seeds.sh NAME DIR: writes the seed inputs of fuzz target NAME, made
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

# le N VALUE: VALUE as N little-endian bytes.
le() {
	n=$1 v=$2 out=
	while [ "$n" -gt 0 ]; do
		out="$out\\$(printf '%03o' $((v & 255)))"
		v=$((v >> 8)) n=$((n - 1))
	done
	printf "$out"
}
# at FILE OFFSET: writes standard input into FILE at OFFSET.
at() { dd of="$1" bs=1 seek="$2" conv=notrunc 2> /dev/null; }

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
	# DWARF expressions, which compilers write only in PLT entries: a
	# signal trampoline's rules as glibc writes them, and rows that use
	# every operation the evaluator takes (all evaluate without error).
	${CC:-cc} -shared -nostdlib -o "$dir/expressions.so" -x assembler - 2> /dev/null <<'EOF' || true
	.text
# glibc's signal trampoline: every register saved in the ucontext at rsp.
	.globl sigtramp
	.type sigtramp, @function
sigtramp:
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_escape 0x0f, 4, 0x77, 0xa0, 0x01, 0x06
	.cfi_escape 0x10, 16, 3, 0x77, 0xa8, 0x01
	.cfi_escape 0x10, 6, 3, 0x77, 0xf8, 0x00
	movq $15, %rax
	syscall
	.cfi_endproc
	.size sigtramp, .-sigtramp
# Every operation the evaluator takes, a row at a time.
	.globl ops
	.type ops, @function
ops:
	.cfi_startproc
	nop
	.cfi_escape 0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22
	nop
	.cfi_escape 0x0f, 15, 0x77, 16, 0x31, 0x32, 0x33, 0x17, 0x14, 0x15, 2, 0x16, 0x13, 0x13, 0x13, 0x13, 0x13
	.cfi_escape 0x10, 16, 10, 0x92, 7, 8, 0x08, 0x40, 0x94, 4, 0x30, 0x1a, 0x22
	nop
	.cfi_escape 0x16, 6, 47, 0x0c, 0x40, 0, 0, 0, 0x06, 0x0e, 1, 2, 3, 4, 5, 6, 7, 8, 0x27, 0x33, 0x24, 0x32, 0x25, 0x31, 0x26, 0x09, 0xfe, 0x1b, 0x37, 0x1d, 0x1f, 0x19, 0x20, 0x35, 0x21, 0x76, 0, 0x1c, 0x11, 0x78, 0x1e, 0x0b, 0xff, 0x7f, 0x0d, 0, 0, 0, 0x80, 0x1b
	nop
	.cfi_escape 0x0f, 35, 0x77, 8, 0x31, 0x28, 1, 0, 0x96, 0x2f, 0, 0, 0x30, 0x28, 0, 0, 0x03, 1, 0, 0, 0, 0, 0, 0, 0, 0x13, 0x10, 0x80, 1, 0x11, 0x7f, 0x2a, 0x13, 0x32, 0x33, 0x2d, 0x1c
	.cfi_escape 0x16, 16, 19, 0x32, 0x33, 0x2c, 0x32, 0x33, 0x2b, 0x29, 0x32, 0x33, 0x2e, 0x22, 0x31, 0x12, 0x0a, 0x20, 0x00, 0x94, 2, 0x22
	nop
	.cfi_endproc
	.size ops, .-ops
EOF
	;;
unwind)
	# fuzz_unwind.c's header (flags, pc, sp, fp, lr, window, a row kind
	# for each of 16 ranges of code, 16 bytes of expression), then the
	# stack at 0x7ff000000000.
	# unwind_seed FILE FLAGS PC SP FP LR WINDOW KIND: all ranges of KIND.
	unwind_seed() {
		{ le 1 "$2"; le 8 "$3"; le 8 "$4"; le 8 "$5"; le 8 "$6"; le 2 "$7"
		  i=0; while [ $i -lt 16 ]; do le 1 "$8"; i=$((i + 1)); done
		  le 8 0; le 8 0; } > "$1"
	}
	base=$((0x7ff000000000))
	# A frame-pointer chain of three records, the copy holding two.
	unwind_seed "$dir/fp-chain" 2 $((0x400010)) $base $((base + 16)) 0 48 1
	{ le 8 0; le 8 0; le 8 $((base + 48)); le 8 $((0x401001)); le 8 0; le 8 0
	  le 8 $((base + 80)); le 8 $((0x402001)); le 8 0; le 8 0; le 8 0; le 8 $((0x403001)); } >> "$dir/fp-chain"
	# The same as arm64, and as frameless code past the copy.
	cp "$dir/fp-chain" "$dir/fp-chain-arm64"
	printf '\003' | at "$dir/fp-chain-arm64" 0
	unwind_seed "$dir/frameless" 0 $((0x400010)) $base 0 $((0x401001)) 32 2
	{ le 8 $((0x401001)); le 8 $((0x402001)); le 8 $((0x403001)); le 8 0; } >> "$dir/frameless"
	# glibc's signal trampoline, whose context at sp + 40 says where the
	# interrupted code was: sp 0x100 further up.
	unwind_seed "$dir/sigframe" 2 $((0x400010)) $base $((base + 16)) 0 2048 4
	printf '\001' | at "$dir/sigframe" 35
	{ le 8 0; le 8 0; le 8 0; le 8 $((0x401001)); i=0; while [ $i -lt 40 ]; do le 8 0; i=$((i + 1)); done; } >> "$dir/sigframe"
	;;
jitdump)
	# A jitdump as record/jitdump.h reads it: the header, a debug record,
	# the load it describes, an unwinding record, a move and a close;
	# little-endian, and the same big-endian (be N VALUE: VALUE as N
	# big-endian bytes).
	be() {
		n=$1 v=$2 out=
		while [ "$n" -gt 0 ]; do
			out="\\$(printf '%03o' $((v & 255)))$out"
			v=$((v >> 8)) n=$((n - 1))
		done
		printf "$out"
	}
	for order in le be; do
		f=$dir/dump-$order
		{ $order 4 $((0x4A695444)); $order 4 1; $order 4 40; $order 4 62; $order 4 0; $order 4 4242
		  $order 8 100; $order 8 0
		  # debug info for 0x7000: one entry, line 3 of /src/fib.js
		  $order 4 2; $order 4 $((32 + 16 + 12)); $order 8 10; $order 8 $((0x7000)); $order 8 1
		  $order 8 $((0x7040)); $order 4 3; $order 4 13; printf '/src/fib.js\000'
		  # the load: 16 bytes of code at 0x7000, index 1
		  $order 4 0; $order 4 $((56 + 25 + 16)); $order 8 11; $order 4 4242; $order 4 4243
		  $order 8 $((0x7000)); $order 8 $((0x7000)); $order 8 16; $order 8 1
		  printf 'JS:*fib /src/fib.js:3:13\000'; printf '\314\314\314\314\314\314\314\314\314\314\314\314\314\314\314\314'
		  $order 4 4; $order 4 24; $order 8 12; $order 8 0
		  # moved to 0xa000
		  $order 4 1; $order 4 64; $order 8 13; $order 4 4242; $order 4 4243; $order 8 $((0xa000))
		  $order 8 $((0x7000)); $order 8 $((0xa000)); $order 8 16; $order 8 1
		  $order 4 3; $order 4 16; $order 8 14; } > "$f"
	done
	;;
dwinfo)
	# The DWARF of the fixtures: GCC's and clang's (testdata/dwarf, DWARF
	# 4 and 5, zlib- and zstd-compressed sections), a separate debug file
	# and the Mach-O dSYMs. (Rust's fixtures carry the standard library's
	# DWARF, megabytes: too slow an input to mutate.)
	for f in "$fix"/split "$fix"/inline "$fix"/stripped/.debug/split.debug "$fix"/dwarf/* \
		 "$fix"/macho/*.dSYM/Contents/Resources/DWARF/*; do
		case $f in *.built | *.skipped) continue ;; esac
		[ -f "$f" ] && "$BUILD"/fuzz/dwarf_raw "$f" "$dir/$(echo "$f" | tr / _)"
	done
	;;
macho)
	find "$fix/macho" -type f ! -name '*.plist' 2> /dev/null | while read -r f; do
		cp "$f" "$dir/$(echo "$f" | tr / _)"
	done
	;;
dyld)
	# A process's memory as fuzz_dyld takes it: the address of
	# dyld_all_image_infos (version 15), then memory from 0x100000000 with
	# the struct, a list of two images, their paths, and the Mach-O
	# fixtures mapped as the images (dyld's own being the dylib).
	b=4294967296 f=$dir/two-images
	macho=$fix/macho
	[ -f "$macho/app-x86_64" ] && [ -f "$macho/libwork.dylib" ] || exit 0
	le 8 $b > "$f"
	{ le 4 15; le 4 2; le 8 $((b + 4096)); } | at "$f" 8
	{ le 8 $((b + 16384)); } | at "$f" $((8 + 32))
	{ le 8 1; le 8 $((b + 8192)); } | at "$f" $((8 + 184))
	{ le 8 $((b + 49152)); le 8 $((b + 8448)); le 8 0
	  le 8 $((b + 16384)); le 8 $((b + 8704)); le 8 0; } | at "$f" $((8 + 4096))
	printf '/usr/lib/dyld\000' | at "$f" $((8 + 8192))
	printf '/app/app-x86_64\000' | at "$f" $((8 + 8448))
	printf '/app/libwork.dylib\000' | at "$f" $((8 + 8704))
	at "$f" $((8 + 16384)) < "$macho/libwork.dylib"
	at "$f" $((8 + 49152)) < "$macho/app-x86_64"
	;;
esac
exit 0
