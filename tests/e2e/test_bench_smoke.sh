#!/usr/bin/env bash
# End-to-end: the benchmark harness (bench/bench.sh) in its smoke mode, so
# that it keeps working. It checks that the harness runs, and that it writes
# well-formed JSON with every expected key, and a number wherever the tool
# was not skipped. No timing is asserted here: figures belong to make bench.
. "$(dirname "$0")/lib.sh"

case $BUILD in *-san)
	# .ci/run's sanitized suite: the plain suite has run the harness, and
	# its figures under sanitizers would mean nothing.
	skip "bench-smoke" "a sanitized build; the plain suite runs the harness"
	exit 0 ;;
esac
if ! command -v node > /dev/null; then
	skip "bench-smoke" "node is not installed, so the JSON cannot be checked (Debian package nodejs)"
	exit 0
fi
if ! why=$(ptrace_ok); then
	skip "bench-smoke" "$why"
	exit 0
fi
cd "$TOP"
if BENCH_SMOKE=1 BENCH_OUT="$TMP/results.json" BUILD="$BUILD" BIN="$BIN" \
	bash bench/bench.sh > "$TMP/table" 2> "$TMP/log"; then
	ok "bench-smoke-runs"
else
	fail "bench-smoke-runs" "$(tail -5 "$TMP/log")"
	exit 0
fi
grep -q '^targets$' "$TMP/table" && grep -q '^slowdown: ' "$TMP/table" && ok "bench-smoke-table" \
	|| fail "bench-smoke-table" "$(head -5 "$TMP/table")"

# Prints one line per problem: a missing key, or null where a number is due.
bad=$(node -e '
const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const skipped = new Set(r.skipped.map(s => s.tool));
const bad = [];
const get = (path) => path.split("/").reduce((o, k) => (o == null ? undefined : o[k]), r);
const want = (path, tool) => {
	const v = get(path);
	if (v === undefined) bad.push("missing " + path);
	else if (v === null && !(tool && skipped.has(tool))) bad.push("null " + path);
};
for (const k of ["date", "elapsed_seconds", "cpus", "kernel", "perf", "load_before", "load_after",
		 "smoke", "reps", "seconds", "rates", "workloads", "attach_workloads", "report_hz", "report_reps",
		 "capture_seconds"])
	want("run/" + k);
const tools = ["prof-cpu", "prof-wall", "perf-fp", "perf-dwarf", "perf-sw"];
/* the workloads run: in smoke, a steady one and a switching one */
if (!["cpu1", "switch50"].every(w => (r.run.workloads || []).includes(w))) bad.push("workloads run: " + r.run.workloads);
for (const w of r.run.workloads || [])
	for (const hz of r.run.rates) {
		for (const s of ["median", "min", "max"]) {
			want(`overhead/${w}/${hz}/bare_seconds/${s}`);
			for (const t of tools) want(`overhead/${w}/${hz}/${t}/${s}`, t);
		}
		for (const t of tools) want(`bytes_per_sample/${w}/${hz}/${t}`, t);
		for (const t of tools) want(`lost_percent/${w}/${hz}/${t}`, t);
		want(`bytes_per_sample/${w}/${hz}/perf-fp-z`, skipped.has("perf-fp") ? "perf-fp" : "perf-fp-z");
	}
/* -p on many busy threads: every figure of each tool; the first sample, of prof only */
want("many/seconds");
for (const n of Object.keys(r.many || {}).filter(k => k !== "seconds").concat(r.many ? [] : ["50"])) {
	want(`many/${n}/true_seconds`);
	for (const t of ["prof-cpu", "prof-wall", "perf-fp"])
		for (const k of ["seconds", "samples", "lost", "lost_share", "threads_seen", "threads"].concat(t.startsWith("prof") ? ["first_sample"] : []))
			want(`many/${n}/${t}/${k}`, t === "perf-fp" && skipped.has("perf-fp-p") ? "perf-fp-p" : t);
}
/* -p against a launch: perf -g attached needs perf record -p ("perf-fp-p") */
want("attach/hz");
if (!(r.run.attach_workloads || []).length) bad.push("no attach workloads");
for (const w of r.run.attach_workloads || [])
	for (const s of ["median", "min", "max"]) {
		want(`attach/${w}/bare_seconds/${s}`);
		for (const t of ["prof-cpu", "prof-wall", "perf-fp"]) {
			const tp = t === "perf-fp" && skipped.has("perf-fp-p") ? "perf-fp-p" : t;
			want(`attach/${w}/launched/${t}/${s}`, t);
			want(`attach/${w}/samples_launched/${t}/${s}`, t);
			for (const k of ["attached", "attached_vs_launched", "samples_attached"]) want(`attach/${w}/${k}/${t}/${s}`, tp);
		}
		for (const t of ["prof-cpu", "prof-wall"])
			for (const k of ["points_over_perf_fp", "vs_perf_fp"])
				want(`attach/${w}/${k}/${t}/${s}`, skipped.has(t) ? t : "perf-fp-p");
	}
const rep = skipped.has("prof-cpu") ? "prof-wall" : "prof-cpu";
for (const k of ["prof_mode", "prof_samples", "prof_unique_stacks", "prof_bytes_per_sample"]) want("report/" + k, rep);
want("report/perf_samples", "perf-fp");
for (const k of ["prof_folded", "prof_svg", "prof_html", "perf_folded"])
	for (const s of ["median", "min", "max"])
		for (const m of ["seconds", "rss_kib"]) want(`report/${k}/${m}/${s}`, k.startsWith("perf") ? "perf-fp" : rep);
want("report/prof_html_bytes", rep);
for (const s of ["median", "min", "max"])
	want(`report/prof_html_first_draw_seconds/${s}`, skipped.has(rep) ? rep : "html-browser");
want("report/folded_speedup", skipped.has("perf-fp") ? "perf-fp" : rep);
/* the small trace and the loop of them need the Rust fixture ("small"),
 * the comparison perf too; the symbolization llvm-symbolizer ("symbolize") */
const small = skipped.has("small") ? "small" : "perf-fp";
for (const c of ["small", "loop"]) {
	want(`report/${c}/prof_samples`, "small");
	want(`report/${c}/perf_samples`, small);
	for (const k of ["prof_folded", "perf_folded"])
		for (const s of ["median", "min", "max"])
			for (const m of ["seconds", "rss_kib"]) want(`report/${c}/${k}/${m}/${s}`, k.startsWith("perf") ? small : "small");
	want(`report/${c}/speedup`, small);
}
want("report/small/prof_unique_stacks", "small");
/* annotate on the small trace needs prof-report annotate ("annotate") */
const annotate = skipped.has("small") ? "small" : "annotate";
for (const s of ["median", "min", "max"])
	for (const m of ["seconds", "rss_kib"]) want(`report/small/prof_annotate/${m}/${s}`, annotate);
want("report/small/annotate_vs_folded", annotate);
want("report/loop/traces");
for (const k of ["addresses", "unresolved"]) want("report/symbolize/" + k, "symbolize");
for (const k of ["prof", "llvm"])
	for (const s of ["median", "min", "max"])
		for (const m of ["seconds", "rss_kib"]) want(`report/symbolize/${k}/${m}/${s}`, "symbolize");
want("report/symbolize/speedup", "symbolize");
for (const m of ["cpu", "wall"])
	for (const k of ["samples", "us_per_sample", "rss_kib", "bytes_per_sample"]) want(`recorder/${m}/${k}`, "prof-" + m);
for (const w of ["cpu1", "threads8"]) {
	/* null is a result here: even the lowest rate lost samples */
	if (get(`max_rate/${w}/hz`) === undefined) bad.push(`missing max_rate/${w}/hz`);
	const tried = get(`max_rate/${w}/tried`);
	if (!skipped.has("prof-cpu") && !(Array.isArray(tried) && tried.length)) bad.push(`empty max_rate/${w}/tried`);
}
/* the RSS of the flight recorder through its recording, and the window it wrote
 * (wall mode: "ring" is skipped where prof-record cannot record in it) */
for (const k of ["seconds", "window_seconds", "hz", "every_seconds", "from_seconds"]) want("ring/" + k);
for (const k of ["first", "first_at", "last", "last_at", "max"]) want("ring/rss_kib/" + k, "ring");
for (const k of ["growth", "samples_recorded", "window_samples", "window_duration_seconds"]) want("ring/" + k, "ring");
const readings = get("ring/readings");
if (!Array.isArray(readings)) bad.push("missing ring/readings");
else if (!skipped.has("ring") && !readings.length) bad.push("empty ring/readings");
/* a change a minute needs two readings, which a loaded machine may not leave time for */
if (Array.isArray(readings) && readings.length > 1) want("ring/kib_per_minute", "ring");
for (const k of ["own", "prof-cpu", "perf-dwarf"])
	for (const s of ["median", "min", "max"]) want(`syscall/${k}/${s}`, k === "own" ? "prof-cpu" : k);
for (const k of ["cpu_997_points_over_perf_fp", "wall_997_points_over_perf_fp", "cpu_9973_vs_perf_fp",
		 "wall_9973_vs_perf_fp", "trace_bytes_per_sample",
		 "trace_smaller_than_perf_fp", "folded_faster_than_perf_report", "small_folded_vs_perf_report",
		 "small_annotate_vs_folded",
		 "loop_folded_vs_perf_report", "symbolize_vs_llvm_symbolizer", "recorder_rss_mib",
		 "ring_rss_growth"])
	for (const f of ["value", "want", "met"])
		if (get(`targets/${k}/${f}`) === undefined) bad.push(`missing targets/${k}/${f}`);
if (bad.length) console.log(bad.join("\n"));
' "$TMP/results.json" 2>&1)
if [ $? -eq 0 ] && [ -z "$bad" ]; then
	ok "bench-smoke-json-keys"
else
	fail "bench-smoke-json-keys" "$(echo "$bad" | head -5)"
fi
# A tool the harness could not run is reported as skipped, with its reason.
node -e 'for (const s of JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).skipped)
	console.log(s.tool + "\t" + s.reason)' "$TMP/results.json" 2> /dev/null |
while IFS=$'\t' read -r tool why; do
	skip "bench-smoke-$tool" "$why"
done
