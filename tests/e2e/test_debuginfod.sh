#!/usr/bin/env bash
# End-to-end: debug files fetched from debuginfod servers.
#
# The good paths run against elfutils' own server, debuginfod, started
# here on a free port and serving a directory that holds the one debug
# file of a stripped binary: named when DEBUGINFOD_URLS points at it, and
# not without it or with --offline; a second report uses the client's
# cache and asks nothing (the server's request count, then with the server
# gone); a pack made from the fetched file names the functions where there
# is neither server nor binary; every address's names are llvm-symbolizer's
# on the unstripped binary. The hostile answers come from a small server
# of this script's own: each gets its line in info, none hangs, crashes or
# is used.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/oracle.sh"

have() { command -v "$1" > /dev/null 2>&1; }
unset DEBUGINFOD_URLS DEBUGINFOD_TIMEOUT DEBUGINFOD_MAXSIZE DEBUGINFOD_MAXTIME DEBUGINFOD_PROGRESS \
	DEBUGINFOD_VERBOSE DEBUGINFOD_RETRY_LIMIT DEBUGINFOD_HEADERS_FILE
export DEBUGINFOD_CACHE_PATH=$TMP/cache
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2> /dev/null; done; rm -rf "$TMP"' EXIT

if ! have python3; then
	skip "debuginfod" "no python3 to run the test's servers"
	exit 0
fi
if [ ! -e /usr/lib/x86_64-linux-gnu/libdebuginfod.so.1 ] && ! ldconfig -p 2> /dev/null | grep -q 'libdebuginfod\.so\.1 '; then
	skip "debuginfod" "no libdebuginfod.so.1 (Debian: libdebuginfod1)"
	exit 0
fi

SPLIT=$FIX/split
STRIPPED=$FIX/stripped/split
DEBUG=$FIX/stripped/.debug/split.debug
if [ ! -x "$SYNTH" ] || [ ! -x "$STRIPPED" ] || [ ! -e "$DEBUG" ] || ! have readelf; then
	skip "debuginfod" "no synth_trace, stripped split fixture (make fixtures) or readelf"
	exit 0
fi
ID=$(readelf -n "$STRIPPED" | awk '/Build ID/ { print $3 }')

# http_get URL: the body, or nothing (curl, else python3, slower to start).
if have curl; then
	http_get() { curl -s --max-time 5 "$1"; }
else
	http_get() { python3 -c 'import sys, urllib.request
try: sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())
except Exception: pass' "$1"; }
fi
# free_port: a port of 127.0.0.1 that refuses connections now.
free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 40000))
		(exec 3<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null || { echo $p; return; }
	done
	echo 1
}

# block FILE LABEL: the lines of info about the image whose path ends in
# /LABEL, up to the next image.
block() { awk -v l="/$2" '/^  image / { on = substr($0, length($0) - length(l) + 1) == l; next }
	/^[a-z]/ { on = 0 } on' "$1"; }

# --- the hostile server ------------------------------------------------
# Its answer depends on the build-id asked for: the last byte of
# d0d0...NN names the case; the build-id of split is served cut short.
cat > "$TMP/hostile.py" << 'EOF'
import http.server, socketserver, sys, time
debug = open(sys.argv[1], "rb").read()
split_id, log = sys.argv[2], sys.argv[3]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def body(self, data, ctype="application/octet-stream", length=None):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data) if length is None else length))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
    def zeros(self, length):
        self.send_response(200)
        if length: self.send_header("Content-Length", str(length))
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            for _ in range(1024): self.wfile.write(bytes(65536))
        except OSError: pass
    def do_GET(self):
        with open(log, "a") as f: f.write(self.path + "\n")
        bid = self.path.split("/")[2] if self.path.startswith("/buildid/") else ""
        case = bid[-2:] if bid.startswith("d0d0") else ("cut" if bid == split_id else "")
        if case == "01": self.send_error(404)
        elif case == "02": self.send_error(500)
        elif case == "03": self.body(b"<html><body>Not the file you want</body></html>", "text/html")
        elif case == "04": self.body(debug)
        elif case == "cut": self.body(debug[: len(debug) // 2])
        elif case == "05": self.body(debug[:1000], length=100000)
        elif case == "06": self.zeros(64 << 20)
        elif case == "07": self.zeros(0)
        elif case in ("08", "09"): time.sleep(30)
        else: self.send_error(404)
class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
s = S(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
EOF

# HOSTILE: its URL, on a port the kernel chose.
python3 "$TMP/hostile.py" "$DEBUG" "$ID" "$TMP/hostile.log" > "$TMP/hostile.port" 2> "$TMP/hostile.err" &
PIDS+=($!)
for _ in $(seq 200); do [ -s "$TMP/hostile.port" ] && break; sleep 0.05; done
if [ ! -s "$TMP/hostile.port" ]; then
	fail "debuginfod-hostile-server" "it did not start: $(tail -2 "$TMP/hostile.err")"
	exit 0
fi
HOSTILE=http://127.0.0.1:$(cat "$TMP/hostile.port")
DOWN=http://127.0.0.1:$(free_port)

# A trace of one sample in each image, at path_a's address in split: had
# any answer been used, that sample would be named.
at=0x$(llvm-nm "$SPLIT" 2> /dev/null | awk '$3 == "path_a" { print $1 }')
[ "$at" = 0x ] && at=0x$(nm "$SPLIT" | awk '$3 == "path_a" { print $1 }')
synth_cases() { # FILE NAME:ID...
	local out=$1 k=0 args=() c
	shift
	for c in "$@"; do
		k=$((k + 1))
		args+=(--image "KIND=gnu-build-id,IDENT=${c#*:},PATH=/nonexistent/${c%%:*},START=$((k << 32)),SIZE=0x10000,BIAS=$((k << 32))"
		       --sample "TID=1,STACK=$(printf '0x%x' $(((k << 32) + at)))")
	done
	"$SYNTH" -o "$out" --os linux --arch x86_64 --command app --thread TID=1,NAME=main "${args[@]}"
}
d=d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0
synth_cases "$TMP/hostile.trace" notfound:${d}01 error500:${d}02 html:${d}03 otherbuild:${d}04 \
	truncated:$ID cuttransfer:${d}05 huge:${d}06 hugenolength:${d}07 otherbuild-again:${d}04
synth_cases "$TMP/slow.trace" slow:${d}08 slow2:${d}09
synth_cases "$TMP/down.trace" down:${d}0a

# hostile NAME PATTERN LABEL ID: info's from line for LABEL matches
# PATTERN, its sample is unnamed, and no file of ID is left in the cache
# (an empty one is the client's record of a miss).
hostile() {
	local name=$1 pat=$2 label=$3 id=$4 from
	from=$(block "$TMP/h.info" "$label" | grep '^    from:')
	if ! echo "$from" | grep -Eq "$pat"; then
		fail "$name" "info says '${from:-nothing}'"
	elif ! grep -q "^app;$label+0x" "$TMP/h.folded"; then
		fail "$name" "named from its answer: $(grep "$label" "$TMP/h.folded")"
	elif [ -s "$DEBUGINFOD_CACHE_PATH/$id/debuginfo" ]; then
		fail "$name" "its answer is still in the cache ($(wc -c < "$DEBUGINFOD_CACHE_PATH/$id/debuginfo") bytes)"
	else
		ok "$name"
	fi
}

export DEBUGINFOD_CACHE_PATH=$TMP/hostile-cache
start=$(date +%s.%N)
DEBUGINFOD_URLS=$HOSTILE DEBUGINFOD_MAXSIZE=1000000 DEBUGINFOD_TIMEOUT=10 \
	"$REPORT" info "$TMP/hostile.trace" > "$TMP/h.info" 2> "$TMP/h.err"; rc=$?
DEBUGINFOD_URLS=$HOSTILE DEBUGINFOD_MAXSIZE=1000000 DEBUGINFOD_TIMEOUT=10 \
	"$REPORT" folded "$TMP/hostile.trace" > "$TMP/h.folded" 2>> "$TMP/h.err"; rc2=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
if [ $rc != 0 ] || [ $rc2 != 0 ]; then
	fail "debuginfod-hostile-answers" "info exited $rc, folded $rc2: $(tail -3 "$TMP/h.err")"
else
	hostile debuginfod-404-not-found 'debuginfod: not found on http://127.0.0.1:[0-9]+ \(HTTP 404\)$' notfound ${d}01
	hostile debuginfod-500-server-error 'debuginfod: server error: HTTP 500 from http://127.0.0.1:[0-9]+$' error500 ${d}02
	hostile debuginfod-html-page-refused 'debuginfod: refused the file from .*, and removed it from the debuginfod cache: .*(ELF|Mach-O)' html ${d}03
	hostile debuginfod-other-build-refused "debuginfod: refused the file from .*: build-id mismatch \\(the file has $(readelf -n "$SPLIT" | awk '/Build ID/ { print $3 }')" otherbuild ${d}04
	hostile debuginfod-truncated-file-refused 'debuginfod: refused the file from .*, and removed it from the debuginfod cache: ' truncated $ID
	hostile debuginfod-cut-transfer 'debuginfod: failed, from .*: transfer closed with [0-9]+ bytes remaining' cuttransfer ${d}05
	hostile debuginfod-huge-refused-by-length 'debuginfod: too big: more than 1000000 bytes \(DEBUGINFOD_MAXSIZE\)' huge ${d}06
	hostile debuginfod-huge-without-length-cut-off 'debuginfod: too big: more than 1000000 bytes \(DEBUGINFOD_MAXSIZE\)' hugenolength ${d}07
	# Two images of one build-id (at two paths), two reports: each
	# report asked once for it, and said the same of both.
	n=$(grep -c "/buildid/${d}04/" "$TMP/hostile.log")
	a=$(block "$TMP/h.info" otherbuild | grep '^    from:')
	b=$(block "$TMP/h.info" otherbuild-again | grep '^    from:')
	[ "$n" = 2 ] && [ "$a" = "$b" ] && ok "debuginfod-each-build-id-once-per-run (2 images, 2 reports, $n requests)" \
		|| fail "debuginfod-each-build-id-once-per-run" "$n requests for one build-id in 2 runs; '$a' and '$b'"
fi

# The same in JSON, valid against prof-info's schema (python3-jsonschema).
DEBUGINFOD_URLS=$HOSTILE DEBUGINFOD_MAXSIZE=1000000 "$REPORT" info --json "$TMP/hostile.trace" > "$TMP/h.json" 2>&1
if ! python3 -c 'import jsonschema' 2> /dev/null; then
	skip "debuginfod-info-json" "python3-jsonschema is not installed"
elif out=$(python3 -c '
import json, sys, jsonschema
doc = json.load(open(sys.argv[2]))
jsonschema.validate(doc, json.load(open(sys.argv[1])), cls=jsonschema.Draft7Validator)
got = {i["path"].split("/")[-1]: (i["symbols"]["origin"], i["symbols"]["fetch"]["status"]) for i in doc["images"]}
want = {"otherbuild": (None, "file-refused"), "huge": (None, "too-big"), "cuttransfer": (None, "failed")}
bad = {k: got.get(k) for k in want if got.get(k) != want[k]}
print(bad or "")' "$TOP/schema/prof-info.schema.json" "$TMP/h.json" 2>&1) && [ -z "$out" ]; then
	ok "debuginfod-info-json"
else
	fail "debuginfod-info-json" "$(echo "$out" | tail -3)"
fi

# A miss is not asked again while the client's record of it is fresh.
DEBUGINFOD_URLS=$HOSTILE "$REPORT" info "$TMP/hostile.trace" > "$TMP/h2.info" 2>&1
from=$(block "$TMP/h2.info" notfound | grep '^    from:')
n=$(grep -c "/buildid/${d}01/" "$TMP/hostile.log")
echo "$from" | grep -q 'debuginfod: not asked: the debuginfod cache records that no server had it' && [ "$n" = 1 ] \
	&& ok "debuginfod-recent-miss-not-asked-again" \
	|| fail "debuginfod-recent-miss-not-asked-again" "$n requests; '$from'"

# A server that never answers: the report waits DEBUGINFOD_TIMEOUT (1 s)
# once, however many images, and asks nothing more (libdebuginfod alone
# would wait a timeout per attempt, three attempts per image).
start=$(date +%s.%N)
DEBUGINFOD_URLS=$HOSTILE DEBUGINFOD_TIMEOUT=1 "$REPORT" info "$TMP/slow.trace" > "$TMP/slow.info" 2>&1; rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
from=$(block "$TMP/slow.info" slow | grep '^    from:')
from2=$(block "$TMP/slow.info" slow2 | grep '^    from:')
if [ $rc = 0 ] && echo "$from" | grep -Eq 'debuginfod: timed out: no data from http://127.0.0.1:[0-9]+ for 1 s \(DEBUGINFOD_TIMEOUT\)' \
	&& echo "$from2" | grep -q 'debuginfod: not asked: a fetch timed out earlier in this run' \
	&& ! grep -q "/buildid/${d}09/" "$TMP/hostile.log" && [ "$(echo "$secs < 3.5" | bc)" = 1 ]; then
	ok "debuginfod-slow-server-times-out-once (${secs%??????} s for two images, timeout 1 s)"
else
	fail "debuginfod-slow-server-times-out-once" "exit $rc in $secs s; '$from', '$from2'"
fi

# A server that is down.
DEBUGINFOD_URLS=$DOWN "$REPORT" info "$TMP/down.trace" > "$TMP/down.info" 2>&1; rc=$?
from=$(block "$TMP/down.info" down | grep '^    from:')
[ $rc = 0 ] && echo "$from" | grep -q "debuginfod: connection refused by $DOWN (is the server running?)" \
	&& ok "debuginfod-server-down-refused" || fail "debuginfod-server-down-refused" "exit $rc; '$from'"

# libdebuginfod is loaded when first needed, never linked: a machine
# without it reports as before, and says why nothing was fetched (the
# library hidden under /dev/null in a mount namespace of this test's).
if have readelf && readelf -d "$REPORT" | grep -Eq 'NEEDED.*(libdebuginfod|libcurl)'; then
	fail "debuginfod-library-not-linked" "$(readelf -d "$REPORT" | grep -E 'libdebuginfod|libcurl')"
else
	ok "debuginfod-library-not-linked"
fi
lib=$(ldconfig -p 2> /dev/null | awk '$1 == "libdebuginfod.so.1" { print $NF; exit }')
lib=$(readlink -f "${lib:-/usr/lib/x86_64-linux-gnu/libdebuginfod.so.1}")
if [ "$(id -u)" != 0 ] || ! have unshare || ! unshare -m true 2> /dev/null; then
	skip "debuginfod-library-missing" "hiding the library takes root and unshare -m"
else
	unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$lib" \
		env DEBUGINFOD_URLS="$DOWN" "$REPORT" info "$TMP/down.trace" > "$TMP/nolib.info" 2>&1; rc=$?
	from=$(block "$TMP/nolib.info" down | grep '^    from:')
	[ $rc = 0 ] && echo "$from" | grep -q 'debuginfod: not asked: cannot load libdebuginfod.so.1 (Debian: libdebuginfod1): ' \
		&& ok "debuginfod-library-missing" || fail "debuginfod-library-missing" "exit $rc; '$from' $(tail -2 "$TMP/nolib.info")"
fi
export DEBUGINFOD_CACHE_PATH=$TMP/cache

# --- the real server ---------------------------------------------------
if ! have debuginfod; then
	skip "debuginfod-server" "no debuginfod (Debian: debuginfod)"
	exit 0
fi
if ! why=$(ptrace_ok); then
	skip "debuginfod-server" "$why"
	exit 0
fi

# The stripped binary where its debug link leads nowhere, its debug file
# only in the served directory.
mkdir -p "$TMP/bin" "$TMP/served" "$TMP/nosyms"
cp "$STRIPPED" "$TMP/bin/split"
cp "$DEBUG" "$TMP/served/split.debug"
"$RECORD" -q -o "$TMP/split.trace" -- "$TMP/bin/split" 0.3 > /dev/null 2> "$TMP/record.err" \
	|| { fail "debuginfod-server" "cannot record: $(tail -2 "$TMP/record.err")"; exit 0; }

# start_server: debuginfod on a free port of 127.0.0.1, the directory
# scanned (its metrics count the file); SERVER its URL, or nothing.
SERVER=
for _ in 1 2 3; do
	port=$(free_port)
	debuginfod -p "$port" -F -d "$TMP/debuginfod.sqlite" -t 0 -g 0 -c 1 "$TMP/served" > "$TMP/debuginfod.log" 2>&1 &
	DPID=$!
	PIDS+=($DPID)
	for _ in $(seq 200); do
		kill -0 $DPID 2> /dev/null || break
		http_get "http://127.0.0.1:$port/metrics" | grep -q '^scanned_files_total{source="file"} [1-9]' \
			&& { SERVER=http://127.0.0.1:$port; break 2; }
		sleep 0.05
	done
	kill $DPID 2> /dev/null
	wait $DPID 2> /dev/null
done
if [ -z "$SERVER" ]; then
	fail "debuginfod-server" "debuginfod did not start: $(tail -3 "$TMP/debuginfod.log")"
	exit 0
fi
requests() { http_get "$SERVER/metrics" | awk '/^http_requests_total\{type="debuginfo"\}/ { n = $2 } END { print n + 0 }'; }
# served: how many debug files the server has sent (its 200 answers); it
# has only split's.
served() { http_get "$SERVER/metrics" | awk '/^http_responses_transfer_bytes_count\{code="200",type="debuginfo"\}/ { n = $2 } END { print n + 0 }'; }

# unnamed FOLDED: how many samples have an unnamed frame of split.
unnamed() { awk '/split\+0x/ { n += $NF } END { print n + 0 }' "$1"; }
# named FOLDED: path_a and path_b both named, nothing of split unnamed.
named() { grep -q ';run;path_a;' "$1" && grep -q ';run;path_b;' "$1" && [ "$(unnamed "$1")" = 0 ]; }

# Without DEBUGINFOD_URLS, and with --offline: nothing fetched.
"$REPORT" folded "$TMP/split.trace" > "$TMP/none.folded" 2>&1
"$REPORT" info "$TMP/split.trace" > "$TMP/none.info" 2>&1
if [ "$(unnamed "$TMP/none.folded")" -gt 0 ] && ! grep -q ';path_a;' "$TMP/none.folded" \
	&& block "$TMP/none.info" split | grep -q '^    from:     disk; no debuginfod server'; then
	ok "debuginfod-not-named-without-urls ($(unnamed "$TMP/none.folded") samples unnamed)"
else
	fail "debuginfod-not-named-without-urls" "$(head -2 "$TMP/none.folded" | tr '\n' '|') $(block "$TMP/none.info" split | grep from:)"
fi
export DEBUGINFOD_URLS=$SERVER
"$REPORT" folded --offline "$TMP/split.trace" > "$TMP/offline.folded" 2>&1
"$REPORT" info --offline "$TMP/split.trace" > "$TMP/offline.info" 2>&1
n=$(requests)
if [ "$n" = 0 ] && [ "$(unnamed "$TMP/offline.folded")" -gt 0 ] && ! grep -q ';path_a;' "$TMP/offline.folded" \
	&& block "$TMP/offline.info" split | grep -q '^    from:     disk; not fetched (--offline)'; then
	ok "debuginfod-offline-fetches-nothing"
else
	fail "debuginfod-offline-fetches-nothing" "$n requests; $(head -1 "$TMP/offline.folded") $(block "$TMP/offline.info" split | grep from:)"
fi

# With it: fetched, named, and said so.
"$REPORT" info "$TMP/split.trace" > "$TMP/fetch.info" 2>&1
"$REPORT" folded "$TMP/split.trace" > "$TMP/fetch.folded" 2>&1
from=$(block "$TMP/fetch.info" split | grep '^    from:')
if named "$TMP/fetch.folded" && echo "$from" | grep -Eq "^    from:     fetched from $SERVER \([0-9]+ bytes in [0-9.]+ s\), kept in the debuginfod cache$" \
	&& block "$TMP/fetch.info" split | grep -q "^    symbols:  $TMP/cache/$ID/debuginfo (DWARF" \
	&& cmp -s "$TMP/cache/$ID/debuginfo" "$DEBUG"; then
	ok "debuginfod-named-when-served"
else
	fail "debuginfod-named-when-served" "$(sort -k2 -n "$TMP/fetch.folded" | tail -2 | tr '\n' '|') $from"
fi

# Addresses of split named from the fetched file as llvm-symbolizer names
# them on the unstripped binary: those the recording has, and every 8th
# instruction besides. Without DEBUGINFOD_URLS: llvm-symbolizer has a
# client of its own, and the reports find the file in the cache.
n=$(requests)
case $BUILD in
*-san) skip "debuginfod-fetched-names" "a sanitized build; the plain suite compares the names" ;;
*) if ! have llvm-symbolizer || ! have llvm-objdump; then
	skip "debuginfod-fetched-names" "no llvm-symbolizer or llvm-objdump"
else
	{ "$REPORT" folded --addresses "$TMP/split.trace" | tr ';' '\n' | sed -n 's/^split+\(0x[0-9a-f]*\).*/\1/p'
	  addresses "$SPLIT" | awk 'NR % 8 == 1'; } | sort -u > "$TMP/split.addrs"
	DEBUGINFOD_URLS= ADDRS=$TMP/split.addrs oracle debuginfod-fetched-names "$SPLIT" "$SPLIT" 0x555500000000 "$TMP/nosyms" \
		--os linux --arch x86_64 --command split \
		--image "KIND=gnu-build-id,IDENT=$ID,PATH=$TMP/gone/split,START=0x555500000000,SIZE=0x10000,BIAS=0x555500000000"
fi ;;
esac

# A second report: from the cache, no request; then with the server gone.
"$REPORT" info "$TMP/split.trace" > "$TMP/again.info" 2>&1
"$REPORT" folded "$TMP/split.trace" > "$TMP/again.folded" 2>&1
m=$(requests)
if [ "$n" = "$m" ] && named "$TMP/again.folded" && block "$TMP/again.info" split | grep -q '^    from:     the debuginfod cache$'; then
	ok "debuginfod-second-report-from-cache ($m requests before and after)"
else
	fail "debuginfod-second-report-from-cache" "$n requests before, $m after; $(block "$TMP/again.info" split | grep from:)"
fi

# pack, from the fetched file; taken to another machine, without the
# binary: there the pack serves the image, and the server is not asked
# for it. (It may be asked for the vDSO's build-id, a miss, when a sample
# lies in the vDSO outside the functions the trace names: the pack holds
# nothing of the vDSO, and the new cache no record of the miss. So what
# is counted is the files the server sent, split's alone.)
"$REPORT" pack "$TMP/split.trace" > "$TMP/pack.out" 2>&1 || fail "debuginfod-pack-from-fetched-file" "$(cat "$TMP/pack.out")"
mkdir -p "$TMP/other"
cp "$TMP/split.trace" "$TMP/split.trace.syms" "$TMP/other/" 2> /dev/null
mv "$TMP/bin/split" "$TMP/bin/split.moved"
n=$(served)
DEBUGINFOD_CACHE_PATH=$TMP/other-cache "$REPORT" folded "$TMP/other/split.trace" > "$TMP/packed.folded" 2>&1
m=$(served)
if [ "$n" -ge 1 ] && [ "$n" = "$m" ] && named "$TMP/packed.folded" && cmp -s "$TMP/packed.folded" "$TMP/fetch.folded"; then
	ok "debuginfod-pack-serves-without-asking ($n file served, before and after)"
else
	fail "debuginfod-pack-serves-without-asking" "$n files served before, $m after; $(diff "$TMP/fetch.folded" "$TMP/packed.folded" | head -3 | tr '\n' '|')"
fi

# The server gone: the cache serves.
disown $DPID
kill -KILL $DPID
while kill -0 $DPID 2> /dev/null; do sleep 0.02; done
"$REPORT" folded "$TMP/split.trace" > "$TMP/gone.folded" 2>&1
named "$TMP/gone.folded" && cmp -s "$TMP/gone.folded" "$TMP/fetch.folded" && ok "debuginfod-cache-serves-with-server-gone" \
	|| fail "debuginfod-cache-serves-with-server-gone" "$(diff "$TMP/fetch.folded" "$TMP/gone.folded" | head -3 | tr '\n' '|')"

# Another machine: no server, no cache, no binary; the trace and its pack.
unset DEBUGINFOD_URLS
export DEBUGINFOD_CACHE_PATH=$TMP/third-cache
"$REPORT" folded "$TMP/other/split.trace" > "$TMP/other.folded" 2>&1
if [ -s "$TMP/other/split.trace.syms" ] && named "$TMP/other.folded" && cmp -s "$TMP/other.folded" "$TMP/fetch.folded"; then
	ok "debuginfod-pack-from-fetched-file ($(sed 's/^prof-report: //' "$TMP/pack.out"))"
else
	fail "debuginfod-pack-from-fetched-file" "$(cat "$TMP/pack.out") $(diff "$TMP/fetch.folded" "$TMP/other.folded" | head -3 | tr '\n' '|')"
fi
