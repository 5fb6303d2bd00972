#!/usr/bin/env bash
# End-to-end: frames named from the image that held their address at the
# time of their sample, across an unload and a load at the same address
# (prof-trace(5) "Images over time"). The two plugins libplug_alpha.so and
# libplug_bravo.so are the same code under other names, so a stack in one
# is, address for address, a stack in the other, and a trace writer reuses
# its nodes. First a trace built by hand with synth_trace, whose images
# are the real plugin files, and one whose frames have no names; then the
# real recorder on the plugins fixture, which unloads alpha and loads
# bravo where it was.
. "$(dirname "$0")/lib.sh"

SYNTH=$BUILD/tests/tools/synth_trace
alpha=$FIX/libplug_alpha.so bravo=$FIX/libplug_bravo.so

# sym FILE NAME: the address of NAME in FILE, as nm gives it.
sym() { nm "$1" | awk -v n="$2" '$3 == n { print "0x" $1 }'; }
build_id() { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }

# --- by hand: alpha unloaded at the time of the 4th sample, bravo loaded
# at the 5th and unloaded at the 7th. Alpha names samples 1 to 3; at the
# 4th nothing is loaded, and bravo, loaded soonest after, names it and the
# 5th and 6th; nothing is loaded at the 7th and 8th, nor after them
base=$((0x7f0000000000))
hot=$(sym "$alpha" alpha_hot) run=$(sym "$alpha" alpha_run)
if [ "$hot" != "$(sym "$bravo" bravo_hot)" ] || [ "$run" != "$(sym "$bravo" bravo_run)" ]; then
	fail "reload-plugins-alike" "alpha_hot $hot, alpha_run $run; bravo_hot $(sym "$bravo" bravo_hot), bravo_run $(sym "$bravo" bravo_run)"
	exit 0
fi
ok "reload-plugins-alike (hot at $hot, run at $run in both)"
leaf=$(printf 0x%x $((base + hot + 4))) caller=$(printf 0x%x $((base + run + 0x20)))
"$SYNTH" -o "$TMP/hand.trace" --os linux --arch x86_64 --command /nonexistent/app \
	--image KIND=none,PATH=/nonexistent/app,START=0x400000,SIZE=0x10000,BIAS=0x400000 \
	--image "IDENT=$(build_id "$alpha"),PATH=$alpha,START=$base,SIZE=0x4000,BIAS=$base,UNLOADED=4" \
	--image "IDENT=$(build_id "$bravo"),PATH=$bravo,START=$base,SIZE=0x4000,BIAS=$base,LOADED=5,UNLOADED=7" \
	--thread TID=1,NAME=main --sample "TID=1,STACK=$leaf:$caller:0x401010" --count 8
"$REPORT" folded "$TMP/hand.trace" > "$TMP/hand.folded" 2>&1
cat > "$TMP/hand.want" <<EOF
app;app+0x1010;[unknown]+$(printf 0x%x $((caller)));[unknown]+$leaf 2
app;app+0x1010;alpha_run;alpha_hot 3
app;app+0x1010;bravo_run;bravo_hot 3
EOF
cmp -s "$TMP/hand.folded" "$TMP/hand.want" && ok "reload-hand-built-names-both-images" \
	|| fail "reload-hand-built-names-both-images" "$(diff "$TMP/hand.want" "$TMP/hand.folded" | tr '\n' '|')"
"$REPORT" folded --addresses "$TMP/hand.trace" > "$TMP/hand.addr" 2>&1
grep -q "^app;app+0x1010;libplug_alpha.so+$(printf 0x%x $((run + 0x20)));libplug_alpha.so+$(printf 0x%x $((hot + 4))) 3$" "$TMP/hand.addr" \
	&& grep -q "^app;app+0x1010;libplug_bravo.so+.*;libplug_bravo.so+.* 3$" "$TMP/hand.addr" \
	&& ok "reload-hand-built-addresses-name-both-images" \
	|| fail "reload-hand-built-addresses-name-both-images" "$(tr '\n' '|' < "$TMP/hand.addr")"
"$REPORT" info "$TMP/hand.trace" > "$TMP/hand.info" 2>&1
split=$(awk '/stack nodes split/ { print $4 }' "$TMP/hand.info")
[ "$split" = 4 ] && ok "reload-hand-built-nodes-split (4)" \
	|| fail "reload-hand-built-nodes-split" "split '$split': $(grep split "$TMP/hand.info")"

# --- frames without a name (prof-trace(5) "Images over time"): an image
# with no path is named by its id, and an identity of no valid form (an
# 8-byte UUID) is none, in info as in the lookups
"$SYNTH" -o "$TMP/anon.trace" --os linux --arch x86_64 --command /nonexistent/app \
	--image KIND=none,PATH=/nonexistent/app,START=0x400000,SIZE=0x10000,BIAS=0x400000 \
	--image ID=7,START=0x500000,SIZE=0x1000,BIAS=0x500000 \
	--image KIND=uuid,IDENT=0011223344556677,PATH=/nonexistent/libodd.so,START=0x600000,SIZE=0x1000,BIAS=0x600000 \
	--thread TID=1,NAME=main --sample TID=1,STACK=0x500010:0x600020:0x401000 --count 2
"$REPORT" folded "$TMP/anon.trace" > "$TMP/anon.folded" 2>&1
[ "$(cat "$TMP/anon.folded")" = "app;app+0x1000;libodd.so+0x20;[image 7]+0x10 2" ] \
	&& ok "image-without-path-named-by-id" \
	|| fail "image-without-path-named-by-id" "$(tr '\n' '|' < "$TMP/anon.folded")"
"$REPORT" info "$TMP/anon.trace" > "$TMP/anon.info" 2>&1
odd=$(grep -A5 '^  image 3: /nonexistent/libodd.so$' "$TMP/anon.info")
echo "$odd" | grep -qx '    ident:    none -' \
	&& echo "$odd" | grep -qx '    symbols:  none: the trace records no identity for this image' \
	&& ok "identity-of-no-valid-form-is-none" \
	|| fail "identity-of-no-valid-form-is-none" "$(echo "$odd" | tr '\n' '|')"

# --- the real recorder: alpha, then bravo at the same address. The
# writer of prof-record keeps its stack nodes across the reload (its tree
# is keyed by parent and address alone), so bravo's samples come on
# alpha's nodes, and what this exercises is the reader splitting them:
# nodes must be split, and each frame named from its sample's image.
if ! why=$(ptrace_ok); then
	skip "reload-recorded" "$why"
	exit 0
fi
for mode in wall cpu; do
	"$RECORD" -q --mode "$mode" -o "$TMP/$mode.trace" -- "$FIX/plugins" 0.8 > "$TMP/$mode.out" 2> "$TMP/$mode.err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$mode" = cpu ] && grep -q 'perf_event' "$TMP/$mode.err"; then
		skip "reload-recorded-cpu-keeps-both-names" "perf_event_open not permitted here: $(head -1 "$TMP/$mode.err")"
		continue
	fi
	if [ $rc -ne 0 ]; then
		fail "reload-recorded-$mode-keeps-both-names" "prof-record exited $rc: $(head -3 "$TMP/$mode.err" | tr '\n' '|')"
		continue
	fi
	a=$(awk '$2 == "alpha" { print $4 }' "$TMP/$mode.out")
	b=$(awk '$2 == "bravo" { print $4 }' "$TMP/$mode.out")
	if [ -z "$a" ] || [ -z "$b" ]; then
		fail "reload-recorded-$mode-keeps-both-names" "the fixture did not say where it loaded its plugins: $(tr '\n' '|' < "$TMP/$mode.out")"
		continue
	fi
	if [ "$a" != "$b" ]; then
		skip "reload-recorded-$mode-keeps-both-names" "the dynamic linker loaded bravo at $b, not where alpha was ($a), so no address is reused"
		continue
	fi
	"$REPORT" folded "$TMP/$mode.trace" > "$TMP/$mode.folded" 2> /dev/null
	"$REPORT" info "$TMP/$mode.trace" > "$TMP/$mode.info" 2> /dev/null
	sa=$(share "$TMP/$mode.folded" ';alpha_run;alpha_hot(;|$)')
	sb=$(share "$TMP/$mode.folded" ';bravo_run;bravo_hot(;|$)')
	mixed=$(grep -c 'alpha_.*bravo_\|bravo_.*alpha_' "$TMP/$mode.folded")
	split=$(awk '/stack nodes split/ { print $4 }' "$TMP/$mode.info")
	unloaded=$(grep -A6 'libplug_alpha.so$' "$TMP/$mode.info" | grep -c 'unloaded:')
	if [ "$sa" -ge 25 ] && [ "$sb" -ge 25 ] && [ "$mixed" = 0 ] && [ "$unloaded" = 1 ] \
		&& [ "${split:-0}" -gt 0 ]; then
		ok "reload-recorded-$mode-keeps-both-names (alpha ${sa}%, bravo ${sb}%, at $a, $split stack nodes split)"
	else
		fail "reload-recorded-$mode-keeps-both-names" "alpha ${sa}%, bravo ${sb}%, $mixed mixed stacks, alpha unloaded $unloaded, $split split: $(sort -t' ' -k2 -nr "$TMP/$mode.folded" | head -3 | tr '\n' '|')"
	fi
done
