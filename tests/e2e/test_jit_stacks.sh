#!/usr/bin/env bash
# End-to-end: stacks through JIT code. A Node.js program whose time is in
# two JavaScript functions (no --perf-basic-prof: nothing names them, and
# unwinding needs no names) is recorded by prof-record in cpu mode while
# perf record -g, the kernel's frame-pointer walk, samples the same process
# at the same time, so both see the same JIT code at the same addresses.
# V8 keeps frame pointers, so a JS leaf's caller is the return address in
# its frame record; the words between sp and fp are its own frame, where
# a stale return address into Builtins_CEntry_* was taken for the caller
# of 99% of the JS leaves before. For the samples whose leaf is in no image:
#   - the caller's distribution (named, or [anon] for JIT code) is perf's,
#     within 15 points of total variation, and no more of them are under
#     a Builtins_CEntry_* frame than perf's share plus 2 points;
#   - the frames from the leaf up to the first one outside node and JIT
#     code are as many as perf's, within 15 points of total variation;
#   - info accounts for them (in no image), top shows them as one [anon]
#     row (in its total: a tick in the kernel has a [kernel] leaf above
#     them) and top --group image as [anon], and at most 5% of the walks
#     took their leaf's caller from a search of the stack (leaf-scans).
# Skipped, with the reason, without node or perf, or where perf_event or
# cpu mode is refused.
. "$(dirname "$0")/lib.sh"

# .ci/run's sanitized suite: the unit tests run the walk on synthetic JIT
# frames under the sanitizers; the comparison with perf is the plain
# suite's.
case $BUILD in
*-san) skip "jit-stacks" "a sanitized build; the plain suite compares the stacks with perf's"; exit 0 ;;
esac
for tool in node perf python3; do
	if ! command -v $tool > /dev/null 2>&1; then
		skip "jit-stacks" "$tool is not installed"
		exit 0
	fi
done
if ! out=$(perf_record -q -g -o "$TMP/probe.data" -- true 2>&1); then
	skip "jit-stacks" "perf record -g refused: $(echo "$out" | head -1)"
	exit 0
fi
if ! out=$("$RECORD" -q --mode cpu -f -o "$TMP/probe.trace" -- true 2>&1); then
	skip "jit-stacks" "prof-record --mode cpu refused: $(echo "$out" | head -1)"
	exit 0
fi

# 3:1 between hot and cold, for as many seconds as asked.
cat > "$TMP/jit.js" <<'EOF'
function hot(n) { let s = 0; for (let i = 0; i < n; i++) s = (s * 31 + i) | 0; return s; }
function cold(n) { let s = 0; for (let i = 0; i < n; i++) s = (s ^ (i * 7)) | 0; return s; }
const end = Date.now() + 1000 * Number(process.argv[2] || 2);
let acc = 0;
while (Date.now() < end) { acc += hot(300000); acc += cold(100000); }
console.log(acc & 1);
EOF

"$RECORD" -q --mode cpu -F 499 -f -o "$TMP/node.trace" -- node "$TMP/jit.js" 3 > /dev/null 2> "$TMP/rec.err" &
rec=$!
pid=
for _ in $(seq 100); do pid=$(pgrep -P $rec -x node) && break; sleep 0.05; done
if [ -z "$pid" ]; then
	wait $rec
	fail "jit-stacks-recorded" "node did not start under prof-record: $(head -2 "$TMP/rec.err")"
	exit 0
fi
sleep 0.3   # past node's start-up, into the loop
perf_record -q -g -F 499 -o "$TMP/perf.data" -p "$pid" -- sleep 2 > /dev/null 2> "$TMP/perf.err"
prc=$?
wait $rec
rc=$?
if [ $rc -ne 0 ] || [ $prc -ne 0 ]; then
	fail "jit-stacks-recorded" "prof-record exit $rc ($(head -1 "$TMP/rec.err")), perf record exit $prc ($(head -1 "$TMP/perf.err"))"
	exit 0
fi
perf script -i "$TMP/perf.data" -F ip,sym,dso > "$TMP/perf.txt" 2> /dev/null
"$REPORT" folded "$TMP/node.trace" > "$TMP/node.folded" 2> /dev/null
"$REPORT" folded --addresses "$TMP/node.trace" > "$TMP/node-addr.folded" 2> /dev/null

# Each tool's JS-leaf samples as "KEY<TAB>COUNT" lines: by the leaf's
# caller (a name, or [anon] for code in no image) or by the frames from
# the leaf up to the first one outside node and JIT code.
# prof: a frame in no image is [unknown]+0xADDR, or IMAGE+0x... of an
# image of anonymous memory (//anon); a [kernel] leaf is passed over.
prof_keys() { # prof_keys FOLDED parent|depth
	awk -v what="$2" '
	function anon(f) { return f ~ /^(\[unknown\]|anon)\+0x/ }
	{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); if (f[k] == "[kernel]") k--
	  if (k < 3 || !anon(f[k])) next
	  if (what == "parent") { key = anon(f[k - 1]) ? "[anon]" : f[k - 1]; sub(/\(.*$/, "", key) }
	  else { d = 0; for (i = k; i > 1 && (anon(f[i]) || f[i] ~ /^node\+0x/); i--) d++; key = d }
	  c[key] += n }
	END { for (x in c) printf "%s\t%d\n", x, c[x] }' "$1"
}
# perf: a record of "IP SYM (DSO)" lines, leaf first, kernel frames first
# of all; JIT code is [unknown] in [unknown] or in perf's /tmp/perf-PID.map.
perf_keys() { # perf_keys TEXT parent|depth
	awk -v what="$2" 'BEGIN { RS = ""; FS = "\n" }
	function anon(l) { return l ~ /\[unknown\] \((\[unknown\]|\/tmp\/perf-[0-9]+\.map|\/\/anon)\)$/ }
	function node(l) { return l ~ /\((\/.*\/)?node\)$/ }
	{ u = 0; for (i = 1; i <= NF; i++) if ($i !~ /kernel\.kallsyms|^[ \t]*$/) { u = i; break }
	  if (!u || u == NF || !anon($u)) next
	  if (what == "parent") {
		key = $(u + 1); sub(/^[ \t]*[0-9a-f]+ /, "", key)
		if (anon($(u + 1))) key = "[anon]"; else sub(/ \(.*$/, "", key)
	  } else { d = 0; for (i = u; i <= NF && (anon($i) || node($i)); i++) d++; key = d }
	  c[key]++ }
	END { for (x in c) printf "%s\t%d\n", x, c[x] }' "$1"
}
# compare CASE WHAT PROF PERF MAX [CENTRY]: the two distributions' total
# variation distance in points is at most MAX; with CENTRY, prof's share
# under Builtins_CEntry_* is at most perf's plus 2 points.
compare() {
	local msg
	if msg=$(python3 - "$3" "$4" "$5" "${6:-}" <<'PY'
import sys
def load(p):
    d = {}
    for line in open(p):
        k, n = line.rstrip("\n").rsplit("\t", 1)
        d[k] = d.get(k, 0) + int(n)
    return d
a, b = load(sys.argv[1]), load(sys.argv[2])
na, nb = sum(a.values()), sum(b.values())
def top(d, n):
    return ", ".join("%s %.0f%%" % (k, 100.0 * v / n) for k, v in sorted(d.items(), key=lambda x: -x[1])[:4])
if na < 100 or nb < 100:
    print("too few JS-leaf samples: prof %d, perf %d" % (na, nb)); sys.exit(1)
tv = 50.0 * sum(abs(a.get(k, 0) / na - b.get(k, 0) / nb) for k in set(a) | set(b))
msg = "%.1f points apart; prof (%d): %s; perf (%d): %s" % (tv, na, top(a, na), nb, top(b, nb))
ok = tv <= float(sys.argv[3])
if sys.argv[4]:
    ce = lambda d, n: 100.0 * sum(v for k, v in d.items() if k.startswith("Builtins_CEntry_")) / n
    msg += "; under Builtins_CEntry_*: prof %.1f%%, perf %.1f%%" % (ce(a, na), ce(b, nb))
    ok = ok and ce(a, na) <= ce(b, nb) + 2
print(msg)
sys.exit(0 if ok else 1)
PY
	); then
		ok "$1 ($msg)"
	else
		fail "$1" "$msg"
	fi
}

prof_keys "$TMP/node.folded" parent > "$TMP/prof.parent"
perf_keys "$TMP/perf.txt" parent > "$TMP/perf.parent"
compare jit-leaf-callers-as-perf parent "$TMP/prof.parent" "$TMP/perf.parent" 15 centry
prof_keys "$TMP/node-addr.folded" depth > "$TMP/prof.depth"
perf_keys "$TMP/perf.txt" depth > "$TMP/perf.depth"
compare jit-leaf-frames-as-perf depth "$TMP/prof.depth" "$TMP/perf.depth" 15

# What info and top say of them.
"$REPORT" info "$TMP/node.trace" > "$TMP/info" 2>&1
"$REPORT" top "$TMP/node.trace" > "$TMP/top" 2>&1
"$REPORT" top --group image "$TMP/node.trace" > "$TMP/top-image" 2>&1
js=$(awk -F'\t' '{ n += $2 } END { print n + 0 }' "$TMP/prof.parent")
set -- $(awk '$1 == "in" && $2 == "no" && $3 == "image:" { print $4, $6 }' "$TMP/info")
leaves=${1:-0} all=${2:-0}
set -- $(awk '$1 == "leaf" && $2 == "scans:" { print $3, $5 }' "$TMP/info")
scans=${1:--1} walks=${2:-0}
anon_total=$(awk '$NF == "[anon]" { print $4 }' "$TMP/top")
if [ "$leaves" -ge "$js" ] && [ $((leaves * 2)) -ge "$all" ] && grep -q '^  to name it:' "$TMP/info" \
   && [ "${anon_total:-0}" -ge "$js" ] && ! grep -q '\[unknown\]+0x' "$TMP/top" \
   && awk '$NF == "[anon]" { f = 1 } END { exit !f }' "$TMP/top-image" && ! grep -q '\[unknown\]$' "$TMP/top-image"; then
	ok "jit-info-and-top-account-for-it ($leaves of $all samples in no image, [anon] in $anon_total)"
else
	fail "jit-info-and-top-account-for-it" "info: $leaves of $all in no image, $js JS leaves in folded; top: [anon] in '$anon_total': $(head -4 "$TMP/top" | tr '\n' '|') $(head -4 "$TMP/top-image" | tr '\n' '|')"
fi
if [ "$scans" -ge 0 ] && [ "$walks" -gt 0 ] && [ $((scans * 20)) -le "$walks" ]; then
	ok "jit-leaf-scans-rare ($scans of $walks walks)"
else
	fail "jit-leaf-scans-rare" "leaf scans '$scans' of '$walks' walks (want at most 5%): $(grep -A2 '^leaf scans' "$TMP/info" | tr '\n' '|')"
fi
exit 0
