#!/usr/bin/env bash
# End-to-end: every --json output (info, threads, top, diff, diff --check)
# validated against its schema in schema/ by a real validator (Debian's
# python3-jsonschema), on the golden trace, whose thread names are hostile,
# on a synthetic trace with a control byte, invalid UTF-8, quotes and
# markup in a thread name, and on the inject fixture, whose symbol names
# are markup and quotes; each such name read back as prof-json(5) says;
# the output deterministic; diff --check --json keeps its exit status.
. "$(dirname "$0")/lib.sh"

TR=$TOP/testdata/golden/tables.trace
SYNTH=$BUILD/tests/tools/synth_trace
S=$TOP/schema

if ! python3 -c 'import jsonschema' 2> /dev/null; then
	skip "json" "python3-jsonschema is not installed (mk/setup.sh installs it)"
	exit 0
fi

# valid CASE SCHEMA FILE: FILE is valid JSON and valid against SCHEMA.
valid() {
	local err
	if err=$(python3 - "$S/prof-$2.schema.json" "$3" 2>&1 <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
jsonschema.validate(json.load(open(sys.argv[2], encoding="utf-8")), schema,
                    cls=jsonschema.Draft7Validator)
PY
	); then
		ok "$1"
	else
		fail "$1" "$(echo "$err" | tail -3 | tr '\n' '|')"
	fi
}

# run CASE SCHEMA ARGS...: prof-report ARGS exits 0, its output is valid.
run() {
	local c=$1 s=$2 rc
	shift 2
	"$REPORT" "$@" > "$TMP/$c.json" 2> "$TMP/$c.err"; rc=$?
	[ $rc -eq 0 ] || { fail "$c" "exit $rc: $(head -2 "$TMP/$c.err")"; return; }
	valid "$c" "$s" "$TMP/$c.json"
}

run json-info info info --json "$TR"
run json-threads threads threads --json "$TR"
run json-top top top --json "$TR"
run json-top-group-image top top --json --group image --limit 2 "$TR"
run json-top-group-line top top --json --group line "$TR"

# The same document twice, byte for byte.
"$REPORT" info --json "$TR" > "$TMP/info2.json"
cmp -s "$TMP/json-info.json" "$TMP/info2.json" && ok "json-deterministic" \
	|| fail "json-deterministic" "two runs of info --json differ"

# What the golden trace's hostile thread names read back as, and the
# counts the tables show.
python3 - "$TMP/json-threads.json" "$TMP/json-top.json" "$TMP/json-info.json" <<'PY' \
	&& ok "json-golden-values" || fail "json-golden-values" "see above"
import json, sys
th, top, info = (json.load(open(p)) for p in sys.argv[1:])
names = {t["name"] for t in th["threads"]}
assert {"../../x", "a/b", "", "<b>&\"x'"} <= names, names
assert th["samples"] == top["samples"] == info["samples"] == 103
assert sum(t["samples"] for t in th["threads"]) == 103
assert top["functions"][0] == {"name": "app+0x1100", "self": 32, "total": 37,
                               "self_percent": 31.068, "total_percent": 35.9223}, top["functions"][0]
assert info["marks"] == [] and info["lost"] == 0 and info["mode"] == "wall"
w = [t for t in info["threads"] if t["tid"] == 101][0]
assert w["states"] == {"running": 23, "sleeping": 10}, w
PY

if [ ! -x "$SYNTH" ]; then
	skip "json-hostile" "no synth_trace tool in $BUILD/tests/tools"
	skip "json-diff" "no synth_trace tool in $BUILD/tests/tools"
else
	"$SYNTH" -o "$TMP/hostile.trace" --os linux --arch x86_64 --command $'host\x02ile' \
		--image KIND=none,PATH=/nonexistent/app,START=0x400000,SIZE=0x10000,BIAS=0x400000 \
		--thread $'TID=7,NAME=t\x01\xff"</script>\\' --sample TID=7,STACK=0x401000 --count 3
	run json-hostile-info info info --json "$TMP/hostile.trace"
	run json-hostile-threads threads threads --json "$TMP/hostile.trace"
	run json-hostile-top top top --json --thread-frames "$TMP/hostile.trace"
	python3 - "$TMP/json-hostile-threads.json" "$TMP/json-hostile-info.json" <<'PY' \
		&& ok "json-hostile-names-as-documented" || fail "json-hostile-names-as-documented" "see above"
import json, sys
th, info = (json.load(open(p)) for p in sys.argv[1:])
want = 't\x01\\xff"</script>\\'
assert th["threads"][0]["name"] == want, th["threads"][0]["name"]
assert info["threads"][0]["name"] == want and info["argv"] == ["host\x02ile"], info["argv"]
PY
	grep -q '\\u003c/script\\u003e' "$TMP/json-hostile-threads.json" && ! grep -q '</script>' "$TMP/json-hostile-threads.json" \
		&& ok "json-hostile-markup-escaped" || fail "json-hostile-markup-escaped" "markup written as is"

	# diff: 75/25 against 25/75, as test_diff.sh's exact case.
	synth_paths "$TMP/base.trace" 300 100
	synth_paths "$TMP/new.trace" 200 600
	run json-diff diff diff --json "$TMP/base.trace" "$TMP/new.trace"
	run json-diff-all diff diff --json --all "$TMP/base.trace" "$TMP/base.trace"
	"$REPORT" diff --check --json "$TMP/base.trace" "$TMP/new.trace" > "$TMP/check.json"; rc=$?
	"$REPORT" diff --check --json "$TMP/base.trace" "$TMP/base.trace" > "$TMP/check0.json"; rc0=$?
	[ $rc = 3 ] && [ $rc0 = 0 ] && ok "json-diff-check-exit-status" || fail "json-diff-check-exit-status" "exit $rc and $rc0"
	valid json-diff-check diff "$TMP/check.json"
	valid json-diff-check-unchanged diff "$TMP/check0.json"
	python3 - "$TMP/json-diff.json" "$TMP/check.json" "$TMP/check0.json" <<'PY' \
		&& ok "json-diff-values" || fail "json-diff-values" "see above"
import json, sys
d, c, c0 = (json.load(open(p)) for p in sys.argv[1:])
assert "verdict" not in d and c["verdict"] == "changed" and c0["verdict"] == "unchanged"
assert d["significant"] == len(d["changes"]) == 4, d["significant"]
x = [x for x in d["changes"] if x["name"] == "app+0x200" and x["kind"] == "total"][0]
assert abs(x["change"] - 50) < 1e-9 and x["interval"][0] < 50 < x["interval"][1] and x["q"] < 0.05, x
assert c0["changes"] == [] and c0["detectable"] > 0
PY
	"$REPORT" diff --json --folded "$TMP/base.trace" "$TMP/new.trace" > /dev/null 2>&1; rc=$?
	[ $rc = 2 ] && ok "json-diff-folded-refused" || fail "json-diff-folded-refused" "exit $rc"

	# Code no file holds (lib.sh's synth_code): info's "unnamed" and top's
	# [jit] and [anon] rows; the golden trace's has no hint.
	synth_code "$TMP/code.trace"
	run json-code-info info info --json "$TMP/code.trace"
	run json-code-top top top --json --group image "$TMP/code.trace"
	python3 - "$TMP/json-code-info.json" "$TMP/json-code-top.json" "$TMP/json-info.json" <<'PY' \
		&& ok "json-code-values" || fail "json-code-values" "see above"
import json, sys
info, top, golden = (json.load(open(p)) for p in sys.argv[1:])
u = info["unnamed"]
assert (u["stacks"], u["leaves"], u["jit"], u["anon"], u["stopped_in_jit"]) == (20, 11, 6, 5, 1), u
assert u["code_ranges"] == {"perf-map": 2, "jitdump": 1, "vdso": 0, "unknown": 0}, u
assert u["leaf_scans"] == 0 and u["walks"] == 0 and "--perf-basic-prof" in u["hint"], u
rows = {f["name"]: (f["self"], f["total"]) for f in top["functions"]}
assert rows == {"app": (9, 20), "[jit]": (6, 7), "[anon]": (5, 5)}, rows
g = golden["unnamed"]
assert g["anon"] == 2 and g["jit"] == 0 and g["leaf_scans"] is None, g
PY
fi

# Real symbol names with markup and quotes (the inject fixture).
if ptrace_ok > /dev/null && "$RECORD" -q -o "$TMP/inject.trace" -- "$FIX/inject" > /dev/null 2>&1; then
	run json-inject-top top top --json "$TMP/inject.trace"
	run json-inject-info info info --json "$TMP/inject.trace"
	python3 - "$TMP/json-inject-top.json" <<'PY' && ok "json-inject-names-intact" \
		|| fail "json-inject-names-intact" "a hostile name did not survive"
import json, sys
n = {f["name"] for f in json.load(open(sys.argv[1]))["functions"]}
assert "</text><script>window.__pwned=1;document.title='pwned'</script>" in n, n
assert "a\"b'c&d]]>e;f" in n, n
PY
else
	skip "json-inject" "testdata/inject could not be recorded"
fi
