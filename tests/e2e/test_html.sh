#!/usr/bin/env bash
# End-to-end: prof-report html and diff --html, on real recordings.
# - html-data-schema: the phases fixture (three threads, one after
#   another) recorded in wall mode; the page's data is valid against
#   schema/prof-html.schema.json (Debian's python3-jsonschema);
# - html-data-threads: it has the three threads, named, each with the
#   samples threads --json gives it, its states and stacks summing to
#   them, and its stacks reaching its own phase function and no other;
# - html-self-contained: a Content-Security-Policy of default-src 'none',
#   and no src, href, url() or @import anywhere in the page;
# - html-deterministic: the same page twice, byte for byte;
# - html-no-samples: a trace without a sample gives a valid page;
# - html-inject: the inject fixture, whose function names are markup and
#   quotes, run under an argv[0] that is markup too, and a synthetic
#   trace whose thread names are: the pages hold only their own three
#   script elements, and the names read back from the data as folded
#   (its \x3b a ';') and threads --json give them;
# - html-scale-1M: a million distinct stacks give a page under 8 MB whose
#   tree was cut to at most 200,000 nodes, every sample still counted;
# - html-diff: diff --html of phases and split: one inline graph, and a row
#   of the change table per change diff --all --json gives, the rows
#   greyed exactly where it says not significant;
# - html-diff-stdout-once: --html - beside another standard output is a
#   usage error;
# - html-script-lint: the page's script passes ESLint;
# - the browser (tests/browser/html.mjs), if playwright-core and Chromium
#   are there: the pages in headless Chromium, with screenshots kept in
#   $BUILD/html-shots.
. "$(dirname "$0")/lib.sh"

SYNTH=$BUILD/tests/tools/synth_trace
MANY=$BUILD/tests/tools/many_stacks
PLAYWRIGHT_DIR=${PLAYWRIGHT_DIR:-$TOP/build/node}
CHROMIUM=${CHROMIUM:-$(command -v chromium || echo /usr/bin/chromium)}
export PLAYWRIGHT_DIR CHROMIUM

if ! why=$(ptrace_ok); then
	skip "html" "$why"
	exit 0
fi
if ! python3 -c 'import jsonschema' 2> /dev/null; then
	skip "html" "python3-jsonschema is not installed (mk/setup.sh installs it)"
	exit 0
fi

# data PAGE OUT: the JSON of PAGE's data element into OUT.
data() {
	python3 - "$1" > "$2" <<'PY'
import re, sys
page = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="prof-data">(.*?)</script>', page, re.S)
sys.stdout.write(m.group(1) if m else "")
PY
}

# --- the phases fixture ----------------------------------------------------
"$RECORD" -q -f --mode wall -o "$TMP/p.trace" -- "$FIX/phases" > /dev/null 2> "$TMP/p.err" \
	|| { fail "html-record" "$(tail -3 "$TMP/p.err")"; exit 0; }
if ! "$REPORT" html "$TMP/p.trace" -o "$TMP/p.html" 2> "$TMP/h.err"; then
	fail "html-writes" "$(tail -3 "$TMP/h.err")"
	exit 0
fi
data "$TMP/p.html" "$TMP/p.json"
check "html-data-schema" python3 - "$TOP/schema/prof-html.schema.json" "$TMP/p.json" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
jsonschema.validate(json.load(open(sys.argv[2], encoding="utf-8")), schema, cls=jsonschema.Draft7Validator)
PY

"$REPORT" threads --json "$TMP/p.trace" > "$TMP/threads.json"
check "html-data-threads" python3 - "$TMP/p.json" "$TMP/threads.json" <<'PY'
import itertools, json, sys
d = json.load(open(sys.argv[1]))
want = {t["tid"]: t for t in json.load(open(sys.argv[2]))["threads"]}
funcs = [f["name"] for f in d["funcs"]]
nodes = d["nodes"]
def path(n):
    out = []
    while n >= 0:
        out.append(funcs[nodes[2 * n + 1]])
        n = nodes[2 * n]
    return out
names = [t["name"] for t in d["threads"]]
assert names == ["one", "two", "three"], f"threads {names}"
for t in d["threads"]:
    w = want[t["tid"]]
    assert t["samples"] == w["samples"], f'{t["name"]}: {t["samples"]} samples, threads says {w["samples"]}'
    assert sum(t["stacks"][2::3]) == t["samples"], f'{t["name"]}: stacks sum to {sum(t["stacks"][2::3])}'
    st = t["states"]
    assert sum(sum(st[i + 1:i + 5]) for i in range(0, len(st), 5)) == t["samples"], f'{t["name"]}: states'
    # bins are written as the difference from the one before
    bins = list(itertools.accumulate(t["stacks"][0::3]))
    assert min(t["stacks"][0::3]) >= 0 and max(bins) < d["nbins"], f'{t["name"]}: bins out of order'
    hits = {p: 0 for p in ("phase_one", "phase_two", "phase_three")}
    for i in range(0, len(t["stacks"]), 3):
        for f in path(t["stacks"][i + 1]):
            if f in hits:
                hits[f] += t["stacks"][i + 2]
    own = "phase_" + t["name"]
    assert hits[own] >= 0.8 * t["samples"], f'{t["name"]}: {hits}'
    assert all(n == 0 for f, n in hits.items() if f != own), f'{t["name"]}: {hits}'
PY

csp="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
if grep -qF "<meta http-equiv=\"Content-Security-Policy\" content=\"$csp\">" "$TMP/p.html" \
	&& ! grep -qiE '(src|href)=|url\(|@import' "$TMP/p.html"; then
	ok "html-self-contained"
else
	fail "html-self-contained" "$(grep -oiE '.{20}((src|href)=|url\(|@import).{20}' "$TMP/p.html" | head -3)"
fi
"$REPORT" html "$TMP/p.trace" -o "$TMP/p2.html"
cmp -s "$TMP/p.html" "$TMP/p2.html" && ok "html-deterministic" || fail "html-deterministic" "two runs differ"

# A trace without a sample: a page still, valid, with no thread.
if [ -x "$SYNTH" ] && "$SYNTH" -o "$TMP/e.trace" --os linux --command app --thread TID=1,NAME=main \
	&& "$REPORT" html "$TMP/e.trace" -o "$TMP/e.html"; then
	data "$TMP/e.html" "$TMP/e.json"
	check "html-no-samples" python3 - "$TOP/schema/prof-html.schema.json" "$TMP/e.json" <<'PY'
import json, sys, jsonschema
d = json.load(open(sys.argv[2], encoding="utf-8"))
jsonschema.validate(d, json.load(open(sys.argv[1])), cls=jsonschema.Draft7Validator)
assert d["threads"] == [] and d["nodes"] == [-1, 0], f'{d["threads"]}, {d["nodes"]}'
PY
else
	fail "html-no-samples" "no page for a trace without samples"
fi

# --- hostile names ---------------------------------------------------------
inject=()
if "$RECORD" -q -o "$TMP/i.trace" -- bash -c 'exec -a "$0" "$1"' \
	'</title><script>window.__pwned=7</script>' "$FIX/inject" > /dev/null 2>&1 \
	&& "$REPORT" html "$TMP/i.trace" -o "$TMP/i.html" && [ -x "$SYNTH" ] \
	&& "$SYNTH" -o "$TMP/t.trace" --os linux --arch x86_64 --command app \
		--thread $'TID=7,NAME=</script><img src=x onerror="window.__pwned=8">\xff' \
		--thread 'TID=8,NAME=x" onmouseover="window.__pwned=9' \
		--sample TID=7,STACK=0x401000 --count 3 --sample TID=8,STACK=0x401000 --count 2 \
	&& "$REPORT" html "$TMP/t.trace" -o "$TMP/t.html"; then
	"$REPORT" folded "$TMP/i.trace" > "$TMP/i.folded"
	"$REPORT" threads --json "$TMP/t.trace" > "$TMP/t.threads.json"
	data "$TMP/i.html" "$TMP/i.json"
	data "$TMP/t.html" "$TMP/t.json"
	check "html-inject" python3 - "$TMP/i.html" "$TMP/t.html" "$TMP/i.json" "$TMP/i.folded" \
		"$TMP/t.json" "$TMP/t.threads.json" <<'PY'
import json, sys
for page in sys.argv[1:3]:
    n = open(page, encoding="utf-8").read().count("<script")
    assert n == 3, f"{page}: {n} script elements"
d = json.load(open(sys.argv[3]))
names = {f["name"] for f in d["funcs"]}
folded = set()
for line in open(sys.argv[4], encoding="utf-8"):
    # folded writes a ';' in a name as \x3b, its separator
    folded.update(n.replace("\\x3b", ";") for n in line.rsplit(" ", 1)[0].split(";"))
hostile = {n for n in folded if "<" in n or '"' in n}
assert len(hostile) >= 4, f"the folded names: {hostile}"
assert hostile <= names, f"not in the page: {hostile - names}"
t = json.load(open(sys.argv[5]))
want = sorted(x["name"] for x in json.load(open(sys.argv[6]))["threads"])
got = sorted(x["name"] for x in t["threads"])
assert got == want, f"thread names {got}, threads --json {want}"
PY
	inject=("inject=$TMP/i.html" "inject-threads=$TMP/t.html")
else
	fail "html-inject" "a hostile recording or page could not be made"
fi

# --- a million distinct stacks ---------------------------------------------
big=()
if [ ! -x "$MANY" ]; then
	skip "html-scale-1M" "no many_stacks tool in $BUILD/tests/tools"
elif "$MANY" -o "$TMP/m.trace" 1000000 && "$REPORT" html "$TMP/m.trace" -o "$TMP/m.html"; then
	data "$TMP/m.html" "$TMP/m.json"
	bytes=$(stat -c %s "$TMP/m.html")
	# the nodes, those cut, and whether every sample is still counted
	# at a node whose parent comes before it
	read -r nodes merged whole < <(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
n = d["nodes"]; s = [x for t in d["threads"] for x in t["stacks"][1::3]]
c = sum(x for t in d["threads"] for x in t["stacks"][2::3])
ok = c == 1000000 and all(n[2 * i] < i for i in range(1, len(n) // 2)) and all(x < len(n) // 2 for x in s)
print(len(n) // 2, d["merged"], int(ok))' "$TMP/m.json")
	echo "  note  html of 1M stacks: $bytes bytes, $nodes nodes, $merged cut"
	[ "$bytes" -lt $((8 << 20)) ] && [ "$nodes" -le 200000 ] && [ "$merged" -gt 0 ] && [ "$whole" = 1 ] \
		&& ok "html-scale-1M" || fail "html-scale-1M" "$bytes bytes, $nodes nodes, $merged cut"
	big=("big=$TMP/m.html")
else
	fail "html-scale-1M" "many_stacks or prof-report html failed"
fi

# --- the diff page ---------------------------------------------------------
# against the split fixture: its functions are all changes, phases' too
"$RECORD" -q -f --mode wall -o "$TMP/q.trace" -- "$FIX/split" 1 > /dev/null 2>&1
if "$REPORT" diff "$TMP/p.trace" "$TMP/q.trace" --html "$TMP/d.html" > /dev/null \
	&& "$REPORT" diff --all --json "$TMP/p.trace" "$TMP/q.trace" > "$TMP/d.json"; then
	check "html-diff" python3 - "$TMP/d.html" "$TMP/d.json" <<'PY'
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
changes = json.load(open(sys.argv[2]))["changes"]
assert page.count('<svg class="flamegraph"') == 1, "not one inline graph"
rows = re.findall(r"<tr( class=\"insignificant\")?><td", page)
assert len(rows) == len(changes), f"{len(rows)} rows, {len(changes)} changes"
grey = [bool(r) for r in rows]
assert grey == [not c["significant"] for c in changes], "greyed rows differ from diff --json"
PY
else
	fail "html-diff" "prof-report diff --html failed"
fi
"$REPORT" diff "$TMP/p.trace" "$TMP/q.trace" --html - --json > /dev/null 2> "$TMP/e.err"
[ $? = 2 ] && grep -q "both write to standard output" "$TMP/e.err" && ok "html-diff-stdout-once" \
	|| fail "html-diff-stdout-once" "$(cat "$TMP/e.err")"

# --- the script and the browser --------------------------------------------
# The sanitized suite has checked the writer above; the lint and the
# browser check the page's script, the same whichever build wrote it.
case $BUILD in *-san)
	skip "html-script-lint" "a sanitized build; the plain suite lints the page's script"
	skip "html-browser" "a sanitized build; the plain suite opens the pages in Chromium"
	exit 0 ;;
esac
eslint "html-script-lint" report/output/html.js

if ! command -v node > /dev/null; then
	skip "html-browser" "node is not installed"
	exit 0
fi
mkdir -p "$BUILD/html-shots"
timeout 300 node "$TOP/tests/browser/html.mjs" "profile=$TMP/p.html" "${inject[@]}" "diff=$TMP/d.html" \
	"${big[@]}" "shots=$BUILD/html-shots" > "$TMP/browser.out" 2> "$TMP/browser.err"
rc=$?
browser_results "$TMP/browser.out"
[ $rc = 0 ] || fail "html-browser" "html.mjs exited $rc: $(tail -3 "$TMP/browser.err")"
exit 0
