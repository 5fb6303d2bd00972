#!/usr/bin/env bash
# End-to-end: the macOS cross-build (make macos, mk/macos.mk). The four
# programs are real Mach-O executables for their targets, linked against
# libSystem alone; and, as a dogfood, prof-report names the cross-built
# arm64 programs' own functions from their dSYMs exactly as
# llvm-symbolizer does: one address in each function (its middle
# instruction), in a trace whose image is found by UUID alone. A few
# functions have no DWARF in the dSYM: the compiler-rt comparisons that
# LLVM's function merging made into thunks of an identical one (__nexf2,
# __lexf2, __ltxf2 and their hf, sf, df and tf kin tail-call __eq*f2,
# without debug info, so the linker writes no debug-map entry for them),
# and the linker's branch islands after the last function, which the
# middle instruction of prof-report's last function falls in. For them
# llvm-symbolizer's short names are ??, and prof-report must give the
# names of the symbol table, as llvm-symbolizer's linkage names do
# (tests/e2e/oracle.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/oracle.sh"

MACOS=$TOP/build/macos
have() { command -v "$1" > /dev/null 2>&1; }
case $BUILD in *-san)
	# .ci/run's sanitized suite: the cross-built programs are the plain
	# build's, which the plain suite has checked.
	skip "macos-cross-build" "a sanitized build; the plain suite checks the cross-built programs"
	exit 0 ;;
esac

if [ ! -x "$MACOS/arm64/prof-record" ]; then
	skip "macos-cross-build" "no $MACOS/arm64/prof-record (make macos builds it; make check says why it did not)"
	exit 0
fi
if ! have llvm-objdump; then
	skip "macos-cross-build" "no llvm-objdump to read the Mach-O headers with"
	exit 0
fi

# The header, the libraries and the platform of each program. arm64 macOS
# runs no unsigned code: the linker's ad hoc signature must be there.
for arch in arm64 x86_64; do
	cputype=$(echo "$arch" | tr a-z A-Z)
	for prog in prof-record prof-report; do
		f=$MACOS/$arch/$prog
		hdr=$(llvm-objdump --macho --private-header "$f" 2>&1 | tail -1)
		libs=$(llvm-objdump --macho --dylibs-used "$f" 2>&1 | tail -n +2 | awk '{ print $1 }')
		cmds=$(llvm-objdump --macho --private-headers "$f" 2>&1)
		if ! echo "$hdr" | grep -Eq "^MH_MAGIC_64 +$cputype +ALL +0x00 +EXECUTE "; then
			fail "macos-$arch-$prog-header" "$hdr"
		elif [ "$libs" != /usr/lib/libSystem.B.dylib ]; then
			fail "macos-$arch-$prog-header" "linked against: $(echo $libs)"
		elif ! echo "$cmds" | grep -A3 'cmd LC_BUILD_VERSION' | grep -q 'platform macos'; then
			fail "macos-$arch-$prog-header" "no LC_BUILD_VERSION for macOS"
		elif [ "$arch" = arm64 ] && ! echo "$cmds" | grep -q 'cmd LC_CODE_SIGNATURE'; then
			fail "macos-$arch-$prog-header" "no code signature"
		else
			ok "macos-$arch-$prog-header (MH_MAGIC_64 $cputype EXECUTE, libSystem)"
		fi
	done
done

# midpoints OBJ: the middle instruction of each function of OBJ's code
# (the linker's stub sections are no functions), one hex address a line.
midpoints() {
	llvm-objdump -d --no-show-raw-insn "$1" | awk '
		function flush() { if (n && name !~ /^__stub/) print "0x" a[int((n + 1) / 2)]; n = 0 }
		/^[0-9a-f]+ <.*>:$/ { flush(); name = $2; gsub(/[<>:]/, "", name); next }
		/^ *[0-9a-f]+:/ { sub(/:.*/, ""); sub(/^ */, ""); a[++n] = $0 }
		END { flush() }'
}

# The dogfood, for each arm64 program: dsymutil's dSYM in a directory of
# its own, where prof-report must find it by UUID; the trace names an
# install path that does not exist here, at a slide.
if ! have dsymutil || ! have llvm-symbolizer || ! have llvm-dwarfdump || [ ! -x "$SYNTH" ]; then
	skip "macos-dogfood" "dsymutil, llvm-symbolizer, llvm-dwarfdump or synth_trace is missing"
	exit 0
fi
for prog in prof-record prof-report; do
	f=$MACOS/arm64/$prog
	mkdir -p "$TMP/$prog-symbols"
	# The linker writes each function's debug-map entry twice, and
	# dsymutil warns about the second: the first is the one it uses.
	if ! dsymutil -o "$TMP/$prog-symbols/$prog.dSYM" "$f" > "$TMP/$prog.dsymutil" 2>&1; then
		fail "macos-dogfood-$prog" "dsymutil failed: $(grep -v 'failed to insert symbol' "$TMP/$prog.dsymutil" | tail -3)"
		continue
	fi
	uuid=$(llvm-dwarfdump --uuid "$f" | awk '{ print $2 }')
	text=$(llvm-objdump --macho --private-headers "$f" | awk '/segname __TEXT$/ { t = 1 } t && /vmsize/ { print $2; exit }')
	midpoints "$f" > "$TMP/$prog.addrs"
	n=$(wc -l < "$TMP/$prog.addrs")
	echo "  $prog: $n functions, UUID $uuid"
	ADDRS=$TMP/$prog.addrs oracle "macos-dogfood-$prog" "$f" \
		"$TMP/$prog-symbols/$prog.dSYM/Contents/Resources/DWARF/$prog" 0x8000 "$TMP/$prog-symbols" \
		--os macos --arch arm64 --command "$prog" \
		--image "KIND=uuid,IDENT=$uuid,PATH=/usr/local/bin/$prog,START=0x100008000,SIZE=$text,BIAS=0x8000"
done
